#include "ui/DocumentController.h"

#include <QAction>
#include <QCryptographicHash>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <algorithm>

#include "engine/core/Error.h"
#include "model/Presets.h"
#include "model/SampleJson.h"
#include "ui/Units.h"

namespace blobbench {
namespace {

constexpr int kMaxRecentFiles = 8;

// The runs of the project file at `path` that `project` lacks (another process saved them since it
// was loaded): a save would delete them. None when the file cannot be read (nothing to keep there).
QStringList runsOnlyIn(const QString& path, const Project& project) {
    QStringList lost;
    try {
        for (const RunRecord& onDisk : loadProject(path).history) {
            if (std::none_of(project.history.begin(), project.history.end(),
                             [&](const RunRecord& r) { return r.runId == onDisk.runId; })) {
                lost << onDisk.runId;
            }
        }
    } catch (const Error&) {
        // unreadable or broken: the save replaces it, as it always did
    }
    return lost;
}

// Empty for a project that cannot be written (a connection target holding a password): the save
// itself then refuses it in one line; a hash must never throw out of a signal handler.
QByteArray settingsHash(const Project& project) {
    try {
        return QCryptographicHash::hash(projectToJson(project), QCryptographicHash::Sha256);
    } catch (const Error&) {
        return {};
    }
}

}  // namespace

DocumentController::DocumentController(ProjectDocument* document, QMainWindow* window, std::function<bool()> isRunning)
    : QObject(window), m_document(document), m_window(window), m_isRunning(std::move(isRunning)) {
    connect(m_document, &ProjectDocument::projectReset, this, [this] {
        if (m_document->filePath() != m_stampPath) {
            m_stamp = {};  // another file, or none: nothing read from it yet
            m_stampPath.clear();
        }
        rememberSavedRuns();
        updateTitle();
    });
    connect(m_document, &ProjectDocument::dirtyChanged, this, [this](bool dirty) {
        if (!dirty)
            rememberSavedRuns();
        updateTitle();
    });
    rememberSavedRuns();
}

void DocumentController::rememberSavedRuns() {
    m_savedRuns.clear();
    for (const RunRecord& run : m_document->project().history)
        m_savedRuns.insert(run.runId);
    m_savedSettings = settingsHash(m_document->project());
}

int DocumentController::unsavedRuns() const {
    int n = 0;
    for (const RunRecord& run : m_document->project().history)
        n += m_savedRuns.contains(run.runId) ? 0 : 1;
    return n;
}

void DocumentController::setRecentFilesMenu(QMenu* menu) {
    m_recentFilesMenu = menu;
    refreshRecentFilesMenu();
}

// The shipped presets (installed or in the source tree), opened as a new, unsaved project.
void DocumentController::fillPresetsMenu(QMenu* presets) {
    connect(presets, &QMenu::aboutToShow, this, [this, presets] {
        presets->clear();
        const QStringList files = presetFiles();
        if (files.isEmpty()) {
            presets->addAction(tr("(no presets found)"))->setEnabled(false);
        }
        for (const QString& path : files) {
            presets->addAction(QFileInfo(path).fileName(), this, [this, path] {
                if (m_isRunning() || !maybeKeepChanges()) {
                    return;
                }
                Project project;
                try {
                    project = loadProject(path);
                } catch (const Error& e) {
                    emit failed(tr("Cannot open the preset: %1").arg(qs(e.what())));
                    return;
                }
                emit projectReplaced();
                m_document->reset(std::move(project));
                emit message(tr("Opened the preset %1 as a new project (Save as keeps it and its runs)").arg(path),
                             false);
            });
        }
    });
}

void DocumentController::newProject() {
    if (m_isRunning() || !maybeKeepChanges())
        return;
    emit projectReplaced();
    m_document->reset(defaultProject(m_defaultDatasetPath));
    emit message(tr("New project: the SQLite reference suite"), false);
}

void DocumentController::openProject() {
    if (m_isRunning() || !maybeKeepChanges()) {
        return;
    }
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Open project"),
                                                      settings.value(QStringLiteral("files/lastProjectDir")).toString(),
                                                      tr("BlobBench projects (*.blobbench.json);;All files (*)"));
    if (!path.isEmpty()) {
        openProjectFile(path);
    }
}

