#pragma once
// Loopback sockets for the wire tests: a scripted server on an ephemeral 127.0.0.1 port, a client
// socket, and whole reads and writes. Every blocking call gives up after kSocketTimeoutSeconds,
// so a broken relay fails a test, never hangs it.
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace blobbench::test {

constexpr int kSocketTimeoutSeconds = 20;

// Owns a descriptor.
class Socket {
public:
    explicit Socket(int fd = -1) : m_fd(fd) {}
    ~Socket();
    Socket(Socket&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    Socket& operator=(Socket&&) = delete;
    int fd() const { return m_fd; }

private:
    int m_fd;
};

// Receive and send timeouts of kSocketTimeoutSeconds, and TCP_NODELAY.
void setTimeouts(int fd);

// Which loopback address: 127.0.0.1 or ::1.
enum class Loopback { V4, V6 };

// A listening socket on 127.0.0.1 (or ::1) at an ephemeral port; throws std::runtime_error when it cannot.
int listenOnLoopback(int backlog, std::uint16_t& port, Loopback family = Loopback::V4);

// A 127.0.0.1 (or ::1) port nothing listens on: bound, then closed.
std::uint16_t closedPort(Loopback family = Loopback::V4);

// Relays bytes between `fd` and a new connection to 127.0.0.1:`port` until either side closes (a
// ScriptedServer handler: a stand-in on ::1 for a real server that listens on 127.0.0.1 only).
void forwardTo(int fd, std::uint16_t port);

// The sockets among this process's descriptors, and its threads (for leak checks before/after).
int countSockets();
int countThreads();

// A connected client socket (a failed connect is a test failure).
Socket connectTo(std::uint16_t port);

bool writeAll(int fd, std::string_view data);

// The local ports of process `pid`'s TCP connections to `serverPort` (IPv4 and IPv6), from /proc: which
// connections to a shared server are a given run's.
std::set<int> processPortsTo(int pid, int serverPort);

// Up to `count` bytes; fewer when the peer closes or resets first.
std::string readUpTo(int fd, std::size_t count);
std::string readToEnd(int fd);

// `size` pseudo-random bytes from `seed`.
std::string pattern(std::size_t size, unsigned seed);

// A server on an ephemeral 127.0.0.1 (or ::1) port that runs `handler` on each connection in its own thread.
class ScriptedServer {
public:
    explicit ScriptedServer(std::function<void(int)> handler, Loopback family = Loopback::V4);
    ~ScriptedServer();
    std::uint16_t port() const { return m_port; }
    int accepted() const { return m_accepted.load(); }

private:
    void acceptLoop();

    std::function<void(int)> m_handler;
    int m_listen = -1;
    std::uint16_t m_port = 0;
    std::atomic<int> m_accepted{0};
    std::mutex m_mutex;
    std::vector<std::thread> m_workers;
    std::thread m_acceptor;
};

}  // namespace blobbench::test
