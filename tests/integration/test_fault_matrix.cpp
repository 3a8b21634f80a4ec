// The fault matrix (issue #10): what BlobBench says and keeps when the server refuses, resets,
// vanishes, stalls, is killed mid-fetch, or a statement fails, returns nothing or is cancelled.
// Faults are injected by a WireTap with a FaultPlan that the test starts in front of the real
// server (the CLI then connects through it) or by real server actions. For each: the CLI exits 1
// with one line naming the connection, the phase and the server's words; samples measured before
// the fault are kept (JSON) as complete, the interrupted one failed; every test is bounded; the
// in-process tests count sockets and threads before and after.
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "engine/core/Error.h"
#include "engine/run/Runner.h"
#include "engine/wire/WireTap.h"
#include "support/PgSupport.h"
#include "support/SocketSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;
using blobbench::test::closedPort;
using blobbench::test::countSockets;
using blobbench::test::countThreads;
using blobbench::test::ensurePgData;
using blobbench::test::PgConn;
using blobbench::test::PgTarget;
using blobbench::test::pgTarget;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

using Clock = std::chrono::steady_clock;

// A CLI run that takes longer than this under a fault is a hang (the stall timeout is 1 s, the
// connect timeout 15 s).
constexpr auto kBound = 40s;

QJsonArray samplesOf(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QJsonDocument::fromJson(file.readAll()).object()[QStringLiteral("samples")].toArray();
}

std::string statusOf(const QJsonArray& samples, int i) {
    return samples[i].toObject()[QStringLiteral("status")].toString().toStdString();
}

// The error line: exactly one line on stderr (with -q), "blobbench-cli: " and the message.
std::string errorLine(const test::ProcessResult& r) {
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_TRUE(r.err.starts_with("blobbench-cli: ")) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line:\n" << r.err;
    std::cout << "[fault line] " << r.err << std::flush;  // docs/reliability.md quotes these
    return r.err;
}

// --- PostgreSQL ---------------------------------------------------------------------------------

