#pragma once

#include <QAbstractListModel>
#include <QHash>
#include <optional>

#include "engine/drivers/Driver.h"
#include "model/Project.h"

namespace blobbench {

// The project's scenarios as a checkable list, one row per scenario in project order: the title, checked
// when Run all runs it, the SQL as tool tip. A scenario written for another engine than the connection's
// reads "<title> (written for <engine>)" in the disabled text colour and is not run. Checking a row or
// editing its title (Qt::EditRole) goes to the document. Follows the document: a change of its scenarios
// adds or removes rows at the end and refreshes the others, so that a view keeps its current row.
class ScenarioListModel : public QAbstractListModel {
    Q_OBJECT
public:
    explicit ScenarioListModel(ProjectDocument* document, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    // The connection's engine, and the scenarios the user wrote for another one (ScenarioPanel::followEngine
    // marks them when the connection switches engines; a mark of the current engine is no mark).
    Dialect dialect() const { return m_dialect; }
    void setDialect(Dialect dialect);
    void markWrittenFor(const QString& scenarioId, Dialect dialect);
    void unmark(const QString& scenarioId);
    void clearMarks();
    bool isMarked(const QString& scenarioId) const { return m_writtenFor.contains(scenarioId); }
    std::optional<Dialect> writtenForOtherEngine(const ScenarioDef& scenario) const;

    // The rows as the document's scenarios now are (called on its signals; callers that change the
    // marks call it once after).
    void reload();

private:
    const ScenarioDef* scenarioAt(const QModelIndex& index) const;

    ProjectDocument* m_document;
    int m_rows = 0;                        // the scenarios the model shows (the document's, as of the last reload)
    Dialect m_dialect = Dialect::None;     // the current connection's
    QHash<QString, Dialect> m_writtenFor;  // scenario id -> the dialect it was written for
};

}  // namespace blobbench
