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

void writeFileAtomically(const QString& name, const QByteArray& data) {
    writeFileAtomically(name, data, AtomicWriteHooks{});
}

void writeFileAtomically(const QString& name, const QByteArray& data, const AtomicWriteHooks& hooks) {
    const std::string path = name.toStdString();
    std::string target = path;  // a symbolic link's target is replaced, not the link
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0) {
            fail(path, errno);
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
    std::string temporary = target + ".tmp-XXXXXX";
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
