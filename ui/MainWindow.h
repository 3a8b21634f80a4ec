#pragma once

#include <QHash>
#include <QMainWindow>
#include <QPointF>
#include <QSet>
#include <QString>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "engine/drivers/Driver.h"
#include "model/Project.h"
#include "model/ProjectFile.h"
#include "ui/ChartSettings.h"
#include "ui/Charts.h"
#include "ui/ConnectionController.h"
#include "ui/DocumentController.h"
#include "ui/ExportController.h"
#include "ui/Keyring.h"
#include "ui/LogView.h"
#include "ui/RunController.h"
#include "ui/ScenarioPanel.h"

class QAction;
class QCheckBox;
class QDockWidget;
class QDragEnterEvent;
class QDropEvent;
class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QTableView;
class QTimer;

namespace blobbench {

class ReproduceWindow;

class CompareDialog;
class ErrorBanner;
class HistoryPanel;
class LinkPanel;
class ParameterPanel;
class ResultsModel;
class SqlEditor;
class SweepEditor;
class UserGuideWindow;
class LinkPlacement;
class WhatIfPanel;

// The workbench. Reads and changes the project only through its ProjectDocument (the single
// source of truth); runs go to the RunController's worker thread; views follow the document's
// signals. Nothing here is specific to an engine: tunables and dialects come from the drivers.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // Without a document the window makes its own, holding defaultProject(defaultSqlitePath()).
    explicit MainWindow(ProjectDocument* document = nullptr, QWidget* parent = nullptr);
    ~MainWindow() override;

    ProjectDocument* document() const { return m_document; }
    RunController* controller() const { return m_controller; }
    ParameterPanel* parameterPanel() const { return m_parameters; }
    LinkPanel* linkPanel() const { return m_link; }
    SweepEditor* sweepEditor() const { return m_sweepEditor; }
    HistoryPanel* historyPanel() const { return m_history; }
    WhatIfPanel* whatIfPanel() const { return m_whatIf; }
    ResultsModel* resultsModel() const { return m_results; }
    QSortFilterProxyModel* resultsProxy() const { return m_resultsProxy; }
    QTableView* resultsView() const { return m_table; }
    SampleChart* chart(ChartKind kind) const;
    // Runs of many sessions (the Load tab): throughput against sessions, latency percentiles.
    LoadChart* loadChart() const { return m_loadChart.get(); }
    void showLoadChart();
    // The load points of the runs the views show (hidden runs and connections left out).
    std::vector<LoadPoint> shownLoads() const;
    // The controllers the window puts together: tests and scripts reach them directly.
    ScenarioPanel* scenarios() const { return m_scenarios; }
    ConnectionController* connections() const { return m_connections; }
    DocumentController* files() const { return m_files; }
    ExportController* exports() const { return m_exports; }
    LogView* logView() const { return m_log; }
    QProgressBar* progressBar() const { return m_progress; }
    QString errorText() const;  // the banner's text; empty when no error is shown
    bool isRunning() const;

    void setRepetitions(int repetitions);
    // Brings every chart up to date now (live samples reach the visible chart every 100 ms and the
    // hidden ones when they are shown).
    void flushCharts();
    void showChart(ChartKind kind);
    // Shows the Sweep tab of the right-hand column, or the History tab under the charts.
    void showSweepEditor();
    void showHistory();
    // Shows the What-if dock (View > What if).
    void showWhatIf();
    // File > Reproduce a publication: the window of the publication `name` (blobbench-cli reproduce
    // NAME), offered the project's connections; null for an unknown name.
    ReproduceWindow* openReproduce(const std::string& name);
    // Where the default SQLite data set lives and how many rows it gets when it is prepared.
    void setDefaultDataset(const QString& path, quint64 rows);

public slots:
    void runCurrent();
    void runAll();
    // Runs the checked scenarios at every point of the project's sweep `index` (engine/run/Sweep.h).
    void runSweep(int index);
    void stop();
    // Tests the current connection with the parameter panel's values (ui/ConnectionController).
    void testConnection();
    // Connection > Prepare data set: the reference tables of the current connection (ui/PrepareDialog).
    void prepareDataset();
    // History > Compare: base vs candidate (history indexes), in a dialog the window keeps open.
    CompareDialog* compareRuns(int baseIndex, int candidateIndex);

signals:
    void runFinished(bool ok);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildActions();
    void buildMenus();
    void buildToolbar();
    QWidget* buildChartsPanel();
    QWidget* buildResultsPanel();
    void connectDocument();
    void connectController();

