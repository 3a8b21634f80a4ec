#include "ui/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
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
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QRandomGenerator>
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
#include "model/Presets.h"
#include "model/ProjectFile.h"
#include "model/SampleJson.h"
#include "ui/ConnectionDialog.h"
#include "ui/HistoryPanel.h"
#include "ui/LinkPanel.h"
#include "ui/ParameterPanel.h"
#include "ui/ResultsModel.h"
#include "ui/SqlEditor.h"
#include "ui/StorageChart.h"
#include "ui/SweepEditor.h"
#include "ui/Units.h"

namespace blobbench {
namespace {

constexpr int kMaxRecent = 8;
constexpr int kMaxRecentFiles = 8;
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

QString uniqueScenarioId(const Project& project, const QString& base) {
    QString id = base;
    for (int n = 2;; ++n) {
        const bool taken = std::any_of(project.scenarios.begin(), project.scenarios.end(),
                                       [&](const ScenarioDef& s) { return s.id == id; });
        if (!taken) {
            return id;
        }
        id = base + QLatin1Char('-') + QString::number(n);
    }
}

QString sessionSummary(const SessionInfo& info) {
    QString text = qs(info.engine) + QLatin1Char(' ');
    text += info.embedded ? QObject::tr("%1 (embedded)").arg(qs(info.clientVersion))
                          : QObject::tr("server %1, client %2").arg(qs(info.serverVersion), qs(info.clientVersion));
    QStringList negotiated;
    for (const auto& [key, value] : info.negotiated) {
        negotiated << qs(key) + QLatin1Char('=') + qs(value);
    }
    text += QStringLiteral(" · ") + (negotiated.isEmpty()
                                         ? QObject::tr("nothing negotiated")
                                         : QObject::tr("negotiated: %1").arg(negotiated.join(QStringLiteral(", "))));
    return text;
}

}  // namespace

MainWindow::MainWindow(ProjectDocument* document, QWidget* parent)
    : QMainWindow(parent),
      m_document(document != nullptr ? document : new ProjectDocument(this)),
      m_controller(new RunController(this)),
      m_results(new ResultsModel(this)),
      m_resultsProxy(new QSortFilterProxyModel(this)),
      m_defaultDatasetPath(defaultSqlitePath()) {
    setWindowTitle(tr("BlobBench"));
    setObjectName(QStringLiteral("BlobBenchMainWindow"));
    if (document == nullptr) {
        m_document->reset(defaultProject(m_defaultDatasetPath));
    }
    m_resultsProxy->setSourceModel(m_results);
    m_resultsProxy->setSortRole(ResultsModel::SortRole);

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

    m_topSplitter = new QSplitter(Qt::Horizontal);
    m_topSplitter->addWidget(buildScenarioPanel());
    m_topSplitter->addWidget(buildSqlPanel());
    auto* parameterBox = new QWidget;
    auto* parameterLayout = new QVBoxLayout(parameterBox);
    parameterLayout->setContentsMargins(0, 0, 0, 0);
    m_parametersTitle = new QLabel(tr("<b>Parameters</b>"));
    parameterLayout->addWidget(m_parametersTitle);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* scrolled = new QWidget;
    auto* scrolledLayout = new QVBoxLayout(scrolled);
    scrolledLayout->setContentsMargins(0, 0, 0, 0);
    m_parameters = new ParameterPanel;
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
    m_log = new QPlainTextEdit;
    m_log->setObjectName(QStringLiteral("log"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
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

    buildMenus();
    connectDocument();
    connectController();

    refreshConnections();
    refreshParameters();
    refreshScenarioList();
    refreshTemplates();
    reloadResults();
    setRunning(false);

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_mainSplitter->restoreState(settings.value(QStringLiteral("window/mainSplitter")).toByteArray());
    m_topSplitter->restoreState(settings.value(QStringLiteral("window/topSplitter")).toByteArray());
    m_bottomSplitter->restoreState(settings.value(QStringLiteral("window/bottomSplitter")).toByteArray());
    m_chartTabs->setCurrentIndex(settings.value(QStringLiteral("window/chartTab"), 0).toInt());
    refreshRecentMenu();
    refreshRecentFilesMenu();
    setAcceptDrops(true);
    if (m_scenarioList->count() > 0) {
        m_scenarioList->setCurrentRow(0);
    }
}

MainWindow::~MainWindow() {
    // The controller's destructor cancels and joins the worker thread before the views go away.
    delete m_controller;
    m_controller = nullptr;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeKeepChanges()) {
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
    m_testAction = new QAction(tr("&Test"), this);
    m_testAction->setToolTip(tr("Connect in the background and show versions and what was negotiated"));
    connect(m_testAction, &QAction::triggered, this, &MainWindow::testConnection);
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
    bar->addWidget(new QLabel(tr(" Connection: ")));
    m_connections = new QComboBox;
    m_connections->setObjectName(QStringLiteral("connections"));
    m_connections->setMinimumContentsLength(28);
    m_connections->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    connect(m_connections, &QComboBox::activated, this, [this](int index) { m_document->setCurrentConnection(index); });
    bar->addWidget(m_connections);
    bar->addAction(m_testAction);
    auto* edit = new QToolButton;
    edit->setText(tr("Edit…"));
    edit->setPopupMode(QToolButton::MenuButtonPopup);
    auto* connectionMenu = new QMenu(edit);
    connectionMenu->addAction(tr("&New connection…"), this, &MainWindow::newConnection);
    connectionMenu->addAction(tr("&Edit connection…"), this, &MainWindow::editConnection);
    connectionMenu->addAction(tr("&Delete connection"), this, &MainWindow::deleteConnection);
    m_recentMenu = connectionMenu->addMenu(tr("&Recent connections"));
    edit->setMenu(connectionMenu);
    connect(edit, &QToolButton::clicked, this, &MainWindow::editConnection);
    bar->addWidget(edit);
    m_connectionInfo = new QLabel;
    m_connectionInfo->setObjectName(QStringLiteral("connectionInfo"));
    m_connectionInfo->setContentsMargins(8, 0, 8, 0);
    m_connectionInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(m_connectionInfo);
    auto* spacer = new QWidget;
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    bar->addWidget(spacer);
    bar->addWidget(new QLabel(tr("Repeat ")));
    m_repetitions = new QSpinBox;
    m_repetitions->setRange(1, 100000);
    m_repetitions->setToolTip(tr("Measured executions per scenario"));
    bar->addWidget(m_repetitions);
    bar->addAction(m_runAction);
    bar->addAction(m_runAllAction);
    bar->addAction(m_stopAction);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New project"), QKeySequence::New, this, &MainWindow::newProject);
    file->addAction(tr("&Open project…"), QKeySequence::Open, this, &MainWindow::openProject);
    m_recentFilesMenu = file->addMenu(tr("Open &recent"));
    m_recentFilesMenu->setObjectName(QStringLiteral("recentProjects"));
    // The shipped presets (installed or in the source tree), opened as a new, unsaved project.
    QMenu* presets = file->addMenu(tr("Open &preset"));
    presets->setObjectName(QStringLiteral("presetProjects"));
    connect(presets, &QMenu::aboutToShow, this, [this, presets] {
        presets->clear();
        const QStringList files = presetFiles();
        if (files.isEmpty()) {
            presets->addAction(tr("(no presets found)"))->setEnabled(false);
        }
        for (const QString& path : files) {
            presets->addAction(QFileInfo(path).fileName(), this, [this, path] {
                if (isRunning() || !maybeKeepChanges()) {
                    return;
                }
                try {
                    m_document->reset(loadProject(path));
                } catch (const Error& e) {
                    showError(tr("Cannot open the preset: %1").arg(qs(e.what())));
                    return;
                }
                log(tr("Opened the preset %1 as a new project (Save as keeps it and its runs)").arg(path));
                updateTitle();
            });
        }
    });
    file->addAction(tr("&Save project"), QKeySequence::Save, this, &MainWindow::saveProject);
    file->addAction(tr("Save project &as…"), QKeySequence::SaveAs, this, &MainWindow::saveProjectAs);
    file->addSeparator();
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    exportMenu->addAction(tr("Chart as &PNG…"), this, [this] {
        const QString path = askSavePath(tr("Export chart"), tr("PNG image (*.png)"), QStringLiteral("png"));
        if (!path.isEmpty())
            exportChart(path);
    });
    exportMenu->addAction(tr("Chart as &SVG…"), this, [this] {
        const QString path = askSavePath(tr("Export chart"), tr("SVG image (*.svg)"), QStringLiteral("svg"));
        if (!path.isEmpty())
            exportChart(path);
    });
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
    run->addAction(m_testAction);

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

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About BlobBench"), this, [this] {
        QMessageBox::about(this, tr("About BlobBench"),
                           tr("<b>BlobBench %1</b><p>Measures how databases move large values over the wire: "
                              "elapsed time, rows, bytes and round trips, and how the engine's tunables change "
                              "them.</p>")
                               .arg(QLatin1String(BLOBBENCH_VERSION)));
    });
}

QWidget* MainWindow::buildScenarioPanel() {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("<b>Scenarios</b>")));
    m_scenarioList = new QListWidget;
    m_scenarioList->setObjectName(QStringLiteral("scenarios"));
    m_scenarioList->setToolTip(tr("Checked scenarios run with Run all; double-click to rename"));
    connect(m_scenarioList, &QListWidget::currentRowChanged, this, &MainWindow::showScenario);
    connect(m_scenarioList, &QListWidget::itemDoubleClicked, this, &MainWindow::renameScenario);
    connect(m_scenarioList, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        if (m_refreshingList)
            return;
        const int row = m_scenarioList->row(item);
        const auto& scenarios = m_document->project().scenarios;
        if (row < 0 || row >= static_cast<int>(scenarios.size()))
            return;
        ScenarioDef def = scenarios[static_cast<std::size_t>(row)];
        def.enabled = item->checkState() == Qt::Checked;
        m_document->setScenario(row, def);
    });
    layout->addWidget(m_scenarioList, 1);

    auto* bar = new QToolBar;
    bar->setIconSize(QSize(16, 16));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(tr("Add"), this, &MainWindow::addScenario)->setToolTip(tr("Add an empty scenario"));
    bar->addAction(tr("Copy"), this, &MainWindow::duplicateScenario)->setToolTip(tr("Duplicate the scenario"));
    bar->addAction(QStringLiteral("▲"), this, &MainWindow::moveScenarioUp)->setToolTip(tr("Move up"));
    bar->addAction(QStringLiteral("▼"), this, &MainWindow::moveScenarioDown)->setToolTip(tr("Move down"));
    bar->addAction(tr("Del"), this, &MainWindow::deleteScenario)->setToolTip(tr("Delete the scenario"));
    auto* templates = new QToolButton;
    templates->setText(tr("Presets"));
    templates->setToolTip(tr("Add a reference scenario of the connection's engine"));
    templates->setPopupMode(QToolButton::InstantPopup);
    m_templatesMenu = new QMenu(templates);
    templates->setMenu(m_templatesMenu);
    bar->addWidget(templates);
    layout->addWidget(bar);
    return panel;
}

