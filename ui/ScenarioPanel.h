#pragma once

#include <QWidget>
#include <functional>
#include <optional>

#include "engine/drivers/Driver.h"
#include "model/Project.h"

class QComboBox;
class QListView;
class QMenu;

namespace blobbench {

class ScenarioListModel;
class SqlEditor;

// The project's scenarios: the list (checked ones run with Run all), its Add/Copy/move/Delete bar,
// the Presets menu of the connection's engine, and the SQL panel that edits the current scenario
// (sqlPanel(), placed by the window next to the list). Edits go to the ProjectDocument.
class ScenarioPanel : public QWidget {
    Q_OBJECT
public:
    explicit ScenarioPanel(ProjectDocument* document, QWidget* parent = nullptr);

    QWidget* sqlPanel() const { return m_sqlPanel; }
    QListView* list() const { return m_list; }
    ScenarioListModel* model() const { return m_model; }
    SqlEditor* sqlEditor() const { return m_sqlEditor; }
    SqlEditor* setupEditor() const { return m_setupEditor; }
    int currentIndex() const;       // the current scenario's row, -1 for none
    void setCurrentIndex(int row);  // makes a row current (and selected)
    int count() const;              // the rows of the list

    // Rebuilds the list from the document, keeping the current row where it can.
    void refresh();
    // The Presets menu offers the reference suite of this engine (none for nullptr).
    void setDriver(const Driver* driver);
    // The connection's engine changed (or a project was opened, `switched` false): reference
    // scenarios of another dialect become this engine's; on a switch, the scenarios the user wrote
    // are marked as written for the engine before. Returns a line for the log, empty if nothing changed.
    QString followEngine(const Driver* driver, bool switched);
    // The engine a scenario was written for when that is not the current one (it is then not run).
    std::optional<Dialect> writtenForOtherEngine(const ScenarioDef& scenario) const;

public slots:
    void addScenario();
    void duplicateScenario();
    void renameScenario();
    void moveScenarioUp();
    void moveScenarioDown();
    void deleteScenario();

private:
    QWidget* buildSqlPanel();
    void showScenario(int index);
    void editCurrentScenario(const std::function<void(ScenarioDef&)>& change);

    ProjectDocument* m_document;
    ScenarioListModel* m_model = nullptr;
    QListView* m_list = nullptr;
    QMenu* m_templatesMenu = nullptr;
    QWidget* m_sqlPanel = nullptr;
    QComboBox* m_kind = nullptr;
    QComboBox* m_fetch = nullptr;
    SqlEditor* m_setupEditor = nullptr;
    SqlEditor* m_sqlEditor = nullptr;
    bool m_loadingScenario = false;
};

// A scenario id not yet taken in the project: base, else base-2, base-3, …
QString uniqueScenarioId(const Project& project, const QString& base);

}  // namespace blobbench
