// Round 5e B1: with a multi-host conninfo ("host=127.0.0.1,127.0.0.1 port=A,B"), `bytea`, `storage
// insert` and `prepare` watched only connections to the first port for the wire stall timeout; libpq
// fell back to the second host when the first refused, and a server gone silent there held the
// command for good (still running at 25 s, no line). On the real PostgreSQL, behind a loopback relay
// that stops passing bytes on cue, its port the second of the list and the first a closed one.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "support/PgSupport.h"
#include "support/SocketSupport.h"
#include "support/TestSupport.h"

using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::TempDir;

namespace {

using Clock = std::chrono::steady_clock;

// Relays to 127.0.0.1:`port` until `frozen`; from then on it reads and writes nothing and holds
// both sockets open (the peer's calls block), until `done`.
void relayUntilFrozen(int client, std::uint16_t port, const std::atomic<bool>& frozen, const std::atomic<bool>& done) {
    blobbench::test::Socket server = blobbench::test::connectTo(port);
    char buffer[65536];
    while (!done.load()) {
        if (frozen.load()) {
            std::this_thread::sleep_for(20ms);
            continue;
        }
        pollfd fds[2] = {{client, POLLIN, 0}, {server.fd(), POLLIN, 0}};
        if (::poll(fds, 2, 20) <= 0)
            continue;
        for (int i = 0; i < 2; ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t n = ::recv(fds[i].fd, buffer, sizeof buffer, 0);
            if (n <= 0 ||
                !blobbench::test::writeAll(i == 0 ? server.fd() : client, std::string_view(buffer, std::size_t(n))))
                return;
        }
    }
}

// "host=127.0.0.1,127.0.0.1 port=CLOSED,RELAY ...": libpq is refused by the first and goes on to the second.
std::string twoHosts(const blobbench::test::PgTarget& target, std::uint16_t closed) {
    return "host=127.0.0.1,127.0.0.1 port=" + std::to_string(closed) + ",RELAY dbname=" + target.dbname +
           " user=" + target.user;
}

// Runs `args` (its "RELAY" replaced by the relay's port), freezes the relay after `freezeAfter`, and
// expects the wire stall timeout (2 s) to end the command with its line.
void expectTheStallTimeoutEndsIt(std::vector<std::string> args, const std::vector<std::string>& env,
                                 std::uint16_t serverPort, std::chrono::milliseconds freezeAfter) {
    std::atomic<bool> frozen{false}, done{false};
    blobbench::test::ScriptedServer relay([&](int fd) { relayUntilFrozen(fd, serverPort, frozen, done); });
    for (std::string& a : args) {
        if (const auto at = a.find("RELAY"); at != std::string::npos) {
            a.replace(at, 5, std::to_string(relay.port()));
        }
    }
    CliProcess run(args, env);
    std::this_thread::sleep_for(freezeAfter);
    ASSERT_TRUE(run.running()) << args[0] << " ended before the server went silent: " << run.errSoFar();
    frozen = true;
    const auto started = Clock::now();
    const blobbench::test::ProcessResult r = run.wait(40s);
    done = true;
    ASSERT_NE(r.exitCode, -1) << args[0] << ": still running 40 s after the server went silent";
    std::printf("%s ended %.1f s after the server went silent\n", args[0].c_str(),
                std::chrono::duration<double>(Clock::now() - started).count());
    EXPECT_GT(relay.accepted(), 0) << args[0] << ": libpq never reached the second host";
    EXPECT_EQ(r.exitCode, 1) << args[0] << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("no data for 2 s (stall timeout)"), std::string::npos) << args[0] << ": " << r.err;
}

}  // namespace

TEST(Round5eStallMultiHost, PrepareByteaAndStorageInsertWatchTheSecondHost) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const blobbench::test::PgOwnDatabase mine =
        blobbench::test::createOwnPgDatabase(conninfo, "blobbench_multihost_" + std::to_string(getpid()));
    const blobbench::test::PgTarget target = blobbench::test::pgTarget(mine.conninfo);
    const std::string conn = twoHosts(target, blobbench::test::closedPort());
    expectTheStallTimeoutEndsIt(
        {"prepare", conn, "--no-tap", "--rows", "20000", "--batch", "200", "-q", "-P", "wire_stall_timeout_s=2"},
        target.env(), target.portNumber(), 1500ms);
    TempDir dir;
    expectTheStallTimeoutEndsIt({"bytea", conn, "--size", "4M", "-r", "50", "-P", "wire_stall_timeout_s=2"},
                                target.env(), target.portNumber(), 1500ms);
    expectTheStallTimeoutEndsIt(
        {"bytea", conn, "--size", "4M", "-r", "50", "--json", dir.file("b.json"), "-P", "wire_stall_timeout_s=2"},
        target.env(), target.portNumber(), 1500ms);
    expectTheStallTimeoutEndsIt({"storage", "insert", conn, "--rows", "200000", "--size", "4k", "--variant",
                                 "bytea-main", "-q", "-P", "wire_stall_timeout_s=2"},
                                target.env(), target.portNumber(), 1500ms);
    blobbench::test::PgConn admin(conninfo);
    admin.value("DROP DATABASE IF EXISTS " + mine.name + " WITH (FORCE)");
}

