#pragma once

#include <atomic>
#include <memory>

namespace blobbench {

// Shared stop flag: the owner of a run cancels, the fetch loops poll it between rows and chunks.
// Copies share the same state, so a token can be handed to another thread.
class CancelToken {
public:
    CancelToken() : m_state(std::make_shared<std::atomic<bool>>(false)) {}
    void cancel() const { m_state->store(true, std::memory_order_relaxed); }
    bool cancelled() const { return m_state->load(std::memory_order_relaxed); }
    void reset() const { m_state->store(false, std::memory_order_relaxed); }

private:
    std::shared_ptr<std::atomic<bool>> m_state;
};

}  // namespace blobbench
