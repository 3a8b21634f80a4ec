// In-process wire counting (engine/wire/SocketCounter.h) with the real libpq against scripted
// servers on 127.0.0.1: exact bytes both ways, round trips by the relay's definition, only the
// adopted descriptor counted (a second libpq connection, the test's own sockets), and a counter's
// figures equal to a WireTap's in front of the same conversation; the stall timeout and the cancel
// grace cut a silent server, and a wait longer than the counter's wake-up is otherwise invisible.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "engine/wire/ProcessSockets.h"
#include "engine/wire/SocketCounter.h"
#include "engine/wire/WireTap.h"
#include "support/SocketSupport.h"

namespace blobbench {
namespace {

using test::ScriptedServer;

// A PostgreSQL server that answers the startup packet with one ErrorResponse, then closes:
// one exchange, greeting-free, with sizes known to the byte.
struct FakePostgres {
    std::atomic<std::uint64_t> received{0};
    std::string reply;
    ScriptedServer server;

    FakePostgres()
        : reply(errorResponse()), server([this](int fd) {
              // The startup packet: int32 length (itself included), then the rest.
              std::string header = test::readUpTo(fd, 4);
              if (header.size() != 4) {
                  return;
              }
              const auto length = (static_cast<unsigned char>(header[0]) << 24) |
                                  (static_cast<unsigned char>(header[1]) << 16) |
                                  (static_cast<unsigned char>(header[2]) << 8) | static_cast<unsigned char>(header[3]);
              const std::string body = test::readUpTo(fd, static_cast<std::size_t>(length) - 4);
              received += 4 + body.size();
              test::writeAll(fd, reply);
              ::shutdown(fd, SHUT_WR);
              test::readToEnd(fd);
          }) {}

    static std::string errorResponse() {
        std::string fields;
        fields += 'S';
        fields += "FATAL";
        fields += '\0';
        fields += 'C';
        fields += "28000";
        fields += '\0';
        fields += 'M';
        fields += "scripted refusal";
        fields += '\0';
        fields += '\0';
        const auto length = static_cast<std::uint32_t>(fields.size() + 4);
        std::string m(1, 'E');
        for (int shift = 24; shift >= 0; shift -= 8) {
            m += static_cast<char>((length >> shift) & 0xff);
        }
        return m + fields;
    }

