#include "ui/charts/VerdictDots.h"

#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <algorithm>
#include <cmath>

#include "ui/charts/ChartBasics.h"
#include "ui/charts/ChartFrame.h"

namespace blobbench::charts {
namespace {

// One row a figure, top to bottom in the table's order; x = measured / published on a log axis, so
// "10x too slow" and "10x too fast" are as far from 1 on either side.
class VerdictDots final : public VerdictChart {
public:
    explicit VerdictDots(QWidget* parent) : m_frame(new ChartFrame(parent)) {
        m_frame->onThemeChanged = [this] { rebuild(); };
        rebuild();
    }
    QWidget* widget() override { return m_frame; }
    void setPoints(const std::vector<VerdictPoint>& points, const QString& title) override {
        m_points = points;
        m_title = title;
        rebuild();
    }
    int dotCount() const override { return m_dots; }
    QStringList categories() const override { return m_categories; }

private:
    static QString tr(const char* text) { return QApplication::translate("VerdictChart", text); }

    void rebuild() {
        QChart* chart = m_frame->chart();
        clearSeriesAndAxes(chart);
        chart->setTitle(m_title);
        m_dots = 0;
        m_categories.clear();
        double lo = 0.5, hi = 2;
        for (const VerdictPoint& p : m_points) {
            if (p.ratio > 0) {
                lo = std::min({lo, p.ratio, p.low});
                hi = std::max({hi, p.ratio, p.high});
            }
        }
        auto* x = new QLogValueAxis;
        x->setBase(10);
        x->setLabelFormat(QStringLiteral("%g"));
        x->setTitleText(tr("Measured here / published (log; 1 = as published)"));
        x->setRange(std::pow(10, std::floor(std::log10(lo / 1.5))), std::pow(10, std::ceil(std::log10(hi * 1.5))));
        auto* y = new QCategoryAxis;
        y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        const int rows = static_cast<int>(m_points.size());
        y->setRange(-0.5, std::max(rows, 1) - 0.5);
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        // Rows from the top: the first figure at the top, as in the table beside the chart.
        const auto rowY = [&](int i) { return static_cast<double>(rows - 1 - i); };
        for (int i = 0; i < rows; ++i) {
            const VerdictPoint& p = m_points[static_cast<std::size_t>(i)];
            QString label = p.quantity;
            if (p.ratio <= 0)
                label += tr(" (not measured)");
            m_categories << label;
        }
        // QCategoryAxis takes categories in rising order of their values only (it dropped every one
        // after the first): the bottom row first.
        for (int i = rows - 1; i >= 0; --i) {
            const QString& label = m_categories[i];
            y->append(label.size() > 48 ? label.left(47) + QChar(0x2026) : label, rowY(i));
        }
        const auto add = [&](QXYSeries* series) {
            chart->addSeries(series);
            series->attachAxis(x);
            series->attachAxis(y);
        };
        auto* as = new QLineSeries;  // the published value itself
        as->setName(tr("as published"));
        as->setPen(QPen(m_frame->palette().color(QPalette::Mid), 1, Qt::DashLine));
        as->append(1, -0.5);
        as->append(1, std::max(rows, 1) - 0.5);
        add(as);
        bool bandNamed = false;
        for (int i = 0; i < rows; ++i) {
            const VerdictPoint& p = m_points[static_cast<std::size_t>(i)];
            if (p.ratio <= 0 || !(p.high > p.low))
                continue;
            auto* band = new QLineSeries;
            band->setPen(QPen(QColor(0x9c, 0x9c, 0x9c, 150), 7, Qt::SolidLine, Qt::FlatCap));
            band->append(p.low, rowY(i));
            band->append(p.high, rowY(i));
            add(band);
            band->setName(tr("tolerance"));
            if (bandNamed) {
                for (QLegendMarker* marker : chart->legend()->markers(band))
                    marker->setVisible(false);
            }
            bandNamed = true;
        }
        const std::pair<const char*, QColor> kinds[] = {{"reproduced", QColor(0x59, 0xa1, 0x4f)},
                                                        {"differs", QColor(0xe1, 0x57, 0x59)},
                                                        {"not comparable here", QColor(0x9c, 0x75, 0x5f)}};
        for (const auto& [kind, color] : kinds) {
            auto* dots = new QScatterSeries;
            dots->setName(tr(kind));
            dots->setColor(color);
            dots->setBorderColor(color.darker(130));
            dots->setMarkerSize(11);
            for (int i = 0; i < rows; ++i) {
                const VerdictPoint& p = m_points[static_cast<std::size_t>(i)];
                if (p.ratio > 0 && p.verdict == QLatin1String(kind)) {
                    dots->append(p.ratio, rowY(i));
                    ++m_dots;
                }
            }
            if (dots->count() > 0)
                add(dots);
            else
                delete dots;
        }
        chart->legend()->setAlignment(Qt::AlignBottom);
    }

    ChartFrame* m_frame;
    std::vector<VerdictPoint> m_points;
    QString m_title;
    QStringList m_categories;
    int m_dots = 0;
};

}  // namespace

std::unique_ptr<VerdictChart> makeVerdictDots(QWidget* parent) {
    return std::make_unique<VerdictDots>(parent);
}

}  // namespace blobbench::charts
