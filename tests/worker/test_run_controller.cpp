// The GUI worker (ui/RunController) on its own, without a window: runs, a stop in the middle of a
// run followed at once by another run, a connection test while idle, and the controller destroyed
// with a run in flight, and a burst of starts and stops. The tsan preset runs these: every hand-over
// between the two threads goes through ui/HandOver.h, whose std::mutex ThreadSanitizer sees, so a
// race in our code is reported even though the system's Qt is not built with TSan.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <vector>

#include "gui/GuiTestSupport.h"
#include "support/TestSupport.h"
#include "ui/RunController.h"

using namespace blobbench;
using blobbench::test::TempDir;
using blobbench::test::waitUntil;

namespace {

constexpr int kTimeoutMs = 120000;

RunRequest requestFor(const std::string& database, int repetitions) {
    RunRequest request;
    request.plan.runId = "run-controller";
    request.plan.connection = ConnectionSpec{"sqlite", "sqlite:" + database};
    request.plan.repetitions = repetitions;
    request.plan.scenarios = {{"all", "All", ScenarioKind::Query, "", "SELECT ID, CONTENT FROM BLOB_TEST"}};
    return request;
}

// A reference data set of `rows` synthetic rows in a temporary SQLite file.
struct SmallDataset {
    TempDir dir;
    std::string path = dir.file("data.sqlite");
    explicit SmallDataset(unsigned rows) { test::prepareSmallDataset(QString::fromStdString(path), rows); }
};

struct Recorder {
    std::vector<Sample> samples;
    int finished = 0;
    bool ok = false;
    QString error;
    explicit Recorder(RunController& controller) {
        QObject::connect(&controller, &RunController::sampleReady,
                         [this](const QString&, const Sample& sample) { samples.push_back(sample); });
        QObject::connect(&controller, &RunController::finished, [this](bool success, bool, const QString& message) {
            ++finished;
            ok = success;
            error = message;
        });
    }
};

}  // namespace

TEST(RunController, RunsStopsAndRunsAgain) {
    const SmallDataset data(200);
    const std::string& database = data.path;

    RunController controller;
    Recorder recorder(controller);
    QSignalSpy idle(&controller, &RunController::workerIdle);

    // A plain run: every sample arrives on this thread, complete, before finished.
    controller.start(requestFor(database, 3));
    ASSERT_TRUE(waitUntil([&] { return recorder.finished == 1; }, kTimeoutMs));
    EXPECT_TRUE(recorder.ok) << recorder.error.toStdString();
    ASSERT_EQ(recorder.samples.size(), 3U);
    for (const Sample& s : recorder.samples) {
        EXPECT_EQ(s.status, SampleStatus::Complete) << s.error;
        EXPECT_EQ(s.rows, 200U);
    }

    // Stopped after its first sample, then another run at once: the stopped run's late samples
    // never reach this side, the new one completes.
    recorder.samples.clear();
    QSignalSpy stopped(&controller, &RunController::stopped);
    QObject::connect(&controller, &RunController::sampleReady, &controller,
                     [&controller](const QString&, const Sample&) {
                         if (controller.isRunning() && controller.currentRunId() == 2) {
                             controller.stop();
                         }
                     });
    const quint64 second = controller.start(requestFor(database, 1000));
    ASSERT_EQ(second, 2U);
    ASSERT_TRUE(waitUntil([&] { return stopped.count() == 1; }, kTimeoutMs));
    const std::size_t seenBeforeStop = recorder.samples.size();
    EXPECT_GE(seenBeforeStop, 1U);
    const quint64 third = controller.start(requestFor(database, 2));
    ASSERT_TRUE(waitUntil([&] { return recorder.finished == 2; }, kTimeoutMs));
    EXPECT_TRUE(recorder.ok) << recorder.error.toStdString();
    EXPECT_EQ(recorder.samples.size(), seenBeforeStop + 2U) << "only the current run's samples get through";
    ASSERT_TRUE(waitUntil(
        [&] {
            for (const auto& args : idle) {
                if (args.at(0).toULongLong() == third)
                    return true;
            }
            return false;
        },
        kTimeoutMs));

    // A connection test while idle.
    QSignalSpy tested(&controller, &RunController::connectionTested);
    controller.testConnection(ConnectionSpec{"sqlite", "sqlite:" + database}, {});
    ASSERT_TRUE(waitUntil([&] { return tested.count() == 1; }, kTimeoutMs));
    EXPECT_TRUE(tested.at(0).at(0).toBool()) << tested.at(0).at(2).toString().toStdString();
}

