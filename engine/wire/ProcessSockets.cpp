#include "engine/wire/ProcessSockets.h"

#include <dirent.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <string_view>

namespace blobbench {
namespace {

// The inode of a socket descriptor ("socket:[12345]" in /proc/self/fd), or 0 for anything else.
unsigned long socketInode(int fd) {
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    char target[64];
    const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
    if (n <= 0) {
        return 0;
    }
    const std::string_view text(target, static_cast<std::size_t>(n));
    constexpr std::string_view prefix = "socket:[";
    if (!text.starts_with(prefix) || !text.ends_with(']')) {
        return 0;
    }
    unsigned long inode = 0;
    const char* first = text.data() + prefix.size();
    const char* last = text.data() + text.size() - 1;
    const auto [end, ec] = std::from_chars(first, last, inode);
    return ec == std::errc() && end == last ? inode : 0;
}

}  // namespace

std::vector<ProcessSocket> processSockets() {
    std::vector<ProcessSocket> sockets;
    DIR* dir = ::opendir("/proc/self/fd");
    if (dir == nullptr) {
        return sockets;
    }
    const int own = ::dirfd(dir);
    while (const dirent* entry = ::readdir(dir)) {
        int fd = -1;
        const char* name = entry->d_name;
        const auto [end, ec] = std::from_chars(name, name + std::strlen(name), fd);
        if (ec != std::errc() || *end != '\0' || fd == own) {
            continue;
        }
        if (const unsigned long inode = socketInode(fd); inode != 0) {
            sockets.push_back({fd, inode});
        }
    }
    ::closedir(dir);
    return sockets;
}

std::vector<ProcessSocket> socketsOpenedSince(const std::vector<ProcessSocket>& before,
                                              const std::vector<ProcessSocket>& now) {
    std::vector<ProcessSocket> opened;
    for (const ProcessSocket& socket : now) {
        if (std::find(before.begin(), before.end(), socket) == before.end()) {
            opened.push_back(socket);
        }
    }
    return opened;
}

std::size_t shutDownSockets(const std::vector<ProcessSocket>& sockets) {
    std::size_t cut = 0;
    for (const ProcessSocket& socket : sockets) {
        if (socketInode(socket.fd) == socket.inode && ::shutdown(socket.fd, SHUT_RDWR) == 0) {
            ++cut;
        }
    }
    return cut;
}

}  // namespace blobbench
