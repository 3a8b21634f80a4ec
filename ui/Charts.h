#pragma once

#include <QColor>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "engine/core/Sample.h"

namespace blobbench {

enum class ChartKind {
    TimeVsBytes,       // scatter: elapsed time against content bytes, one series per scenario
    TimeVsRoundTrips,  // scatter: elapsed time against round trips (tap or native counters only)
    Phases,            // stacked bars: mean prepare / execute / fetch per scenario
    LiveThroughput,    // line: MB/s over the current run
    Sweep,             // line: the latest sweep's tunable on x, median time (min-max band) per scenario
};

// The window's charts, behind an interface of ours: Qt Charts is deprecated upstream from 6.10,
// and only ChartsBackend.cpp knows it is the implementation.
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
};

std::unique_ptr<SampleChart> makeChart(ChartKind kind, QWidget* parent);
QString chartTitle(ChartKind kind);

// Exports what the chart shows. Throw Error(Io) naming the file on failure.
void exportChartPng(QWidget* chart, const QString& path);
void exportChartSvg(QWidget* chart, const QString& path, const QString& title);

}  // namespace blobbench
