// In-process wire counting (engine/wire/SocketCounter.h) with the real libpq against scripted
// servers on 127.0.0.1: exact bytes both ways, round trips by the relay's definition, only the
// adopted descriptor counted (a second libpq connection, the test's own sockets), and a counter's
// figures equal to a WireTap's in front of the same conversation.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/socket.h>

#include <atomic>
#include <string>
#include <thread>

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

}  // namespace
}  // namespace blobbench
