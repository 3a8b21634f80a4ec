#include "model/ProjectFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QStringList>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/Error.h"
#include "engine/core/FileKind.h"
#include "model/LoadJson.h"
#include "model/ProjectJsonInternal.h"
#include "model/SampleJson.h"

namespace blobbench {
using namespace projectjson;

// ---------------------------------------------------------------------------------------------
// The run journal: one JSON object per line, the run's header first, then its samples.

QString journalPathFor(const QString& projectPath) {
    return projectPath + QLatin1String(".journal");
}

RunJournal::RunJournal(const QString& projectPath, const RunRecord& run) : m_path(journalPathFor(projectPath)) {
    const std::string path = m_path.toStdString();
    // Not truncated before the lock is held: the journal may be another process's live one.
    // Never through a symbolic link (it would create or truncate another file), nor a FIFO (O_NONBLOCK:
    // the open must not wait for a reader; recoverJournal() sets such a journal aside first).
    m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
    if (m_fd < 0) {
        throw Error(ErrorKind::Io, "cannot create the run journal " + path + ": " +
                                       (errno == ELOOP ? std::string("it is a symbolic link (remove it)")
                                                       : std::string(std::strerror(errno))));
    }
    if (struct stat own{}; ::fstat(m_fd, &own) != 0 || !S_ISREG(own.st_mode)) {
        ::close(m_fd);
        m_fd = -1;
        throw Error(ErrorKind::Io, "cannot create the run journal " + path + ": not a regular file");
    }
    // A POSIX record lock, which belongs to the process: a second window of the same workbench
    // (or a test standing in for a restart) may recover it, another live process may not.
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    if (::fcntl(m_fd, F_SETLK, &whole) != 0) {
        const int error = errno == EACCES ? EWOULDBLOCK : errno;
        ::close(m_fd);
        m_fd = -1;
        throw Error(ErrorKind::Io,
                    "the run journal " + path +
                        (error == EWOULDBLOCK ? std::string(" is in use by another process (a run of "
                                                            "this project not saved yet)")
                                              : ": cannot lock it: " + std::string(std::strerror(error))));
    }
    if (::ftruncate(m_fd, 0) != 0) {
        const int error = errno;
        ::close(m_fd);
        m_fd = -1;
        throw Error(ErrorKind::Io, "cannot truncate the run journal " + path + ": " + std::strerror(error));
    }
    write(QJsonDocument(runHeaderJson(run)).toJson(QJsonDocument::Compact) + '\n', true);
}

RunJournal::~RunJournal() {
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

void RunJournal::beginRun(const RunRecord& run) {
    write(QJsonDocument(runHeaderJson(run)).toJson(QJsonDocument::Compact) + '\n', true);
}

void RunJournal::append(const std::vector<Sample>& samples, bool sync) {
    QByteArray lines;
    for (const Sample& s : samples) {
        lines += QJsonDocument(sampleToJson(s)).toJson(QJsonDocument::Compact);
        lines += '\n';
    }
    if (!lines.isEmpty()) {
        write(lines, sync);
        m_samples += samples.size();
    }
}

void RunJournal::appendLoads(const std::vector<LoadPoint>& points, bool sync) {
    QByteArray lines;
    for (const LoadPoint& p : points) {
        lines += QJsonDocument(QJsonObject{{L("load"), loadPointToJson(p)}}).toJson(QJsonDocument::Compact);
        lines += '\n';
    }
    if (!lines.isEmpty()) {
        write(lines, sync);
        m_samples += points.size();
    }
}

void RunJournal::sync() {
    write(QByteArray(), true);
}

void RunJournal::write(const QByteArray& bytes, bool sync) {
    const char* p = bytes.constData();
    qsizetype left = bytes.size();
    const off_t before = ::lseek(m_fd, 0, SEEK_CUR);
    while (left > 0) {
        const ssize_t n = ::write(m_fd, p, static_cast<size_t>(left));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            const int error = n < 0 ? errno : ENOSPC;
            // A torn line would end the journal's readable part; a later line after it would be
            // taken for damage. Shortening a file needs no free space.
            if (before >= 0 && ::ftruncate(m_fd, before) == 0) {
                ::lseek(m_fd, before, SEEK_SET);
            }
            throw Error(ErrorKind::Io,
                        "cannot write the run journal " + m_path.toStdString() + ": " + std::strerror(error));
        }
        p += n;
        left -= n;
    }
    // On disk before the next point starts: what a crash leaves is what was measured.
    if (sync && ::fdatasync(m_fd) != 0 && errno != EINVAL && errno != EROFS) {
        throw Error(ErrorKind::Io, "cannot sync the run journal " + m_path.toStdString() + ": " + std::strerror(errno));
    }
}

bool RunJournal::stillAtItsPath() const {
    struct stat open {
    }, named{};
    if (m_fd < 0 || ::fstat(m_fd, &open) != 0 || open.st_nlink == 0) {
        return false;
    }
    const QByteArray path = QFile::encodeName(m_path);
    return ::stat(path.constData(), &named) == 0 && named.st_dev == open.st_dev && named.st_ino == open.st_ino;
}

void RunJournal::discard() {
    if (m_fd >= 0) {
        QFile::remove(m_path);  // while locked: no other process takes it over in between
        ::close(m_fd);
        m_fd = -1;
    }
}

namespace {

// Whether another live process holds the journal (RunJournal keeps a write lock on it while open).
// Asked with F_GETLK, which takes nothing; the process's own locks never conflict. (Closing this
// descriptor drops locks of this process on the file, which only matters to a process that recovers
// a journal it writes itself.)
bool heldElsewhere(int fd) {
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    return ::fcntl(fd, F_GETLK, &whole) == 0 && whole.l_type != F_UNLCK;
}

// A journal whose first run cannot be read would refuse every later run: renamed out of the way.
QString setJournalAside(const QString& journal, const std::string& why, const char* state = "cannot be read") {
    const QString full = QFileInfo(journal).absoluteFilePath();
    QString aside = full + QLatin1String(".broken");
    for (int n = 2; QFileInfo::exists(aside); ++n) {
        aside = full + QLatin1String(".broken-") + QString::number(n);
    }
    if (::rename(full.toStdString().c_str(), aside.toStdString().c_str()) != 0) {
        throw Error(ErrorKind::Io, "the run journal " + full.toStdString() + " " + state + " (" + why +
                                       ") nor set aside: " + std::strerror(errno));
    }
    return L("the run journal %1 %2 (%3): set aside as %4")
        .arg(full, QString::fromLatin1(state), QString::fromStdString(why), aside);
}

// Why a run of a journal is not this project's, or "": its connection is none of the project's
// (hostile round 5c H3: another project's journal copied beside this one was merged into its
// history, 2,000 samples of another database under a connection name the project does not have).
std::string foreignRun(const RunRecord& run, const Project& project) {
    if (run.connectionName.isEmpty() || project.connections.empty()) {
        return {};
    }
    const auto it = std::find_if(project.connections.begin(), project.connections.end(),
                                 [&](const ConnectionProfile& c) { return c.name == run.connectionName; });
    if (it == project.connections.end()) {
        return "run " + run.runId.toStdString() + " was measured on the connection '" +
               run.connectionName.toStdString() + "', which this project does not have";
    }
    for (const Sample& s : run.samples) {
        if (!s.engine.empty() && s.engine != it->engine.toStdString()) {
            return "run " + run.runId.toStdString() + " measured " + s.engine + " on the connection '" +
                   run.connectionName.toStdString() + "', which is " + it->engine.toStdString() + " in this project";
        }
    }
    return {};
}

}  // namespace

std::size_t unreadTraces(const Project& project) {
    std::size_t count = 0;
    for (const RunRecord& run : project.history) {
        count += unreadTraces(run.samples);
    }
    return count;
}

QString recoverJournal(const QString& projectPath, Project& project) {
    const TraceLoadScope traces(2);
    const QString journal = journalPathFor(projectPath);
    QFile file(journal);  // opened on the locked descriptor, which makes it forget its name
    if (!file.exists()) {
        return {};
    }
    const QString name = QFileInfo(journal).fileName();
    // A FIFO, a device or a directory in its place would block the open or every later run.
    if (const std::string why = whyNotAFile(journal.toStdString()); !why.empty()) {
        return setJournalAside(journal, why);
    }
    const OwnedFd fd(::open(journal.toStdString().c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.fd < 0 || !file.open(fd.fd, QIODevice::ReadOnly)) {
        throw Error(ErrorKind::Io, "cannot read the run journal " + journal.toStdString() + ": " +
                                       (fd.fd < 0 ? std::strerror(errno) : file.errorString().toStdString()));
    }
    if (heldElsewhere(fd.fd)) {
        return L("the run journal %1 belongs to a run in progress in another process: left alone")
            .arg(QFileInfo(journal).absoluteFilePath());
    }
    if (file.size() > kMaxProjectFileBytes) {
        return setJournalAside(journal, "too large for a run journal");
    }
    const QList<QByteArray> lines = file.readAll().split('\n');
    // A line without "scenario" is a run's header: a new run, or the same run's end (its outcome).
    std::vector<RunRecord> runs;
    // A sample line is written once: the same line again (a copied or doubled journal: hostile round
    // 5c recovered 768 samples of 384) is no second sample of its run.
    QSet<QByteArray> sampleLines;
    qsizetype duplicates = 0;
    QString stopped;
    qsizetype stoppedAt = lines.size();
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QByteArray& line = lines[i];
        if (line.trimmed().isEmpty()) {
            continue;
        }
        const QString at = L("%1 line %2").arg(name).arg(i + 1);
        try {
            QJsonParseError error;
            const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
            if (error.error != QJsonParseError::NoError || !doc.isObject()) {
                // A crash mid-write leaves a torn last line: what came before it is whole.
                refuse(at,
                       i == lines.size() - 1 ? L("torn (the run stopped while writing it)") : L("not a JSON object"));
            }
            const QJsonObject o = doc.object();
            if (o.contains(L("load"))) {  // a point of a run of many sessions: {"load": {...}}
                if (runs.empty()) {
                    refuse(at, L("a load point before any run's header"));
                }
                if (o.size() != 1) {
                    refuse(at, L("a load line holds \"load\" alone"));
                }
                const QByteArray key = runs.back().runId.toUtf8() + '\n' + line.trimmed();
                if (sampleLines.contains(key)) {
                    ++duplicates;
                    continue;
                }
                sampleLines.insert(key);
                LoadPoint point =
                    loadPointFromJson(object(o.value(L("load")), child(at, L("load"))), child(at, L("load")));
                point.runId = runs.back().runId.toStdString();
                runs.back().loads.push_back(std::move(point));
                continue;
            }
            if (!o.contains(L("scenario"))) {
                RunRecord header = runFromJson(o, at);
                if (!runs.empty() && runs.back().runId == header.runId) {
                    runs.back().finishedAt = header.finishedAt;
                    runs.back().outcome = header.outcome;
                } else {
                    runs.push_back(std::move(header));
                }
                continue;
            }
            if (runs.empty()) {
                refuse(at, L("a sample before any run's header"));
            }
            sampleCheck(o, at, true);
            const QByteArray key = runs.back().runId.toUtf8() + '\n' + line.trimmed();
            if (sampleLines.contains(key)) {
                ++duplicates;
                continue;
            }
            sampleLines.insert(key);
            runs.back().samples.push_back(sampleFromJson(o));
        } catch (const Error& e) {
            if (runs.empty()) {
                return setJournalAside(journal, e.what());
            }
            stopped = QString::fromStdString(e.what());
            stoppedAt = i;
            break;
        }
    }
    for (const RunRecord& run : runs) {
        if (const std::string why = foreignRun(run, project); !why.empty()) {
            return setJournalAside(journal, why, "is not this project's");  // nothing of it merged
        }
    }
    QStringList said;
    for (RunRecord& run : runs) {
        auto same = std::find_if(project.history.begin(), project.history.end(),
                                 [&](const RunRecord& r) { return r.runId == run.runId; });
        const std::size_t saved = same == project.history.end() ? 0 : same->samples.size();
        const std::size_t savedLoads = same == project.history.end() ? 0 : same->loads.size();
        if (run.samples.size() <= saved && run.loads.size() <= savedLoads) {
            if (run.samples.empty() && run.loads.empty()) {
                // A run of many sessions journals a point when the point ends: a crash loses the one under way.
                said << L("run %1: its journal holds no whole sample or load point (it ended before the first was "
                          "whole; a load point is journalled when it ends, so the one under way is lost)")
                            .arg(run.runId);
            } else {
                said << L("run %1: the project already holds its %2 samples").arg(run.runId).arg(saved);
            }
            continue;
        }
        if (run.outcome.isEmpty()) {
            run.outcome = L("interrupted (recovered from its journal)");
        }
        if (run.loads.size() > savedLoads) {
            said << L("run %1: recovered %2 samples and %3 load points from its journal")
                        .arg(run.runId)
                        .arg(run.samples.size() > saved ? run.samples.size() - saved : 0)
                        .arg(run.loads.size() - savedLoads);
        } else {
            said << L("run %1: recovered %2 samples from its journal").arg(run.runId).arg(run.samples.size() - saved);
        }
        if (same == project.history.end()) {
            project.history.push_back(std::move(run));
        } else {
            if (run.loads.size() > savedLoads) {
                same->loads = std::move(run.loads);
            }
            if (run.samples.size() > saved) {
                same->samples = std::move(run.samples);
            }
            if (same->outcome.isEmpty()) {
                same->outcome = run.outcome;
                same->finishedAt = run.finishedAt;
            }
        }
    }
    QString what = said.join(L("; "));
    if (duplicates > 0) {
        what += L(" (%1 repeated sample lines read once)").arg(duplicates);
    }
    if (!stopped.isEmpty()) {
        what += L(" (reading stopped at %1)").arg(stopped);
        // Damage before the end (not a torn last line): the lines after it may hold samples that
        // removing the journal would lose (hostile round 4: 74 of them). Kept aside for the user.
        const bool more = std::any_of(lines.begin() + stoppedAt + 1, lines.end(),
                                      [](const QByteArray& l) { return !l.trimmed().isEmpty(); });
        if (more) {
            what += L("; ") + setJournalAside(journal, "lines after the damage were not read");
        }
    }
    return what;
}

void removeJournal(const QString& projectPath) {
    const QString path = journalPathFor(projectPath);
    const OwnedFd fd(::open(path.toStdString().c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.fd >= 0 && !heldElsewhere(fd.fd)) {
        QFile::remove(path);
    }
}

}  // namespace blobbench
