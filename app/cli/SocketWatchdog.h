#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/wire/ProcessSockets.h"

namespace blobbench::cli {

// A bound for a command that talks to a server without the Runner's stall watch (check fb9060):
// when the guarded work has not ended `limit` after the watchdog was made, the sockets opened since
// then are shut down, so that a call blocked on a server that no longer answers returns with an
// error, and fired() says why it did.
class SocketWatchdog {
public:
    explicit SocketWatchdog(std::chrono::seconds limit);
    ~SocketWatchdog();  // the work ended: the watchdog goes, having fired or not
    SocketWatchdog(const SocketWatchdog&) = delete;
    SocketWatchdog& operator=(const SocketWatchdog&) = delete;

    bool fired() const;
    std::chrono::seconds limit() const { return m_limit; }

private:
    std::chrono::seconds m_limit;
    std::vector<ProcessSocket> m_before;
    mutable std::mutex m_mutex;
    std::condition_variable m_done;
    bool m_ended = false;  // guarded by m_mutex
    bool m_fired = false;  // guarded by m_mutex
    std::thread m_thread;
};

}  // namespace blobbench::cli
