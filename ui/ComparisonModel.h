#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "model/RunComparison.h"

namespace blobbench {

// Base against new, one row per scenario and point (compareRuns): the two medians, their delta and
// ratio, the Mann-Whitney p and the verdict. Display and alignment roles; numbers right-aligned.
class ComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Scenario, Point, BaseMedian, NewMedian, Delta, Ratio, PValue, Verdict, ColumnCount };

    explicit ComparisonModel(std::vector<PointComparison> rows = {}, QObject* parent = nullptr);

    void setRows(std::vector<PointComparison> rows);
    const std::vector<PointComparison>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString text(const PointComparison& c, int column) const;

    std::vector<PointComparison> m_rows;
};

}  // namespace blobbench
