#include "engine/wire/WireTap.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
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
#include <csignal>
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
#include "engine/wire/WireTapRelay.h"

namespace blobbench {

namespace {

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

}  // namespace

WireTap::Relay::Relay(const std::string& host, std::uint16_t port, const LinkProfile& profile,
                      const WireTapOptions& options) {
    profile.validate();
    m_profile = m_activeProfile = profile;
    m_sharedLink = options.sharedLink;
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
        if (m_sharedLink) {
            c->flows[kUp].shaper.share(m_sharedLink, &m_sharedLink->up);
            c->flows[kDown].shaper.share(m_sharedLink, &m_sharedLink->down);
        }
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
    // What was still on its way to the client never reaches it.
    const std::uint64_t dropped = c.flows[kDown].readTotal - c.flows[kDown].writtenTotal;
    m_droppedDown.fetch_add(dropped);  // first: a snapshot in between subtracts them twice, never not at all
    m_undeliveredDown.fetch_sub(dropped);
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

WireTap::WireTap(const std::string& upstreamHost, std::uint16_t upstreamPort, LinkProfile profile,
                 const WireTapOptions& options)
    : m_relay(std::make_unique<Relay>(upstreamHost, upstreamPort, profile, options)) {}

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
