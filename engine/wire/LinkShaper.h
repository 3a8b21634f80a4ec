#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>

namespace blobbench {

// When a piece of one direction's byte stream may be handed to the receiver.
struct LinkFrame {
    std::uint64_t end = 0;  // stream position just past the frame's last byte
    std::chrono::steady_clock::time_point departAt;
    std::chrono::steady_clock::time_point arriveAt;
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
    Clock::time_point m_lineFreeAt{};   // when the line has sent everything scheduled so far
    std::uint64_t m_remainder = 0;      // bit-nanoseconds not yet worth a whole nanosecond
    Clock::time_point m_lastArrival{};  // arrivals never overtake, even after a profile change
};

}  // namespace blobbench
