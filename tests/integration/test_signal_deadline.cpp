// Hostile round 5c D3: SIGTERM did not end `prepare` (nor `bytea`) while the server was stopped: the
// cancel is polled between batches, and the batch in progress waited on a server that no longer
// answered (36 s and more). Now, kHardDeadline after the signal, every socket of the process is shut
// down whatever the command. On the real PostgreSQL, behind a loopback relay that stops passing
// bytes on cue (a stopped server, as SIGSTOP of it would be, without stopping the shared one).
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
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

using namespace blobbench;
using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::TempDir;

namespace {

using Clock = std::chrono::steady_clock;

// Relays to 127.0.0.1:`port` until `frozen`; from then on it reads and writes nothing and holds
// both sockets open (the peer's calls block), until `done`.
// With `budget`, it freezes on its own once that many bytes have come down from the server.
void relayUntilFrozen(int client, std::uint16_t port, const std::atomic<bool>& frozen, const std::atomic<bool>& done,
                      std::size_t budget = 0) {
    test::Socket server = test::connectTo(port);
    char buffer[65536];
    std::size_t down = 0;
    while (!done.load()) {
        if (frozen.load() || (budget > 0 && down >= budget)) {
            std::this_thread::sleep_for(20ms);
            continue;
        }
        pollfd fds[2] = {{client, POLLIN, 0}, {server.fd(), POLLIN, 0}};
        if (::poll(fds, 2, 20) <= 0)
            continue;
        for (int i = 0; i < 2; ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const std::size_t room = i == 1 && budget > 0 ? std::min(sizeof buffer, budget - down) : sizeof buffer;
            const ssize_t n = ::recv(fds[i].fd, buffer, room, 0);
            if (i == 1 && n > 0)
                down += std::size_t(n);
            if (n <= 0 || !test::writeAll(i == 0 ? server.fd() : client, std::string_view(buffer, std::size_t(n))))
                return;
        }
    }
}

}  // namespace

TEST(SignalDeadline, SigtermEndsAPrepareWhoseServerStoppedAnswering) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgOwnDatabase mine =
        test::createOwnPgDatabase(conninfo, "blobbench_sigdeadline_" + std::to_string(getpid()));
    const test::PgTarget target = test::pgTarget(mine.conninfo);
    std::atomic<bool> frozen{false}, done{false};
    {
        test::ScriptedServer relay([&](int fd) { relayUntilFrozen(fd, target.portNumber(), frozen, done); });
        CliProcess prepare({"prepare", target.through(relay.port()), "--no-tap", "--rows", "20000", "--batch", "200"},
                           target.env());
        std::this_thread::sleep_for(1500ms);  // connected, batches going in
        ASSERT_TRUE(prepare.running()) << prepare.errSoFar();
        frozen = true;  // the server stops answering in the middle of a batch
        std::this_thread::sleep_for(1000ms);
        ASSERT_TRUE(prepare.running()) << "prepare ended before the signal: " << prepare.errSoFar();
        const auto signalled = Clock::now();
        prepare.signal(SIGTERM);
        const test::ProcessResult r = prepare.wait(15s);
        const auto took = Clock::now() - signalled;
        done = true;
        ASSERT_NE(r.exitCode, -1) << "still running 15 s after SIGTERM";
        std::printf("prepare ended %.1f s after SIGTERM\n", std::chrono::duration<double>(took).count());
        EXPECT_EQ(r.exitCode, 128 + SIGTERM) << r.err;
        EXPECT_EQ(r.killedBy, 0) << "ended by the signal's default action, not by the cancel: " << r.err;
        EXPECT_NE(r.err.find("SIGTERM: prepare"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("was cancelled"), std::string::npos) << r.err;
    }
    test::PgConn admin(conninfo);
    admin.value("DROP DATABASE IF EXISTS " + mine.name + " WITH (FORCE)");
}

// Hostile round 5c C5: `check fb9060` through a proxy that passed 2,500 bytes and then nothing was
// still running at 70 s. Bounded by the wire stall timeout now, with one line that says so. Here the
// proxy stops inside the attach (64 bytes), so that no table of the check is left in the shared database.
// inet://127.0.0.1:3051//path as the server's port and what follows it.
std::pair<std::uint16_t, std::string> portAndPath(const std::string& database) {
    const auto hostStart = database.find("://") + 3;
    const auto pathStart = database.find('/', hostStart);
    const auto colon = database.rfind(':', pathStart);
    EXPECT_TRUE(database.starts_with("inet://") && colon > hostStart) << database;
    return {static_cast<std::uint16_t>(std::stoi(database.substr(colon + 1, pathStart - colon - 1))),
            database.substr(pathStart)};
}

