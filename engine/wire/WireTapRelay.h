#pragma once

// WireTap's relay, shared by WireTap.cpp (setup, the event loop, connections, control and faults)
// and WireTapPump.cpp (moving one connection's bytes): not for other callers.

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/core/Error.h"
#include "engine/wire/ByteQueue.h"
#include "engine/wire/CompressionEstimate.h"
#include "engine/wire/ExchangeRecorder.h"
#include "engine/wire/LinkShaper.h"
#include "engine/wire/WireTap.h"

namespace blobbench {

// The relay's types and helpers, in a namespace of their own (Flow, Connection are common names);
// the two relay files see them unqualified.
namespace wiretap {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadChunk = 256 * 1024;
// Reads and writes one connection may do before the others get a turn.
constexpr int kPumpBudget = 32;
// A server that never answers the SYN would otherwise hold the client for the kernel's ~2 minutes.
constexpr auto kConnectTimeout = std::chrono::seconds(10);

constexpr std::uint64_t kListenTag = ~std::uint64_t{0};
constexpr std::uint64_t kWakeTag = kListenTag - 1;
constexpr std::uint64_t kTimerTag = kListenTag - 2;

constexpr int kUp = 0;
constexpr int kDown = 1;
constexpr int kClientSide = 0;
constexpr int kServerSide = 1;

inline std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

inline std::string describeErrno(int error) {
    return std::system_category().message(error);
}

// Owns one file descriptor.
class FileDescriptor {
public:
    FileDescriptor() = default;
    explicit FileDescriptor(int fd) : m_fd(fd) {}
    ~FileDescriptor() { reset(); }
    FileDescriptor(FileDescriptor&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    FileDescriptor& operator=(FileDescriptor&& other) noexcept {
        if (this != &other) {
            reset();
            m_fd = std::exchange(other.m_fd, -1);
        }
        return *this;
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;

    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    int release() { return std::exchange(m_fd, -1); }
    void reset(int fd = -1) {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_fd = fd;
    }

private:
    int m_fd = -1;
};

// One direction of one relayed connection.
struct Flow {
    ByteQueue pending;             // read, not yet written
    std::deque<LinkFrame> frames;  // shaped: when pending bytes may be written
    LinkShaper shaper;
    std::uint64_t readTotal = 0;  // stream positions
    std::uint64_t writtenTotal = 0;
    std::uint64_t freeUpTo = 0;   // bytes up to here have arrived and may be written
    bool sourceReadable = false;  // edge-triggered readiness, cleared on EAGAIN
    bool sourceClosing = false;   // the source's FIN or RST has been announced (EPOLLRDHUP)
    bool sinkWritable = false;
    bool sourceEof = false;
    bool shutdownSent = false;

    std::optional<std::uint64_t> cutAt;  // fault: stream position after which both legs are cut
    std::optional<std::uint64_t> stallAt;
    std::chrono::nanoseconds stallFor{0};
    bool stalled = false;
    Clock::time_point stallUntil{};

    // Unshaped, fault-free bytes go socket -> pipe -> socket with splice(): the kernel moves pages,
    // nothing is copied through user space. Bytes in the pipe are read but not yet written.
    int pipeRead = -1;
    int pipeWrite = -1;
    std::size_t pipeCapacity = 0;
    std::size_t inPipe = 0;
    bool pipeFailed = false;  // no pipe to be had (EMFILE): the copying path serves
    bool copyOnly = false;    // the bytes must pass through user space (compression estimate)

    bool spliceable() const {
        return !pipeFailed && !copyOnly && !shaper.shaping() && frames.empty() && pending.empty() && !cutAt && !stallAt;
    }
    bool ensurePipe() {
        if (pipeRead >= 0) {
            return true;
        }
        int ends[2];
        if (::pipe2(ends, O_NONBLOCK | O_CLOEXEC) != 0) {
            pipeFailed = true;
            return false;
        }
        pipeRead = ends[0];
        pipeWrite = ends[1];
        // 1 MiB is the unprivileged default maximum; a smaller pipe still works, with more calls.
        ::fcntl(pipeWrite, F_SETPIPE_SZ, 1 << 20);
        const int capacity = ::fcntl(pipeWrite, F_GETPIPE_SZ);
        pipeCapacity = capacity > 0 ? static_cast<std::size_t>(capacity) : 65536;
        return true;
    }
    void closePipe() {
        for (int* fd : {&pipeRead, &pipeWrite}) {
            if (*fd >= 0) {
                ::close(*fd);
                *fd = -1;
            }
        }
    }
};

struct Connection {
    std::uint64_t id = 0;
    int client = -1;
    int server = -1;
    bool connected = false;  // upstream connect completed
    Clock::time_point connectDeadline{};
    std::array<Flow, 2> flows;
    int lastDirection = -1;                // of the last read, for round trips
    ExchangeRecorder::Log* log = nullptr;  // its counts and runs, in the relay's recorder
    bool cutWithReset = false;
    bool dead = false;
    std::uint64_t touchedEpoch = 0;
    Clock::time_point lastServerActivity{};  // last read from or write to the server, for the stall timeout
    std::optional<Clock::time_point> wake;   // the earliest entry the timer heap holds for it
};

}  // namespace wiretap

using namespace wiretap;

class WireTap::Relay {
public:
    Relay(const std::string& host, std::uint16_t port, const LinkProfile& profile, const WireTapOptions& options);
    ~Relay();

