#include "ui/RunController.h"

#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <QPointer>
#include <QSocketNotifier>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>

#include "engine/core/Error.h"
#include "engine/core/ErrorLine.h"
#include "engine/data/Dataset.h"
#include "engine/data/PrepareDataset.h"
#include "engine/drivers/Registry.h"

namespace blobbench {
namespace {

using Clock = std::chrono::steady_clock;

// Forwards the Runner's callbacks (on the worker thread) to the controller's thread. Progress is
// thinned to one call per 40 ms: a 10,000-row fetch would otherwise flood the UI thread.
class ForwardingObserver final : public LoadRunObserver {
public:
    ForwardingObserver(RunWorker& worker, quint64 runId, int executions, bool readsReferenceTable)
        : m_worker(worker), m_runId(runId), m_start(Clock::now()), m_readsReferenceTable(readsReferenceTable) {
        m_progress.executions = executions;
        m_progress.execution = -1;
    }

    // As blobbench-cli run: any BLOB_TEST with the reference columns runs (the log says whether
    // BlobBench prepared it and what it holds); a missing one or a preparation BlobBench knows to be
    // incomplete is refused before anything is measured, when the scenarios read it at all.
    void checkSession(Session& session) override {
        if (!m_readsReferenceTable || session.dialect() == Dialect::None) {
            return;
        }
        std::string line = requireDataset(session, "prepare it: Connection > Prepare data set");
        if (line != m_datasetLine) {  // a sweep reconnects: said once
            m_datasetLine = line;
            m_worker.toCurrentRun(m_runId, [line = std::move(line)](RunController& c) {
                emit c.datasetChecked(QString::fromStdString(line));
            });
        }
    }

    void connected(const SessionInfo& info) override {
        m_worker.toCurrentRun(m_runId, [info](RunController& c) { emit c.connected(info); });
    }

    void pointStarted(const SweepPoint& point, std::size_t ordinal, std::size_t count) override {
        m_worker.toCurrentRun(m_runId, [label = point.label(), ordinal, count](RunController& c) {
            emit c.pointStarted(QString::fromStdString(label), static_cast<int>(ordinal), static_cast<int>(count));
        });
    }

    void scenarioStarted(const Scenario& scenario, int repetition) override {
        m_doneRows += m_progress.rows;
        m_doneBytes += m_progress.bytes;
        ++m_progress.execution;
        m_progress.scenarioId = QString::fromStdString(scenario.id);
        m_progress.rows = 0;
        m_progress.bytes = 0;
        m_worker.toCurrentRun(m_runId, [title = scenario.title, repetition, sql = scenario.sql](RunController& c) {
            emit c.scenarioStarted(QString::fromStdString(title), repetition, QString::fromStdString(sql));
        });
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
        m_worker.toCurrentRun(m_runId, [sample](RunController& c) { emit c.sampleReady(c.currentRunName(), sample); });
    }

    SessionsObserver& sessions() override { return m_live; }
    void loadReady(const SweepPoint& /*point*/, const std::vector<LoadPoint>& loads,
                   const SessionsOutcome& /*outcome*/) override {
        m_live.pointEnded();
        // Not toCurrentRun: a stopped run's last point is delivered too, to the run it belongs to.
        m_worker.toController([runId = m_runId, loads](RunController& c) {
            if (runId == c.currentRunId()) {
                emit c.loadsReady(c.currentRunName(), loads);
            }
        });
    }

private:
    // The sessions of a point: session 1 checks the data set and reports the connect; every
    // statement feeds the live figures, sent at most four times a second (from the session threads).
    class LiveLoad final : public SessionsObserver {
    public:
        explicit LiveLoad(ForwardingObserver& owner) : m_owner(owner) {}
        void checkSession(int session, Session& s) override {
            if (session == 1) {
                std::lock_guard lock(m_mutex);
                m_owner.checkSession(s);
            }
        }
        void connected(int session, const SessionInfo& info) override {
            if (session == 1) {
                m_owner.connected(info);
            }
        }
        void allConnected(int connected, int sessions) override {
            std::lock_guard lock(m_mutex);
            m_sessions = sessions;
            m_recent.clear();
            m_statements = 0;
            m_owner.m_worker.toCurrentRun(m_owner.m_runId, [connected, sessions](RunController& c) {
                emit c.scenarioStarted(
                    QStringLiteral("%1 of %2 sessions connected; measuring").arg(connected).arg(sessions), 0,
                    QString());
            });
        }
        void sampleReady(int /*session*/, const Sample& sample, bool counted) override {
            if (sample.status != SampleStatus::Complete) {
                return;
            }
            const auto now = Clock::now();
            const Nanos latency = sample.phases.prepare + sample.phases.elapsed();
            std::lock_guard lock(m_mutex);
            m_recent.emplace_back(now, static_cast<std::uint64_t>(std::max<Nanos::rep>(0, latency.count())));
            m_statements += counted ? 1 : 0;
            if (now - m_lastSent >= std::chrono::milliseconds(250)) {
                m_lastSent = now;
                send(now);
            }
        }
        void pointEnded() {
            std::lock_guard lock(m_mutex);
            send(Clock::now());
        }