TEST(RunController, DestroyedWithARunInFlight) {
    const SmallDataset data(200);
    const std::string& database = data.path;
    int samples = 0;
    {
        RunController controller;
        QObject::connect(&controller, &RunController::sampleReady, [&](const QString&, const Sample&) { ++samples; });
        controller.start(requestFor(database, 1000));
        ASSERT_TRUE(waitUntil([&] { return samples >= 1; }, kTimeoutMs));
    }  // cancels the Runner and joins the worker thread
    EXPECT_GE(samples, 1);
    EXPECT_LT(samples, 1000) << "the run was cut short, not finished";
}

// Starts and stops in quick succession, with two connection tests among them: only the last run's
// samples and end reach this side, and every run, stopped or not, ends on the worker (workerIdle).
TEST(RunController, BurstOfStartsAndStops) {
    const SmallDataset data(50);
    const std::string& database = data.path;

    RunController controller;
    Recorder recorder(controller);
    QSignalSpy idle(&controller, &RunController::workerIdle);
    QSignalSpy progressed(&controller, &RunController::progressed);
    QSignalSpy tested(&controller, &RunController::connectionTested);
    constexpr int kRuns = 12;
    quint64 last = 0;
    for (int i = 0; i < kRuns; ++i) {
        last = controller.start(requestFor(database, i + 1 == kRuns ? 4 : 200));
        if (i == kRuns / 2) {
            // Two requests in a row: only the latest one's answer is reported.
            controller.testConnection(ConnectionSpec{"sqlite", "sqlite:" + database + ".missing/x"}, {});
            controller.testConnection(ConnectionSpec{"sqlite", "sqlite:" + database}, {});
        }
        QCoreApplication::processEvents(QEventLoop::AllEvents, 2);
    }
    ASSERT_TRUE(waitUntil([&] { return recorder.finished == 1 && idle.count() == kRuns; }, kTimeoutMs))
        << "finished " << recorder.finished << ", idle " << idle.count();
    EXPECT_TRUE(recorder.ok) << recorder.error.toStdString();
    // Earlier runs may have delivered samples before the next start replaced them; the last run's
    // four all arrive, after everything else.
    ASSERT_GE(recorder.samples.size(), 4U);
    for (std::size_t i = recorder.samples.size() - 4; i < recorder.samples.size(); ++i) {
        EXPECT_EQ(recorder.samples[i].status, SampleStatus::Complete) << recorder.samples[i].error;
        EXPECT_EQ(recorder.samples[i].rows, 50U);
    }
    EXPECT_EQ(idle.last().at(0).toULongLong(), last);
    EXPECT_GE(progressed.count(), 4);
    // The worker answered both tests before the last run, in order; the older answer (a failure)
    // was dropped.
    ASSERT_EQ(tested.count(), 1);
    EXPECT_TRUE(tested.at(0).at(0).toBool()) << tested.at(0).at(2).toString().toStdString();
}

// Prepare data set's job on the worker: progress and the end come back through the hand-over, a
// second prepare stops the first (it ends cancelled, after its batch), and a run queued behind a
// prepare finds the data set complete. Under the tsan preset this checks the new hand-overs too.
TEST(RunController, PreparesADataSetStopsOneAndRunsOnTheResult) {
    TempDir dir;
    const std::string database = dir.file("prepared.sqlite");
    RunController controller;
    Recorder recorder(controller);
    QSignalSpy progress(&controller, &RunController::datasetProgress);
    QSignalSpy prepared(&controller, &RunController::datasetPrepared);
    PrepareRequest big;
    big.connection = ConnectionSpec{"sqlite", "sqlite:" + database};
    big.choice.rows = 200000;
    big.batchRows = 10;
    const quint64 first = controller.prepareDataset(big);
    ASSERT_TRUE(progress.wait(kTimeoutMs));
    PrepareRequest small = big;
    small.choice.rows = 120;
    const quint64 second = controller.prepareDataset(small);  // stops the first
    EXPECT_TRUE(controller.isPreparing());
    ASSERT_TRUE(waitUntil([&] { return prepared.count() == 2; }, kTimeoutMs));
    EXPECT_EQ(prepared.at(0).at(0).toULongLong(), first);
    EXPECT_TRUE(prepared.at(0).at(2).toBool()) << "the first ends cancelled";
    EXPECT_EQ(prepared.at(1).at(0).toULongLong(), second);
    EXPECT_TRUE(prepared.at(1).at(1).toBool()) << prepared.at(1).at(3).toString().toStdString();
    EXPECT_FALSE(controller.isPreparing());

    controller.start(requestFor(database, 1));
    ASSERT_TRUE(waitUntil([&] { return recorder.finished == 1; }, kTimeoutMs));
    EXPECT_TRUE(recorder.ok) << recorder.error.toStdString();
    ASSERT_EQ(recorder.samples.size(), 1U);
    EXPECT_EQ(recorder.samples[0].rows, 120U);
}
