#include "engine/core/FileKind.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace blobbench {

std::string whyNotAFile(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return errno == ENOENT ? std::string() : std::string(std::strerror(errno));
    }
    if (S_ISREG(st.st_mode)) {
        return {};
    }
    if (S_ISDIR(st.st_mode)) {
        return "is a directory";
    }
    return std::string("not a regular file (") +
           (S_ISFIFO(st.st_mode)   ? "a FIFO"
            : S_ISSOCK(st.st_mode) ? "a socket"
                                   : "a device") +
           ")";
}

}  // namespace blobbench