    private:
        void send(Clock::time_point now) {  // under m_mutex
            while (!m_recent.empty() && now - m_recent.front().first > std::chrono::seconds(1)) {
                m_recent.pop_front();
            }
            std::vector<std::uint64_t> latencies;
            latencies.reserve(m_recent.size());
            for (const auto& [at, ns] : m_recent) {
                latencies.push_back(ns);
            }
            RunProgress p = m_owner.m_progress;
            p.sessions = m_sessions;
            p.statementsPerS = static_cast<double>(latencies.size());
            p.statements = m_statements;
            if (!latencies.empty()) {
                const std::size_t rank = std::min(latencies.size() - 1, latencies.size() * 99 / 100);
                std::nth_element(latencies.begin(), latencies.begin() + static_cast<std::ptrdiff_t>(rank),
                                 latencies.end());
                p.p99Ms = static_cast<double>(latencies[rank]) / 1e6;
            }
            p.seconds = std::chrono::duration<double>(now - m_owner.m_start).count();
            m_owner.m_worker.toCurrentRun(m_owner.m_runId, [p](RunController& c) { emit c.progressed(p); });
        }

        ForwardingObserver& m_owner;
        std::mutex m_mutex;
        int m_sessions = 0;                                                // guarded by m_mutex
        std::deque<std::pair<Clock::time_point, std::uint64_t>> m_recent;  // guarded: the last second
        std::uint64_t m_statements = 0;                                    // guarded
        Clock::time_point m_lastSent{};                                    // guarded
    };

    void publish(bool always) {
        const auto now = Clock::now();
        if (!always && now - m_lastPublished < std::chrono::milliseconds(40)) {
            return;
        }
        m_lastPublished = now;
        m_progress.runRows = m_doneRows + m_progress.rows;
        m_progress.runBytes = m_doneBytes + m_progress.bytes;
        m_progress.seconds = std::chrono::duration<double>(now - m_start).count();
        m_worker.toCurrentRun(m_runId, [progress = m_progress](RunController& c) { emit c.progressed(progress); });
    }

    RunWorker& m_worker;
    quint64 m_runId;
    Clock::time_point m_start;
    Clock::time_point m_lastPublished{};
    RunProgress m_progress;
    std::uint64_t m_doneRows = 0;
    std::uint64_t m_doneBytes = 0;
    bool m_readsReferenceTable;
    std::string m_datasetLine;
    LiveLoad m_live{*this};
};

QString summaryLine(const std::string& where, const DatasetSummary& s, std::int64_t ms) {
    return QStringLiteral(
               "Prepared %1: %2 rows, %3 content bytes, %4 short rows (%5 bytes), longest %6 characters "
               "in %7 ms")
        .arg(QString::fromStdString(where))
        .arg(s.rows)
        .arg(s.contentBytes)
        .arg(s.shortRows)
        .arg(s.shortBytes)
        .arg(s.maxLength)
        .arg(ms);
}

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
        SyntheticProfile profile;
        profile.rows = request.prepareRows;
        SyntheticRowSource source(profile);
        PrepareOptions options;
        options.cancel = cancel;
        auto last = Clock::now();
        options.progress = [&](std::uint64_t done, std::uint64_t total) {
            if (Clock::now() - last > std::chrono::milliseconds(50) || done == total) {
                last = Clock::now();
                toCurrentRun(runId, [done, total](RunController& c) { emit c.preparing(done, total); });
            }
        };
        summary = blobbench::prepareDataset(ConnectionSpec{"sqlite", partial.string()}, {}, source, options);
    } catch (...) {
        fs::remove(partial, ignored);
        throw;
    }
    fs::rename(partial, path);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
    const QString message = QStringLiteral("Prepared %1: %2 rows, %3 content bytes in %4 ms")
                                .arg(QString::fromStdString(path.string()))
                                .arg(summary.rows)
                                .arg(summary.contentBytes)
                                .arg(ms);
    toCurrentRun(runId, [message](RunController& c) { emit c.prepared(message); });
    return !cancel.cancelled();
}

