#include "ui/charts/RingOverlay.h"

#include <QChart>
#include <QPainter>
#include <QXYSeries>

#include "ui/charts/ChartBasics.h"

namespace blobbench::charts {

RingOverlay::RingOverlay(QChart* chart) : QGraphicsItem(chart), m_chart(chart) {
    setZValue(10);  // over the series
    QObject::connect(chart, &QChart::plotAreaChanged, chart, [this] { refresh(); });
}

void RingOverlay::setGroups(std::vector<Group> groups, bool vector) {
    m_groups = std::move(groups);
    m_vector = vector;
    m_rings.clear();
    for (const Group& g : m_groups)
        m_rings.push_back(markerImage(g.color, kSize, !g.filled, g.shape));
    refresh();
}

void RingOverlay::refresh() {
    prepareGeometryChange();
    update();
}

QRectF RingOverlay::boundingRect() const {
    return m_chart->plotArea().adjusted(-kSize, -kSize, kSize, kSize);
}

void RingOverlay::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    painter->save();
    painter->setClipRect(m_chart->plotArea().adjusted(-kSize / 2.0, -kSize / 2.0, kSize / 2.0, kSize / 2.0));
    const QPointF half(kSize / 2.0, kSize / 2.0);
    for (std::size_t i = 0; i < m_groups.size(); ++i) {
        const Group& g = m_groups[i];
        if (m_vector) {  // an SVG export: vector shapes
            painter->setRenderHint(QPainter::Antialiasing);
            painter->setPen(g.filled ? QPen(g.color.darker(130), 1) : QPen(g.color, 1.8));
            painter->setBrush(g.filled ? QBrush(g.color) : QBrush(Qt::NoBrush));
        }
        for (const QPointF& v : g.values) {
            const QPointF at = m_chart->mapToPosition(v, g.axesOf);
            if (m_vector)
                drawMarker(*painter, QRectF(at - half, at + half).adjusted(1, 1, -1, -1), g.shape);
            else
                painter->drawImage(at - half, m_rings[i]);
        }
    }
    painter->restore();
}

}  // namespace blobbench::charts
