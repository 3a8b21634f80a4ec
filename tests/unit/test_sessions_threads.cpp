// SessionRunner on SQLite: N sessions on N threads, each with its own Runner. These run under the
// tsan preset with the Runner's thread tests: a data race between sessions is a report.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/data/Dataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/data/SyntheticSource.h"
#include "engine/drivers/Registry.h"
#include "engine/run/SessionFigures.h"
#include "engine/run/SessionRunner.h"
#include "support/TestSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;

namespace {

class SessionRunnerThreads : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir = new test::TempDir;
        target = "sqlite:" + dir->file("sessions.sqlite");
        const Driver& driver = driverById("sqlite");
        ConnectionSpec spec{"sqlite", target};
        spec.create = true;
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
        SyntheticProfile profile;
        profile.rows = 200;
        prepareReferenceTables(*session, SyntheticRowSource(profile), PrepareOptions{});
    }
    static void TearDownTestSuite() { delete dir; }

    static SessionsPlan plan(int sessions, std::vector<std::string> ids = {"short-blobs", "varchar"}) {
        SessionsPlan p;
        p.plan.runId = "sessions";
        p.plan.connection = ConnectionSpec{"sqlite", target};
        for (const auto& s : referenceSuite(Dialect::SQLite)) {
            if (std::find(ids.begin(), ids.end(), s.id) != ids.end()) {
                p.plan.scenarios.push_back(s);
            }
        }
        p.sessions = sessions;
        return p;
    }

    static test::TempDir* dir;
    static std::string target;
};
test::TempDir* SessionRunnerThreads::dir = nullptr;
std::string SessionRunnerThreads::target;

// Counts what the sessions report, from their threads.
class Counting : public SessionsObserver {
public:
    void connected(int, const SessionInfo&) override { ++connections; }
    void allConnected(int connected, int) override { atStart = connected; }
    void sampleReady(int, const Sample& s, bool counted) override {
        std::lock_guard lock(m_mutex);
        counted ? ++countedSamples : ++uncounted;
        m_arrived.notify_all();
        (void)s;
    }
    void waitForCounted(std::uint64_t n) {
        std::unique_lock lock(m_mutex);
        m_arrived.wait(lock, [&] { return countedSamples >= n; });
    }
    std::atomic<int> connections{0};
    int atStart = -1;
    std::uint64_t countedSamples = 0;  // guarded
    std::uint64_t uncounted = 0;       // guarded

private:
    std::mutex m_mutex;
    std::condition_variable m_arrived;
};

TEST_F(SessionRunnerThreads, EachSessionRunsThePlansRepetitions) {
    SessionsPlan p = plan(4);
    p.plan.repetitions = 3;
    p.plan.warmups = 1;
    Counting observer;
    SessionRunner runner;
    const SessionsOutcome outcome = runner.run(p, observer);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    EXPECT_EQ(observer.connections.load(), 4);
    EXPECT_EQ(observer.atStart, 4);
    ASSERT_EQ(outcome.sessions.size(), 4u);
    for (const SessionResult& s : outcome.sessions) {
        EXPECT_TRUE(s.connected);
        EXPECT_EQ(s.excluded, 2u);  // one warm-up of each scenario
        ASSERT_EQ(s.byScenario.size(), 2u);
        for (const auto& [id, tally] : s.byScenario) {
            EXPECT_EQ(tally.statements, 3u) << id;
            EXPECT_EQ(tally.latency.count(), 3u) << id;
            EXPECT_GT(tally.rows, 0u);
        }
        EXPECT_FALSE(s.connectionWire.has_value()) << "SQLite is embedded: no wire";
    }
    const SessionsFigures f = figuresOf(outcome);
    EXPECT_EQ(f.all.combined.statements, 4u * 2 * 3);
    EXPECT_EQ(f.scenarios.size(), 2u);
    EXPECT_EQ(f.scenarios[0].combined.rows, 4 * outcome.sessions[0].byScenario.at(f.scenarios[0].id).rows);
    EXPECT_FALSE(f.connectionWireComplete);
    EXPECT_GT(f.all.rates.statementsPerS, 0);
}

