// Sweeps: expansion of lists, ranges and grids, the refusals, the seeded order, and a sweep run
// end to end on SQLite (reconnecting only for tunables that are not per statement).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "engine/core/Error.h"
#include "engine/data/Dataset.h"
#include "engine/drivers/Registry.h"
#include "engine/run/Sweep.h"
#include "support/TestSupport.h"

using namespace blobbench;

namespace {

SweepAxisSpec listAxis(const std::string& id, std::vector<std::string> values) {
    return {id, std::move(values), {}};
}
SweepAxisSpec rangeAxis(const std::string& id, std::int64_t from, std::int64_t to, int points,
                        SweepSpacing spacing = SweepSpacing::Linear) {
    return {id, {}, SweepRange{from, to, points, spacing}};
}

std::string usageError(const SweepSpec& sweep) {
    try {
        expandSweep(sweep);
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST(Sweep, ListsAndRanges) {
    EXPECT_EQ(expandAxis(listAxis("x", {"a", "b"})), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(expandAxis(rangeAxis("x", 0, 100, 5)), (std::vector<std::string>{"0", "25", "50", "75", "100"}));
    EXPECT_EQ(expandAxis(rangeAxis("x", 1, 1024, 11, SweepSpacing::Log)),
              (std::vector<std::string>{"1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024"}));
    // Rounding makes small log steps collide: each value kept once, both ends exact.
    const auto dense = expandAxis(rangeAxis("x", 1, 10, 20, SweepSpacing::Log));
    EXPECT_EQ(dense.front(), "1");
    EXPECT_EQ(dense.back(), "10");
    EXPECT_EQ(std::set<std::string>(dense.begin(), dense.end()).size(), dense.size());
    EXPECT_EQ(expandAxis(rangeAxis("x", 7, 7, 1)), (std::vector<std::string>{"7"}));
    // 0, 1K, ... 64K-1 as the Firebird preset lists them
    EXPECT_EQ(expandAxis(rangeAxis("x", 0, 65535, 2)), (std::vector<std::string>{"0", "65535"}));
}

TEST(Sweep, RefusesZeroPointsAndInvertedRanges) {
    SweepSpec s{"inline", {rangeAxis("max_inline_blob_size", 65535, 0, 4)}};
    EXPECT_NE(
        usageError(s).find("sweep 'inline': sweep axis 'max_inline_blob_size': range from 65535 to 0 is inverted"),
        std::string::npos)
        << usageError(s);
    s.axes = {rangeAxis("x", 0, 10, 0)};
    EXPECT_NE(usageError(s).find("range has 0 points"), std::string::npos) << usageError(s);
    s.axes = {listAxis("x", {})};
    EXPECT_NE(usageError(s).find("has no values"), std::string::npos);
    s.axes = {};
    EXPECT_NE(usageError(s).find("has no axis"), std::string::npos);
    s.axes = {rangeAxis("x", 0, 1000, 4, SweepSpacing::Log)};
    EXPECT_NE(usageError(s).find("log range must start above 0"), std::string::npos);
    s.axes = {rangeAxis("x", 0, 10, 1)};
    EXPECT_NE(usageError(s).find("needs at least 2 points"), std::string::npos);
    s.axes = {listAxis("x", {"1"}), listAxis("x", {"2"})};
    EXPECT_NE(usageError(s).find("sweeps x twice"), std::string::npos);
    s.axes = {listAxis("a", {"1"}), listAxis("b", {"1"}), listAxis("c", {"1"})};
    EXPECT_NE(usageError(s).find("at most two"), std::string::npos);
    s.axes = {listAxis("x", {"1", "1"})};
    EXPECT_NE(usageError(s).find("lists '1' twice"), std::string::npos);
    s.axes = {rangeAxis("x", 0, 100000, 100000)};
    EXPECT_NE(usageError(s).find("more than 10000 points"), std::string::npos);
    s.axes = {listAxis("x", {"1"})};
    s.repetitions = 0;
    EXPECT_NE(usageError(s).find("at least 1 repetition"), std::string::npos);
}

TEST(Sweep, GridIsOuterTimesInnerInOrder) {
    SweepSpec s{"grid", {listAxis("blob_api", {"false", "true"}), rangeAxis("mmap_size", 0, 2, 3)}};
    const auto points = expandSweep(s);
    ASSERT_EQ(points.size(), 6u);
    EXPECT_EQ(points[0].label(), "blob_api=false, mmap_size=0");
    EXPECT_EQ(points[2].label(), "blob_api=false, mmap_size=2");
    EXPECT_EQ(points[3].label(), "blob_api=true, mmap_size=0");
    for (std::size_t i = 0; i < points.size(); ++i) {
        EXPECT_EQ(points[i].index, i);
    }
}

TEST(Sweep, RandomOrderIsASeededPermutation) {
    SweepSpec s{"r", {rangeAxis("x", 1, 40, 40)}};
    s.randomOrder = true;
    s.seed = 12345;
    const auto a = expandSweep(s);
    const auto b = expandSweep(s);
    ASSERT_EQ(a.size(), 40u);
    std::vector<std::size_t> ia;
    std::vector<std::size_t> ib;
    for (std::size_t i = 0; i < a.size(); ++i) {
        ia.push_back(a[i].index);
        ib.push_back(b[i].index);
    }
    EXPECT_EQ(ia, ib);  // same seed, same order
    std::vector<std::size_t> sorted = ia;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        EXPECT_EQ(sorted[i], i);  // every point exactly once
    }
    EXPECT_FALSE(std::is_sorted(ia.begin(), ia.end()));
    s.seed = 54321;
    const auto c = expandSweep(s);
    EXPECT_FALSE(std::equal(a.begin(), a.end(), c.begin(),
                            [](const SweepPoint& x, const SweepPoint& y) { return x.index == y.index; }));
}

TEST(Sweep, ValidatedAgainstTheDriver) {
    const auto specs = driverById("sqlite").parameters();
    SweepSpec s{"api", {listAxis("blob_api", {"on", "off"})}};
    const auto points = validatedPoints(s, specs);
    ASSERT_EQ(points.size(), 2u);
    EXPECT_EQ(points[0].values.at("blob_api"), "true");  // normalised
    s.axes = {listAxis("no_such_knob", {"1"})};
    try {
        validatedPoints(s, specs);
        FAIL() << "accepted an unknown tunable";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("sweep 'api': unknown tunable 'no_such_knob'"), std::string::npos)
            << e.what();
    }
    s.axes = {listAxis("mmap_size", {"0", "lots"})};
    EXPECT_THROW(validatedPoints(s, specs), Error);
}

namespace {

class Recorder final : public SweepObserver {
public:
    void pointStarted(const SweepPoint& point, std::size_t ordinal, std::size_t count) override {
        started.push_back(point.label() + " " + std::to_string(ordinal) + "/" + std::to_string(count));
    }
    void sampleReady(const Sample& sample) override { samples.push_back(sample); }
    void pointFinished(const SweepPoint&, const RunOutcome& outcome) override { finished += outcome.ok ? 1 : 0; }
    std::vector<std::string> started;
    std::vector<Sample> samples;
    int finished = 0;
};

// A temporary table lives as long as its connection: the count it reaches tells whether a point
// ran on the session of the point before or on a new one.
std::vector<Scenario> sessionProbe() {
    Scenario create;
    create.id = "create";
    create.title = "create";
    create.kind = ScenarioKind::Scalar;
    create.setupSql = "CREATE TEMP TABLE IF NOT EXISTS probe(x)";
    create.sql = "SELECT 1";
    Scenario count;
    count.id = "count";
    count.title = "count";
    count.kind = ScenarioKind::Scalar;
    count.setupSql = "INSERT INTO probe VALUES (1)";
    count.sql = "SELECT COUNT(*) FROM probe";
    Scenario blobs;
    blobs.id = "all-blobs";
    blobs.title = "all BLOBs";
    blobs.sql = "SELECT ID, CONTENT FROM BLOB_TEST";
    return {create, count, blobs};
}

}  // namespace

class SweepRun : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir = new test::TempDir;
        target = "sqlite:" + dir->file("sweep.sqlite");
        const Driver& driver = driverById("sqlite");
        ConnectionSpec spec{"sqlite", target};
        spec.create = true;
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
        SyntheticProfile profile;
        profile.rows = 200;
        prepareReferenceTables(*session, SyntheticRowSource(profile), PrepareOptions{});
    }
    static void TearDownTestSuite() { delete dir; }
    static test::TempDir* dir;
    static std::string target;
};
test::TempDir* SweepRun::dir = nullptr;
std::string SweepRun::target;

