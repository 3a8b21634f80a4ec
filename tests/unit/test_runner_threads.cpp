// The Runner as the workbench uses it: run() on a worker thread, cancel() and observers on others.
// These are the tests the tsan preset runs (with the wire tap's): a data race here is a report.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/data/Dataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/data/SyntheticSource.h"
#include "engine/drivers/Registry.h"
#include "engine/run/Runner.h"
#include "support/TestSupport.h"

using namespace blobbench;

namespace {

class RunnerThreads : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir = new test::TempDir;
        target = "sqlite:" + dir->file("threads.sqlite");
        const Driver& driver = driverById("sqlite");
        ConnectionSpec spec{"sqlite", target};
        spec.create = true;
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
        SyntheticProfile profile;
        profile.rows = 400;
        prepareReferenceTables(*session, SyntheticRowSource(profile), PrepareOptions{});
    }
    static void TearDownTestSuite() { delete dir; }

    static RunPlan plan(int repetitions) {
        RunPlan p;
        p.runId = "threads";
        p.connection = ConnectionSpec{"sqlite", target};
        for (const auto& s : referenceSuite(Dialect::SQLite)) {
            if (s.id == "all-blobs") {
                p.scenarios.push_back(s);
            }
        }
        p.repetitions = repetitions;
        return p;
    }

    static test::TempDir* dir;
    static std::string target;
};
test::TempDir* RunnerThreads::dir = nullptr;
std::string RunnerThreads::target;

// Counts what arrives, from the runner's thread, and lets another thread wait for the first sample.
class Watcher : public RunObserver {
public:
    void sampleReady(const Sample& s) override {
        std::lock_guard lock(m_mutex);
        m_samples.push_back(s);
        m_changed.notify_all();
    }
    void progress(const Scenario&, std::uint64_t rows, std::uint64_t) override { m_rows.fetch_add(rows); }
    bool waitForSamples(std::size_t n) {
        std::unique_lock lock(m_mutex);
        return m_changed.wait_for(lock, std::chrono::seconds(60), [&] { return m_samples.size() >= n; });
    }
    std::vector<Sample> samples() {
        std::lock_guard lock(m_mutex);
        return m_samples;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<Sample> m_samples;
    std::atomic<std::uint64_t> m_rows{0};
};

}  // namespace

TEST_F(RunnerThreads, CancelFromAnotherThreadKeepsWhatWasMeasured) {
    Runner runner;
    Watcher watcher;
    RunOutcome outcome;
    std::thread worker([&] { outcome = runner.run(plan(100000), watcher); });
    ASSERT_TRUE(watcher.waitForSamples(3)) << "no samples within 60 s";
    runner.cancel();
    worker.join();
    EXPECT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.errorKind, ErrorKind::Cancelled) << outcome.error;
    const auto seen = watcher.samples();
    ASSERT_GE(seen.size(), 3u);
    ASSERT_LT(seen.size(), 100000u) << "the cancel did not stop the run";
    EXPECT_EQ(outcome.samples.size(), seen.size());
    for (std::size_t i = 0; i + 1 < seen.size(); ++i) {
        EXPECT_EQ(seen[i].status, SampleStatus::Complete) << i;
        EXPECT_EQ(seen[i].rows, 400u);
    }
}

TEST_F(RunnerThreads, SeveralRunnersAtOnce) {
    constexpr int kRunners = 4;
    std::vector<RunOutcome> outcomes(kRunners);
    std::vector<Watcher> watchers(kRunners);
    std::vector<std::thread> threads;
    for (int i = 0; i < kRunners; ++i) {
        threads.emplace_back([&, i] {
            Runner runner;
            outcomes[static_cast<std::size_t>(i)] = runner.run(plan(5), watchers[static_cast<std::size_t>(i)]);
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    for (int i = 0; i < kRunners; ++i) {
        EXPECT_TRUE(outcomes[static_cast<std::size_t>(i)].ok) << outcomes[static_cast<std::size_t>(i)].error;
        EXPECT_EQ(watchers[static_cast<std::size_t>(i)].samples().size(), 5u);
    }
}

TEST_F(RunnerThreads, CancelBeforeTheRunStartsEndsItAtOnce) {
    Runner runner;
    Watcher watcher;
    // A cancel that arrives while run() is connecting must not be lost: run() on this thread
    // after cancel() from another returns cancelled or complete, never hangs.
    std::thread canceller([&] { runner.cancel(); });
    canceller.join();
    const RunOutcome outcome = runner.run(plan(3), watcher);
    EXPECT_TRUE(outcome.ok || outcome.errorKind == ErrorKind::Cancelled) << outcome.error;
}