TEST_F(SessionRunnerThreads, CancelEndsEverySessionAndKeepsWhatWasMeasured) {
    SessionsPlan p = plan(3);
    p.duration = 600s;  // only the cancel ends it
    Counting observer;
    SessionRunner runner;
    std::thread canceller([&] {
        observer.waitForCounted(6);
        runner.cancel();
    });
    const SessionsOutcome outcome = runner.run(p, observer);
    canceller.join();
    EXPECT_FALSE(outcome.ok);
    std::uint64_t kept = 0;
    for (const SessionResult& s : outcome.sessions) {
        for (const auto& [id, tally] : s.byScenario) {
            kept += tally.statements + tally.cancelled;
        }
    }
    EXPECT_GE(kept, 6u);
    EXPECT_EQ(figuresOf(outcome).all.combined.statements + figuresOf(outcome).all.combined.cancelled, kept);
}

TEST_F(SessionRunnerThreads, ACancelBeforeTheRunEndsItAtOnce) {
    SessionsPlan p = plan(2);
    p.duration = 600s;
    Counting observer;
    SessionRunner runner;
    runner.cancel();
    const SessionsOutcome outcome = runner.run(p, observer);
    EXPECT_EQ(figuresOf(outcome).all.combined.statements, 0u);
}

TEST_F(SessionRunnerThreads, OpenLoopAccountsForEverySlot) {
    SessionsPlan p = plan(2, {"short-blobs"});
    p.duration = 400ms;
    p.rate = 100;  // 40 slots in the window
    Counting observer;
    SessionRunner runner;
    const SessionsOutcome outcome = runner.run(p, observer);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    EXPECT_TRUE(outcome.openLoop);
    EXPECT_EQ(outcome.slotsDue, 40u);
    const SessionsFigures f = figuresOf(outcome);
    const StatementTally& all = f.all.combined;
    EXPECT_EQ(all.statements + all.failed + all.cancelled + outcome.slotsMissed, outcome.slotsDue);
    EXPECT_EQ(all.scheduleLag.count(), all.statements);
    EXPECT_GE(all.latency.min(), all.scheduleLag.min());  // latency runs from the slot
}

// Hostile round 5d I2: --rate 1e-10 overflowed the period (1e19 ns), which became 1 ns: two billion
// slots due, 18,318 statements run as fast as they could. One slot is due (the one at 0), one runs.
TEST_F(SessionRunnerThreads, AVerySlowRateHasOneSlotInTheWindow) {
    for (const double rate : {1e-10, 1e-300}) {
        SessionsPlan p = plan(2, {"short-blobs"});
        p.duration = 200ms;
        p.rate = rate;
        Counting observer;
        SessionRunner runner;
        const SessionsOutcome outcome = runner.run(p, observer);
        ASSERT_TRUE(outcome.ok) << outcome.error;
        EXPECT_EQ(outcome.slotsDue, 1u) << rate;
        const StatementTally& all = figuresOf(outcome).all.combined;
        EXPECT_EQ(all.statements + all.failed + all.cancelled + outcome.slotsMissed, 1u) << rate;
    }
}

TEST_F(SessionRunnerThreads, ClosedLoopRunsUntilTheDurationAndLeavesTheRampUpOut) {
    SessionsPlan p = plan(2, {"short-blobs"});
    p.duration = 300ms;
    p.rampUp = 100ms;
    Counting observer;
    SessionRunner runner;
    const SessionsOutcome outcome = runner.run(p, observer);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    EXPECT_GE(outcome.window, 300ms);
    std::uint64_t excluded = 0;
    for (const SessionResult& s : outcome.sessions) {
        excluded += s.excluded;
        EXPECT_GT(s.byScenario.at("short-blobs").statements, 0u);
    }
    EXPECT_EQ(excluded, observer.uncounted);
    EXPECT_EQ(figuresOf(outcome).all.combined.statements, observer.countedSamples);
}

TEST_F(SessionRunnerThreads, BadPlansAreRefused) {
    Counting observer;
    SessionRunner runner;
    SessionsPlan none = plan(0);
    EXPECT_THROW(runner.run(none, observer), Error);
    SessionsPlan rateOnly = plan(1);
    rateOnly.rate = 10;
    EXPECT_THROW(runner.run(rateOnly, observer), Error);
    SessionsPlan verifying = plan(2);
    verifying.plan.parameters["verify_content"] = "on";
    EXPECT_THROW(runner.run(verifying, observer), Error);
}

