#include "support/SocketSupport.h"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace blobbench::test {

Socket::~Socket() {
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

void setTimeouts(int fd) {
    timeval timeout{kSocketTimeoutSeconds, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

namespace {

// The loopback address of the family at port 0 (an ephemeral one).
socklen_t loopbackAddress(Loopback family, sockaddr_storage& storage) {
    storage = {};
    if (family == Loopback::V6) {
        auto& a = reinterpret_cast<sockaddr_in6&>(storage);
        a.sin6_family = AF_INET6;
        a.sin6_addr = in6addr_loopback;
        return sizeof a;
    }
    auto& a = reinterpret_cast<sockaddr_in&>(storage);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return sizeof a;
}

std::uint16_t portOf(const sockaddr_storage& storage) {
    return ntohs(storage.ss_family == AF_INET6 ? reinterpret_cast<const sockaddr_in6&>(storage).sin6_port
                                               : reinterpret_cast<const sockaddr_in&>(storage).sin_port);
}

}  // namespace

int listenOnLoopback(int backlog, std::uint16_t& port, Loopback family) {
    sockaddr_storage address{};
    socklen_t length = loopbackAddress(family, address);
    const int fd = ::socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 || ::listen(fd, backlog) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        if (fd >= 0) {
            ::close(fd);
        }
        throw std::runtime_error("test server: cannot listen");
    }
    port = portOf(address);
    return fd;
}

std::uint16_t closedPort(Loopback family) {
    sockaddr_storage address{};
    socklen_t length = loopbackAddress(family, address);
    const int fd = ::socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ::bind(fd, reinterpret_cast<sockaddr*>(&address), length);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    ::close(fd);
    return portOf(address);
}

void forwardTo(int fd, std::uint16_t port) {
    Socket upstream(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    if (::connect(upstream.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        return;  // the client sees its connection end
    }
    pollfd fds[2] = {{fd, POLLIN, 0}, {upstream.fd(), POLLIN, 0}};
    char buffer[64 * 1024];
    for (;;) {
        if (::poll(fds, 2, -1) < 0 && errno != EINTR) {
            return;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].revents == 0) {
                continue;
            }
            const ssize_t n = ::recv(fds[i].fd, buffer, sizeof buffer, 0);
            if (n <= 0 || !writeAll(fds[1 - i].fd, std::string_view(buffer, static_cast<std::size_t>(n)))) {
                ::shutdown(fds[1 - i].fd, SHUT_RDWR);
                return;
            }
        }
    }
}

int countSockets() {
    int sockets = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        const auto target = std::filesystem::read_symlink(entry.path(), ec);
        if (!ec && target.string().starts_with("socket:")) {
            ++sockets;
        }
    }
    return sockets;
}

int countThreads() {
    int threads = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
        ++threads;
    }
    return threads;
}

Socket connectTo(std::uint16_t port) {
    Socket s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    if (::connect(s.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ADD_FAILURE() << "connect to 127.0.0.1:" << port << ": " << std::strerror(errno);
    }
    setTimeouts(s.fd());
    return s;
}

bool writeAll(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n <= 0) {
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

std::string readUpTo(int fd, std::size_t count) {
    std::string out;
    char buffer[65536];
    while (out.size() < count) {
        const ssize_t n = ::recv(fd, buffer, std::min(sizeof buffer, count - out.size()), 0);
        if (n <= 0) {
            break;
        }
        out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
}

std::string readToEnd(int fd) {
    return readUpTo(fd, SIZE_MAX);
}

std::string pattern(std::size_t size, unsigned seed) {
    std::string data(size, '\0');
    std::uint32_t x = seed * 2654435761u + 1;
    for (char& c : data) {
        x = x * 1664525u + 1013904223u;
        c = static_cast<char>(x >> 24);
    }
    return data;
}

ScriptedServer::ScriptedServer(std::function<void(int)> handler, Loopback family) : m_handler(std::move(handler)) {
    m_listen = listenOnLoopback(256, m_port, family);
    m_acceptor = std::thread([this] { acceptLoop(); });
}

ScriptedServer::~ScriptedServer() {
    ::shutdown(m_listen, SHUT_RDWR);  // wakes accept()
    m_acceptor.join();
    for (std::thread& t : m_workers) {
        t.join();
    }
    ::close(m_listen);
}

void ScriptedServer::acceptLoop() {
    for (;;) {
        const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            return;
        }
        setTimeouts(fd);
        m_accepted.fetch_add(1);
        std::lock_guard lock(m_mutex);
        m_workers.emplace_back([this, fd] {
            m_handler(fd);
            ::close(fd);
        });
    }
}

// The local ports of `pid`'s TCP connections to `serverPort` (IPv4 and IPv6), from /proc.
std::set<int> processPortsTo(int pid, int serverPort) {
    std::set<std::string> inodes;
    const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
    if (DIR* dir = ::opendir(fds.c_str())) {
        while (const dirent* e = ::readdir(dir)) {
            char target[128];
            const ssize_t n = ::readlink((fds + "/" + e->d_name).c_str(), target, sizeof target - 1);
            if (n > 0) {
                const std::string link(target, static_cast<std::size_t>(n));
                if (link.rfind("socket:[", 0) == 0) {
                    inodes.insert(link.substr(8, link.size() - 9));
                }
            }
        }
        ::closedir(dir);
    }
    std::set<int> ports;
    for (const char* table : {"tcp", "tcp6"}) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/net/" + table);
        std::string line;
        std::getline(in, line);  // the header
        while (std::getline(in, line)) {
            std::istringstream f(line);
            std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
            if (!(f >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode) ||
                !inodes.contains(inode)) {
                continue;
            }
            const auto port = [](const std::string& address) {
                return static_cast<int>(std::stoul(address.substr(address.find(':') + 1), nullptr, 16));
            };
            if (port(remote) == serverPort) {
                ports.insert(port(local));
            }
        }
    }
    return ports;
}

}  // namespace blobbench::test
