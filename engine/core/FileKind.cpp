#include "engine/core/FileKind.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
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

std::string whyNotALibraryFile(const std::string& name) {
    if (name.find('/') != std::string::npos) {
        return whyNotAFile(name);
    }
    const char* path = std::getenv("LD_LIBRARY_PATH");
    if (name.empty() || path == nullptr || *path == '\0') {  // as the loader reads an empty LD_LIBRARY_PATH
        return {};
    }
    const std::string folders = path;
    for (std::size_t from = 0; from <= folders.size();) {
        std::size_t end = folders.find_first_of(":;", from);
        end = end == std::string::npos ? folders.size() : end;
        const std::string folder = folders.substr(from, end - from);
        const std::string candidate = (folder.empty() ? std::string(".") : folder) + "/" + name;
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0) {
            const std::string why = whyNotAFile(candidate);
            return why.empty() ? why : candidate + ": " + why;
        }
        from = end + 1;
    }
    return {};
}

}  // namespace blobbench
