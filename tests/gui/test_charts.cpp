#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QElapsedTimer>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QTemporaryDir>
#include <QToolTip>

#include "GuiTestSupport.h"
#include "ui/Charts.h"
#include "ui/Units.h"
#include "ui/charts/ChartFrame.h"

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

// ---- sweeps ------------------------------------------------------------------------------------

namespace {

Sample pointSample(const std::string& scenario, const ParameterValues& point, double ms) {
    Sample s = sample(scenario, 1000, ms);
    s.runId = "run-1";
    s.point = point;
    return s;
}

}  // namespace

TEST(Charts, SweepGridHasOneSeriesPerScenarioAndSecondAxisValue) {
    auto chart = makeChart(ChartKind::Sweep, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    std::vector<Sample> samples;
    // mmap_size on x (three values), blob_api as the grid's second axis (two): 2 scenarios x 2 lines.
    for (const char* scenario : {"a", "b"}) {
        for (const char* api : {"false", "true"}) {
            for (const char* mmap : {"65536", "1048576", "16777216"}) {
                for (int rep = 0; rep < 2; ++rep)
                    samples.push_back(pointSample(scenario, {{"mmap_size", mmap}, {"blob_api", api}}, 1 + rep));
            }
        }
    }
    chart->setSamples(samples);
    EXPECT_EQ(chart->seriesNames().size(), 4);
    EXPECT_TRUE(chart->seriesNames().contains(QStringLiteral("Scenario a, blob_api=true")))
        << chart->seriesNames().join(QLatin1Char('|')).toStdString();
    EXPECT_EQ(chart->pointCount(), 12);
    EXPECT_TRUE(chart->xAxisTitle().startsWith(QStringLiteral("mmap_size"))) << chart->xAxisTitle().toStdString();
    // Values spanning two decades: a log axis whose ticks read like sizes, not "1e+06".
    EXPECT_TRUE(chart->xAxisTitle().contains(QStringLiteral("log"))) << chart->xAxisTitle().toStdString();
    chart->setParameterSpecs(
        {ParameterSpec{.id = "mmap_size", .label = "mmap", .unit = "B"}, ParameterSpec{.id = "blob_api"}});
    EXPECT_EQ(chart->xAxisLabels(), (QStringList{QStringLiteral("64K"), QStringLiteral("1M"), QStringLiteral("16M")}));
    EXPECT_EQ(chart->xAxisTitle(), QStringLiteral("mmap_size (B, log)"));
}

TEST(Charts, SweepTickLabelsFollowTheTunablesUnit) {
    EXPECT_EQ(formatTunableValue(65536, QStringLiteral("B")), QStringLiteral("64K"));
    EXPECT_EQ(formatTunableValue(1048576, QStringLiteral("B")), QStringLiteral("1M"));
    EXPECT_EQ(formatTunableValue(1536 * 1024, QStringLiteral("B")), QStringLiteral("1536K"));
    EXPECT_EQ(formatTunableValue(65535, QStringLiteral("B")), QStringLiteral("64K-1"));  // beside "16K"
    EXPECT_EQ(formatTunableValue(1000000, QStringLiteral("B")), QStringLiteral("1M"));
    EXPECT_EQ(formatTunableValue(1000000, QString()), QStringLiteral("1M"));
    EXPECT_EQ(formatTunableValue(2500, QString()), QStringLiteral("2.5k"));
    EXPECT_EQ(formatTunableValue(900, QString()), QStringLiteral("900"));
    EXPECT_EQ(formatTunableValue(2000000, QStringLiteral("bit/s")), QStringLiteral("2 Mbit/s"));

    auto chart = makeChart(ChartKind::Sweep, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    chart->setParameterSpecs({ParameterSpec{.id = "bandwidth", .unit = "bit/s"}});
    std::vector<Sample> samples;
    for (const char* rate : {"512000", "2000000", "1000000000"})
        samples.push_back(pointSample("a", {{"bandwidth", rate}}, 3));
    chart->setSamples(samples);
    EXPECT_EQ(chart->xAxisLabels(),
              (QStringList{QStringLiteral("512 kbit/s"), QStringLiteral("2 Mbit/s"), QStringLiteral("1 Gbit/s")}));

    // 0 (off) with values over two decades: still a log axis, the 0 a decade below the smallest.
    chart->setParameterSpecs({ParameterSpec{.id = "mmap_size", .unit = "B"}});
    samples.clear();
    for (const char* size : {"0", "1048576", "268435456"})
        samples.push_back(pointSample("a", {{"mmap_size", size}}, 3));
    chart->setSamples(samples);
    EXPECT_EQ(chart->xAxisTitle(), QStringLiteral("mmap_size (B, log)"));
    EXPECT_EQ(chart->xAxisLabels(), (QStringList{QStringLiteral("0"), QStringLiteral("1M"), QStringLiteral("256M")}));
    EXPECT_EQ(chart->pointCount(), 3);

    // #30: the inline sizes 0 to 65535 (64x) read "0 1K 4K 16K 64K-1" on a log axis, where "0" and
    // "1K" overlapped on a linear one and 65535 read "65.5k" beside "16K".
    chart->setParameterSpecs({ParameterSpec{.id = "max_inline_blob_size", .unit = "B"}});
    samples.clear();
    for (const char* size : {"0", "1024", "4096", "16384", "65535"})
        samples.push_back(pointSample("a", {{"max_inline_blob_size", size}}, 3));
    chart->setSamples(samples);
    EXPECT_EQ(chart->xAxisTitle(), QStringLiteral("max_inline_blob_size (B, log)"));
    EXPECT_EQ(chart->xAxisLabels(), (QStringList{QStringLiteral("0"), QStringLiteral("1K"), QStringLiteral("4K"),
                                                 QStringLiteral("16K"), QStringLiteral("64K-1")}));
    // On a linear axis a label too close to the one before gives way; the last keeps its own.
    chart->setParameterSpecs({ParameterSpec{.id = "fetch_size"}});
    samples.clear();
    for (const char* size : {"1000", "1010", "1500", "1990", "2000"})
        samples.push_back(pointSample("a", {{"fetch_size", size}}, 3));
    chart->setSamples(samples);
    EXPECT_EQ(chart->xAxisLabels(), (QStringList{QStringLiteral("1k"), QStringLiteral("1.5k"), QStringLiteral("2k")}));
    EXPECT_EQ(chart->pointCount(), 5);
}

TEST(Charts, SweepPlotsBytesAndRoundTripsWhereMeasured) {
    auto chart = makeChart(ChartKind::Sweep, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    std::vector<Sample> samples;
    for (int size : {1000, 2000, 4000}) {
        Sample s = pointSample("a", {{"fetch", std::to_string(size)}}, 2);
        WireCounters c;
        c.recvBytes = static_cast<std::uint64_t>(size) * 10;
        c.roundTrips = static_cast<std::uint64_t>(100000 / size);
        s.tap = WireStats::of(c);
        samples.push_back(s);
    }
    chart->setSamples(samples);
    EXPECT_TRUE(chart->yAxisTitle().startsWith(QStringLiteral("Median elapsed time")));
    chart->setSweepMetric(SweepMetric::BytesReceived);
    EXPECT_EQ(chart->pointCount(), 3);
    EXPECT_TRUE(chart->yAxisTitle().startsWith(QStringLiteral("Median bytes received")))
        << chart->yAxisTitle().toStdString();
    // The metric box in the chart drives the same.
    auto* box = chart->widget()->findChild<QComboBox*>(QStringLiteral("sweepMetric"));
    ASSERT_NE(box, nullptr);
    EXPECT_EQ(box->currentData().toInt(), static_cast<int>(SweepMetric::BytesReceived));
    const int trips = box->findData(static_cast<int>(SweepMetric::RoundTrips));
    box->setCurrentIndex(trips);
    emit box->activated(trips);
    EXPECT_EQ(chart->yAxisTitle(), QStringLiteral("Median round trips"));
    EXPECT_EQ(chart->pointCount(), 3);
    auto* series = qobject_cast<QLineSeries*>(chart->widget()->findChild<QChartView*>()->chart()->series().front());
    ASSERT_NE(series, nullptr);
    EXPECT_DOUBLE_EQ(series->at(0).y(), 100.0);  // 100000 / 1000

    // An embedded engine's sweep: no wire, so nothing plotted and the reason shown.
    std::vector<Sample> embedded;
    for (const char* v : {"1", "2"})
        embedded.push_back(pointSample("a", {{"cache", v}}, 2));
    chart->setSamples(embedded);
    EXPECT_EQ(chart->pointCount(), 0);
    EXPECT_TRUE(chart->notice().contains(QStringLiteral("embedded"))) << chart->notice().toStdString();
    chart->setSweepMetric(SweepMetric::Time);
    EXPECT_EQ(chart->pointCount(), 2);
    EXPECT_TRUE(chart->notice().isEmpty());
}

// ---- comparison --------------------------------------------------------------------------------

TEST(Charts, ComparisonHasBaseAndNewPerScenarioAndMarksSignificantChanges) {
    std::vector<Sample> base, candidate;
    for (int rep = 0; rep < 5; ++rep) {
        base.push_back(sample("fast", 1000, 10 + rep * 0.1));  // new: twice as fast
        candidate.push_back(sample("fast", 1000, 5 + rep * 0.1));
        base.push_back(sample("same", 1000, 8 + rep * 0.2));  // new: the same times
        candidate.push_back(sample("same", 1000, 8 + (4 - rep) * 0.2));
        base.push_back(sample("gone", 1000, 3));  // only in base
    }
    const std::vector<PointComparison> rows = compareRuns(base, candidate);
    ASSERT_EQ(rows.size(), 3U);
    auto chart = makeComparisonChart(rows, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    owner->resize(800, 400);
    owner->show();
    ASSERT_EQ(chart->categories().size(), 3);
    EXPECT_EQ(chart->barCount(), 5);      // "gone" has no new bar
    EXPECT_EQ(chart->whiskerCount(), 5);  // one per bar: five repetitions each
    EXPECT_EQ(chart->significant(), std::vector<int>{0});
    // The star and the ratio of the medians (5.4 / 10.4 ms) first: a long title is elided at its end.
    EXPECT_EQ(chart->categories()[0], QStringLiteral("* ×0.52 Scenario fast"));
    EXPECT_FALSE(chart->categories()[1].contains(QLatin1Char('*')));
    EXPECT_TRUE(chart->yAxisTitle().contains(QStringLiteral("ms")));
    const std::vector<double> baseMedians = chart->medians(false), newMedians = chart->medians(true);
    ASSERT_EQ(baseMedians.size(), 3U);
    // elapsed = execute 0.2 + fetch (prepare apart)
    EXPECT_NEAR(baseMedians[0], 10.2 + 0.2, 1e-9);
    EXPECT_NEAR(newMedians[0], 5.2 + 0.2, 1e-9);
    EXPECT_TRUE(std::isnan(newMedians[2]));
    // The whiskers are drawn over the plot (one path item in the scene).
    auto* view = chart->widget()->findChild<QChartView*>();
    ASSERT_NE(view, nullptr);
    QList<int> elements;
    for (QGraphicsItem* item : view->scene()->items()) {
        if (auto* path = dynamic_cast<QGraphicsPathItem*>(item))
            elements << path->path().elementCount();
    }
    // Six elements a whisker (the line and two caps), fewer where a zero-length line is dropped
    // ("gone": five equal times).
    ASSERT_EQ(elements.size(), 1);
    EXPECT_GE(elements[0], 5 * 4);
    EXPECT_LE(elements[0], 5 * 6);
}

// ---- series per parameter set, wire bytes, phases categories, ticks, export ---------------------

namespace {

Sample wireSample(const std::string& scenario, const std::string& compression, std::uint64_t recv, double ms) {
    Sample s = sample(scenario, 1000000, ms);
    s.scenarioTitle = scenario == "short" ? "Short BLOBs" : "Scenario " + scenario;
    s.engine = "firebird";
    s.connection = "Firebird 5 @ localhost";
    s.parameters = ParameterValues{{"wire_compression", compression}, {"max_inline_blob_size", "65535"}};
    WireCounters c;
    c.recvBytes = recv;
    c.sendBytes = recv / 100;
    c.roundTrips = 40;
    s.tap = WireStats::of(c);
    return s;
}

QStackedBarSeries* stackedSeries(SampleChart& chart) {
    const auto series = chart.widget()->findChild<QChartView*>()->chart()->series();
    return series.isEmpty() ? nullptr : qobject_cast<QStackedBarSeries*>(series.front());
}

}  // namespace

TEST(Charts, CompressionOnAndOffAreSeparateSeriesOnTheWireAxis) {
    auto chart = makeChart(ChartKind::TimeVsBytes, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    chart->addSample(wireSample("short", "false", 20600000, 30));
    chart->addSample(wireSample("short", "true", 3700000, 25));
    chart->addSample(wireSample("short", "true", 3710000, 26));
    EXPECT_EQ(chart->bytesAxis(), BytesAxis::WireReceived);  // the default where wire statistics exist
    EXPECT_EQ(chart->seriesNames(), (QStringList{QStringLiteral("Short BLOBs · compression off"),
                                                 QStringLiteral("Short BLOBs · compression on")}));
    EXPECT_TRUE(chart->xAxisTitle().startsWith(QStringLiteral("Bytes received on the wire")))
        << chart->xAxisTitle().toStdString();
    const auto series = chart->widget()->findChild<QChartView*>()->chart()->series();
    ASSERT_EQ(series.size(), 2);
    const double off = qobject_cast<QXYSeries*>(series[0])->at(0).x();
    const double on = qobject_cast<QXYSeries*>(series[1])->at(0).x();
    EXPECT_NEAR(off / on, 20600000.0 / 3700000.0, 1e-6);  // the same unit: the ratio of the bytes

    chart->setBytesAxis(BytesAxis::WireSent);
    EXPECT_TRUE(chart->xAxisTitle().startsWith(QStringLiteral("Bytes sent on the wire")));
    chart->setBytesAxis(BytesAxis::Content);
    EXPECT_TRUE(chart->xAxisTitle().startsWith(QStringLiteral("Content bytes")));
    EXPECT_EQ(chart->pointCount(), 3);
    // The box in the chart drives the same.
    auto* box = chart->widget()->findChild<QComboBox*>(QStringLiteral("bytesAxis"));
    ASSERT_NE(box, nullptr);
    EXPECT_TRUE(box->isEnabled());
    const int received = box->findData(static_cast<int>(BytesAxis::WireReceived));
    box->setCurrentIndex(received);
    emit box->activated(received);
    EXPECT_EQ(chart->bytesAxis(), BytesAxis::WireReceived);
}

TEST(Charts, EmbeddedSamplesHaveContentBytesOnlyAndTheAxisSaysSo) {
    auto chart = makeChart(ChartKind::TimeVsBytes, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    chart->addSample(sample("a", 1000, 1));
    EXPECT_EQ(chart->bytesAxis(), BytesAxis::Content);
    EXPECT_TRUE(chart->xAxisTitle().contains(QStringLiteral("no wire statistics")))
        << chart->xAxisTitle().toStdString();
    EXPECT_TRUE(chart->xAxisTitle().contains(QStringLiteral("embedded")));
    EXPECT_FALSE(chart->widget()->findChild<QComboBox*>(QStringLiteral("bytesAxis"))->isEnabled());
    EXPECT_EQ(chart->pointCount(), 1);
}

TEST(Charts, ConnectionsAndFormatsAreSeparateSeriesNamedByWhatDiffers) {
    auto chart = makeChart(ChartKind::TimeVsRoundTrips, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    Sample text = wireSample("a", "false", 1000, 1);
    text.parameters = ParameterValues{{"result_format", "text"}};
    Sample binary = text;
    binary.parameters = ParameterValues{{"result_format", "binary"}};
    Sample other = binary;
    other.connection = "PostgreSQL 15 @ localhost";
    chart->setSamples({text, binary, other});
    EXPECT_EQ(chart->seriesNames(),
              (QStringList{QStringLiteral("Scenario a · Firebird 5 @ localhost · format text"),
                           QStringLiteral("Scenario a · Firebird 5 @ localhost · format binary"),
                           // its connection's only format: nothing else tells its samples apart (#30)
                           QStringLiteral("Scenario a · PostgreSQL 15 @ localhost")}));
    // A setting requested but not in effect says so in the name.
    Sample inline0 = wireSample("a", "false", 1000, 1);
    inline0.parameters = ParameterValues{{"max_inline_blob_size", "0"}};
    inline0.effects = std::vector<ParameterEffect>{
        {.id = "max_inline_blob_size", .requested = "0", .inEffect = false, .reason = "server 3.0"}};
    Sample inlineBig = inline0;
    inlineBig.parameters = ParameterValues{{"max_inline_blob_size", "65535"}};
    chart->setSamples({inline0, inlineBig});
    EXPECT_EQ(chart->seriesNames(), (QStringList{QStringLiteral("Scenario a · inline 0 (not in effect)"),
                                                 QStringLiteral("Scenario a · inline 65535 (not in effect)")}));
}

// Two titles equal in their first 20 characters: once merged into one category by the axis, the
// bar named after one of them held the other's value.
TEST(Charts, PhasesCategoriesAreFullAndDistinctEachBarItsOwnScenario) {
    auto chart = makeChart(ChartKind::Phases, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    Sample optimised = sample("mixed-opt", 1, 10);
    optimised.scenarioTitle = "Test read mixed BLOB (optimised)";
    Sample plain = sample("mixed", 1, 30);
    plain.scenarioTitle = "Test read mixed BLOB (plain)";
    Sample ids = sample("ids", 1, 2);
    ids.scenarioTitle = "Test read only BLOB IDs";
    Sample twin = sample("ids-2", 1, 4);
    twin.scenarioTitle = "Test read only BLOB IDs";  // an equal title of another scenario
    chart->setSamples({optimised, plain, ids, twin});
    const QStringList names = chart->xAxisLabels();
    ASSERT_EQ(names.size(), 4) << names.join(QLatin1Char('|')).toStdString();
    EXPECT_EQ(names[0], QStringLiteral("Test read mixed BLOB (optimised)"));
    EXPECT_EQ(names[1], QStringLiteral("Test read mixed BLOB (plain)"));
    EXPECT_EQ(QSet<QString>(names.begin(), names.end()).size(), 4);
    auto* view = chart->widget()->findChild<QChartView*>();
    const auto axes = view->chart()->axes(Qt::Horizontal);
    ASSERT_EQ(axes.size(), 1);
    auto* axis = qobject_cast<QBarCategoryAxis*>(axes.front());
    ASSERT_NE(axis, nullptr);
    EXPECT_EQ(axis->count(), 4);  // none merged
    QStackedBarSeries* series = stackedSeries(*chart);
    ASSERT_NE(series, nullptr);
    QBarSet* fetch = series->barSets().at(2);
    ASSERT_EQ(fetch->count(), 4);
    EXPECT_DOUBLE_EQ(fetch->at(0), 10.0);  // each bar its own scenario's mean fetch (ms)
    EXPECT_DOUBLE_EQ(fetch->at(1), 30.0);
    EXPECT_DOUBLE_EQ(fetch->at(2), 2.0);
    EXPECT_DOUBLE_EQ(fetch->at(3), 4.0);
}

// #30: two titles that differ only at their end ("... VARCHARs" and "... VARCHARs with optimize")
// drew as the same two cut lines at a laptop's width. Each label is two lines at most, fitted to the
// chart's width, its middle elided, so the ends that tell them apart stay; wider, they get longer.
TEST(Charts, PhasesLabelsKeepTheEndsThatTellTwoTitlesApart) {
    auto chart = makeChart(ChartKind::Phases, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    owner->resize(1250, 300);
    std::vector<Sample> samples;
    const char* titles[] = {"Warming up the cache",
                            "Test read short BLOBs",
                            "Test read VARCHAR(8191)",
                            "Test read all BLOBs",
                            "Test read mixed BLOBs and VARCHARs",
                            "Test read mixed BLOBs and VARCHARs with optimize",
                            "Test read only BLOB IDs"};
    int n = 0;
    for (const char* title : titles) {
        Sample s = sample("s" + std::to_string(n++), 1, 10);
        s.scenarioTitle = title;
        samples.push_back(s);
    }
    chart->setSamples(samples);
    auto labelsDrawn = [&] {
        auto* view = chart->widget()->findChild<QChartView*>();
        auto* axis = qobject_cast<QBarCategoryAxis*>(view->chart()->axes(Qt::Horizontal).front());
        return axis->categories();
    };
    QStringList drawn = labelsDrawn();
    ASSERT_EQ(drawn.size(), 7);
    for (const QString& label : drawn) {
        EXPECT_LE(label.count(QStringLiteral("<br>")), 1) << label.toStdString();  // two lines at most
    }
    EXPECT_NE(drawn[4], drawn[5]);
    EXPECT_TRUE(drawn[5].endsWith(QStringLiteral("optimize"))) << drawn[5].toStdString();
    EXPECT_TRUE(drawn[4].endsWith(QStringLiteral("VARCHARs"))) << drawn[4].toStdString();
    owner->show();  // a hidden widget gets its resize event only when shown
    owner->resize(2400, 300);
    QCoreApplication::processEvents();
    const QStringList wide = labelsDrawn();
    EXPECT_EQ(QString(wide[5]).remove(QStringLiteral("<br>")).remove(QStringLiteral(" ")),
              QStringLiteral("TestreadmixedBLOBsandVARCHARswithoptimize"))
        << "whole at a wide chart: " << wide[5].toStdString();
}

TEST(Charts, RoundTripTicksAreWholeNumbers) {
    auto chart = makeChart(ChartKind::TimeVsRoundTrips, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    for (std::uint64_t trips : {1U, 2U, 3U}) {
        Sample s = wireSample("a", "false", 1000, 1);
        WireCounters c;
        c.roundTrips = trips;
        s.tap = WireStats::of(c);
        chart->addSample(s);
    }
    const QStringList labels = chart->xAxisLabels();
    ASSERT_FALSE(labels.isEmpty());
    for (const QString& label : labels)
        EXPECT_FALSE(label.contains(QLatin1Char('.'))) << labels.join(QLatin1Char(' ')).toStdString();
    EXPECT_TRUE(labels.contains(QStringLiteral("3"))) << labels.join(QLatin1Char(' ')).toStdString();
}

// #30: the ids-only scenario reads 0 content bytes; alone in the chart it drew an axis of
// "2e-07 ... 1e-06" bytes.
TEST(Charts, PointsAllAtZeroBytesGetAZeroToOneAxis) {
    auto chart = makeChart(ChartKind::TimeVsBytes, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    chart->addSample(sample("ids", 0, 5));
    const QStringList labels = chart->xAxisLabels();
    ASSERT_FALSE(labels.isEmpty());
    EXPECT_EQ(labels.front(), QStringLiteral("0")) << labels.join(QLatin1Char(' ')).toStdString();
    EXPECT_EQ(labels.back(), QStringLiteral("1")) << labels.join(QLatin1Char(' ')).toStdString();
    for (const QString& label : labels)
        EXPECT_FALSE(label.contains(QLatin1Char('e'))) << labels.join(QLatin1Char(' ')).toStdString();
}

TEST(Charts, CategoricalSweepsArePointsInTheSweepsOrderAndTheTitleFollowsTheMetric) {
    auto chart = makeChart(ChartKind::Sweep, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    std::vector<Sample> samples;
    for (const char* mode : {"single_row", "cursor", "whole"}) {  // not alphabetical
        Sample s = pointSample("a", {{"fetch_mode", mode}}, 2);
        WireCounters c;
        c.recvBytes = 5000;
        s.tap = WireStats::of(c);
        samples.push_back(s);
    }
    chart->setSamples(samples);
    EXPECT_EQ(chart->xAxisLabels(),
              (QStringList{QStringLiteral("single_row"), QStringLiteral("cursor"), QStringLiteral("whole")}));
    auto* view = chart->widget()->findChild<QChartView*>();
    const auto series = view->chart()->series();
    ASSERT_EQ(series.size(), 1);  // no min-max band between categories
    EXPECT_NE(qobject_cast<QScatterSeries*>(series.front()), nullptr);
    EXPECT_EQ(view->chart()->title(), QStringLiteral("Sweep: median time per point"));
    chart->setSweepMetric(SweepMetric::BytesReceived);
    EXPECT_EQ(view->chart()->title(), QStringLiteral("Sweep: median bytes received per point"));
    EXPECT_TRUE(chart->yAxisTitle().contains(QStringLiteral("KB")) ||
                chart->yAxisTitle().contains(QStringLiteral("B)")))
        << chart->yAxisTitle().toStdString();
}

TEST(Charts, ExportIsAtTheChosenSizeAndSvgMarkersAreVectors) {
    auto chart = makeChart(ChartKind::TimeVsBytes, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    chart->setSamples({wireSample("short", "false", 20600000, 30), wireSample("short", "true", 3700000, 25)});
    owner->resize(1900, 400);  // the on-screen strip
    owner->show();
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("chart.png"));
    exportChartPng(owner.get(), png);
    const QImage image(png);
    EXPECT_EQ(image.size(), QSize(1600, 900));
    exportChartPng(owner.get(), png, QSize(800, 600));
    EXPECT_EQ(QImage(png).size(), QSize(800, 600));
    EXPECT_EQ(owner->size(), QSize(1900, 400));  // the window's chart is left as it was
    const QString svg = dir.filePath(QStringLiteral("chart.svg"));
    exportChartSvg(owner.get(), svg, QStringLiteral("Time vs bytes"));
    QFile file(svg);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    EXPECT_TRUE(text.contains("viewBox=\"0 0 1600 900\"")) << text.left(400).toStdString();
    EXPECT_FALSE(text.contains("<image")) << "markers drawn as images";
    EXPECT_TRUE(text.contains("<circle") || text.contains("<path")) << "no vector marker";
    // The chart on screen keeps its light (image) markers.
    auto* view = owner->findChild<QChartView*>();
    EXPECT_NE(qobject_cast<QLineSeries*>(view->chart()->series().front()), nullptr);
}

// ---- many series: the legend never takes the plot's place --------------------------------------

namespace {

// The "+N more series" line of a legend that cannot list every entry, or nullptr.
QGraphicsSimpleTextItem* moreLine(QChart* chart) {
    for (QGraphicsItem* item : chart->scene()->items()) {
        auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item);
        if (text != nullptr && text->isVisible() && text->text().startsWith(QLatin1Char('+')))
            return text;
    }
    return nullptr;
}

int listedEntries(QChart* chart) {
    int n = 0;
    for (QLegendMarker* marker : chart->legend()->markers())
        n += marker->isVisible() ? 1 : 0;
    return n;
}

}  // namespace

TEST(Charts, TwentySeriesKeepAUsablePlotAndSayHowManyTheLegendDoesNotList) {
    auto chart = makeChart(ChartKind::TimeVsBytes, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    std::vector<Sample> samples;
    for (int i = 0; i < 20; ++i) {
        Sample s = wireSample("s" + std::to_string(i), i % 2 ? "true" : "false", 1000000 + 50000 * i, 10 + i);
        s.scenarioTitle = "Test read of the reference scenario number " + std::to_string(i) + " with a long title";
        samples.push_back(s);
    }
    chart->setSamples(samples);
    ASSERT_EQ(chart->seriesNames().size(), 20);
    owner->resize(1284, 260);  // the chart strip of a laptop window
    owner->show();
    QChart* qchart = owner->findChild<QChartView*>()->chart();
    ASSERT_TRUE(test::waitUntil([&] { return moreLine(qchart) != nullptr; }, 2000)) << "no '+N more' line";
    const QRectF plot = qchart->plotArea();
    std::cout << "[legend] strip 1284x260: plot " << plot.width() << "x" << plot.height() << ", legend "
              << qchart->legend()->geometry().width() << " wide, " << listedEntries(qchart) << " listed, "
              << moreLine(qchart)->text().toStdString() << std::endl;
    EXPECT_GE(plot.height(), 0.6 * qchart->size().height()) << "the legend squeezed the plot's height";
    EXPECT_GE(plot.width(), 0.55 * qchart->size().width()) << "the legend squeezed the plot's width";
    EXPECT_LE(qchart->legend()->geometry().width(), qchart->size().width() / 3 + 1);
    const int listed = listedEntries(qchart);
    EXPECT_GE(listed, 3);
    EXPECT_EQ(moreLine(qchart)->text(), QStringLiteral("+%1 more series").arg(20 - listed)) << "every series counted";
    const QRectF more = moreLine(qchart)->sceneBoundingRect();
    EXPECT_LE(more.bottom(), qchart->legend()->geometry().bottom() + 1) << "the line is inside the legend";
    EXPECT_TRUE(moreLine(qchart)->toolTip().contains(QStringLiteral("number 19"))) << "the last series is named";

    // A tall window lists them all, and the line goes.
    owner->resize(1284, 900);
    ASSERT_TRUE(test::waitUntil([&] { return listedEntries(qchart) == 20; }, 2000)) << listedEntries(qchart);
    EXPECT_EQ(moreLine(qchart), nullptr);
}

// #30: a project opened at start-up fills the chart while it is still small (the window not laid out
// yet); once it has its size, the legend is as wide as its names need (up to a third of the chart),
// not the width of that first arrangement with every name cut to "Test read short BLOBs · SQLite ...".
TEST(Charts, ALegendFilledWhileSmallWidensWithTheChart) {
    auto chart = makeChart(ChartKind::TimeVsBytes, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    owner->resize(130, 130);
    owner->show();
    std::vector<Sample> samples;
    for (int i = 0; i < 6; ++i) {
        Sample s = wireSample("s" + std::to_string(i), i % 2 ? "true" : "false", 1000000 + 50000 * i, 10 + i);
        s.scenarioTitle = "Test read short BLOBs, run " + std::to_string(i);
        samples.push_back(s);
    }
    chart->setSamples(samples);
    QChart* qchart = owner->findChild<QChartView*>()->chart();
    QCoreApplication::processEvents();
    owner->resize(1358, 255);
    const auto drawnLabels = [&] {
        QStringList out;
        std::function<void(QGraphicsItem*)> walk = [&](QGraphicsItem* item) {
            for (QGraphicsItem* child : item->childItems()) {
                if (auto* text = dynamic_cast<QGraphicsTextItem*>(child); text != nullptr && child->isVisible())
                    out << text->toPlainText();
                walk(child);
            }
        };
        walk(qchart->legend());
        return out;
    };
    const auto wide = [&] { return qchart->legend()->geometry().width() > 250; };
    EXPECT_TRUE(test::waitUntil(wide, 2000)) << "legend " << qchart->legend()->geometry().width() << " wide";
    QCoreApplication::processEvents();
    const QStringList labels = drawnLabels();
    EXPECT_FALSE(labels.isEmpty());
    for (const QString& label : labels)
        EXPECT_FALSE(label.contains(QStringLiteral("...")) || label.contains(QChar(0x2026))) << label.toStdString();
}

// #30: three scenarios under five settings at a laptop's chart strip. A legend line per series
// listed 9 of 15 ("+6 more series"); a colour per setting and a shape per scenario list all of
// them in 8 lines, the series keep their full names (tooltips, exports' names), and every series of
// one setting has that setting's colour, every series of one scenario that scenario's shape.
TEST(Charts, ScenariosUnderSeveralSettingsGetAColourPerSettingAndAShapePerScenario) {
    auto chart = makeChart(ChartKind::TimeVsBytes, nullptr);
    std::unique_ptr<QWidget> owner(chart->widget());
    const std::vector<std::pair<std::string, std::string>> sets = {{"SQLite file", "false"},
                                                                   {"PostgreSQL 15", "false"},
                                                                   {"PostgreSQL 15", "true"},
                                                                   {"Firebird 5.0.4", "false"},
                                                                   {"Firebird 5.0.4", "true"}};
    std::vector<Sample> samples;
    for (const auto& [connection, compression] : sets) {
        for (const std::string scenario : {"short", "varchar", "ids"}) {
            Sample s = wireSample(scenario, compression, 1000000 + 70000 * samples.size(), 10.0 + samples.size());
            s.connection = connection;
            samples.push_back(s);
        }
    }
    chart->setSamples(samples);
    const QStringList names = chart->seriesNames();
    ASSERT_EQ(names.size(), 15);
    EXPECT_TRUE(names.contains(QStringLiteral("Short BLOBs · PostgreSQL 15 · compression on")))
        << names.join(QLatin1Char('|')).toStdString();
    owner->resize(1358, 255);
    owner->show();
    QChart* qchart = owner->findChild<QChartView*>()->chart();
    ASSERT_TRUE(test::waitUntil([&] { return listedEntries(qchart) == 8; }, 2000)) << listedEntries(qchart);
    QCoreApplication::processEvents();
    EXPECT_EQ(moreLine(qchart), nullptr) << moreLine(qchart)->text().toStdString();
    QStringList listed;
    std::map<QString, QColor> colourOfSet;
    std::map<QString, int> shapeOfScenario;
    for (QAbstractSeries* series : qchart->series()) {
        auto* xy = qobject_cast<QXYSeries*>(series);
        ASSERT_NE(xy, nullptr);
        const bool legendOnly = series->property("blobbenchLegendOnly").toBool();
        for (QLegendMarker* marker : qchart->legend()->markers(series)) {
            EXPECT_EQ(marker->isVisible(), legendOnly) << series->name().toStdString();
            if (marker->isVisible())
                listed << marker->label();
        }
        if (legendOnly) {
            EXPECT_EQ(xy->count(), 0) << "a legend line holds no point";
            if (auto* scatter = qobject_cast<QScatterSeries*>(series); scatter && xy->color() == Qt::transparent)
                shapeOfScenario[series->name()] = scatter->markerShape();
            else
                colourOfSet[series->name()] = xy->color();
        }
    }
    EXPECT_EQ(listed, (QStringList{QStringLiteral("SQLite file"), QStringLiteral("PostgreSQL 15 · compression off"),
                                   QStringLiteral("PostgreSQL 15 · compression on"),
                                   QStringLiteral("Firebird 5.0.4 · compression off"),
                                   QStringLiteral("Firebird 5.0.4 · compression on"), QStringLiteral("Short BLOBs"),
                                   QStringLiteral("Scenario varchar"), QStringLiteral("Scenario ids")}));
    ASSERT_EQ(shapeOfScenario.size(), 3u);
    EXPECT_NE(shapeOfScenario[QStringLiteral("Short BLOBs")], shapeOfScenario[QStringLiteral("Scenario ids")]);
    // Every measured series wears its setting's colour; the SVG export's vector markers its
    // scenario's shape.
    auto* frame = dynamic_cast<charts::ChartFrame*>(owner.get());
    ASSERT_NE(frame, nullptr);
    frame->setVectorMarkers(true);
    for (QAbstractSeries* series : qchart->series()) {
        if (series->property("blobbenchLegendOnly").toBool())
            continue;
        auto* scatter = qobject_cast<QScatterSeries*>(series);
        ASSERT_NE(scatter, nullptr);
        const QStringList parts = series->name().split(QStringLiteral(" · "));
        const QString set = parts.mid(1).join(QStringLiteral(" · "));
        EXPECT_EQ(scatter->color(), colourOfSet.at(set)) << series->name().toStdString();
        EXPECT_EQ(scatter->markerShape(), shapeOfScenario.at(parts.front())) << series->name().toStdString();
    }
}