RunWorker::RunWorker(RunController& controller)
    : m_controller(controller), m_thread([this] {
          pthread_setname_np(pthread_self(), "blobbench-run");
          while (auto call = m_inbox.waitOne()) {
              // run() and testConnection() report their own errors; this is the last line, so
              // that nothing can end the process from this thread.
              try {
                  (*call)(*this);
              } catch (const std::exception& e) {
                  std::fprintf(stderr, "blobbench: run worker: %s\n", oneLine(e.what()).c_str());
              } catch (...) {
                  std::fprintf(stderr, "blobbench: run worker: an exception that is not a std::exception\n");
              }
          }
      }) {}

RunWorker::~RunWorker() {
    m_inbox.close();
    m_thread.join();
}

void RunWorker::toController(std::function<void(RunController&)> call) {
    if (m_controller.m_fromWorker.post(std::move(call))) {
        m_controller.wakeFromWorker();
    }
}

void RunWorker::toCurrentRun(quint64 runId, std::function<void(RunController&)> call) {
    toController([runId, call = std::move(call)](RunController& c) {
        if (c.isCurrent(runId)) {
            call(c);
        }
    });
}

void RunWorker::run(quint64 runId, const RunRequest& request, const std::shared_ptr<LoadRun>& runner,
                    const CancelToken& prepareCancel) {
    const auto finish = [this, runId](bool ok, bool cancelled, const QString& error) {
        toController([runId, ok, cancelled, error](RunController& c) { c.endRun(runId, ok, cancelled, error); });
    };
    try {
        if (!request.prepareDatasetAt.isEmpty() && !request.plan.scenarios.empty() &&
            !prepareIfMissing(runId, request, prepareCancel)) {
            finish(false, true, QStringLiteral("cancelled while preparing the data set"));
            return;
        }
        const int perScenario = std::max(1, request.plan.repetitions) + std::max(0, request.plan.warmups);
        const int points = std::max<int>(1, static_cast<int>(request.points.size()));
        const int executions = static_cast<int>(request.plan.scenarios.size()) * perScenario * points;
        ForwardingObserver observer(*this, runId, executions + static_cast<int>(request.studies.size()),
                                    readsReferenceTable(request.plan.scenarios));
        RunOutcome outcome;
        if (!request.plan.scenarios.empty()) {
            LoadContext context;
            context.runId = request.plan.runId;
            context.connection = request.plan.connection.label();
            outcome = runner->run(request.plan, request.points, observer, context);
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
                toCurrentRun(runId, [line = job.title + ": " + what](RunController& c) {
                    emit c.scenarioStarted(QString::fromStdString(line), 0, QString());
                });
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
        finish(outcome.ok, cancelled, QString::fromStdString(outcome.error));
    } catch (const Error& e) {
        finish(false, e.kind() == ErrorKind::Cancelled,
               QString::fromStdString(prefixedOnce(request.plan.connection.label(), oneLine(e.what()))));
    } catch (const std::exception& e) {
        // A driver that throws something else is a bug there, but the window must survive it.
        finish(false, false,
               QString::fromStdString(request.plan.connection.label()) + QStringLiteral(": unexpected error: ") +
                   describe(e));
    } catch (...) {
        finish(false, false,
               QString::fromStdString(request.plan.connection.label()) +
                   QStringLiteral(": unexpected error (an exception that is not a std::exception)"));
    }
}

void RunWorker::testConnection(quint64 requestId, const ConnectionSpec& spec, const ParameterValues& values) {
    const auto tested = [this, requestId](bool ok, const SessionInfo& info, const QString& detail) {
        toController([requestId, ok, info, detail](RunController& c) {
            if (requestId == c.m_testId) {
                emit c.connectionTested(ok, info, detail);
            }
        });
    };
    try {
        const Driver& driver = driverById(spec.engine);
        const auto t0 = Clock::now();
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), values));
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
        QString detail = QStringLiteral("connected in %1 ms").arg(ms);
        if (driver.dialect() != Dialect::None) {
            if (const DatasetCheck check = checkDataset(*session); check.summary) {
                detail += QStringLiteral("; data set%1: %2 rows, %3 content bytes")
                              .arg(check.summary->preparedByBlobBench ? QString()
                                                                      : QStringLiteral(" (not prepared by BlobBench)"))
                              .arg(check.summary->rows)
                              .arg(check.summary->contentBytes);
            } else {
                detail += QStringLiteral("; ") + QString::fromStdString(check.problem);
            }
        }
        tested(true, session->info(), detail);
    } catch (const std::exception& e) {
        tested(false, SessionInfo{}, QString::fromStdString(prefixedOnce(spec.label(), oneLine(e.what()))));
    } catch (...) {
        tested(false, SessionInfo{},
               QString::fromStdString(spec.label()) +
                   QStringLiteral(": unexpected error (an exception that is not a std::exception)"));
    }
}