TEST_F(SweepRun, EndToEndOnSqliteTagsEverySample) {
    SweepSpec sweep{"api x mmap", {listAxis("blob_api", {"false", "true"}), listAxis("mmap_size", {"0", "1048576"})}};
    const auto points = validatedPoints(sweep, driverById("sqlite").parameters());
    RunPlan plan;
    plan.runId = "sweep-run";
    plan.connection = ConnectionSpec{"sqlite", target};
    plan.scenarios = sessionProbe();
    plan.repetitions = 2;
    plan.warmups = 1;
    Runner runner;
    Recorder recorder;
    const RunOutcome outcome = runSweep(runner, plan, points, recorder);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    EXPECT_EQ(recorder.finished, 4);
    ASSERT_EQ(recorder.samples.size(), 4u * 3u * 2u);
    EXPECT_EQ(outcome.samples.size(), recorder.samples.size());
    EXPECT_EQ(recorder.started.front(), "blob_api=false, mmap_size=0 0/4");
    for (const auto& s : recorder.samples) {
        ASSERT_EQ(s.point.size(), 2u);
        EXPECT_EQ(s.point.at("blob_api"), s.parameters.at("blob_api"));
        EXPECT_EQ(s.point.at("mmap_size"), s.parameters.at("mmap_size"));
        EXPECT_EQ(s.status, SampleStatus::Complete) << s.error;
        if (s.scenarioId == "all-blobs") {
            EXPECT_EQ(s.rows, 200u);
        }
    }
    // Order: mmap_size (not per statement) changes at every point of this grid's inner axis, so
    // every point starts on a new connection: the probe counts 1 (warm-up), 2, 3 each time.
    for (const auto& s : recorder.samples) {
        if (s.scenarioId == "count") {
            EXPECT_EQ(*s.scalar, s.repetition == 0 ? "2" : "3") << s.point.at("mmap_size");
        }
    }
}

