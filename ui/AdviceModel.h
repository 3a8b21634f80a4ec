#pragma once

#include <QAbstractItemModel>
#include <vector>

#include "engine/wire/LinkAdvice.h"

namespace blobbench {

// The what-if advisor's ranking as a tree: a row per scenario ("title — the tunables its sets
// differ in", spanning the row), under it a row per parameter set in rank order: its values (★ for the
// best, "(current)"), the predicted and measured medians, and what it saves against the current set.
// Qt::UserRole of every row is its scenario's id; kSetKeyRole of a set's row names the set (setKey),
// so that a view keeps it picked across a new ranking. The best set's row is bold.
class AdviceModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Set, Predicted, Measured, VersusCurrent, ColumnCount };
    static constexpr int kSetKeyRole = Qt::UserRole + 1;

    explicit AdviceModel(QObject* parent = nullptr);

    void setAdvice(std::vector<ScenarioAdvice> advice);
    const std::vector<ScenarioAdvice>& advice() const { return m_advice; }
    // The scenario of a row and, for a set's row, its rank (its index in the scenario's ranked list).
    const ScenarioAdvice* scenarioOf(const QModelIndex& index) const;
    int rankOf(const QModelIndex& index) const;  // -1 for a scenario's row or an invalid index

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<ScenarioAdvice> m_advice;
};

namespace advice {
// A set's name for people: "connection=…, link=…, max_inline_blob_size=0"; "as run (…)" for a
// scenario's only set.
QString pointLabel(const ParameterValues& differing);
// The chart's short name of a set: its values only ("Firebird … · 0").
QString pointValues(const ParameterValues& differing);
// The tunables a scenario's sets differ in: "connection · max_inline_blob_size · wire_compression".
QString tunableNames(const ScenarioAdvice& advice);
ParameterSetKey keyOf(const ParameterSetAdvice& set);
// A set's identity as text (kSetKeyRole).
QString setKey(const ParameterSetAdvice& set);
}  // namespace advice

}  // namespace blobbench
