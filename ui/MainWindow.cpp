#include "ui/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDesktopServices>
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
#include <QListWidget>
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

#include "engine/core/Error.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "model/EngineScenarios.h"
#include "model/Presets.h"
#include "model/ProjectFile.h"
#include "model/SampleJson.h"
#include "ui/ChartSettings.h"
#include "ui/ConnectionController.h"
#include "ui/DocumentController.h"
#include "ui/ExportSizeDialog.h"
#include "ui/HistoryPanel.h"
#include "ui/LinkPanel.h"
#include "ui/LogView.h"
#include "ui/ParameterPanel.h"
#include "ui/PrepareDialog.h"
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
    m_errorBanner = new QLabel(central);
    m_errorBanner->setObjectName(QStringLiteral("errorBanner"));
    m_errorBanner->setWordWrap(true);
    m_errorBanner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errorBanner->setStyleSheet(
        QStringLiteral("QLabel { background: #fde2e1; color: #7a1712; border: 1px solid #e5a29e; border-radius: 3px; "
                       "padding: 4px; }"));
    m_errorBanner->hide();
    layout->addWidget(m_errorBanner);
    m_prepareOffer = new QPushButton(tr("Prepare data set…"), central);
    m_prepareOffer->setObjectName(QStringLiteral("prepareOffer"));
    m_prepareOffer->hide();
    connect(m_prepareOffer, &QPushButton::clicked, this, &MainWindow::prepareDataset);
    layout->addWidget(m_prepareOffer, 0, Qt::AlignLeft);

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
    // Below the tunables, never scrolled away: the link matters as much as any of them.
    m_link = new LinkPanel;
    parameterLayout->addWidget(m_link);
    m_sideTabs = new QTabWidget;
    m_sideTabs->setObjectName(QStringLiteral("sideTabs"));
    m_sideTabs->setDocumentMode(true);
    m_sideTabs->addTab(parameterBox, tr("Parameters"));
    m_sweepEditor = new SweepEditor(m_document);
    m_sideTabs->addTab(m_sweepEditor, tr("Sweep"));
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
    if (scenarioList()->count() > 0) {
        scenarioList()->setCurrentRow(0);
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

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New project"), QKeySequence::New, this, &MainWindow::newProject);
    file->addAction(tr("&Open project…"), QKeySequence::Open, this, &MainWindow::openProject);
    QMenu* recentFiles = file->addMenu(tr("Open &recent"));
    recentFiles->setObjectName(QStringLiteral("recentProjects"));
    m_files->setRecentFilesMenu(recentFiles);
    QMenu* presets = file->addMenu(tr("Open &preset"));
    presets->setObjectName(QStringLiteral("presetProjects"));
    m_files->fillPresetsMenu(presets);
    file->addAction(tr("&Save project"), QKeySequence::Save, this, &MainWindow::saveProject);
    file->addAction(tr("Save project &as…"), QKeySequence::SaveAs, this, &MainWindow::saveProjectAs);
    file->addSeparator();
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    exportMenu->addAction(tr("Chart as &PNG…"), this, [this] { askAndExportChart(false); });
    exportMenu->addAction(tr("Chart as &SVG…"), this, [this] { askAndExportChart(true); });
    exportMenu->addAction(tr("Results as &CSV…"), this, [this] {
        const QString path = askSavePath(tr("Export results"), tr("CSV (*.csv)"), QStringLiteral("csv"));
        if (!path.isEmpty())
            exportResultsCsv(path);
    });
    exportMenu->addAction(tr("Results as &JSON…"), this, [this] {
        const QString path = askSavePath(tr("Export results"), tr("JSON (*.json)"), QStringLiteral("json"));
        if (!path.isEmpty())
            exportResultsJson(path);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(tr("&Copy results"), QKeySequence::Copy, this, &MainWindow::copyResults);
    edit->addSeparator();
    edit->addAction(tr("&Add scenario"), this, &MainWindow::addScenario);
    edit->addAction(tr("&Duplicate scenario"), this, &MainWindow::duplicateScenario);
    edit->addAction(tr("&Rename scenario…"), QKeySequence(Qt::Key_F2), this, &MainWindow::renameScenario);
    edit->addAction(tr("Delete scenario"), this, &MainWindow::deleteScenario);
    edit->addSeparator();
    edit->addAction(tr("&New connection…"), this, &MainWindow::newConnection);
    edit->addAction(tr("&Edit connection…"), this, &MainWindow::editConnection);
    edit->addAction(tr("Delete connection"), this, &MainWindow::deleteConnection);

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

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("&User guide"), QKeySequence::HelpContents, this, [this] {
        const QString path = userGuidePath();
        if (path.isEmpty()) {
            showError(tr("The user guide is not installed: looked for %1.")
                          .arg(userGuideCandidates().join(QStringLiteral(", "))));
            return;
        }
        if (!QDesktopServices::openUrl(QUrl::fromLocalFile(path)))
            showError(tr("No program to open %1 was found.").arg(path));
    });
    guide->setObjectName(QStringLiteral("userGuide"));
    guide->setShortcutContext(Qt::ApplicationShortcut);
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
    exportMenu->addAction(tr("Chart as PNG…"), this, [this] { askAndExportChart(false); });
    exportMenu->addAction(tr("Chart as SVG…"), this, [this] { askAndExportChart(true); });
    exportMenu->addAction(tr("Results as CSV…"), this, [this] {
        const QString path = askSavePath(tr("Export results"), tr("CSV (*.csv)"), QStringLiteral("csv"));
        if (!path.isEmpty())
            exportResultsCsv(path);
    });
    exportMenu->addAction(tr("Results as JSON…"), this, [this] {
        const QString path = askSavePath(tr("Export results"), tr("JSON (*.json)"), QStringLiteral("json"));
        if (!path.isEmpty())
            exportResultsJson(path);
    });
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
    connect(copy, &QAction::triggered, this, &MainWindow::copyResults);
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
        reloadResults();
        applyChartSettings();
        // What the old project showed (its error, its server) is not this one's.
        clearError();
        m_connections->clearServerLabel();
        testInBackground();
    });
    connect(m_document, &ProjectDocument::connectionsChanged, this, [this] {
        m_connections->refresh();
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
        testInBackground();
    });
    connect(m_document, &ProjectDocument::sampleAppended, this,
            [this](const QString&, const Sample& sample) { addSampleToViews(sample); });
    const auto logLine = [this](const QString& text, bool error) { log(text, error); };
    connect(m_connections, &ConnectionController::message, this, logLine);
    connect(m_files, &DocumentController::message, this, logLine);
    connect(m_connections, &ConnectionController::failed, this, &MainWindow::showError);
    connect(m_files, &DocumentController::failed, this, &MainWindow::showError);
    connect(m_connections, &ConnectionController::errorCleared, this, &MainWindow::clearError);
    connect(m_connections, &ConnectionController::effectsReported, this, &MainWindow::applyEffects);
    connect(m_link, &LinkPanel::changed, this, &MainWindow::applyLinkEdit);
    connect(m_sweepEditor, &SweepEditor::runRequested, this, &MainWindow::runSweep);
    chart(ChartKind::TimeVsBytes)->onBytesAxisChosen([this](BytesAxis axis) {
        ChartSettings settings = chartSettings();
        settings.bytesAxis = axis;
        setChartSettings(settings);
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

void MainWindow::reloadResults() {
    std::vector<Sample> all;
    for (const RunRecord& run : m_document->project().history) {
        all.insert(all.end(), run.samples.begin(), run.samples.end());
    }
    m_expectedRows.clear();
    for (const Sample& s : all) {
        m_expectedRows[qs(s.scenarioId)] = s.rows;
    }
    m_reloadingResults = true;  // the what-if follows once the charts hold the new samples
    m_results->setSamples(all);
    for (std::size_t i = 0; i < m_charts.size(); ++i) {
        m_pendingSamples[i].clear();
        m_charts[i]->setSamples(all);
    }
    m_reloadingResults = false;
    pushPredictions();
}

void MainWindow::flushChart(std::size_t index) {
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

void MainWindow::addScenario() {
    m_scenarios->addScenario();
}

void MainWindow::duplicateScenario() {
    m_scenarios->duplicateScenario();
}

void MainWindow::renameScenario() {
    m_scenarios->renameScenario();
}

void MainWindow::moveScenarioUp() {
    m_scenarios->moveScenarioUp();
}

void MainWindow::moveScenarioDown() {
    m_scenarios->moveScenarioDown();
}

void MainWindow::deleteScenario() {
    m_scenarios->deleteScenario();
}

QListWidget* MainWindow::scenarioList() const {
    return m_scenarios->list();
}

SqlEditor* MainWindow::sqlEditor() const {
    return m_scenarios->sqlEditor();
}

SqlEditor* MainWindow::setupEditor() const {
    return m_scenarios->setupEditor();
}

int MainWindow::currentScenarioIndex() const {
    return m_scenarios->currentIndex();
}

// ---- connections (ui/ConnectionController) ----------------------------------------------------

void MainWindow::newConnection() {
    m_connections->newConnection();
}

void MainWindow::editConnection() {
    m_connections->editConnection();
}

void MainWindow::deleteConnection() {
    m_connections->deleteConnection();
}

void MainWindow::testConnection() {
    m_connections->testConnection(m_parameters->values());
}

QString MainWindow::passwordFor(const ConnectionProfile& profile) {
    return m_connections->passwordFor(profile);
}

void MainWindow::rememberPassword(const ConnectionProfile& profile, const QString& password, bool remember) {
    m_connections->rememberPassword(profile, password, remember);
}

void MainWindow::setPasswordPrompt(PasswordPrompt prompt) {
    m_connections->setPasswordPrompt(std::move(prompt));
}

void MainWindow::setKeyring(const Keyring& keyring) {
    m_connections->setKeyring(keyring);
}

QString MainWindow::keyringNotice() const {
    return m_connections->keyringNotice();
}

const Driver* MainWindow::currentDriver() const {
    return m_connections->currentDriver();
}

// ---- running ----------------------------------------------------------------------------------

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
    plan.connection = profile->toSpec(passwordFor(*profile));
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
    if (check != nullptr && !check->point.empty()) {
        request.points = {SweepPoint{0, check->point}};  // the parameter set's own values, as its sweep ran them
    }
    m_checkingLink = check != nullptr;
    const QString defaultTarget = QStringLiteral("sqlite:") + m_defaultDatasetPath;
    if (profile->engine == QLatin1String("sqlite") && profile->target == defaultTarget) {
        request.prepareDatasetAt = m_defaultDatasetPath;
        request.prepareRows = m_defaultDatasetRows;
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
            .arg(record.runId, qs(plan.connection.label()))
            .arg(plan.repetitions));
    if (plan.wireTap) {
        log(tr("Link: %1").arg(linkText(link)));
    }
    if (!request.points.empty()) {
        log(tr("Sweep “%1”: %n point(s)", nullptr, static_cast<int>(request.points.size())).arg(record.sweepName));
        showChart(ChartKind::Sweep);
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
    const ConnectionSpec spec = profile->toSpec(passwordFor(*profile));
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

namespace {

// A server's error can be one unbroken word of any length (hostile round 4: 20,000 characters made
// the window 141,912 px wide; 200,000 took 8.6 GB): the banner shows its start, with a break
// opportunity every 80 characters, and the log at most 4,000 characters of a line. The whole
// message stays in the sample (results, history, exports).
constexpr qsizetype kBannerChars = 600;
constexpr qsizetype kLogLineChars = 4000;

QString shortened(const QString& text, qsizetype most) {
    if (text.size() <= most)
        return text;
    return text.left(most) + QObject::tr("… (%n more character(s))", nullptr, static_cast<int>(text.size() - most));
}

QString breakable(const QString& text) {
    QString out;
    out.reserve(text.size() + text.size() / 80);
    qsizetype run = 0;
    for (const QChar c : text) {
        run = c.isSpace() ? 0 : run + 1;
        out += c;
        if (run == 80) {
            out += QChar(0x200B);  // zero-width space: a place to wrap
            run = 0;
        }
    }
    return out;
}

}  // namespace

void MainWindow::showError(const QString& message) {
    m_errorMessage = message;
    m_errorBanner->setText(breakable(shortened(message, kBannerChars)));
    m_errorBanner->show();
    m_prepareOffer->setVisible(errorOffersPrepare(message));
    log(message, true);
}

void MainWindow::clearError() {
    m_errorMessage.clear();
    m_errorBanner->clear();
    m_errorBanner->hide();
    m_prepareOffer->hide();
}

QString MainWindow::errorText() const {
    return m_errorBanner->isVisible() ? m_errorMessage : QString();
}

void MainWindow::log(const QString& text, bool error) {
    const QString time = QTime::currentTime().toString(QStringLiteral("HH:mm:ss.zzz"));
    const QString line = time + QLatin1Char(' ') + breakable(shortened(text, kLogLineChars)).toHtmlEscaped();
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

// ---- files (ui/DocumentController) and exports ------------------------------------------------

void MainWindow::newProject() {
    m_files->newProject();
}

void MainWindow::openProject() {
    m_files->openProject();
}

bool MainWindow::openProjectFile(const QString& path) {
    return m_files->openProjectFile(path);
}

bool MainWindow::saveProjectTo(const QString& path) {
    return m_files->saveProjectTo(path);
}

void MainWindow::saveProject() {
    m_files->saveProject();
}

void MainWindow::saveProjectAs() {
    m_files->saveProjectAs();
}

QStringList MainWindow::recentProjects() const {
    return m_files->recentProjects();
}

bool MainWindow::openRecentProject(const QString& path) {
    return m_files->openRecentProject(path);
}

bool MainWindow::openDroppedFile(const QString& path) {
    return m_files->openDroppedFile(path);
}

void MainWindow::setSuppressUnsavedPrompt(bool suppress) {
    m_files->setSuppressUnsavedPrompt(suppress);
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
    QTimer::singleShot(0, this, [this, path] { openDroppedFile(path); });
}

QString MainWindow::askSavePath(const QString& title, const QString& filter, const QString& suffix) {
    return DocumentController::askSavePath(this, title, filter, suffix);
}

void MainWindow::askAndExportChart(bool svg) {
    const QString path = svg ? askSavePath(tr("Export chart"), tr("SVG image (*.svg)"), QStringLiteral("svg"))
                             : askSavePath(tr("Export chart"), tr("PNG image (*.png)"), QStringLiteral("png"));
    if (path.isEmpty())
        return;
    if (const auto size = askExportSize(this, chartSettings().exportSize))
        exportChart(path, *size);
}

ChartSettings MainWindow::chartSettings() const {
    return readChartSettings(m_document->project().chartSettings);
}

void MainWindow::setChartSettings(const ChartSettings& settings) {
    m_document->setChartSettings(writeChartSettings(m_document->project().chartSettings, settings));
}

void MainWindow::applyChartSettings() {
    chart(ChartKind::TimeVsBytes)->setBytesAxis(chartSettings().bytesAxis);
}

bool MainWindow::exportChart(const QString& path) {
    return exportChart(path, chartSettings().exportSize);
}

bool MainWindow::exportChart(const QString& path, QSize size) {
    ChartSettings settings = chartSettings();
    if (settings.exportSize != size) {
        settings.exportSize = size;
        setChartSettings(settings);  // offered next time, and saved with the project
    }
    const int index = m_chartTabs->currentIndex();
    flushChart(static_cast<std::size_t>(index));
    QWidget* widget = m_charts[static_cast<std::size_t>(index)]->widget();
    try {
        if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
            exportChartSvg(widget, path, m_chartTabs->tabText(index), size);
        } else {
            exportChartPng(widget, path, size);
        }
    } catch (const Error& e) {
        showError(qs(e.what()));
        return false;
    }
    log(tr("Chart written to %1 (%2 x %3)").arg(path).arg(size.width()).arg(size.height()));
    return true;
}

bool MainWindow::exportResultsCsv(const QString& path) {
    try {
        writeSamplesCsv(path, m_results->samples());
    } catch (const Error& e) {
        showError(qs(e.what()));
        return false;
    }
    log(tr("%n sample(s) written to %1", nullptr, m_results->rowCount()).arg(path));
    return true;
}

bool MainWindow::exportResultsJson(const QString& path) {
    SessionInfo session;
    if (!m_results->samples().empty()) {
        const Sample& last = m_results->samples().back();
        session.engine = last.engine;
        session.serverVersion = last.serverVersion;
        session.clientVersion = last.clientVersion;
        session.negotiated = last.negotiated;
        session.effects = last.effects;
    }
    try {
        writeSamplesJson(path, session, m_results->samples());
    } catch (const Error& e) {
        showError(qs(e.what()));
        return false;
    }
    log(tr("%n sample(s) written to %1", nullptr, m_results->rowCount()).arg(path));
    return true;
}

void MainWindow::copyResults() {
    QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        for (int r = 0; r < m_resultsProxy->rowCount(); ++r)
            rows << m_resultsProxy->index(r, 0);
    }
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    QStringList lines;
    QStringList header;
    for (int c = 0; c < ResultsModel::ColumnCount; ++c) {
        header << m_resultsProxy->headerData(c, Qt::Horizontal).toString();
    }
    lines << header.join(QLatin1Char('\t'));
    for (const QModelIndex& row : rows) {
        QStringList cells;
        for (int c = 0; c < ResultsModel::ColumnCount; ++c) {
            cells << m_resultsProxy->index(row.row(), c).data().toString().replace(QLatin1Char('\t'), QLatin1Char(' '));
        }
        lines << cells.join(QLatin1Char('\t'));
    }
    QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')) + QLatin1Char('\n'));
}

}  // namespace blobbench