#pragma once

#include <QSizeF>
#include <QString>
#include <QWidget>
#include <functional>

class QChart;
class QChartView;
class QEvent;
class QGraphicsSimpleTextItem;
class QLabel;

namespace blobbench::charts {

// The chart view every chart of ui/charts draws in, with a text overlay for what cannot be drawn,
// a legend that keeps to the right, and a theme that follows the palette (light or dark) live.
class ChartFrame : public QWidget {
public:
    explicit ChartFrame(QWidget* parent);
    QChart* chart() const { return m_chart; }
    QChartView* view() const { return m_view; }
    void showNotice(const QString& text);
    // Many series (a grid of the whole suite, a suite under several settings): a smaller legend
    // keeps more of them in view.
    void fitLegend(qsizetype series);
    // The legend stays on the right and never takes the plot's place: at most a third of the
    // width (a long name is elided, its full text in the tooltip), and where its entries do not
    // fit the height, the last line says how many more there are ("+6 more series", their names
    // in its tooltip) instead of the entries running off the bottom. Follows the chart's size
    // (on screen and when exported).
    void arrangeLegend(bool force = false);
    QString xAxisTitle() const;
    // Called after a theme change: the chart rebuilds its series so their colours come from the
    // new theme (the markers and legend are drawn with colours taken at build time).
    std::function<void()> onThemeChanged;
    // Set by charts whose markers are images on screen: an SVG export asks for vector shapes.
    std::function<void(bool)> setVectorMarkers;

    // A series that holds no points and only names a colour or a shape in the legend.
    static constexpr const char* kLegendOnlyProperty = "blobbenchLegendOnly";

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyTheme();
    void showOverflowLine(const QStringList& hidden, const QRectF& at);

    static constexpr const char* kOverflowProperty = "blobbenchLegendOverflow";
    QChart* m_chart;
    QChartView* m_view;
    QLabel* m_notice = nullptr;
    QString m_themeKey;
    QGraphicsSimpleTextItem* m_more = nullptr;
    QSizeF m_arrangedAt;
    bool m_arranging = false;
};

}  // namespace blobbench::charts
