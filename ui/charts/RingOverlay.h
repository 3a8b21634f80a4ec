#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QImage>
#include <QList>
#include <QPointF>
#include <vector>

#include "ui/charts/ChartBasics.h"

class QChart;
class QXYSeries;

namespace blobbench::charts {

// Hollow rings at values of the chart's axes, drawn straight from the values at paint time, so a
// new set of 10,000 points costs a repaint and no geometry. Clipped to the plot area.
class RingOverlay : public QGraphicsItem {
public:
    struct Group {
        QXYSeries* axesOf;  // a series attached to the axes the values are in
        QColor color;
        QList<QPointF> values;
        bool filled = false;  // a measured point; else a predicted ring
        MarkerShape shape = MarkerShape::Circle;
    };
    explicit RingOverlay(QChart* chart);
    void setGroups(std::vector<Group> groups, bool vector);
    void refresh();
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override;

private:
    static constexpr int kSize = 9;
    QChart* m_chart;
    std::vector<Group> m_groups;
    std::vector<QImage> m_rings;
    bool m_vector = false;
};

}  // namespace blobbench::charts