QWidget* MainWindow::buildSqlPanel() {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* header = new QHBoxLayout;
    header->addWidget(new QLabel(tr("<b>SQL</b>")));
    header->addStretch(1);
    header->addWidget(new QLabel(tr("Kind")));
    m_kind = new QComboBox;
    m_kind->addItem(tr("query: every row"), QStringLiteral("query"));
    m_kind->addItem(tr("scalar: one value"), QStringLiteral("scalar"));
    header->addWidget(m_kind);
    header->addWidget(new QLabel(tr("Fetch")));
    m_fetch = new QComboBox;
    m_fetch->addItem(tr("content"), QStringLiteral("content"));
    m_fetch->addItem(tr("ids only (LOBs unopened)"), QStringLiteral("ids-only"));
    header->addWidget(m_fetch);
    layout->addLayout(header);

    auto* split = new QSplitter(Qt::Vertical);
    auto* setupBox = new QWidget;
    auto* setupLayout = new QVBoxLayout(setupBox);
    setupLayout->setContentsMargins(0, 0, 0, 0);
    setupLayout->addWidget(new QLabel(tr("Setup (run first, not measured)")));
    m_setupEditor = new SqlEditor;
    m_setupEditor->setObjectName(QStringLiteral("setupSql"));
    m_setupEditor->setPlaceholderText(tr("optional, e.g. PRAGMA or SET statements"));
    setupLayout->addWidget(m_setupEditor);
    auto* measuredBox = new QWidget;
    auto* measuredLayout = new QVBoxLayout(measuredBox);
    measuredLayout->setContentsMargins(0, 0, 0, 0);
    measuredLayout->addWidget(new QLabel(tr("Measured statement")));
    m_sqlEditor = new SqlEditor;
    m_sqlEditor->setObjectName(QStringLiteral("measuredSql"));
    m_sqlEditor->setPlaceholderText(tr("SELECT ID, CONTENT FROM BLOB_TEST"));
    measuredLayout->addWidget(m_sqlEditor);
    split->addWidget(setupBox);
    split->addWidget(measuredBox);
    split->setSizes({50, 200});
    layout->addWidget(split, 1);

    connect(m_sqlEditor, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_loadingScenario)
            editCurrentScenario([this](ScenarioDef& d) { d.sql = m_sqlEditor->toPlainText(); });
    });
    connect(m_setupEditor, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_loadingScenario)
            editCurrentScenario([this](ScenarioDef& d) { d.setupSql = m_setupEditor->toPlainText(); });
    });
    connect(m_kind, &QComboBox::activated, this,
            [this] { editCurrentScenario([this](ScenarioDef& d) { d.kind = m_kind->currentData().toString(); }); });
    connect(m_fetch, &QComboBox::activated, this,
            [this] { editCurrentScenario([this](ScenarioDef& d) { d.fetch = m_fetch->currentData().toString(); }); });
    return panel;
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
    exportMenu->addAction(tr("Chart as PNG…"), this, [this] {
        const QString path = askSavePath(tr("Export chart"), tr("PNG image (*.png)"), QStringLiteral("png"));
        if (!path.isEmpty())
            exportChart(path);
    });
    exportMenu->addAction(tr("Chart as SVG…"), this, [this] {
        const QString path = askSavePath(tr("Export chart"), tr("SVG image (*.svg)"), QStringLiteral("svg"));
        if (!path.isEmpty())
            exportChart(path);
    });
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
        updateTitle();
        refreshConnections();
        refreshParameters();
        refreshScenarioList();
        refreshTemplates();
        reloadResults();
    });
    connect(m_document, &ProjectDocument::connectionsChanged, this, [this] {
        refreshConnections();
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
        refreshConnections();
        refreshParameters();
        refreshTemplates();
        m_connectionInfo->clear();
        m_appliedEffects.clear();
    });
    connect(m_document, &ProjectDocument::scenariosChanged, this, &MainWindow::refreshScenarioList);
    connect(m_document, &ProjectDocument::sampleAppended, this,
            [this](const QString&, const Sample& sample) { addSampleToViews(sample); });
    connect(m_document, &ProjectDocument::dirtyChanged, this, [this](bool) { updateTitle(); });
    connect(m_link, &LinkPanel::changed, this, &MainWindow::applyLinkEdit);
    connect(m_sweepEditor, &SweepEditor::runRequested, this, &MainWindow::runSweep);
    connect(m_history, &HistoryPanel::compareRequested, this,
            [this](int base, int candidate) { compareRuns(base, candidate); });
    connect(m_parameters, &ParameterPanel::valueChanged, this, [this](const QString& id, const QString& value) {
        if (const ConnectionProfile* profile = m_document->project().current()) {
            m_document->setParameter(profile->engine, id, value);
        }
    });
}

