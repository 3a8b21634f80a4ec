// The What-if dock (ui/WhatIfPanel): predicted points beside the measured ones, samples without a
// trace named as not predictable (a real SQLite run), the settings in a saved project, and the
// advisor's order for traces whose answer is known.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>

#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTreeView>
#include <algorithm>
#include <cmath>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "model/SampleJson.h"
#include "support/TestSupport.h"
#include "ui/AdviceModel.h"
#include "ui/Charts.h"
#include "ui/MainWindow.h"
#include "ui/ResultsModel.h"
#include "ui/WhatIfPanel.h"

using namespace blobbench;
using namespace std::chrono_literals;
using blobbench::test::TempDir;
using blobbench::test::waitUntil;

namespace {

// A networked-looking sample: `exchanges` round trips of 100 bytes up and `recvPerExchange` down,
// `measuredMs` in all, no server time (so the model takes no loopback out: its answers are exact).
Sample traced(const std::string& scenario, const ParameterValues& point, double measuredMs, std::size_t exchanges,
              std::uint64_t recvPerExchange) {
    Sample s;
    s.runId = "run-traced";
    s.scenarioId = scenario;
    s.scenarioTitle = "Scenario " + scenario;
    s.point = point;
    s.engine = "postgres";
    s.rows = 10;
    s.contentBytes = exchanges * recvPerExchange;
    s.phases.fetch = std::chrono::nanoseconds(static_cast<std::int64_t>(measuredMs * 1e6));
    ExchangeTrace trace;
    for (std::size_t i = 0; i < exchanges; ++i) {
        Exchange e;
        e.sendBytes = 100;
        e.recvBytes = recvPerExchange;
        trace.exchanges.push_back(e);
    }
    WireCounters c;
    c.sendBytes = trace.sendBytes();
    c.recvBytes = trace.recvBytes();
    c.roundTrips = exchanges;
    s.tap = WireStats::of(c);
    s.tap.method = "in-process";
    s.trace = std::move(trace);
    return s;
}

Project projectWith(const QString& sqlitePath, std::vector<Sample> samples) {
    Project p = defaultProject(sqlitePath);
    RunRecord run;
    run.runId = QStringLiteral("run-traced");
    run.startedAt = QStringLiteral("2026-12-01T10:00:00.000Z");
    run.finishedAt = run.startedAt;
    run.outcome = QStringLiteral("complete");
    run.samples = std::move(samples);
    p.history.push_back(std::move(run));
    return p;
}

class WhatIfTest : public ::testing::Test {
protected:
    void open(Project project) {
        document = new ProjectDocument;
        document->reset(std::move(project));
        window = std::make_unique<MainWindow>(document);
        test::adoptAndShow(*window, document);
        window->showWhatIf();
        panel = window->whatIfPanel();
    }
    void TearDown() override { window.reset(); }

    TempDir dir;
    QString sqlitePath = QString::fromStdString(dir.file("reference.sqlite"));
    ProjectDocument* document = nullptr;
    std::unique_ptr<MainWindow> window;
    WhatIfPanel* panel = nullptr;
};

}  // namespace

