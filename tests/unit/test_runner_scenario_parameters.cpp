// RunPlan::scenarioParameters, the fb-blob-test mode's -a through the Runner: worked out on the run's own
// session before a scenario's first execution, carried by its samples; a failure fails the scenario
// as its statement would.
#include <gtest/gtest.h>

#include "engine/data/Dataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/data/SyntheticSource.h"
#include "engine/drivers/Registry.h"
#include "engine/run/MeasuringSink.h"
#include "engine/run/Runner.h"
#include "support/TestSupport.h"

using namespace blobbench;

namespace {

class Collect : public RunObserver {
public:
    void sampleReady(const Sample& s) override { samples.push_back(s); }
    std::vector<Sample> samples;
};

class ScenarioParameters : public ::testing::Test {
protected:
    void SetUp() override {
        target = "sqlite:" + dir.file("scenario-parameters.sqlite");
        const Driver& driver = driverById("sqlite");
        ConnectionSpec spec{"sqlite", target};
        spec.create = true;
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
        SyntheticProfile profile;
        profile.rows = 30;
        prepareReferenceTables(*session, SyntheticRowSource(profile), PrepareOptions{});
    }

    RunPlan plan(const std::vector<std::string>& ids) const {
        RunPlan p;
        p.runId = "scenario-parameters";
        p.connection = ConnectionSpec{"sqlite", target};
        p.repetitions = 2;
        for (const std::string& id : ids) {
            for (const auto& s : referenceSuite(Dialect::SQLite)) {
                if (s.id == id) {
                    p.scenarios.push_back(s);
                }
            }
        }
        return p;
    }

    test::TempDir dir;
    std::string target;
};

std::vector<const Sample*> of(const std::vector<Sample>& samples, const std::string& scenario) {
    std::vector<const Sample*> found;
    for (const Sample& s : samples) {
        if (s.scenarioId == scenario) {
            found.push_back(&s);
        }
    }
    return found;
}

TEST_F(ScenarioParameters, AreWorkedOutOnTheRunsSessionAndCarriedByEverySampleOfTheScenario) {
    RunPlan p = plan({"all-blobs", "varchar"});
    std::vector<std::string> asked;
    p.scenarioParameters = [&](Session& session, const Scenario& scenario) -> ParameterValues {
        asked.push_back(scenario.id);
        if (scenario.id != "all-blobs") {
            return {};
        }
        // The run's own session, connected and usable: the rows it holds decide the value.
        MeasuringSink rows;
        QuerySpec count;
        count.sql = "SELECT COUNT(*) FROM BLOB_TEST";
        session.query(count, rows, CancelToken());
        return {{"blob_api", rows.firstValue().value_or("") == "30" ? "true" : "counted wrong"}};
    };
    Collect observer;
    Runner runner;
    const RunOutcome outcome = runner.run(p, observer);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    EXPECT_EQ(asked, (std::vector<std::string>{"all-blobs", "varchar"}));  // once a scenario, before it
    const auto blobs = of(observer.samples, "all-blobs");
    ASSERT_EQ(blobs.size(), 2U);
    for (const Sample* s : blobs) {
        EXPECT_EQ(s->parameters.at("blob_api"), "true");
        EXPECT_EQ(s->status, SampleStatus::Complete);
        EXPECT_EQ(s->rows, 30U);
    }
    const auto varchar = of(observer.samples, "varchar");
    ASSERT_EQ(varchar.size(), 2U);
    EXPECT_EQ(varchar.front()->parameters.at("blob_api"), "false");  // the run's own value, not the last scenario's
}

TEST_F(ScenarioParameters, AnSqlErrorFailsItsScenarioAndTheRunGoesOn) {
    RunPlan p = plan({"all-blobs", "varchar"});
    p.scenarioParameters = [](Session&, const Scenario& scenario) -> ParameterValues {
        if (scenario.id == "all-blobs") {
            throw Error(ErrorKind::Sql, "no such column: SIZES");
        }
        return {};
    };
    Collect observer;
    Runner runner;
    const RunOutcome outcome = runner.run(p, observer);
    EXPECT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.errorKind, ErrorKind::Sql);
    const auto blobs = of(observer.samples, "all-blobs");
    ASSERT_EQ(blobs.size(), 1U);  // one failed sample, no repetition measured
    EXPECT_EQ(blobs.front()->status, SampleStatus::Failed);
    EXPECT_NE(blobs.front()->error.find("no such column: SIZES"), std::string::npos) << blobs.front()->error;
    EXPECT_EQ(of(observer.samples, "varchar").size(), 2U);
    EXPECT_EQ(outcome.samples.size(), observer.samples.size());
}

TEST_F(ScenarioParameters, AnotherFailureEndsTheRunAfterItsSample) {
    RunPlan p = plan({"all-blobs", "varchar"});
    p.scenarioParameters = [](Session&, const Scenario&) -> ParameterValues {
        throw Error(ErrorKind::Connect, "connection lost");
    };
    Collect observer;
    Runner runner;
    const RunOutcome outcome = runner.run(p, observer);
    EXPECT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.errorKind, ErrorKind::Connect);
    ASSERT_EQ(observer.samples.size(), 1U);
    EXPECT_EQ(observer.samples.front().scenarioId, "all-blobs");
    EXPECT_EQ(observer.samples.front().status, SampleStatus::Failed);
    EXPECT_NE(outcome.error.find("connection lost"), std::string::npos) << outcome.error;
}

}  // namespace
