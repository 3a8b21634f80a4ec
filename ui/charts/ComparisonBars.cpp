#include "ui/charts/ComparisonBars.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGraphicsPathItem>
#include <QPainterPath>
#include <QValueAxis>
#include <algorithm>
#include <limits>

#include "model/RunComparison.h"
#include "ui/Units.h"
#include "ui/charts/ChartBasics.h"
#include "ui/charts/ChartFrame.h"

namespace blobbench::charts {
namespace {

// Base vs new per scenario and point: a QBarSeries with two sets over the categories; the min-max
// whiskers are one path item over the plot, placed from the chart's own mapping and redrawn when
// the plot area moves; a significant difference has its new bar in an accent colour and a star.
class ComparisonBars final : public ComparisonChart {
public:
    ComparisonBars(const std::vector<PointComparison>& rows, QWidget* parent)
        : m_rows(rows), m_frame(new ChartFrame(parent)) {
        m_frame->chart()->setTitle(tr("Base vs new: median elapsed time, min-max whiskers"));
        m_frame->onThemeChanged = [this] { rebuild(); };
        QObject::connect(m_frame->chart(), &QChart::plotAreaChanged, m_frame, [this] { placeWhiskers(); });
        rebuild();
    }
    QWidget* widget() override { return m_frame; }
    QStringList categories() const override { return m_categories; }
    std::vector<int> significant() const override { return m_significant; }
    int barCount() const override { return m_bars; }
    int whiskerCount() const override { return static_cast<int>(m_whiskers.size()); }
    QString yAxisTitle() const override {
        const auto axes = m_frame->chart()->axes(Qt::Vertical);
        return axes.isEmpty() ? QString() : axes.front()->titleText();
    }
    std::vector<double> medians(bool candidate) const override { return candidate ? m_newMedians : m_baseMedians; }

private:
    static QString tr(const char* text) { return QApplication::translate("SampleChart", text); }

    struct Whisker {
        double x, lo, hi;
    };
    static constexpr double kBarWidth = 0.7;  // of the category; each set half of it

    void rebuild() {
        QChart* chart = m_frame->chart();
        chart->removeAllSeries();
        for (QAbstractAxis* axis : chart->axes()) {
            chart->removeAxis(axis);
            delete axis;
        }
        m_categories.clear();
        m_significant.clear();
        m_whiskers.clear();
        m_baseMedians.clear();
        m_newMedians.clear();
        m_bars = 0;
        double maxY = 0;
        for (const PointComparison& c : m_rows) {
            for (const auto& side : {c.base, c.candidate}) {
                if (side && side->elapsed.count > 0)
                    maxY = std::max(maxY, side->elapsed.max);
            }
        }
        const AxisUnit yu = timeAxisUnit(maxY);
        auto* baseSet = new QBarSet(tr("Base"));
        auto* newSet = new QBarSet(tr("New"));
        baseSet->setColor(seriesColor(9).darker(115));
        newSet->setColor(seriesColor(0));
        fillBars(baseSet, newSet, yu);
        // One accent for a significant difference, either way: the label's ratio says which way.
        newSet->setSelectedColor(QColor(0xe0, 0x7b, 0x24));
        auto* series = new QBarSeries;
        series->setBarWidth(kBarWidth);
        series->append(baseSet);
        series->append(newSet);
        chart->addSeries(series);
        auto* xAxis = new QBarCategoryAxis;
        xAxis->append(m_categories);
        xAxis->setTitleText(tr("Scenario and point (* significant at 0.05: × new / base)"));
        auto* yAxis = new QValueAxis;
        yAxis->setTitleText(tr("Median (%1)").arg(yu.name));
        yAxis->setRange(0, std::max(maxY / yu.divisor * 1.08, 1e-3));
        yAxis->setLabelFormat(QStringLiteral("%.4g"));
        yAxis->applyNiceNumbers();
        chart->addAxis(xAxis, Qt::AlignBottom);
        chart->addAxis(yAxis, Qt::AlignLeft);
        series->attachAxis(xAxis);
        series->attachAxis(yAxis);
        m_series = series;
        if (m_whiskerItem == nullptr) {
            m_whiskerItem = new QGraphicsPathItem(chart);
            m_whiskerItem->setZValue(100);
        }
        m_whiskerItem->setPen(QPen(m_frame->palette().color(QPalette::Text), 1.3));
        m_frame->showNotice(m_rows.empty() ? tr("The two runs have no scenario in common.") : QString());
        placeWhiskers();
    }

