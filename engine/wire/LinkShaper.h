#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

namespace blobbench {

// When a piece of one direction's byte stream may be handed to the receiver.
struct LinkFrame {
    std::uint64_t end = 0;  // stream position just past the frame's last byte
    std::chrono::steady_clock::time_point departAt;
    std::chrono::steady_clock::time_point arriveAt;
};

// The serialising line of one direction: when it has sent everything scheduled so far.
struct LinkLine {
    std::chrono::steady_clock::time_point freeAt{};
    std::uint64_t remainder = 0;  // bit-nanoseconds not yet worth a whole nanosecond
};

// One link that several connections share (issue #25: all sessions behind one bandwidth, as behind
// one DSL line or one VPN tunnel): each direction is one line, and the frames of every connection
// leave it one after the other in the order they were enqueued (a FIFO bottleneck; each connection
// keeps its own latency). Thread-safe: each connection's relay thread enqueues on it.
class SharedLink {
public:
    struct Direction {
        std::mutex mutex;
        LinkLine line;  // guarded by mutex
    };
    Direction up, down;
};

// One direction of an emulated link: a serialising line with a queue in front of it. A frame
// leaves when the previous one has left plus size / bandwidth, and arrives `latency` later.
// Pure arithmetic on the times it is given, so tests check the schedule in virtual time.
class LinkShaper {
public:
    using Clock = std::chrono::steady_clock;

    LinkShaper() = default;
    LinkShaper(std::chrono::nanoseconds latency, std::uint64_t bandwidth) { configure(latency, bandwidth); }

    // Applies to bytes enqueued from now on; frames already scheduled keep their times.
    void configure(std::chrono::nanoseconds latency, std::uint64_t bandwidth);
    // Sends on `line` (one direction of a SharedLink, kept alive by `owner`) instead of a line of its
    // own; null: its own line again.
    void share(std::shared_ptr<SharedLink> owner, SharedLink::Direction* line);
    bool shared() const { return m_shared != nullptr; }

    bool shaping() const { return m_latency.count() != 0 || m_bandwidth != 0; }
    std::chrono::nanoseconds latency() const { return m_latency; }
    std::uint64_t bandwidth() const { return m_bandwidth; }

    // Largest frame the line carries: an Ethernet MSS, or ~100 us of line time on fast links so the
    // relay does not wake a million times a second at 10 Gbit/s.
    std::size_t frameSize() const;

    // Schedules `size` bytes that entered the queue at `now`, following stream position `start`;
    // appends their frames to `frames` (in stream order, arrival times never decreasing).
    void enqueue(std::uint64_t start, std::uint64_t size, Clock::time_point now, std::deque<LinkFrame>& frames);

    // Bytes that stay queued before the line so it never idles while the sender has data, plus
    // those in flight: the relay stops reading the sender beyond this (TCP backpressure).
    std::size_t queueLimit() const;

private:
    std::chrono::nanoseconds m_latency{0};
    std::uint64_t m_bandwidth = 0;
    LinkLine m_line;  // its own line, when it shares none
    std::shared_ptr<SharedLink> m_sharedOwner;
    SharedLink::Direction* m_shared = nullptr;
    Clock::time_point m_lastArrival{};  // arrivals never overtake, even after a profile change
};

}  // namespace blobbench
