#include "ui/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QRandomGenerator>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QSysInfo>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUuid>
#include <QVBoxLayout>
#include <set>

#include "engine/core/Error.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "engine/report/PublishedTable.h"
#include "model/EngineScenarios.h"
#include "model/Presets.h"
#include "model/ProjectFile.h"
#include "model/SampleJson.h"
#include "model/SeriesNaming.h"
#include "ui/ChartSettings.h"
#include "ui/ConnectionController.h"
#include "ui/DocumentController.h"
#include "ui/ErrorBanner.h"
#include "ui/ExportController.h"
#include "ui/HistoryPanel.h"
#include "ui/LinkPanel.h"
#include "ui/LinkPlacement.h"
#include "ui/LogView.h"
#include "ui/ParameterPanel.h"
#include "ui/PrepareDialog.h"
#include "ui/ReproduceWindow.h"
#include "ui/ResultsModel.h"
#include "ui/ScenarioPanel.h"
#include "ui/SqlEditor.h"
#include "ui/StorageChart.h"
#include "ui/SweepEditor.h"
#include "ui/Units.h"
#include "ui/UserGuide.h"
#include "ui/WhatIfPanel.h"

namespace blobbench {
namespace {

constexpr std::array kChartKinds = {ChartKind::TimeVsBytes, ChartKind::TimeVsRoundTrips, ChartKind::Phases,
                                    ChartKind::LiveThroughput, ChartKind::Sweep};

bool isProjectFile(const QString& path) {
    return path.endsWith(QLatin1String(".blobbench.json"), Qt::CaseInsensitive) ||
           path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
}

// The local project file of a drag, or empty.
QString droppedProject(const QMimeData* mime) {
    if (mime == nullptr || !mime->hasUrls())
        return {};
    for (const QUrl& url : mime->urls()) {
        if (url.isLocalFile() && isProjectFile(url.toLocalFile()))
            return url.toLocalFile();
    }
    return {};
}
}  // namespace

MainWindow::MainWindow(ProjectDocument* document, QWidget* parent)
    : QMainWindow(parent),
      m_document(document != nullptr ? document : new ProjectDocument(this)),
      m_controller(new RunController(this)),
      m_results(new ResultsModel(this)),
      m_resultsProxy(new QSortFilterProxyModel(this)),
      m_defaultDatasetPath(defaultSqlitePath()) {
    setObjectName(QStringLiteral("BlobBenchMainWindow"));
    if (document == nullptr) {
        m_document->reset(defaultProject(m_defaultDatasetPath));
    }
    m_resultsProxy->setSourceModel(m_results);
    m_resultsProxy->setSortRole(ResultsModel::SortRole);

    m_connections = new ConnectionController(m_document, m_controller, this);
    m_files = new DocumentController(m_document, this, [this] { return isRunning(); });
    m_files->setDefaultDatasetPath(m_defaultDatasetPath);
    buildActions();
    buildToolbar();

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 2, 4, 2);
    m_errorBanner = std::make_unique<ErrorBanner>(layout, central);
    connect(m_errorBanner->prepareOffer(), &QPushButton::clicked, this, &MainWindow::prepareDataset);

    m_topSplitter = new QSplitter(Qt::Horizontal);
    m_scenarios = new ScenarioPanel(m_document);
    m_topSplitter->addWidget(m_scenarios);
    m_topSplitter->addWidget(m_scenarios->sqlPanel());
    auto* parameterBox = new QWidget;
    auto* parameterLayout = new QVBoxLayout(parameterBox);
    parameterLayout->setContentsMargins(0, 0, 0, 0);
    m_parametersTitle = new QLabel(tr("<b>Parameters</b>"));
    parameterLayout->addWidget(m_parametersTitle);
    // What is not in effect, above the scrolled tunables: a laptop's column scrolls the notes
    // under the editors out of view.
    auto* notInEffect = new QLabel;
    notInEffect->setObjectName(QStringLiteral("notInEffectSummary"));
    notInEffect->setWordWrap(true);
    notInEffect->setStyleSheet(QStringLiteral("QLabel { color: #8a5a00; }"));
    notInEffect->hide();
    parameterLayout->addWidget(notInEffect);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* scrolled = new QWidget;
    auto* scrolledLayout = new QVBoxLayout(scrolled);
    scrolledLayout->setContentsMargins(0, 0, 0, 0);
    m_parameters = new ParameterPanel;
    connect(m_parameters, &ParameterPanel::notInEffectChanged, notInEffect, [notInEffect](const QString& summary) {
        notInEffect->setText(summary);
        notInEffect->setVisible(!summary.isEmpty());
    });
    scrolledLayout->addWidget(m_parameters);
    scrolledLayout->addStretch(1);
    scroll->setWidget(scrolled);
    parameterLayout->addWidget(scroll, 1);
    // Below the tunables, never scrolled away: the link matters as much as any of them (in a tab of
    // its own where the column is short: LinkPlacement).
    m_link = new LinkPanel;
    parameterLayout->addWidget(m_link);
    m_sideTabs = new QTabWidget;
    m_sideTabs->setObjectName(QStringLiteral("sideTabs"));
    m_sideTabs->setDocumentMode(true);
    m_sideTabs->addTab(parameterBox, tr("Parameters"));
    m_sweepEditor = new SweepEditor(m_document);
    m_sideTabs->addTab(m_sweepEditor, tr("Sweep"));
    m_linkPlacement = new LinkPlacement(m_sideTabs, parameterLayout, m_link);
    m_topSplitter->addWidget(m_sideTabs);
    m_topSplitter->setStretchFactor(0, 2);
    m_topSplitter->setStretchFactor(1, 5);
    m_topSplitter->setStretchFactor(2, 3);
    m_topSplitter->setSizes({260, 500, 540});

