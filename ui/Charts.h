#pragma once

#include <QColor>
#include <QPointF>
#include <QSize>
#include <QString>
#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

#include "engine/core/Parameter.h"
#include "engine/core/Sample.h"
#include "engine/run/LoadPoint.h"
#include "model/RunComparison.h"

namespace blobbench {

enum class ChartKind {
    TimeVsBytes,       // scatter: elapsed time against wire or content bytes (BytesAxis), one series per
                       // scenario, parameter set and connection (model/SeriesNaming.h)
    TimeVsRoundTrips,  // scatter: elapsed time against round trips (tap or native counters only)
    Phases,            // stacked bars: mean prepare / execute / fetch per scenario
    LiveThroughput,    // line: MB/s over the current run
    Sweep,             // line: the latest sweep's tunable on x, median time (min-max band) per scenario
};

// What the sweep chart plots on y: the median elapsed time (with its min-max band), the median
// bytes received, or the median round trips (tap or the client's own counters only).
enum class SweepMetric { Time, BytesReceived, RoundTrips };

// What the x axis of Time vs bytes counts. Compression and the result format change the bytes on
// the wire, not the content read: the wire is the default wherever wire statistics exist (the tap,
// else the client's physical counters); an embedded engine has only content bytes, and the axis
// says so.
enum class BytesAxis { WireReceived, WireSent, Content };

// The default size of an exported chart (not the on-screen strip).
inline constexpr QSize kChartExportSize{1600, 900};

// The window's charts, behind an interface of ours: Qt Charts is deprecated upstream from 6.10,
// and only ChartsBackend.cpp and ui/charts/ (one file per chart) know it is the implementation.
class SampleChart {
public:
    virtual ~SampleChart() = default;
    virtual ChartKind kind() const = 0;
    virtual QWidget* widget() = 0;

    virtual void setSamples(const std::vector<Sample>& samples) = 0;
    virtual void addSample(const Sample& sample) = 0;
    // Several at once: one relayout instead of one per sample (the window batches live samples).
    virtual void addSamples(const std::vector<Sample>& samples) {
        for (const Sample& s : samples)
            addSample(s);
    }
    // LiveThroughput only: one point of the current run.
    virtual void addThroughput(double /*seconds*/, double /*megabytesPerSecond*/) {}
    virtual void clear() = 0;
    virtual void setLogScale(bool on) = 0;

    // Points plotted (bars: bar values), and why some samples could not be plotted ("round trips
    // not measured: not applicable (embedded)"); the chart shows that text, never made-up numbers.
    virtual int pointCount() const = 0;
    virtual QString notice() const = 0;
    virtual QStringList seriesNames() const = 0;

    // What the chart draws with now: they follow the application palette (light or dark) live.
    virtual QColor backgroundColor() const = 0;
    virtual QColor titleColor() const = 0;
    // The title of the x axis as shown ("Content (MB)", "max_inline_blob_size (B)").
    virtual QString xAxisTitle() const = 0;
    virtual QString yAxisTitle() const { return {}; }
    // The tick labels of the x axis as drawn ("64K", "1M", "2 Mbit/s").
    virtual QStringList xAxisLabels() const { return {}; }

    // The what-if (TimeVsBytes, TimeVsRoundTrips; Sweep: the predicted medians dashed beside the
    // measured ones, for the time metric): the predicted elapsed time in ms of each sample
    // given since the last setSamples() or clear(), in the order given (NaN: not predictable), drawn
    // as hollow markers beside the measured points, one series per measured one, named
    // "<series> — <label>". An empty vector takes them away; setSamples() and clear() do too.
    virtual void setPredicted(const std::vector<double>& /*millisBySample*/, const QString& /*label*/) {}
    // The elapsed times drawn (ms), measured or predicted, in the order the samples were given
    // (Sweep: the predicted medians only).
    virtual std::vector<double> drawnMillis(bool /*predicted*/) const { return {}; }
    virtual QStringList predictedSeriesNames() const { return {}; }

    // Sweep only: the engine's tunables (their units label the x axis) and what y shows.
    virtual void setParameterSpecs(const std::vector<ParameterSpec>& /*specs*/) {}
    // The project's connection names by label (SeriesNaming::setConnectionNames), for the series'
    // names; takes effect with the next setSamples().
    virtual void setConnectionNames(const std::map<std::string, QString>& /*labelToName*/) {}
    virtual void setSweepMetric(SweepMetric /*metric*/) {}