    std::uint16_t port() const { return m_port; }
    std::string upstream() const { return m_upstreamLabel; }

    bool estimatingCompression() const { return m_compressor != nullptr; }

    WireCounters snapshot(ExchangeRecorder::Mark* trace) const {
        if (m_compressor) {
            // The relay counts a chunk before it queues it, so the worker will reach these totals.
            // The trace mark comes after: a chunk read in between is in it and not in the counts.
            WireCounters counters = m_compressor->waitFor(m_bytes[kUp].load(), m_bytes[kDown].load());
            if (trace != nullptr) {
                m_recorder.snapshot(nowNs(), trace);
            }
            return delivered(counters);
        }
        return delivered(m_recorder.snapshot(nowNs(), trace));
    }
    // What the client received is what the relay wrote to it: bytes read from the server but still on the
    // emulated line (or queued before it) are not the client's yet, and a cancel that cuts the connection
    // drops them. A completed call has none left; a cancelled fetch at 1 Mbit/s counted 290 kB the client
    // never got (hostile round 5j S7).
    // Never below an earlier snapshot's: a phase is the difference of two (the counters of the relay
    // thread move one after the other, so a snapshot between them may see less for an instant).
    WireCounters delivered(WireCounters counters) const {
        counters.recvBytes -= std::min(counters.recvBytes, m_undeliveredDown.load() + m_droppedDown.load());
        std::uint64_t floor = m_recvFloor.load();
        while (counters.recvBytes > floor && !m_recvFloor.compare_exchange_weak(floor, counters.recvBytes)) {
        }
        counters.recvBytes = std::max(counters.recvBytes, floor);
        return counters;
    }
    ExchangeTrace exchanges(const ExchangeRecorder::Mark& from, const ExchangeRecorder::Mark& to) const {
        return m_recorder.between(from, to);
    }
    void forgetTraceBefore(const ExchangeRecorder::Mark& mark) { m_recorder.forgetBefore(mark); }

    void setLinkProfile(const LinkProfile& profile) {
        profile.validate();
        {
            std::lock_guard lock(m_controlMutex);
            m_profile = profile;
        }
        m_profileGeneration.fetch_add(1);
        wake();
    }
    LinkProfile linkProfile() const {
        std::lock_guard lock(m_controlMutex);
        return m_profile;
    }
    void setFaults(const FaultPlan& plan) {
        {
            std::lock_guard lock(m_controlMutex);
            m_faults = plan;
        }
        m_faultGeneration.fetch_add(1);
        wake();
    }
    void cutAll(bool withReset) {
        {
            std::lock_guard lock(m_controlMutex);
            m_cutWithReset = withReset;
        }
        m_cutRequests.fetch_add(1);
        wake();
    }
    void setStallTimeout(std::chrono::nanoseconds timeout) {
        {
            std::lock_guard lock(m_controlMutex);
            m_stallTimeout = std::max(std::chrono::nanoseconds{0}, timeout);
        }
        m_watchGeneration.fetch_add(1);
        wake();
    }
    void watchStalls(bool on) {
        {
            std::lock_guard lock(m_controlMutex);
            m_watching = on;
        }
        m_watchGeneration.fetch_add(1);
        wake();
    }
    void cutAllAfter(std::chrono::nanoseconds grace) {
        {
            std::lock_guard lock(m_controlMutex);
            m_cutDeadline = Clock::now() + grace;
            m_cutGrace = grace;
        }
        m_watchGeneration.fetch_add(1);
        wake();
    }
    WireTapStats stats() const {
        WireTapStats s;
        s.stallTimeouts = m_stallTimeouts.load();
        s.accepted = m_accepted.load();
        s.open = m_open.load();
        s.upstreamFailures = m_upstreamFailures.load();
        s.faultsInjected = m_faultsInjected.load();
        std::lock_guard lock(m_errorMutex);
        s.lastError = m_lastError;
        return s;
    }

private:
    void wake() {
        std::uint64_t one = 1;
        [[maybe_unused]] auto written = ::write(m_wakeFd.get(), &one, sizeof one);
    }
    void recordError(const std::string& message) {
        std::lock_guard lock(m_errorMutex);
        m_lastError = oneLine(message);
    }

