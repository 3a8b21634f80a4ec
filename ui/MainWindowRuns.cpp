// The main window's runs: Run, Run all, a sweep, Stop, Prepare data set, and the run worker's
// progress, samples and end (ui/RunController) reaching the views and the project.
#include "ui/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QRandomGenerator>
#include <QSpinBox>
#include <QSysInfo>
#include <QTabWidget>
#include <QTimer>

#include "engine/core/Error.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "engine/run/LoadRun.h"
#include "model/EngineScenarios.h"
#include "model/Presets.h"
#include "model/ProjectFile.h"
#include "model/RunComparison.h"
#include "model/SampleJson.h"
#include "model/SeriesNaming.h"
#include "ui/HistoryPanel.h"
#include "ui/LinkPanel.h"
#include "ui/ParameterPanel.h"
#include "ui/PrepareDialog.h"
#include "ui/ResultsModel.h"
#include "ui/SqlEditor.h"
#include "ui/StorageChart.h"
#include "ui/SweepEditor.h"
#include "ui/Units.h"
#include "ui/WhatIfPanel.h"

namespace blobbench {

void MainWindow::connectController() {
    connect(m_controller, &RunController::preparing, this, [this](quint64 done, quint64 total) {
        m_progress->setValue(static_cast<int>(total > 0 ? done * 1000 / total : 0));
        m_progressText->setText(
            tr("Preparing the reference data set: %1 / %2 rows (once)").arg(formatCount(done), formatCount(total)));
    });
    connect(m_controller, &RunController::prepared, this, [this](const QString& message) { log(message); });
    connect(m_controller, &RunController::datasetChecked, this, [this](const QString& line) { log(line); });
    connect(m_controller, &RunController::connected, this,
            [this](const SessionInfo& info) { m_connections->showSession(info, {}); });
    connect(m_controller, &RunController::scenarioStarted, this,
            [this](const QString& title, int repetition, const QString& sql) {
                log(tr("%1 #%2: %3")
                        .arg(title)
                        .arg(repetition < 0 ? tr("warm-up") : QString::number(repetition + 1), sql.simplified()));
            });
    connect(m_controller, &RunController::pointStarted, this, [this](const QString& label, int ordinal, int count) {
        log(tr("Sweep point %1 / %2: %3").arg(ordinal + 1).arg(count).arg(label));
    });
    connect(m_controller, &RunController::progressed, this, &MainWindow::onProgress);
    connect(m_controller, &RunController::sampleReady, this, [this](const QString& runId, const Sample& sample) {
        m_document->appendSample(runId, sample);
        m_files->journal(sample);
        m_link->showLastCounting(QString::fromStdString(sample.tap.method));
    });
    connect(m_controller, &RunController::loadsReady, this,
            [this](const QString& runId, const std::vector<LoadPoint>& loads) {
                m_document->appendLoads(runId, loads);
                m_files->journalLoads(loads);
                for (const LoadPoint& p : loads) {
                    if (p.scenarioId == LoadPoint::kAllScenarios)
                        continue;
                    const Rates r = p.rates();
                    log(tr("%1%2: %n session(s), %3 statements/s, %4 MB/s, p99 %5, %6 errors", nullptr, p.sessions)
                            .arg(p.point.empty() ? QString() : pointText(p.point) + QStringLiteral(" "),
                                 QString::fromStdString(p.scenarioTitle), QString::number(r.statementsPerS, 'f', 1),
                                 QString::number(r.contentMBPerS, 'f', 2),
                                 formatMillis(static_cast<double>(p.combined.latency.percentile(0.99)) / 1e6))
                            .arg(p.combined.failed + p.combined.cancelled));
                }
            });
    connect(m_controller, &RunController::finished, this, [this](bool ok, bool cancelled, const QString& error) {
        m_document->finishRun(m_currentRunId, ok          ? QStringLiteral("complete")
                                              : cancelled ? QStringLiteral("cancelled")
                                                          : QStringLiteral("failed: ") + error);
        m_files->journalFinished(m_currentRunId);
        setRunning(false);
        if (m_checkingLink) {
            m_checkingLink = false;
            const auto& history = m_document->project().history;
            const auto run = std::find_if(history.begin(), history.end(),
                                          [this](const RunRecord& r) { return r.runId == m_currentRunId; });
            if (ok && run != history.end())
                m_whatIf->showCheck(run->samples);
            else
                m_whatIf->checkFailed(cancelled ? tr("stopped") : error);
        }
        if (ok) {
            m_progress->setValue(1000);
            const RunRecord* done = findRun(m_document->project(), m_currentRunId);
            if (done != nullptr && !done->loads.empty())
                m_progressText->setText(
                    tr("Done: %n load point(s) in the Load tab", nullptr, static_cast<int>(done->loads.size())));
            else
                m_progressText->setText(tr("Done: %1 samples in the table").arg(m_results->rowCount()));
            log(tr("Run finished"));
        } else if (cancelled) {
            m_progressText->setText(tr("Stopped"));
            log(tr("Run stopped: %1").arg(error));
        } else {
            m_progressText->setText(tr("Failed"));
            m_connections->noteConnectFailure(error);
            showError(error);
        }
        flushLog();
        emit runFinished(ok);
    });
    connect(m_controller, &RunController::stopped, this, [this] {
        m_document->finishRun(m_currentRunId, QStringLiteral("cancelled"));
        m_files->journalFinished(m_currentRunId);
        setRunning(false);
        m_progressText->setText(tr("Stopped; results so far are kept"));
        log(tr("Stopped by the user"));
        flushLog();
        emit runFinished(false);
    });
}

void MainWindow::runCurrent() {
    const int index = currentScenarioIndex();
    if (index < 0) {
        showError(tr("No scenario selected: add one, or pick a preset."));
        return;
    }
    startRun({m_document->project().scenarios[static_cast<std::size_t>(index)]});
}

void MainWindow::runAll() {
    std::vector<ScenarioDef> chosen;
    for (const ScenarioDef& s : m_document->project().scenarios) {
        if (s.enabled)
            chosen.push_back(s);
    }
    if (chosen.empty()) {
        showError(tr("No scenario is checked: check the ones Run all should run."));
        return;
    }
    startRun(chosen);
}

void MainWindow::runSweep(int index) {
    const auto& sweeps = m_document->project().sweeps;
    if (index < 0 || index >= static_cast<int>(sweeps.size())) {
        showError(tr("No sweep: make one in the Sweep tab (New) first."));
        return;
    }
    std::vector<ScenarioDef> chosen;
    for (const ScenarioDef& s : m_document->project().scenarios) {
        if (s.enabled)
            chosen.push_back(s);
    }
    if (chosen.empty()) {
        showError(tr("No scenario is checked: check the ones the sweep should run."));
        return;
    }
    startRun(chosen, index);
}

// A networked connection is tested as soon as it is chosen: the server's and the client's versions
// tell which tunables can take effect, and the panel shows that before the first run.
void MainWindow::testInBackground() {
    const Driver* driver = currentDriver();
    if (driver != nullptr && driver->networked() && !isRunning())
        testConnection();
}

void MainWindow::logEngineFollow(const QString& note) {
    if (!note.isEmpty())
        log(note);
}

void MainWindow::startRun(const std::vector<ScenarioDef>& chosen, int sweepIndex, const LinkCheck* check) {
    if (m_controller->isRunning()) {
        return;
    }
    const ConnectionProfile* profile = m_document->project().current();
    if (profile == nullptr) {
        showError(tr("No connection: add one with Edit… → New connection."));
        return;
    }
    // Never another engine's SQL: scenarios written for the engine before the switch stay out.
    std::vector<ScenarioDef> scenarios;
    QString refused;
    for (const ScenarioDef& s : chosen) {
        if (const std::optional<Dialect> other = m_scenarios->writtenForOtherEngine(s)) {
            refused = tr("“%1” was written for %2: not run on %3. Edit its SQL for %3 (the mark then goes), or add "
                         "the %3 reference suite from Presets.")
                          .arg(s.title, dialectName(*other),
                               dialectName(currentDriver() != nullptr ? currentDriver()->dialect() : Dialect::None));
            log(refused, true);
            continue;
        }
        scenarios.push_back(s);
    }
    if (scenarios.empty()) {
        showError(refused);
        return;
    }
    for (const ScenarioDef& s : scenarios) {
        if (!s.isStudy() && s.sql.trimmed().isEmpty()) {
            showError(tr("The scenario “%1” has no measured statement: write one in the SQL editor.").arg(s.title));
            log(tr("Not run: “%1” has an empty statement").arg(s.title), true);
            return;
        }
    }
    clearError();
    RunRequest request;
    RunPlan& plan = request.plan;
    plan.runId = QStringLiteral("run-%1-%2")
                     .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")))
                     .arg(++m_runCounter)
                     .toStdString();
    plan.connection = profile->toSpec(m_connections->passwordFor(*profile));
    // Networked engines are measured through the tap unless the user turned it off (the same rule
    // as blobbench-cli's); the link is emulated whenever the tap is in use.
    bool networked = false;
    try {
        networked = driverById(plan.connection.engine).networked();
    } catch (const Error&) {
        // an unknown engine fails at connect, with its own message
    }
    plan.wireTap = networked && (profile->useWireTap || check != nullptr);
    const LinkSettings link = check != nullptr ? check->link : plan.wireTap ? profile->link : LinkSettings{};
    plan.link = toLinkProfile(link);
    try {
        plan.link.validate();
    } catch (const Error& e) {
        showError(tr("Link emulation: %1").arg(qs(e.what())));
        return;
    }
    plan.parameters = m_parameters->values();
    plan.repetitions = m_repetitions->value();
    for (const ScenarioDef& s : scenarios) {
        if (!s.isStudy()) {
            plan.scenarios.push_back(s.toScenario());
            continue;
        }
        if (sweepIndex >= 0)
            continue;  // storage studies take no part in sweeps (as in blobbench-cli)
        try {          // storage studies (ui/StorageChart shows them)
            request.studies.push_back(studyJob(
                m_document->project(), s, plan.runId,
                {m_connections->sessionPasswords().keyValueBegin(), m_connections->sessionPasswords().keyValueEnd()}));
        } catch (const Error& e) {
            showError(tr("Scenario “%1”: options.%2").arg(s.id, qs(e.what())));
            return;
        }
    }
    RunRecord record;
    if (sweepIndex >= 0) {
        const SweepDef& def = m_document->project().sweeps[static_cast<std::size_t>(sweepIndex)];
        SweepSpec sweep = def.toSpec();
        if (sweep.randomOrder && sweep.seed == 0) {
            // 53 bits, never 0: the seed kept in the run replays the same order (as the CLI does)
            sweep.seed = (QRandomGenerator::global()->generate64() & ((1ULL << 53) - 1)) | 1;
        }
        try {
            const Driver& driver = driverById(plan.connection.engine);
            request.points = validatedPoints(sweep, driver.parameters());
        } catch (const Error& e) {
            showError(tr("Cannot run the sweep: %1").arg(qs(e.what())));
            return;
        }
        plan.repetitions = def.repetitions;
        plan.warmups = def.warmups;
        record.sweepName = def.name;
        record.orderSeed = sweep.randomOrder ? sweep.seed : 0;
    }
    if (check != nullptr) {
        plan.parameters = check->settings;  // the parameter set's own values, every one as it ran
    }
    m_checkingLink = check != nullptr;
    const QString defaultTarget = QStringLiteral("sqlite:") + m_defaultDatasetPath;
    if (profile->engine == QLatin1String("sqlite") && profile->target == defaultTarget) {
        request.prepareDatasetAt = m_defaultDatasetPath;
        request.prepareRows = m_defaultDatasetRows;
    }

    bool load = false;
    try {
        load = isLoadRun(plan.parameters, request.points);
    } catch (const Error& e) {
        showError(tr("Cannot run: %1").arg(qs(e.what())));
        return;
    }
    if (load && !request.studies.empty()) {
        showError(tr("Storage studies run on one session: uncheck them for a run of many sessions."));
        return;
    }

    record.runId = qs(plan.runId);
    record.startedAt = qs(isoNow());
    record.machine = QSysInfo::machineHostName();
    record.connectionName = profile->name;
    record.link = link;  // what the run was measured over, not what the controls may say later
    record.toolVersion = QStringLiteral(BLOBBENCH_VERSION);
    // Another process running this project would lose this run or its own: refused before anything runs.
    if (const QString refused = m_files->startJournal(record); !refused.isEmpty()) {
        m_checkingLink = false;
        showError(refused);
        return;
    }
    // A run's samples are shown: its connection comes back into the charts if it was hidden.
    if (m_hiddenConnections.remove(qs(plan.connection.label())))
        reloadResults();
    m_document->beginRun(record);
    m_currentRunId = record.runId;

    m_runEngine = profile->engine;
    m_lastThroughputAt = 0;
    m_lastThroughputBytes = 0;
    chart(ChartKind::LiveThroughput)->clear();
    m_pendingThroughput.clear();
    m_progress->setValue(0);
    m_progressText->setText(tr("Starting…"));
    log(tr("Run %1 on %2: %n scenario(s) × %3", nullptr, static_cast<int>(scenarios.size()))
            .arg(record.runId, connectionText(plan.connection.label()))
            .arg(plan.repetitions));
    if (plan.wireTap) {
        log(tr("Link: %1").arg(linkText(link)));
    }
    if (!request.points.empty()) {
        log(tr("Sweep “%1”: %n point(s)", nullptr, static_cast<int>(request.points.size())).arg(record.sweepName));
        showChart(ChartKind::Sweep);
    }
    if (load) {
        const LoadSettings settings = resolveLoadSettings(plan.parameters);
        log(tr("Load: %n session(s) at once, %1; each its own connection and wire counting", nullptr, settings.sessions)
                .arg(settings.duration
                         ? (settings.rate ? tr("open loop at %1 statements/s for %2 s")
                                                .arg(*settings.rate)
                                                .arg(settings.duration->count() / 1000)
                                          : tr("closed loop for %1 s").arg(settings.duration->count() / 1000))
                         : tr("%n repetition(s) each", nullptr, plan.repetitions)));
        showLoadChart();
    }
    setRunning(true);
    m_controller->start(std::move(request));
}

void MainWindow::prepareDataset() {
    const ConnectionProfile* profile = m_document->project().current();
    if (profile == nullptr || isRunning()) {
        showError(profile == nullptr ? tr("No connection: add one with Edit… → New connection.")
                                     : tr("Stop the run before preparing a data set."));
        return;
    }
    const ConnectionSpec spec = profile->toSpec(m_connections->passwordFor(*profile));
    if (QString::fromStdString(spec.target) == QStringLiteral("sqlite:") + m_defaultDatasetPath)
        QDir().mkpath(QFileInfo(m_defaultDatasetPath).path());  // the data directory of a fresh HOME
    auto* dialog = new PrepareDialog(profile->name, spec, m_parameters->values(), m_controller, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setModal(true);
    connect(dialog, &PrepareDialog::preparedDataset, this, [this](bool ok, bool cancelled, const QString& line) {
        log(line, !ok && !cancelled);
        if (ok)
            clearError();
        else
            m_connections->noteConnectFailure(line);
        testConnection();  // the server label and the data set as they are now
    });
    dialog->show();
}

void MainWindow::stop() {
    if (m_controller->isRunning()) {
        m_controller->stop();
    }
}

bool MainWindow::isRunning() const {
    return m_controller != nullptr && m_controller->isRunning();
}

void MainWindow::setRunning(bool running) {
    m_runAction->setEnabled(!running);
    m_runAllAction->setEnabled(!running);
    m_stopAction->setEnabled(running);
    m_connections->setEnabled(!running);
    m_parameters->setEnabled(!running);
    m_link->setEnabled(!running);
    m_sweepEditor->setRunEnabled(!running);
}

void MainWindow::applyLinkEdit(bool useWireTap, const LinkSettings& link) {
    const ConnectionProfile* current = m_document->project().current();
    if (current == nullptr)
        return;
    ConnectionProfile profile = *current;
    profile.useWireTap = useWireTap;
    profile.link = link;
    m_applyingLink = true;
    m_document->setConnection(m_document->project().currentConnection, profile);
    m_applyingLink = false;
}

void MainWindow::onProgress(const RunProgress& p) {
    if (p.sessions > 0) {
        // A point of many sessions: the last second's throughput and p99 over every session.
        m_progressText->setText(
            tr("%n session(s): %1 statements/s, p99 %2 (last second); %3 statements", nullptr, p.sessions)
                .arg(QString::number(p.statementsPerS, 'f', 0), formatMillis(p.p99Ms), formatCount(p.statements)));
        return;
    }
    double fraction = 0;
    if (p.executions > 0) {
        double inCurrent = 0;
        const auto expected = m_expectedRows.find(p.scenarioId);
        if (expected != m_expectedRows.end() && expected->second > 0) {
            inCurrent = std::min(1.0, static_cast<double>(p.rows) / static_cast<double>(expected->second));
        }
        fraction = (std::max(0, p.execution) + inCurrent) / p.executions;
    }
    // QProgressBar repaints synchronously on every visible change: move it in 1 % steps.
    const int value = static_cast<int>(fraction * 100) * 10;
    if (value != m_progress->value())
        m_progress->setValue(value);
    QString text = tr("%1 rows  %2  execution %3 / %4")
                       .arg(formatCount(p.runRows), formatBytes(static_cast<double>(p.runBytes)))
                       .arg(p.execution + 1)
                       .arg(p.executions);
    if (fraction > 0.02 && p.seconds > 0.2) {
        text += tr("  ETA %1").arg(formatMillis(p.seconds * (1 - fraction) / fraction * 1000));
    }
    m_progressText->setText(text);
    // Throughput over at least 100 ms: shorter windows are mostly scheduling noise.
    const double dt = p.seconds - m_lastThroughputAt;
    if (dt >= 0.1 && p.runBytes >= m_lastThroughputBytes) {
        m_pendingThroughput.emplace_back(p.seconds, static_cast<double>(p.runBytes - m_lastThroughputBytes) / 1e6 / dt);
        m_lastThroughputAt = p.seconds;
        m_lastThroughputBytes = p.runBytes;
        if (!m_chartFlush->isActive())
            m_chartFlush->start();
    }
}

}  // namespace blobbench
