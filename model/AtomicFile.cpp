#include "model/AtomicFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/core/Error.h"
#include "engine/core/FileKind.h"

namespace blobbench {
namespace {

// 0 or the errno of the failed write.
int writeAll(int fd, const QByteArray& data) {
    const char* p = data.constData();
    std::size_t left = static_cast<std::size_t>(data.size());
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return n < 0 ? errno : ENOSPC;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    return 0;
}

// "<target>.tmp-XXXXXX", or a short ".bb-XXXXXX" in the same folder when that longer name would pass
// the file system's limit on one name (a legal name of 245 to 255 bytes).
std::string temporaryBeside(const std::string& target) {
    constexpr const char* kSuffix = ".tmp-XXXXXX";
    const std::size_t slash = target.rfind('/');
    const std::string folder = slash == std::string::npos ? std::string(".") : target.substr(0, slash + 1);
    const std::size_t nameBytes = target.size() - (slash == std::string::npos ? 0 : slash + 1);
    long limit = ::pathconf(folder.c_str(), _PC_NAME_MAX);
    if (limit <= 0) {
        limit = NAME_MAX;
    }
    if (nameBytes + std::strlen(kSuffix) <= static_cast<std::size_t>(limit)) {
        return target + kSuffix;
    }
    return (slash == std::string::npos ? std::string() : folder) + ".bb-XXXXXX";
}

// /dev/stdout, /dev/fd/1, /proc/self/fd/1, or a link that leads to one: a descriptor of the process, not
// a file of the user's. Replaced by a rename, it lost the report the descriptor held or took the place
// of the system's own /dev/stdout link (hostile round 5o O1).
bool isDescriptorPath(std::string path) {
    auto isOne = [](const std::string& p) {
        if (p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/stdin") {
            return true;
        }
        for (const char* folder : {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"}) {
            if (p.starts_with(folder) && p.size() > std::strlen(folder) &&
                p.find_first_not_of("0123456789", std::strlen(folder)) == std::string::npos) {
                return true;
            }
        }
        // /proc/<pid>/fd/<n> and /proc/<pid>/task/<tid>/fd/<n>
        return p.starts_with("/proc/") && p.find("/fd/") != std::string::npos &&
               p.find_first_not_of("0123456789", p.rfind('/') + 1) == std::string::npos;
    };
    for (int hops = 0; hops < 40; ++hops) {  // a loop of links ends here, as the kernel's ELOOP does
        if (!path.starts_with("/")) {
            char cwd[PATH_MAX];
            if (::getcwd(cwd, sizeof cwd) != nullptr) {
                path = std::string(cwd) + "/" + path;
            }
        }
        if (isOne(path)) {
            return true;
        }
        char link[PATH_MAX];
        const ssize_t n = ::readlink(path.c_str(), link, sizeof link - 1);
        if (n <= 0) {
            return false;
        }
        const std::string to(link, static_cast<std::size_t>(n));
        path = to.starts_with("/") ? to : path.substr(0, path.rfind('/') + 1) + to;
    }
    return false;
}

[[noreturn]] void fail(const std::string& path, int error, const char* after = "") {
    throw Error(ErrorKind::Io, "cannot write " + path + ": " + std::strerror(error) + after);
}

}  // namespace

bool modeAllowsWriting(const std::string& path, const struct stat& st) {
    if (::geteuid() == 0) {
        return (st.st_mode & 0222) != 0;  // as the kernel does for root and the execute bits
    }
    return ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0 || errno != EACCES;
}

bool replacedWhole(const std::string& path) {
    struct stat st {};
    return !isDescriptorPath(path) && (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode));
}

void writeFileAtomically(const QString& name, const QByteArray& data) {
    writeFileAtomically(name, data, AtomicWriteHooks{});
}

void writeFileAtomically(const QString& name, const QByteArray& data, const AtomicWriteHooks& hooks) {
    const std::string path = name.toStdString();
    std::string target = path;  // a symbolic link's target is replaced, not the link
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    // Not a regular file (/dev/stdout, a pipe of the shell's `>(jq .)`, /dev/full): written in
    // place. A FIFO is opened without waiting: with no process reading it, open(2) would wait for
    // one for ever (and no signal reaches a process blocked there), so it is refused at once. A
    // descriptor of the process (/dev/stdout onto a file) is appended to: what it holds is the report.
    const bool descriptor = isDescriptorPath(path);
    if (exists && (!S_ISREG(st.st_mode) || descriptor)) {
        if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode)) {
            throw Error(ErrorKind::Io, "cannot write " + path + ": " + whyNotAFile(path) + ": name a file to write");
        }
        const bool fifo = S_ISFIFO(st.st_mode);
        const int fd =
            ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (descriptor ? O_APPEND : O_TRUNC) | (fifo ? O_NONBLOCK : 0));
        if (fd < 0 && fifo && errno == ENXIO) {
            throw Error(ErrorKind::Io, "cannot write " + path + ": a FIFO no process reads (start its reader first)");
        }
        if (fd < 0) {
            fail(path, errno);
        }
        if (fifo) {
            ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // the reader sets the pace
        }
        const int error = writeAll(fd, data);
        if (::close(fd) != 0 && error == 0 && errno != EINTR) {
            fail(path, errno);
        }
        if (error != 0) {
            fail(path, error);
        }
        return;
    }
    if (exists && !modeAllowsWriting(path, st)) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        throw Error(ErrorKind::Io,
                    "cannot write " + path + ": the file is read-only (mode " + mode + "): not replaced");
    }
    if (exists) {
        char resolved[PATH_MAX];
        if (::realpath(path.c_str(), resolved) != nullptr) {
            target = resolved;
        }
    }
    std::string temporary = temporaryBeside(target);
    const int fd = ::mkstemp(temporary.data());
    if (fd < 0) {
        fail(path, errno);
    }
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    int error = writeAll(fd, data);
    if (error == 0 && ::fchmod(fd, exists ? (st.st_mode & 07777) : 0644) != 0) {
        error = errno;
    }
    // Synced before the rename: after a crash the name holds the old bytes or the new, whole.
    if (error == 0 && ::fsync(fd) != 0 && errno != EINVAL) {
        error = errno;
    }
    if (error == 0 && hooks.written != nullptr && ::fstat(fd, hooks.written) != 0) {
        error = errno;
    }
    if (::close(fd) != 0 && error == 0 && errno != EINTR) {
        error = errno;
    }
    if (error == 0 && hooks.beforeRename) {
        try {
            hooks.beforeRename();
        } catch (...) {
            ::unlink(temporary.c_str());
            throw;
        }
    }
    if (error == 0 && ::rename(temporary.c_str(), target.c_str()) != 0) {
        error = errno;
    }
    if (error != 0) {
        ::unlink(temporary.c_str());
        fail(path, error, exists ? " (the previous file is unchanged)" : "");
    }
}

}  // namespace blobbench