TEST_F(SweepRun, PerStatementTunablesKeepTheSession) {
    SweepSpec sweep{"api", {listAxis("blob_api", {"false", "true"})}};
    const auto points = validatedPoints(sweep, driverById("sqlite").parameters());
    RunPlan plan;
    plan.runId = "keep";
    plan.connection = ConnectionSpec{"sqlite", target};
    plan.scenarios = sessionProbe();
    Runner runner;
    Recorder recorder;
    ASSERT_TRUE(runSweep(runner, plan, points, recorder).ok);
    std::vector<std::string> counts;
    for (const auto& s : recorder.samples) {
        if (s.scenarioId == "count") {
            counts.push_back(*s.scalar);
        }
    }
    // blob_api is per statement: the second point runs on the first point's connection.
    EXPECT_EQ(counts, (std::vector<std::string>{"1", "2"}));
    // The sweep is over: the runner closed its session, a plain run connects afresh.
    Recorder again;
    plan.parameters["blob_api"] = "true";
    runner.run(plan, again);
    ASSERT_EQ(again.samples.size(), 3u);
    EXPECT_EQ(*again.samples[1].scalar, "1");
}

TEST_F(SweepRun, AnSqlErrorAtOnePointDoesNotStopTheSweep) {
    SweepSpec sweep{"api", {listAxis("blob_api", {"false", "true"})}};
    const auto points = validatedPoints(sweep, driverById("sqlite").parameters());
    RunPlan plan;
    plan.runId = "broken";
    plan.connection = ConnectionSpec{"sqlite", target};
    Scenario bad;
    bad.id = "bad";
    bad.title = "bad";
    bad.sql = "SELECT no_such_column FROM BLOB_TEST";
    plan.scenarios = {bad};
    Runner runner;
    Recorder recorder;
    const RunOutcome outcome = runSweep(runner, plan, points, recorder);
    EXPECT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.errorKind, ErrorKind::Sql);
    EXPECT_NE(outcome.error.find("(at blob_api=false)"), std::string::npos) << outcome.error;
    EXPECT_EQ(recorder.samples.size(), 2u);  // one failed sample a point: the sweep went on
}