// The same fall-back without a stall: bytea's --json counts the wire of the host libpq reached (it
// counted the first port's connections only: nothing received).
TEST(Round5eStallMultiHost, ByteaCountsTheWireOfTheSecondHost) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const blobbench::test::PgOwnDatabase mine =
        blobbench::test::createOwnPgDatabase(conninfo, "blobbench_multihost_count_" + std::to_string(getpid()));
    const blobbench::test::PgTarget target = blobbench::test::pgTarget(mine.conninfo);
    std::string conn = twoHosts(target, blobbench::test::closedPort());
    conn.replace(conn.find("RELAY"), 5, target.port);
    TempDir dir;
    const auto r = blobbench::test::runCli({"bytea", conn, "--size", "64k", "-r", "1", "--json", dir.file("b.json")},
                                           target.env());
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    QFile file(QString::fromStdString(dir.file("b.json")));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonArray samples =
        QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("samples")).toArray();
    ASSERT_FALSE(samples.isEmpty());
    for (const auto& s : samples) {
        const QJsonObject tap =
            s.toObject().value(QStringLiteral("wire")).toObject().value(QStringLiteral("tap")).toObject();
        EXPECT_GT(tap.value(QStringLiteral("recvBytes")).toDouble(), 0)
            << QJsonDocument(s.toObject()).toJson().toStdString();
        EXPECT_GT(tap.value(QStringLiteral("sendBytes")).toDouble(), 0)
            << QJsonDocument(s.toObject()).toJson().toStdString();
    }
    blobbench::test::PgConn admin(conninfo);
    admin.value("DROP DATABASE IF EXISTS " + mine.name + " WITH (FORCE)");
}

// `run` had the same gap: its in-process counter adopted connections to the first port only, so with a
// two-host conninfo it counted nothing (0 bytes, exit 0: a wrong number) and its stall watch missed a
// silent second host.
TEST(Round5eStallMultiHost, RunCountsAndWatchesTheSecondHost) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const blobbench::test::PgOwnDatabase mine =
        blobbench::test::createOwnPgDatabase(conninfo, "blobbench_multihost_run_" + std::to_string(getpid()));
    const blobbench::test::PgTarget target = blobbench::test::pgTarget(mine.conninfo);
    ASSERT_EQ(blobbench::test::runCli({"prepare", mine.target, "--rows", "300", "-q"}, target.env()).exitCode, 0);
    std::string conn = twoHosts(target, blobbench::test::closedPort());
    std::string direct = conn;
    direct.replace(direct.find("RELAY"), 5, target.port);
    TempDir dir;
    const auto r = blobbench::test::runCli(
        {"run", direct, "--engine", "postgres", "-s", "all-blobs", "-r", "2", "--json", dir.file("r.json"), "-q"},
        target.env());
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    QFile file(QString::fromStdString(dir.file("r.json")));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonArray samples =
        QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("samples")).toArray();
    ASSERT_EQ(samples.size(), 2);
    for (const auto& s : samples) {
        const QJsonObject tap =
            s.toObject().value(QStringLiteral("wire")).toObject().value(QStringLiteral("tap")).toObject();
        EXPECT_GT(tap.value(QStringLiteral("recvBytes")).toDouble(), 300.0 * 1000)
            << QJsonDocument(s.toObject()).toJson().toStdString();
    }
    expectTheStallTimeoutEndsIt(
        {"run", conn, "--engine", "postgres", "-s", "all-blobs", "-r", "1000", "-q", "-P", "wire_stall_timeout_s=2"},
        target.env(), target.portNumber(), 1500ms);
    blobbench::test::PgConn admin(conninfo);
    admin.value("DROP DATABASE IF EXISTS " + mine.name + " WITH (FORCE)");
}
