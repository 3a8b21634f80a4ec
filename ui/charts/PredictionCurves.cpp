#include "ui/charts/PredictionCurves.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <algorithm>
#include <limits>

#include "ui/Units.h"
#include "ui/charts/ChartBasics.h"
#include "ui/charts/ChartFrame.h"

namespace blobbench::charts {
namespace {

class PredictionCurves final : public CurveChart {
public:
    explicit PredictionCurves(QWidget* parent) : m_frame(new ChartFrame(parent)) {
        m_frame->onThemeChanged = [this] { rebuild(); };
        rebuild();
    }
    QWidget* widget() override { return m_frame; }
    void setCurves(const std::vector<PredictionCurve>& curves, const QString& title, bool bandwidthAxis, double marker,
                   const QString& notice) override {
        m_curves = curves;
        m_title = title;
        m_bandwidth = bandwidthAxis;
        m_marker = marker;
        m_notice = curves.empty() ? notice : QString();
        rebuild();
    }
    int curveCount() const override { return static_cast<int>(m_curves.size()); }
    QString xAxisTitle() const override { return m_frame->xAxisTitle(); }
    QString notice() const override { return m_notice; }

private:
    static QString tr(const char* text) { return QApplication::translate("SampleChart", text); }

    void rebuild() {
        QChart* chart = m_frame->chart();
        clearSeriesAndAxes(chart);
        chart->setTitle(m_title);
        double maxY = 0, minX = std::numeric_limits<double>::max(), maxX = 0;
        for (const PredictionCurve& c : m_curves) {
            for (const QPointF& p : c.points) {
                maxY = std::max(maxY, p.y());
                minX = std::min(minX, p.x());
                maxX = std::max(maxX, p.x());
            }
        }
        const AxisUnit yu = timeAxisUnit(maxY);
        QAbstractAxis* x = nullptr;
        if (m_bandwidth) {
            auto* axis = new QLogValueAxis;
            axis->setBase(10);
            axis->setLabelFormat(QStringLiteral("%.0e"));
            axis->setTitleText(tr("Bandwidth, each way (bit/s)"));
            axis->setRange(m_curves.empty() ? 1e4 : minX, m_curves.empty() ? 1e9 : maxX);
            x = axis;
        } else {
            x = makeAxis(false, tr("One-way latency (ms)"), 0, m_curves.empty() ? 200 : maxX);
        }
        QAbstractAxis* y =
            makeAxis(false, tr("Predicted time (%1)").arg(yu.name), 0, maxY > 0 ? maxY / yu.divisor * 1.1 : 1);
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        std::size_t index = 0;
        for (const PredictionCurve& c : m_curves) {
            auto* line = new QLineSeries;
            line->setName(c.name);
            QList<QPointF> points;
            for (const QPointF& p : c.points)
                points.append(QPointF(p.x(), p.y() / yu.divisor));
            line->replace(points);
            chart->addSeries(line);
            QPen pen(seriesColor(index++), c.best ? 3 : 1.6);
            line->setPen(pen);
            line->attachAxis(x);
            line->attachAxis(y);
        }
        if (!m_curves.empty()) {  // the chosen link
            auto* marker = new QLineSeries;
            marker->setName(tr("chosen link"));
            marker->replace({QPointF(m_marker, 0), QPointF(m_marker, maxY / yu.divisor * 1.1)});
            chart->addSeries(marker);
            marker->setPen(QPen(m_frame->palette().color(QPalette::Mid), 1.2, Qt::DashLine));
            marker->attachAxis(x);
            marker->attachAxis(y);
        }
        m_frame->fitLegend(chart->series().size());
        m_frame->showNotice(m_notice);
    }

    ChartFrame* m_frame;
    std::vector<PredictionCurve> m_curves;
    QString m_title, m_notice;
    bool m_bandwidth = false;
    double m_marker = 0;
};

}  // namespace

std::unique_ptr<CurveChart> makePredictionCurves(QWidget* parent) {
    return std::make_unique<PredictionCurves>(parent);
}

}  // namespace blobbench::charts
