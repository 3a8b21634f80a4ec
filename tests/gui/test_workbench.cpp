// The workbench parts of issues #6 and #7 beyond the first window: link emulation, sweeps from the
// window, the run history with Compare, recent files and drag and drop, and live palette changes.
// Each drives the widgets and checks the ProjectDocument (the single source of truth), not pixels.
#include <gtest/gtest.h>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDirIterator>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QTreeWidget>
#include <QUrl>

#include "GuiTestSupport.h"
#include "engine/drivers/Registry.h"
#include "engine/wire/LinkProfile.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"
#include "ui/Charts.h"
#include "ui/ComparisonModel.h"
#include "ui/ConnectionDialog.h"
#include "ui/HistoryPanel.h"
#include "ui/LinkPanel.h"
#include "ui/MainWindow.h"
#include "ui/ParameterPanel.h"
#include "ui/SqlEditor.h"
#include "ui/SweepEditor.h"

using namespace blobbench;
using blobbench::test::TempDir;
using blobbench::test::waitUntil;

namespace {

// A cell of the history (its model), as the view shows it.
QString historyText(const blobbench::HistoryPanel* panel, int row, int column, int role = Qt::DisplayRole) {
    return panel->model()->index(row, column).data(role).toString();
}

constexpr int kRunTimeoutMs = 120000;

class WorkbenchTest : public ::testing::Test {
protected:
    void SetUp() override {
        // Settings of this test alone: ctest runs the tests of this file in parallel processes.
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, QString::fromStdString(dir.file("settings")));
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, QString::fromStdString(dir.file("settings")));
        ASSERT_TRUE(QSettings().value(QStringLiteral("recentProjects")).toStringList().isEmpty());
        databasePath = QString::fromStdString(dir.file("reference.sqlite"));
        document = new ProjectDocument;
        document->reset(defaultProject(databasePath));
        window = std::make_unique<MainWindow>(document);
        document->setParent(window.get());
        window->setDefaultDataset(databasePath, 300);
        window->files()->setSuppressUnsavedPrompt(true);
        window->resize(1280, 860);
        window->show();
    }
    void TearDown() override { window.reset(); }

    // A networked connection (no server is contacted: only the profile is edited).
    void usePostgresProfile() {
        ConnectionProfile pg;
        pg.name = QStringLiteral("PostgreSQL profile");
        pg.engine = QStringLiteral("postgres");
        pg.target = QStringLiteral("postgresql://localhost/none");
        document->setCurrentConnection(document->addConnection(pg));
    }
    const ConnectionProfile& current() const { return *document->project().current(); }

    bool waitForRun(const std::function<void()>& start) {
        QSignalSpy finished(window.get(), &MainWindow::runFinished);
        start();
        return finished.count() > 0 || finished.wait(kRunTimeoutMs);
    }
    int enabledScenarios() const {
        int n = 0;
        for (const ScenarioDef& s : document->project().scenarios)
            n += s.enabled ? 1 : 0;
        return n;
    }
    QString path(const char* name) const { return QString::fromStdString(dir.file(name)); }

    TempDir dir;
    QString databasePath;
    ProjectDocument* document = nullptr;
    std::unique_ptr<MainWindow> window;
};

}  // namespace

// ---- 1. link emulation ------------------------------------------------------------------------

TEST(BandwidthScale, SpansTheEngineLimitsLogarithmicallyWithUnlimitedAtTheEnd) {
    EXPECT_EQ(BandwidthScale::valueAt(0), kMinBandwidth);
    EXPECT_EQ(BandwidthScale::valueAt(BandwidthScale::kSteps - 1), kMaxBandwidth);
    EXPECT_EQ(BandwidthScale::valueAt(BandwidthScale::unlimitedPosition()), 0U);
    EXPECT_EQ(BandwidthScale::positionOf(0), BandwidthScale::unlimitedPosition());
    std::uint64_t previous = 0;
    for (int p = 0; p < BandwidthScale::kSteps; ++p) {
        const std::uint64_t v = BandwidthScale::valueAt(p);
        EXPECT_GE(v, previous) << "position " << p;
        previous = v;
        EXPECT_EQ(BandwidthScale::valueAt(BandwidthScale::positionOf(v)), v) << "position " << p;
    }
    // Log scale: the middle position is the geometric mean (about 9.8 Mbit/s), not 5 Gbit/s.
    const std::uint64_t middle = BandwidthScale::valueAt(BandwidthScale::kSteps / 2);
    EXPECT_GT(middle, 5'000'000U);
    EXPECT_LT(middle, 20'000'000U);
}

TEST_F(WorkbenchTest, LinkGroupIsDisabledWithAReasonForTheEmbeddedEngine) {
    LinkPanel* link = window->linkPanel();
    EXPECT_EQ(current().engine, QStringLiteral("sqlite"));
    EXPECT_FALSE(link->tapBox()->isEnabled());
    EXPECT_FALSE(link->bandwidthSlider(true)->isEnabled());
    EXPECT_TRUE(link->toolTip().contains(QStringLiteral("embedded"))) << link->toolTip().toStdString();
    EXPECT_FALSE(link->bandwidthSlider(true)->isVisibleTo(link));  // folded: the tunables keep the room
    usePostgresProfile();
    EXPECT_TRUE(link->tapBox()->isEnabled());
    EXPECT_TRUE(link->bandwidthSlider(true)->isVisibleTo(link));
    EXPECT_TRUE(link->toolTip().isEmpty());
}

