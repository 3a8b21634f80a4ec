#include "model/AtomicFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
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
// The descriptor's number when it is one of this process's own (-1 for another process's), or nullopt.
std::optional<int> descriptorOf(std::string path) {
    auto isOne = [](const std::string& p) -> std::optional<int> {
        if (p == "/dev/stdin" || p == "/dev/stdout" || p == "/dev/stderr") {
            return p == "/dev/stdin" ? 0 : p == "/dev/stdout" ? 1 : 2;
        }
        const auto number = [&](std::size_t from) -> std::optional<int> {
            if (p.size() <= from || p.size() - from > 9 ||
                p.find_first_not_of("0123456789", from) != std::string::npos) {
                return std::nullopt;
            }
            return std::stoi(p.substr(from));
        };
        const std::string self = "/proc/" + std::to_string(::getpid()) + "/fd/";
        for (const std::string& folder :
             {std::string("/dev/fd/"), std::string("/proc/self/fd/"), std::string("/proc/thread-self/fd/"), self}) {
            if (p.starts_with(folder)) {
                return number(folder.size());
            }
        }
        // Another process's: /proc/<pid>/fd/<n>, /proc/<pid>/task/<tid>/fd/<n>
        if (p.starts_with("/proc/") && p.find("/fd/") != std::string::npos && number(p.rfind('/') + 1)) {
            return -1;
        }
        return std::nullopt;
    };
    for (int hops = 0; hops < 40; ++hops) {  // a loop of links ends here, as the kernel's ELOOP does
        if (!path.starts_with("/")) {
            char cwd[PATH_MAX];
            if (::getcwd(cwd, sizeof cwd) != nullptr) {
                path = std::string(cwd) + "/" + path;
            }
        }
        if (const auto fd = isOne(path)) {
            return fd;
        }
        char link[PATH_MAX];
        const ssize_t n = ::readlink(path.c_str(), link, sizeof link - 1);
        if (n <= 0) {
            return std::nullopt;
        }
        const std::string to(link, static_cast<std::size_t>(n));
        path = to.starts_with("/") ? to : path.substr(0, path.rfind('/') + 1) + to;
    }
    return std::nullopt;
}

bool isDescriptorPath(const std::string& path) {
    return descriptorOf(path).has_value();
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
    const std::optional<int> descriptor = descriptorOf(path);
    // One of this process's own (/dev/stdout): written through the descriptor itself, after what the
    // process printed there, which a descriptor opened anew would write over from its start when it is
    // a file the shell opened (hostile round 5p B2: the report overwrote the JSON's start).
    if (descriptor && *descriptor >= 0) {
        std::cout.flush();
        std::cerr.flush();
        if (::fcntl(*descriptor, F_GETFD) < 0) {
            throw Error(ErrorKind::Io, "cannot write " + path + ": descriptor " + std::to_string(*descriptor) +
                                           " of this process is not open");
        }
        if (const int error = writeAll(*descriptor, data); error != 0) {
            fail(path, error);
        }
        return;
    }
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