void MainWindow::refreshConnections() {
    const QSignalBlocker block(m_connections);
    m_connections->clear();
    for (const ConnectionProfile& p : m_document->project().connections) {
        m_connections->addItem(p.name, p.target);
        m_connections->setItemData(m_connections->count() - 1, QString(p.engine + QLatin1Char(':') + p.target),
                                   Qt::ToolTipRole);
    }
    m_connections->setCurrentIndex(m_document->project().currentConnection);
    const QString title = m_document->project().name.isEmpty() ? tr("BlobBench") : m_document->project().name;
    setWindowTitle(title + QStringLiteral("[*] — BlobBench"));
}

const Driver* MainWindow::currentDriver() const {
    const ConnectionProfile* profile = m_document->project().current();
    if (profile == nullptr) {
        return nullptr;
    }
    try {
        return &driverById(profile->engine.toStdString());
    } catch (const Error&) {
        return nullptr;
    }
}

void MainWindow::refreshParameters() {
    m_appliedEffects.clear();
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

void MainWindow::refreshTemplates() {
    m_templatesMenu->clear();
    const Driver* driver = currentDriver();
    if (driver == nullptr || driver->dialect() == Dialect::None) {
        m_templatesMenu->addAction(tr("(no presets for this engine)"))->setEnabled(false);
        return;
    }
    const std::vector<Scenario> suite = referenceSuite(driver->dialect());
    for (const Scenario& s : suite) {
        m_templatesMenu->addAction(qs(s.title), this, [this, s] {
            ScenarioDef def = ScenarioDef::fromScenario(s);
            def.id = uniqueScenarioId(m_document->project(), def.id);
            const int at = m_document->addScenario(def, currentScenarioIndex() + 1);
            m_scenarioList->setCurrentRow(at);
        });
    }
    m_templatesMenu->addSeparator();
    m_templatesMenu->addAction(tr("The whole reference suite"), this, [this, suite] {
        for (const Scenario& s : suite) {
            ScenarioDef def = ScenarioDef::fromScenario(s);
            def.id = uniqueScenarioId(m_document->project(), def.id);
            m_document->addScenario(def);
        }
    });
}

void MainWindow::refreshScenarioList() {
    const auto& scenarios = m_document->project().scenarios;
    m_refreshingList = true;
    const int current = m_scenarioList->currentRow();
    if (m_scenarioList->count() != static_cast<int>(scenarios.size())) {
        const QSignalBlocker block(m_scenarioList);
        m_scenarioList->clear();
        for (std::size_t i = 0; i < scenarios.size(); ++i) {
            m_scenarioList->addItem(new QListWidgetItem);
        }
    }
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
        QListWidgetItem* item = m_scenarioList->item(static_cast<int>(i));
        const ScenarioDef& def = scenarios[i];
        item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setText(def.title.isEmpty() ? tr("(untitled)") : def.title);
        item->setCheckState(def.enabled ? Qt::Checked : Qt::Unchecked);
        item->setToolTip(def.sql.trimmed().isEmpty() ? tr("No measured statement yet") : def.sql);
    }
    m_refreshingList = false;
    const int row = std::clamp(current, scenarios.empty() ? -1 : 0, static_cast<int>(scenarios.size()) - 1);
    if (m_scenarioList->currentRow() != row) {
        m_scenarioList->setCurrentRow(row);
    } else if (!m_loadingScenario) {
        showScenario(row);
    }
}