// The observer's check of a session (the CLI's data set check) runs once per session, not once
// per statement of it.
TEST_F(SessionRunnerThreads, EachSessionIsCheckedOnce) {
    struct Checks : Counting {
        std::atomic<int> checks{0};
        void checkSession(int, Session&) override { ++checks; }
    } observer;
    SessionsPlan p = plan(3);
    p.plan.repetitions = 4;
    SessionRunner runner;
    const SessionsOutcome outcome = runner.run(p, observer);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    EXPECT_EQ(observer.checks.load(), 3);
}

TEST_F(SessionRunnerThreads, ASessionThatCannotConnectStartsNothing) {
    SessionsPlan p = plan(3);
    p.plan.connection.target = "sqlite:" + dir->file("missing.sqlite");
    Counting observer;
    SessionRunner runner;
    const SessionsOutcome outcome = runner.run(p, observer);
    EXPECT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.error.rfind("session ", 0), 0u) << outcome.error;  // "session N: ..."
    EXPECT_EQ(observer.atStart, 0);
    EXPECT_EQ(observer.countedSamples + observer.uncounted, 0u);
}

// Hostile round 5g C5: an open loop's window ended at its last statement, one period before the
// schedule's end, so every rate was R*D/(R*D-1) too high (3 slots in 3 s at 1/s read 1.5/s). Its rates
// are of its schedule now.
TEST_F(SessionRunnerThreads, AnOpenLoopsRatesAreOfItsSchedule) {
    SessionsPlan p = plan(1, {"short-blobs"});
    p.duration = 600ms;
    p.rate = 5;  // slots at 0, 200 and 400 ms
    Counting observer;
    SessionRunner runner;
    const SessionsOutcome outcome = runner.run(p, observer);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    EXPECT_EQ(outcome.slotsDue, 3u);
    EXPECT_GE(outcome.window, 600ms);  // the whole schedule, whose last 200 ms hold no slot
    const SessionsFigures f = figuresOf(outcome);
    ASSERT_EQ(f.all.combined.statements + outcome.slotsMissed, 3u);
    EXPECT_LE(f.all.rates.statementsPerS, 5.0 * 1.000001) << "a rate above the schedule's";
}

// Hostile round 5i L11: slots at k * round(1e9 / rate) drifted, so at 3/s slot 3 fell at 0.999999999 s,
// inside a 1 s run: 4 due and 1 "missed" for 3 statements; with a 1 s ramp-up it was left out of the
// figures as a ramp-up statement. Slot k is at k / rate s, rounded once.
TEST_F(SessionRunnerThreads, SlotsOfARateWithoutAnExactPeriodFallOnTheirTimes) {
    for (const double rate : {3.0, 30.0, 90.0}) {
        SessionsPlan p = plan(1, {"short-blobs"});
        p.duration = 1000ms;
        p.rate = rate;
        Counting observer;
        SessionRunner runner;
        const SessionsOutcome outcome = runner.run(p, observer);
        ASSERT_TRUE(outcome.ok) << outcome.error;
        EXPECT_EQ(outcome.slotsDue, static_cast<std::uint64_t>(rate)) << rate;
    }
    SessionsPlan p = plan(1, {"short-blobs"});
    p.duration = 2000ms;
    p.rampUp = 1000ms;
    p.rate = 3;
    Counting observer;
    SessionRunner runner;
    const SessionsOutcome outcome = runner.run(p, observer);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    EXPECT_EQ(outcome.slotsDue, 6u);
    ASSERT_EQ(outcome.sessions.size(), 1u);
    EXPECT_EQ(outcome.sessions[0].excluded, 3u) << "slots 0, 1 and 2 are the ramp-up's";
}

// Hostile round 5g C4: an open loop stopped early counted the slots of its whole planned duration as
// due, and those that never came as missed (200 due, 170 missed after 3 s of a 20 s run, every
// statement on time). Only the slots up to the stop came due.
TEST_F(SessionRunnerThreads, AnOpenLoopStoppedEarlyCountsOnlyTheSlotsThatCameDue) {
    SessionsPlan p = plan(2, {"short-blobs"});
    p.duration = 600s;
    p.rate = 20;  // 12,000 slots planned
    Counting observer;
    SessionRunner runner;
    std::thread canceller([&] {
        observer.waitForCounted(4);
        runner.cancel();
    });
    const SessionsOutcome outcome = runner.run(p, observer);
    canceller.join();
    const StatementTally& all = figuresOf(outcome).all.combined;
    EXPECT_GE(all.statements, 4u);
    EXPECT_LT(outcome.slotsDue, 1000u) << "slots after the stop counted as due";
    EXPECT_LE(outcome.slotsMissed, outcome.slotsDue / 2 + 2) << "slots after the stop counted as missed";
    EXPECT_LE(all.statements + all.failed + all.cancelled, outcome.slotsDue + 2);
}