    std::string conninfo(std::uint16_t port) const {
        return "host=127.0.0.1 port=" + std::to_string(port) +
               " dbname=x user=x sslmode=disable gssencmode=disable connect_timeout=10";
    }
};

void connectOnce(const std::string& conninfo) {
    PGconn* conn = PQconnectdb(conninfo.c_str());
    EXPECT_NE(PQstatus(conn), CONNECTION_OK);
    EXPECT_NE(std::string(PQerrorMessage(conn)).find("scripted refusal"), std::string::npos) << PQerrorMessage(conn);
    PQfinish(conn);
}

TEST(SocketCounter, CountsTheAdoptedLibpqConnectionExactly) {
    ASSERT_TRUE(SocketCounter::hookClientLibraries());
    FakePostgres pg;
    SocketCounter counter;
    {
        SocketCounter::Adopting adopting(counter, pg.server.port());
        connectOnce(pg.conninfo(pg.server.port()));
    }
    const WireCounters c = counter.snapshot();
    EXPECT_EQ(counter.socketsAdopted(), 1u);
    EXPECT_GT(pg.received.load(), 8u);
    EXPECT_EQ(c.sendBytes, pg.received.load());
    EXPECT_EQ(c.recvBytes, pg.reply.size());
    EXPECT_GE(c.sendPackets, 1u);
    EXPECT_GE(c.recvPackets, 1u);
    ASSERT_TRUE(c.roundTrips.has_value());
    EXPECT_EQ(*c.roundTrips, 1u);
}

TEST(SocketCounter, EqualsTheRelayOnTheSameConversation) {
    FakePostgres pg;
    WireTap tap("127.0.0.1", pg.server.port());
    connectOnce(pg.conninfo(tap.port()));
    const WireCounters relayed = tap.snapshot();

    SocketCounter counter;
    {
        SocketCounter::Adopting adopting(counter, pg.server.port());
        connectOnce(pg.conninfo(pg.server.port()));
    }
    const WireCounters counted = counter.snapshot();
    EXPECT_EQ(counted.sendBytes, relayed.sendBytes);
    EXPECT_EQ(counted.recvBytes, relayed.recvBytes);
    EXPECT_EQ(counted.roundTrips, relayed.roundTrips);
}

TEST(SocketCounter, NeverCountsSocketsItDidNotAdopt) {
    FakePostgres pg;
    FakePostgres other;
    SocketCounter counter;
    {
        SocketCounter::Adopting adopting(counter, pg.server.port());
        connectOnce(pg.conninfo(pg.server.port()));
    }
    const WireCounters before = counter.snapshot();
    // A second libpq connection outside the adoption, to the same server and to another.
    connectOnce(pg.conninfo(pg.server.port()));
    connectOnce(other.conninfo(other.server.port()));
    // While adopting for another port, a connection to this one is not taken.
    {
        SocketCounter::Adopting adopting(counter, test::closedPort());
        connectOnce(pg.conninfo(pg.server.port()));
    }
    // The test's own sockets (the executable's calls are never redirected).
    test::ScriptedServer echo([](int fd) { test::writeAll(fd, test::readUpTo(fd, 5)); });
    {
        SocketCounter::Adopting adopting(counter, echo.port());
        test::Socket s = test::connectTo(echo.port());
        ASSERT_TRUE(test::writeAll(s.fd(), "hello"));
        EXPECT_EQ(test::readUpTo(s.fd(), 5), "hello");
    }
    const WireCounters after = counter.snapshot();
    EXPECT_EQ(after.sendBytes, before.sendBytes);
    EXPECT_EQ(after.recvBytes, before.recvBytes);
    EXPECT_EQ(after.roundTrips, before.roundTrips);
    EXPECT_EQ(counter.socketsAdopted(), 1u);
}

TEST(SocketCounter, TwoCountersOnTwoThreadsCountSeparately) {
    FakePostgres pg;
    SocketCounter first, second;
    auto run = [&](SocketCounter& counter, int times) {
        SocketCounter::Adopting adopting(counter, pg.server.port());
        for (int i = 0; i < times; ++i) {
            connectOnce(pg.conninfo(pg.server.port()));
        }
    };
    std::thread a(run, std::ref(first), 3);
    std::thread b(run, std::ref(second), 5);
    a.join();
    b.join();
    const auto reply = FakePostgres::errorResponse().size();
    EXPECT_EQ(first.snapshot().recvBytes, 3 * reply);
    EXPECT_EQ(second.snapshot().recvBytes, 5 * reply);
    EXPECT_EQ(first.snapshot().roundTrips, 3u);
    EXPECT_EQ(second.snapshot().roundTrips, 5u);
    EXPECT_EQ(first.snapshot().sendBytes + second.snapshot().sendBytes, pg.received.load());
}

TEST(SocketCounter, ADestroyedCounterReleasesItsDescriptors) {
    FakePostgres pg;
    PGconn* conn = nullptr;
    {
        SocketCounter counter;
        {
            SocketCounter::Adopting adopting(counter, pg.server.port());
            conn = PQconnectStart(pg.conninfo(pg.server.port()).c_str());
            ASSERT_NE(conn, nullptr);
        }
        EXPECT_EQ(counter.socketsAdopted(), 1u);
        SocketCounter another;
        EXPECT_FALSE(another.registerSocket(PQsocket(conn)));  // taken
    }
    SocketCounter later;
    EXPECT_TRUE(later.registerSocket(PQsocket(conn)));  // released with its counter
    PQfinish(conn);
}

// A server that accepts and never says a word (until the client goes away).
struct SilentServer {
    ScriptedServer server{[](int fd) { test::readToEnd(fd); }};
    std::string conninfo() const {
        return "host=127.0.0.1 port=" + std::to_string(server.port()) +
               " dbname=x user=x sslmode=disable gssencmode=disable connect_timeout=60";
    }
};

std::string failedConnect(const std::string& conninfo) {
    PGconn* conn = PQconnectdb(conninfo.c_str());
    const std::string message = PQstatus(conn) == CONNECTION_OK ? std::string("connected") : PQerrorMessage(conn);
    PQfinish(conn);
    return message;
}

TEST(SocketCounter, TheStallTimeoutCutsASilentServerWhileWatching) {
    SilentServer silent;
    SocketCounter counter;
    counter.setStallTimeout(std::chrono::milliseconds(300));
    counter.watchStalls(true);
    std::string message;
    {
        SocketCounter::Adopting adopting(counter, silent.server.port());
        message = failedConnect(silent.conninfo());
    }
    EXPECT_NE(message.find("server closed the connection unexpectedly"), std::string::npos) << message;
    EXPECT_EQ(counter.stallTimeouts(), 1u);
    EXPECT_EQ(counter.lastError(), "in-process counting: no data for 300 ms (stall timeout)");
}

TEST(SocketCounter, TheCancelGraceCutsASilentServerWithTheTimeoutOff) {
    SilentServer silent;
    SocketCounter counter;
    counter.setStallTimeout(std::chrono::nanoseconds(0));
    counter.watchStalls(true);
    std::thread canceller([&] {
        while (silent.server.accepted() == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        counter.cutCallsAfter(std::chrono::milliseconds(200));
    });
    std::string message;
    {
        SocketCounter::Adopting adopting(counter, silent.server.port());
        message = failedConnect(silent.conninfo());
    }
    canceller.join();
    EXPECT_NE(message.find("server closed the connection unexpectedly"), std::string::npos) << message;
    EXPECT_EQ(counter.stallTimeouts(), 1u);
    EXPECT_EQ(counter.lastError(), "in-process counting: no data for 200 ms after the cancel (cancel grace)");
}

// Not watching (an idle kept session) or a timeout of 0: a server that answers after several of the
// counter's wake-ups is only slow; the client sees its answer, counted to the byte.
TEST(SocketCounter, ASlowAnswerIsNoStallWhenNotWatchingOrOff) {
    const std::string reply = FakePostgres::errorResponse();
    ScriptedServer slow([&](int fd) {
        test::readUpTo(fd, 8);
        std::this_thread::sleep_for(std::chrono::milliseconds(700));
        test::writeAll(fd, reply);
        ::shutdown(fd, SHUT_WR);
        test::readToEnd(fd);
    });
    const std::string conninfo = "host=127.0.0.1 port=" + std::to_string(slow.port()) +
                                 " dbname=x user=x sslmode=disable gssencmode=disable connect_timeout=60";
    for (const bool watching : {false, true}) {
        SocketCounter counter;
        counter.setStallTimeout(std::chrono::milliseconds(watching ? 0 : 100));
        counter.watchStalls(watching);
        {
            SocketCounter::Adopting adopting(counter, slow.port());
            connectOnce(conninfo);
        }
        EXPECT_EQ(counter.stallTimeouts(), 0u) << watching;
        EXPECT_EQ(counter.lastError(), "") << watching;
        EXPECT_EQ(counter.snapshot().recvBytes, reply.size()) << watching;
    }
}

}  // namespace
// The cancel's deadline without a relay or counter (engine/wire/ProcessSockets.h): the sockets a
// call opened are found in /proc, a blocked read on one returns once it is shut down, and a
// descriptor number that now holds another file is left alone.
TEST(ProcessSockets, WhatACallOpenedIsFoundAndShutDown) {
    const std::vector<ProcessSocket> before = processSockets();
    int pair[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    const std::vector<ProcessSocket> opened = socketsOpenedSince(before, processSockets());
    ASSERT_EQ(opened.size(), 2u);
    EXPECT_TRUE(opened[0].fd == pair[0] || opened[1].fd == pair[0]);

    std::atomic<ssize_t> got{-2};
    std::thread reader([&] {
        char c;
        got = ::recv(pair[0], &c, 1, 0);  // nothing is ever sent: blocks until shut down
    });
    std::vector<ProcessSocket> first;
    for (const ProcessSocket& socket : opened) {
        if (socket.fd == pair[0]) {
            first.push_back(socket);
        }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(got.load(), -2) << "the read waits";
    EXPECT_EQ(shutDownSockets(first), 1u);
    reader.join();
    EXPECT_EQ(got.load(), 0) << "a shut-down socket reads as closed";

    // pair[1]'s number now holds a file: its old inode no longer matches, nothing is shut down.
    std::vector<ProcessSocket> second;
    for (const ProcessSocket& socket : opened) {
        if (socket.fd == pair[1]) {
            second.push_back(socket);
        }
    }
    const int file = ::open("/dev/null", O_RDONLY);
    ASSERT_GE(file, 0);
    ASSERT_EQ(::dup2(file, pair[1]), pair[1]);
    EXPECT_EQ(shutDownSockets(second), 0u);
    EXPECT_TRUE(socketsOpenedSince(before, processSockets()).size() == 1u) << "only pair[0] is a socket now";
    ::close(file);
    ::close(pair[1]);
    ::close(pair[0]);
}

}  // namespace blobbench
