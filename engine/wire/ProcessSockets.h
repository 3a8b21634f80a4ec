#pragma once

#include <cstddef>
#include <vector>

namespace blobbench {

// A socket of this process: its descriptor and the inode the descriptor referred to when it was
// seen, so a descriptor number reused by another file later is never mistaken for it.
struct ProcessSocket {
    int fd = -1;
    unsigned long inode = 0;
    bool operator==(const ProcessSocket&) const = default;
};

// Every socket this process holds now, read from /proc/self/fd (empty where there is no /proc).
std::vector<ProcessSocket> processSockets();

// The sockets of `now` that are not in `before`: what a connect or a call made in between opened.
std::vector<ProcessSocket> socketsOpenedSince(const std::vector<ProcessSocket>& before,
                                              const std::vector<ProcessSocket>& now);

// Shuts down (SHUT_RDWR, the descriptor stays open for its owner to close) each socket whose
// descriptor still refers to the same inode; a blocked recv or send on it returns at once. For a
// cancel's deadline when no relay or in-process counter stands in front of the connection (the tap
// turned off, a Unix-domain socket). Returns how many it shut down.
std::size_t shutDownSockets(const std::vector<ProcessSocket>& sockets);

}  // namespace blobbench
