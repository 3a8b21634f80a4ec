#pragma once

#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>

#include "model/Project.h"
#include "model/ProjectFile.h"
#include "model/ProjectSaveGuard.h"

class QMainWindow;
class QMenu;
class QWidget;

namespace blobbench {

// The project as a file: new, open, save, recent files, presets, the unsaved-changes question, the
// run journal (crash recovery) and the window title, which only updateTitle() sets.
class DocumentController : public QObject {
    Q_OBJECT
public:
    // isRunning: while a run goes on, no other project may be opened and the journal stays.
    DocumentController(ProjectDocument* document, QMainWindow* window, std::function<bool()> isRunning);

    void setRecentFilesMenu(QMenu* menu);
    void fillPresetsMenu(QMenu* menu);
    QStringList recentProjects() const;
    void setSuppressUnsavedPrompt(bool suppress) { m_suppressUnsavedPrompt = suppress; }
    void setDefaultDatasetPath(const QString& path) { m_defaultDatasetPath = path; }

    void newProject();
    void openProject();
    bool openProjectFile(const QString& path);
    bool saveProjectTo(const QString& path);
    void saveProject();
    void saveProjectAs();
    bool openRecentProject(const QString& path);
    bool openDroppedFile(const QString& path);
    bool maybeKeepChanges();  // asks about unsaved changes; false when the user cancels
    // Runs measured since the project was opened or last saved: the question names them, if any.
    int unsavedRuns() const;

    // The run journal: the run's samples go to "<project>.journal" as they arrive. Before anything
    // runs: takes the project's lock for the run (released by journalFinished) and the journal.
    // Returns why the run must not start (another process runs this project: its samples and this
    // run's would be lost), empty when it may; a journal that cannot be made for another reason is
    // said in the log and the run goes on.
    QString startJournal(const RunRecord& record);
    void journal(const Sample& sample);
    void journalLoads(const std::vector<LoadPoint>& loads);
    void journalFinished(const QString& runId);

    // The window title: the file's name, " *" while unsaved.
    void updateTitle();

    // A save dialog with a default suffix; empty when cancelled.
    static QString askSavePath(QWidget* parent, const QString& title, const QString& filter, const QString& suffix);

signals:
    void message(const QString& text, bool error);
    void failed(const QString& message);
    // Another project replaced the open one (New, Open, a preset): what the old one showed goes.
    void projectReplaced();

private:
    void rememberRecentFile(const QString& path);
    void refreshRecentFilesMenu();
    void dropJournal();
    void rememberSavedRuns();
    // Save over a file another program changed since this window read or wrote it (m_stamp): the
    // window's new runs go into the new version, or the save is refused (see saveProjectTo).
    bool saveOverChangedFile(const QString& path);

    ProjectDocument* m_document;
    QMainWindow* m_window;
    std::function<bool()> m_isRunning;
    QMenu* m_recentFilesMenu = nullptr;
    QString m_defaultDatasetPath;
    bool m_suppressUnsavedPrompt = false;
    std::unique_ptr<RunJournal> m_journal;  // the current run's samples, for crash recovery
    std::unique_ptr<ProjectLock> m_lock;    // held while a run of this window goes on
    QString m_journalPath;
    QSet<QString> m_savedRuns;   // the run ids of the history as last opened or saved
    QByteArray m_savedSettings;  // hash of the project as last opened or saved, its new runs aside
    ProjectFileStamp m_stamp;    // the file as this window last read or wrote it
    QString m_stampPath;
};

}  // namespace blobbench