void RunWorker::prepareDataset(quint64 prepareId, const PrepareRequest& request, const CancelToken& cancel) {
    const std::string where = request.connection.label();
    std::uint64_t committed = 0;  // BLOB_SAMPLE's and BLOB_TEST's rows, as the last progress said
    std::uint64_t samplesFirst = 0;
    const auto finish = [this, prepareId](bool ok, bool cancelled, const QString& line) {
        toController([prepareId, ok, cancelled, line](RunController& c) {
            c.m_preparing = c.m_preparing && prepareId != c.m_prepareId;
            emit c.datasetPrepared(prepareId, ok, cancelled, line);
        });
    };
    try {
        const auto source = makeRowSource(request.choice);
        samplesFirst = source->fillsSampleTable() ? source->sampleCount() : 0;
        PrepareOptions options;
        options.batchRows = request.batchRows;
        options.cancel = cancel;
        auto last = Clock::time_point{};
        options.progress = [&](std::uint64_t done, std::uint64_t total) {
            committed = done;
            if (Clock::now() - last > std::chrono::milliseconds(50) || done == total) {
                last = Clock::now();
                toController(
                    [prepareId, done, total](RunController& c) { emit c.datasetProgress(prepareId, done, total); });
            }
        };
        const auto t0 = Clock::now();
        const DatasetSummary summary =
            blobbench::prepareDataset(request.connection, request.parameters, *source, options);
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
        finish(true, false, summaryLine(where, summary, ms));
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Cancelled) {
            finish(false, false, describe(e));
            return;
        }
        // What Stop leaves: the batches committed, and no mark of a complete data set, so a run
        // refuses the tables until they are prepared again.
        const std::uint64_t testRows = committed > samplesFirst ? committed - samplesFirst : 0;
        finish(false, true,
               QStringLiteral("Stopped: %1 holds %2 rows of BLOB_TEST%3, marked incomplete (runs refuse it until it "
                              "is prepared again)")
                   .arg(QString::fromStdString(where))
                   .arg(testRows)
                   .arg(samplesFirst > 0 ? QStringLiteral(" and %1 of %2 files in BLOB_SAMPLE")
                                               .arg(std::min(committed, samplesFirst))
                                               .arg(samplesFirst)
                                         : QString()));
    } catch (const std::exception& e) {
        finish(false, false, QString::fromStdString(where) + QStringLiteral(": prepare: ") + describe(e));
    }
}

