#include "model/ProjectSaveGuard.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QCryptographicHash>
#include <QFile>
#include <algorithm>

#include "engine/core/Error.h"
#include "model/AtomicFile.h"
#include "model/ProjectFile.h"

namespace blobbench {
namespace {

ProjectFileStamp stampOf(const struct stat& st, const QByteArray& bytes) {
    ProjectFileStamp s;
    s.known = true;
    s.device = st.st_dev;
    s.inode = st.st_ino;
    s.size = st.st_size;
    s.mtimeNs = qint64(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    s.ctimeNs = qint64(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
    s.sha256 = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
    return s;
}

bool sameStatus(const struct stat& st, const ProjectFileStamp& s) {
    return st.st_dev == s.device && st.st_ino == s.inode && st.st_size == s.size &&
           qint64(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec == s.mtimeNs &&
           qint64(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec == s.ctimeNs;
}

// Thrown through writeFileAtomically() by the check before its rename.
struct ChangedOnDisk {};

// The version of `path` another program saved, loaded strictly, with the run `runId` of `mine`.
Project mergedWithNewVersion(const QString& path, const Project& mine, const QString& runId, ProjectFileStamp& stamp) {
    const std::string changed = path.toStdString() + " was changed by another program since this run read it";
    if (runId.isEmpty()) {
        throw Error(ErrorKind::Io, changed + ": not overwritten");
    }
    const auto run =
        std::find_if(mine.history.begin(), mine.history.end(), [&](const RunRecord& r) { return r.runId == runId; });
    if (run == mine.history.end()) {
        throw Error(ErrorKind::Internal, "saveProjectGuarded: no run " + runId.toStdString() + " to keep");
    }
    Project newer;
    ProjectFileStamp newerStamp;
    try {
        newer = loadProjectStamped(path, newerStamp);
    } catch (const Error& e) {
        throw Error(ErrorKind::Io,
                    changed + ", and the new version cannot be loaded (" + oneLine(e.what()) + "): not overwritten");
    }
    const auto same =
        std::find_if(newer.history.begin(), newer.history.end(), [&](const RunRecord& r) { return r.runId == runId; });
    if (same != newer.history.end()) {
        *same = *run;
    } else {
        newer.history.push_back(*run);
    }
    stamp = newerStamp;
    return newer;
}

}  // namespace

Project loadProjectStamped(const QString& path, ProjectFileStamp& stamp) {
    stamp = {};
    const std::string name = path.toStdString();
    // O_NONBLOCK: a FIFO must not block the open; loadProject() says what is wrong with it.
    const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxProjectFileBytes) {
        if (fd >= 0) {
            ::close(fd);
        }
        return loadProject(path);
    }
    QFile file;
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return loadProject(path);
    }
    QByteArray bytes = file.readAll();
    if (file.error() != QFileDevice::NoError) {
        throw Error(ErrorKind::Io, "cannot read " + name + ": " + file.errorString().toStdString());
    }
    const ProjectFileStamp read = stampOf(st, bytes);
    try {
        Project project = projectFromJson(std::move(bytes));
        stamp = read;
        return project;
    } catch (const Error& e) {
        throw e.withContext(name);
    }
}

bool projectFileChanged(const QString& path, const ProjectFileStamp& stamp) {
    struct stat st {};
    if (!stamp.known || ::stat(path.toStdString().c_str(), &st) != 0) {
        return false;
    }
    if (sameStatus(st, stamp)) {
        return false;
    }
    QFile file(path);
    if (!S_ISREG(st.st_mode) || !file.open(QIODevice::ReadOnly)) {
        return true;
    }
    QCryptographicHash hash(QCryptographicHash::Sha256);
    return !hash.addData(&file) || hash.result() != stamp.sha256;
}

GuardedSave saveProjectGuarded(const QString& path, const Project& project, const QString& runId,
                               ProjectFileStamp& stamp) {
    const std::string name = path.toStdString();
    GuardedSave out;
    const Project* current = &project;
    // Another program may save again between the check and the rename: a few rounds, then refused.
    for (int round = 0; round < 3; ++round) {
        const QByteArray data = projectToJson(*current);
        struct stat written {};
        AtomicWriteHooks hooks;
        hooks.written = &written;
        hooks.beforeRename = [&] {
            if (projectFileChanged(path, stamp)) {
                throw ChangedOnDisk{};
            }
        };
        try {
            writeFileAtomically(path, data, hooks);
            stamp = stampOf(written, data);
            return out;
        } catch (const ChangedOnDisk&) {
        }
        out.merged = mergedWithNewVersion(path, *current, runId, stamp);
        current = &*out.merged;
        out.note = QStringLiteral(
            "the file had been changed by another program during the run: the run was added "
            "to its new version");
    }
    throw Error(ErrorKind::Io, name + " keeps being changed by another program: not overwritten");
}

}  // namespace blobbench