int MainWindow::currentScenarioIndex() const {
    return m_scenarioList->currentRow();
}

void MainWindow::showScenario(int index) {
    const auto& scenarios = m_document->project().scenarios;
    const bool valid = index >= 0 && index < static_cast<int>(scenarios.size());
    m_loadingScenario = true;
    const ScenarioDef def = valid ? scenarios[static_cast<std::size_t>(index)] : ScenarioDef{};
    // Only replace text that differs: resetting an editor's text while the user types in it would
    // move the cursor.
    if (m_sqlEditor->toPlainText() != def.sql)
        m_sqlEditor->setPlainText(def.sql);
    if (m_setupEditor->toPlainText() != def.setupSql)
        m_setupEditor->setPlainText(def.setupSql);
    m_kind->setCurrentIndex(std::max(0, m_kind->findData(def.kind)));
    m_fetch->setCurrentIndex(std::max(0, m_fetch->findData(def.fetch)));
    for (QWidget* w : std::initializer_list<QWidget*>{m_sqlEditor, m_setupEditor, m_kind, m_fetch}) {
        w->setEnabled(valid);
    }
    m_loadingScenario = false;
}

void MainWindow::editCurrentScenario(const std::function<void(ScenarioDef&)>& change) {
    const int index = currentScenarioIndex();
    const auto& scenarios = m_document->project().scenarios;
    if (index < 0 || index >= static_cast<int>(scenarios.size())) {
        return;
    }
    ScenarioDef def = scenarios[static_cast<std::size_t>(index)];
    change(def);
    m_loadingScenario = true;  // the document's echo must not reload the editor being typed in
    m_document->setScenario(index, def);
    m_loadingScenario = false;
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
    m_results->setSamples(all);
    for (std::size_t i = 0; i < m_charts.size(); ++i) {
        m_pendingSamples[i].clear();
        m_charts[i]->setSamples(all);
    }
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

// ---- scenarios --------------------------------------------------------------------------------

void MainWindow::addScenario() {
    ScenarioDef def;
    def.id = uniqueScenarioId(m_document->project(), QStringLiteral("scenario"));
    def.title = tr("New scenario");
    const int at = m_document->addScenario(def, currentScenarioIndex() + 1);
    m_scenarioList->setCurrentRow(at);
    m_sqlEditor->setFocus();
}

void MainWindow::duplicateScenario() {
    const int index = currentScenarioIndex();
    if (index < 0)
        return;
    ScenarioDef def = m_document->project().scenarios[static_cast<std::size_t>(index)];
    def.id = uniqueScenarioId(m_document->project(), def.id);
    def.title = tr("%1 (copy)").arg(def.title);
    m_scenarioList->setCurrentRow(m_document->addScenario(def, index + 1));
}

void MainWindow::renameScenario() {
    const int index = currentScenarioIndex();
    if (index < 0)
        return;
    ScenarioDef def = m_document->project().scenarios[static_cast<std::size_t>(index)];
    bool ok = false;
    const QString title =
        QInputDialog::getText(this, tr("Rename scenario"), tr("Title:"), QLineEdit::Normal, def.title, &ok);
    if (ok && !title.trimmed().isEmpty()) {
        def.title = title.trimmed();
        m_document->setScenario(index, def);
    }
}

void MainWindow::moveScenarioUp() {
    const int index = currentScenarioIndex();
    if (index <= 0)
        return;
    m_document->moveScenario(index, index - 1);
    m_scenarioList->setCurrentRow(index - 1);
}

void MainWindow::moveScenarioDown() {
    const int index = currentScenarioIndex();
    if (index < 0 || index + 1 >= m_scenarioList->count())
        return;
    m_document->moveScenario(index, index + 1);
    m_scenarioList->setCurrentRow(index + 1);
}

void MainWindow::deleteScenario() {
    const int index = currentScenarioIndex();
    if (index < 0)
        return;
    m_document->removeScenario(index);
}

// ---- connections ------------------------------------------------------------------------------

void MainWindow::newConnection() {
    ConnectionDialog dialog(this);
    ConnectionProfile blank;
    blank.name = tr("New connection");
    blank.engine = QString::fromStdString(allDrivers().front()->id());
    dialog.setProfile(blank);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ConnectionProfile profile = dialog.profile();
    rememberPassword(profile, dialog.password(), dialog.rememberPassword());
    const int index = m_document->addConnection(profile);
    m_document->setCurrentConnection(index);
}

void MainWindow::editConnection() {
    const int index = m_document->project().currentConnection;
    const ConnectionProfile* current = m_document->project().current();
    if (current == nullptr) {
        newConnection();
        return;
    }
    ConnectionDialog dialog(this);
    dialog.setProfile(*current, m_passwords.value(current->name));
    const QString oldKey = Keyring::keyFor(*current);
    const bool inKeyring = m_keyringLooked.value(oldKey);
    dialog.setRememberPassword(inKeyring);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ConnectionProfile profile = dialog.profile();
    if (inKeyring && (!dialog.rememberPassword() || Keyring::keyFor(profile) != oldKey)) {
        // Unticked (or another user or target): the old entry goes.
        const Keyring::Result removed = m_keyring.remove(oldKey);
        if (removed.ok) {
            m_keyringLooked[oldKey] = false;
            log(tr("Password for %1 removed from the system keyring").arg(oldKey));
        } else {
            log(tr("Cannot remove the password for %1 from the system keyring: %2").arg(oldKey, removed.error), true);
        }
    }
    if (profile.name != current->name)
        m_passwords.remove(current->name);
    rememberPassword(profile, dialog.password(), dialog.rememberPassword());
    m_document->setConnection(index, profile);
}

void MainWindow::deleteConnection() {
    const ConnectionProfile* current = m_document->project().current();
    if (current == nullptr)
        return;
    if (QMessageBox::question(this, tr("Delete connection"), tr("Delete the connection “%1”?").arg(current->name)) !=
        QMessageBox::Yes) {
        return;
    }
    m_passwords.remove(current->name);
    m_document->removeConnection(m_document->project().currentConnection);
}

void MainWindow::testConnection() {
    const ConnectionProfile* profile = m_document->project().current();
    if (profile == nullptr) {
        showError(tr("No connection: add one with Edit… → New connection."));
        return;
    }
    clearError();
    m_connectionInfo->setText(tr("Testing %1…").arg(profile->name));
    log(tr("Testing %1 (%2)").arg(profile->name, qs(profile->toSpec().label())));
    m_controller->testConnection(profile->toSpec(passwordFor(*profile)), m_parameters->values());
}

namespace {

// Whether the engine's client will find a password by itself: ISC_PASSWORD for Firebird,
// PGPASSWORD, a password file or a password in the conninfo for PostgreSQL.
bool engineHasOwnPassword(const ConnectionProfile& profile) {
    if (profile.engine == QLatin1String("firebird"))
        return qEnvironmentVariableIsSet("ISC_PASSWORD");
    if (profile.engine == QLatin1String("postgres")) {
        if (qEnvironmentVariableIsSet("PGPASSWORD") || profile.target.contains(QLatin1String("password=")))
            return true;
        const QString file = qEnvironmentVariableIsSet("PGPASSFILE") ? qEnvironmentVariable("PGPASSFILE")
                                                                     : QDir::homePath() + QStringLiteral("/.pgpass");
        return QFileInfo::exists(file);
    }
    return true;  // an engine we know nothing about: let its client try
}

}  // namespace

QString MainWindow::passwordFor(const ConnectionProfile& profile) {
    const QString session = m_passwords.value(profile.name);
    if (!session.isEmpty())
        return session;
    const Driver* driver = nullptr;
    for (const Driver* d : allDrivers()) {
        if (qs(d->id()) == profile.engine)
            driver = d;
    }
    if (driver == nullptr || !driver->networked())
        return {};
    const QString key = Keyring::keyFor(profile);
    if (!m_keyringLooked.contains(key)) {
        const Keyring::Result found = m_keyring.lookup(key);
        m_keyringLooked[key] = found.ok && found.password.has_value();
        if (!found.ok) {
            log(Keyring::unavailableMessage(found.error));
        } else if (found.password) {
            log(tr("Password for %1 from the system keyring").arg(key));
            m_passwords[profile.name] = *found.password;
            return *found.password;
        }
    }
    if (engineHasOwnPassword(profile) || !m_passwordPrompt)
        return {};
    const std::optional<PasswordAnswer> answer = m_passwordPrompt(profile);
    if (!answer)
        return {};
    rememberPassword(profile, answer->password, answer->remember);
    return answer->password;
}

void MainWindow::rememberPassword(const ConnectionProfile& profile, const QString& password, bool remember) {
    m_passwords[profile.name] = password;
    if (!remember || password.isEmpty())
        return;
    const QString key = Keyring::keyFor(profile);
    const Keyring::Result stored = m_keyring.store(key, password);
    if (stored.ok) {
        m_keyringLooked[key] = true;
        log(tr("Password for %1 remembered in the system keyring").arg(key));
    } else {
        m_keyringNotice = Keyring::unavailableMessage(stored.error);
        showError(m_keyringNotice);
    }
}

void MainWindow::onSessionInfo(const SessionInfo& info, const QString& detail) {
    const QString summary = sessionSummary(info);
    // A long session summary is elided (the whole text is in the tooltip) rather than pushing Run
    // and Stop into the toolbar's overflow menu.
    m_connectionInfo->setText(m_connectionInfo->fontMetrics().elidedText(summary, Qt::ElideRight, 440));
    m_connectionInfo->setToolTip(detail.isEmpty() ? summary : summary + QLatin1Char('\n') + detail);
    log(summary + (detail.isEmpty() ? QString() : QStringLiteral("; ") + detail));
    applyEffects(info.effects);
    for (const ParameterEffect& e : info.effects) {
        if (!e.inEffect) {
            log(tr("Not in effect: %1 = %2 (%3)").arg(qs(e.id), qs(e.requested), qs(e.reason)));
        }
    }
    if (const ConnectionProfile* profile = m_document->project().current()) {
        rememberRecent(*profile);
    }
}

void MainWindow::rememberRecent(const ConnectionProfile& profile) {
    QSettings settings;
    QVariantList recent = settings.value(QStringLiteral("recentConnections")).toList();
    QVariantMap entry;
    entry[QStringLiteral("name")] = profile.name;
    entry[QStringLiteral("engine")] = profile.engine;
    entry[QStringLiteral("target")] = profile.target;
    entry[QStringLiteral("user")] = profile.user;
    entry[QStringLiteral("role")] = profile.role;
    entry[QStringLiteral("charset")] = profile.charset;
    entry[QStringLiteral("clientLibrary")] = profile.clientLibrary;
    recent.erase(std::remove_if(recent.begin(), recent.end(),
                                [&](const QVariant& v) {
                                    const QVariantMap m = v.toMap();
                                    return m.value(QStringLiteral("engine")) == profile.engine &&
                                           m.value(QStringLiteral("target")) == profile.target;
                                }),
                 recent.end());
    recent.prepend(entry);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(QStringLiteral("recentConnections"), recent);
    refreshRecentMenu();
}

void MainWindow::refreshRecentMenu() {
    m_recentMenu->clear();
    const QVariantList recent = QSettings().value(QStringLiteral("recentConnections")).toList();
    if (recent.isEmpty()) {
        m_recentMenu->addAction(tr("(none yet)"))->setEnabled(false);
    }
    for (const QVariant& v : recent) {
        const QVariantMap m = v.toMap();
        ConnectionProfile p;
        p.name = m.value(QStringLiteral("name")).toString();
        p.engine = m.value(QStringLiteral("engine")).toString();
        p.target = m.value(QStringLiteral("target")).toString();
        p.user = m.value(QStringLiteral("user")).toString();
        p.role = m.value(QStringLiteral("role")).toString();
        p.charset = m.value(QStringLiteral("charset")).toString();
        p.clientLibrary = m.value(QStringLiteral("clientLibrary")).toString();
        m_recentMenu->addAction(p.name + QStringLiteral(" — ") + p.engine + QLatin1Char(':') + p.target, this,
                                [this, p] {
                                    const auto& list = m_document->project().connections;
                                    for (std::size_t i = 0; i < list.size(); ++i) {
                                        if (list[i].engine == p.engine && list[i].target == p.target) {
                                            m_document->setCurrentConnection(static_cast<int>(i));
                                            return;
                                        }
                                    }
                                    m_document->setCurrentConnection(m_document->addConnection(p));
                                });
    }
}

// ---- running ----------------------------------------------------------------------------------

void MainWindow::connectController() {
    connect(m_controller, &RunController::preparing, this, [this](quint64 done, quint64 total) {
        m_progress->setValue(static_cast<int>(total > 0 ? done * 1000 / total : 0));
        m_progressText->setText(
            tr("Preparing the reference data set: %1 / %2 rows (once)").arg(formatCount(done), formatCount(total)));
    });
    connect(m_controller, &RunController::prepared, this, [this](const QString& message) { log(message); });
    connect(m_controller, &RunController::connected, this,
            [this](const SessionInfo& info) { onSessionInfo(info, {}); });
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
        journal(sample);
        m_link->showLastCounting(QString::fromStdString(sample.tap.method));
    });
    connect(m_controller, &RunController::finished, this, [this](bool ok, bool cancelled, const QString& error) {
        m_document->finishRun(m_currentRunId, ok          ? QStringLiteral("complete")
                                              : cancelled ? QStringLiteral("cancelled")
                                                          : QStringLiteral("failed: ") + error);
        journalFinished();
        setRunning(false);
        if (ok) {
            m_progress->setValue(1000);
            m_progressText->setText(tr("Done: %1 samples in the table").arg(m_results->rowCount()));
            log(tr("Run finished"));
        } else if (cancelled) {
            m_progressText->setText(tr("Stopped"));
            log(tr("Run stopped: %1").arg(error));
        } else {
            m_progressText->setText(tr("Failed"));
            showError(error);
        }
        flushLog();
        emit runFinished(ok);
    });
    connect(m_controller, &RunController::stopped, this, [this] {
        m_document->finishRun(m_currentRunId, QStringLiteral("cancelled"));
        journalFinished();
        setRunning(false);
        m_progressText->setText(tr("Stopped; results so far are kept"));
        log(tr("Stopped by the user"));
        flushLog();
        emit runFinished(false);
    });
    connect(m_controller, &RunController::connectionTested, this,
            [this](bool ok, const SessionInfo& info, const QString& detail) {
                if (ok) {
                    clearError();
                    onSessionInfo(info, detail);
                } else {
                    m_connectionInfo->setText(tr("Connection failed"));
                    showError(detail);
                }
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

void MainWindow::startRun(const std::vector<ScenarioDef>& scenarios, int sweepIndex) {
    if (m_controller->isRunning()) {
        return;
    }
    const ConnectionProfile* profile = m_document->project().current();
    if (profile == nullptr) {
        showError(tr("No connection: add one with Edit… → New connection."));
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
    plan.wireTap = networked && profile->useWireTap;
    const LinkSettings link = plan.wireTap ? profile->link : LinkSettings{};
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
            request.studies.push_back(studyJob(m_document->project(), s, plan.runId,
                                               {m_passwords.keyValueBegin(), m_passwords.keyValueEnd()}));
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
    m_document->beginRun(record);
    m_currentRunId = record.runId;
    startJournal(record);

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
    m_testAction->setEnabled(!running);  // it would wait behind the run on the worker thread
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
    m_errorBanner->setText(message);
    m_errorBanner->show();
    log(message, true);
}

void MainWindow::clearError() {
    m_errorBanner->clear();
    m_errorBanner->hide();
}

QString MainWindow::errorText() const {
    return m_errorBanner->isVisible() ? m_errorBanner->text() : QString();
}

void MainWindow::log(const QString& text, bool error) {
    const QString time = QTime::currentTime().toString(QStringLiteral("HH:mm:ss.zzz"));
    const QString line = time + QLatin1Char(' ') + text.toHtmlEscaped();
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
    if (!m_pendingLog.isEmpty()) {
        m_log->appendHtml(m_pendingLog.join(QStringLiteral("<br>")));
        m_pendingLog.clear();
    }
}

// ---- files and exports ------------------------------------------------------------------------

void MainWindow::newProject() {
    if (isRunning() || !maybeKeepChanges())
        return;
    m_document->reset(defaultProject(m_defaultDatasetPath));
    log(tr("New project: the SQLite reference suite"));
}

void MainWindow::openProject() {
    if (isRunning() || !maybeKeepChanges()) {
        return;
    }
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"),
                                                      settings.value(QStringLiteral("files/lastProjectDir")).toString(),
                                                      tr("BlobBench projects (*.blobbench.json);;All files (*)"));
    if (!path.isEmpty()) {
        openProjectFile(path);
    }
}

bool MainWindow::openProjectFile(const QString& path) {
    QString recovered;
    try {
        Project project = loadProject(path);
        // A run that crashed (or was killed) left its journal: its samples join the history.
        recovered = recoverJournal(path, project);
        if (!recovered.isEmpty()) {
            blobbench::saveProject(path, project);  // only the history changed: keep it safe at once
            removeJournal(path);
        }
        m_document->reset(std::move(project), path);
    } catch (const Error& e) {
        showError(tr("Cannot open the project: %1").arg(qs(e.what())));
        return false;
    }
    if (!recovered.isEmpty()) {
        log(tr("Recovered from the run journal and saved: %1").arg(recovered));
    }
    QSettings().setValue(QStringLiteral("files/lastProjectDir"), QFileInfo(path).absolutePath());
    rememberRecentFile(path);
    log(tr("Opened %1").arg(path));
    updateTitle();
    return true;
}

bool MainWindow::saveProjectTo(const QString& path) {
    try {
        blobbench::saveProject(path, m_document->project());
    } catch (const Error& e) {
        // The old file is intact (atomic save); the project stays open and dirty.
        showError(tr("Cannot save the project: %1").arg(qs(e.what())));
        return false;
    }
    m_document->setFilePath(path);
    m_document->markClean();
    if (!isRunning()) {
        dropJournal();  // the file now holds every sample the journal kept
    }
    QSettings().setValue(QStringLiteral("files/lastProjectDir"), QFileInfo(path).absolutePath());
    rememberRecentFile(path);
    log(tr("Saved %1").arg(path));
    updateTitle();
    return true;
}

QStringList MainWindow::recentProjects() const {
    return QSettings().value(QStringLiteral("recentProjects")).toStringList();
}

void MainWindow::rememberRecentFile(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList recent = recentProjects();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecentFiles)
        recent.removeLast();
    QSettings().setValue(QStringLiteral("recentProjects"), recent);
    refreshRecentFilesMenu();
}

void MainWindow::refreshRecentFilesMenu() {
    m_recentFilesMenu->clear();
    const QStringList recent = recentProjects();
    if (recent.isEmpty()) {
        m_recentFilesMenu->addAction(tr("(none yet)"))->setEnabled(false);
        return;
    }
    for (int i = 0; i < recent.size(); ++i) {
        const QString path = recent[i];
        QAction* action =
            m_recentFilesMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()), this,
                                         [this, path] { openRecentProject(path); });
        action->setToolTip(path);
        action->setData(path);
    }
    m_recentFilesMenu->addSeparator();
    m_recentFilesMenu->addAction(tr("Clear the list"), this, [this] {
        QSettings().remove(QStringLiteral("recentProjects"));
        refreshRecentFilesMenu();
    });
}