TEST_F(WorkbenchTest, LinkGroupSaysHowTheWireIsCountedAndHowTheLastRunWas) {
    LinkPanel* link = window->linkPanel();
    EXPECT_FALSE(link->countingLabel()->isVisibleTo(link)) << "embedded: nothing to count";
    usePostgresProfile();
    ASSERT_TRUE(link->tapBox()->isChecked());
    EXPECT_TRUE(link->countingLabel()->isVisibleTo(link));
    EXPECT_EQ(link->countingLabel()->text(), QStringLiteral("Counting: in the client (no relay)"));
    link->latencyBox(true)->setValue(20);
    EXPECT_EQ(link->countingLabel()->text(), QStringLiteral("Counting: through the relay (link emulation)"));
    link->showLastCounting(QStringLiteral("relay"));
    EXPECT_EQ(link->countingLabel()->text(),
              QStringLiteral("Counting: through the relay (link emulation); last run: through the relay"));
    link->tapBox()->click();  // not measured at all
    EXPECT_EQ(link->countingLabel()->text(),
              QStringLiteral("Counting: off (no wire statistics); last run: through the relay"));
    link->tapBox()->click();
    link->latencyBox(true)->setValue(0);  // the link is no longer emulated
    EXPECT_EQ(link->countingLabel()->text(),
              QStringLiteral("Counting: in the client (no relay); last run: through the relay"));
    link->showLastCounting(QStringLiteral("in-process"));
    EXPECT_EQ(link->countingText(), QStringLiteral("Counting: in the client (no relay); last run: in the client"));
    link->showLastCounting(QString());
    EXPECT_EQ(link->countingText(), QStringLiteral("Counting: in the client (no relay); last run: not counted"));
}

