#pragma once

#include <QColor>
#include <QImage>
#include <QObject>
#include <QPoint>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>
#include <string>

#include "engine/core/Sample.h"

class QAbstractAxis;
class QChart;
class QChartView;
class QPainter;
class QRectF;
class QValueAxis;

namespace blobbench::charts {

inline QString qs(const std::string& s) {
    return QString::fromStdString(s);
}
inline double millis(Nanos n) {
    return static_cast<double>(n.count()) / 1e6;
}

// The wire counters a sample's bytes and round trips come from: the tap, else the client's own
// physical counters.
inline const WireStats* wireStatsOf(const Sample& s) {
    return s.tap.available ? &s.tap : (s.nativePhysical.available ? &s.nativePhysical : nullptr);
}

// One colour a series: the chart themes cycle after five, which gave two of the seven reference
// scenarios the same colour. Ten distinct hues (Tableau 10), readable on light and dark palettes.
QColor seriesColor(std::size_t index);

// A series' marker. Where a chart has many series the legend gives each setting a colour and each
// scenario a shape (see ScatterChart): a colour alone would need a legend line per series.
enum class MarkerShape { Circle, Square, Triangle, Diamond, Pentagon, Star };
inline constexpr std::size_t kMarkerShapes = 6;

// Draws `shape` into `box` with the painter's pen and brush.
void drawMarker(QPainter& painter, const QRectF& box, MarkerShape shape);

// `hollow`: a ring (or the shape's outline), the what-if's predicted points beside the filled
// measured ones.
QImage markerImage(const QColor& color, int size, bool hollow = false, MarkerShape shape = MarkerShape::Circle);

// The tick labels of a value or category axis as drawn, for tests and scripts.
QStringList axisTickLabels(QAbstractAxis* axis);

// Whole-number ticks on a count axis (round trips): a step of at least 1, labels without decimals.
void useIntegerTicks(QValueAxis* axis);

void clearSeriesAndAxes(QChart* chart);

// Either axis type, swapped when the log scale is toggled.
QAbstractAxis* makeAxis(bool log, const QString& title, double lo, double hi);

// Calls back with the mouse position over a chart view, or nothing when the mouse leaves.
class HoverWatcher : public QObject {
public:
    HoverWatcher(QChartView* view, std::function<void(std::optional<QPoint>)> onHover);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    std::function<void(std::optional<QPoint>)> m_onHover;
};

}  // namespace blobbench::charts
