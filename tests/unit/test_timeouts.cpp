// Timeouts: the tap's idle stall timeout against a scripted server on 127.0.0.1 that answers a
// first request and then falls silent, and the plumbing of the timeout tunables (declared by every
// networked driver, resolved by one rule, reported "not in effect" where nothing enforces them).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "engine/wire/WireParameters.h"
#include "engine/wire/WireTap.h"
#include "support/SocketSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

// Accepts one connection, answers the first read with "pong", then reads and never answers again.
class SilentServer {
public:
    SilentServer() {
        m_listen = test::listenOnLoopback(8, m_port);
        m_thread = std::thread([this] {
            const int fd = ::accept(m_listen, nullptr, nullptr);
            if (fd < 0) {
                return;
            }
            char buffer[4096];
            bool answered = false;
            for (;;) {
                const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
                if (n <= 0) {
                    break;
                }
                if (!answered) {
                    answered = true;
                    [[maybe_unused]] auto sent = ::send(fd, "pong", 4, MSG_NOSIGNAL);
                }
            }
            m_peerClosed = true;
            ::close(fd);
        });
    }
    ~SilentServer() {
        ::shutdown(m_listen, SHUT_RDWR);
        m_thread.join();
        ::close(m_listen);
    }
    std::uint16_t port() const { return m_port; }
    bool peerClosed() const { return m_peerClosed.load(); }

private:
    int m_listen = -1;
    std::uint16_t m_port = 0;
    std::thread m_thread;
    std::atomic<bool> m_peerClosed{false};
};

int connectTo(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << std::strerror(errno);
    timeval timeout{20, 0};  // a broken watchdog fails the test, never hangs it
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    return fd;
}

// What a client blocked in recv() sees: 0 = end of stream, -1 with errno.
ssize_t receive(int fd, std::string& into) {
    char buffer[256];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n > 0) {
        into.append(buffer, static_cast<std::size_t>(n));
    }
    return n;
}

const ParameterSpec* find(const std::vector<ParameterSpec>& specs, const std::string& id) {
    auto it = std::find_if(specs.begin(), specs.end(), [&](const ParameterSpec& s) { return s.id == id; });
    return it == specs.end() ? nullptr : &*it;
}

const ParameterEffect* findEffect(const std::vector<ParameterEffect>& effects, const std::string& id) {
    auto it = std::find_if(effects.begin(), effects.end(), [&](const ParameterEffect& e) { return e.id == id; });
    return it == effects.end() ? nullptr : &*it;
}

}  // namespace

TEST(StallTimeout, CutsASilentServerWhileWatchingAndSaysSo) {
    SilentServer server;
    WireTap tap("127.0.0.1", server.port());
    tap.setStallTimeout(300ms);
    tap.watchStalls(true);
    const int fd = connectTo(tap.port());
    ASSERT_EQ(::send(fd, "ping", 4, MSG_NOSIGNAL), 4);
    std::string got;
    while (got.size() < 4 && receive(fd, got) > 0) {
    }
    ASSERT_EQ(got, "pong");
    ASSERT_EQ(::send(fd, "ping", 4, MSG_NOSIGNAL), 4);  // the server never answers this one
    const auto t0 = Clock::now();
    const ssize_t end = receive(fd, got);
    const auto waited = Clock::now() - t0;
    ::close(fd);
    EXPECT_EQ(end, 0) << "the client sees the connection end (FIN), not a hang: " << std::strerror(errno);
    EXPECT_GE(waited, 250ms) << "not before the timeout (less the answer's own time)";
    EXPECT_LT(waited, 15s);
    const WireTapStats stats = tap.stats();
    EXPECT_EQ(stats.stallTimeouts, 1u);
    EXPECT_EQ(stats.lastError, "wire tap: no data for 300 ms (stall timeout)");
    for (int i = 0; i < 200 && !server.peerClosed(); ++i) {
        std::this_thread::sleep_for(10ms);
    }
    EXPECT_TRUE(server.peerClosed()) << "both legs are cut";
}

TEST(StallTimeout, IdleWithoutAnOutstandingCallIsNoStall) {
    SilentServer server;
    WireTap tap("127.0.0.1", server.port());
    tap.setStallTimeout(100ms);  // never watching: a kept session between a sweep's points
    const int fd = connectTo(tap.port());
    ASSERT_EQ(::send(fd, "ping", 4, MSG_NOSIGNAL), 4);
    std::string got;
    while (got.size() < 4 && receive(fd, got) > 0) {
    }
    std::this_thread::sleep_for(400ms);
    // Watching from now restarts the clock: the idle time before does not count.
    tap.watchStalls(true);
    std::this_thread::sleep_for(30ms);
    EXPECT_EQ(tap.stats().stallTimeouts, 0u);
    EXPECT_EQ(tap.stats().open, 1u);
    tap.watchStalls(false);
    std::this_thread::sleep_for(300ms);
    EXPECT_EQ(tap.stats().stallTimeouts, 0u);
    EXPECT_EQ(tap.stats().open, 1u);
    ::close(fd);
}

