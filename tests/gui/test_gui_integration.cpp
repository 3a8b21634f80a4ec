// The window against a real PostgreSQL server (label integration): a run through the wire tap over
// an emulated link records that link, and a sweep of a PostgreSQL tunable runs every point.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTreeWidget>
#include <set>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "engine/data/Dataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "support/TestSupport.h"
#include "ui/HistoryPanel.h"
#include "ui/LinkPanel.h"
#include "ui/MainWindow.h"
#include "ui/SweepEditor.h"

using namespace blobbench;
using blobbench::test::TempDir;

namespace {

// A cell of the history (its model), as the view shows it.
QString historyText(const blobbench::HistoryPanel* panel, int row, int column, int role = Qt::DisplayRole) {
    return panel->model()->index(row, column).data(role).toString();
}

}  // namespace

TEST(GuiIntegration, PostgresRunThroughAnEmulatedLinkAndASweep) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    test::ensurePostgresDataset(conninfo);
    TempDir dir;
    auto* document = new ProjectDocument;
    document->reset(defaultProject(QString::fromStdString(dir.file("unused.sqlite"))));
    ConnectionProfile pg;
    pg.name = QStringLiteral("PostgreSQL under test");
    pg.engine = QStringLiteral("postgres");
    pg.target = QString::fromStdString(conninfo);
    const int pgIndex = document->addConnection(pg);
    // The PostgreSQL reference suite, whose scenarios read the tables prepared above.
    Project project = document->project();
    project.scenarios.clear();
    for (const Scenario& s : referenceSuite(Dialect::PostgreSQL)) {
        ScenarioDef def = ScenarioDef::fromScenario(s);
        def.enabled = s.id == "short-blobs" || s.id == "blob-ids";
        project.scenarios.push_back(def);
    }
    project.currentConnection = pgIndex;
    document->reset(project);
    MainWindow window(document);
    test::adoptAndShow(window, document);

    // Link emulation from the window's controls: 25 ms each way, bandwidth unlimited.
    LinkPanel* link = window.linkPanel();
    ASSERT_TRUE(link->tapBox()->isEnabled());
    ASSERT_TRUE(link->tapBox()->isChecked()) << "networked engines go through the tap by default";
    link->latencyBox(true)->setValue(25);
    link->latencyBox(false)->setValue(25);
    ASSERT_TRUE(document->project().current()->useWireTap);

    window.setRepetitions(2);
    ASSERT_TRUE(test::runAndWait(window, [&] { window.runAll(); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    ASSERT_EQ(document->project().history.size(), 1U);
    const RunRecord& shaped = document->project().history.back();
    EXPECT_EQ(shaped.link.latencyUpMs, 25);
    EXPECT_EQ(shaped.link.latencyDownMs, 25);
    EXPECT_EQ(shaped.outcome, QStringLiteral("complete"));
    ASSERT_EQ(shaped.samples.size(), 4U);
    for (const Sample& s : shaped.samples) {
        ASSERT_EQ(s.status, SampleStatus::Complete) << s.error;
        ASSERT_TRUE(s.tap.available) << s.tap.unavailableReason;
        ASSERT_TRUE(s.tap.counters.roundTrips.has_value());
        EXPECT_GE(*s.tap.counters.roundTrips, 1U);
        // The statement crosses the link at least once each way: 50 ms is a floor, not a timing.
        EXPECT_GE(s.phases.elapsed(), std::chrono::milliseconds(50)) << s.scenarioId;
    }
    const QString described = QStringLiteral("up unlimited + 25 ms, down unlimited + 25 ms");
    EXPECT_TRUE(window.logView()->toPlainText().contains(QStringLiteral("Link: ") + described));
    EXPECT_EQ(historyText(window.historyPanel(), 0, HistoryModel::Link), described);
    window.flushCharts();
    EXPECT_EQ(window.chart(ChartKind::TimeVsRoundTrips)->pointCount(), 4);

    // Unticked: the next run is measured unshaped, and says so.
    link->tapBox()->click();
    ASSERT_TRUE(test::runAndWait(window, [&] { window.runAll(); }));
    ASSERT_EQ(document->project().history.size(), 2U);
    EXPECT_EQ(document->project().history.back().link, LinkSettings{});
    EXPECT_EQ(historyText(window.historyPanel(), 1, HistoryModel::Link), QStringLiteral("unshaped"));

    // A sweep of a PostgreSQL tunable: every point runs, the chart has it on x.
    SweepEditor* editor = window.sweepEditor();
    editor->newSweep();
    SweepDef sweep = document->project().sweeps.front();
    sweep.axes.front().parameter = QStringLiteral("result_format");
    sweep.axes.front().values = {QStringLiteral("text"), QStringLiteral("binary")};
    sweep.axes.front().range.reset();
    document->setSweep(0, sweep);
    ASSERT_TRUE(editor->runButton()->isEnabled()) << editor->previewText().toStdString();
    ASSERT_TRUE(test::runAndWait(window, [&] { editor->runButton()->click(); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    const RunRecord& swept = document->project().history.back();
    EXPECT_EQ(swept.sweepName, sweep.name);
    ASSERT_EQ(swept.samples.size(), 2U * 2U);  // 2 points x 2 scenarios x 1 repetition
    std::set<std::string> formats;
    for (const Sample& s : swept.samples) {
        EXPECT_EQ(s.status, SampleStatus::Complete) << s.error;
        formats.insert(s.point.at("result_format"));
    }
    EXPECT_EQ(formats, (std::set<std::string>{"text", "binary"}));
    window.flushCharts();
    EXPECT_TRUE(window.chart(ChartKind::Sweep)->xAxisTitle().startsWith(QStringLiteral("result_format")));
    EXPECT_EQ(window.chart(ChartKind::Sweep)->pointCount(), 4);
    // A categorical sweep: its values in the sweep's order, not sorted by name.
    EXPECT_EQ(window.chart(ChartKind::Sweep)->xAxisLabels(),
              (QStringList{QStringLiteral("text"), QStringLiteral("binary")}));
    // Text and binary are two series on Time vs bytes, each named by its format.
    const QString names = window.chart(ChartKind::TimeVsBytes)->seriesNames().join(QLatin1Char('|'));
    EXPECT_TRUE(names.contains(QStringLiteral("format text"))) << names.toStdString();
    EXPECT_TRUE(names.contains(QStringLiteral("format binary"))) << names.toStdString();
}
