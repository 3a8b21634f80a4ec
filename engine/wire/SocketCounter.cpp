#include "engine/wire/SocketCounter.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "engine/core/ClientPause.h"
#include "engine/wire/ImportHook.h"
#include "engine/wire/LinkProfile.h"

namespace blobbench {
namespace {

constexpr int kUp = 0;    // client -> server
constexpr int kDown = 1;  // server -> client
constexpr int kMaxFds = 65536;

// How often a waiting call of the client library wakes up to look at the stall timeout and a
// cancel: the receive timeout (SO_RCVTIMEO) of every registered socket and the longest slice of a
// poll() on one. Only waits pay it (a few wake-ups a second); a call that finds data does not.
constexpr auto kWake = std::chrono::milliseconds(250);

std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Descriptor -> the connection that counts it. One relaxed load per call of the client library:
// the whole cost for a descriptor nobody registered.
std::atomic<SocketCounter::Connection*> g_slots[kMaxFds];

thread_local SocketCounter* t_adopting = nullptr;
thread_local std::uint16_t t_adoptPort = 0;
thread_local bool t_adoptAnyPort = false;

SocketCounter::Connection* lookup(int fd) {
    return fd >= 0 && fd < kMaxFds ? g_slots[fd].load(std::memory_order_acquire) : nullptr;
}

bool wouldBlock(ssize_t result) {
    return result < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

void count(int fd, int direction, ssize_t result) {
    if (result > 0) {
        if (auto* c = lookup(fd)) {
            c->count(direction, static_cast<std::uint64_t>(result));
        }
    }
}

// What the client libraries called before their slots were redirected: libc's functions, or a
// sanitizer's interceptors of them (the executable exports those, and the slot was bound to them).
struct Originals {
    std::atomic<void*> connect{nullptr};
    std::atomic<void*> close{nullptr};
    std::atomic<void*> send{nullptr};
    std::atomic<void*> recv{nullptr};
    std::atomic<void*> sendto{nullptr};
    std::atomic<void*> recvfrom{nullptr};
    std::atomic<void*> sendmsg{nullptr};
    std::atomic<void*> recvmsg{nullptr};
    std::atomic<void*> read{nullptr};
    std::atomic<void*> write{nullptr};
    std::atomic<void*> readv{nullptr};
    std::atomic<void*> writev{nullptr};
    std::atomic<void*> recvChk{nullptr};
    std::atomic<void*> readChk{nullptr};
    std::atomic<void*> poll{nullptr};
    std::atomic<void*> pollChk{nullptr};
} g_original;

template <typename F>
F real(const std::atomic<void*>& p) {
    return reinterpret_cast<F>(p.load(std::memory_order_acquire));
}

// A receive on a registered socket: `call` is the real function. A blocking socket's receive comes
// back with EAGAIN after kWake without data (its SO_RCVTIMEO, set at registration): then it is
// retried until data comes, the socket is shut down by the stall timeout or the cancel grace (the
// retry then returns end-of-file), or an error; the client library never sees that EAGAIN. A
// non-blocking socket's EAGAIN (libpq's; it waits in poll()) goes back as it is.
// Once the hard deadline after a cancel has passed, every receive returns end-of-file at once.
template <typename Call>
ssize_t received(int fd, bool dontWait, Call call) {
    SocketCounter::Connection* c = lookup(fd);
    if (c != nullptr && c->watch->endedAfterCancel(fd)) {
        return 0;
    }
    ssize_t r = call();
    if (wouldBlock(r) && !dontWait) {
        const int saved = errno;
        const int fl = c != nullptr ? fcntl(fd, F_GETFL) : O_NONBLOCK;
        if (fl == -1 || (fl & O_NONBLOCK) != 0) {
            errno = saved;
            return r;
        }
        const std::int64_t since = nowNs() - std::chrono::nanoseconds(kWake).count();
        do {
            c->watch->cutIfExpired(fd, since, nowNs());
            r = c->watch->endedAfterCancel(fd) ? 0 : call();
        } while (wouldBlock(r));
    }
    count(fd, kDown, r);
    return r;
}

// A poll() that includes a registered socket waits in slices of kWake at most, so the stall timeout
// and the cancel grace can cut the socket (the next slice then reports it readable, the client's
// read sees end-of-file); the caller's own timeout is kept. Same number of poll() calls otherwise.
template <typename Call>
int polled(pollfd* fds, nfds_t n, int timeout, Call call) {
    SocketCounter::Connection* c = nullptr;
    int fd = -1;
    for (nfds_t i = 0; i < n && c == nullptr; ++i) {
        c = lookup(fds[i].fd);
        fd = fds[i].fd;
    }
    if (c == nullptr) {
        return call(timeout);
    }
    const std::int64_t start = nowNs();
    const std::int64_t wakeMs = kWake.count();
    for (;;) {
        const std::int64_t elapsedMs = (nowNs() - start) / 1'000'000;
        const int slice =
            static_cast<int>(timeout < 0 ? wakeMs : std::clamp<std::int64_t>(timeout - elapsedMs, 0, wakeMs));
        const int r = call(slice);
        if (r != 0) {
            return r;
        }
        const std::int64_t now = nowNs();
        if (timeout >= 0 && now - start >= std::int64_t{timeout} * 1'000'000) {
            return 0;
        }
        c->watch->cutIfExpired(fd, start, now);
    }
}

// A TCP address (IPv4 or IPv6) on `port`, or on any port with `anyPort`.
bool portMatches(const sockaddr* addr, socklen_t len, std::uint16_t port, bool anyPort) {
    if (addr == nullptr) {
        return false;
    }
    if (addr->sa_family == AF_INET && len >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
        return anyPort || ntohs(reinterpret_cast<const sockaddr_in*>(addr)->sin_port) == port;
    }
    if (addr->sa_family == AF_INET6 && len >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
        return anyPort || ntohs(reinterpret_cast<const sockaddr_in6*>(addr)->sin6_port) == port;
    }
    return false;
}

int countingConnect(int fd, const sockaddr* addr, socklen_t len) {
    const int r = real<int (*)(int, const sockaddr*, socklen_t)>(g_original.connect)(fd, addr, len);
    const int saved = errno;
    if (t_adopting != nullptr && (r == 0 || saved == EINPROGRESS) &&
        portMatches(addr, len, t_adoptPort, t_adoptAnyPort)) {
        t_adopting->registerSocket(fd);
    }
    errno = saved;
    return r;
}

int countingClose(int fd) {
    if (fd >= 0 && fd < kMaxFds && g_slots[fd].load(std::memory_order_relaxed) != nullptr) {
        g_slots[fd].store(nullptr, std::memory_order_release);  // the number may be reused by anyone
    }
    return real<int (*)(int)>(g_original.close)(fd);
}

ssize_t countingSend(int fd, const void* buf, size_t len, int flags) {
    const ssize_t r = real<ssize_t (*)(int, const void*, size_t, int)>(g_original.send)(fd, buf, len, flags);
    count(fd, kUp, r);
    return r;
}

ssize_t countingRecv(int fd, void* buf, size_t len, int flags) {
    const auto f = real<ssize_t (*)(int, void*, size_t, int)>(g_original.recv);
    return received(fd, (flags & MSG_DONTWAIT) != 0, [&] { return f(fd, buf, len, flags); });
}

ssize_t countingSendto(int fd, const void* buf, size_t len, int flags, const sockaddr* to, socklen_t tolen) {
    const ssize_t r = real<ssize_t (*)(int, const void*, size_t, int, const sockaddr*, socklen_t)>(g_original.sendto)(
        fd, buf, len, flags, to, tolen);
    count(fd, kUp, r);
    return r;
}

ssize_t countingRecvfrom(int fd, void* buf, size_t len, int flags, sockaddr* from, socklen_t* fromlen) {
    const auto f = real<ssize_t (*)(int, void*, size_t, int, sockaddr*, socklen_t*)>(g_original.recvfrom);
    return received(fd, (flags & MSG_DONTWAIT) != 0, [&] { return f(fd, buf, len, flags, from, fromlen); });
}

ssize_t countingSendmsg(int fd, const msghdr* msg, int flags) {
    const ssize_t r = real<ssize_t (*)(int, const msghdr*, int)>(g_original.sendmsg)(fd, msg, flags);
    count(fd, kUp, r);
    return r;
}

ssize_t countingRecvmsg(int fd, msghdr* msg, int flags) {
    const auto f = real<ssize_t (*)(int, msghdr*, int)>(g_original.recvmsg);
    return received(fd, (flags & MSG_DONTWAIT) != 0, [&] { return f(fd, msg, flags); });
}

ssize_t countingRead(int fd, void* buf, size_t len) {
    const auto f = real<ssize_t (*)(int, void*, size_t)>(g_original.read);
    return received(fd, false, [&] { return f(fd, buf, len); });
}

ssize_t countingWrite(int fd, const void* buf, size_t len) {
    const ssize_t r = real<ssize_t (*)(int, const void*, size_t)>(g_original.write)(fd, buf, len);
    count(fd, kUp, r);
    return r;
}

ssize_t countingReadv(int fd, const iovec* iov, int n) {
    const auto f = real<ssize_t (*)(int, const iovec*, int)>(g_original.readv);
    return received(fd, false, [&] { return f(fd, iov, n); });
}

ssize_t countingWritev(int fd, const iovec* iov, int n) {
    const ssize_t r = real<ssize_t (*)(int, const iovec*, int)>(g_original.writev)(fd, iov, n);
    count(fd, kUp, r);
    return r;
}

// _FORTIFY_SOURCE builds of a client library import these instead of recv() and read().
ssize_t countingRecvChk(int fd, void* buf, size_t len, size_t buflen, int flags) {
    const auto f = real<ssize_t (*)(int, void*, size_t, size_t, int)>(g_original.recvChk);
    return received(fd, (flags & MSG_DONTWAIT) != 0, [&] { return f(fd, buf, len, buflen, flags); });
}

ssize_t countingReadChk(int fd, void* buf, size_t len, size_t buflen) {
    const auto f = real<ssize_t (*)(int, void*, size_t, size_t)>(g_original.readChk);
    return received(fd, false, [&] { return f(fd, buf, len, buflen); });
}

int countingPoll(pollfd* fds, nfds_t n, int timeout) {
    const auto f = real<int (*)(pollfd*, nfds_t, int)>(g_original.poll);
    return polled(fds, n, timeout, [&](int slice) { return f(fds, n, slice); });
}

int countingPollChk(pollfd* fds, nfds_t n, int timeout, size_t fdslen) {
    const auto f = real<int (*)(pollfd*, nfds_t, int, size_t)>(g_original.pollChk);
    return polled(fds, n, timeout, [&](int slice) { return f(fds, n, slice, fdslen); });
}

template <typename F>
void* fn(F f) {
    return reinterpret_cast<void*>(f);
}

const ImportRedirect kRedirects[] = {
    {"connect", fn(&countingConnect), &g_original.connect},
    {"close", fn(&countingClose), &g_original.close},
    {"send", fn(&countingSend), &g_original.send},
    {"recv", fn(&countingRecv), &g_original.recv},
    {"sendto", fn(&countingSendto), &g_original.sendto},
    {"recvfrom", fn(&countingRecvfrom), &g_original.recvfrom},
    {"sendmsg", fn(&countingSendmsg), &g_original.sendmsg},
    {"recvmsg", fn(&countingRecvmsg), &g_original.recvmsg},
    {"read", fn(&countingRead), &g_original.read},
    {"write", fn(&countingWrite), &g_original.write},
    {"readv", fn(&countingReadv), &g_original.readv},
    {"writev", fn(&countingWritev), &g_original.writev},
    {"__recv_chk", fn(&countingRecvChk), &g_original.recvChk},
    {"__read_chk", fn(&countingReadChk), &g_original.readChk},
    {"poll", fn(&countingPoll), &g_original.poll},
    {"__poll_chk", fn(&countingPollChk), &g_original.pollChk},
};

// The client libraries whose sockets can be counted: both are loaded by the executables (libpq
// linked, fbclient dlopen()ed by engine/drivers/firebird).
constexpr const char* kClientLibraries[] = {"libpq.so", "libfbclient.so", "libmariadb.so"};

}  // namespace

void SocketCounter::Connection::count(int direction, std::uint64_t size) {
    ExchangeRecorder::record(*log, direction, size, nowNs());
}

void SocketCounter::Watch::cutIfExpired(int fd, std::int64_t since, std::int64_t now) {
    const std::int64_t cancelledAt = cancelledAtNs.load(std::memory_order_acquire);
    const std::int64_t timeout = timeoutNs.load(std::memory_order_relaxed);
    const std::int64_t grace = graceNs.load(std::memory_order_relaxed);
    const bool graceDue = cancelledAt != 0 && now - std::max(since, cancelledAt) >= grace;
    const bool stallDue = watching.load(std::memory_order_relaxed) && timeout > 0 && now - since >= timeout;
    if (!graceDue && !stallDue) {
        return;
    }
    // The client itself was stopped or suspended during the silence: it restarts when it resumed.
    since = std::max(since, clientpause::resumedAt());
    std::string why;
    if (cancelledAt != 0 && now - std::max(since, cancelledAt) >= grace) {
        why = "no data for " + formatTimeout(std::chrono::nanoseconds(graceNs.load(std::memory_order_relaxed))) +
              " after the cancel (cancel grace)";
    } else if (watching.load(std::memory_order_relaxed) && timeout > 0 && now - since >= timeout) {
        why = "no data for " + formatTimeout(std::chrono::nanoseconds(timeout)) + " (stall timeout)";
    } else {
        return;
    }
    ::shutdown(fd, SHUT_RDWR);
    cuts.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(mutex);
    lastError = "in-process counting: " + why;
}

bool SocketCounter::Watch::endedAfterCancel(int fd) {
    const std::int64_t cancelledAt = cancelledAtNs.load(std::memory_order_acquire);
    if (cancelledAt == 0) {
        return false;
    }
    if (!ended.load(std::memory_order_acquire)) {
        const std::int64_t grace = graceNs.load(std::memory_order_relaxed);
        if (nowNs() - cancelledAt < grace) {
            return false;
        }
        if (ended.exchange(true)) {
            ::shutdown(fd, SHUT_RDWR);
            return true;
        }
        std::lock_guard lock(mutex);
        if (!lastError.ends_with("(cancel grace)")) {  // a silent call the grace cut says so already
            cuts.fetch_add(1, std::memory_order_relaxed);
            lastError = "in-process counting: still receiving " + formatTimeout(std::chrono::nanoseconds(grace)) +
                        " after the cancel: cut (cancel grace)";
        }
    }
    ::shutdown(fd, SHUT_RDWR);  // wakes a poll() on it; the data still arriving is never read
    return true;
}

SocketCounter::SocketCounter() = default;

SocketCounter::~SocketCounter() {
    std::lock_guard lock(m_mutex);
    for (std::size_t i = 0; i < m_fds.size(); ++i) {
        Connection* mine = m_connections[i].get();
        g_slots[m_fds[i]].compare_exchange_strong(mine, nullptr, std::memory_order_acq_rel);
    }
}

bool SocketCounter::hookClientLibraries() {
    bool any = false;
    for (const char* library : kClientLibraries) {
        any = redirectImports(library, kRedirects) > 0 || any;
    }
#if defined(__x86_64__) || defined(__aarch64__)
    (void)any;
    return true;
#else
    return any;
#endif
}

bool SocketCounter::adoptingOnThisThread() {
    return t_adopting != nullptr;
}

SocketCounter::Adopting::Adopting(SocketCounter& counter, std::uint16_t port) {
    hookClientLibraries();
    t_adopting = &counter;
    t_adoptPort = port;
    t_adoptAnyPort = false;
}

SocketCounter::Adopting::Adopting(SocketCounter& counter) : Adopting(counter, 0) {
    t_adoptAnyPort = true;
}

SocketCounter::Adopting::~Adopting() {
    t_adopting = nullptr;
    t_adoptPort = 0;
    t_adoptAnyPort = false;
}

bool SocketCounter::registerSocket(int fd) {
    if (fd < 0 || fd >= kMaxFds) {
        return false;
    }
    std::lock_guard lock(m_mutex);
    auto connection = std::make_unique<Connection>();
    connection->watch = &m_watch;
    connection->log = m_recorder.open();
    Connection* expected = nullptr;
    if (!g_slots[fd].compare_exchange_strong(expected, connection.get(), std::memory_order_acq_rel)) {
        return false;
    }
    m_connections.push_back(std::move(connection));
    m_fds.push_back(fd);
    // Lets a blocking receive wake up to look at the stall timeout (received() above). Not on the
    // client library's path: one call per connection.
    const timeval wake{0, static_cast<suseconds_t>(std::chrono::microseconds(kWake).count())};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wake, sizeof wake);
    return true;
}

void SocketCounter::setStallTimeout(std::chrono::nanoseconds timeout) {
    m_watch.timeoutNs.store(std::max<std::int64_t>(0, timeout.count()), std::memory_order_relaxed);
}

void SocketCounter::watchStalls(bool on) {
    m_watch.watching.store(on, std::memory_order_relaxed);
}

void SocketCounter::cutCallsAfter(std::chrono::nanoseconds grace) {
    m_watch.graceNs.store(grace.count(), std::memory_order_relaxed);
    m_watch.cancelledAtNs.store(nowNs(), std::memory_order_release);
}

std::uint64_t SocketCounter::stallTimeouts() const {
    return m_watch.cuts.load(std::memory_order_relaxed);
}

std::string SocketCounter::lastError() const {
    std::lock_guard lock(m_watch.mutex);
    return m_watch.lastError;
}

std::uint64_t SocketCounter::socketsAdopted() const {
    std::lock_guard lock(m_mutex);
    return m_connections.size();
}

WireCounters SocketCounter::snapshot(ExchangeRecorder::Mark* trace) const {
    return m_recorder.snapshot(nowNs(), trace);
}

ExchangeTrace SocketCounter::exchanges(const ExchangeRecorder::Mark& from, const ExchangeRecorder::Mark& to) const {
    return m_recorder.between(from, to);
}

void SocketCounter::forgetTraceBefore(const ExchangeRecorder::Mark& mark) {
    m_recorder.forgetBefore(mark);
}

}  // namespace blobbench