// Hostile round 5g B9: a statement cancelled by Stop or a signal was counted and dropped: its time,
// rows and bytes were in no figure and no file. It is kept as a failed one is, partial.
TEST_F(SessionRunnerThreads, ACancelledStatementIsKeptWithWhatItRead) {
    SessionsPlan p = plan(2, {"short-blobs"});
    Scenario& endless = p.plan.scenarios.front();
    endless.id = "endless";
    endless.sql =
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000000000) "
        "SELECT x AS ID, zeroblob(64) AS CONTENT FROM n";
    p.duration = 600s;
    struct Started : SessionsObserver {
        std::atomic<bool> started{false};
        void allConnected(int, int) override { started = true; }
    } observer;
    SessionRunner runner;
    std::thread canceller([&] {
        for (int i = 0; i < 6000 && !observer.started.load(); ++i) {
            std::this_thread::sleep_for(10ms);
        }
        std::this_thread::sleep_for(700ms);  // a billion rows: the statements are still reading
        runner.cancel();
    });
    const SessionsOutcome outcome = runner.run(p, observer);
    canceller.join();
    EXPECT_FALSE(outcome.ok);
    std::size_t kept = 0;
    for (const SessionResult& s : outcome.sessions) {
        for (const Sample& sample : s.failures) {
            EXPECT_EQ(sample.status, SampleStatus::Cancelled) << sample.error;
            EXPECT_TRUE(sample.partial);
            EXPECT_GT(sample.phases.elapsed().count(), 0) << "the time up to the cancel";
            kept += sample.rows > 0 ? 1 : 0;
        }
        EXPECT_EQ(s.failures.size(), s.byScenario.count("endless") ? s.byScenario.at("endless").cancelled : 0u);
    }
    EXPECT_GE(kept, 1u) << "no cancelled statement kept with the rows it read";
}

}  // namespace

// Hostile round 5i L16: a statement that failed in a session was reported as "session 1: database is
// locked", without the connection or the scenario a run of one session names.
TEST_F(SessionRunnerThreads, AFailedStatementIsNamedWithItsConnectionAndScenario) {
    SessionsPlan p = plan(2, {"short-blobs"});
    p.plan.scenarios.front().sql = "SELECT * FROM NO_SUCH_TABLE";
    Counting observer;
    SessionRunner runner;
    const SessionsOutcome outcome = runner.run(p, observer);
    ASSERT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.error.starts_with("session ")) << outcome.error;
    EXPECT_NE(outcome.error.find(p.plan.connection.label() + ": " + p.plan.scenarios.front().title + ": "),
              std::string::npos)
        << outcome.error;
    EXPECT_NE(outcome.error.find("NO_SUCH_TABLE"), std::string::npos) << outcome.error;
}

// Hostile round 5j S16: a Unix-domain socket has no TCP endpoint for a relay, so no link is emulated
// there; the report said "one link shared by all 2 sessions" and the JSON linkShared: true.
TEST_F(SessionRunnerThreads, NoLinkIsSaidSharedWhereNoneIsEmulated) {
    SessionsPlan p = plan(2, {"short-blobs"});
    p.plan.connection = ConnectionSpec{"postgres", "postgresql:///blob_test?host=/nonexistent-socket-dir"};
    p.plan.wireTap = true;
    p.plan.link.bandwidthDown = 8'000'000;
    p.sharedLink = true;
    Counting observer;
    SessionRunner runner;
    const SessionsOutcome outcome = runner.run(p, observer);
    EXPECT_FALSE(outcome.ok);  // nothing listens there
    EXPECT_FALSE(outcome.linkShared);
    EXPECT_TRUE(outcome.link.starts_with("none (no TCP endpoint")) << outcome.link;
}