    // TimeVsBytes only: the x axis asked for, and the one drawn (Content where no sample has wire
    // statistics).
    virtual void setBytesAxis(BytesAxis /*axis*/) {}
    virtual BytesAxis bytesAxis() const { return BytesAxis::Content; }
    // Called when the user picks another x axis in the chart's box (the project keeps the choice).
    // NOLINTNEXTLINE(performance-unnecessary-value-param): a sink parameter, which the overrides move from.
    virtual void onBytesAxisChosen(std::function<void(BytesAxis)> /*handler*/) {}
};

std::unique_ptr<SampleChart> makeChart(ChartKind kind, QWidget* parent);

// Base vs new, side by side per scenario (and sweep point): grouped bars of the median elapsed
// time, min-max whiskers over the repetitions, significant differences (Mann-Whitney, as
// compareRuns computed them) marked in the category label and the new bar's colour.
class ComparisonChart {
public:
    virtual ~ComparisonChart() = default;
    virtual QWidget* widget() = 0;
    // One per scenario and point, as labelled; "* ×0.52 " starts the label of a significant difference.
    virtual QStringList categories() const = 0;
    virtual std::vector<int> significant() const = 0;  // category indexes marked significant
    virtual int barCount() const = 0;                  // bars drawn (a side without samples has none)
    virtual int whiskerCount() const = 0;
    virtual QString yAxisTitle() const = 0;
    // The medians drawn for one side, in the axis unit, NaN where that side has no sample.
    virtual std::vector<double> medians(bool candidate) const = 0;
};
std::unique_ptr<ComparisonChart> makeComparisonChart(const std::vector<PointComparison>& rows, QWidget* parent);
QString chartTitle(ChartKind kind);

// The what-if advisor's chart: predicted time against the link, one line per parameter set of a
// scenario, so a user sees where one setting overtakes another. x is the one-way latency in ms
// (linear) or the bandwidth in bit/s (log); y is milliseconds.
struct PredictionCurve {
    QString name;
    std::vector<QPointF> points;
    bool best = false;  // drawn thicker
};
class CurveChart {
public:
    virtual ~CurveChart() = default;
    virtual QWidget* widget() = 0;
    // `marker`: the x of the chosen link, drawn as a vertical line; `notice` shown when there are no curves.
    virtual void setCurves(const std::vector<PredictionCurve>& curves, const QString& title, bool bandwidthAxis,
                           double marker, const QString& notice) = 0;
    virtual int curveCount() const = 0;
    virtual QString xAxisTitle() const = 0;
    virtual QString notice() const = 0;
};
std::unique_ptr<CurveChart> makeCurveChart(QWidget* parent);

// A reproduced publication (blobbench-cli reproduce, issue #28): each figure measured here as a
// ratio to the published one on a log axis, 1 = the published value, the band around it the
// figure's tolerance, the dot coloured by its verdict. Figures with no measured value are listed
// but have no dot.
struct VerdictPoint {
    QString quantity;          // "round trips, all BLOBs"
    double ratio = 0;          // measured / published; 0: nothing to draw
    double low = 1, high = 1;  // the tolerance as ratios to the published value
    QString verdict;           // "reproduced", "differs", "not comparable here"
};
class VerdictChart {
public:
    virtual ~VerdictChart() = default;
    virtual QWidget* widget() = 0;
    virtual void setPoints(const std::vector<VerdictPoint>& points, const QString& title) = 0;
    virtual int dotCount() const = 0;
    virtual QStringList categories() const = 0;
};
std::unique_ptr<VerdictChart> makeVerdictChart(QWidget* parent);

// Runs of many sessions (issue #25), from the load points of the project's history: throughput
// against the number of sessions (the x of a sweep of "sessions", else each point's sessions) with the
// 99th percentile latency dashed on a second axis, a line per connection, scenario and setting; or the
// latency distribution of every point (a percentile plot: latency against 50 ... 99.99 % on a scale
// that spreads the nines).
enum class LoadView { Throughput, Percentiles };
enum class LoadMetric { Statements, Rows, ContentMB, WireMB };
class LoadChart {
public:
    virtual ~LoadChart() = default;
    virtual QWidget* widget() = 0;
    virtual void setLoads(const std::vector<LoadPoint>& loads) = 0;
    virtual void setView(LoadView view) = 0;
    virtual void setMetric(LoadMetric metric) = 0;
    virtual LoadView view() const = 0;
    // Throughput: the points drawn (a point a load point and scenario); Percentiles: the curves.
    virtual int pointCount() const = 0;
    virtual QStringList seriesNames() const = 0;
    virtual QString xAxisTitle() const = 0;
    virtual QStringList yAxisTitles() const = 0;  // left, then right (p99) when there is one
    virtual QStringList xAxisLabels() const = 0;
    virtual QString notice() const = 0;
    // The values drawn on the left axis and on the right one (p99, ms), series by series in order.
    virtual std::vector<QPointF> throughputPoints() const = 0;
    virtual std::vector<QPointF> p99Points() const = 0;
};
std::unique_ptr<LoadChart> makeLoadChart(QWidget* parent);

// Exports what the chart shows, laid out at `size` (the widget on screen is left as it is; SVG
// markers are vector shapes, not images). Throw Error(Io) naming the file on failure.
void exportChartPng(QWidget* chart, const QString& path, QSize size = kChartExportSize);
void exportChartSvg(QWidget* chart, const QString& path, const QString& title, QSize size = kChartExportSize);

}  // namespace blobbench
