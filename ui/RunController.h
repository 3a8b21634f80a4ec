#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <cstdint>
#include <memory>

#include "engine/core/CancelToken.h"
#include "engine/drivers/Driver.h"
#include "engine/run/Runner.h"
#include "engine/run/Sweep.h"
#include "model/Project.h"

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
};

// Lives on the worker thread: runs the engine's Runner and reports through queued signals that
// carry plain values. It never touches a widget; the window never calls into it directly.
class RunWorker : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    void run(quint64 runId, const RunRequest& request, const std::shared_ptr<Runner>& runner,
             const CancelToken& prepareCancel);
    void testConnection(quint64 requestId, const ConnectionSpec& spec, const ParameterValues& values);

signals:
    void preparing(quint64 runId, quint64 done, quint64 total);
    void prepared(quint64 runId, const QString& message);
    void connected(quint64 runId, const blobbench::SessionInfo& info);
    void scenarioStarted(quint64 runId, const QString& scenarioTitle, int repetition, const QString& sql);
    void pointStarted(quint64 runId, const QString& label, int ordinal, int count);
    void progressed(quint64 runId, const blobbench::RunProgress& progress);
    void sampleReady(quint64 runId, const blobbench::Sample& sample);
    void finished(quint64 runId, bool ok, bool cancelled, const QString& error);
    void connectionTested(quint64 requestId, bool ok, const blobbench::SessionInfo& info, const QString& detail);

private:
    bool prepareIfMissing(quint64 runId, const RunRequest& request, const CancelToken& cancel);
};

// Owns the worker thread. Every run gets an id; signals of any other id (a stopped run's late
// samples) are dropped here, so views only ever see the current run.
class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    bool isRunning() const { return m_running; }
    quint64 currentRunId() const { return m_runId; }

    // Starts a run on the worker thread and returns its id.
    quint64 start(RunRequest request);
    // Cancels the current run (thread-safe on the engine side) and forgets it at once.
    void stop();
    quint64 testConnection(const ConnectionSpec& spec, const ParameterValues& values);

signals:
    void preparing(quint64 done, quint64 total);
    void prepared(const QString& message);
    void connected(const blobbench::SessionInfo& info);
    void scenarioStarted(const QString& scenarioTitle, int repetition, const QString& sql);
    void pointStarted(const QString& label, int ordinal, int count);  // ordinal 0-based
    void progressed(const blobbench::RunProgress& progress);
    void sampleReady(const QString& runId, const blobbench::Sample& sample);
    void finished(bool ok, bool cancelled, const QString& error);
    void stopped();
    // Every run's real end, the current one or a stopped one: the worker is free again.
    void workerIdle(quint64 runId);
    void connectionTested(bool ok, const blobbench::SessionInfo& info, const QString& detail);

private:
    QThread m_thread;
    RunWorker* m_worker = nullptr;  // owned by m_thread (deleteLater on finished)
    std::shared_ptr<Runner> m_runner;
    CancelToken m_prepareCancel;
    quint64 m_runId = 0;
    quint64 m_testId = 0;
    QString m_runName;
    bool m_running = false;
};

}  // namespace blobbench

Q_DECLARE_METATYPE(blobbench::SessionInfo)
Q_DECLARE_METATYPE(blobbench::RunProgress)