TEST_F(WhatIfTest, DraggingTheLatencyMovesThePredictedPointsAndNotTheMeasuredOnes) {
    // Two samples: 1 exchange in 10 ms, 50 exchanges in 30 ms.
    open(projectWith(sqlitePath, {traced("a", {}, 10, 1, 1000), traced("b", {}, 30, 50, 1000)}));
    SampleChart* chart = window->chart(ChartKind::TimeVsBytes);
    ASSERT_EQ(chart->drawnMillis(false).size(), 2u);
    EXPECT_TRUE(chart->drawnMillis(true).empty()) << "switched off: nothing predicted is drawn";
    const std::vector<double> measured = chart->drawnMillis(false);

    panel->setOn(true);
    std::vector<double> predicted = chart->drawnMillis(true);
    ASSERT_EQ(predicted.size(), 2u);
    EXPECT_NEAR(predicted[0], 10, 1e-6) << "an unshaped link predicts what was measured";
    EXPECT_NEAR(predicted[1], 30, 1e-6);

    panel->latencySlider()->setValue(40);  // as a drag ends: 40 ms one-way, 80 ms a round trip
    predicted = chart->drawnMillis(true);
    ASSERT_EQ(predicted.size(), 2u);
    EXPECT_NEAR(predicted[0], 10 + 1 * 80, 1e-6);
    EXPECT_NEAR(predicted[1], 30 + 50 * 80, 1e-6);
    EXPECT_EQ(chart->drawnMillis(false), measured) << "the measured points stay where they were";
    EXPECT_EQ(chart->pointCount(), 2) << "and are all still drawn";
    ASSERT_FALSE(chart->predictedSeriesNames().isEmpty());
    EXPECT_TRUE(chart->predictedSeriesNames().front().contains(QStringLiteral("predicted at 40 ms one-way")))
        << chart->predictedSeriesNames().front().toStdString();
    EXPECT_EQ(chart->seriesNames().size(), 2) << "the measured series keep their names";

    // The round-trips chart follows too, once shown.
    window->showChart(ChartKind::TimeVsRoundTrips);
    SampleChart* trips = window->chart(ChartKind::TimeVsRoundTrips);
    ASSERT_EQ(trips->drawnMillis(true).size(), 2u);
    EXPECT_NEAR(trips->drawnMillis(true)[1], 30 + 50 * 80, 1e-6);

    panel->setOn(false);
    window->flushCharts();
    EXPECT_TRUE(chart->drawnMillis(true).empty());
    EXPECT_EQ(chart->drawnMillis(false), measured);
}

// #30: after the dock was closed its hollow markers stayed in every chart and legend.
TEST_F(WhatIfTest, ClosingTheDockSwitchesThePredictionsOff) {
    open(projectWith(sqlitePath, {traced("a", {}, 10, 1, 1000), traced("b", {}, 30, 50, 1000)}));
    SampleChart* chart = window->chart(ChartKind::TimeVsBytes);
    panel->setOn(true);
    panel->setLatency(40);
    ASSERT_EQ(chart->drawnMillis(true).size(), 2u);
    auto* dock = window->findChild<QDockWidget*>(QStringLiteral("whatIfDock"));
    ASSERT_NE(dock, nullptr);
    dock->close();
    window->flushCharts();
    EXPECT_FALSE(panel->settings().enabled);
    EXPECT_FALSE(document->project().whatIf.enabled) << "saved off with the project";
    EXPECT_TRUE(chart->drawnMillis(true).empty()) << "no predicted markers without the dock";
    EXPECT_TRUE(chart->predictedSeriesNames().isEmpty());
    EXPECT_EQ(chart->drawnMillis(false).size(), 2u) << "the measured points stay";

    // Shown again, the panel keeps its link; switching on draws the predictions again.
    window->showWhatIf();
    EXPECT_FALSE(panel->settings().enabled);
    EXPECT_EQ(panel->settings().link.latencyUpMs, 40);
    panel->setOn(true);
    window->flushCharts();
    EXPECT_EQ(chart->drawnMillis(true).size(), 2u);
}

