#include "ui/charts/ChartBasics.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QPainter>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <iterator>

namespace blobbench::charts {

QColor seriesColor(std::size_t index) {
    static const QRgb palette[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                   0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    QColor c = QColor::fromRgb(palette[index % std::size(palette)]);
    return index < std::size(palette) ? c : c.darker(140);  // a second round, darker
}

void drawMarker(QPainter& painter, const QRectF& box, MarkerShape shape) {
    const QPointF c = box.center();
    const qreal r = box.width() / 2;
    // A regular polygon of `corners` points from the top, every `step`th corner (a star: 2 of 5).
    const auto polygon = [&](int corners, int step, qreal radius) {
        QPolygonF points;
        for (int i = 0; i < corners; ++i) {
            const double angle = -M_PI / 2 + 2 * M_PI * i * step / corners;
            points << c + QPointF(std::cos(angle), std::sin(angle)) * radius;
        }
        painter.drawPolygon(points, step == 1 ? Qt::OddEvenFill : Qt::WindingFill);
    };
    switch (shape) {
        case MarkerShape::Circle:
            painter.drawEllipse(box);
            break;
        case MarkerShape::Square:
            painter.drawRect(box.adjusted(r * 0.15, r * 0.15, -r * 0.15, -r * 0.15));
            break;
        case MarkerShape::Triangle:
            polygon(3, 1, r * 1.1);
            break;
        case MarkerShape::Diamond:
            polygon(4, 1, r);
            break;
        case MarkerShape::Pentagon:
            polygon(5, 1, r);
            break;
        case MarkerShape::Star:
            polygon(5, 2, r * 1.1);
            break;
    }
}

QImage markerImage(const QColor& color, int size, bool hollow, MarkerShape shape) {
    const qreal ratio = qApp->devicePixelRatio();
    QImage image(QSize(size, size) * ratio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(ratio);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(hollow ? color : color.darker(130), hollow ? 1.8 : 1));
    painter.setBrush(hollow ? QBrush(Qt::NoBrush) : QBrush(color));
    drawMarker(painter, QRectF(1, 1, size - 2, size - 2), shape);
    return image;
}

HoverWatcher::HoverWatcher(QChartView* view, std::function<void(std::optional<QPoint>)> onHover)
    : QObject(view), m_onHover(std::move(onHover)) {
    view->setMouseTracking(true);
    view->viewport()->setMouseTracking(true);
    view->viewport()->installEventFilter(this);
}

bool HoverWatcher::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::MouseMove) {
        m_onHover(static_cast<QMouseEvent*>(event)->position().toPoint());
    } else if (event->type() == QEvent::Leave) {
        m_onHover(std::nullopt);
    }
    return QObject::eventFilter(watched, event);
}

QStringList axisTickLabels(QAbstractAxis* axis) {
    QStringList out;
    if (auto* v = qobject_cast<QValueAxis*>(axis)) {
        const double step = v->tickType() == QValueAxis::TicksDynamic
                                ? v->tickInterval()
                                : (v->max() - v->min()) / std::max(1, v->tickCount() - 1);
        const double first = v->tickType() == QValueAxis::TicksDynamic
                                 ? v->tickAnchor() + std::ceil((v->min() - v->tickAnchor()) / step) * step
                                 : v->min();
        for (double x = first; step > 0 && x <= v->max() + step * 1e-9; x += step)
            out << QString::asprintf(v->labelFormat().toLatin1().constData(), x);
    } else if (auto* c = qobject_cast<QCategoryAxis*>(axis)) {
        out = c->categoriesLabels();
    } else if (auto* b = qobject_cast<QBarCategoryAxis*>(axis)) {
        out = b->categories();
    }
    return out;
}

void useIntegerTicks(QValueAxis* axis) {
    const double lo = std::floor(axis->min());
    const double span = std::max(1.0, std::ceil(axis->max()) - lo);
    // About five to ten ticks: a step of 1, 2 or 5 times a power of ten, never below 1.
    const double raw = std::max(1.0, span / 8);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = power;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        step = m * power;
        if (step >= raw)
            break;
    }
    axis->setRange(lo, lo + std::ceil(span / step) * step);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(lo);
    axis->setTickInterval(step);
    axis->setMinorTickCount(0);
    axis->setLabelFormat(QStringLiteral("%.0f"));
}

void clearSeriesAndAxes(QChart* chart) {
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

QAbstractAxis* makeAxis(bool log, const QString& title, double lo, double hi) {
    if (log) {
        auto* axis = new QLogValueAxis;
        axis->setBase(10);
        axis->setLabelFormat(QStringLiteral("%g"));
        axis->setMinorTickCount(8);
        axis->setTitleText(title + QStringLiteral(" (log)"));
        axis->setRange(std::max(lo, 1e-3), std::max(hi, lo * 10));
        return axis;
    }
    auto* axis = new QValueAxis;
    axis->setLabelFormat(QStringLiteral("%.5g"));
    axis->setTitleText(title);
    axis->setRange(lo, hi);
    axis->applyNiceNumbers();
    return axis;
}

}  // namespace blobbench::charts