TEST(SignalDeadline, CheckFb9060EndsAtTheStallTimeoutWhenTheServerStopsAnswering) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    // Not a structured binding: clang 14 (the ASan build) cannot capture one in the lambda below.
    const auto target = portAndPath(database);
    const std::uint16_t port = target.first;
    const std::string path = target.second;
    std::atomic<bool> frozen{false}, done{false};
    test::ScriptedServer relay([&](int fd) { relayUntilFrozen(fd, port, frozen, done, 64); });
    const std::string through = "inet://127.0.0.1:" + std::to_string(relay.port()) + path;
    CliProcess check(
        {"check", "fb9060", through, "-u", user, "--client-library", client, "-P", "wire_stall_timeout_s=3"},
        {"ISC_PASSWORD=" + password});
    const auto started = Clock::now();
    const test::ProcessResult r = check.wait(30s);
    done = true;
    ASSERT_NE(r.exitCode, -1) << "still running 30 s after it started";
    std::printf("check ended after %.1f s\n", std::chrono::duration<double>(Clock::now() - started).count());
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("no answer within 3 s (the wire stall timeout"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Hostile round 5c C4: SIGTERM to a check whose server went silent ended it "Error reading data from
// the connection", exit 1 (the Firebird client's own handler shut the attachment down), and the
// check's table was left without a word. Now the signal's line, 128 + it, and the table named.
TEST(SignalDeadline, SigtermEndsACheckFb9060AndNamesItsTable) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    // Not a structured binding: clang 14 (the ASan build) cannot capture one in the lambda below.
    const auto target = portAndPath(database);
    const std::uint16_t port = target.first;
    const std::string path = target.second;
    std::atomic<bool> frozen{false}, done{false};
    test::ScriptedServer relay([&](int fd) { relayUntilFrozen(fd, port, frozen, done, 64); });
    const std::string through = "inet://127.0.0.1:" + std::to_string(relay.port()) + path;
    CliProcess check({"check", "fb9060", through, "-u", user, "--client-library", client},
                     {"ISC_PASSWORD=" + password});
    std::this_thread::sleep_for(1500ms);  // inside the attach, which the relay holds
    ASSERT_TRUE(check.running()) << check.errSoFar();
    check.signal(SIGTERM);
    const test::ProcessResult r = check.wait(15s);
    done = true;
    ASSERT_NE(r.exitCode, -1) << "still running 15 s after SIGTERM";
    EXPECT_EQ(r.exitCode, 128 + SIGTERM) << r.err;
    EXPECT_EQ(r.killedBy, 0) << r.err;
    EXPECT_TRUE(r.err.starts_with("blobbench-cli: SIGTERM: check fb9060 was cancelled; ")) << r.err;
    EXPECT_NE(r.err.find("BLOBBENCH_FB9060_"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Hostile round 5d A4, B1: behind a server gone silent, `prepare`, `bytea`, `storage insert` and the
// fb-blob-test mode were still running at 80 s with no line: only `run` had a stall timeout. Each now
// fails the call blocked on the server after the wire stall timeout (here 2 s), exit 1, its line
// naming the timeout, whether the command counts the wire itself or not.
namespace {

struct SilentServerCase {
    std::vector<std::string> args;
    std::vector<std::string> env;
};

// Runs `c` (its args' "RELAY" replaced by the relay's port) behind a relay that freezes after
// `freezeAfter` (or, with `budget`, once that many bytes came down), and checks how it ends.
test::ProcessResult expectTheStallTimeoutEndsIt(const SilentServerCase& c, std::uint16_t serverPort,
                                                std::chrono::milliseconds freezeAfter, std::size_t budget = 0) {
    std::atomic<bool> frozen{false}, done{false};
    test::ScriptedServer relay([&](int fd) { relayUntilFrozen(fd, serverPort, frozen, done, budget); });
    std::vector<std::string> args = c.args;
    for (std::string& a : args) {
        if (const auto at = a.find("RELAY"); at != std::string::npos) {
            a.replace(at, 5, std::to_string(relay.port()));
        }
    }
    CliProcess run(args, c.env);
    std::this_thread::sleep_for(freezeAfter);
    frozen = budget == 0;  // with a budget, the relay freezes once that much came down
    const auto started = Clock::now();
    const test::ProcessResult r = run.wait(40s);
    done = true;
    EXPECT_NE(r.exitCode, -1) << args[0] << ": still running 40 s after the server went silent";
    std::printf("%s ended %.1f s after the server went silent\n", args[0].c_str(),
                std::chrono::duration<double>(Clock::now() - started).count());
    EXPECT_EQ(r.exitCode, 1) << args[0] << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("no data for 2 s (stall timeout)"), std::string::npos) << args[0] << ": " << r.err;
    return r;
}

}  // namespace

TEST(StallTimeoutOutsideRun, PrepareByteaAndStorageInsertOnPostgres) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgOwnDatabase mine =
        test::createOwnPgDatabase(conninfo, "blobbench_stallguard_" + std::to_string(getpid()));
    const test::PgTarget target = test::pgTarget(mine.conninfo);
    std::string relayed = target.through(0);
    relayed.replace(relayed.find("port=0 "), 7, "port=RELAY ");
    expectTheStallTimeoutEndsIt(
        {{"prepare", relayed, "--no-tap", "--rows", "20000", "--batch", "200", "-q", "-P", "wire_stall_timeout_s=2"},
         target.env()},
        target.portNumber(), 1500ms);
    // bytea directly, and counting the wire in process for its --json.
    TempDir dir;
    expectTheStallTimeoutEndsIt(
        {{"bytea", relayed, "--size", "4M", "-r", "50", "-P", "wire_stall_timeout_s=2"}, target.env()},
        target.portNumber(), 1500ms);
    expectTheStallTimeoutEndsIt(
        {{"bytea", relayed, "--size", "4M", "-r", "50", "--json", dir.file("b.json"), "-P", "wire_stall_timeout_s=2"},
         target.env()},
        target.portNumber(), 1500ms);
    expectTheStallTimeoutEndsIt({{"storage", "insert", relayed, "--rows", "200000", "--size", "4k", "--variant",
                                  "bytea-main", "-q", "-P", "wire_stall_timeout_s=2"},
                                 target.env()},
                                target.portNumber(), 1500ms);
    test::PgConn admin(conninfo);
    admin.value("DROP DATABASE IF EXISTS " + mine.name + " WITH (FORCE)");
}

TEST(StallTimeoutOutsideRun, TheFbBlobTestModeCountedOrNot) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    ASSERT_EQ(test::ensureFirebirdData(database, user, password), "");
    const auto target = portAndPath(database);
    const std::string relayed = "inet://127.0.0.1:RELAY" + target.second;
    for (const char* counting : {"", "--tap"}) {
        std::vector<std::string> args = {"-d", relayed, "-u", user, "-p", password, "--stall-timeout", "2"};
        if (*counting != '\0') {
            args.push_back(counting);
        }
        // Frozen inside the attach (64 bytes down): the shared database is only read anyway.
        expectTheStallTimeoutEndsIt({args, {}}, target.first, 0ms, 64);
        // Frozen inside the second test (400,000 bytes down): that test fails with the cut said, the run
        // stops there, and the warm-up's sample and the failed one are in the --json.
        TempDir dir;
        std::vector<std::string> saving = args;
        saving.insert(saving.end(), {"--json", dir.file("cut.json")});
        const test::ProcessResult r = expectTheStallTimeoutEndsIt({saving, {}}, target.first, 0ms, 400000);
        EXPECT_NE(r.err.find("Test read short BLOBs: "), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("; the run stopped: the connection is cut"), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.out.find("** Test read short BLOBs **"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("** Test read VARCHAR"), std::string::npos) << r.out;  // not run on a cut connection
        const QJsonArray samples = QJsonDocument::fromJson(QByteArray::fromStdString(
            test::readFile(dir.file("cut.json"))))[QStringLiteral("samples")]
                                       .toArray();
        ASSERT_EQ(samples.size(), 2) << counting;
        EXPECT_EQ(samples[0].toObject()[QStringLiteral("status")].toString().toStdString(), "complete");
        EXPECT_EQ(samples[1].toObject()[QStringLiteral("scenario")].toString().toStdString(), "short-blobs");
        EXPECT_EQ(samples[1].toObject()[QStringLiteral("status")].toString().toStdString(), "failed");
    }
}