    ExportController::VisibleChart visibleChart();  // flushed
    void applyChartSettings();
    void refreshParameters();
    void reloadResults();
    void reloadLoads();                                      // MainWindowLoad.cpp
    std::map<std::string, QString> connectionNames() const;  // label -> the profile's name, where unambiguous
    void clearRunStatus();
    void fillChartConnectionsMenu(QMenu* menu);
    void addSampleToViews(const Sample& sample);
    void flushChart(std::size_t index);
    void applyEffects(const std::vector<ParameterEffect>& effects);

    // What-if's "Measure at this link": one parameter set of one scenario (every setting it ran
    // with) at another link than the connection's (which stays as it is).
    struct LinkCheck {
        ParameterValues settings;
        LinkSettings link;
    };
    void startRun(const std::vector<ScenarioDef>& chosen, int sweepIndex = -1, const LinkCheck* check = nullptr);
    void connectWhatIf();
    void measureAtLink(const QString& scenarioId, const QString& connection, const ParameterValues& settings,
                       const LinkSettings& link);
    void pushPredictions();
    void updateWhatIfMeasurable();
    void logEngineFollow(const QString& note);
    void testInBackground();
    QSize defaultWindowSize() const;
    void applyLinkEdit(bool useWireTap, const LinkSettings& link);
    void setRunning(bool running);
    void onProgress(const RunProgress& progress);

    void showError(const QString& message);
    void clearError();
    void log(const QString& text, bool error = false);
    void flushLog();
    const Driver* currentDriver() const;
    int currentScenarioIndex() const;

    ProjectDocument* m_document;
    RunController* m_controller;
    ResultsModel* m_results;
    QSortFilterProxyModel* m_resultsProxy;

    ConnectionController* m_connections = nullptr;
    DocumentController* m_files = nullptr;
    ScenarioPanel* m_scenarios = nullptr;
    std::unique_ptr<ErrorBanner> m_errorBanner;
    ExportController* m_exports = nullptr;
    ParameterPanel* m_parameters = nullptr;
    QLabel* m_parametersTitle = nullptr;
    QTabWidget* m_chartTabs = nullptr;
    std::array<std::unique_ptr<SampleChart>, 5> m_charts;
    std::unique_ptr<LoadChart> m_loadChart;               // the tab after the sample charts
    std::array<std::vector<Sample>, 5> m_pendingSamples;  // per chart, not drawn yet
    std::vector<QPointF> m_pendingThroughput;             // seconds, MB/s
    QTimer* m_chartFlush = nullptr;                       // draws pending samples and log lines every 100 ms
    QStringList m_pendingLog;
    QString m_appliedEffects;  // the effects the parameter panel shows, as a key
    QCheckBox* m_logScale = nullptr;
    QTableView* m_table = nullptr;
    LogView* m_log = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_progressText = nullptr;
    QSpinBox* m_repetitions = nullptr;
    QSplitter* m_mainSplitter = nullptr;
    QSplitter* m_topSplitter = nullptr;
    QSplitter* m_bottomSplitter = nullptr;
    LinkPanel* m_link = nullptr;
    SweepEditor* m_sweepEditor = nullptr;
    HistoryPanel* m_history = nullptr;
    WhatIfPanel* m_whatIf = nullptr;
    QDockWidget* m_whatIfDock = nullptr;
    UserGuideWindow* m_userGuide = nullptr;    // made on the first F1
    std::array<bool, 5> m_predictionsStale{};  // per chart: the what-if changed since it was drawn
    bool m_checkingLink = false;               // the current run is a what-if "Measure at this link"
    bool m_reloadingResults = false;
    QTabWidget* m_sideTabs = nullptr;
    LinkPlacement* m_linkPlacement = nullptr;  // the link below the tunables, or in a tab where the column is short
    QTabWidget* m_bottomTabs = nullptr;
    CompareDialog* m_compareDialog = nullptr;

    QAction* m_runAction = nullptr;
    QAction* m_runAllAction = nullptr;
    QAction* m_stopAction = nullptr;
    std::map<QString, std::uint64_t> m_expectedRows;  // scenario id -> rows of its last sample
    QString m_defaultDatasetPath;
    quint64 m_defaultDatasetRows = 10000;
    QString m_runEngine;
    QString m_currentRunId;             // the history record the current run appends to
    QSet<QString> m_hiddenConnections;  // sample connections left out of the results and charts
    QSet<QString> m_hiddenRuns;         // run ids left out by "Clear the charts"
    double m_lastThroughputAt = 0;
    std::uint64_t m_lastThroughputBytes = 0;
    int m_runCounter = 0;
    bool m_applyingLink = false;                            // a link group edit on its way through the document
    std::map<std::string, QString> m_shownConnectionNames;  // what the charts name the connections by
};

}  // namespace blobbench