TEST_F(WhatIfTest, SamplesOfARealSqliteRunAreNamedNotPredictable) {
    open(defaultProject(sqlitePath));
    window->setDefaultDataset(sqlitePath, 300);
    test::prepareSmallDataset(sqlitePath, 300);
    panel->setOn(true);
    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    window->runCurrent();
    ASSERT_TRUE(finished.count() > 0 || finished.wait(120000));
    ASSERT_GT(window->resultsModel()->rowCount(), 0);
    window->flushCharts();
    const QString text = panel->predictableText();
    EXPECT_TRUE(text.startsWith(QStringLiteral("0 sample(s) predictable"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("not predictable: no exchange trace"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("embedded"))) << "the reason the sample has no trace";
    EXPECT_EQ(panel->findChild<QLabel*>(QStringLiteral("whatIfStatus"))->text().count(QLatin1Char('\n')), 0);
    for (double ms : panel->predictedMillis())
        EXPECT_TRUE(std::isnan(ms)) << "never a made-up prediction";
    EXPECT_TRUE(window->chart(ChartKind::TimeVsBytes)->drawnMillis(true).empty());
    EXPECT_FALSE(window->chart(ChartKind::TimeVsBytes)->drawnMillis(false).empty());
    panel->flushAdvice();
    EXPECT_TRUE(panel->advice().empty());
    EXPECT_FALSE(panel->curveChart()->notice().isEmpty()) << "the advisor's chart says why it is empty";
    EXPECT_FALSE(panel->measureButton()->isEnabled()) << "SQLite is embedded: no link to emulate";
}

TEST_F(WhatIfTest, ASampleWhoseTraceTheLoadLeftUnreadSaysSo) {
    // Past a load's trace budget a sample keeps its trace as text (TraceLoadScope): not predicted,
    // and the panel says why rather than "saved before traces".
    Sample unread = traced("b", {}, 30, 50, 1000);
    unread.unreadTrace = traceToBase64(*unread.trace).toStdString();
    unread.trace.reset();
    open(projectWith(sqlitePath, {traced("a", {}, 10, 1, 1000), unread}));
    panel->setOn(true);
    const QString text = panel->predictableText();
    EXPECT_TRUE(text.startsWith(QStringLiteral("1 sample(s) predictable; 1 not predictable"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("its trace was left unread"))) << text.toStdString();
    ASSERT_EQ(window->chart(ChartKind::TimeVsBytes)->drawnMillis(true).size(), 1u);
}

TEST_F(WhatIfTest, SettingsRoundTripThroughASavedProject) {
    open(projectWith(sqlitePath, {traced("a", {}, 10, 1, 1000)}));
    panel->setOn(true);
    panel->setLatency(40);
    panel->setBandwidth(false, 2'000'000);
    panel->setBandwidth(true, 512'000);
    panel->setAxis(QStringLiteral("bandwidth"));
    const WhatIfSettings expected{true, LinkSettings{40, 40, 512'000, 2'000'000}, QStringLiteral("bandwidth")};
    EXPECT_EQ(document->project().whatIf, expected);
    EXPECT_TRUE(document->isDirty());
    const QString path = QString::fromStdString(dir.file("whatif.blobbench.json"));
    ASSERT_TRUE(window->files()->saveProjectTo(path));

    window.reset();
    open(defaultProject(sqlitePath));
    EXPECT_EQ(panel->settings(), WhatIfSettings{});
    window->findChild<QDockWidget*>(QStringLiteral("whatIfDock"))->hide();
    ASSERT_TRUE(window->files()->openProjectFile(path));
    EXPECT_EQ(panel->settings(), expected);
    EXPECT_TRUE(window->findChild<QDockWidget*>(QStringLiteral("whatIfDock"))->isVisible())
        << "a project that shows predictions opens with the dock that says so";
    EXPECT_EQ(panel->latencySlider()->value(), 40);
    EXPECT_EQ(panel->findChild<QLineEdit*>(QStringLiteral("whatIfDown"))->text(), QStringLiteral("2 Mbit/s"));
    EXPECT_EQ(panel->findChild<QLineEdit*>(QStringLiteral("whatIfUp"))->text(), QStringLiteral("512 kbit/s"));
    EXPECT_TRUE(panel->predictionLabel().contains(QStringLiteral("2 Mbit/s down, 512 kbit/s up")));
    ASSERT_EQ(window->chart(ChartKind::TimeVsBytes)->drawnMillis(true).size(), 1u) << "and it is on again";
}

TEST_F(WhatIfTest, AdvisorRanksParameterSetsByTheLinkAndChartsWhereTheyCross) {
    // "whole": one exchange, slow on loopback (100 ms); "cursor": 100 exchanges, fast (50 ms).
    // Unshaped, cursor wins; at 40 ms one-way whole takes 100 + 80 = 180 ms and cursor
    // 50 + 100 x 80 = 8050 ms; they cross where 100 + 2L = 50 + 200L: L = 0.25 ms.
    const ParameterValues whole{{"fetch_mode", "whole"}}, cursor{{"fetch_mode", "cursor"}};
    open(projectWith(sqlitePath, {traced("a", whole, 100, 1, 10'000), traced("a", whole, 100, 1, 10'000),
                                  traced("a", cursor, 50, 100, 100), traced("a", cursor, 50, 100, 100)}));
    // The project's values are SQLite's (no fetch_mode): the set measured first is the current one.
    panel->flushAdvice();
    ASSERT_EQ(panel->advice().size(), 1u);
    auto ranked = panel->advice().front().ranked;
    ASSERT_EQ(ranked.size(), 2u);
    EXPECT_EQ(ranked[0].point, cursor);
    EXPECT_TRUE(ranked[0].best);
    EXPECT_EQ(ranked[1].point, whole);
    EXPECT_TRUE(ranked[1].current);

    panel->setLatency(40);
    panel->flushAdvice();
    ranked = panel->advice().front().ranked;
    ASSERT_EQ(ranked.size(), 2u);
    EXPECT_EQ(ranked[0].point, whole) << "at 40 ms the single exchange wins";
    EXPECT_TRUE(ranked[0].best && ranked[0].current);
    EXPECT_EQ(ranked[0].predicted, 180ms);
    EXPECT_EQ(ranked[1].predicted, 8050ms);
    EXPECT_NEAR(ranked[1].savingVsCurrent, (180.0 - 8050.0) / 180.0, 1e-9);

    // The tree marks the best; the chart draws both sets over 0-200 ms.
    QTreeView* tree = panel->adviceTree();
    const AdviceModel* advice = panel->adviceModel();
    QAbstractItemModelTester tester(panel->adviceModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    ASSERT_EQ(advice->rowCount(), 1);
    const QModelIndex top = advice->index(0, 0);
    ASSERT_EQ(advice->rowCount(top), 2);
    EXPECT_EQ(top.data().toString(), QStringLiteral("Scenario a — fetch_mode"));
    EXPECT_TRUE(tree->isFirstColumnSpanned(0, {})) << "the scenario's name has its row";
    EXPECT_TRUE(tree->isExpanded(top));
    EXPECT_TRUE(advice->index(0, 0, top).data().toString().startsWith(QStringLiteral("★ whole")));
    EXPECT_TRUE(advice->index(0, 0, top).data(Qt::FontRole).value<QFont>().bold()) << "the best set";
    EXPECT_FALSE(advice->index(1, 0, top).data(Qt::FontRole).isValid());
    EXPECT_TRUE(advice->index(1, AdviceModel::VersusCurrent, top).data().toString().contains(QStringLiteral("slower")));
    EXPECT_EQ(panel->curveChart()->curveCount(), 2);
    EXPECT_TRUE(panel->curveChart()->xAxisTitle().contains(QStringLiteral("latency")));

    // A row picked stays picked when the ranking is redone (Measure at this link runs that set).
    tree->setCurrentIndex(advice->index(1, 0, advice->index(0, 0)));
    panel->setLatency(41);
    panel->flushAdvice();
    ASSERT_TRUE(tree->currentIndex().isValid());
    EXPECT_TRUE(tree->currentIndex().data().toString().startsWith(QStringLiteral("cursor")))
        << tree->currentIndex().data().toString().toStdString();

    panel->setAxis(QStringLiteral("bandwidth"));
    panel->flushAdvice();
    EXPECT_TRUE(panel->curveChart()->xAxisTitle().contains(QStringLiteral("Bandwidth")));

    // The Sweep chart draws each point's predicted median beside the measured one.
    panel->setLatency(40);
    panel->setOn(true);
    window->showChart(ChartKind::Sweep);
    SampleChart* sweep = window->chart(ChartKind::Sweep);
    std::vector<double> medians = sweep->drawnMillis(true);
    std::sort(medians.begin(), medians.end());
    ASSERT_EQ(medians.size(), 2u);
    EXPECT_NEAR(medians[0], 180, 1e-6);
    EXPECT_NEAR(medians[1], 8050, 1e-6);
    ASSERT_EQ(sweep->predictedSeriesNames().size(), 1);
    EXPECT_TRUE(sweep->predictedSeriesNames().front().endsWith(QStringLiteral("predicted at 40 ms one-way, unlimited")))
        << sweep->predictedSeriesNames().front().toStdString();
    EXPECT_EQ(sweep->pointCount(), 2) << "the measured medians are still there";
}
