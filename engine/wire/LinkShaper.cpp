#include "engine/wire/LinkShaper.h"

#include <algorithm>

namespace blobbench {

namespace {

constexpr std::size_t kEthernetMss = 1448;  // 1500 MTU minus IP, TCP and timestamp option headers
constexpr std::size_t kMaxFrame = 256 * 1024;
constexpr std::uint64_t kNanosPerSecond = 1'000'000'000;

}  // namespace

void LinkShaper::configure(std::chrono::nanoseconds latency, std::uint64_t bandwidth) {
    m_latency = latency;
    m_bandwidth = bandwidth;
    m_line.remainder = 0;
}

void LinkShaper::share(std::shared_ptr<SharedLink> owner, SharedLink::Direction* line) {
    m_sharedOwner = std::move(owner);
    m_shared = m_sharedOwner ? line : nullptr;
}

std::size_t LinkShaper::frameSize() const {
    if (m_bandwidth == 0) {
        return kMaxFrame;
    }
    // 100 us of line time = bandwidth / 8 / 10'000 bytes.
    return std::clamp<std::size_t>(static_cast<std::size_t>(m_bandwidth / 80'000), kEthernetMss, kMaxFrame);
}

void LinkShaper::enqueue(std::uint64_t start, std::uint64_t size, Clock::time_point now,
                         std::deque<LinkFrame>& frames) {
    const std::uint64_t end = start + size;
    if (m_bandwidth == 0) {
        // An unlimited line: the whole read leaves at once.
        const Clock::time_point arrival = std::max(now + m_latency, m_lastArrival);
        frames.push_back(LinkFrame{end, now, arrival});
        m_lastArrival = arrival;
        return;
    }
    std::unique_lock<std::mutex> lock;
    LinkLine* shared = nullptr;
    if (m_shared != nullptr) {
        lock = std::unique_lock(m_shared->mutex);
        shared = &m_shared->line;
    }
    LinkLine& line = shared != nullptr ? *shared : m_line;
    if (line.freeAt <= now) {
        // The line was idle: start afresh so the schedule depends only on what was enqueued when.
        line.freeAt = now;
        line.remainder = 0;
    }
    const std::size_t frame = frameSize();
    for (std::uint64_t position = start; position < end;) {
        const std::uint64_t bytes = std::min<std::uint64_t>(frame, end - position);
        // Exact integer time: bytes * 8 bits * 1e9 ns / (bit/s), carrying the remainder forward so
        // a long transfer accumulates no rounding error. bytes <= 256 KiB keeps this below 2^64.
        const std::uint64_t bitNanos = bytes * 8 * kNanosPerSecond + line.remainder;
        line.freeAt += std::chrono::nanoseconds(static_cast<std::int64_t>(bitNanos / m_bandwidth));
        line.remainder = bitNanos % m_bandwidth;
        position += bytes;
        const Clock::time_point arrival = std::max(line.freeAt + m_latency, m_lastArrival);
        frames.push_back(LinkFrame{position, line.freeAt, arrival});
        m_lastArrival = arrival;
    }
}

std::size_t LinkShaper::queueLimit() const {
    constexpr std::size_t kUnshaped = 1024 * 1024;
    constexpr std::size_t kLatencyOnly = 64 * 1024 * 1024;
    constexpr std::size_t kCeiling = 256 * 1024 * 1024;
    if (!shaping()) {
        return kUnshaped;
    }
    if (m_bandwidth == 0) {
        return kLatencyOnly;
    }
    // In flight for one latency plus a quarter second of line time queued before the line.
    const double seconds = std::chrono::duration<double>(m_latency).count() + 0.25;
    const double bytes = static_cast<double>(m_bandwidth) / 8 * seconds + 256 * 1024;
    return static_cast<std::size_t>(std::min(bytes, static_cast<double>(kCeiling)));
}

}  // namespace blobbench
