#include "app/cli/SocketWatchdog.h"

namespace blobbench::cli {

SocketWatchdog::SocketWatchdog(std::chrono::seconds limit) : m_limit(limit), m_before(processSockets()) {
    m_thread = std::thread([this] {
        std::unique_lock lock(m_mutex);
        if (m_done.wait_for(lock, m_limit, [this] { return m_ended; }))
            return;
        m_fired = true;
        lock.unlock();
        shutDownSockets(socketsOpenedSince(m_before, processSockets()));
    });
}

SocketWatchdog::~SocketWatchdog() {
    {
        std::lock_guard lock(m_mutex);
        m_ended = true;
    }
    m_done.notify_all();
    m_thread.join();
}

bool SocketWatchdog::fired() const {
    std::lock_guard lock(m_mutex);
    return m_fired;
}

}  // namespace blobbench::cli
