#include "ui/RunController.h"

#include <chrono>
#include <filesystem>

#include "engine/core/Error.h"
#include "engine/data/Dataset.h"
#include "engine/drivers/Registry.h"

namespace blobbench {
namespace {

using Clock = std::chrono::steady_clock;

// Forwards the Runner's callbacks (on the worker thread) as queued signals. Progress is thinned
// to one event per 40 ms: a 10,000-row fetch would otherwise flood the UI thread's event queue.
class ForwardingObserver final : public SweepObserver {
public:
    ForwardingObserver(RunWorker& worker, quint64 runId, int executions)
        : m_worker(worker), m_runId(runId), m_start(Clock::now()) {
        m_progress.executions = executions;
        m_progress.execution = -1;
    }

    void connected(const SessionInfo& info) override { emit m_worker.connected(m_runId, info); }

    void pointStarted(const SweepPoint& point, std::size_t ordinal, std::size_t count) override {
        emit m_worker.pointStarted(m_runId, QString::fromStdString(point.label()), static_cast<int>(ordinal),
                                   static_cast<int>(count));
    }

    void scenarioStarted(const Scenario& scenario, int repetition) override {
        m_doneRows += m_progress.rows;
        m_doneBytes += m_progress.bytes;
        ++m_progress.execution;
        m_progress.scenarioId = QString::fromStdString(scenario.id);
        m_progress.rows = 0;
        m_progress.bytes = 0;
        emit m_worker.scenarioStarted(m_runId, QString::fromStdString(scenario.title), repetition,
                                      QString::fromStdString(scenario.sql));
        publish(true);
    }

    void progress(const Scenario& /*scenario*/, std::uint64_t rows, std::uint64_t bytes) override {
        m_progress.rows = rows;
        m_progress.bytes = bytes;
        publish(false);
    }

    void sampleReady(const Sample& sample) override {
        m_progress.rows = sample.rows;
        m_progress.bytes = sample.contentBytes;
        publish(true);
        emit m_worker.sampleReady(m_runId, sample);
    }

private:
    void publish(bool always) {
        const auto now = Clock::now();
        if (!always && now - m_lastPublished < std::chrono::milliseconds(40)) {
            return;
        }
        m_lastPublished = now;
        m_progress.runRows = m_doneRows + m_progress.rows;
        m_progress.runBytes = m_doneBytes + m_progress.bytes;
        m_progress.seconds = std::chrono::duration<double>(now - m_start).count();
        emit m_worker.progressed(m_runId, m_progress);
    }

