#pragma once

#include <cstddef>
#include <cstring>
#include <memory>

namespace blobbench {

// The bytes one direction of a relayed connection has read and not yet written. Unlike a
// std::vector it never zero-fills, and it rewinds to the start whenever it drains, so the unshaped
// fast path (read, write all of it) never copies.
class ByteQueue {
public:
    std::size_t size() const { return m_tail - m_head; }
    bool empty() const { return m_tail == m_head; }
    const char* data() const { return m_data.get() + m_head; }

    // Room for `count` more bytes at the end; commit() what was really filled in.
    char* reserve(std::size_t count) {
        if (m_capacity - m_tail < count) {
            makeRoom(count);
        }
        return m_data.get() + m_tail;
    }
    void commit(std::size_t count) { m_tail += count; }

    void consume(std::size_t count) {
        m_head += count;
        if (m_head == m_tail) {
            m_head = m_tail = 0;
        }
    }

private:
    void makeRoom(std::size_t count) {
        const std::size_t used = size();
        // Sliding back is cheap only when at least half the buffer is already consumed.
        if (used + count <= m_capacity && m_head >= m_capacity / 2) {
            std::memmove(m_data.get(), m_data.get() + m_head, used);
        } else {
            // Doubling bounds the buffer at a few times the queue limit the relay enforces.
            std::size_t capacity = m_capacity == 0 ? 64 * 1024 : m_capacity * 2;
            while (capacity < used + count) {
                capacity *= 2;
            }
            auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
            if (used != 0) {
                std::memcpy(bigger.get(), m_data.get() + m_head, used);
            }
            m_data = std::move(bigger);
            m_capacity = capacity;
        }
        m_head = 0;
        m_tail = used;
    }

    std::unique_ptr<char[]> m_data;
    std::size_t m_capacity = 0;
    std::size_t m_head = 0;
    std::size_t m_tail = 0;
};

}  // namespace blobbench
