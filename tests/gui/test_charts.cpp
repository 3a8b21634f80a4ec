#include <gtest/gtest.h>

#include <QChart>
#include <QChartView>
#include <QElapsedTimer>
#include <QImage>
#include <QLineSeries>
#include <QMouseEvent>
#include <QToolTip>

#include "GuiTestSupport.h"
#include "ui/Charts.h"

using namespace blobbench;

namespace {

Sample sample(const std::string& scenario, std::uint64_t bytes, double ms) {
    Sample s;
    s.scenarioId = scenario;
    s.scenarioTitle = "Scenario " + scenario;
    s.contentBytes = bytes;
    s.rows = 10;
    s.phases.prepare = std::chrono::microseconds(100);
    s.phases.execute = std::chrono::microseconds(200);
    s.phases.fetch = std::chrono::nanoseconds(static_cast<std::int64_t>(ms * 1e6));
    s.tap = WireStats::unavailable("not applicable (embedded)");
    return s;
}

}  // namespace

TEST(Charts, ScatterHasOneSeriesPerScenarioAndSkipsFailedSamples) {
    QWidget parent;
    auto chart = makeChart(ChartKind::TimeVsBytes, &parent);
    EXPECT_EQ(chart->pointCount(), 0);
    EXPECT_FALSE(chart->notice().isEmpty());
    chart->addSample(sample("a", 1000, 1));
    chart->addSample(sample("a", 2000, 2));
    chart->addSample(sample("b", 5000000, 30));  // changes the axis unit: the chart rebuilds
    Sample failed = sample("c", 1, 1);
    failed.status = SampleStatus::Failed;
    chart->addSample(failed);
    EXPECT_EQ(chart->pointCount(), 3);
    EXPECT_EQ(chart->seriesNames(), (QStringList{QStringLiteral("Scenario a"), QStringLiteral("Scenario b")}));
    EXPECT_TRUE(chart->notice().isEmpty());
    chart->setLogScale(true);
    EXPECT_EQ(chart->pointCount(), 3);
    chart->addSample(sample("a", 0, 1));  // no bytes: not drawable on a log axis
    EXPECT_EQ(chart->pointCount(), 3);
    chart->setLogScale(false);
    EXPECT_EQ(chart->pointCount(), 4);
    chart->clear();
    EXPECT_EQ(chart->pointCount(), 0);
}

TEST(Charts, HoveringAPointShowsItsScenarioAndFigures) {
    auto chart = makeChart(ChartKind::TimeVsBytes, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    chart->addSample(sample("a", 1000, 1));
    chart->addSample(sample("b", 3000000, 4));
    owner->resize(800, 500);
    owner->show();
    auto* view = owner->findChild<QChartView*>();
    ASSERT_NE(view, nullptr);
    const auto series = view->chart()->series();
    ASSERT_EQ(series.size(), 2);
    auto* b = qobject_cast<QLineSeries*>(series[1]);
    ASSERT_NE(b, nullptr);
    const QPoint at = view->mapFromScene(view->chart()->mapToPosition(b->at(0), b)) + QPoint(2, 1);
    QMouseEvent move(QEvent::MouseMove, QPointF(at), view->viewport()->mapToGlobal(QPointF(at)), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view->viewport(), &move);
    EXPECT_TRUE(QToolTip::text().contains(QStringLiteral("Scenario b"))) << QToolTip::text().toStdString();
    EXPECT_TRUE(QToolTip::text().contains(QStringLiteral("3.0 MB"))) << QToolTip::text().toStdString();
    // Far from every point: no tooltip.
    QMouseEvent away(QEvent::MouseMove, QPointF(5, 5), view->viewport()->mapToGlobal(QPointF(5, 5)), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view->viewport(), &away);
    EXPECT_TRUE(test::waitUntil([] { return QToolTip::text().isEmpty(); }, 3000)) << QToolTip::text().toStdString();
    chart.reset();
}

TEST(Charts, RoundTripsAreNeverInvented) {
    QWidget parent;
    auto chart = makeChart(ChartKind::TimeVsRoundTrips, &parent);
    chart->addSample(sample("a", 1000, 1));
    EXPECT_EQ(chart->pointCount(), 0);
    EXPECT_TRUE(chart->notice().contains(QStringLiteral("not applicable (embedded)")));
    Sample tapped = sample("b", 1000, 4);
    WireCounters c;
    c.roundTrips = 12;
    tapped.tap = WireStats::of(c);
    chart->addSample(tapped);
    EXPECT_EQ(chart->pointCount(), 1);
    Sample counterless = sample("c", 1000, 4);
    counterless.nativePhysical = WireStats::of(WireCounters{});  // counters but no round-trip count
    chart->addSample(counterless);
    EXPECT_EQ(chart->pointCount(), 1);
}

TEST(Charts, PhasesAndLiveThroughput) {
    QWidget parent;
    auto phases = makeChart(ChartKind::Phases, &parent);
    phases->setSamples({sample("a", 1, 2), sample("a", 1, 4), sample("b", 1, 1)});
    EXPECT_EQ(phases->pointCount(), 6);  // two scenarios x three phases
    auto live = makeChart(ChartKind::LiveThroughput, &parent);
    EXPECT_FALSE(live->notice().isEmpty());
    live->addThroughput(0.1, 500);
    live->addThroughput(0.2, 700);
    EXPECT_EQ(live->pointCount(), 2);
    live->clear();
    EXPECT_EQ(live->pointCount(), 0);
}

// Not a pass/fail timing test: prints how long a 10,000-point chart takes to redraw.
TEST(Charts, TenThousandPointsRedraw) {
    {
        // Fonts and the style are loaded on the first paint of the process: not the chart's cost.
        auto warm = makeChart(ChartKind::TimeVsBytes, nullptr);
        std::unique_ptr<QWidget> owner(warm->widget());
        warm->addSample(sample("warm", 1, 1));
        owner->resize(1000, 500);
        (void)owner->grab();
    }
    auto chart = makeChart(ChartKind::TimeVsBytes, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    std::vector<Sample> samples;
    for (int i = 0; i < 10000; ++i) {
        samples.push_back(sample(std::to_string(i % 7), 1000 + static_cast<std::uint64_t>(i) * 12000,
                                 1 + i * 0.01 + (i * 7919 % 1000) * 0.02));
    }
    QElapsedTimer timer;
    timer.start();
    chart->setSamples(samples);
    const qint64 load = timer.restart();
    owner->resize(1000, 500);
    owner->show();
    QImage first = owner->grab().toImage();
    const qint64 firstPaint = timer.restart();
    QImage second = owner->grab().toImage();
    const qint64 redraw = timer.elapsed();
    std::printf("10,000 points: load %lld ms, first paint %lld ms, redraw %lld ms\n", static_cast<long long>(load),
                static_cast<long long>(firstPaint), static_cast<long long>(redraw));
    EXPECT_EQ(chart->pointCount(), 10000);
    EXPECT_FALSE(second.isNull());
    if (const QString dump = qEnvironmentVariable("BLOBBENCH_CHART_DUMP"); !dump.isEmpty()) {
        second.save(dump);  // to look at what was timed
    }
    chart.reset();
}