    void run();
    void applyControl();
    void acceptAll();
    void onSocketEvent(Connection& c, int side, std::uint32_t events);
    void pump(Connection& c);
    bool pumpFlow(Connection& c, int direction, Clock::time_point now);
    void schedule(Flow& flow, std::uint64_t start, std::uint64_t size, Clock::time_point now);
    void account(Connection& c, int direction, std::uint64_t size, const char* data);
    void applyFaults(Connection& c, const FaultPlan& plan);
    void scheduleWake(Connection& c);
    void armTimer();
    void touch(Connection& c);
    void failUpstream(Connection& c, int error);
    void abort(Connection& c, const std::string& why);
    void cut(Connection& c);
    bool stallTimedOut(Connection& c, Clock::time_point now);
    void close(Connection& c, bool withReset);
    void reap();

    // Set once in the constructor, read by the relay thread.
    sockaddr_storage m_upstreamAddress{};
    socklen_t m_upstreamLength = 0;
    std::string m_upstreamLabel;
    std::uint16_t m_port = 0;
    FileDescriptor m_listenFd, m_epollFd, m_wakeFd, m_timerFd, m_spareFd;

    // Written by the relay thread, read by anyone.
    ExchangeRecorder m_recorder;                          // the counts, and the runs for exchange traces
    std::array<std::atomic<std::uint64_t>, 2> m_bytes{};  // for the compression estimate's wait
    std::atomic<std::uint64_t> m_accepted{0}, m_open{0}, m_upstreamFailures{0}, m_faultsInjected{0}, m_stallTimeouts{0};
    mutable std::mutex m_errorMutex;
    std::string m_lastError;

    // Written by anyone, picked up by the relay thread when a generation changes.
    mutable std::mutex m_controlMutex;
    LinkProfile m_profile;
    FaultPlan m_faults;
    bool m_cutWithReset = false;
    std::chrono::nanoseconds m_stallTimeout{0};
    bool m_watching = false;
    std::optional<Clock::time_point> m_cutDeadline;  // cutAllAfter()
    std::chrono::nanoseconds m_cutGrace{0};
    std::atomic<std::uint64_t> m_profileGeneration{0}, m_faultGeneration{0}, m_cutRequests{0}, m_watchGeneration{0};
    std::atomic<bool> m_stop{false};

    // The relay thread's own state.
    std::uint64_t m_seenProfile = 0, m_seenFaults = 0, m_seenCuts = 0, m_seenWatch = 0;
    std::chrono::nanoseconds m_activeStallTimeout{0};
    bool m_activeWatching = false;
    std::optional<Clock::time_point> m_activeCutDeadline;
    std::chrono::nanoseconds m_activeCutGrace{0};
    LinkProfile m_activeProfile;
    FaultPlan m_activeFaults;
    std::unordered_map<std::uint64_t, std::unique_ptr<Connection>> m_connections;
    std::uint64_t m_nextId = 1;
    std::uint64_t m_epoch = 0;
    std::vector<Connection*> m_touched;
    std::vector<std::uint64_t> m_ready;  // connections that spent their budget with work left
    using TimerEntry = std::pair<Clock::time_point, std::uint64_t>;
    std::priority_queue<TimerEntry, std::vector<TimerEntry>, std::greater<>> m_timers;
    std::optional<Clock::time_point> m_armedAt;

    std::shared_ptr<SharedLink> m_sharedLink;           // WireTapOptions::sharedLink
    std::atomic<std::uint64_t> m_undeliveredDown{0};    // server bytes read, not yet written to the client
    std::atomic<std::uint64_t> m_droppedDown{0};        // server bytes read that a closed connection never delivered
    mutable std::atomic<std::uint64_t> m_recvFloor{0};  // the largest recvBytes a snapshot returned
    std::unique_ptr<CompressionWorker> m_compressor;    // when estimating; outlives the relay thread
    std::thread m_thread;                               // last: starts after everything above exists
};

}  // namespace blobbench