bool DocumentController::openProjectFile(const QString& path) {
    QString recovered;
    try {
        ProjectFileStamp stamp;
        Project project = loadProjectStamped(path, stamp);
        // A run that crashed (or was killed) left its journal: its samples join the history.
        recovered = recoverJournal(path, project);
        if (!recovered.isEmpty()) {
            saveProjectGuarded(path, project, {}, stamp);  // only the history changed: keep it safe at once
            removeJournal(path);
        }
        emit projectReplaced();
        m_document->reset(std::move(project), path);
        m_stamp = stamp;
        m_stampPath = path;
    } catch (const Error& e) {
        emit failed(tr("Cannot open the project: %1").arg(qs(e.what())));
        return false;
    }
    if (!recovered.isEmpty()) {
        emit message(tr("Recovered from the run journal and saved: %1").arg(recovered), false);
    }
    QSettings().setValue(QStringLiteral("files/lastProjectDir"), QFileInfo(path).absolutePath());
    rememberRecentFile(path);
    const std::string unread = unreadTracesNote(unreadTraces(m_document->project()));
    emit message(unread.empty() ? tr("Opened %1").arg(path) : tr("Opened %1; %2").arg(path, qs(unread)), false);
    updateTitle();
    return true;
}

bool DocumentController::saveProjectTo(const QString& path) {
    // Refused rather than waited for: a wait would freeze the window for as long as the other run lasts.
    if (!(m_lock && path == m_document->filePath())) {
        if (const std::string other = projectInUseElsewhere(path); !other.empty()) {
            emit failed(tr("Not saved: %1. Saving now would overwrite that process's runs; this window's "
                           "project is kept as it is (Save as saves it under another name).")
                            .arg(qs(other)));
            return false;
        }
    }
    if (path == m_document->filePath() && path == m_stampPath && projectFileChanged(path, m_stamp)) {
        return saveOverChangedFile(path);
    }
    if (path == m_document->filePath()) {
        if (const QStringList lost = runsOnlyIn(path, m_document->project()); !lost.isEmpty()) {
            emit failed(tr("Not saved: %1 holds %n run(s) this window has not loaded (%2), saved there by another "
                           "process since it was opened; saving would delete them. Save as keeps this window's "
                           "project under another name.",
                           nullptr, static_cast<int>(lost.size()))
                            .arg(QFileInfo(path).absoluteFilePath(),
                                 lost.mid(0, 3).join(QStringLiteral(", ")) +
                                     (lost.size() > 3 ? QStringLiteral(", …") : QString())));
            return false;
        }
    }
    ProjectFileStamp stamp = path == m_stampPath ? m_stamp : ProjectFileStamp{};
    try {
        // A change by another program between the check above and the rename: refused, not overwritten.
        saveProjectGuarded(path, m_document->project(), {}, stamp);
    } catch (const Error& e) {
        // The old file is intact (atomic save); the project stays open and dirty.
        emit failed(tr("Cannot save the project: %1").arg(qs(e.what())));
        return false;
    }
    m_stamp = stamp;
    m_stampPath = path;
    m_document->setFilePath(path);
    m_document->markClean();
    if (!m_isRunning()) {
        dropJournal();  // the file now holds every sample the journal kept
    }
    QSettings().setValue(QStringLiteral("files/lastProjectDir"), QFileInfo(path).absolutePath());
    rememberRecentFile(path);
    emit message(tr("Saved %1").arg(path), false);
    updateTitle();
    return true;
}

