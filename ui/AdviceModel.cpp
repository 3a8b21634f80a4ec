#include "ui/AdviceModel.h"

#include <QCoreApplication>
#include <QFont>
#include <set>

#include "model/SeriesNaming.h"
#include "ui/Units.h"

namespace blobbench {
namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

double millis(std::chrono::nanoseconds t) {
    return static_cast<double>(t.count()) / 1e6;
}

// internalId: 0 for a scenario's row, else 1 + its scenario's row (a set's row).
constexpr quintptr kScenarioRow = 0;

}  // namespace

namespace advice {

QString pointLabel(const ParameterValues& differing) {
    if (differing.empty())
        return QCoreApplication::translate("WhatIfPanel", "as run (the scenario's only parameter set)");
    QStringList parts;
    for (const auto& [k, v] : differing)
        parts << qs(k) + QLatin1Char('=') + (k == "connection" ? connectionText(v) : qs(v));
    return parts.join(QStringLiteral(", "));
}

QString pointValues(const ParameterValues& differing) {
    if (differing.empty())
        return QCoreApplication::translate("WhatIfPanel", "as run");
    QStringList parts;
    for (const auto& [k, v] : differing)
        parts << (k == "connection" ? connectionText(v) : qs(v));
    return parts.join(QStringLiteral(" · "));
}

QString tunableNames(const ScenarioAdvice& advice) {
    std::set<std::string> keys;
    for (const ParameterSetAdvice& ranked : advice.ranked) {
        for (const auto& [k, v] : ranked.differing)
            keys.insert(k);
    }
    QStringList names;
    for (const std::string& k : keys)
        names << qs(k);
    return names.join(QStringLiteral(" · "));
}

ParameterSetKey keyOf(const ParameterSetAdvice& set) {
    return ParameterSetKey{set.connection, set.settings, set.measuredOver};
}

QString setKey(const ParameterSetAdvice& set) {
    QString text = qs(set.connection) + QLatin1Char('\n') + qs(set.measuredOver);
    for (const auto& [k, v] : set.settings)
        text += QLatin1Char('\n') + qs(k) + QLatin1Char('=') + qs(v);
    return text;
}

}  // namespace advice

AdviceModel::AdviceModel(QObject* parent) : QAbstractItemModel(parent) {}

void AdviceModel::setAdvice(std::vector<ScenarioAdvice> advice) {
    beginResetModel();
    m_advice = std::move(advice);
    endResetModel();
}

const ScenarioAdvice* AdviceModel::scenarioOf(const QModelIndex& index) const {
    if (!index.isValid())
        return nullptr;
    const std::size_t row =
        index.internalId() == kScenarioRow ? static_cast<std::size_t>(index.row()) : index.internalId() - 1;
    return row < m_advice.size() ? &m_advice[row] : nullptr;
}

int AdviceModel::rankOf(const QModelIndex& index) const {
    return index.isValid() && index.internalId() != kScenarioRow ? index.row() : -1;
}

QModelIndex AdviceModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kScenarioRow);
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex AdviceModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kScenarioRow)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kScenarioRow);
}

int AdviceModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid())
        return static_cast<int>(m_advice.size());
    if (parent.internalId() != kScenarioRow || parent.column() != 0)
        return 0;  // a set's row has no children; only the first column of a scenario's row has them
    return static_cast<int>(m_advice[static_cast<std::size_t>(parent.row())].ranked.size());
}

int AdviceModel::columnCount(const QModelIndex& /*parent*/) const {
    return ColumnCount;
}

QVariant AdviceModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const ScenarioAdvice* scenario = scenarioOf(index);
    if (scenario == nullptr)
        return {};
    if (role == Qt::UserRole)
        return qs(scenario->scenarioId);
    const int rank = rankOf(index);
    if (rank < 0) {  // the scenario's row: its name in the first column, which the view spans
        if (index.column() != Set || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
            return {};
        const QString names = advice::tunableNames(*scenario);
        return names.isEmpty() ? qs(scenario->scenarioTitle)
                               : QStringLiteral("%1 — %2").arg(qs(scenario->scenarioTitle), names);
    }
    const ParameterSetAdvice& set = scenario->ranked[static_cast<std::size_t>(rank)];
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case Set: {
                    QString name = advice::pointValues(set.differing);
                    if (set.best)
                        name = QStringLiteral("★ ") + name;
                    if (set.current)
                        name += tr(" (current)");
                    return name;
                }
                case Predicted:
                    return formatMillis(millis(set.predicted));
                case Measured:
                    return formatMillis(millis(set.measured));
                case VersusCurrent: {
                    if (set.current)
                        return tr("current");
                    const double pct = set.savingVsCurrent * 100;
                    return pct >= 0 ? tr("saves %1%").arg(pct, 0, 'f', 1) : tr("%1% slower").arg(-pct, 0, 'f', 1);
                }
                default:
                    return {};
            }
        case Qt::ToolTipRole:
            if (index.column() != Set)
                return {};
            return tr("%1\nOn %2, measured %3\n%n sample(s) with a trace", nullptr, static_cast<int>(set.samples))
                .arg(advice::pointLabel(set.differing), connectionText(set.connection),
                     set.measuredOver == "unshaped" ? tr("unshaped") : tr("over %1").arg(qs(set.measuredOver)));
        case Qt::FontRole: {
            if (!set.best)
                return {};
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        case kSetKeyRole:
            return advice::setKey(set);
        default:
            return {};
    }
}

QVariant AdviceModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return {};
    static const char* const titles[ColumnCount] = {QT_TR_NOOP("Scenario / parameter set"), QT_TR_NOOP("Predicted"),
                                                    QT_TR_NOOP("Measured"), QT_TR_NOOP("vs current")};
    return tr(titles[section]);
}

}  // namespace blobbench
