// The fault matrix (issue #10) for a project run: `blobbench-cli run PROJECT` whose PostgreSQL
// connection goes through a test WireTap that cuts the connection mid-suite. The CLI exits 1 with
// one error line naming the connection and the phase; the project's history, re-loaded from the
// file, holds the run with outcome "failed: ...", the samples before the fault complete and the
// interrupted one failed.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>

#include "engine/data/ReferenceSuite.h"
#include "engine/wire/WireTap.h"
#include "model/Project.h"
#include "model/ProjectFile.h"
#include "support/PgSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

TEST(FaultMatrixProject, CutMidSuiteKeepsTheHistory) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    const std::vector<std::string> env = pg.env();
    test::ensurePgData(conninfo);
    if (HasFatalFailure()) {
        return;
    }

    WireTap faulty(pg.host, pg.portNumber());
    FaultPlan plan;
    plan.cutDownAfter = 200'000;  // connect and the warm-up move a few KB, all-blobs megabytes
    plan.cutWithReset = true;
    faulty.setFaults(plan);

    TempDir dir;
    Project p;
    p.name = QStringLiteral("Fault matrix project");
    ConnectionProfile connection;
    connection.name = QStringLiteral("PostgreSQL through a faulty link");
    connection.engine = QStringLiteral("postgres");
    const std::string target = pg.through(faulty.port());
    connection.target = q(target);
    p.connections = {connection};
    for (const Scenario& s : referenceSuite(Dialect::PostgreSQL)) {
        ScenarioDef def = ScenarioDef::fromScenario(s);
        def.enabled = s.id == "warm-up" || s.id == "all-blobs";
        p.scenarios.push_back(def);
    }
    const auto warmUp = std::find_if(p.scenarios.begin(), p.scenarios.end(),
                                     [](const ScenarioDef& s) { return s.id == QStringLiteral("warm-up"); });
    ASSERT_NE(warmUp, p.scenarios.end());
    ASSERT_LT(warmUp - p.scenarios.begin(),
              std::find_if(p.scenarios.begin(), p.scenarios.end(),
                           [](const ScenarioDef& s) { return s.id == QStringLiteral("all-blobs"); }) -
                  p.scenarios.begin())
        << "the warm-up runs before all-blobs";
    const std::string path = dir.file("faulty.blobbench.json");
    saveProject(q(path), p);

    const auto t0 = std::chrono::steady_clock::now();
    const auto r = runCli({"run", path, "-q"}, env);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 40s) << "bounded: no hang";
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    // One error line (a project run also says where it saved the run).
    std::string line;
    int errorLines = 0;
    for (std::size_t at = 0; at < r.err.size();) {
        const auto end = r.err.find('\n', at);
        const std::string one = r.err.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (one.starts_with("blobbench-cli: ")) {
            ++errorLines;
            line = one;
        }
        at = end == std::string::npos ? r.err.size() : end + 1;
    }
    std::cout << "[fault line] " << line << std::endl;
    EXPECT_EQ(errorLines, 1) << r.err;
    EXPECT_TRUE(line.starts_with("blobbench-cli: postgres:" + target + ": Test read all BLOBs: ")) << line;
    EXPECT_NE(line.find("server closed the connection unexpectedly"), std::string::npos) << line;
    EXPECT_GE(faulty.stats().faultsInjected, 1u);

    const Project after = loadProject(q(path));
    ASSERT_EQ(after.history.size(), 1u);
    const RunRecord& run = after.history[0];
    EXPECT_TRUE(run.outcome.startsWith(QStringLiteral("failed: "))) << run.outcome.toStdString();
    EXPECT_NE(run.outcome.toStdString().find("Test read all BLOBs"), std::string::npos) << run.outcome.toStdString();
    EXPECT_FALSE(run.finishedAt.isEmpty());
    ASSERT_EQ(run.samples.size(), 2u) << "the warm-up measured before the fault, and the interrupted all-blobs";
    EXPECT_EQ(run.samples[0].scenarioId, "warm-up");
    EXPECT_EQ(run.samples[0].status, SampleStatus::Complete);
    EXPECT_EQ(run.samples[1].scenarioId, "all-blobs");
    EXPECT_EQ(run.samples[1].status, SampleStatus::Failed);
    EXPECT_FALSE(run.samples[1].error.empty());
}

}  // namespace
