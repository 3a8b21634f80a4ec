#include "ui/ComparisonModel.h"

#include <cmath>

#include "ui/Units.h"

namespace blobbench {

ComparisonModel::ComparisonModel(std::vector<PointComparison> rows, QObject* parent)
    : QAbstractTableModel(parent), m_rows(std::move(rows)) {}

void ComparisonModel::setRows(std::vector<PointComparison> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int ComparisonModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PointComparison& c = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
            return text(c, index.column());
        case Qt::TextAlignmentRole:
            return index.column() == Scenario || index.column() == Point || index.column() == Verdict
                       ? QVariant()
                       : QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return {};
    }
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return {};
    static const char* const titles[ColumnCount] = {
        QT_TR_NOOP("Scenario"), QT_TR_NOOP("Point"), QT_TR_NOOP("Base median"),      QT_TR_NOOP("New median"),
        QT_TR_NOOP("Delta"),    QT_TR_NOOP("Ratio"), QT_TR_NOOP("p (Mann-Whitney)"), QT_TR_NOOP("Verdict")};
    return tr(titles[section]);
}

QString ComparisonModel::text(const PointComparison& c, int column) const {
    const bool hasBase = c.base && c.base->elapsed.count > 0;
    const bool hasNew = c.candidate && c.candidate->elapsed.count > 0;
    switch (column) {
        case Scenario:
            return c.scenarioTitle.isEmpty() ? c.scenarioId : c.scenarioTitle;
        case Point:
            return pointText(c.point);
        case BaseMedian:
            return hasBase ? formatMillis(c.base->elapsed.median) : tr("-");
        case NewMedian:
            return hasNew ? formatMillis(c.candidate->elapsed.median) : tr("-");
        case Delta: {
            if (!hasBase || !hasNew)
                return tr("-");
            const double delta = c.candidate->elapsed.median - c.base->elapsed.median;
            return (delta >= 0 ? QStringLiteral("+") : QStringLiteral("−")) + formatMillis(std::abs(delta));
        }
        case Ratio:
            return c.ratio ? QString::number(*c.ratio, 'f', 3) : tr("-");
        case PValue:
            return c.test.valid ? QString::number(c.test.pValue, 'g', 3) : tr("-");
        case Verdict:
            if (!hasBase || !hasNew)
                return !hasBase ? tr("only in new") : tr("only in base");
            if (!c.test.valid)
                return tr("no test");
            if (c.significant)
                return c.ratio && *c.ratio < 1 ? tr("faster (significant)") : tr("slower (significant)");
            return tr("no significant change");
        default:
            return {};
    }
}

}  // namespace blobbench