// Another program (an editor, `mv new.json P`, blobbench-cli) saved the file since this window read
// or wrote it. When the window's only unsaved changes are new runs, they go into the new version
// (loaded strictly, as blobbench-cli does), which is saved and shown; anything else is refused with
// the project kept as it is, unsaved (Save as still saves it elsewhere).
bool DocumentController::saveOverChangedFile(const QString& path) {
    const QString file = QFileInfo(path).absoluteFilePath();
    const QString keep = tr("this window's project is kept as it is, unsaved (Save as saves it under another name).");
    if (m_isRunning()) {
        emit failed(tr("Not saved: %1 was changed by another program since this window read it; save again once "
                       "the run has finished, to add the window's runs to its new version; %2")
                        .arg(file, keep));
        return false;
    }
    Project base = m_document->project();
    std::vector<RunRecord> mine;
    std::erase_if(base.history, [&](const RunRecord& r) {
        if (m_savedRuns.contains(r.runId))
            return false;
        mine.push_back(r);
        return true;
    });
    if (settingsHash(base) != m_savedSettings) {
        emit failed(tr("Not saved: %1 was changed by another program since this window read it, and this window "
                       "has unsaved changes other than new runs: saving would lose one or the other; %2")
                        .arg(file, keep));
        return false;
    }
    ProjectFileStamp stamp;
    Project newer;
    try {
        newer = loadProjectStamped(path, stamp);
    } catch (const Error& e) {
        emit failed(tr("Not saved: %1 was changed by another program since this window read it, and its new "
                       "version cannot be loaded (%2); %3")
                        .arg(file, qs(oneLine(e.what())), keep));
        return false;
    }
    for (const RunRecord& run : mine) {
        const auto same = std::find_if(newer.history.begin(), newer.history.end(),
                                       [&](const RunRecord& r) { return r.runId == run.runId; });
        if (same != newer.history.end()) {
            *same = run;
        } else {
            newer.history.push_back(run);
        }
    }
    try {
        saveProjectGuarded(path, newer, {}, stamp);  // changed once more meanwhile: refused
    } catch (const Error& e) {
        emit failed(tr("Not saved: %1; %2").arg(qs(oneLine(e.what())), keep));
        return false;
    }
    m_document->reset(std::move(newer), path);
    m_stamp = stamp;
    m_stampPath = path;
    dropJournal();  // the file now holds every sample the journal kept
    rememberRecentFile(path);
    emit message(tr("Saved %1: the file had been changed by another program since this window read it; this "
                    "window's %n new run(s) were added to its new version, which the window now shows.",
                    nullptr, static_cast<int>(mine.size()))
                     .arg(path),
                 false);
    updateTitle();
    return true;
}

QStringList DocumentController::recentProjects() const {
    return QSettings().value(QStringLiteral("recentProjects")).toStringList();
}

void DocumentController::rememberRecentFile(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList recent = recentProjects();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecentFiles)
        recent.removeLast();
    QSettings().setValue(QStringLiteral("recentProjects"), recent);
    refreshRecentFilesMenu();
}

void DocumentController::refreshRecentFilesMenu() {
    if (m_recentFilesMenu == nullptr)
        return;
    m_recentFilesMenu->clear();
    const QStringList recent = recentProjects();
    if (recent.isEmpty()) {
        m_recentFilesMenu->addAction(tr("(none yet)"))->setEnabled(false);
        return;
    }
    for (int i = 0; i < recent.size(); ++i) {
        const QString& path = recent[i];
        QAction* action =
            m_recentFilesMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()), this,
                                         [this, path] { openRecentProject(path); });
        action->setToolTip(path);
        action->setData(path);
    }
    m_recentFilesMenu->addSeparator();
    m_recentFilesMenu->addAction(tr("Clear the list"), this, [this] {
        QSettings().remove(QStringLiteral("recentProjects"));
        refreshRecentFilesMenu();
    });
}

bool DocumentController::openRecentProject(const QString& path) {
    if (!QFileInfo::exists(path)) {
        QStringList recent = recentProjects();
        recent.removeAll(path);
        QSettings().setValue(QStringLiteral("recentProjects"), recent);
        refreshRecentFilesMenu();
        emit failed(tr("%1 no longer exists: removed from the recent files.").arg(path));
        return false;
    }
    if (m_isRunning() || !maybeKeepChanges())
        return false;
    return openProjectFile(path);
}

bool DocumentController::openDroppedFile(const QString& path) {
    if (m_isRunning()) {
        emit failed(tr("A run is in progress: stop it before opening %1.").arg(QFileInfo(path).fileName()));
        return false;
    }
    if (!maybeKeepChanges())
        return false;
    return openProjectFile(path);
}

void DocumentController::saveProject() {
    if (m_document->filePath().isEmpty()) {
        saveProjectAs();
        return;
    }
    saveProjectTo(m_document->filePath());
}

void DocumentController::saveProjectAs() {
    const QString path = askSavePath(m_window, tr("Save project"), tr("BlobBench projects (*.blobbench.json)"),
                                     QStringLiteral("blobbench.json"));
    if (!path.isEmpty()) {
        saveProjectTo(path);
    }
}

namespace {

// Says whether measured runs would be lost: only when there are some.
QString unsavedRunsQuestion(int runs) {
    if (runs == 0)
        return DocumentController::tr(
            "The project has unsaved changes to its settings (no new measured runs). "
            "Save them?");
    return DocumentController::tr("The project has unsaved changes, %n measured run(s) among them. Save them?", nullptr,
                                  runs);
}

}  // namespace