TEST_F(WorkbenchTest, LinkGroupEditsTheCurrentConnectionProfile) {
    usePostgresProfile();
    document->markClean();
    LinkPanel* link = window->linkPanel();
    ASSERT_TRUE(link->tapBox()->isEnabled());
    // Networked engines are measured through the tap unless the user turns it off.
    EXPECT_TRUE(link->tapBox()->isChecked());
    EXPECT_TRUE(link->bandwidthSlider(false)->isEnabled());

    link->tapBox()->click();
    EXPECT_FALSE(current().useWireTap);
    EXPECT_TRUE(document->isDirty());
    EXPECT_FALSE(link->bandwidthSlider(false)->isEnabled()) << "shaping controls wait for the tap";
    link->tapBox()->click();
    EXPECT_TRUE(current().useWireTap);
    EXPECT_TRUE(link->bandwidthSlider(false)->isEnabled());

    // Only the link changes: the tunables' controls are not rebuilt under the user's hand.
    QWidget* tunable = window->parameterPanel()->editor(QStringLiteral("result_format"));
    ASSERT_NE(tunable, nullptr);
    link->latencyBox(true)->setValue(20);
    link->latencyBox(false)->setValue(35);
    EXPECT_EQ(window->parameterPanel()->editor(QStringLiteral("result_format")), tunable);
    EXPECT_EQ(current().link.latencyUpMs, 20);
    EXPECT_EQ(current().link.latencyDownMs, 35);

    // The slider lands on round values: find the position of exactly 2 Mbit/s and move there.
    int twoMbit = -1;
    for (int p = 0; p < BandwidthScale::kSteps; ++p) {
        if (BandwidthScale::valueAt(p) == 2'000'000U)
            twoMbit = p;
    }
    ASSERT_GE(twoMbit, 0);
    link->bandwidthSlider(false)->setValue(twoMbit);
    EXPECT_EQ(current().link.bandwidthDownBits, 2'000'000);
    EXPECT_EQ(link->bandwidthText(false), QStringLiteral("2 Mbit/s"));
    EXPECT_EQ(link->bandwidthEdit(false)->text(), QStringLiteral("2 Mbit/s"));

    // Typed rates go through the engine's parser; the slider follows.
    link->bandwidthEdit(true)->setText(QStringLiteral("512k"));
    emit link->bandwidthEdit(true)->editingFinished();
    EXPECT_EQ(current().link.bandwidthUpBits, 512'000);
    EXPECT_EQ(link->bandwidthSlider(true)->value(), BandwidthScale::positionOf(512'000));
    EXPECT_EQ(link->summary(), QString::fromStdString(toLinkProfile(current().link).describe()));

    // A bad rate changes nothing and says why; so does one below the engine's minimum.
    link->bandwidthEdit(true)->setText(QStringLiteral("fast"));
    emit link->bandwidthEdit(true)->editingFinished();
    EXPECT_EQ(current().link.bandwidthUpBits, 512'000);
    EXPECT_TRUE(link->bandwidthEdit(true)->toolTip().contains(QStringLiteral("invalid bit rate")));
    link->bandwidthEdit(true)->setText(QStringLiteral("100"));
    emit link->bandwidthEdit(true)->editingFinished();
    EXPECT_EQ(current().link.bandwidthUpBits, 512'000);

    // The far right of the slider is unlimited.
    link->bandwidthSlider(false)->setValue(BandwidthScale::unlimitedPosition());
    EXPECT_EQ(current().link.bandwidthDownBits, 0);
    EXPECT_EQ(link->bandwidthText(false), QStringLiteral("unlimited"));

    // The document is the source of truth: a reset shows its values.
    Project p = document->project();
    p.connections[static_cast<std::size_t>(p.currentConnection)].link.latencyUpMs = 7;
    p.connections[static_cast<std::size_t>(p.currentConnection)].link.bandwidthUpBits = 10'000'000;
    document->reset(p);
    EXPECT_EQ(link->latencyBox(true)->value(), 7);
    EXPECT_EQ(link->bandwidthText(true), QStringLiteral("10 Mbit/s"));

    // Back to the embedded engine: the group is disabled again.
    document->setCurrentConnection(0);
    EXPECT_FALSE(link->tapBox()->isEnabled());
}

// ---- 2. sweeps ---------------------------------------------------------------------------------

TEST_F(WorkbenchTest, SweepEditorStoresTheSweepInTheProject) {
    window->showSweepEditor();
    SweepEditor* editor = window->sweepEditor();
    EXPECT_FALSE(editor->runButton()->isEnabled());  // no sweep yet
    document->markClean();
    const int index = editor->newSweep();
    ASSERT_EQ(index, 0);
    ASSERT_EQ(document->project().sweeps.size(), 1U);
    EXPECT_TRUE(document->isDirty());
    EXPECT_TRUE(editor->runButton()->isEnabled());

    // The tunables offered are the engine's.
    const auto specs = driverById("sqlite").parameters();
    EXPECT_EQ(editor->parameterBox()->count(), static_cast<int>(specs.size()));
    const int cache = editor->parameterBox()->findData(QStringLiteral("cache_size"));
    ASSERT_GE(cache, 0);
    editor->parameterBox()->setCurrentIndex(cache);
    emit editor->parameterBox()->activated(cache);

    editor->rangeMode()->setChecked(true);
    editor->fromEdit()->setText(QStringLiteral("16"));
    emit editor->fromEdit()->textEdited(editor->fromEdit()->text());
    editor->toEdit()->setText(QStringLiteral("16384"));
    emit editor->toEdit()->textEdited(editor->toEdit()->text());
    editor->pointsBox()->setValue(4);
    editor->logBox()->setChecked(true);
    editor->repetitionsBox()->setValue(3);
    editor->warmupsBox()->setValue(1);

    const SweepDef& sweep = document->project().sweeps.front();
    ASSERT_EQ(sweep.axes.size(), 1U);
    EXPECT_EQ(sweep.axes[0].parameter, QStringLiteral("cache_size"));
    ASSERT_TRUE(sweep.axes[0].range.has_value());
    EXPECT_EQ(sweep.axes[0].range->from, 16);
    EXPECT_EQ(sweep.axes[0].range->to, 16384);
    EXPECT_EQ(sweep.axes[0].range->points, 4);
    EXPECT_TRUE(sweep.axes[0].range->logarithmic);
    EXPECT_EQ(sweep.repetitions, 3);
    EXPECT_EQ(sweep.warmups, 1);
    const QStringList values = axisValues(sweep.axes[0]);
    ASSERT_EQ(values.size(), 4);
    EXPECT_EQ(values.front(), QStringLiteral("16"));
    EXPECT_EQ(values.back(), QStringLiteral("16384"));
    EXPECT_GT(values[1].toInt(), 100);  // log: ~161, where linear spacing would give ~5472
    EXPECT_LT(values[1].toInt(), 200);
    EXPECT_TRUE(editor->previewText().startsWith(QStringLiteral("4 point"))) << editor->previewText().toStdString();

    // A list instead of the range.
    editor->listMode()->setChecked(true);
    editor->valuesEdit()->setText(QStringLiteral("100, 2000 ,50000"));
    emit editor->valuesEdit()->textEdited(editor->valuesEdit()->text());
    EXPECT_FALSE(document->project().sweeps.front().axes[0].range.has_value());
    EXPECT_EQ(document->project().sweeps.front().axes[0].values,
              (QStringList{QStringLiteral("100"), QStringLiteral("2000"), QStringLiteral("50000")}));

    // An inverted range is refused in the preview and never reaches the document (which must stay
    // savable); Run sweep is disabled meanwhile.
    editor->rangeMode()->setChecked(true);
    editor->logBox()->setChecked(false);
    editor->fromEdit()->setText(QStringLiteral("900"));
    emit editor->fromEdit()->textEdited(editor->fromEdit()->text());
    editor->toEdit()->setText(QStringLiteral("10"));
    emit editor->toEdit()->textEdited(editor->toEdit()->text());
    EXPECT_TRUE(editor->previewText().contains(QStringLiteral("inverted"))) << editor->previewText().toStdString();
    EXPECT_FALSE(editor->runButton()->isEnabled());
    ASSERT_TRUE(document->project().sweeps.front().axes[0].range.has_value());
    EXPECT_EQ(document->project().sweeps.front().axes[0].range->from, 900);
    EXPECT_EQ(document->project().sweeps.front().axes[0].range->to, 16384);
    editor->toEdit()->setText(QStringLiteral("1000"));
    emit editor->toEdit()->textEdited(editor->toEdit()->text());
    EXPECT_EQ(document->project().sweeps.front().axes[0].range->to, 1000);
    EXPECT_TRUE(editor->runButton()->isEnabled());

    // A value the engine refuses stays in the field, out of the document, and cannot run.
    editor->listMode()->setChecked(true);
    editor->valuesEdit()->setText(QStringLiteral("100, lots"));
    emit editor->valuesEdit()->textEdited(editor->valuesEdit()->text());
    EXPECT_TRUE(document->project().sweeps.front().axes[0].range.has_value());
    EXPECT_TRUE(editor->previewText().contains(QStringLiteral("lots"))) << editor->previewText().toStdString();
    EXPECT_FALSE(editor->runButton()->isEnabled());
    editor->rangeMode()->setChecked(true);
    EXPECT_TRUE(editor->runButton()->isEnabled());

    // A sweep of a tunable the current engine lacks is refused by Run sweep before connecting.
    usePostgresProfile();
    const std::size_t runs = document->project().history.size();
    window->runSweep(0);
    EXPECT_FALSE(window->isRunning());
    EXPECT_EQ(document->project().history.size(), runs);
    EXPECT_TRUE(window->errorText().contains(QStringLiteral("cache_size"))) << window->errorText().toStdString();
    document->setCurrentConnection(0);

    // Saved and loaded with the project.
    ASSERT_TRUE(window->files()->saveProjectTo(path("sweep.blobbench.json")));
    const Project loaded = loadProject(path("sweep.blobbench.json"));
    ASSERT_EQ(loaded.sweeps.size(), 1U);
    EXPECT_EQ(loaded.sweeps.front(), document->project().sweeps.front());

    editor->deleteSweep();
    EXPECT_TRUE(document->project().sweeps.empty());
    EXPECT_FALSE(editor->runButton()->isEnabled());
}

TEST_F(WorkbenchTest, RunSweepRunsEveryPointOnTheWorkerAndChartsTheTunableOnX) {
    test::prepareSmallDataset(databasePath, 300);
    SweepEditor* editor = window->sweepEditor();
    editor->newSweep();
    const int cache = editor->parameterBox()->findData(QStringLiteral("cache_size"));
    editor->parameterBox()->setCurrentIndex(cache);
    emit editor->parameterBox()->activated(cache);
    editor->listMode()->setChecked(true);
    editor->valuesEdit()->setText(QStringLiteral("100, 2000, 8000"));
    emit editor->valuesEdit()->textEdited(editor->valuesEdit()->text());
    editor->repetitionsBox()->setValue(2);

    QSignalSpy points(window->controller(), &RunController::pointStarted);
    ASSERT_TRUE(waitForRun([&] { editor->runButton()->click(); }));
    EXPECT_TRUE(window->errorText().isEmpty()) << window->errorText().toStdString();
    EXPECT_EQ(points.count(), 3);

    ASSERT_EQ(document->project().history.size(), 1U);
    const RunRecord& run = document->project().history.front();
    EXPECT_EQ(run.sweepName, document->project().sweeps.front().name);
    EXPECT_EQ(run.outcome, QStringLiteral("complete"));
    const int scenarios = enabledScenarios();
    EXPECT_EQ(static_cast<int>(run.samples.size()), 3 * scenarios * 2);
    std::set<std::string> seen;
    for (const Sample& s : run.samples) {
        ASSERT_EQ(s.point.count("cache_size"), 1U);
        seen.insert(s.point.at("cache_size"));
        EXPECT_EQ(s.parameters.at("cache_size"), s.point.at("cache_size"));
    }
    EXPECT_EQ(seen, (std::set<std::string>{"100", "2000", "8000"}));

    window->flushCharts();
    SampleChart* chart = window->chart(ChartKind::Sweep);
    EXPECT_TRUE(chart->xAxisTitle().startsWith(QStringLiteral("cache_size"))) << chart->xAxisTitle().toStdString();
    EXPECT_EQ(chart->pointCount(), 3 * scenarios);  // one median per scenario and point
    EXPECT_EQ(chart->seriesNames().size(), scenarios);
    EXPECT_TRUE(chart->notice().isEmpty()) << chart->notice().toStdString();
    // A plain run afterwards does not disturb the sweep chart.
    ASSERT_TRUE(waitForRun([&] { window->runCurrent(); }));
    window->flushCharts();
    EXPECT_EQ(chart->pointCount(), 3 * scenarios);
}

TEST_F(WorkbenchTest, SweepEditorEditsASecondAxisAndTheGridRunsWithOneSeriesPerValue) {
    test::prepareSmallDataset(databasePath, 300);
    window->showSweepEditor();
    SweepEditor* editor = window->sweepEditor();
    editor->newSweep();
    const int cache = editor->parameterBox()->findData(QStringLiteral("cache_size"));
    editor->parameterBox()->setCurrentIndex(cache);
    emit editor->parameterBox()->activated(cache);
    editor->listMode()->setChecked(true);
    editor->valuesEdit()->setText(QStringLiteral("100, 2000, 8000"));
    emit editor->valuesEdit()->textEdited(editor->valuesEdit()->text());
    ASSERT_EQ(document->project().sweeps.front().axes.size(), 1U);
    EXPECT_FALSE(editor->secondAxis()->isVisibleTo(editor));

    // Add the second axis: another tunable than the first, over values it accepts.
    ASSERT_TRUE(editor->addAxisButton()->isEnabled());
    editor->addAxisButton()->click();
    EXPECT_TRUE(editor->secondAxis()->isVisibleTo(editor));
    EXPECT_FALSE(editor->addAxisButton()->isVisibleTo(editor));
    ASSERT_EQ(document->project().sweeps.front().axes.size(), 2U);
    EXPECT_NE(document->project().sweeps.front().axes[1].parameter, QStringLiteral("cache_size"));

    // Its tunable and values as a range, like the first axis.
    SweepAxisEditor* second = editor->secondAxis();
    const int mmap = second->parameterBox()->findData(QStringLiteral("mmap_size"));
    ASSERT_GE(mmap, 0);
    second->parameterBox()->setCurrentIndex(mmap);
    emit second->parameterBox()->activated(mmap);
    second->rangeMode()->setChecked(true);
    second->fromEdit()->setText(QStringLiteral("0"));
    emit second->fromEdit()->textEdited(second->fromEdit()->text());
    second->toEdit()->setText(QStringLiteral("1048576"));
    emit second->toEdit()->textEdited(second->toEdit()->text());
    second->pointsBox()->setValue(2);
    {
        const SweepDef& sweep = document->project().sweeps.front();
        ASSERT_EQ(sweep.axes.size(), 2U);
        EXPECT_EQ(sweep.axes[0].parameter, QStringLiteral("cache_size"));
        EXPECT_EQ(sweep.axes[1].parameter, QStringLiteral("mmap_size"));
        ASSERT_TRUE(sweep.axes[1].range.has_value());
        EXPECT_EQ(sweep.axes[1].range->to, 1048576);
        EXPECT_EQ(axisValues(sweep.axes[1]), (QStringList{QStringLiteral("0"), QStringLiteral("1048576")}));
    }
    EXPECT_TRUE(editor->previewText().startsWith(QStringLiteral("6 point"))) << editor->previewText().toStdString();
    EXPECT_TRUE(editor->previewText().contains(QStringLiteral("mmap_size"))) << editor->previewText().toStdString();

    // The same tunable on both axes is refused and stays out of the document.
    second->parameterBox()->setCurrentIndex(cache);
    emit second->parameterBox()->activated(cache);
    EXPECT_FALSE(editor->runButton()->isEnabled());
    EXPECT_EQ(document->project().sweeps.front().axes[1].parameter, QStringLiteral("mmap_size"));
    second->parameterBox()->setCurrentIndex(mmap);
    emit second->parameterBox()->activated(mmap);
    // Another tunable starts from its own values: the range is entered again.
    second->rangeMode()->setChecked(true);
    second->fromEdit()->setText(QStringLiteral("0"));
    emit second->fromEdit()->textEdited(second->fromEdit()->text());
    second->toEdit()->setText(QStringLiteral("1M"));  // a byte tunable takes 1M = 1048576
    emit second->toEdit()->textEdited(second->toEdit()->text());
    second->pointsBox()->setValue(2);
    ASSERT_TRUE(editor->runButton()->isEnabled()) << editor->previewText().toStdString();

    // Saved and loaded: the editor shows both axes of the loaded grid.
    ASSERT_TRUE(window->files()->saveProjectTo(path("grid.blobbench.json")));
    const Project loaded = loadProject(path("grid.blobbench.json"));
    ASSERT_EQ(loaded.sweeps.size(), 1U);
    EXPECT_EQ(loaded.sweeps.front(), document->project().sweeps.front());
    document->reset(loaded);
    EXPECT_TRUE(editor->secondAxis()->isVisibleTo(editor));
    EXPECT_EQ(editor->secondAxis()->parameterBox()->currentData().toString(), QStringLiteral("mmap_size"));

    // Run: 3 x 2 points; the chart has cache_size on x and one series per scenario and mmap_size.
    editor->repetitionsBox()->setValue(1);
    ASSERT_TRUE(waitForRun([&] { editor->runButton()->click(); }));
    EXPECT_TRUE(window->errorText().isEmpty()) << window->errorText().toStdString();
    const RunRecord& run = document->project().history.back();
    const int scenarios = enabledScenarios();
    EXPECT_EQ(static_cast<int>(run.samples.size()), 6 * scenarios);
    window->flushCharts();
    SampleChart* chart = window->chart(ChartKind::Sweep);
    EXPECT_TRUE(chart->xAxisTitle().startsWith(QStringLiteral("cache_size (KiB"))) << chart->xAxisTitle().toStdString();
    EXPECT_EQ(chart->seriesNames().size(), 2 * scenarios);
    EXPECT_EQ(chart->pointCount(), 6 * scenarios);
    EXPECT_TRUE(chart->seriesNames().join(QLatin1Char('|')).contains(QStringLiteral("mmap_size=1048576")));
    // SQLite has no wire: bytes received are "not measured", with the reason, never zeros.
    chart->setSweepMetric(SweepMetric::BytesReceived);
    EXPECT_EQ(chart->pointCount(), 0);
    EXPECT_FALSE(chart->notice().isEmpty());
    chart->setSweepMetric(SweepMetric::Time);

    // Back to one axis.
    editor->removeAxisButton()->click();
    EXPECT_EQ(document->project().sweeps.front().axes.size(), 1U);
    EXPECT_FALSE(editor->secondAxis()->isVisibleTo(editor));
    EXPECT_TRUE(editor->addAxisButton()->isVisibleTo(editor));
}

// ---- 3. history and compare --------------------------------------------------------------------

TEST_F(WorkbenchTest, HistoryListsRunsAndComparesTwo) {
    test::prepareSmallDataset(databasePath, 300);
    window->setRepetitions(3);
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    // The second run under another setting: History, Compare and the charts name it.
    window->parameterPanel()->setValue(QStringLiteral("blob_api"), QStringLiteral("true"));
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    window->showHistory();
    HistoryPanel* history = window->historyPanel();
    EXPECT_EQ(historyText(history, 0, HistoryModel::Settings), QStringLiteral("blob api off"));
    EXPECT_EQ(historyText(history, 1, HistoryModel::Settings), QStringLiteral("blob api on"));
    window->flushCharts();
    const QStringList series = window->chart(ChartKind::TimeVsBytes)->seriesNames();
    EXPECT_EQ(series.size(), 2 * enabledScenarios()) << series.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(series.join(QLatin1Char('|')).contains(QStringLiteral(" · blob api on")));
    ASSERT_EQ(history->model()->rowCount(), 2);
    const RunRecord& first = document->project().history[0];
    EXPECT_EQ(historyText(history, 0, HistoryModel::Started, Qt::ToolTipRole), first.runId);
    EXPECT_EQ(historyText(history, 0, HistoryModel::Connection), first.connectionName);
    EXPECT_EQ(historyText(history, 0, HistoryModel::Samples), QString::number(first.samples.size()));
    EXPECT_EQ(historyText(history, 0, HistoryModel::Status), QStringLiteral("complete"));
    // SQLite is embedded: there is no link to speak of.
    EXPECT_EQ(historyText(history, 0, HistoryModel::Link), QStringLiteral("n/a (embedded)"));
    EXPECT_TRUE(historyText(history, 0, HistoryModel::Scenarios)
                    .contains(QString::fromStdString(first.samples[0].scenarioTitle)));

    EXPECT_FALSE(history->compareButton()->isEnabled());
    history->selectRuns({0});
    EXPECT_FALSE(history->compareButton()->isEnabled());
    history->selectRuns({0, 1});
    ASSERT_TRUE(history->compareButton()->isEnabled());
    history->compareButton()->click();

    auto* dialog = window->findChild<CompareDialog*>();
    ASSERT_NE(dialog, nullptr);
    EXPECT_TRUE(dialog->isVisible());
    auto* header = dialog->findChild<QLabel*>(QStringLiteral("compareHeader"));
    ASSERT_NE(header, nullptr);
    EXPECT_TRUE(header->text().contains(QStringLiteral("blob_api: false → true"))) << header->text().toStdString();
    EXPECT_TRUE(dialog->markdown().contains(QStringLiteral("- blob_api: false → true")));
    const int scenarios = enabledScenarios();
    ASSERT_EQ(dialog->model()->rowCount(), scenarios);
    for (int r = 0; r < scenarios; ++r) {
        const PointComparison& c = dialog->rows()[static_cast<std::size_t>(r)];
        ASSERT_TRUE(c.ratio.has_value());
        const ComparisonModel* model = dialog->model();
        EXPECT_EQ(model->index(r, ComparisonModel::Ratio).data().toString(), QString::number(*c.ratio, 'f', 3));
        EXPECT_FALSE(model->index(r, ComparisonModel::Delta).data().toString().isEmpty());
        EXPECT_TRUE(c.test.valid);  // three repetitions on each side
    }
    // The chart: base and new side by side per scenario, whiskers over the three repetitions, the
    // significant ones marked as the table says.
    ComparisonChart* chart = dialog->chart();
    ASSERT_NE(chart, nullptr);
    EXPECT_EQ(chart->categories().size(), scenarios);
    EXPECT_EQ(chart->barCount(), 2 * scenarios);
    EXPECT_EQ(chart->whiskerCount(), 2 * scenarios);
    std::vector<int> significant;
    for (int r = 0; r < scenarios; ++r) {
        if (dialog->rows()[static_cast<std::size_t>(r)].significant)
            significant.push_back(r);
        EXPECT_EQ(chart->categories()[r].startsWith(QLatin1Char('*')),
                  dialog->rows()[static_cast<std::size_t>(r)].significant);
    }
    EXPECT_EQ(chart->significant(), significant);
    const QString png = path("compare.png"), svg = path("compare.svg");
    dialog->exportChartPng(png);
    dialog->exportChartSvg(svg);
    EXPECT_FALSE(QImage(png).isNull());
    QFile svgFile(svg);
    ASSERT_TRUE(svgFile.open(QIODevice::ReadOnly));
    EXPECT_TRUE(svgFile.readAll().contains("<svg"));
    const QString md = path("compare.md");
    dialog->exportMarkdown(md);
    QFile file(md);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    EXPECT_TRUE(text.contains(first.runId));
    EXPECT_TRUE(text.contains(document->project().history[1].runId));
    EXPECT_GE(text.count(QLatin1Char('\n')), scenarios + 2);

    // The history survives save and load, and the panel shows the loaded one.
    ASSERT_TRUE(window->files()->saveProjectTo(path("history.blobbench.json")));
    window->files()->newProject();
    EXPECT_EQ(history->model()->rowCount(), 0);
    ASSERT_TRUE(window->files()->openProjectFile(path("history.blobbench.json")));
    EXPECT_EQ(history->model()->rowCount(), 2);
}

TEST_F(WorkbenchTest, HistoryShowsTheLinkARunWasMeasuredOver) {
    Project p = document->project();
    RunRecord shaped;
    shaped.runId = QStringLiteral("run-shaped");
    shaped.startedAt = QStringLiteral("2026-01-02T03:04:05.000Z");
    shaped.connectionName = QStringLiteral("remote");
    shaped.link.latencyUpMs = 20;
    shaped.link.latencyDownMs = 20;
    shaped.link.bandwidthUpBits = 512'000;
    shaped.link.bandwidthDownBits = 2'000'000;
    shaped.outcome = QStringLiteral("cancelled");
    p.history.push_back(shaped);
    // A networked engine measured unshaped says so; an embedded one has no link at all, known from
    // its samples or (no sample) from its connection profile.
    RunRecord unshaped;
    unshaped.runId = QStringLiteral("run-unshaped");
    unshaped.connectionName = QStringLiteral("some postgres");
    unshaped.samples.emplace_back().engine = "postgres";
    p.history.push_back(unshaped);
    RunRecord embedded;
    embedded.runId = QStringLiteral("run-embedded");
    embedded.connectionName = p.connections.front().name;
    ASSERT_EQ(p.connections.front().engine, QStringLiteral("sqlite"));
    p.history.push_back(embedded);
    document->reset(p);
    ASSERT_GE(window->historyPanel()->model()->rowCount(), 3);
    EXPECT_EQ(historyText(window->historyPanel(), 0, HistoryModel::Link),
              QStringLiteral("up 512 kbit/s + 20 ms, down 2 Mbit/s + 20 ms"));
    EXPECT_EQ(historyText(window->historyPanel(), 0, HistoryModel::Status), QStringLiteral("cancelled"));
    EXPECT_EQ(historyText(window->historyPanel(), 1, HistoryModel::Link), QStringLiteral("unshaped"));
    EXPECT_EQ(historyText(window->historyPanel(), 2, HistoryModel::Link), QStringLiteral("n/a (embedded)"));
}

// ---- keyring: the unavailable path --------------------------------------------------------------

// No Secret Service (no session bus: CI, offscreen): "remember" says so in one line, the password
// is kept for the session and works, and it is in neither the settings, the project nor the log.
// The real keyring (store, lookup, delete) is tested in test_keyring.
TEST_F(WorkbenchTest, KeyringUnavailableKeepsThePasswordForTheSessionOnly) {
    qputenv("DBUS_SESSION_BUS_ADDRESS", QByteArray("unix:path=") + path("no-bus").toLocal8Bit());
    qunsetenv("DISPLAY");
    qunsetenv("PGPASSWORD");
    qputenv("PGPASSFILE", path("no-pgpass").toLocal8Bit());
    usePostgresProfile();
    const QString secret = QStringLiteral("s3cret-Pässword-4711");

    // Edit connection: the password and "Remember in the system keyring" ticked.
    bool filled = false;
    QTimer::singleShot(0, window.get(), [&] {
        auto* dialog = window->findChild<ConnectionDialog*>();
        ASSERT_NE(dialog, nullptr);
        EXPECT_TRUE(dialog->rememberBox()->isEnabled());  // a networked engine
        EXPECT_FALSE(dialog->rememberBox()->isChecked());
        dialog->passwordEdit()->setText(secret);
        dialog->rememberBox()->setChecked(true);
        filled = true;
        dialog->accept();
    });
    window->connections()->editConnection();
    ASSERT_TRUE(filled);
    const QString notice = window->connections()->keyringNotice();
    EXPECT_TRUE(notice.startsWith(QStringLiteral("keyring not available: "))) << notice.toStdString();
    EXPECT_TRUE(notice.endsWith(QStringLiteral("; the password is kept for this session only")))
        << notice.toStdString();
    EXPECT_FALSE(notice.contains(QLatin1Char('\n')));
    EXPECT_EQ(window->errorText(), notice);
    // Still works for this session.
    EXPECT_EQ(window->connections()->passwordFor(current()), secret);

    // Nowhere on disk or in the log.
    ASSERT_TRUE(window->files()->saveProjectTo(path("keyring.blobbench.json")));
    QSettings().sync();
    for (const char* file : {"keyring.blobbench.json", "settings"}) {
        QDirIterator it(path(file), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        QStringList files = QFileInfo(path(file)).isFile() ? QStringList{path(file)} : QStringList{};
        while (it.hasNext())
            files << it.next();
        for (const QString& f : files) {
            QFile in(f);
            ASSERT_TRUE(in.open(QIODevice::ReadOnly)) << f.toStdString();
            EXPECT_FALSE(in.readAll().contains(secret.toUtf8())) << f.toStdString();
        }
    }
    EXPECT_FALSE(window->logView()->toPlainText().contains(secret));
    EXPECT_FALSE(loadProject(path("keyring.blobbench.json")).connections.empty());

    // The embedded engine offers no password at all.
    document->setCurrentConnection(0);
    QTimer::singleShot(0, window.get(), [&] {
        auto* dialog = window->findChild<ConnectionDialog*>();
        ASSERT_NE(dialog, nullptr);
        EXPECT_FALSE(dialog->rememberBox()->isEnabled());
        EXPECT_FALSE(dialog->passwordEdit()->isEnabled());
        dialog->reject();
    });
    window->connections()->editConnection();
}

// At connect time: the session's password, else the keyring's, else the engine's own places,
// else the prompt; what the prompt answers stays for the session.
TEST_F(WorkbenchTest, PasswordAtConnectTimeComesFromTheKeyringTheEngineOrThePrompt) {
    qputenv("DBUS_SESSION_BUS_ADDRESS", QByteArray("unix:path=") + path("no-bus").toLocal8Bit());
    qunsetenv("DISPLAY");
    qunsetenv("PGPASSWORD");
    qputenv("PGPASSFILE", path("no-pgpass").toLocal8Bit());
    int asked = 0;
    window->connections()->setPasswordPrompt(
        [&](const ConnectionProfile& profile) -> std::optional<ConnectionController::PasswordAnswer> {
            ++asked;
            EXPECT_EQ(profile.engine, QStringLiteral("postgres"));
            return ConnectionController::PasswordAnswer{QStringLiteral("typed-at-connect"), false};
        });
    // SQLite: no password, never asked.
    EXPECT_TRUE(window->connections()->passwordFor(current()).isEmpty());
    EXPECT_EQ(asked, 0);

    usePostgresProfile();
    EXPECT_EQ(window->connections()->passwordFor(current()), QStringLiteral("typed-at-connect"));
    EXPECT_EQ(asked, 1);
    EXPECT_EQ(window->connections()->passwordFor(current()), QStringLiteral("typed-at-connect"));  // kept: asked once
    EXPECT_EQ(asked, 1);
    // The keyring was tried first and said why it could not answer (in the log, no password there).
    EXPECT_TRUE(window->logView()->toPlainText().contains(QStringLiteral("keyring not available: ")));
    EXPECT_TRUE(window->connections()->keyringNotice().isEmpty());  // nothing asked to be remembered

    // The engine's own places: PGPASSWORD set, an empty password lets libpq use it; not asked.
    ConnectionProfile other = current();
    other.name = QStringLiteral("other");
    other.user = QStringLiteral("bob");
    qputenv("PGPASSWORD", "from-the-environment");
    EXPECT_TRUE(window->connections()->passwordFor(other).isEmpty());
    EXPECT_EQ(asked, 1);
    qunsetenv("PGPASSWORD");
    // A password file counts the same.
    QFile pgpass(path("pgpass"));
    ASSERT_TRUE(pgpass.open(QIODevice::WriteOnly));
    pgpass.close();
    qputenv("PGPASSFILE", path("pgpass").toLocal8Bit());
    EXPECT_TRUE(window->connections()->passwordFor(other).isEmpty());
    EXPECT_EQ(asked, 1);
    // Neither: asked.
    qputenv("PGPASSFILE", path("no-pgpass").toLocal8Bit());
    EXPECT_EQ(window->connections()->passwordFor(other), QStringLiteral("typed-at-connect"));
    EXPECT_EQ(asked, 2);
}

// ---- 4. recent files and drag and drop -----------------------------------------------------------

TEST_F(WorkbenchTest, RecentFilesKeepEightNewestFirstAndDropMissingOnes) {
    for (int i = 0; i < 10; ++i) {
        ASSERT_TRUE(window->files()->saveProjectTo(path(qPrintable(QStringLiteral("p%1.blobbench.json").arg(i)))));
    }
    QStringList recent = window->files()->recentProjects();
    ASSERT_EQ(recent.size(), 8);
    EXPECT_EQ(QFileInfo(recent.front()).fileName(), QStringLiteral("p9.blobbench.json"));
    EXPECT_EQ(QFileInfo(recent.back()).fileName(), QStringLiteral("p2.blobbench.json"));
    // Opening one moves it to the front.
    ASSERT_TRUE(window->files()->openRecentProject(recent[3]));
    EXPECT_EQ(window->files()->recentProjects().front(), recent[3]);
    EXPECT_EQ(document->filePath(), recent[3]);

    // The File menu lists them.
    QMenu* menu = window->menuBar()->findChild<QMenu*>(QStringLiteral("recentProjects"));
    ASSERT_NE(menu, nullptr);
    int listed = 0;
    for (QAction* a : menu->actions())
        listed += a->data().toString().isEmpty() ? 0 : 1;
    EXPECT_EQ(listed, 8);

    // A file that went away is removed, with a message.
    const QString gone = window->files()->recentProjects().at(1);
    ASSERT_TRUE(QFile::remove(gone));
    EXPECT_FALSE(window->files()->openRecentProject(gone));
    EXPECT_FALSE(window->files()->recentProjects().contains(gone));
    EXPECT_EQ(window->files()->recentProjects().size(), 7);
    EXPECT_TRUE(window->errorText().contains(QStringLiteral("no longer exists"))) << window->errorText().toStdString();
    EXPECT_EQ(document->filePath(), recent[3]);  // the open project is untouched
}

TEST_F(WorkbenchTest, DroppingAProjectOpensItAfterTheUnsavedChangesQuestion) {
    Project other = defaultProject(databasePath);
    other.name = QStringLiteral("dropped");
    other.scenarios.resize(2);
    const QString file = path("dropped.blobbench.json");
    saveProject(file, other);

    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(file)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window.get(), &enter);
    EXPECT_TRUE(enter.isAccepted());
    auto* other_mime = new QMimeData;
    other_mime->setUrls({QUrl::fromLocalFile(path("notes.txt"))});
    QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, other_mime, Qt::LeftButton, Qt::NoModifier);
    refused.setAccepted(false);
    QApplication::sendEvent(window.get(), &refused);
    EXPECT_FALSE(refused.isAccepted());

    // Unsaved changes and the question answered Cancel: the project stays.
    window->files()->setSuppressUnsavedPrompt(false);
    window->scenarios()->addScenario();
    ASSERT_TRUE(document->isDirty());
    const std::size_t scenarios = document->project().scenarios.size();
    bool asked = false;
    QTimer answer;
    QObject::connect(&answer, &QTimer::timeout, [&] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            asked = true;
            box->button(QMessageBox::Cancel)->click();
        }
    });
    answer.start(20);
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window.get(), &drop);
    ASSERT_TRUE(waitUntil([&] { return asked; }, 5000));
    waitUntil([] { return false; }, 100);
    EXPECT_EQ(document->project().scenarios.size(), scenarios);
    EXPECT_TRUE(document->isDirty());
    EXPECT_NE(document->filePath(), file);

    // Discard: the dropped project opens.
    QObject::disconnect(&answer, nullptr, nullptr, nullptr);
    int discarded = 0;
    QObject::connect(&answer, &QTimer::timeout, [&] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            ++discarded;
            box->button(QMessageBox::Discard)->click();
        }
    });
    // A new drag: enter, then drop (as the platform sends them).
    QDragEnterEvent enterAgain(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window.get(), &enterAgain);
    ASSERT_TRUE(enterAgain.isAccepted());
    QDropEvent again(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window.get(), &again);
    ASSERT_TRUE(waitUntil([&] { return document->filePath() == file; }, 5000)) << window->errorText().toStdString();
    EXPECT_EQ(discarded, 1);
    EXPECT_EQ(document->project().name, QStringLiteral("dropped"));
    EXPECT_EQ(document->project().scenarios.size(), 2U);
    EXPECT_FALSE(document->isDirty());
    EXPECT_TRUE(window->files()->recentProjects().contains(QFileInfo(file).absoluteFilePath()));
    delete mime;
    delete other_mime;
}