    RunWorker& m_worker;
    quint64 m_runId;
    Clock::time_point m_start;
    Clock::time_point m_lastPublished{};
    RunProgress m_progress;
    std::uint64_t m_doneRows = 0;
    std::uint64_t m_doneBytes = 0;
};

QString describe(const std::exception& e) {
    return QString::fromStdString(oneLine(e.what()));
}

}  // namespace

bool RunWorker::prepareIfMissing(quint64 runId, const RunRequest& request, const CancelToken& cancel) {
    namespace fs = std::filesystem;
    const fs::path path = request.prepareDatasetAt.toStdString();
    const Driver& driver = driverById("sqlite");
    const ParameterValues defaults = resolveParameters(driver.parameters(), {});
    if (fs::exists(path)) {
        auto session = driver.connect(ConnectionSpec{"sqlite", path.string()}, defaults);
        if (readDatasetSummary(*session)) {
            return true;
        }
    }
    // Prepared under another name and renamed, so an interrupted prepare never looks complete.
    std::error_code ignored;
    fs::create_directories(path.parent_path(), ignored);
    const fs::path partial = path.string() + ".part";
    fs::remove(partial, ignored);
    const auto t0 = Clock::now();
    DatasetSummary summary;
    try {
        auto session = driver.connect(ConnectionSpec{"sqlite", partial.string()}, defaults);
        SyntheticProfile profile;
        profile.rows = request.prepareRows;
        SyntheticRowSource source(profile);
        PrepareOptions options;
        options.cancel = cancel;
        auto last = Clock::now();
        options.progress = [&](std::uint64_t done, std::uint64_t total) {
            if (Clock::now() - last > std::chrono::milliseconds(50) || done == total) {
                last = Clock::now();
                emit preparing(runId, done, total);
            }
        };
        summary = prepareReferenceTables(*session, source, options);
    } catch (...) {
        fs::remove(partial, ignored);
        throw;
    }
    fs::rename(partial, path);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
    emit prepared(runId, QStringLiteral("Prepared %1: %2 rows, %3 content bytes in %4 ms")
                             .arg(QString::fromStdString(path.string()))
                             .arg(summary.rows)
                             .arg(summary.contentBytes)
                             .arg(ms));
    return !cancel.cancelled();
}

void RunWorker::run(quint64 runId, const RunRequest& request, const std::shared_ptr<Runner>& runner,
                    const CancelToken& prepareCancel) {
    try {
        if (!request.prepareDatasetAt.isEmpty() && !request.plan.scenarios.empty() &&
            !prepareIfMissing(runId, request, prepareCancel)) {
            emit finished(runId, false, true, QStringLiteral("cancelled while preparing the data set"));
            return;
        }
        const int perScenario = std::max(1, request.plan.repetitions) + std::max(0, request.plan.warmups);
        const int points = std::max<int>(1, static_cast<int>(request.points.size()));
        const int executions = static_cast<int>(request.plan.scenarios.size()) * perScenario * points;
        ForwardingObserver observer(*this, runId, executions + static_cast<int>(request.studies.size()));
        RunOutcome outcome;
        if (!request.plan.scenarios.empty()) {
            outcome = request.points.empty() ? runner->run(request.plan, observer)
                                             : runSweep(*runner, request.plan, request.points, observer);
        }
        // The storage studies: the same function as blobbench-cli's, their samples forwarded as they come.
        for (const storage::StudyJob& job : request.studies) {
            if (prepareCancel.cancelled()) {
                outcome.ok = false;
                outcome.errorKind = ErrorKind::Cancelled;
                outcome.error = "cancelled";
                break;
            }
            Scenario shown;
            shown.id = job.scenarioId;
            shown.title = job.title;
            observer.scenarioStarted(shown, 0);
            storage::StudyHooks hooks;
            hooks.cancel = prepareCancel;
            hooks.sample = [&](const Sample& sample) { observer.sampleReady(sample); };
            hooks.progress = [&](const std::string& what) {
                emit scenarioStarted(runId, QString::fromStdString(job.title + ": " + what), 0, QString());
            };
            storage::StudyOutcome study;
            try {
                study = storage::runStudy(job, hooks);
            } catch (const Error& e) {
                study.error = oneLine(e.what());
                study.cancelled = e.kind() == ErrorKind::Cancelled;
            }
            if (!study.ok() && outcome.ok) {
                outcome.ok = false;
                outcome.errorKind = study.cancelled ? ErrorKind::Cancelled : ErrorKind::Internal;
                outcome.error = job.scenarioId + ": " + study.error + " (results so far kept)";
            }
        }
        const bool cancelled = !outcome.ok && outcome.errorKind == ErrorKind::Cancelled;
        emit finished(runId, outcome.ok, cancelled, QString::fromStdString(outcome.error));
    } catch (const Error& e) {
        emit finished(runId, false, e.kind() == ErrorKind::Cancelled,
                      QString::fromStdString(request.plan.connection.label()) + QStringLiteral(": ") + describe(e));
    } catch (const std::exception& e) {
        // A driver that throws something else is a bug there, but the window must survive it.
        emit finished(runId, false, false,
                      QString::fromStdString(request.plan.connection.label()) + QStringLiteral(": unexpected error: ") +
                          describe(e));
    }
}

void RunWorker::testConnection(quint64 requestId, const ConnectionSpec& spec, const ParameterValues& values) {
    try {
        const Driver& driver = driverById(spec.engine);
        const auto t0 = Clock::now();
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), values));
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
        QString detail = QStringLiteral("connected in %1 ms").arg(ms);
        if (driver.dialect() != Dialect::None) {
            if (const auto summary = readDatasetSummary(*session)) {
                detail += QStringLiteral("; data set: %1 rows, %2 content bytes")
                              .arg(summary->rows)
                              .arg(summary->contentBytes);
            } else {
                detail += QStringLiteral("; no reference data set yet");
            }
        }
        emit connectionTested(requestId, true, session->info(), detail);
    } catch (const std::exception& e) {
        emit connectionTested(requestId, false, SessionInfo{},
                              QString::fromStdString(spec.label()) + QStringLiteral(": ") + describe(e));
    }
}