TEST(StallTimeout, ZeroTurnsItOff) {
    SilentServer server;
    WireTap tap("127.0.0.1", server.port());
    tap.setStallTimeout(0ms);
    tap.watchStalls(true);
    const int fd = connectTo(tap.port());
    ASSERT_EQ(::send(fd, "ping", 4, MSG_NOSIGNAL), 4);
    std::this_thread::sleep_for(300ms);
    EXPECT_EQ(tap.stats().stallTimeouts, 0u);
    EXPECT_EQ(tap.stats().open, 1u);
    ::close(fd);
}

TEST(TimeoutTunables, EveryNetworkedDriverDeclaresConnectAndStallTimeouts) {
    for (const char* engine : {"postgres", "firebird"}) {
        const auto specs = driverById(engine).parameters();
        const ParameterSpec* connect = find(specs, "connect_timeout");
        ASSERT_NE(connect, nullptr) << engine;
        EXPECT_EQ(connect->unit, "s");
        EXPECT_EQ(connect->defaultValue, "15") << engine << ": a server that never answers ends the run";
        const ParameterSpec* statement = find(specs, "statement_timeout");
        ASSERT_NE(statement, nullptr) << engine;
        EXPECT_EQ(statement->unit, "ms");
        EXPECT_EQ(statement->defaultValue, "0");
        const ParameterSpec* stall = find(specs, "wire_stall_timeout_s");
        ASSERT_NE(stall, nullptr) << engine;
        EXPECT_EQ(stall->defaultValue, "30") << "with connect 15 s: a hung server ends a run within a minute";
        EXPECT_EQ(stall->minimum, 0);
        EXPECT_TRUE(isWireParameter(stall->id));
    }
    EXPECT_EQ(find(driverById("firebird").parameters(), "statement_timeout")->needs, "server >= 4.0");
    EXPECT_EQ(find(driverById("sqlite").parameters(), "wire_stall_timeout_s"), nullptr);
}

TEST(TimeoutTunables, StallTimeoutPrecedenceAndValidation) {
    EXPECT_EQ(resolveWireSettings(true, {}, false, {}).stallTimeout, 30s);
    EXPECT_EQ(resolveWireSettings(true, {}, false, {{"wire_stall_timeout_s", "5"}}).stallTimeout, 5s);
    EXPECT_EQ(resolveWireSettings(true, {}, false, {{"wire_stall_timeout_s", "0"}}).stallTimeout, 0s);
    // It does not turn the tap on by itself.
    EXPECT_FALSE(resolveWireSettings(false, {}, false, {{"wire_stall_timeout_s", "5"}}).tap);
    for (const char* bad : {"-1", "3601", "ten"}) {
        try {
            resolveWireSettings(true, {}, false, {{"wire_stall_timeout_s", bad}});
            ADD_FAILURE() << bad << " accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage) << bad;
            EXPECT_NE(std::string(e.what()).find("wire_stall_timeout_s"), std::string::npos) << e.what();
        }
    }
    ParameterValues resolved = resolveParameters(driverById("postgres").parameters(), {});
    WireSettings s = resolveWireSettings(true, {}, false, {{"wire_stall_timeout_s", "7"}});
    storeWireSettings(s, resolved);
    EXPECT_EQ(resolved.at("wire_stall_timeout_s"), "7");
}

TEST(TimeoutTunables, StallTimeoutIsNotInEffectWithoutTheTap) {
    ParameterValues resolved = resolveParameters(driverById("firebird").parameters(), {});
    WireSettings tapped = resolveWireSettings(true, {}, false, {});
    storeWireSettings(tapped, resolved);
    const auto tappedEffects = wireEffects(tapped, resolved, false);
    const ParameterEffect* on = findEffect(tappedEffects, "wire_stall_timeout_s");
    ASSERT_NE(on, nullptr);
    EXPECT_TRUE(on->inEffect);
    EXPECT_EQ(on->actual, "30");

    WireSettings direct = resolveWireSettings(false, {}, false, {});
    storeWireSettings(direct, resolved);
    const auto directEffects = wireEffects(direct, resolved, false);
    const ParameterEffect* off = findEffect(directEffects, "wire_stall_timeout_s");
    ASSERT_NE(off, nullptr);
    EXPECT_FALSE(off->inEffect);
    EXPECT_TRUE(off->reason.starts_with("not in effect")) << off->reason;

    const auto embeddedEffects = wireEffects(tapped, resolved, true);
    const ParameterEffect* embedded = findEffect(embeddedEffects, "wire_stall_timeout_s");
    ASSERT_NE(embedded, nullptr);
    EXPECT_FALSE(embedded->inEffect);
    EXPECT_TRUE(embedded->reason.starts_with("not in effect")) << embedded->reason;

    WireSettings none = resolveWireSettings(false, {}, false, {{"wire_stall_timeout_s", "0"}});
    storeWireSettings(none, resolved);
    const auto noneEffects = wireEffects(none, resolved, false);
    EXPECT_TRUE(findEffect(noneEffects, "wire_stall_timeout_s")->inEffect) << "0 asks for nothing";
}