// ---- 5. palette --------------------------------------------------------------------------------

TEST_F(WorkbenchTest, ChartsAndSqlEditorFollowAPaletteChangeLive) {
    const QPalette original = QApplication::palette();
    QPalette light = original;
    light.setColor(QPalette::Window, QColor(0xef, 0xef, 0xef));
    light.setColor(QPalette::Base, Qt::white);
    light.setColor(QPalette::Text, Qt::black);
    light.setColor(QPalette::WindowText, Qt::black);
    QApplication::setPalette(light);
    QCoreApplication::processEvents();

    SampleChart* chart = window->chart(ChartKind::TimeVsBytes);
    SqlHighlighter* highlighter = window->scenarios()->sqlEditor()->highlighter();
    EXPECT_GT(chart->backgroundColor().lightness(), 128);
    EXPECT_LT(chart->titleColor().lightness(), 128);
    EXPECT_FALSE(highlighter->isDark());
    const QColor lightKeyword = highlighter->formatOf(SqlHighlighter::Token::Keyword).foreground().color();

    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x2a, 0x2a, 0x2a));
    dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xe0, 0xe0, 0xe0));
    QApplication::setPalette(dark);
    QCoreApplication::processEvents();

    for (ChartKind kind : {ChartKind::TimeVsBytes, ChartKind::Phases, ChartKind::LiveThroughput, ChartKind::Sweep}) {
        SampleChart* c = window->chart(kind);
        EXPECT_EQ(c->backgroundColor(), QColor(0x1e, 0x1e, 0x1e)) << chartTitle(kind).toStdString();
        EXPECT_EQ(c->titleColor(), QColor(0xe0, 0xe0, 0xe0)) << chartTitle(kind).toStdString();
    }
    EXPECT_TRUE(highlighter->isDark());
    EXPECT_TRUE(window->scenarios()->setupEditor()->highlighter()->isDark());
    const QColor darkKeyword = highlighter->formatOf(SqlHighlighter::Token::Keyword).foreground().color();
    EXPECT_NE(darkKeyword, lightKeyword);
    EXPECT_GT(darkKeyword.lightness(), lightKeyword.lightness());
    // The text already in the editor is recoloured, not only new text.
    const QTextBlock block = window->scenarios()->sqlEditor()->document()->firstBlock();
    bool recoloured = false;
    for (const QTextLayout::FormatRange& r : block.layout()->formats())
        recoloured = recoloured || r.format.foreground().color() == darkKeyword;
    EXPECT_TRUE(recoloured);

    QApplication::setPalette(light);
    QCoreApplication::processEvents();
    EXPECT_EQ(chart->backgroundColor(), QColor(Qt::white));
    EXPECT_FALSE(highlighter->isDark());
    QApplication::setPalette(original);
}