    m_bottomSplitter = new QSplitter(Qt::Horizontal);
    m_bottomTabs = new QTabWidget;
    m_bottomTabs->setObjectName(QStringLiteral("bottomTabs"));
    m_bottomTabs->setDocumentMode(true);
    m_bottomTabs->addTab(buildResultsPanel(), tr("Results"));
    m_history = new HistoryPanel(m_document);
    m_bottomTabs->addTab(m_history, tr("History"));
    m_bottomTabs->addTab(makeStoragePanel(m_document), tr("Storage"));
    m_bottomSplitter->addWidget(m_bottomTabs);
    m_log = new LogView;
    m_log->setObjectName(QStringLiteral("log"));
    m_log->setPlaceholderText(tr("Statements run and errors appear here."));
    m_bottomSplitter->addWidget(m_log);
    m_bottomSplitter->setSizes({800, 360});

    m_exports = new ExportController(
        m_document, m_results, m_table, [this] { return visibleChart(); }, this);
    m_exports->setLoadSource([this] { return shownLoads(); });
    m_mainSplitter = new QSplitter(Qt::Vertical);
    m_mainSplitter->addWidget(m_topSplitter);
    m_mainSplitter->addWidget(buildChartsPanel());
    m_mainSplitter->addWidget(m_bottomSplitter);
    m_mainSplitter->setStretchFactor(0, 3);
    m_mainSplitter->setStretchFactor(1, 4);
    m_mainSplitter->setStretchFactor(2, 2);
    m_mainSplitter->setSizes({260, 360, 200});
    layout->addWidget(m_mainSplitter, 1);
    setCentralWidget(central);

    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("runProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    m_progress->setMaximumWidth(360);
    m_progressText = new QLabel(tr("Ready"));
    m_progressText->setObjectName(QStringLiteral("runStatus"));
    // Text that changes 25 times a second must not ask the whole window for a new layout.
    // (a widget of fixed size never propagates its geometry changes to the layout).
    m_progressText->setFixedSize(520, m_progressText->sizeHint().height());
    statusBar()->addWidget(m_progress, 1);
    statusBar()->addWidget(m_progressText, 2);

    m_whatIf = new WhatIfPanel(m_results);
    m_whatIfDock = new QDockWidget(tr("What if the link were different"), this);
    m_whatIfDock->setObjectName(QStringLiteral("whatIfDock"));
    m_whatIfDock->setWidget(m_whatIf);
    addDockWidget(Qt::RightDockWidgetArea, m_whatIfDock);
    m_whatIfDock->hide();

    buildMenus();
    connectDocument();
    connectController();
    connectWhatIf();

    m_connections->refresh();
    refreshParameters();
    m_scenarios->setDriver(currentDriver());
    logEngineFollow(m_scenarios->followEngine(currentDriver(), false));
    reloadResults();
    applyChartSettings();
    setRunning(false);
    m_files->updateTitle();

    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(defaultWindowSize());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    if (m_document->project().whatIf.enabled)
        showWhatIf();  // predicted points in the charts: the dock that says so is in view
    m_mainSplitter->restoreState(settings.value(QStringLiteral("window/mainSplitter")).toByteArray());
    m_topSplitter->restoreState(settings.value(QStringLiteral("window/topSplitter")).toByteArray());
    m_bottomSplitter->restoreState(settings.value(QStringLiteral("window/bottomSplitter")).toByteArray());
    m_chartTabs->setCurrentIndex(settings.value(QStringLiteral("window/chartTab"), 0).toInt());
    setAcceptDrops(true);
    if (m_scenarios->count() > 0) {
        m_scenarios->setCurrentIndex(0);
    }
}

MainWindow::~MainWindow() {
    // The controller's destructor cancels and joins the worker thread before the views go away.
    delete m_controller;
    m_controller = nullptr;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!m_files->maybeKeepChanges()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/mainSplitter"), m_mainSplitter->saveState());
    settings.setValue(QStringLiteral("window/topSplitter"), m_topSplitter->saveState());
    settings.setValue(QStringLiteral("window/bottomSplitter"), m_bottomSplitter->saveState());
    settings.setValue(QStringLiteral("window/chartTab"), m_chartTabs->currentIndex());
    if (m_controller != nullptr && m_controller->isRunning()) {
        m_controller->stop();
    }
    QMainWindow::closeEvent(event);
}

// ---- building ---------------------------------------------------------------------------------

void MainWindow::buildActions() {
    m_runAction = new QAction(QIcon::fromTheme(QStringLiteral("media-playback-start")), tr("&Run"), this);
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setToolTip(tr("Run the selected scenario (Ctrl+R)"));
    connect(m_runAction, &QAction::triggered, this, &MainWindow::runCurrent);
    m_runAllAction = new QAction(QIcon::fromTheme(QStringLiteral("media-skip-forward")), tr("Run &all"), this);
    m_runAllAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    m_runAllAction->setToolTip(tr("Run every checked scenario (Ctrl+Shift+R)"));
    connect(m_runAllAction, &QAction::triggered, this, &MainWindow::runAll);
    m_stopAction = new QAction(QIcon::fromTheme(QStringLiteral("media-playback-stop")), tr("&Stop"), this);
    m_stopAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_stopAction->setToolTip(tr("Stop the run (Esc)"));
    connect(m_stopAction, &QAction::triggered, this, &MainWindow::stop);
    connect(m_connections->testAction(), &QAction::triggered, this, &MainWindow::testConnection);
    for (QAction* a : {m_runAction, m_runAllAction, m_stopAction}) {
        a->setShortcutContext(Qt::WindowShortcut);
        addAction(a);
    }
}

void MainWindow::buildToolbar() {
    auto* bar = addToolBar(tr("Run"));
    bar->setObjectName(QStringLiteral("runToolbar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    // Run, Run all and Stop come first: a narrow window pushes the end of a toolbar into its overflow
    // menu, and Stop must never hide there during a run.
    bar->addAction(m_runAction);
    bar->addAction(m_runAllAction);
    bar->addAction(m_stopAction);
    bar->addWidget(new QLabel(tr(" Repeat ")));
    m_repetitions = new QSpinBox;
    m_repetitions->setRange(1, 100000);
    m_repetitions->setToolTip(tr("Measured executions per scenario"));
    bar->addWidget(m_repetitions);
    bar->addSeparator();
    m_connections->addToToolbar(bar);
}

ReproduceWindow* MainWindow::openReproduce(const std::string& name) {
    const Publication* publication = findPublication(name);
    if (publication == nullptr)
        return nullptr;
    auto* window = new ReproduceWindow(
        *publication, m_document->project().connections,
        [this](const ConnectionProfile& c) { return m_connections->passwordFor(c); }, this);
    window->show();
    return window;
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New project"), QKeySequence::New, m_files, &DocumentController::newProject);
    file->addAction(tr("&Open project…"), QKeySequence::Open, m_files, &DocumentController::openProject);
    QMenu* recentFiles = file->addMenu(tr("Open &recent"));
    recentFiles->setObjectName(QStringLiteral("recentProjects"));
    m_files->setRecentFilesMenu(recentFiles);
    QMenu* presets = file->addMenu(tr("Open &preset"));
    presets->setObjectName(QStringLiteral("presetProjects"));
    m_files->fillPresetsMenu(presets);
    QMenu* reproduce = file->addMenu(tr("Reproduce a p&ublication"));
    reproduce->setObjectName(QStringLiteral("reproduceMenu"));
    for (const Publication& p : publications()) {
        QAction* action = reproduce->addAction(QString::fromStdString(p.name + "  -  " + p.summary), this,
                                               [this, name = p.name] { openReproduce(name); });
        action->setToolTip(QString::fromStdString(p.source.title));
    }
    file->addAction(tr("&Save project"), QKeySequence::Save, m_files, &DocumentController::saveProject);
    file->addAction(tr("Save project &as…"), QKeySequence::SaveAs, m_files, &DocumentController::saveProjectAs);
    file->addSeparator();
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    m_exports->addExportActions(exportMenu, true);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(tr("&Copy results"), QKeySequence::Copy, m_exports, &ExportController::copyResults);
    edit->addSeparator();
    edit->addAction(tr("&Add scenario"), m_scenarios, &ScenarioPanel::addScenario);
    edit->addAction(tr("&Duplicate scenario"), m_scenarios, &ScenarioPanel::duplicateScenario);
    edit->addAction(tr("&Rename scenario…"), QKeySequence(Qt::Key_F2), m_scenarios, &ScenarioPanel::renameScenario);
    edit->addAction(tr("Delete scenario"), m_scenarios, &ScenarioPanel::deleteScenario);
    edit->addSeparator();
    edit->addAction(tr("&New connection…"), m_connections, &ConnectionController::newConnection);
    edit->addAction(tr("&Edit connection…"), m_connections, &ConnectionController::editConnection);
    edit->addAction(tr("Delete connection"), m_connections, &ConnectionController::deleteConnection);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_runAction);
    run->addAction(m_runAllAction);
    run->addAction(m_stopAction);
    run->addAction(tr("Run s&weep"), this, [this] { runSweep(m_sweepEditor->currentSweep()); });
    run->addSeparator();
    run->addAction(m_connections->testAction());

    QMenu* connection = menuBar()->addMenu(tr("&Connection"));
    connection->addAction(m_connections->testAction());
    connection->addAction(tr("&Prepare data set…"), this, &MainWindow::prepareDataset)
        ->setObjectName(QStringLiteral("prepareDatasetAction"));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* logAction = view->addAction(tr("&Logarithmic axes"));
    logAction->setCheckable(true);
    connect(logAction, &QAction::toggled, m_logScale, &QCheckBox::setChecked);
    connect(m_logScale, &QCheckBox::toggled, logAction, &QAction::setChecked);
    for (int i = 0; i < m_chartTabs->count(); ++i) {
        view->addAction(m_chartTabs->tabText(i), this, [this, i] { m_chartTabs->setCurrentIndex(i); });
    }
    view->addSeparator();
    view->addAction(tr("S&weep editor"), this, &MainWindow::showSweepEditor);
    view->addAction(tr("&History"), this, &MainWindow::showHistory);
    QAction* whatIf = m_whatIfDock->toggleViewAction();
    whatIf->setText(tr("&What if (predict at another link)"));
    whatIf->setObjectName(QStringLiteral("whatIfAction"));
    view->addAction(whatIf);

    QMenu* shown = view->addMenu(tr("&Connections in the charts"));
    shown->setObjectName(QStringLiteral("chartConnectionsMenu"));
    connect(shown, &QMenu::aboutToShow, this, [this, shown] { fillChartConnectionsMenu(shown); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("&User guide"), QKeySequence::HelpContents, this, [this] {
        if (m_userGuide == nullptr)
            m_userGuide = new UserGuideWindow(this);
        m_userGuide->show();
        m_userGuide->raise();
        m_userGuide->activateWindow();
    });
    guide->setObjectName(QStringLiteral("userGuide"));
    // The window's own (floating docks included): an application-wide F1 in two windows is ambiguous,
    // and Qt then triggers neither.
    guide->setShortcutContext(Qt::WindowShortcut);
    help->addAction(tr("&About BlobBench"), this, [this] {
        QMessageBox::about(this, tr("About BlobBench"),
                           tr("<b>BlobBench %1</b><p>Measures how databases move large values over the wire: "
                              "elapsed time, rows, bytes and round trips, and how the engine's tunables change "
                              "them.</p>")
                               .arg(QLatin1String(BLOBBENCH_VERSION)));
    });
}

QWidget* MainWindow::buildChartsPanel() {
    m_chartTabs = new QTabWidget;
    m_chartTabs->setObjectName(QStringLiteral("charts"));
    m_chartTabs->setDocumentMode(true);
    const QStringList names = {tr("Time vs bytes"), tr("Time vs round trips"), tr("Phases"), tr("Live throughput"),
                               tr("Sweep")};
    for (std::size_t i = 0; i < kChartKinds.size(); ++i) {
        m_charts[i] = makeChart(kChartKinds[i], m_chartTabs);
        m_chartTabs->addTab(m_charts[i]->widget(), names[static_cast<int>(i)]);
    }
    m_loadChart = makeLoadChart(m_chartTabs);
    m_chartTabs->addTab(m_loadChart->widget(), tr("Load"));
    m_chartTabs->setTabToolTip(m_chartTabs->count() - 1,
                               tr("Runs of many sessions: throughput and p99 latency against sessions, and the "
                                  "latency percentiles of each point"));
    auto* corner = new QWidget;
    auto* cornerLayout = new QHBoxLayout(corner);
    cornerLayout->setContentsMargins(0, 0, 4, 0);
    m_logScale = new QCheckBox(tr("Log scale"));
    connect(m_logScale, &QCheckBox::toggled, this, [this](bool on) {
        for (auto& chart : m_charts)
            chart->setLogScale(on);
    });
    cornerLayout->addWidget(m_logScale);
    auto* exportButton = new QToolButton;
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(exportButton);
    m_exports->addExportActions(exportMenu, false);
    exportButton->setMenu(exportMenu);
    cornerLayout->addWidget(exportButton);
    m_chartTabs->setCornerWidget(corner, Qt::TopRightCorner);
    m_chartFlush = new QTimer(this);
    m_chartFlush->setSingleShot(true);
    m_chartFlush->setInterval(100);
    connect(m_chartFlush, &QTimer::timeout, this, [this] {
        flushChart(static_cast<std::size_t>(std::max(0, m_chartTabs->currentIndex())));
        flushLog();
    });
    connect(m_chartTabs, &QTabWidget::currentChanged, this, [this](int index) {
        if (index >= 0)
            flushChart(static_cast<std::size_t>(index));
    });
    return m_chartTabs;
}

QWidget* MainWindow::buildResultsPanel() {
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("results"));
    m_table->setModel(m_resultsProxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);  // arrival order until the user sorts
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setDefaultSectionSize(90);
    m_table->setColumnWidth(ResultsModel::Run, 150);
    m_table->setColumnWidth(ResultsModel::Scenario, 180);
    m_table->setColumnWidth(ResultsModel::Repetition, 44);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* copy = new QAction(tr("Copy"), m_table);
    connect(copy, &QAction::triggered, this, [this] { m_exports->copyResults(); });
    m_table->addAction(copy);
    return m_table;
}

// ---- document -> views ------------------------------------------------------------------------

void MainWindow::connectDocument() {
    connect(m_document, &ProjectDocument::projectReset, this, [this] {
        m_connections->refresh();
        refreshParameters();
        m_scenarios->setDriver(currentDriver());
        logEngineFollow(m_scenarios->followEngine(currentDriver(), false));
        m_hiddenRuns.clear();  // another project: its runs are all shown
        m_hiddenConnections.clear();
        reloadResults();
        applyChartSettings();
        // What the old project showed (its error, its server) is not this one's.
        clearError();
        m_connections->clearServerLabel();
        clearRunStatus();
        testInBackground();
    });
    connect(m_document, &ProjectDocument::connectionsChanged, this, [this] {
        m_connections->refresh();
        if (connectionNames() != m_shownConnectionNames)
            reloadResults();  // a renamed connection: its series' names follow
        if (m_applyingLink)
            return;  // the link group's own edit: it already shows it
        const Driver* driver = currentDriver();
        m_link->setProfile(m_document->project().current(), driver != nullptr && driver->networked(),
                           tr("%1 is embedded: there is no wire to tap or shape")
                               .arg(driver != nullptr ? qs(driver->displayName()) : tr("This engine")));
    });
    connect(m_document, &ProjectDocument::currentConnectionChanged, this, [this] {
        if (m_applyingLink)
            return;  // same engine, same tunables, same session: only the link changed
        m_connections->refresh();
        refreshParameters();
        m_scenarios->setDriver(currentDriver());
        logEngineFollow(m_scenarios->followEngine(currentDriver(), true));
        m_connections->clearServerLabel();
        m_appliedEffects.clear();
        clearRunStatus();
        testInBackground();
    });
    connect(m_document, &ProjectDocument::sampleAppended, this,
            [this](const QString&, const Sample& sample) { addSampleToViews(sample); });
    connect(m_document, &ProjectDocument::loadsAppended, this, [this] { reloadLoads(); });
    const auto logLine = [this](const QString& text, bool error) { log(text, error); };
    connect(m_connections, &ConnectionController::message, this, logLine);
    connect(m_files, &DocumentController::message, this, logLine);
    connect(m_exports, &ExportController::message, this, logLine);
    connect(m_exports, &ExportController::failed, this, &MainWindow::showError);
    connect(m_connections, &ConnectionController::failed, this, &MainWindow::showError);
    connect(m_files, &DocumentController::failed, this, &MainWindow::showError);
    connect(m_connections, &ConnectionController::errorCleared, this, &MainWindow::clearError);
    connect(m_connections, &ConnectionController::effectsReported, this, &MainWindow::applyEffects);
    connect(m_link, &LinkPanel::changed, this, &MainWindow::applyLinkEdit);
    connect(m_sweepEditor, &SweepEditor::runRequested, this, &MainWindow::runSweep);
    chart(ChartKind::TimeVsBytes)->onBytesAxisChosen([this](BytesAxis axis) {
        ChartSettings settings = m_exports->chartSettings();
        settings.bytesAxis = axis;
        m_exports->setChartSettings(settings);
    });
    connect(m_history, &HistoryPanel::compareRequested, this,
            [this](int base, int candidate) { compareRuns(base, candidate); });
    connect(m_parameters, &ParameterPanel::valueChanged, this, [this](const QString& id, const QString& value) {
        if (const ConnectionProfile* profile = m_document->project().current()) {
            m_document->setParameter(profile->engine, id, value);
        }
    });
}

void MainWindow::refreshParameters() {
    m_appliedEffects.clear();
    m_sweepEditor->setNotInEffect({});
    const Driver* driver = currentDriver();
    m_link->setProfile(m_document->project().current(), driver != nullptr && driver->networked(),
                       driver != nullptr
                           ? tr("%1 is embedded: there is no wire to tap or shape").arg(qs(driver->displayName()))
                           : tr("Unknown engine"));
    m_linkPlacement->updateTitle();
    m_sweepEditor->setSpecs(driver != nullptr ? driver->parameters() : std::vector<ParameterSpec>{});
    if (SampleChart* sweepChart = chart(ChartKind::Sweep))
        sweepChart->setParameterSpecs(driver != nullptr ? driver->parameters() : std::vector<ParameterSpec>{});
    if (driver == nullptr) {
        m_parameters->setSpecs({}, {});
        m_parametersTitle->setText(tr("<b>Parameters</b> (no engine)"));
        return;
    }
    const auto& all = m_document->project().parameters;
    const auto it = all.find(QString::fromStdString(driver->id()));
    m_parameters->setSpecs(driver->parameters(), it != all.end() ? it->second : ParameterValues{});
    m_parametersTitle->setText(tr("<b>Parameters</b> — %1").arg(qs(driver->displayName())));
}

// The series say "PostgreSQL 15", not the connection string, where one profile has the label.
std::map<std::string, QString> MainWindow::connectionNames() const {
    std::map<std::string, QString> names;
    std::set<std::string> shared;
    for (const ConnectionProfile& c : m_document->project().connections) {
        const std::string label = c.toSpec().label();
        if (!names.emplace(label, c.name).second && names[label] != c.name)
            shared.insert(label);  // two profiles of one label (another client library): the label
    }
    for (const std::string& label : shared)
        names.erase(label);
    return names;
}

void MainWindow::reloadResults() {
    std::vector<Sample> all;
    m_expectedRows.clear();
    for (const RunRecord& run : m_document->project().history) {
        for (const Sample& s : run.samples) {
            m_expectedRows[qs(s.scenarioId)] = s.rows;
            // Hidden from the views (View > Connections in the charts), never from the history.
            if (!m_hiddenRuns.contains(run.runId) && !m_hiddenConnections.contains(qs(s.connection)))
                all.push_back(s);
        }
    }
    const std::map<std::string, QString> names = connectionNames();
    m_shownConnectionNames = names;
    m_reloadingResults = true;  // the what-if follows once the charts hold the new samples
    m_results->setSamples(all);
    for (std::size_t i = 0; i < m_charts.size(); ++i) {
        m_charts[i]->setConnectionNames(names);
        m_pendingSamples[i].clear();
        m_charts[i]->setSamples(all);
    }
    m_reloadingResults = false;
    pushPredictions();
    reloadLoads();
}

void MainWindow::flushChart(std::size_t index) {
    if (index >= m_charts.size())
        return;  // the Load tab: drawn whole when its points arrive
    if (kChartKinds[index] == ChartKind::LiveThroughput) {
        for (const QPointF& p : m_pendingThroughput)
            m_charts[index]->addThroughput(p.x(), p.y());
        m_pendingThroughput.clear();
    }
    if (!m_pendingSamples[index].empty()) {
        std::vector<Sample> pending;
        pending.swap(m_pendingSamples[index]);
        m_charts[index]->addSamples(pending);
    }
    if (m_predictionsStale[index]) {
        m_predictionsStale[index] = false;
        const bool on = m_whatIf->settings().enabled;
        m_charts[index]->setPredicted(on ? m_whatIf->predictedMillis() : std::vector<double>{},
                                      on ? m_whatIf->predictionLabel() : QString());
    }
}

void MainWindow::flushCharts() {
    for (std::size_t i = 0; i < m_charts.size(); ++i) {
        flushChart(i);
    }
}

void MainWindow::applyEffects(const std::vector<ParameterEffect>& effects) {
    QString key;
    for (const ParameterEffect& e : effects) {
        if (!e.inEffect)
            key += qs(e.id) + QLatin1Char('\x1f') + qs(e.reason) + QLatin1Char('\x1e');
    }
    if (key != m_appliedEffects) {
        m_appliedEffects = key;
        m_parameters->setEffects(effects);
        QMap<QString, QString> off;
        for (const ParameterEffect& e : effects) {
            if (!e.inEffect)
                off.insert(qs(e.id), readableEffectReason(qs(e.reason)));
        }
        m_sweepEditor->setNotInEffect(off);
    }
}

void MainWindow::addSampleToViews(const Sample& sample) {
    m_results->addSample(sample);
    // Charts relayout on every change, which costs milliseconds: samples that arrive in a burst are
    // drawn together, so the UI thread stays free for input during a run.
    for (std::size_t i = 0; i < m_charts.size(); ++i) {
        if (kChartKinds[i] != ChartKind::LiveThroughput)
            m_pendingSamples[i].push_back(sample);
    }
    if (!m_chartFlush->isActive())
        m_chartFlush->start();
    if (sample.status == SampleStatus::Complete) {
        m_expectedRows[qs(sample.scenarioId)] = sample.rows;
    }
    applyEffects(sample.effects);
    const QString figures = tr("%1 #%2: %3 rows, %4 in %5")
                                .arg(qs(sample.scenarioTitle))
                                .arg(sample.repetition + 1)
                                .arg(formatCount(sample.rows), formatBytes(static_cast<double>(sample.contentBytes)),
                                     formatMillis(static_cast<double>(sample.phases.elapsed().count()) / 1e6));
    if (sample.status == SampleStatus::Complete) {
        log(figures);
    } else if (sample.status == SampleStatus::Failed) {
        log(tr("%1 #%2 failed: %3").arg(qs(sample.scenarioTitle)).arg(sample.repetition + 1).arg(qs(sample.error)),
            true);
    }
}

// ---- scenarios (ui/ScenarioPanel) -------------------------------------------------------------

int MainWindow::currentScenarioIndex() const {
    return m_scenarios->currentIndex();
}

// ---- connections (ui/ConnectionController) ----------------------------------------------------

void MainWindow::testConnection() {
    m_connections->testConnection(m_parameters->values());
}

const Driver* MainWindow::currentDriver() const {
    return m_connections->currentDriver();
}

// ---- running: ui/MainWindowRuns.cpp ----------------------------------------------------------

void MainWindow::setRepetitions(int repetitions) {
    m_repetitions->setValue(repetitions);
}

void MainWindow::setDefaultDataset(const QString& path, quint64 rows) {
    m_defaultDatasetPath = path;
    m_defaultDatasetRows = rows;
    m_files->setDefaultDatasetPath(path);
}

void MainWindow::showSweepEditor() {
    m_sideTabs->setCurrentWidget(m_sweepEditor);
}

void MainWindow::showHistory() {
    m_bottomTabs->setCurrentWidget(m_history);
}

CompareDialog* MainWindow::compareRuns(int baseIndex, int candidateIndex) {
    const auto& history = m_document->project().history;
    const int n = static_cast<int>(history.size());
    if (baseIndex < 0 || candidateIndex < 0 || baseIndex >= n || candidateIndex >= n || baseIndex == candidateIndex) {
        showError(tr("Compare needs two different runs of the history."));
        return nullptr;
    }
    delete m_compareDialog;
    m_compareDialog = new CompareDialog(history[static_cast<std::size_t>(baseIndex)],
                                        history[static_cast<std::size_t>(candidateIndex)], this);
    m_compareDialog->show();
    log(tr("Compared %1 (base) with %2: %n row(s)", nullptr, static_cast<int>(m_compareDialog->rows().size()))
            .arg(history[static_cast<std::size_t>(baseIndex)].runId,
                 history[static_cast<std::size_t>(candidateIndex)].runId));
    return m_compareDialog;
}

void MainWindow::showChart(ChartKind kind) {
    for (std::size_t i = 0; i < kChartKinds.size(); ++i) {
        if (kChartKinds[i] == kind)
            m_chartTabs->setCurrentIndex(static_cast<int>(i));
    }
}

SampleChart* MainWindow::chart(ChartKind kind) const {
    for (std::size_t i = 0; i < kChartKinds.size(); ++i) {
        if (kChartKinds[i] == kind)
            return m_charts[i].get();
    }
    return nullptr;
}

// ---- errors and log ---------------------------------------------------------------------------

void MainWindow::showError(const QString& message) {
    m_errorBanner->show(message);
    log(message, true);
}

void MainWindow::clearError() {
    m_errorBanner->clear();
}

QString MainWindow::errorText() const {
    return m_errorBanner->text();
}

void MainWindow::log(const QString& text, bool error) {
    const QString time = QTime::currentTime().toString(QStringLiteral("HH:mm:ss.zzz"));
    const QString line = time + QLatin1Char(' ') + boundedLogLine(text).toHtmlEscaped();
    m_pendingLog << (error ? QStringLiteral("<span style=\"color:#c0392b\">") + line + QStringLiteral("</span>")
                           : line);
    // During a run, lines are appended together every 100 ms: each append relayouts and repaints
    // the log. Otherwise at once.
    if (isRunning()) {
        if (!m_chartFlush->isActive())
            m_chartFlush->start();
    } else {
        flushLog();
    }
}

void MainWindow::flushLog() {
    m_log->appendLines(m_pendingLog);
    m_pendingLog.clear();
}

// Most of the screen's available area (a laptop's 1366x768 gets about 1280x690, not Qt's 2/3),
// at most 1700x1050 on a large screen.
QSize MainWindow::defaultWindowSize() const {
    const QScreen* where = screen() != nullptr ? screen() : QGuiApplication::primaryScreen();
    if (where == nullptr)
        return {1280, 860};
    const QSize available = where->availableGeometry().size();
    return {std::min(1700, available.width() * 94 / 100), std::min(1050, available.height() * 92 / 100)};
}

// ---- drops and exports (ui/ExportController) --------------------------------------------------

ExportController::VisibleChart MainWindow::visibleChart() {
    const int index = std::max(0, m_chartTabs->currentIndex());
    flushChart(static_cast<std::size_t>(index));
    QWidget* shown = static_cast<std::size_t>(index) < m_charts.size()
                         ? m_charts[static_cast<std::size_t>(index)]->widget()
                         : m_chartTabs->widget(index);
    return {shown, m_chartTabs->tabText(index)};
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedProject(event->mimeData()).isEmpty()) {
        event->acceptProposedAction();
        return;
    }
    QMainWindow::dragEnterEvent(event);
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = droppedProject(event->mimeData());
    if (path.isEmpty()) {
        QMainWindow::dropEvent(event);
        return;
    }
    event->acceptProposedAction();
    // After the drop returns: a modal question inside the drag's event would hold the source.
    QTimer::singleShot(0, this, [this, path] { m_files->openDroppedFile(path); });
}

// The connections of the history's samples, each shown or hidden in the results and charts, and
// "Clear the charts": the runs so far leave the views, the history keeps them (#30).
void MainWindow::fillChartConnectionsMenu(QMenu* menu) {
    menu->clear();
    QStringList connections;
    for (const RunRecord& run : m_document->project().history) {
        for (const Sample& s : run.samples) {
            if (!connections.contains(qs(s.connection)))
                connections << qs(s.connection);
        }
    }
    if (connections.isEmpty())
        menu->addAction(tr("(no runs yet)"))->setEnabled(false);
    for (const QString& connection : connections) {
        QAction* a = menu->addAction(connectionText(connection.toStdString()));
        a->setCheckable(true);
        a->setChecked(!m_hiddenConnections.contains(connection));
        a->setData(connection);
        connect(a, &QAction::toggled, this, [this, connection](bool on) {
            if (on)
                m_hiddenConnections.remove(connection);
            else
                m_hiddenConnections.insert(connection);
            reloadResults();
        });
    }
    menu->addSeparator();
    QAction* clear = menu->addAction(tr("Clear the charts (the history keeps the runs)"), this, [this] {
        for (const RunRecord& run : m_document->project().history)
            m_hiddenRuns.insert(run.runId);
        reloadResults();
    });
    clear->setObjectName(QStringLiteral("clearChartsAction"));
    QAction* all = menu->addAction(tr("Show every run"), this, [this] {
        m_hiddenRuns.clear();
        m_hiddenConnections.clear();
        reloadResults();
    });
    all->setObjectName(QStringLiteral("showAllRunsAction"));
}

// "Stopped", "Failed", "Done: …" speak of the last run: not of another project or connection.
void MainWindow::clearRunStatus() {
    if (isRunning())
        return;
    m_progress->setValue(0);
    m_progressText->setText(tr("Ready"));
}

void MainWindow::applyChartSettings() {
    chart(ChartKind::TimeVsBytes)->setBytesAxis(m_exports->chartSettings().bytesAxis);
}

}  // namespace blobbench