class FaultMatrixPg : public ::testing::Test {
protected:
    void SetUp() override {
        conninfo = test::envOrEmpty("BLOBBENCH_PG_CONNINFO");
        if (conninfo.empty()) {
            if (test::ciMode()) {
                FAIL() << "BLOBBENCH_PG_CONNINFO is not set: the server this test needs is missing (run scripts/test)";
            }
            GTEST_SKIP() << "set BLOBBENCH_PG_CONNINFO (scripts/test does) to run this test";
        }
        ensurePgData(conninfo);
        target = pgTarget(conninfo);
    }
    test::ProcessResult run(std::uint16_t port, std::vector<std::string> extra) {
        std::vector<std::string> args = {"run", target.through(port), "-q"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto t0 = Clock::now();
        auto r = runCli(args, target.env());
        EXPECT_LT(Clock::now() - t0, kBound) << "bounded: no hang";
        return r;
    }
    std::string conninfo;
    PgTarget target;
};

TEST_F(FaultMatrixPg, ServerRefuses) {
    const auto r = run(closedPort(), {"-s", "warm-up"});
    const std::string line = errorLine(r);
    EXPECT_NE(line.find("postgres:"), std::string::npos) << line;
    EXPECT_NE(line.find(": connect: "), std::string::npos) << line;
    EXPECT_NE(line.find("Connection refused"), std::string::npos) << "the relay's or libpq's words: " << line;
}

TEST_F(FaultMatrixPg, ResetDuringConnect) {
    WireTap faulty(target.host, target.portNumber());
    FaultPlan plan;
    plan.resetOnConnect = true;
    faulty.setFaults(plan);
    const std::string line = errorLine(run(faulty.port(), {"-s", "warm-up"}));
    EXPECT_NE(line.find(": connect: "), std::string::npos) << line;
    // libpq's words depend on whether the reset arrives before or after it sent the startup packet.
    EXPECT_TRUE(line.find("Connection reset by peer") != std::string::npos ||
                line.find("server closed the connection unexpectedly") != std::string::npos)
        << line;
}

// Cut server->client mid-fetch (RST, a crashed server): the warm-up before is kept complete,
// all-blobs failed. Cut client->server after 3 bytes (FIN): the connect fails, naming it.
TEST_F(FaultMatrixPg, CutAfterNBytesEachDirection) {
    {
        WireTap faulty(target.host, target.portNumber());
        FaultPlan plan;
        plan.cutDownAfter = 200'000;  // connect and the warm-up move a few KB, all-blobs megabytes
        plan.cutWithReset = true;
        faulty.setFaults(plan);
        TempDir dir;
        const std::string json = dir.file("s.json");
        const std::string line = errorLine(run(faulty.port(), {"-s", "warm-up", "-s", "all-blobs", "--json", json}));
        EXPECT_NE(line.find("postgres:"), std::string::npos) << line;
        EXPECT_NE(line.find("Test read all BLOBs: "), std::string::npos) << "names the phase: " << line;
        EXPECT_EQ(line.find("hostaddr="), std::string::npos) << "the connection once, as given: " << line;
        EXPECT_NE(line.find("connection"), std::string::npos) << "libpq's words: " << line;
        const QJsonArray samples = samplesOf(json);
        ASSERT_EQ(samples.size(), 2) << "the sample measured before the fault is kept";
        EXPECT_EQ(statusOf(samples, 0), "complete");
        EXPECT_EQ(statusOf(samples, 1), "failed");
        EXPECT_GE(faulty.stats().faultsInjected, 1u);
    }
    {
        WireTap faulty(target.host, target.portNumber());
        FaultPlan plan;
        plan.cutUpAfter = 3;  // inside the startup message
        faulty.setFaults(plan);
        const std::string line = errorLine(run(faulty.port(), {"-s", "warm-up"}));
        EXPECT_NE(line.find(": connect: "), std::string::npos) << line;
        EXPECT_NE(line.find("server closed the connection unexpectedly"), std::string::npos) << line;
    }
}

// A server that stops answering mid-fetch: the stall timeout (1 s here) of the CLI's own tap cuts it.
TEST_F(FaultMatrixPg, StallLongerThanTheTimeout) {
    WireTap faulty(target.host, target.portNumber());
    FaultPlan plan;
    plan.stallDownAfter = 200'000;  // forever
    faulty.setFaults(plan);
    TempDir dir;
    const std::string json = dir.file("s.json");
    const auto t0 = Clock::now();
    const auto r =
        run(faulty.port(), {"-s", "warm-up", "-s", "all-blobs", "-P", "wire_stall_timeout_s=1", "--json", json});
    EXPECT_LT(Clock::now() - t0, 20s);
    const std::string line = errorLine(r);
    EXPECT_NE(line.find("Test read all BLOBs"), std::string::npos) << line;
    EXPECT_NE(line.find("no data for 1 s (stall timeout)"), std::string::npos) << line;
    const QJsonArray samples = samplesOf(json);
    ASSERT_EQ(samples.size(), 2);
    EXPECT_EQ(statusOf(samples, 0), "complete");
    EXPECT_EQ(statusOf(samples, 1), "failed");
}

// The CLI checks the data set on the run's own session, through its tap: a server that stops
// answering right after the startup exchange is cut by the stall timeout and reported by the run,
// naming the connection and the phase "data set".
TEST_F(FaultMatrixPg, StallDuringTheDataSetCheck) {
    // What the connect moves down, from a run through a tap without faults (the startup exchange is
    // the same every time: SCRAM's messages and the server's parameters have fixed lengths). A thread
    // that armed the stall once it saw the connect's bytes go by was late under load: the data set
    // check had passed, and the stall hit the warm-up (CI, 2026-12-06).
    TempDir dir;
    std::uint64_t connectDown = 0;
    {
        WireTap clean(target.host, target.portNumber());
        const std::string json = dir.file("clean.json");
        const auto r = run(clean.port(), {"-s", "warm-up", "--json", json});
        ASSERT_EQ(r.exitCode, 0) << r.err;
        const QJsonArray samples = samplesOf(json);
        ASSERT_EQ(samples.size(), 1);
        const QJsonObject connect = samples[0]
                                        .toObject()[QStringLiteral("wire")]
                                        .toObject()[QStringLiteral("tapPhases")]
                                        .toObject()[QStringLiteral("connect")]
                                        .toObject();
        connectDown = static_cast<std::uint64_t>(connect[QStringLiteral("recvBytes")].toDouble());
        ASSERT_GT(connectDown, 0u) << "the connect's bytes down";
    }
    WireTap faulty(target.host, target.portNumber());
    FaultPlan plan;
    plan.stallDownAfter = connectDown;  // every answer after the connect is held
    faulty.setFaults(plan);
    const std::string json = dir.file("s.json");
    const auto t0 = Clock::now();
    const auto r = run(faulty.port(), {"-s", "warm-up", "-P", "wire_stall_timeout_s=1", "--json", json});
    EXPECT_LT(Clock::now() - t0, 20s);
    const std::string line = errorLine(r);
    EXPECT_NE(line.find("postgres:host=127.0.0.1 port=" + std::to_string(faulty.port())), std::string::npos) << line;
    EXPECT_NE(line.find(": data set: "), std::string::npos) << "the phase the stall hit: " << line;
    EXPECT_NE(line.find("no data for 1 s (stall timeout)"), std::string::npos) << "through the tap: " << line;
}

// In-process: an SQL error and a dropped table in the middle of a suite fail their scenario only,
// a statement without rows is a complete sample of 0 rows, a cancel during the fetch ends the run;
// no socket or thread outlives the Runner.
class Collect : public RunObserver {
public:
    std::function<void(std::uint64_t)> onProgress;
    void progress(const Scenario&, std::uint64_t rows, std::uint64_t) override {
        if (onProgress) {
            onProgress(rows);
        }
    }
};

TEST_F(FaultMatrixPg, SqlErrorsNoRowsAndCancelInProcess) {
    const int socketsBefore = countSockets();
    const int threadsBefore = countThreads();
    {
        PgConn admin(conninfo);
        admin.value("DROP TABLE IF EXISTS fault_matrix_t");
        admin.value("CREATE TABLE fault_matrix_t (id integer, content text)");
        admin.value("INSERT INTO fault_matrix_t VALUES (1, 'one'), (2, 'two')");
        RunPlan plan;
        plan.runId = "fault-matrix";
        plan.connection.engine = "postgres";
        plan.connection.target = conninfo;
        plan.wireTap = true;
        plan.scenarios = {
            {"before", "Before", ScenarioKind::Query, "", "SELECT id, content FROM fault_matrix_t"},
            {"error", "Division by zero", ScenarioKind::Query, "", "SELECT 1 / (id - id) FROM fault_matrix_t"},
            {"dropped", "Dropped table", ScenarioKind::Query, "DROP TABLE fault_matrix_t",
             "SELECT id, content FROM fault_matrix_t"},
            {"empty", "No rows", ScenarioKind::Query, "", "SELECT 1 AS id WHERE false"},
        };
        Runner runner;
        Collect observer;
        const RunOutcome outcome = runner.run(plan, observer);
        std::cout << "[fault line] " << outcome.error << "\n[fault line] " << outcome.samples.at(2).error << std::endl;
        EXPECT_FALSE(outcome.ok);
        EXPECT_EQ(outcome.errorKind, ErrorKind::Sql);
        EXPECT_NE(outcome.error.find("Division by zero: "), std::string::npos) << outcome.error;
        EXPECT_NE(outcome.error.find("division by zero"), std::string::npos) << "the server's words";
        ASSERT_EQ(outcome.samples.size(), 4u) << "the run goes on after an SQL error";
        EXPECT_EQ(outcome.samples[0].status, SampleStatus::Complete);
        EXPECT_EQ(outcome.samples[0].rows, 2u);
        EXPECT_EQ(outcome.samples[1].status, SampleStatus::Failed);
        EXPECT_EQ(outcome.samples[2].status, SampleStatus::Failed);
        EXPECT_NE(outcome.samples[2].error.find("does not exist"), std::string::npos) << outcome.samples[2].error;
        EXPECT_EQ(outcome.samples[3].status, SampleStatus::Complete);
        EXPECT_EQ(outcome.samples[3].rows, 0u);

        // Cancel during the fetch of the reference set, from another thread (joined at once, so the
        // cancel lands while rows are still arriving).
        RunPlan big = plan;
        big.scenarios = {{"all", "All", ScenarioKind::Query, "", "SELECT ID, CONTENT FROM BLOB_TEST"}};
        Runner canceller;
        Collect watcher;
        watcher.onProgress = [&](std::uint64_t) { std::thread([&] { canceller.cancel(); }).join(); };
        const RunOutcome cancelled = canceller.run(big, watcher);
        std::cout << "[fault line] " << cancelled.error << std::endl;
        EXPECT_FALSE(cancelled.ok);
        EXPECT_EQ(cancelled.errorKind, ErrorKind::Cancelled) << cancelled.error;
        ASSERT_EQ(cancelled.samples.size(), 1u);
        EXPECT_EQ(cancelled.samples[0].status, SampleStatus::Cancelled);
    }
    // libpq and the taps close what they open; give the kernel's view a moment.
    for (int i = 0; i < 100 && (countSockets() > socketsBefore || countThreads() > threadsBefore); ++i) {
        std::this_thread::sleep_for(20ms);
    }
    EXPECT_EQ(countSockets(), socketsBefore);
    EXPECT_EQ(countThreads(), threadsBefore);
}

// The backend is terminated by another connection in the middle of a fetch that the server is
// still producing (pg_sleep per row): the sample before is kept complete, this one failed, with
// the server's words.
TEST_F(FaultMatrixPg, BackendKilledMidFetch) {
    const int socketsBefore = countSockets();
    const int threadsBefore = countThreads();
    {
        RunPlan plan;
        plan.runId = "fault-matrix-kill";
        plan.connection.engine = "postgres";
        plan.connection.target = conninfo;
        plan.wireTap = true;
        plan.scenarios = {
            {"before", "Before", ScenarioKind::Query, "", "SELECT ID, CONTENT FROM BLOB_TEST WHERE ID <= 10"},
            {"slow", "Slow fetch", ScenarioKind::Query, "",
             "SELECT ID, CONTENT, pg_sleep(0.005) FROM BLOB_TEST ORDER BY ID"},
        };
        Runner runner;
        Collect observer;
        std::string killed;
        observer.onProgress = [&](std::uint64_t) {
            if (killed.empty()) {
                PgConn admin(conninfo);
                killed = admin.value(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'blobbench' "
                    "AND pid <> pg_backend_pid() AND query LIKE '%pg_sleep%'");
            }
        };
        const RunOutcome outcome = runner.run(plan, observer);
        std::cout << "[fault line] " << outcome.error << std::endl;
        EXPECT_EQ(killed, "t");
        EXPECT_FALSE(outcome.ok);
        EXPECT_NE(outcome.error.find("Slow fetch: "), std::string::npos) << outcome.error;
        EXPECT_NE(outcome.error.find("terminating connection due to administrator command"), std::string::npos)
            << outcome.error;
        EXPECT_EQ(outcome.error.find('\n'), std::string::npos) << "one line";
        EXPECT_EQ(outcome.error.find("hostaddr="), std::string::npos) << "the connection once: " << outcome.error;
        ASSERT_EQ(outcome.samples.size(), 2u);
        EXPECT_EQ(outcome.samples[0].status, SampleStatus::Complete);
        EXPECT_EQ(outcome.samples[0].rows, 10u);
        EXPECT_EQ(outcome.samples[1].status, SampleStatus::Failed);
        EXPECT_GE(outcome.samples[1].rows, 256u) << "rows counted before the fault are kept";
    }
    for (int i = 0; i < 100 && (countSockets() > socketsBefore || countThreads() > threadsBefore); ++i) {
        std::this_thread::sleep_for(20ms);
    }
    EXPECT_EQ(countSockets(), socketsBefore);
    EXPECT_EQ(countThreads(), threadsBefore);
}

// --- Firebird -----------------------------------------------------------------------------------

class FaultMatrixFb : public ::testing::Test {
protected:
    void SetUp() override {
        database = test::envOrEmpty("BLOBBENCH_FB_DATABASE");
        user = test::envOrEmpty("BLOBBENCH_FB_USER");
        password = test::envOrEmpty("BLOBBENCH_FB_PASSWORD");
        if (database.empty() || user.empty() || password.empty()) {
            if (test::ciMode()) {
                FAIL() << "BLOBBENCH_FB_DATABASE/USER/PASSWORD are not set (run scripts/test)";
            }
            GTEST_SKIP() << "set BLOBBENCH_FB_DATABASE, _USER, _PASSWORD (scripts/test does) to run this test";
        }
        static bool ready = false;
        if (!ready) {
            ASSERT_EQ(runCli({"prepare", database, "-u", user, "--rows", "200", "-q"}, env()).exitCode, 0);
            ready = true;
        }
        const auto at = database.find("127.0.0.1:");
        ASSERT_NE(at, std::string::npos) << database;
        const auto end = database.find('/', at);
        upstreamPort = static_cast<std::uint16_t>(std::stoi(database.substr(at + 10, end - at - 10)));
    }
    std::vector<std::string> env() const { return {"ISC_PASSWORD=" + password}; }
    std::string through(std::uint16_t port) const {
        const auto at = database.find("127.0.0.1:");
        const auto end = database.find('/', at);
        return database.substr(0, at) + "127.0.0.1:" + std::to_string(port) + database.substr(end);
    }
    test::ProcessResult run(std::uint16_t port, std::vector<std::string> extra) {
        std::vector<std::string> args = {"run", through(port), "-u", user, "-q"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto t0 = Clock::now();
        auto r = runCli(args, env());
        EXPECT_LT(Clock::now() - t0, kBound) << "bounded: no hang";
        EXPECT_EQ(r.out.find(password), std::string::npos);
        EXPECT_EQ(r.err.find(password), std::string::npos);
        return r;
    }
    std::string database, user, password;
    std::uint16_t upstreamPort = 0;
};

TEST_F(FaultMatrixFb, ServerRefuses) {
    const std::uint16_t closed = closedPort();
    // Counted in-process (the default): fbclient's own words about its own connect.
    const std::string line = errorLine(run(closed, {"-s", "warm-up"}));
    EXPECT_NE(line.find("firebird:"), std::string::npos) << line;
    EXPECT_NE(line.find(": connect: "), std::string::npos) << line;
    EXPECT_NE(line.find("Unable to complete network request to host"), std::string::npos) << line;
    EXPECT_NE(line.find("Failed to establish a connection"), std::string::npos) << "fbclient's words: " << line;
    // Through the CLI's relay, fbclient sees the relay accept and then drop it; the relay says why.
    const std::string relayed = errorLine(run(closed, {"-s", "warm-up", "-P", "wire_counting=relay"}));
    EXPECT_NE(relayed.find(": connect: "), std::string::npos) << relayed;
    EXPECT_TRUE(relayed.find("Failed to establish a connection") != std::string::npos ||
                relayed.find("connection rejected by remote interface") != std::string::npos)
        << "fbclient's words: " << relayed;
    EXPECT_NE(relayed.find("Connection refused"), std::string::npos) << "the refusal: " << relayed;
}

TEST_F(FaultMatrixFb, ResetDuringConnect) {
    WireTap faulty("127.0.0.1", upstreamPort);
    FaultPlan plan;
    plan.resetOnConnect = true;
    faulty.setFaults(plan);
    const std::string line = errorLine(run(faulty.port(), {"-s", "warm-up"}));
    EXPECT_NE(line.find(": connect: "), std::string::npos) << line;
    // fbclient's words depend on whether the reset arrives before or after it sent op_connect.
    EXPECT_TRUE(line.find("connection rejected by remote interface") != std::string::npos ||
                line.find("Failed to establish a connection") != std::string::npos)
        << line;
}

TEST_F(FaultMatrixFb, CutMidFetchKeepsTheSamplesBefore) {
    WireTap faulty("127.0.0.1", upstreamPort);
    FaultPlan plan;
    plan.cutDownAfter = 300'000;
    plan.cutWithReset = true;
    faulty.setFaults(plan);
    TempDir dir;
    const std::string json = dir.file("s.json");
    const std::string line = errorLine(run(faulty.port(), {"-s", "warm-up", "-s", "all-blobs", "--json", json}));
    EXPECT_NE(line.find("firebird:"), std::string::npos) << line;
    EXPECT_NE(line.find("Test read all BLOBs"), std::string::npos) << line;
    const QJsonArray samples = samplesOf(json);
    ASSERT_EQ(samples.size(), 2);
    EXPECT_EQ(statusOf(samples, 0), "complete");
    EXPECT_EQ(statusOf(samples, 1), "failed");
}

TEST_F(FaultMatrixFb, StallLongerThanTheTimeout) {
    WireTap faulty("127.0.0.1", upstreamPort);
    FaultPlan plan;
    plan.stallDownAfter = 300'000;
    faulty.setFaults(plan);
    TempDir dir;
    const std::string json = dir.file("s.json");
    const auto t0 = Clock::now();
    const std::string line = errorLine(
        run(faulty.port(), {"-s", "warm-up", "-s", "all-blobs", "-P", "wire_stall_timeout_s=1", "--json", json}));
    EXPECT_LT(Clock::now() - t0, 20s);
    EXPECT_NE(line.find("Test read all BLOBs"), std::string::npos) << line;
    EXPECT_NE(line.find("no data for 1 s (stall timeout)"), std::string::npos) << line;
    const QJsonArray samples = samplesOf(json);
    ASSERT_EQ(samples.size(), 2);
    EXPECT_EQ(statusOf(samples, 1), "failed");
}

TEST_F(FaultMatrixFb, StatementTimeoutIsNotInEffectOnFirebird3) {
    TempDir dir;
    const std::string json = dir.file("s.json");
    const auto r = runCli(
        {"run", database, "-u", user, "-q", "-s", "warm-up", "-P", "statement_timeout=5000", "--json", json}, env());
    ASSERT_EQ(r.exitCode, 0) << r.err;
    QFile file(QString::fromStdString(json));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    const QJsonObject sample = samplesOf(json)[0].toObject();
    const std::string server = sample[QStringLiteral("serverVersion")].toString().toStdString();
    ASSERT_FALSE(server.empty());
    if (server.find("V3.") == std::string::npos) {
        GTEST_SKIP() << "server " << server << " has statement timeouts";
    }
    bool reported = false;
    for (const auto& e : sample[QStringLiteral("effects")].toArray()) {
        const QJsonObject effect = e.toObject();
        if (effect[QStringLiteral("id")].toString() == QStringLiteral("statement_timeout")) {
            reported = true;
            EXPECT_FALSE(effect[QStringLiteral("inEffect")].toBool());
            EXPECT_TRUE(effect[QStringLiteral("reason")].toString().startsWith(QStringLiteral("not in effect")));
        }
    }
    EXPECT_TRUE(reported) << text.toStdString();
}

// --- SQLite (where it applies) -----------------------------------------------------------------

// Text that is not UTF-8 is counted as the bytes it holds, not refused or crashed on; a missing
// directory fails the connect with the path, saying the file does not exist (a read creates none).
TEST(FaultMatrixSqlite, NonUtf8TextIsCountedAsBytes) {
    TempDir dir;
    RunPlan plan;
    plan.runId = "fault-matrix-sqlite";
    plan.connection.engine = "sqlite";
    plan.connection.target = dir.file("odd.db");
    plan.connection.create = true;  // a read never creates the file; this run makes its own table
    plan.scenarios = {
        {"setup", "Setup", ScenarioKind::Query,
         "CREATE TABLE odd (id INTEGER, content TEXT); INSERT INTO odd VALUES (1, CAST(X'FFFE41C3' AS TEXT)), "
         "(2, CAST(X'' AS TEXT)), (3, NULL), (4, CAST(X'80' AS TEXT))",
         "SELECT id, content FROM odd ORDER BY id"},
    };
    Runner runner;
    Collect observer;
    const RunOutcome outcome = runner.run(plan, observer);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    ASSERT_EQ(outcome.samples.size(), 1u);
    EXPECT_EQ(outcome.samples[0].status, SampleStatus::Complete);
    EXPECT_EQ(outcome.samples[0].rows, 4u);
    EXPECT_EQ(outcome.samples[0].contentBytes, 5u) << "4 + 0 + NULL + 1 bytes, invalid UTF-8 included";

    const auto r = runCli({"run", "sqlite:" + dir.file("no/such/dir/x.db"), "-s", "warm-up", "-q"});
    const std::string line = errorLine(r);
    EXPECT_NE(line.find("blobbench-cli: sqlite:" + dir.file("no/such/dir/x.db") + ": connect: "), std::string::npos)
        << "the connection and the phase: " << line;
    EXPECT_NE(line.find("no such database file"), std::string::npos) << line;
}

}  // namespace
