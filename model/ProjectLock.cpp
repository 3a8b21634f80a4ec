#include "model/ProjectFile.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <QFileInfo>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "engine/core/Error.h"
#include "model/ProjectJsonInternal.h"

namespace blobbench {
using namespace projectjson;

ProjectLock::ProjectLock(const QString& projectPath, const std::function<void(const std::string&)>& waiting,
                         const std::function<bool()>& stop)
    : m_path(projectPath.toStdString() + ".lock") {
    bool said = false;
    for (;;) {
        // The lock file is truncated and written: never through a link to another file (O_NOFOLLOW, a
        // second name), nor a FIFO or device (O_NONBLOCK: the open must not wait for a writer).
        m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
        if (m_fd < 0) {
            throw Error(ErrorKind::Io, "cannot create the project's lock file " + m_path + ": " +
                                           (errno == ELOOP ? std::string("it is a symbolic link (remove it)")
                                                           : std::string(std::strerror(errno))));
        }
        if (struct stat own{}; ::fstat(m_fd, &own) != 0 || !S_ISREG(own.st_mode) || own.st_nlink > 1) {
            ::close(m_fd);
            throw Error(ErrorKind::Io, "cannot use the project's lock file " + m_path +
                                           ": it is not a file of its own (a FIFO, a device or another "
                                           "file's second name): remove it; it was left unchanged");
        }
        while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK && errno != EINTR) {
                const int error = errno;
                ::close(m_fd);
                throw Error(ErrorKind::Io, "cannot lock " + m_path + ": " + std::strerror(error));
            }
            if (!said && waiting) {
                char holder[32] = {};
                const ssize_t n = ::pread(m_fd, holder, sizeof holder - 1, 0);
                std::string pid(holder, static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
                pid.erase(std::find_if(pid.begin(), pid.end(), [](char c) { return c < '0' || c > '9'; }), pid.end());
                waiting("another run" + (pid.empty() ? std::string() : " (process " + pid + ")") +
                        " is writing to this project; waiting for it to finish");
                said = true;
            }
            if (stop && stop()) {
                ::close(m_fd);
                throw Error(ErrorKind::Cancelled, "cancelled while waiting for another run of the project to finish");
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        // The holder removes the file before it unlocks: a lock on a removed file holds nothing.
        struct stat held {};
        struct stat now {};
        if (::fstat(m_fd, &held) == 0 && ::stat(m_path.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
            held.st_ino == now.st_ino) {
            break;
        }
        ::close(m_fd);
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(m_fd, 0) != 0 || ::pwrite(m_fd, pid.data(), pid.size(), 0) < 0) {
        // Only the message of a waiting run names the holder: not worth failing the run for.
    }
}

ProjectLock::~ProjectLock() {
    ::unlink(m_path.c_str());
    ::close(m_fd);
}

std::string projectInUseElsewhere(const QString& projectPath) {
    const std::string project = QFileInfo(projectPath).absoluteFilePath().toStdString();
    const std::string lock = projectPath.toStdString() + ".lock";
    const OwnedFd lockFd(::open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (lockFd.fd >= 0 && ::flock(lockFd.fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        char holder[32] = {};
        const ssize_t n = ::pread(lockFd.fd, holder, sizeof holder - 1, 0);
        std::string pid(holder, static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
        pid.erase(std::find_if(pid.begin(), pid.end(), [](char c) { return c < '0' || c > '9'; }), pid.end());
        return project + " is in use by another process" + (pid.empty() ? std::string() : " (process " + pid + ")") +
               " running this project: it holds " + lock;
    }
    // (closing lockFd drops the probe's shared lock, if it took one)
    const std::string journal = journalPathFor(projectPath).toStdString();
    const OwnedFd journalFd(::open(journal.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));  // a FIFO: no wait
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    if (journalFd.fd >= 0 && ::fcntl(journalFd.fd, F_GETLK, &whole) == 0 && whole.l_type != F_UNLCK) {
        return project + " is in use by another process (process " + std::to_string(whole.l_pid) +
               ") running this project: it holds the run journal " + journal + " (a run not saved yet)";
    }
    return {};
}

}  // namespace blobbench