bool MainWindow::openRecentProject(const QString& path) {
    if (!QFileInfo::exists(path)) {
        QStringList recent = recentProjects();
        recent.removeAll(path);
        QSettings().setValue(QStringLiteral("recentProjects"), recent);
        refreshRecentFilesMenu();
        showError(tr("%1 no longer exists: removed from the recent files.").arg(path));
        return false;
    }
    if (isRunning() || !maybeKeepChanges())
        return false;
    return openProjectFile(path);
}

bool MainWindow::openDroppedFile(const QString& path) {
    if (isRunning()) {
        showError(tr("A run is in progress: stop it before opening %1.").arg(QFileInfo(path).fileName()));
        return false;
    }
    if (!maybeKeepChanges())
        return false;
    return openProjectFile(path);
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

void MainWindow::saveProject() {
    if (m_document->filePath().isEmpty()) {
        saveProjectAs();
        return;
    }
    saveProjectTo(m_document->filePath());
}

void MainWindow::saveProjectAs() {
    const QString path =
        askSavePath(tr("Save project"), tr("BlobBench projects (*.blobbench.json)"), QStringLiteral("blobbench.json"));
    if (!path.isEmpty()) {
        saveProjectTo(path);
    }
}

bool MainWindow::maybeKeepChanges() {
    if (!m_document->isDirty() || m_suppressUnsavedPrompt) {
        return true;
    }
    const auto answer = QMessageBox::question(
        this, tr("Unsaved changes"), tr("The project has unsaved changes (measured runs included). Save them?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) {
        return false;
    }
    if (answer == QMessageBox::Save) {
        saveProject();
        return !m_document->isDirty();
    }
    if (!isRunning()) {
        dropJournal();  // discarded on purpose: not recovered next time
    }
    return true;
}

// The run's samples go to "<project>.journal" as they arrive (see RunJournal), so a crash of the
// workbench loses nothing measured even when the project is not saved. Not synced sample by sample
// on this thread; an unsaved project (no file yet) has no journal.
void MainWindow::startJournal(const RunRecord& record) {
    try {
        if (m_journal && m_journalPath == m_document->filePath()) {
            m_journal->beginRun(record);  // earlier runs are still unsaved: they stay in the journal
            return;
        }
        m_journal.reset();
        if (m_document->filePath().isEmpty()) {
            return;
        }
        m_journal = std::make_unique<RunJournal>(m_document->filePath(), record);
        m_journalPath = m_document->filePath();
    } catch (const Error& e) {
        log(tr("No run journal (a crash would lose this run's samples): %1").arg(qs(e.what())));
    }
}

void MainWindow::journal(const Sample& sample) {
    if (!m_journal) {
        return;
    }
    try {
        m_journal->append({sample}, false);
    } catch (const Error& e) {
        log(tr("The run journal stopped: %1").arg(qs(e.what())));
        m_journal.reset();
    }
}

void MainWindow::journalFinished() {
    if (!m_journal) {
        return;
    }
    for (const RunRecord& r : m_document->project().history) {
        if (r.runId == m_currentRunId) {
            RunRecord header = r;
            header.samples.clear();
            try {
                m_journal->beginRun(header);  // the same run again, now with its outcome
            } catch (const Error& e) {
                log(tr("The run journal stopped: %1").arg(qs(e.what())));
                m_journal.reset();
            }
            return;
        }
    }
}

void MainWindow::dropJournal() {
    if (m_journal) {
        m_journal->discard();
        m_journal.reset();
    }
    if (!m_journalPath.isEmpty()) {
        removeJournal(m_journalPath);  // the last run's, or the one recovered at open
        m_journalPath.clear();
    }
}

void MainWindow::updateTitle() {
    const QString path = m_document->filePath();
    setWindowFilePath(path);
    setWindowTitle((path.isEmpty() ? tr("Untitled project") : QFileInfo(path).fileName()) +
                   (m_document->isDirty() ? QStringLiteral(" *") : QString()) + QStringLiteral(" - BlobBench"));
}

QString MainWindow::askSavePath(const QString& title, const QString& filter, const QString& suffix) {
    QFileDialog dialog(this, title, QString(), filter);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setDefaultSuffix(suffix);
    return dialog.exec() == QDialog::Accepted ? dialog.selectedFiles().value(0) : QString();
}

bool MainWindow::exportChart(const QString& path) {
    const int index = m_chartTabs->currentIndex();
    flushChart(static_cast<std::size_t>(index));
    QWidget* widget = m_charts[static_cast<std::size_t>(index)]->widget();
    try {
        if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
            exportChartSvg(widget, path, m_chartTabs->tabText(index));
        } else {
            exportChartPng(widget, path);
        }
    } catch (const Error& e) {
        showError(qs(e.what()));
        return false;
    }
    log(tr("Chart written to %1").arg(path));
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
