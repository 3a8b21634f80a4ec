#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>

#include "engine/core/CancelToken.h"
#include "engine/data/PrepareDataset.h"
#include "engine/drivers/Driver.h"
#include "engine/run/LoadRun.h"
#include "engine/run/Runner.h"
#include "engine/run/Sweep.h"
#include "model/Project.h"
#include "ui/HandOver.h"

class QSocketNotifier;

namespace blobbench {

// What the window asks of a run: the plan, and for the default SQLite database, where to prepare
// the reference data set when it is missing (so a first-time user only presses Run).
struct RunRequest {
    RunPlan plan;
    QString prepareDatasetAt;  // a file path; empty: never prepare
    std::uint64_t prepareRows = 10000;
    // A sweep: the plan runs once per point (engine/run/Sweep.h). Empty: one plain run.
    std::vector<SweepPoint> points;
    // Storage studies (engine/storage/StorageScenario.h), run once each after the plan's scenarios
    // (the plan may hold none); Stop takes effect between their phases and variants.
    std::vector<storage::StudyJob> studies;
};

// What the Prepare dialog asks of the worker: fill the reference tables of `connection` (a write that
// may create a SQLite file) from `choice`, `batchRows` rows per transaction.
struct PrepareRequest {
    ConnectionSpec connection;
    ParameterValues parameters;
    DatasetChoice choice;
    std::uint64_t batchRows = 1000;
};

// Progress of a run as plain values: totals over the whole run, not only the current statement.
struct RunProgress {
    int execution = 0;   // 0-based index of the current execution (scenario x repetition)
    int executions = 0;  // how many the plan holds
    QString scenarioId;
    std::uint64_t rows = 0;  // of the current execution
    std::uint64_t bytes = 0;
    std::uint64_t runRows = 0;  // over the run so far
    std::uint64_t runBytes = 0;
    double seconds = 0;  // since the run started
    // A point of many sessions (0: one session): the statements of the last second over all
    // sessions, their 99th percentile latency, and the statements so far at this point.
    int sessions = 0;
    double statementsPerS = 0;
    double p99Ms = 0;
    std::uint64_t statements = 0;
};

class RunController;
class RunWorker;

// The worker thread (a plain std::thread, no Qt event loop): runs the calls the controller hands it
// (a run, a connection test) one after another, and reports back by handing the controller calls
// that run on the controller's thread and carry plain values. It never touches a widget.
class RunWorker {
public:
    explicit RunWorker(RunController& controller);
    ~RunWorker();  // drops the calls not started yet and joins the thread (cancel a run first)
    RunWorker(const RunWorker&) = delete;
    RunWorker& operator=(const RunWorker&) = delete;

    void post(std::function<void(RunWorker&)> call) { m_inbox.post(std::move(call)); }

    void run(quint64 runId, const RunRequest& request, const std::shared_ptr<LoadRun>& runner,
             const CancelToken& prepareCancel);
    void testConnection(quint64 requestId, const ConnectionSpec& spec, const ParameterValues& values);
    void prepareDataset(quint64 prepareId, const PrepareRequest& request, const CancelToken& cancel);

    // Hands `call` to the controller's thread; a run's calls are dropped there once it is not the
    // current run any more (a stopped run's late samples).
    void toController(std::function<void(RunController&)> call);
    void toCurrentRun(quint64 runId, std::function<void(RunController&)> call);

private:
    bool prepareIfMissing(quint64 runId, const RunRequest& request, const CancelToken& cancel);

    RunController& m_controller;
    HandOver<std::function<void(RunWorker&)>> m_inbox;
    std::thread m_thread;  // last: starts once the rest is built
};

// Owns the worker thread. Every run gets an id; the worker's calls for any other id (a stopped
// run's late samples) are dropped here, so views only ever see the current run. Delete it with
// deleteLater() (or as a child of the window), never from a slot of its own signals.
class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    bool isRunning() const { return m_running; }
    quint64 currentRunId() const { return m_runId; }
    const QString& currentRunName() const { return m_runName; }  // the current plan's runId

    // Starts a run on the worker thread and returns its id.
    quint64 start(RunRequest request);
    // Cancels the current run (thread-safe on the engine side) and forgets it at once.
    void stop();
    quint64 testConnection(const ConnectionSpec& spec, const ParameterValues& values);
    // Prepares a data set on the worker thread (after whatever it is doing); one at a time.
    quint64 prepareDataset(const PrepareRequest& request);
    // Cancels the prepare under way: it stops after the batch in progress is committed.
    void stopPrepare();
    bool isPreparing() const { return m_preparing; }

signals:
    void preparing(quint64 done, quint64 total);
    void prepared(const QString& message);
    void connected(const blobbench::SessionInfo& info);
    void scenarioStarted(const QString& scenarioTitle, int repetition, const QString& sql);
    void pointStarted(const QString& label, int ordinal, int count);  // ordinal 0-based
    void progressed(const blobbench::RunProgress& progress);
    void sampleReady(const QString& runId, const blobbench::Sample& sample);
    // A point of many sessions: its figures, a scenario each. Also after Stop, for the run just
    // stopped (its sessions end within the cancel grace and keep what they measured).
    void loadsReady(const QString& runId, const std::vector<blobbench::LoadPoint>& loads);
    void finished(bool ok, bool cancelled, const QString& error);
    void stopped();
    // Every run's real end, the current one or a stopped one: the worker is free again.
    void workerIdle(quint64 runId);
    void connectionTested(bool ok, const blobbench::SessionInfo& info, const QString& detail);
    // A run's data set as the worker found it ("Data set: BLOB_TEST not prepared by BlobBench: ...").
    void datasetChecked(const QString& line);
    // prepareDataset's rows committed so far (BLOB_SAMPLE's and BLOB_TEST's), and its end: one
    // line, the summary (ok), what is left in the database (cancelled) or the error.
    void datasetProgress(quint64 prepareId, quint64 done, quint64 total);
    void datasetPrepared(quint64 prepareId, bool ok, bool cancelled, const QString& line);

private:
    friend class RunWorker;
    bool isCurrent(quint64 runId) const { return m_running && runId == m_runId; }
    void endRun(quint64 runId, bool ok, bool cancelled, const QString& error);  // every run's end, stopped or not
    // On this thread, woken through m_wakeFd: runs every call the worker has handed over.
    void deliverFromWorker();
    void wakeFromWorker();  // on the worker's thread

    HandOver<std::function<void(RunController&)>> m_fromWorker;
    int m_wakeFd = -1;  // an eventfd: the worker's wake-up, carrying no data
    QSocketNotifier* m_wakeNotifier = nullptr;
    std::unique_ptr<RunWorker> m_worker;  // after what it uses: destroyed (joined) first
    std::shared_ptr<LoadRun> m_runner;
    CancelToken m_prepareCancel;
    quint64 m_runId = 0;
    quint64 m_testId = 0;
    quint64 m_prepareId = 0;
    CancelToken m_datasetCancel;
    bool m_preparing = false;
    QString m_runName;
    bool m_running = false;
};

}  // namespace blobbench

Q_DECLARE_METATYPE(blobbench::SessionInfo)
Q_DECLARE_METATYPE(blobbench::RunProgress)
