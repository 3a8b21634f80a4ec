#include "ui/charts/ThroughputChart.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>

#include "ui/charts/ChartFrame.h"

namespace blobbench::charts {
namespace {

class ThroughputChart final : public SampleChart {
public:
    explicit ThroughputChart(QWidget* parent) : m_frame(new ChartFrame(parent)), m_series(new QLineSeries) {
        QChart* chart = m_frame->chart();
        chart->setTitle(chartTitle(ChartKind::LiveThroughput));
        m_series->setName(QStringLiteral("Content MB/s"));
        chart->addSeries(m_series);
        m_x = new QValueAxis;
        m_x->setTitleText(QApplication::translate("SampleChart", "Time since the run started (s)"));
        m_x->setLabelFormat(QStringLiteral("%.4g"));
        m_y = new QValueAxis;
        m_y->setTitleText(QApplication::translate("SampleChart", "Content throughput (MB/s)"));
        m_y->setLabelFormat(QStringLiteral("%.5g"));
        chart->addAxis(m_x, Qt::AlignBottom);
        chart->addAxis(m_y, Qt::AlignLeft);
        m_series->attachAxis(m_x);
        m_series->attachAxis(m_y);
        clear();
    }
    ChartKind kind() const override { return ChartKind::LiveThroughput; }
    QColor backgroundColor() const override { return m_frame->chart()->backgroundBrush().color(); }
    QColor titleColor() const override { return m_frame->chart()->titleBrush().color(); }
    QString xAxisTitle() const override { return m_frame->xAxisTitle(); }
    QWidget* widget() override { return m_frame; }
    void setSamples(const std::vector<Sample>&) override {}
    void addSample(const Sample&) override {}
    void addThroughput(double seconds, double mbps) override {
        m_series->append(seconds, mbps);
        // Axes grow in steps: changing a range relayouts the chart, which is the expensive part.
        if (seconds > m_maxX) {
            m_x->setRange(0, std::max(1.0, seconds * 1.5));
            m_x->applyNiceNumbers();
            m_maxX = m_x->max();
        }
        if (mbps > m_maxY) {
            m_y->setRange(0, std::max(1.0, mbps * 1.25));
            m_y->applyNiceNumbers();
            m_maxY = m_y->max();
        }
        if (m_series->count() == 1)
            m_frame->showNotice({});
    }
    void clear() override {
        m_series->clear();
        m_maxX = m_maxY = 0;
        m_x->setRange(0, 1);
        m_y->setRange(0, 1);
        m_frame->showNotice(notice());
    }
    void setLogScale(bool) override {}
    int pointCount() const override { return static_cast<int>(m_series->count()); }
    QString notice() const override {
        return m_series->count() == 0 ? QApplication::translate("SampleChart", "Throughput is drawn live during a run.")
                                      : QString();
    }
    QStringList seriesNames() const override { return {m_series->name()}; }

private:
    ChartFrame* m_frame;
    QLineSeries* m_series;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    double m_maxX = 0, m_maxY = 0;
};

}  // namespace

std::unique_ptr<SampleChart> makeThroughputChart(QWidget* parent) {
    return std::make_unique<ThroughputChart>(parent);
}

}  // namespace blobbench::charts