RunController::RunController(QObject* parent) : QObject(parent) {
    qRegisterMetaType<blobbench::Sample>();
    qRegisterMetaType<blobbench::SessionInfo>();
    qRegisterMetaType<blobbench::RunProgress>();
    m_wakeFd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (m_wakeFd < 0) {
        throw Error(ErrorKind::Internal, std::string("run worker: eventfd: ") + std::strerror(errno));
    }
    m_wakeNotifier = new QSocketNotifier(m_wakeFd, QSocketNotifier::Read, this);
    connect(m_wakeNotifier, &QSocketNotifier::activated, this, &RunController::deliverFromWorker);
    try {
        m_worker = std::make_unique<RunWorker>(*this);
    } catch (...) {
        ::close(m_wakeFd);  // no thread could be started
        throw;
    }
}

RunController::~RunController() {
    if (m_runner) {
        m_runner->cancel();
    }
    m_prepareCancel.cancel();
    m_datasetCancel.cancel();
    // Explicitly, before the rest: joins the thread (a connection test under way is not
    // cancellable and ends within its connect timeout). From here on nothing writes m_wakeFd or
    // m_fromWorker; the calls the worker left there are dropped unseen.
    m_worker.reset();
    delete m_wakeNotifier;  // before its descriptor
    ::close(m_wakeFd);
}

void RunController::wakeFromWorker() {
    const std::uint64_t one = 1;
    // Only fails when the counter is about to overflow, i.e. a wake-up is pending anyway.
    [[maybe_unused]] const auto written = ::write(m_wakeFd, &one, sizeof one);
}

void RunController::deliverFromWorker() {
    // Reset the wake-up first, then take calls until the queue is empty: a call posted after that
    // found it empty and has woken us again. One at a time from the shared queue, so that a slot
    // that spins a nested event loop (a password prompt) leaves the later calls in order, and one
    // that throws leaves them queued with a new wake-up.
    std::uint64_t count = 0;
    [[maybe_unused]] const auto read = ::read(m_wakeFd, &count, sizeof count);
    const QPointer<RunController> alive(this);
    while (auto call = m_fromWorker.tryTakeOne()) {
        try {
            (*call)(*this);
        } catch (...) {
            if (alive) {
                wakeFromWorker();
            }
            throw;
        }
        if (!alive) {
            return;  // a slot deleted the controller (use deleteLater)
        }
    }
}

void RunController::endRun(quint64 runId, bool ok, bool cancelled, const QString& error) {
    const bool wasCurrent = isCurrent(runId);
    if (wasCurrent) {
        m_running = false;
        m_runner.reset();
    }
    emit workerIdle(runId);
    if (wasCurrent) {
        emit finished(ok, cancelled, error);
    }
}

quint64 RunController::start(RunRequest request) {
    if (m_running) {
        stop();
    }
    ++m_runId;
    m_running = true;
    m_runName = QString::fromStdString(request.plan.runId);
    m_runner = std::make_shared<LoadRun>();
    m_prepareCancel = CancelToken();
    const quint64 id = m_runId;
    m_worker->post([id, request = std::move(request), runner = m_runner, cancel = m_prepareCancel](RunWorker& worker) {
        worker.run(id, request, runner, cancel);
    });
    return id;
}

void RunController::stop() {
    if (!m_running) {
        return;
    }
    // Runner::cancel interrupts the engine call from this thread; the worker's late calls then
    // carry an id that is no longer current and are dropped.
    m_runner->cancel();
    m_prepareCancel.cancel();
    m_runner.reset();
    m_running = false;
    emit stopped();
}

quint64 RunController::prepareDataset(const PrepareRequest& request) {
    stopPrepare();
    const quint64 id = ++m_prepareId;
    m_preparing = true;
    m_datasetCancel = CancelToken();
    m_worker->post(
        [id, request, cancel = m_datasetCancel](RunWorker& worker) { worker.prepareDataset(id, request, cancel); });
    return id;
}

void RunController::stopPrepare() {
    m_datasetCancel.cancel();
}

quint64 RunController::testConnection(const ConnectionSpec& spec, const ParameterValues& values) {
    const quint64 id = ++m_testId;
    m_worker->post([id, spec, values](RunWorker& worker) { worker.testConnection(id, spec, values); });
    return id;
}

}  // namespace blobbench
