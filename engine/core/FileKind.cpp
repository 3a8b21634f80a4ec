#include "engine/core/FileKind.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

namespace blobbench {
namespace {

template <typename T>
T littleEndian(const unsigned char* bytes) {
    T value = 0;
    for (std::size_t i = sizeof(T); i-- > 0;) {
        value = static_cast<T>((value << 8) | bytes[i]);
    }
    return value;
}

// A 64-bit little-endian ELF file whose program headers or loadable segments lie past its end (a
// truncated copy): the loader maps the missing pages and the process dies of SIGBUS inside dlopen()
// (hostile round 5m C1). Anything that is not such a file is left to the loader's own words.
std::string whyTruncatedElf(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return {};
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    std::ifstream in(path, std::ios::binary);
    unsigned char header[64] = {};
    if (!in.read(reinterpret_cast<char*>(header), sizeof header) ||
        std::memcmp(header,
                    "\x7f"
                    "ELF",
                    4) != 0 ||
        header[4] != 2 || header[5] != 1) {
        return {};  // not ELF64 little-endian: the loader refuses it in its own words
    }
    const auto phoff = littleEndian<std::uint64_t>(header + 0x20);
    const auto phentsize = littleEndian<std::uint16_t>(header + 0x36);
    const auto phnum = littleEndian<std::uint16_t>(header + 0x38);
    std::string truncated =
        "truncated: not a whole shared library (its ELF headers reach past its " + std::to_string(size) + " bytes)";
    if (phentsize < 56 || phoff > size || std::uint64_t{phnum} * phentsize > size - phoff) {
        return truncated;
    }
    std::vector<unsigned char> headers(std::size_t{phnum} * phentsize);
    in.seekg(static_cast<std::streamoff>(phoff));
    if (!in.read(reinterpret_cast<char*>(headers.data()), static_cast<std::streamsize>(headers.size()))) {
        return truncated;
    }
    for (std::size_t i = 0; i < phnum; ++i) {
        const unsigned char* ph = headers.data() + i * phentsize;
        if (littleEndian<std::uint32_t>(ph) != 1) {  // PT_LOAD
            continue;
        }
        const auto offset = littleEndian<std::uint64_t>(ph + 8);
        const auto filesz = littleEndian<std::uint64_t>(ph + 32);
        if (offset > size || filesz > size - offset) {
            return "truncated: not a whole shared library (a loadable segment ends at byte " +
                   std::to_string(offset + filesz) + " of its " + std::to_string(size) + ")";
        }
    }
    return {};
}

}  // namespace

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
        const std::string why = whyNotAFile(name);
        return why.empty() ? whyTruncatedElf(name) : why;
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
            std::string why = whyNotAFile(candidate);
            if (why.empty()) {
                why = whyTruncatedElf(candidate);
            }
            return why.empty() ? why : candidate + ": " + why;
        }
        from = end + 1;
    }
    return {};
}

}  // namespace blobbench
