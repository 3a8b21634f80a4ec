// Issue #21 (silent loss) for `blobbench-cli bytea --json F` on the real PostgreSQL 15: a SIGINT, or
// the server ending the session, half-way through the experiment used to write no JSON at all. Now F
// holds every sample measured, the one the experiment stopped at marked cancelled or failed, and the
// one line on stderr says the file was written. Each test runs in a database of its own and acts
// once the server has seen the first select: at least one insert is measured by then.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "model/SampleJson.h"
#include "support/PgSupport.h"
#include "support/TestSupport.h"

namespace blobbench {
namespace {

using namespace std::chrono_literals;

constexpr const char* kPaths[] = {"binary", "text hex", "text escape", "large object"};

// Waits until the first path's select reached the server (its insert is measured by then): a
// session of the experiment in `database` (not the test's own) shows it in pg_stat_activity.
bool waitForFirstSelect(test::CliProcess& run, test::PgConn& conn, const std::string& database) {
    for (int i = 0; i < 6000 && run.running(); ++i) {
        if (conn.value(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = '" + database +
                "' AND pid <> pg_backend_pid() AND query LIKE '%SELECT content FROM blobbench_bytea_experiment%'") !=
            "0") {
            return true;
        }
        std::this_thread::sleep_for(10ms);
    }
    return false;
}

// What both cases leave: one line naming the file, and in the file complete samples in the
// experiment's order (an insert then its select, path by path), then the one it stopped at.
void expectMeasuredSamplesKept(const test::ProcessResult& r, const std::string& json, SampleStatus last) {
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("samples measured are written to " + json), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(std::string("marked ") + toString(last)), std::string::npos) << r.err;
    const std::vector<Sample> samples = readSamplesJson(QString::fromStdString(json), "test");
    ASSERT_GE(samples.size(), 2u) << "at least the first insert and the sample it stopped at";
    for (std::size_t i = 0; i + 1 < samples.size(); ++i) {
        const Sample& s = samples[i];
        SCOPED_TRACE(s.scenarioId + " " + s.point.at("path") + " #" + std::to_string(s.repetition));
        EXPECT_EQ(s.status, SampleStatus::Complete) << s.error;
        EXPECT_EQ(s.scenarioId, i % 2 == 0 ? "bytea-insert" : "bytea-select");
        EXPECT_EQ(s.point.at("path"), kPaths[std::min<std::size_t>(i / 20, 3)]);  // 10 repetitions a path
        EXPECT_EQ(s.repetition, static_cast<int>(i / 2 % 10));
        EXPECT_GT(s.phases.elapsed().count(), 0);
        ASSERT_TRUE(s.tap.available);
        EXPECT_GE(s.scenarioId == "bytea-insert" ? s.tap.counters.sendBytes : s.tap.counters.recvBytes,
                  4u * 1024 * 1024);
        ASSERT_TRUE(s.trace);
        EXPECT_EQ(s.trace->sendBytes(), s.tap.counters.sendBytes);
    }
    const Sample& stopped = samples.back();
    EXPECT_EQ(stopped.status, last);
    EXPECT_FALSE(stopped.error.empty());
    EXPECT_FALSE(stopped.tap.available);  // its span did not end: no counters claimed for it
    EXPECT_EQ(stopped.phases.elapsed().count(), 0);
}

// The test's own database, dropped however the test ends.
struct OwnDatabase {
    OwnDatabase(const std::string& conninfo, const std::string& prefix)
        : admin(conninfo), own(test::createOwnPgDatabase(conninfo, prefix + std::to_string(getpid()))) {}
    ~OwnDatabase() { test::PgConn(admin).value("DROP DATABASE IF EXISTS " + own.name + " WITH (FORCE)"); }
    std::string admin;
    test::PgOwnDatabase own;
};

std::vector<std::string> byteaArgs(const std::string& target, const std::string& json) {
    return {"bytea", target, "--size", "4M", "-r", "10", "-q", "--json", json};
}

// `bytea --json` started on a database of its own, with a connection to watch it.
struct ByteaRun {
    ByteaRun(const std::string& conninfo, const std::string& prefix)
        : pg(test::pgTarget(conninfo)),
          database(conninfo, prefix),
          conn(database.own.conninfo),
          json(dir.file("bytea.json")),
          run(byteaArgs(database.own.target, json), pg.env()) {}
    const std::string& name() const { return database.own.name; }

    test::PgTarget pg;
    OwnDatabase database;
    test::PgConn conn;
    test::TempDir dir;
    std::string json;
    test::CliProcess run;
};

TEST(ByteaSignals, SigintAfterTheFirstSamplesWritesThemAsJson) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    ByteaRun b(conninfo, "blob_bytea_sig_");
    ASSERT_TRUE(b.conn.ok()) << b.conn.errorMessage();
    ASSERT_TRUE(waitForFirstSelect(b.run, b.conn, b.name())) << b.run.wait(1s).err;
    b.run.signal(SIGINT);
    const auto r = b.run.wait(120s);
    ASSERT_EQ(r.exitCode, 128 + SIGINT) << r.err;
    EXPECT_TRUE(r.err.starts_with("blobbench-cli: SIGINT: the bytea experiment was cancelled; ")) << r.err;
    expectMeasuredSamplesKept(r, b.json, SampleStatus::Cancelled);
    EXPECT_EQ(readSamplesJson(QString::fromStdString(b.json), "test").back().error, "cancelled by SIGINT");
}

TEST(ByteaSignals, TheServerEndingTheSessionWritesTheSamplesMeasuredAsJson) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    ByteaRun b(conninfo, "blob_bytea_fail_");
    ASSERT_TRUE(b.conn.ok()) << b.conn.errorMessage();
    ASSERT_TRUE(waitForFirstSelect(b.run, b.conn, b.name())) << b.run.wait(1s).err;
    EXPECT_NE(b.conn.value("WITH s AS MATERIALIZED (SELECT pid FROM pg_stat_activity WHERE datname = '" + b.name() +
                           "' AND pid <> pg_backend_pid()) SELECT count(*) FROM s WHERE pg_terminate_backend(pid)"),
              "0");
    const auto r = b.run.wait(120s);
    EXPECT_NE(r.exitCode, 0) << r.err;
    EXPECT_LT(r.exitCode, 128) << r.err;  // a failure, not a signal
    EXPECT_TRUE(r.err.starts_with("blobbench-cli: ")) << r.err;
    expectMeasuredSamplesKept(r, b.json, SampleStatus::Failed);
}

}  // namespace
}  // namespace blobbench
