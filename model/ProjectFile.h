#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <functional>
#include <string>

#include "model/Project.h"

namespace blobbench {

// *.blobbench.json: a project on disk. docs/project-format.md describes every key.
//
// Written pretty-printed with a stable key order (the root in a fixed order, every other object
// sorted by key) and each stored sample on one line, so that a file diffs well and load + save
// gives the same bytes. Loading is strict: unknown keys, wrong types, values out of range and
// hostile sizes are refused with one line naming the JSON path of the first error, e.g.
// "scenarios[2].sql: expected a string". Never a password: a connection target that holds one
// (password=..., user:secret@host) is refused both ways.
constexpr int kProjectFormatVersion = 1;
constexpr qint64 kMaxProjectFileBytes = qint64(512) * 1024 * 1024;
constexpr int kMaxProjectNesting = 32;
constexpr int kMaxTextLength = 1024 * 1024;  // SQL and every other string: 1 Mi characters
inline constexpr char kProjectSuffix[] = ".blobbench.json";

// The exact bytes saveProject() writes. Throws Error(Usage) when a target holds a password.
QByteArray projectToJson(const Project& project);

// Throws Error(Data) "<json path>: <what>" (or "line L, column C: <parser's words>").
Project projectFromJson(QByteArray bytes);  // by value: a moved-in text is freed once parsed

// Throws Error(Io) for an unreadable file, Error(Data) "<file>: <json path>: <what>" for a bad one.
Project loadProject(const QString& path);

// Atomic (temporary file + rename): on any failure (disk full, read-only folder) the old file is
// intact. Throws Error(Io) naming the file, Error(Usage) for a password in a target.
void saveProject(const QString& path, const Project& project);

// Crash safety without rewriting a long history after every point: while a run goes on, each
// finished point's samples are appended to "<project>.journal" (one JSON object per line: a run's
// header, its samples, possibly its header again with the outcome, then maybe another run) and synced; the project file
// itself is saved when the run starts and when it ends, and the journal removed after that last save. Costs O(point),
// not O(history).
QString journalPathFor(const QString& projectPath);

// The journal carries a POSIX record lock of the process writing it for as long as it is open:
// recovery and removal leave a journal that another live process holds alone (the workbench keeps
// one while its runs are unsaved), and a RunJournal on it in another process is refused. The lock
// belongs to the process: in the same process (a second window) the journal counts as a crashed one.
class RunJournal {
public:
    // Creates (or truncates) the journal and writes the run's header. Throws Error(Io), also for a
    // journal that another process holds ("in use by another process").
    RunJournal(const QString& projectPath, const RunRecord& run);
    ~RunJournal();
    RunJournal(const RunJournal&) = delete;
    RunJournal& operator=(const RunJournal&) = delete;

    // Writes another run's header (the workbench keeps one journal while runs are unsaved), or the
    // same run's header again with its outcome once it ends.
    void beginRun(const RunRecord& run);
    // Appends the samples and, unless `sync` is false, syncs them to disk (a crash of the machine
    // then loses nothing; without it, a crash of the program loses nothing). Throws Error(Io)
    // naming the journal (disk full...); a write that fails is cut off again, so the journal
    // still ends with a whole line and holds the samples appended before.
    void append(const std::vector<Sample>& samples, bool sync = true);
    // Appends the load points of a run of many sessions (one point a scenario), as append() does samples.
    void appendLoads(const std::vector<LoadPoint>& points, bool sync = true);
    // How many samples (and load points) the journal holds (appended whole, since it was created).
    std::size_t samplesHeld() const { return m_samples; }
    const QString& path() const { return m_path; }
    // Whether the journal written is still the file at path(): not deleted (its folder with it) or
    // replaced by another program since it was opened.
    bool stillAtItsPath() const;
    // Syncs what was appended without a sync.
    void sync();
    // Removes the journal: call after the project file holding the whole run has been saved.
    void discard();

private:
    void write(const QByteArray& bytes, bool sync);
    QString m_path;
    int m_fd = -1;
    std::size_t m_samples = 0;
};

// A journal left next to the project (a run that crashed or was killed): its samples missing from
// the project's history are added to it, the run marked "interrupted (recovered from its journal)".
// Returns one line saying what happened, empty when there is no journal. A torn last line is
// ignored (and said). The journal stays until removeJournal(): save the project first.
// A journal whose first run cannot be read (torn, garbage, too large) would block the project
// for ever: it is renamed to "<journal>.broken[-N]" and the line names that file in full. A
// journal that another live process holds is left alone (and said). Throws Error(Io) when the
// journal cannot be read or set aside.
QString recoverJournal(const QString& projectPath, Project& project);

// Refuses, with Error(Data) naming the key under `path`, a sample of a samples file (--json) that
// the project loader would refuse: numbers out of range, an unknown status, a key it does not know.
// Its trace is not checked here (the reader decodes it).
void checkSampleJson(const QJsonObject& sample, const QString& path);

// How many samples of the project's history keep their exchange trace unread (see TraceLoadScope).
std::size_t unreadTraces(const Project& project);
// Removes the journal unless another live process holds it.
void removeJournal(const QString& projectPath);

// One run at a time per project: held (flock on "<project>.lock") by a run from loading the
// project until its last save, so that a second run neither loses its own run nor takes the
// first one's live journal for a crashed run's. The kernel drops the lock of a process that dies.
class ProjectLock {
public:
    // Blocks until the lock is held. While another process holds it: `waiting` is called once
    // with one line naming it, and the wait ends by Error(Cancelled) as soon as `stop` says so
    // (polled). Throws Error(Io) naming the lock file when it cannot be created.
    explicit ProjectLock(const QString& projectPath, const std::function<void(const std::string&)>& waiting = {},
                         const std::function<bool()>& stop = {});
    ~ProjectLock();
    ProjectLock(const ProjectLock&) = delete;
    ProjectLock& operator=(const ProjectLock&) = delete;

private:
    std::string m_path;
    int m_fd = -1;
};

// Whether another process runs the project, for a caller that refuses rather than waits: one line
// naming the project, the process and what it holds (the project's lock, see ProjectLock, or its run
// journal, see RunJournal), empty when neither is held. Takes and changes nothing lasting. A
// ProjectLock of this process counts too (flock locks conflict between descriptors); its RunJournal
// does not.
std::string projectInUseElsewhere(const QString& projectPath);

// By name (*.blobbench.json) or, for other names, by content (a JSON object with "formatVersion"
// and "connections" or "scenarios" in its first 4 KiB; a samples file from --json has neither).
bool looksLikeProjectFile(const QString& path);

}  // namespace blobbench
