// The main window's side of the What-if dock (ui/WhatIfPanel): predictions to the charts, the
// settings to the project, "Measure at this link" to a run.
#include <QAction>
#include <QDockWidget>
#include <QEvent>
#include <QTabWidget>
#include <functional>

#include "engine/drivers/Registry.h"
#include "model/SeriesNaming.h"
#include "ui/MainWindow.h"
#include "ui/ParameterPanel.h"
#include "ui/WhatIfPanel.h"

namespace blobbench {
namespace {

// Calls `onClose` when the watched widget gets a close event (a dock's close button).
class CloseWatcher : public QObject {
public:
    CloseWatcher(QObject* parent, std::function<void()> onClose) : QObject(parent), m_onClose(std::move(onClose)) {}
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Close)
            m_onClose();
        return QObject::eventFilter(watched, event);
    }

private:
    std::function<void()> m_onClose;
};

}  // namespace

void MainWindow::connectWhatIf() {
    m_whatIf->setSettings(m_document->project().whatIf);
    m_whatIf->setCurrentValues(m_parameters->values());
    updateWhatIfMeasurable();
    connect(m_whatIf, &WhatIfPanel::predictionsChanged, this, &MainWindow::pushPredictions);
    connect(m_whatIf, &WhatIfPanel::settingsChanged, m_document, &ProjectDocument::setWhatIf);
    connect(m_whatIf, &WhatIfPanel::measureRequested, this, &MainWindow::measureAtLink);
    // Closing the dock (its close button, or unticking View > What if) switches the predictions
    // off: no hollow markers stay in the charts without the panel that says what they are (#30).
    // Not on every hide: the window's own close and a tab switch between docks hide it too.
    auto off = [this] {
        if (m_whatIf->settings().enabled)
            m_whatIf->setOn(false);
    };
    m_whatIfDock->installEventFilter(new CloseWatcher(m_whatIfDock, off));
    connect(m_whatIfDock->toggleViewAction(), &QAction::triggered, this, [off](bool shown) {
        if (!shown)
            off();
    });
    connect(m_document, &ProjectDocument::projectReset, this, [this] {
        m_whatIf->setSettings(m_document->project().whatIf);
        m_whatIf->setCurrentValues(m_parameters->values());
        updateWhatIfMeasurable();
        if (m_document->project().whatIf.enabled)
            showWhatIf();  // predicted points in the charts: the dock that says so is in view
    });
    connect(m_document, &ProjectDocument::currentConnectionChanged, this, [this] { updateWhatIfMeasurable(); });
    connect(m_document, &ProjectDocument::connectionsChanged, this, [this] { updateWhatIfMeasurable(); });
    connect(m_parameters, &ParameterPanel::valueChanged, this,
            [this] { m_whatIf->setCurrentValues(m_parameters->values()); });
    pushPredictions();
}

void MainWindow::showWhatIf() {
    m_whatIfDock->show();
    m_whatIfDock->raise();
    // Room for the advisor's names and its chart's legend, the rest for the workbench.
    resizeDocks({m_whatIfDock}, {std::clamp(width() * 3 / 10, 380, 640)}, Qt::Horizontal);
    m_whatIf->flushAdvice();
}

void MainWindow::pushPredictions() {
    if (m_whatIf == nullptr || m_reloadingResults)
        return;
    for (std::size_t i = 0; i < m_charts.size(); ++i) {
        const ChartKind kind = m_charts[i]->kind();
        m_predictionsStale[i] =
            kind == ChartKind::TimeVsBytes || kind == ChartKind::TimeVsRoundTrips || kind == ChartKind::Sweep;
    }
    // A slider step redraws the chart in view at once; during a run the 100 ms flush takes it.
    if (isRunning())
        m_chartFlush->start();
    else
        flushChart(static_cast<std::size_t>(std::max(0, m_chartTabs->currentIndex())));
}

void MainWindow::updateWhatIfMeasurable() {
    const ConnectionProfile* profile = m_document->project().current();
    m_whatIf->setCurrentConnection(profile != nullptr ? QString::fromStdString(profile->toSpec().label()) : QString());
    m_whatIf->setCurrentValues(m_parameters->values());  // the engine's, after a switch
    const Driver* driver = currentDriver();
    if (profile == nullptr || driver == nullptr || !driver->networked()) {
        m_whatIf->setMeasurable(
            false, tr("%1 is embedded: there is no link to emulate")
                       .arg(driver != nullptr ? QString::fromStdString(driver->displayName()) : tr("This engine")));
        return;
    }
    m_whatIf->setMeasurable(true, {});
}

void MainWindow::measureAtLink(const QString& scenarioId, const QString& connection, const ParameterValues& settings,
                               const LinkSettings& link) {
    if (isRunning()) {
        m_whatIf->checkFailed(tr("a run is in progress"));
        return;
    }
    // The prediction is of the set's samples: measured on another connection it would be another
    // experiment, so the set's own connection must be the current one.
    const ConnectionProfile* profile = m_document->project().current();
    if (profile == nullptr || QString::fromStdString(profile->toSpec().label()) != connection) {
        m_whatIf->checkFailed(tr("this parameter set was measured on %1; choose that connection to measure it")
                                  .arg(connectionText(connection.toStdString())));
        return;
    }
    const auto& scenarios = m_document->project().scenarios;
    const auto scenario =
        std::find_if(scenarios.begin(), scenarios.end(), [&](const ScenarioDef& s) { return s.id == scenarioId; });
    if (scenario == scenarios.end()) {
        m_whatIf->checkFailed(tr("the scenario “%1” is no longer in the project").arg(scenarioId));
        return;
    }
    const LinkCheck check{settings, link};
    startRun({*scenario}, -1, &check);
    if (!isRunning())
        m_whatIf->checkFailed(errorText().isEmpty() ? tr("the run did not start") : errorText());
}

}  // namespace blobbench