bool DocumentController::maybeKeepChanges() {
    if (!m_document->isDirty() || m_suppressUnsavedPrompt) {
        return true;
    }
    const auto answer =
        QMessageBox::question(m_window, tr("Unsaved changes"), unsavedRunsQuestion(unsavedRuns()),
                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) {
        return false;
    }
    if (answer == QMessageBox::Save) {
        saveProject();
        return !m_document->isDirty();
    }
    if (!m_isRunning()) {
        dropJournal();  // discarded on purpose: not recovered next time
    }
    return true;
}

// The run's samples go to "<project>.journal" as they arrive (see RunJournal), so a crash of the
// workbench loses nothing measured even when the project is not saved. Not synced sample by sample
// on this thread; an unsaved project (no file yet) has no journal.
QString DocumentController::startJournal(const RunRecord& record) {
    m_lock.reset();  // a run that never reported its end
    const QString path = m_document->filePath();
    if (path.isEmpty()) {
        m_journal.reset();
        return {};
    }
    const QString refusal =
        tr("Not run: %1. Nothing was measured; run again once it has finished (then open the "
           "project again to see its runs).");
    if (const std::string other = projectInUseElsewhere(path); !other.empty()) {
        return refusal.arg(qs(other));
    }
    try {
        // Never waits: another process that took the lock since the check is a refusal too.
        m_lock = std::make_unique<ProjectLock>(path, nullptr, [] { return true; });
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::Cancelled) {  // (the other process may have let go since)
            const std::string other = projectInUseElsewhere(path);
            return refusal.arg(other.empty() ? tr("%1 is in use by another process running this project").arg(path)
                                             : qs(other));
        }
        emit message(tr("The project's lock cannot be taken (another process could run it at the same time): %1")
                         .arg(qs(e.what())),
                     true);
    }
    try {
        if (m_journal && m_journalPath == path) {
            m_journal->beginRun(record);  // earlier runs are still unsaved: they stay in the journal
            return {};
        }
        m_journal.reset();
        m_journal = std::make_unique<RunJournal>(path, record);
        m_journalPath = path;
    } catch (const Error& e) {
        if (const std::string other = projectInUseElsewhere(path); !other.empty()) {
            m_lock.reset();
            return refusal.arg(qs(other));
        }
        emit message(tr("No run journal (a crash would lose this run's samples): %1").arg(qs(e.what())), true);
    }
    return {};
}

void DocumentController::journal(const Sample& sample) {
    if (!m_journal) {
        return;
    }
    try {
        m_journal->append({sample}, false);
    } catch (const Error& e) {
        emit message(tr("The run journal stopped: %1").arg(qs(e.what())), false);
        m_journal.reset();
    }
}

void DocumentController::journalLoads(const std::vector<LoadPoint>& loads) {
    if (!m_journal) {
        return;
    }
    try {
        m_journal->appendLoads(loads);
    } catch (const Error& e) {
        emit message(tr("The run journal stopped: %1").arg(qs(e.what())), false);
        m_journal.reset();
    }
}

void DocumentController::journalFinished(const QString& runId) {
    m_lock.reset();  // the run is over; its samples stay in the journal until the project is saved
    if (!m_journal) {
        return;
    }
    for (const RunRecord& r : m_document->project().history) {
        if (r.runId == runId) {
            RunRecord header = r;
            header.samples.clear();
            try {
                m_journal->beginRun(header);  // the same run again, now with its outcome
            } catch (const Error& e) {
                emit message(tr("The run journal stopped: %1").arg(qs(e.what())), false);
                m_journal.reset();
            }
            return;
        }
    }
}

void DocumentController::dropJournal() {
    if (m_journal) {
        m_journal->discard();
        m_journal.reset();
    }
    if (!m_journalPath.isEmpty()) {
        removeJournal(m_journalPath);  // the last run's, or the one recovered at open
        m_journalPath.clear();
    }
}

void DocumentController::updateTitle() {
    const QString path = m_document->filePath();
    m_window->setWindowFilePath(path);
    m_window->setWindowTitle((path.isEmpty() ? tr("Untitled project") : QFileInfo(path).fileName()) +
                             (m_document->isDirty() ? QStringLiteral(" *") : QString()) +
                             QStringLiteral(" - BlobBench"));
}

QString DocumentController::askSavePath(QWidget* parent, const QString& title, const QString& filter,
                                        const QString& suffix) {
    QFileDialog dialog(parent, title, QString(), filter);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setDefaultSuffix(suffix);
    return dialog.exec() == QDialog::Accepted ? dialog.selectedFiles().value(0) : QString();
}

}  // namespace blobbench
