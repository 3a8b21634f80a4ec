#include "engine/wire/WireTap.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <queue>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/core/ClientPause.h"
#include "engine/core/Error.h"
#include "engine/wire/ByteQueue.h"
#include "engine/wire/CompressionEstimate.h"
#include "engine/wire/ExchangeRecorder.h"
#include "engine/wire/LinkShaper.h"

namespace blobbench {

namespace {

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

std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

std::string describeErrno(int error) {
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

void setNoDelay(int fd) {
    int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

// Closing with a zero linger time sends RST: what a peer sees when the other end crashed.
void closeSocket(int fd, bool withReset) {
    if (fd < 0) {
        return;
    }
    if (withReset) {
        linger abort{1, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
    }
    ::close(fd);
}

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

}  // namespace

class WireTap::Relay {
public:
    Relay(std::string host, std::uint16_t port, const LinkProfile& profile, const WireTapOptions& options);
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
            return counters;
        }
        return m_recorder.snapshot(nowNs(), trace);
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

    std::unique_ptr<CompressionWorker> m_compressor;  // when estimating; outlives the relay thread
    std::thread m_thread;                             // last: starts after everything above exists
};

WireTap::Relay::Relay(std::string host, std::uint16_t port, const LinkProfile& profile, const WireTapOptions& options) {
    profile.validate();
    m_profile = m_activeProfile = profile;
    m_upstreamLabel = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
    if (port == 0) {
        throw Error(ErrorKind::Connect, "wire tap: upstream " + m_upstreamLabel + ": port 0 is not a server port");
    }

    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0 || found == nullptr) {
        throw Error(ErrorKind::Connect, "wire tap: cannot resolve upstream host '" + host + "': " + gai_strerror(rc));
    }
    std::memcpy(&m_upstreamAddress, found->ai_addr, found->ai_addrlen);
    m_upstreamLength = found->ai_addrlen;
    ::freeaddrinfo(found);

    auto fail = [](const std::string& what) {
        return Error(ErrorKind::Io, "wire tap: " + what + ": " + describeErrno(errno));
    };
    m_listenFd.reset(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!m_listenFd.valid()) {
        throw fail("cannot create a socket");
    }
    sockaddr_in local{};
    local.sin_family = AF_INET;
    local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    local.sin_port = 0;
    if (::bind(m_listenFd.get(), reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
        throw fail("cannot bind 127.0.0.1");
    }
    if (::listen(m_listenFd.get(), SOMAXCONN) != 0) {
        throw fail("cannot listen on 127.0.0.1");
    }
    socklen_t length = sizeof local;
    if (::getsockname(m_listenFd.get(), reinterpret_cast<sockaddr*>(&local), &length) != 0) {
        throw fail("getsockname");
    }
    m_port = ntohs(local.sin_port);

    m_epollFd.reset(::epoll_create1(EPOLL_CLOEXEC));
    m_wakeFd.reset(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    m_timerFd.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
    // Held in reserve so an accept that fails with EMFILE can still take the client off the queue.
    m_spareFd.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!m_epollFd.valid() || !m_wakeFd.valid() || !m_timerFd.valid()) {
        throw fail("cannot create the relay's event descriptors");
    }
    for (auto [fd, tag] : {std::pair{m_listenFd.get(), kListenTag}, std::pair{m_wakeFd.get(), kWakeTag},
                           std::pair{m_timerFd.get(), kTimerTag}}) {
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.u64 = tag;
        if (::epoll_ctl(m_epollFd.get(), EPOLL_CTL_ADD, fd, &event) != 0) {
            throw fail("epoll_ctl");
        }
    }
    try {
        if (options.estimateCompression) {
            m_compressor = std::make_unique<CompressionWorker>();
        }
        m_thread = std::thread([this] { run(); });
    } catch (const std::system_error& e) {
        throw Error(ErrorKind::Io, std::string("wire tap: cannot start the relay thread: ") + e.what());
    }
}

WireTap::Relay::~Relay() {
    m_stop.store(true);
    wake();
    if (m_thread.joinable()) {
        m_thread.join();
    }
}

void WireTap::Relay::run() {
    // The default 50 us timer slack would be added to every emulated packet's delivery.
    ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    // Named so profilers, top -H and the CPU benchmark can tell the relay from its users.
    ::pthread_setname_np(::pthread_self(), "wiretap");
    // splice() into a socket the peer has closed raises SIGPIPE (it has no MSG_NOSIGNAL), which would
    // end the whole process when a server drops a connection the client still writes to. Blocked on
    // this thread, the call fails with EPIPE and the relay closes the connection like any other error.
    sigset_t pipe;
    ::sigemptyset(&pipe);
    ::sigaddset(&pipe, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    std::array<epoll_event, 128> events{};
    while (!m_stop.load()) {
        reap();
        armTimer();
        const int timeout = m_ready.empty() ? -1 : 0;
        const int count = ::epoll_wait(m_epollFd.get(), events.data(), static_cast<int>(events.size()), timeout);
        if (count < 0) {
            if (errno == EINTR) {
                continue;
            }
            recordError("wire tap: epoll_wait: " + describeErrno(errno));
            break;
        }
        // Before the events: a client that connects after setFaults() returned must get the new plan,
        // and its connection may be reported in the same batch as the wake-up.
        applyControl();
        ++m_epoch;
        m_touched.clear();
        for (int i = 0; i < count; ++i) {
            const std::uint64_t tag = events[i].data.u64;
            if (tag == kListenTag) {
                acceptAll();
            } else if (tag == kWakeTag || tag == kTimerTag) {
                std::uint64_t drained = 0;
                [[maybe_unused]] auto got =
                    ::read(tag == kWakeTag ? m_wakeFd.get() : m_timerFd.get(), &drained, sizeof drained);
                if (tag == kTimerTag) {
                    m_armedAt.reset();
                }
            } else if (auto it = m_connections.find(tag >> 1); it != m_connections.end() && !it->second->dead) {
                onSocketEvent(*it->second, static_cast<int>(tag & 1), events[i].events);
                touch(*it->second);
            }
        }
        const Clock::time_point now = Clock::now();
        while (!m_timers.empty() && m_timers.top().first <= now) {
            const auto [when, id] = m_timers.top();
            m_timers.pop();
            if (auto it = m_connections.find(id); it != m_connections.end()) {
                if (it->second->wake == when) {
                    it->second->wake.reset();
                }
                touch(*it->second);
            }
        }
        std::vector<std::uint64_t> ready;
        ready.swap(m_ready);
        for (std::uint64_t id : ready) {
            if (auto it = m_connections.find(id); it != m_connections.end()) {
                touch(*it->second);
            }
        }
        for (Connection* c : m_touched) {
            if (!c->dead) {
                pump(*c);
            }
        }
    }
    for (auto& [id, c] : m_connections) {
        if (!c->dead) {
            close(*c, false);
        }
    }
    m_connections.clear();
}

void WireTap::Relay::touch(Connection& c) {
    if (c.touchedEpoch != m_epoch) {
        c.touchedEpoch = m_epoch;
        m_touched.push_back(&c);
    }
}

void WireTap::Relay::applyControl() {
    const std::uint64_t profileGeneration = m_profileGeneration.load();
    const std::uint64_t faultGeneration = m_faultGeneration.load();
    const std::uint64_t cutRequests = m_cutRequests.load();
    const std::uint64_t watchGeneration = m_watchGeneration.load();
    if (profileGeneration == m_seenProfile && faultGeneration == m_seenFaults && cutRequests == m_seenCuts &&
        watchGeneration == m_seenWatch) {
        return;
    }
    bool cutWithReset = false;
    const bool wasWatching = m_activeWatching && m_activeStallTimeout.count() > 0;
    {
        std::lock_guard lock(m_controlMutex);
        m_activeProfile = m_profile;
        m_activeFaults = m_faults;
        cutWithReset = m_cutWithReset;
        m_activeStallTimeout = m_stallTimeout;
        m_activeWatching = m_watching;
        m_activeCutDeadline = m_cutDeadline;
        m_activeCutGrace = m_cutGrace;
    }
    // Idle time before the watch began (between a sweep's points, say) is no stall.
    const bool restartClocks = !wasWatching && m_activeWatching && m_activeStallTimeout.count() > 0;
    const Clock::time_point now = Clock::now();
    for (auto& [id, c] : m_connections) {
        if (c->dead) {
            continue;
        }
        if (cutRequests != m_seenCuts) {
            c->cutWithReset = cutWithReset;
            cut(*c);
            continue;
        }
        if (profileGeneration != m_seenProfile) {
            c->flows[kUp].shaper.configure(m_activeProfile.latencyUp, m_activeProfile.bandwidthUp);
            c->flows[kDown].shaper.configure(m_activeProfile.latencyDown, m_activeProfile.bandwidthDown);
        }
        if (faultGeneration != m_seenFaults) {
            applyFaults(*c, m_activeFaults);
        }
        if (restartClocks) {
            c->lastServerActivity = now;
        }
        // Queue limits and stalls may have changed: give it a turn at once.
        m_ready.push_back(id);
    }
    m_seenProfile = profileGeneration;
    m_seenFaults = faultGeneration;
    m_seenCuts = cutRequests;
    m_seenWatch = watchGeneration;
}

void WireTap::Relay::applyFaults(Connection& c, const FaultPlan& plan) {
    auto arm = [](Flow& flow, std::optional<std::uint64_t> cutAfter, std::optional<std::uint64_t> stallAfter,
                  std::chrono::nanoseconds stallFor) {
        flow.cutAt = cutAfter ? std::optional(flow.readTotal + *cutAfter) : std::nullopt;
        flow.stallAt = stallAfter ? std::optional(flow.readTotal + *stallAfter) : std::nullopt;
        flow.stallFor = stallFor;
        flow.stalled = false;  // a new plan releases a stall in progress
    };
    arm(c.flows[kUp], plan.cutUpAfter, plan.stallUpAfter, plan.stallFor);
    arm(c.flows[kDown], plan.cutDownAfter, plan.stallDownAfter, plan.stallFor);
    c.cutWithReset = plan.cutWithReset;
}

void WireTap::Relay::acceptAll() {
    for (;;) {
        FileDescriptor client(::accept4(m_listenFd.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
        if (!client.valid()) {
            const int error = errno;
            if (error == EAGAIN || error == EWOULDBLOCK) {
                return;
            }
            if (error == EINTR || error == ECONNABORTED) {
                continue;
            }
            recordError("wire tap: cannot accept a connection: " + describeErrno(error));
            if ((error == EMFILE || error == ENFILE) && m_spareFd.valid()) {
                // Refuse this client rather than leave it in the queue, where the level-triggered
                // listening socket would report it again at once, forever.
                m_spareFd.reset();
                closeSocket(::accept4(m_listenFd.get(), nullptr, nullptr, SOCK_CLOEXEC), true);
                m_spareFd.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
                continue;
            }
            return;
        }
        m_accepted.fetch_add(1);
        if (m_activeFaults.resetOnConnect) {
            m_faultsInjected.fetch_add(1);
            closeSocket(client.release(), true);
            continue;
        }
        FileDescriptor server(::socket(m_upstreamAddress.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        if (!server.valid()) {
            recordError("wire tap: cannot create a socket to " + m_upstreamLabel + ": " + describeErrno(errno));
            m_upstreamFailures.fetch_add(1);
            continue;  // the client is closed on leaving scope: it sees the connection end
        }
        setNoDelay(client.get());

        auto c = std::make_unique<Connection>();
        c->id = m_nextId++;
        c->log = m_recorder.open();
        c->connectDeadline = Clock::now() + kConnectTimeout;
        c->lastServerActivity = Clock::now();
        c->flows[kUp].shaper.configure(m_activeProfile.latencyUp, m_activeProfile.bandwidthUp);
        c->flows[kDown].shaper.configure(m_activeProfile.latencyDown, m_activeProfile.bandwidthDown);
        applyFaults(*c, m_activeFaults);
        c->flows[kUp].copyOnly = c->flows[kDown].copyOnly = m_compressor != nullptr;
        // Optimistic readiness: EAGAIN corrects it, and an edge may have passed before registration.
        c->flows[kUp].sourceReadable = true;
        c->flows[kDown].sinkWritable = true;

        int connectError = 0;
        if (::connect(server.get(), reinterpret_cast<const sockaddr*>(&m_upstreamAddress), m_upstreamLength) == 0) {
            c->connected = true;
        } else if (errno != EINPROGRESS) {
            connectError = errno;
        }
        bool registered = true;
        for (int side : {kClientSide, kServerSide}) {
            epoll_event event{};
            event.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
            event.data.u64 = (c->id << 1) | static_cast<std::uint64_t>(side);
            registered = registered && ::epoll_ctl(m_epollFd.get(), EPOLL_CTL_ADD,
                                                   side == kClientSide ? client.get() : server.get(), &event) == 0;
        }
        if (!registered) {
            recordError("wire tap: epoll_ctl: " + describeErrno(errno));
            closeSocket(client.release(), true);
            continue;
        }
        // The connection owns both descriptors from here; close() releases them.
        c->client = client.release();
        c->server = server.release();
        Connection& ref = *c;
        m_connections.emplace(c->id, std::move(c));
        m_open.fetch_add(1);
        if (ref.connected) {
            setNoDelay(ref.server);
            ref.flows[kUp].sinkWritable = true;
            ref.flows[kDown].sourceReadable = true;
        } else if (connectError != 0) {
            failUpstream(ref, connectError);
            continue;
        }
        touch(ref);
    }
}

void WireTap::Relay::onSocketEvent(Connection& c, int side, std::uint32_t events) {
    const bool readable = (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
    const bool writable = (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) != 0;
    if (side == kServerSide && !c.connected) {
        if (!writable) {
            return;
        }
        int error = 0;
        socklen_t length = sizeof error;
        ::getsockopt(c.server, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error != 0) {
            failUpstream(c, error);
            return;
        }
        c.connected = true;
        setNoDelay(c.server);
        c.flows[kUp].sinkWritable = true;
        c.flows[kDown].sourceReadable = true;
        return;
    }
    Flow& reading = c.flows[side == kClientSide ? kUp : kDown];
    Flow& writing = c.flows[side == kClientSide ? kDown : kUp];
    reading.sourceReadable = reading.sourceReadable || readable;
    reading.sourceClosing = reading.sourceClosing || (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
    writing.sinkWritable = writing.sinkWritable || writable;
}

void WireTap::Relay::pump(Connection& c) {
    int round = 0;
    for (; round < kPumpBudget && !c.dead; ++round) {
        const Clock::time_point now = Clock::now();
        if (!c.connected && now >= c.connectDeadline) {
            failUpstream(c, ETIMEDOUT);
            return;
        }
        if (stallTimedOut(c, now)) {
            return;
        }
        if (m_activeCutDeadline && now >= *m_activeCutDeadline) {
            m_stallTimeouts.fetch_add(1);
            recordError("wire tap: still relaying " + formatTimeout(m_activeCutGrace) +
                        " after the cancel: cut (cancel grace)");
            close(c, false);
            return;
        }
        bool progress = pumpFlow(c, kUp, now);
        if (!c.dead) {
            progress = pumpFlow(c, kDown, now) || progress;
        }
        if (!progress) {
            break;
        }
    }
    if (c.dead) {
        return;
    }
    if (c.flows[kUp].shutdownSent && c.flows[kDown].shutdownSent) {
        close(c, false);
        return;
    }
    if (round == kPumpBudget) {
        m_ready.push_back(c.id);
    }
    scheduleWake(c);
}

bool WireTap::Relay::pumpFlow(Connection& c, int direction, Clock::time_point now) {
    Flow& f = c.flows[direction];
    const int source = direction == kUp ? c.client : c.server;
    const int sink = direction == kUp ? c.server : c.client;
    const bool sourceOpen = direction == kUp || c.connected;
    const bool sinkOpen = direction == kDown || c.connected;
    const std::uint64_t writtenBefore = f.writtenTotal;
    bool progress = false;

    while (!f.frames.empty() && f.frames.front().arriveAt <= now) {
        f.freeUpTo = f.frames.front().end;
        f.frames.pop_front();
    }
    if (f.stalled && now >= f.stallUntil) {
        f.stalled = false;
    }
    if (f.stallAt && *f.stallAt == f.readTotal && !f.stalled) {
        f.stalled = true;
        f.stallUntil = f.stallFor == FaultPlan::kForever ? Clock::time_point::max() : now + f.stallFor;
        f.stallAt.reset();
        m_faultsInjected.fetch_add(1);
    }

    if (sourceOpen && f.sourceReadable && !f.sourceEof && !f.stalled && f.spliceable() && f.ensurePipe()) {
        if (f.inPipe < f.pipeCapacity) {
            const ssize_t n = ::splice(source, nullptr, f.pipeWrite, nullptr, f.pipeCapacity - f.inPipe,
                                       SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
            if (n > 0) {
                const auto size = static_cast<std::uint64_t>(n);
                account(c, direction, size, nullptr);
                f.readTotal += size;
                f.freeUpTo = f.readTotal;
                f.inPipe += size;
                progress = true;
            } else if (n == 0) {
                f.sourceEof = true;
                progress = true;
            } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
                // With bytes in the pipe, EAGAIN may mean the pipe is full rather than the socket
                // empty: keep trying after the pipe drains.
                if (f.inPipe == 0) {
                    f.sourceReadable = false;
                }
            } else if (errno != EINTR) {
                abort(c, std::string(direction == kUp ? "client" : "server") + " read: " + describeErrno(errno));
                return true;
            }
        }
    } else if (sourceOpen && f.sourceReadable && !f.sourceEof && !f.stalled && f.inPipe == 0) {
        const std::size_t queued = f.pending.size();
        const std::size_t limit = f.shaper.queueLimit();
        std::uint64_t want = queued < limit ? std::min(kReadChunk, limit - queued) : 0;
        if (f.cutAt) {
            want = std::min(want, *f.cutAt - f.readTotal);
        }
        if (f.stallAt) {
            want = std::min(want, *f.stallAt - f.readTotal);
        }
        if (want > 0) {
            char* into = f.pending.reserve(want);
            const ssize_t n = ::read(source, into, want);
            if (n > 0) {
                const auto size = static_cast<std::uint64_t>(n);
                f.pending.commit(size);
                account(c, direction, size, into);
                schedule(f, f.readTotal, size, now);
                f.readTotal += size;
                // A short read drained the socket; the next edge will say when there is more. Not so
                // for an end already announced: its edge has passed and only a read reports it.
                if (size < want && !f.sourceClosing) {
                    f.sourceReadable = false;
                }
                progress = true;
            } else if (n == 0) {
                f.sourceEof = true;
                progress = true;
            } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
                f.sourceReadable = false;
            } else if (errno != EINTR) {
                abort(c, std::string(direction == kUp ? "client" : "server") + " read: " + describeErrno(errno));
                return true;
            }
        }
    }

    if (sinkOpen && f.sinkWritable && f.inPipe > 0) {
        const ssize_t n = ::splice(f.pipeRead, nullptr, sink, nullptr, f.inPipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (n > 0) {
            f.inPipe -= static_cast<std::size_t>(n);
            f.writtenTotal += static_cast<std::uint64_t>(n);
            progress = true;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            f.sinkWritable = false;  // the pipe has bytes, so it is the socket that is full
        } else if (n < 0 && errno != EINTR) {
            abort(c, std::string(direction == kUp ? "server" : "client") + " write: " + describeErrno(errno));
            return true;
        }
    } else if (sinkOpen && f.sinkWritable && f.freeUpTo > f.writtenTotal) {
        const std::size_t count = f.freeUpTo - f.writtenTotal;
        const ssize_t n = ::send(sink, f.pending.data(), count, MSG_NOSIGNAL);
        if (n > 0) {
            const auto size = static_cast<std::size_t>(n);
            f.pending.consume(size);
            f.writtenTotal += size;
            if (size < count) {
                f.sinkWritable = false;
            }
            progress = true;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            f.sinkWritable = false;
        } else if (n < 0 && errno != EINTR) {
            abort(c, std::string(direction == kUp ? "server" : "client") + " write: " + describeErrno(errno));
            return true;
        }
    }

    if (progress && (direction == kDown || f.writtenTotal != writtenBefore)) {
        c.lastServerActivity = now;  // a byte from the server, or one delivered to it
    }
    if (f.cutAt && f.writtenTotal == *f.cutAt) {
        cut(c);
        return true;
    }
    if (sinkOpen && f.sourceEof && !f.shutdownSent && f.writtenTotal == f.readTotal) {
        ::shutdown(sink, SHUT_WR);
        f.shutdownSent = true;
        progress = true;
    }
    return progress;
}

void WireTap::Relay::schedule(Flow& f, std::uint64_t start, std::uint64_t size, Clock::time_point now) {
    if (f.shaper.shaping()) {
        f.shaper.enqueue(start, size, now, f.frames);
    } else if (f.frames.empty()) {
        f.freeUpTo = start + size;
    } else {
        // Unshaped now, but earlier shaped bytes are still on the line: do not overtake them.
        f.frames.push_back(LinkFrame{start + size, now, f.frames.back().arriveAt});
    }
}

void WireTap::Relay::account(Connection& c, int direction, std::uint64_t size, const char* data) {
    m_bytes[direction].fetch_add(size, std::memory_order_relaxed);
    ExchangeRecorder::record(*c.log, direction, size, nowNs());
    const bool roundTrip = direction == kDown && c.lastDirection == kUp;
    c.lastDirection = direction;
    if (m_compressor && data != nullptr) {  // copyOnly flows: every chunk comes with its bytes
        m_compressor->push(c.id, direction, data, size, roundTrip);
    }
}

void WireTap::Relay::scheduleWake(Connection& c) {
    std::optional<Clock::time_point> next;
    auto consider = [&next](Clock::time_point when) {
        if (!next || when < *next) {
            next = when;
        }
    };
    for (const Flow& f : c.flows) {
        if (!f.frames.empty()) {
            consider(f.frames.front().arriveAt);
        }
        if (f.stalled && f.stallUntil != Clock::time_point::max()) {
            consider(f.stallUntil);
        }
    }
    if (!c.connected) {
        consider(c.connectDeadline);
    }
    if (m_activeWatching && m_activeStallTimeout.count() > 0) {
        consider(c.lastServerActivity + m_activeStallTimeout);
    }
    if (m_activeCutDeadline) {
        consider(*m_activeCutDeadline);
    }
    if (next && (!c.wake || *next < *c.wake)) {
        c.wake = next;
        m_timers.emplace(*next, c.id);
    }
}

void WireTap::Relay::armTimer() {
    while (!m_timers.empty() && m_connections.find(m_timers.top().second) == m_connections.end()) {
        m_timers.pop();
    }
    if (m_timers.empty()) {
        return;  // a timer still armed for a finished connection fires once, harmlessly
    }
    const Clock::time_point when = m_timers.top().first;
    if (m_armedAt && *m_armedAt == when) {
        return;
    }
    // steady_clock is CLOCK_MONOTONIC in libstdc++; a zero it_value would disarm, so keep it >= 1 ns.
    const auto since = std::max<std::int64_t>(
        1, std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch()).count());
    itimerspec spec{};
    spec.it_value.tv_sec = static_cast<time_t>(since / 1'000'000'000);
    spec.it_value.tv_nsec = static_cast<long>(since % 1'000'000'000);
    ::timerfd_settime(m_timerFd.get(), TFD_TIMER_ABSTIME, &spec, nullptr);
    m_armedAt = when;
}

void WireTap::Relay::failUpstream(Connection& c, int error) {
    m_upstreamFailures.fetch_add(1);
    recordError("wire tap: cannot connect to upstream " + m_upstreamLabel + ": " + describeErrno(error));
    close(c, true);
}

void WireTap::Relay::abort(Connection& c, const std::string& why) {
    recordError("wire tap: connection " + std::to_string(c.id) + " to " + m_upstreamLabel + ": " + why);
    // A reset on one leg becomes a reset on the other, as it would on a real link.
    close(c, true);
}

void WireTap::Relay::cut(Connection& c) {
    m_faultsInjected.fetch_add(1);
    close(c, c.cutWithReset);
}

bool WireTap::Relay::stallTimedOut(Connection& c, Clock::time_point now) {
    if (!m_activeWatching || m_activeStallTimeout.count() <= 0 || !c.connected) {
        return false;  // an upstream connect has its own deadline
    }
    // Bytes still on the emulated line (a latency longer than the timeout) are not a stall.
    for (const Flow& f : c.flows) {
        if (!f.frames.empty()) {
            c.lastServerActivity = std::max(c.lastServerActivity, f.frames.back().arriveAt);
        }
    }
    if (now - c.lastServerActivity < m_activeStallTimeout) {
        return false;
    }
    // The client itself was stopped or suspended during the silence: it restarts when it resumed.
    c.lastServerActivity = std::max(c.lastServerActivity, Clock::time_point(Nanos(clientpause::resumedAt())));
    if (now - c.lastServerActivity < m_activeStallTimeout) {
        return false;
    }
    m_stallTimeouts.fetch_add(1);
    recordError("wire tap: no data for " + formatTimeout(m_activeStallTimeout) + " (stall timeout)");
    close(c, false);
    return true;
}

void WireTap::Relay::close(Connection& c, bool withReset) {
    if (c.dead) {
        return;
    }
    c.dead = true;
    closeSocket(c.client, withReset);
    closeSocket(c.server, withReset);
    c.client = c.server = -1;
    for (Flow& f : c.flows) {
        f.closePipe();
    }
    if (m_compressor) {
        m_compressor->closed(c.id);
    }
    m_open.fetch_sub(1);
}

void WireTap::Relay::reap() {
    std::erase_if(m_connections, [](const auto& entry) { return entry.second->dead; });
}

// ---------------------------------------------------------------------------------------------

WireTap::WireTap(std::string upstreamHost, std::uint16_t upstreamPort, LinkProfile profile, WireTapOptions options)
    : m_relay(std::make_unique<Relay>(std::move(upstreamHost), upstreamPort, profile, options)) {}

WireTap::~WireTap() = default;

std::uint16_t WireTap::port() const {
    return m_relay->port();
}
std::string WireTap::upstream() const {
    return m_relay->upstream();
}
WireCounters WireTap::snapshot(ExchangeRecorder::Mark* trace) const {
    return m_relay->snapshot(trace);
}
ExchangeTrace WireTap::exchanges(const ExchangeRecorder::Mark& from, const ExchangeRecorder::Mark& to) const {
    return m_relay->exchanges(from, to);
}
void WireTap::forgetTraceBefore(const ExchangeRecorder::Mark& mark) {
    m_relay->forgetTraceBefore(mark);
}
bool WireTap::estimatingCompression() const {
    return m_relay->estimatingCompression();
}
void WireTap::setLinkProfile(const LinkProfile& profile) {
    m_relay->setLinkProfile(profile);
}
LinkProfile WireTap::linkProfile() const {
    return m_relay->linkProfile();
}
void WireTap::setFaults(const FaultPlan& plan) {
    m_relay->setFaults(plan);
}
void WireTap::cutAll(bool withReset) {
    m_relay->cutAll(withReset);
}
void WireTap::setStallTimeout(std::chrono::nanoseconds timeout) {
    m_relay->setStallTimeout(timeout);
}
void WireTap::watchStalls(bool on) {
    m_relay->watchStalls(on);
}
void WireTap::cutAllAfter(std::chrono::nanoseconds grace) {
    m_relay->cutAllAfter(grace);
}
WireTapStats WireTap::stats() const {
    return m_relay->stats();
}

}  // namespace blobbench