// ---- run journal ------------------------------------------------------------------------------

// A run measured in a saved project is journaled as it goes: if the workbench dies before the
// project is saved, opening the project again recovers the run (and saves it at once).
TEST_F(WorkbenchTest, UnsavedRunsSurviveACrashThroughTheJournal) {
    const QString project = path("journaled.blobbench.json");
    ASSERT_TRUE(window->files()->saveProjectTo(project));
    window->setRepetitions(2);
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    ASSERT_EQ(document->project().history.size(), 2u);
    const std::size_t measured = document->project().history[0].samples.size();
    ASSERT_GT(measured, 0u);
    ASSERT_TRUE(document->isDirty());
    ASSERT_TRUE(QFile::exists(journalPathFor(project))) << "nothing journaled while the project is unsaved";
    EXPECT_TRUE(loadProject(project).history.empty()) << "the file itself was not saved";

    // "Crash": a second window opens the file while the first never saved.
    auto* other = new ProjectDocument;
    MainWindow reopened(other);
    other->setParent(&reopened);
    reopened.files()->setSuppressUnsavedPrompt(true);
    ASSERT_TRUE(reopened.files()->openProjectFile(project));
    ASSERT_EQ(other->project().history.size(), 2u);
    EXPECT_EQ(other->project().history[0].samples.size(), measured);
    EXPECT_EQ(other->project().history[0].outcome, QStringLiteral("complete")) << "the journal kept the outcome";
    EXPECT_FALSE(other->isDirty());
    EXPECT_EQ(loadProject(project).history.size(), 2u) << "recovered runs are saved at once";
    EXPECT_FALSE(QFile::exists(journalPathFor(project)));

    // Saving in the first window too leaves no journal behind.
    ASSERT_TRUE(window->files()->saveProjectTo(project));
    EXPECT_FALSE(QFile::exists(journalPathFor(project)));
}
