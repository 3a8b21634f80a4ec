#include "ui/ScenarioListModel.h"

#include <QBrush>
#include <QGuiApplication>
#include <QPalette>

#include "model/EngineScenarios.h"

namespace blobbench {

ScenarioListModel::ScenarioListModel(ProjectDocument* document, QObject* parent)
    : QAbstractListModel(parent), m_document(document) {
    connect(m_document, &ProjectDocument::scenariosChanged, this, &ScenarioListModel::reload);
    connect(m_document, &ProjectDocument::projectReset, this, &ScenarioListModel::reload);
    reload();
}

int ScenarioListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_rows;
}

const ScenarioDef* ScenarioListModel::scenarioAt(const QModelIndex& index) const {
    const auto& scenarios = m_document->project().scenarios;
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        index.row() >= static_cast<int>(scenarios.size()) || index.row() >= m_rows)
        return nullptr;
    return &scenarios[static_cast<std::size_t>(index.row())];
}

QVariant ScenarioListModel::data(const QModelIndex& index, int role) const {
    const ScenarioDef* def = scenarioAt(index);
    if (def == nullptr)
        return {};
    const std::optional<Dialect> other = writtenForOtherEngine(*def);
    const QString title = def->title.isEmpty() ? tr("(untitled)") : def->title;
    switch (role) {
        case Qt::DisplayRole:
            return other ? tr("%1 (written for %2)").arg(title, dialectName(*other)) : title;
        case Qt::EditRole:
            return def->title;
        case Qt::CheckStateRole:
            return def->enabled ? Qt::Checked : Qt::Unchecked;
        case Qt::ForegroundRole:
            if (other)
                return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
            return {};
        case Qt::ToolTipRole:
            if (other)
                return tr("Written for %1: not run on %2 until its SQL is edited for %2 (or add the %2 reference "
                          "suite from Presets).\n%3")
                    .arg(dialectName(*other), dialectName(m_dialect), def->sql);
            return def->sql.trimmed().isEmpty() ? tr("No measured statement yet") : def->sql;
        default:
            return {};
    }
}

bool ScenarioListModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    const ScenarioDef* current = scenarioAt(index);
    if (current == nullptr)
        return false;
    ScenarioDef def = *current;
    if (role == Qt::CheckStateRole) {
        def.enabled = value.toInt() == Qt::Checked;
    } else if (role == Qt::EditRole) {
        const QString title = value.toString().trimmed();
        if (title.isEmpty())
            return false;  // a scenario keeps a title
        def.title = title;
    } else {
        return false;
    }
    if (def == *current)
        return true;
    m_document->setScenario(index.row(), def);  // the document's signal refreshes the row
    return true;
}

Qt::ItemFlags ScenarioListModel::flags(const QModelIndex& index) const {
    if (scenarioAt(index) == nullptr)
        return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsEditable |
           Qt::ItemNeverHasChildren;
}

void ScenarioListModel::setDialect(Dialect dialect) {
    m_dialect = dialect;
}

void ScenarioListModel::markWrittenFor(const QString& scenarioId, Dialect dialect) {
    m_writtenFor.insert(scenarioId, dialect);
}

void ScenarioListModel::unmark(const QString& scenarioId) {
    m_writtenFor.remove(scenarioId);
}

void ScenarioListModel::clearMarks() {
    m_writtenFor.clear();
}

std::optional<Dialect> ScenarioListModel::writtenForOtherEngine(const ScenarioDef& scenario) const {
    const auto it = m_writtenFor.constFind(scenario.id);
    if (it == m_writtenFor.constEnd() || *it == m_dialect)
        return std::nullopt;
    return *it;
}

void ScenarioListModel::reload() {
    const int rows = static_cast<int>(m_document->project().scenarios.size());
    if (rows > m_rows) {
        beginInsertRows({}, m_rows, rows - 1);
        m_rows = rows;
        endInsertRows();
    } else if (rows < m_rows) {
        beginRemoveRows({}, rows, m_rows - 1);
        m_rows = rows;
        endRemoveRows();
    }
    if (m_rows > 0)
        emit dataChanged(index(0), index(m_rows - 1));
}

}  // namespace blobbench
