#include "engine/wire/SocketCounter.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

#include "engine/wire/ImportHook.h"

namespace blobbench {
namespace {

constexpr int kUp = 0;    // client -> server
constexpr int kDown = 1;  // server -> client
constexpr int kMaxFds = 65536;

// Descriptor -> the connection that counts it. One relaxed load per call of the client library:
// the whole cost for a descriptor nobody registered.
std::atomic<SocketCounter::Connection*> g_slots[kMaxFds];

thread_local SocketCounter* t_adopting = nullptr;
thread_local std::uint16_t t_adoptPort = 0;

SocketCounter::Connection* lookup(int fd) {
    return fd >= 0 && fd < kMaxFds ? g_slots[fd].load(std::memory_order_acquire) : nullptr;
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
} g_original;

template <typename F>
F real(const std::atomic<void*>& p) {
    return reinterpret_cast<F>(p.load(std::memory_order_acquire));
}

bool portMatches(const sockaddr* addr, socklen_t len, std::uint16_t port) {
    if (addr == nullptr) {
        return false;
    }
    if (addr->sa_family == AF_INET && len >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
        return ntohs(reinterpret_cast<const sockaddr_in*>(addr)->sin_port) == port;
    }
    if (addr->sa_family == AF_INET6 && len >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
        return ntohs(reinterpret_cast<const sockaddr_in6*>(addr)->sin6_port) == port;
    }
    return false;
}

int countingConnect(int fd, const sockaddr* addr, socklen_t len) {
    const int r = real<int (*)(int, const sockaddr*, socklen_t)>(g_original.connect)(fd, addr, len);
    const int saved = errno;
    if (t_adopting != nullptr && (r == 0 || saved == EINPROGRESS) && portMatches(addr, len, t_adoptPort)) {
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
    const ssize_t r = real<ssize_t (*)(int, void*, size_t, int)>(g_original.recv)(fd, buf, len, flags);
    count(fd, kDown, r);
    return r;
}

ssize_t countingSendto(int fd, const void* buf, size_t len, int flags, const sockaddr* to, socklen_t tolen) {
    const ssize_t r = real<ssize_t (*)(int, const void*, size_t, int, const sockaddr*, socklen_t)>(g_original.sendto)(
        fd, buf, len, flags, to, tolen);
    count(fd, kUp, r);
    return r;
}

ssize_t countingRecvfrom(int fd, void* buf, size_t len, int flags, sockaddr* from, socklen_t* fromlen) {
    const ssize_t r = real<ssize_t (*)(int, void*, size_t, int, sockaddr*, socklen_t*)>(g_original.recvfrom)(
        fd, buf, len, flags, from, fromlen);
    count(fd, kDown, r);
    return r;
}

ssize_t countingSendmsg(int fd, const msghdr* msg, int flags) {
    const ssize_t r = real<ssize_t (*)(int, const msghdr*, int)>(g_original.sendmsg)(fd, msg, flags);
    count(fd, kUp, r);
    return r;
}

ssize_t countingRecvmsg(int fd, msghdr* msg, int flags) {
    const ssize_t r = real<ssize_t (*)(int, msghdr*, int)>(g_original.recvmsg)(fd, msg, flags);
    count(fd, kDown, r);
    return r;
}

ssize_t countingRead(int fd, void* buf, size_t len) {
    const ssize_t r = real<ssize_t (*)(int, void*, size_t)>(g_original.read)(fd, buf, len);
    count(fd, kDown, r);
    return r;
}

ssize_t countingWrite(int fd, const void* buf, size_t len) {
    const ssize_t r = real<ssize_t (*)(int, const void*, size_t)>(g_original.write)(fd, buf, len);
    count(fd, kUp, r);
    return r;
}

ssize_t countingReadv(int fd, const iovec* iov, int n) {
    const ssize_t r = real<ssize_t (*)(int, const iovec*, int)>(g_original.readv)(fd, iov, n);
    count(fd, kDown, r);
    return r;
}

ssize_t countingWritev(int fd, const iovec* iov, int n) {
    const ssize_t r = real<ssize_t (*)(int, const iovec*, int)>(g_original.writev)(fd, iov, n);
    count(fd, kUp, r);
    return r;
}

// _FORTIFY_SOURCE builds of a client library import these instead of recv() and read().
ssize_t countingRecvChk(int fd, void* buf, size_t len, size_t buflen, int flags) {
    const ssize_t r =
        real<ssize_t (*)(int, void*, size_t, size_t, int)>(g_original.recvChk)(fd, buf, len, buflen, flags);
    count(fd, kDown, r);
    return r;
}

ssize_t countingReadChk(int fd, void* buf, size_t len, size_t buflen) {
    const ssize_t r = real<ssize_t (*)(int, void*, size_t, size_t)>(g_original.readChk)(fd, buf, len, buflen);
    count(fd, kDown, r);
    return r;
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
};

// The client libraries whose sockets can be counted: both are loaded by the executables (libpq
// linked, fbclient dlopen()ed by engine/drivers/firebird).
constexpr const char* kClientLibraries[] = {"libpq.so", "libfbclient.so"};

}  // namespace

void SocketCounter::Connection::count(int direction, std::uint64_t size) {
    bytes[direction].fetch_add(size, std::memory_order_relaxed);
    packets[direction].fetch_add(1, std::memory_order_relaxed);
    const int last = lastDirection.exchange(direction, std::memory_order_relaxed);
    if (direction == kDown && last == kUp) {
        roundTrips.fetch_add(1, std::memory_order_relaxed);
    }
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
}

SocketCounter::Adopting::~Adopting() {
    t_adopting = nullptr;
    t_adoptPort = 0;
}

bool SocketCounter::registerSocket(int fd) {
    if (fd < 0 || fd >= kMaxFds) {
        return false;
    }
    std::lock_guard lock(m_mutex);
    auto connection = std::make_unique<Connection>();
    Connection* expected = nullptr;
    if (!g_slots[fd].compare_exchange_strong(expected, connection.get(), std::memory_order_acq_rel)) {
        return false;
    }
    m_connections.push_back(std::move(connection));
    m_fds.push_back(fd);
    return true;
}

std::uint64_t SocketCounter::socketsAdopted() const {
    std::lock_guard lock(m_mutex);
    return m_connections.size();
}

WireCounters SocketCounter::snapshot() const {
    std::lock_guard lock(m_mutex);
    WireCounters c;
    std::uint64_t roundTrips = 0;
    for (const auto& connection : m_connections) {
        c.sendBytes += connection->bytes[kUp].load(std::memory_order_relaxed);
        c.recvBytes += connection->bytes[kDown].load(std::memory_order_relaxed);
        c.sendPackets += connection->packets[kUp].load(std::memory_order_relaxed);
        c.recvPackets += connection->packets[kDown].load(std::memory_order_relaxed);
        roundTrips += connection->roundTrips.load(std::memory_order_relaxed);
    }
    c.roundTrips = roundTrips;
    return c;
}

}  // namespace blobbench
