// The charts' factory and export: the chart classes live in ui/charts/, the only code besides this
// file that knows the charts are Qt Charts.
#include <QApplication>
#include <QChart>
#include <QFile>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QPainter>
#include <QSvgGenerator>

#include "engine/core/Error.h"
#include "ui/Charts.h"
#include "ui/charts/ChartFrame.h"
#include "ui/charts/ComparisonBars.h"
#include "ui/charts/LoadCharts.h"
#include "ui/charts/PhaseChart.h"
#include "ui/charts/PredictionCurves.h"
#include "ui/charts/ScatterChart.h"
#include "ui/charts/SweepChart.h"
#include "ui/charts/ThroughputChart.h"
#include "ui/charts/VerdictDots.h"

namespace blobbench {

QString chartTitle(ChartKind kind) {
    switch (kind) {
        case ChartKind::TimeVsBytes:
            return QApplication::translate("SampleChart", "Elapsed time vs content bytes");
        case ChartKind::TimeVsRoundTrips:
            return QApplication::translate("SampleChart", "Elapsed time vs round trips");
        case ChartKind::Phases:
            return QApplication::translate("SampleChart", "Time by phase, per scenario");
        case ChartKind::Sweep:
            return QApplication::translate("SampleChart", "Sweep: median time per point");
        case ChartKind::LiveThroughput:
            break;
    }
    return QApplication::translate("SampleChart", "Live throughput");
}

std::unique_ptr<SampleChart> makeChart(ChartKind kind, QWidget* parent) {
    switch (kind) {
        case ChartKind::TimeVsBytes:
        case ChartKind::TimeVsRoundTrips:
            return charts::makeScatterChart(kind, parent);
        case ChartKind::Phases:
            return charts::makePhaseChart(parent);
        case ChartKind::Sweep:
            return charts::makeSweepChart(parent);
        case ChartKind::LiveThroughput:
            break;
    }
    return charts::makeThroughputChart(parent);
}

std::unique_ptr<ComparisonChart> makeComparisonChart(const std::vector<PointComparison>& rows, QWidget* parent) {
    return charts::makeComparisonBars(rows, parent);
}

namespace {

// Paints the chart laid out at `size` into `device`, the widget on screen untouched: the chart
// item is resized in its scene for the paint and given its size back. `vector`: markers drawn as
// shapes (an SVG), not images.
void paintChartAt(QWidget* widget, QPaintDevice* device, QSize size, bool vector) {
    QPainter painter;
    if (!painter.begin(device))
        throw Error(ErrorKind::Io, "cannot paint the chart");
    painter.setRenderHint(QPainter::Antialiasing);
    auto* frame = dynamic_cast<charts::ChartFrame*>(widget);
    if (frame == nullptr) {
        widget->render(&painter);
        return;
    }
    QChart* chart = frame->chart();
    const QSizeF onScreen = chart->size();
    if (vector && frame->setVectorMarkers)
        frame->setVectorMarkers(true);
    // A chart rebuilt with no event loop in between (a script, a test, a hidden tab) still holds
    // the graphics of its removed axes and series (Qt Charts deletes them later) and pending
    // layout requests: the paint must see neither.
    const auto settle = [chart] {
        for (QGraphicsItem* item : chart->scene()->items()) {
            if (QGraphicsObject* object = item->toGraphicsObject())
                QCoreApplication::sendPostedEvents(object, QEvent::DeferredDelete);
        }
        QCoreApplication::sendPostedEvents();
        if (chart->layout() != nullptr) {
            chart->layout()->invalidate();
            chart->layout()->activate();
        }
        QCoreApplication::sendPostedEvents();
    };
    chart->resize(size);
    settle();
    frame->arrangeLegend();  // the export's height fits another number of legend entries
    settle();
    const QRectF source(chart->scenePos(), QSizeF(size));
    painter.fillRect(QRect(QPoint(0, 0), size), chart->backgroundBrush());
    chart->scene()->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source, Qt::IgnoreAspectRatio);
    painter.end();
    chart->resize(onScreen);
    settle();
    frame->arrangeLegend();
    if (vector && frame->setVectorMarkers)
        frame->setVectorMarkers(false);
}

}  // namespace

void exportChartPng(QWidget* chart, const QString& path, QSize size) {
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(chart->palette().color(QPalette::Base));
    paintChartAt(chart, &image, size, false);
    if (!image.save(path, "PNG")) {
        throw Error(ErrorKind::Io, path.toStdString() + ": cannot write the PNG");
    }
}

void exportChartSvg(QWidget* chart, const QString& path, const QString& title, QSize size) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(title);
    generator.setDescription(QStringLiteral("BlobBench chart"));
    try {
        paintChartAt(chart, &generator, size, true);
    } catch (const Error&) {
        throw Error(ErrorKind::Io, path.toStdString() + ": cannot write the SVG");
    }
    if (!QFile::exists(path)) {
        throw Error(ErrorKind::Io, path.toStdString() + ": cannot write the SVG");
    }
}

std::unique_ptr<CurveChart> makeCurveChart(QWidget* parent) {
    return charts::makePredictionCurves(parent);
}

std::unique_ptr<LoadChart> makeLoadChart(QWidget* parent) {
    return charts::makeLoadCharts(parent);
}

std::unique_ptr<VerdictChart> makeVerdictChart(QWidget* parent) {
    return charts::makeVerdictDots(parent);
}

}  // namespace blobbench