RunController::RunController(QObject* parent) : QObject(parent), m_worker(new RunWorker) {
    qRegisterMetaType<blobbench::Sample>();
    qRegisterMetaType<blobbench::SessionInfo>();
    qRegisterMetaType<blobbench::RunProgress>();
    m_thread.setObjectName(QStringLiteral("blobbench-run"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);

    // Queued: the worker emits on its thread, these run on ours. Only the current run gets through.
    const auto current = [this](quint64 id) { return m_running && id == m_runId; };
    connect(m_worker, &RunWorker::preparing, this, [this, current](quint64 id, quint64 done, quint64 total) {
        if (current(id))
            emit preparing(done, total);
    });
    connect(m_worker, &RunWorker::prepared, this, [this, current](quint64 id, const QString& message) {
        if (current(id))
            emit prepared(message);
    });
    connect(m_worker, &RunWorker::connected, this, [this, current](quint64 id, const SessionInfo& info) {
        if (current(id))
            emit connected(info);
    });
    connect(m_worker, &RunWorker::scenarioStarted, this,
            [this, current](quint64 id, const QString& title, int repetition, const QString& sql) {
                if (current(id))
                    emit scenarioStarted(title, repetition, sql);
            });
    connect(m_worker, &RunWorker::pointStarted, this,
            [this, current](quint64 id, const QString& label, int ordinal, int count) {
                if (current(id))
                    emit pointStarted(label, ordinal, count);
            });
    connect(m_worker, &RunWorker::progressed, this, [this, current](quint64 id, const RunProgress& progress) {
        if (current(id))
            emit progressed(progress);
    });
    connect(m_worker, &RunWorker::sampleReady, this, [this, current](quint64 id, const Sample& sample) {
        if (current(id))
            emit sampleReady(m_runName, sample);
    });
    connect(m_worker, &RunWorker::finished, this,
            [this, current](quint64 id, bool ok, bool cancelled, const QString& error) {
                const bool isCurrent = current(id);
                if (isCurrent) {
                    m_running = false;
                    m_runner.reset();
                }
                emit workerIdle(id);
                if (isCurrent)
                    emit finished(ok, cancelled, error);
            });
    connect(m_worker, &RunWorker::connectionTested, this,
            [this](quint64 id, bool ok, const SessionInfo& info, const QString& detail) {
                if (id == m_testId)
                    emit connectionTested(ok, info, detail);
            });
    m_thread.start();
}

RunController::~RunController() {
    if (m_runner) {
        m_runner->cancel();
    }
    m_prepareCancel.cancel();
    m_thread.quit();
    m_thread.wait();
}

quint64 RunController::start(RunRequest request) {
    if (m_running) {
        stop();
    }
    ++m_runId;
    m_running = true;
    m_runName = QString::fromStdString(request.plan.runId);
    m_runner = std::make_shared<Runner>();
    m_prepareCancel = CancelToken();
    const quint64 id = m_runId;
    QMetaObject::invokeMethod(
        m_worker,
        [worker = m_worker, id, request = std::move(request), runner = m_runner, cancel = m_prepareCancel] {
            worker->run(id, request, runner, cancel);
        },
        Qt::QueuedConnection);
    return id;
}

void RunController::stop() {
    if (!m_running) {
        return;
    }
    // Runner::cancel interrupts the engine call from this thread; the worker's late signals then
    // carry an id that is no longer current and are dropped.
    m_runner->cancel();
    m_prepareCancel.cancel();
    m_runner.reset();
    m_running = false;
    emit stopped();
}

quint64 RunController::testConnection(const ConnectionSpec& spec, const ParameterValues& values) {
    const quint64 id = ++m_testId;
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, id, spec, values] { worker->testConnection(id, spec, values); },
        Qt::QueuedConnection);
    return id;
}

}  // namespace blobbench
