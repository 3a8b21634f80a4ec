#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace blobbench {

// Calls passed from one thread to another. Queued Qt signals would carry their arguments through
// Qt's event queue, whose locking ThreadSanitizer cannot see unless Qt itself is built with it, so
// every hand-over would show as a race (and a real one would hide among them). Here every call
// goes through a std::mutex, which TSan does see; the receiver is woken by its own means (a
// condition variable, or an eventfd watched by the UI thread's event loop) that carry no data.
template <class Call>
class HandOver {
public:
    // Queues a call; returns whether the queue was empty before, i.e. whether a receiver that
    // drains the queue per wake-up (tryTakeOne until empty) needs a new one.
    bool post(Call call) {
        bool wasEmpty = false;
        {
            std::lock_guard lock(m_mutex);
            wasEmpty = m_calls.empty();
            m_calls.push_back(std::move(call));
        }
        m_posted.notify_one();
        return wasEmpty;
    }

    std::optional<Call> tryTakeOne() {
        std::lock_guard lock(m_mutex);
        return takeFront();
    }

    // Blocks until a call is queued or the hand-over is closed; nothing once closed (calls still
    // queued then are dropped with the HandOver).
    std::optional<Call> waitOne() {
        std::unique_lock lock(m_mutex);
        m_posted.wait(lock, [this] { return m_closed || !m_calls.empty(); });
        if (m_closed) {
            return std::nullopt;
        }
        return takeFront();
    }

    void close() {
        {
            std::lock_guard lock(m_mutex);
            m_closed = true;
        }
        m_posted.notify_all();
    }

private:
    std::optional<Call> takeFront() {  // m_mutex held
        if (m_calls.empty()) {
            return std::nullopt;
        }
        std::optional<Call> call(std::move(m_calls.front()));
        m_calls.pop_front();
        return call;
    }

    std::mutex m_mutex;
    std::condition_variable m_posted;
    std::deque<Call> m_calls;
    bool m_closed = false;
};

}  // namespace blobbench