    // One category a row: its label (the significance mark first), a bar a side that has samples,
    // the whiskers of a side with more than one; a significant difference's new bar selected.
    void fillBars(QBarSet* baseSet, QBarSet* newSet, const AxisUnit& yu) {
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            const PointComparison& c = m_rows[i];
            // The mark first: a long title is elided at its end, the mark stays visible.
            QString label = c.scenarioTitle.isEmpty() ? c.scenarioId : c.scenarioTitle;
            if (!c.point.empty())
                label = pointText(c.point) + QStringLiteral(" · ") + label;
            const bool hasBase = c.base && c.base->elapsed.count > 0;
            const bool hasNew = c.candidate && c.candidate->elapsed.count > 0;
            if (c.significant && hasBase && hasNew) {
                label = (c.ratio ? QStringLiteral("* ×%1 ").arg(*c.ratio, 0, 'f', 2) : QStringLiteral("* ")) + label;
                m_significant.push_back(static_cast<int>(i));
            }
            // QBarCategoryAxis needs distinct labels.
            while (m_categories.contains(label))
                label += QLatin1Char(' ');
            m_categories << label;
            const double x = static_cast<double>(i);
            const auto add = [&](QBarSet* set, const std::optional<PointSummary>& side, bool present, double offset,
                                 std::vector<double>& medians) {
                if (!present) {
                    set->append(0);
                    medians.push_back(std::numeric_limits<double>::quiet_NaN());
                    return;
                }
                set->append(side->elapsed.median / yu.divisor);
                medians.push_back(side->elapsed.median / yu.divisor);
                ++m_bars;
                if (side->elapsed.count > 1)
                    m_whiskers.push_back({x + offset, side->elapsed.min / yu.divisor, side->elapsed.max / yu.divisor});
            };
            add(baseSet, c.base, hasBase, -kBarWidth / 4, m_baseMedians);
            add(newSet, c.candidate, hasNew, kBarWidth / 4, m_newMedians);
            if (c.significant && hasBase && hasNew) {
                newSet->selectBar(static_cast<int>(i));
            }
        }
    }

    void placeWhiskers() {
        if (m_whiskerItem == nullptr || m_series == nullptr)
            return;
        QChart* chart = m_frame->chart();
        QPainterPath path;
        const double cap = 0.06;  // of a category
        for (const Whisker& w : m_whiskers) {
            const QPointF top = chart->mapToPosition(QPointF(w.x, w.hi), m_series);
            const QPointF bottom = chart->mapToPosition(QPointF(w.x, w.lo), m_series);
            const double half = (chart->mapToPosition(QPointF(w.x + cap, w.hi), m_series).x() - top.x());
            path.moveTo(top);
            path.lineTo(bottom);
            path.moveTo(top.x() - half, top.y());
            path.lineTo(top.x() + half, top.y());
            path.moveTo(bottom.x() - half, bottom.y());
            path.lineTo(bottom.x() + half, bottom.y());
        }
        m_whiskerItem->setPath(path);
    }

    std::vector<PointComparison> m_rows;
    ChartFrame* m_frame;
    QBarSeries* m_series = nullptr;
    QGraphicsPathItem* m_whiskerItem = nullptr;
    QStringList m_categories;
    std::vector<int> m_significant;
    std::vector<Whisker> m_whiskers;
    std::vector<double> m_baseMedians, m_newMedians;
    int m_bars = 0;
};

}  // namespace

std::unique_ptr<ComparisonChart> makeComparisonBars(const std::vector<PointComparison>& rows, QWidget* parent) {
    return std::make_unique<ComparisonBars>(rows, parent);
}

}  // namespace blobbench::charts
