// The tap's counts against a packet capture of the same connection on loopback (dumpcap + tshark,
// Debian's tshark package). Local only: a scripted server on 127.0.0.1, capture filtered to the
// tap's port, bounded by dumpcap's own autostop. Skipped when tshark is not installed or capturing
// is not permitted, except under CI=true: there scripts/test installs tshark (BUILD_PACKAGES) and a
// missing tool fails the test, as does a capture refused to root.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/wire/WireTap.h"
#include "support/TestSupport.h"

extern char** environ;

using namespace blobbench;
using namespace std::chrono_literals;

namespace {

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

std::size_t readExactly(int fd, std::size_t size) {
    std::vector<char> buffer(65536);
    std::size_t got = 0;
    while (got < size) {
        const ssize_t n = ::recv(fd, buffer.data(), std::min(buffer.size(), size - got), 0);
        if (n <= 0) {
            break;
        }
        got += static_cast<std::size_t>(n);
    }
    return got;
}

void setOptions(int fd) {
    timeval timeout{20, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

// Message sizes of the scripted conversation: small, odd, and larger than a loopback segment.
const std::vector<std::size_t> kExchanges = {1, 17, 100, 1448, 1449, 4096, 65535, 65536, 200'000, 3, 9, 30'000};
constexpr std::size_t kBulk = 2'000'000;

// Greets, answers each request with a reply of the same size, then sends kBulk bytes.
void serve(int listenFd) {
    const int fd = ::accept(listenFd, nullptr, nullptr);
    if (fd < 0) {
        return;
    }
    setOptions(fd);
    writeAll(fd, "HELLO\n");
    for (std::size_t size : kExchanges) {
        if (readExactly(fd, size) != size || !writeAll(fd, std::string(size, 'r'))) {
            break;
        }
    }
    writeAll(fd, std::string(kBulk, 'b'));
    ::close(fd);
}

// A running dumpcap writing to a file; stopped (SIGINT, which flushes the file) on destruction.
class Capture {
public:
    Capture(std::uint16_t port, const std::string& file) : m_log(file + ".log") {
        const std::string filter = "tcp port " + std::to_string(port);
        std::vector<std::string> args = {"dumpcap", "-q",  "-i", "lo",           "-f", filter,
                                         "-s",      "128", "-a", "duration:120", "-w", file};
        std::vector<char*> argv;
        for (std::string& arg : args) {
            argv.push_back(arg.data());
        }
        argv.push_back(nullptr);
        // Its words go to a file, not a pipe: a pipe's reader going away would kill it unflushed.
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, m_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        if (::posix_spawnp(&m_pid, "dumpcap", &actions, nullptr, argv.data(), environ) != 0) {
            m_pid = -1;
        }
        posix_spawn_file_actions_destroy(&actions);
        // dumpcap says "Capturing on 'Loopback: lo'" once packets are being recorded.
        for (int i = 0; i < 150 && m_pid > 0 && !m_running; ++i) {
            std::this_thread::sleep_for(100ms);
            m_running = output().find("Capturing on") != std::string::npos;
        }
    }
    ~Capture() { stop(); }

    bool running() const { return m_running; }
    std::string output() const {
        std::ifstream log(m_log);
        return std::string((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    }
    void stop() {
        if (m_pid > 0) {
            ::kill(m_pid, SIGINT);
            int status = 0;
            ::waitpid(m_pid, &status, 0);
            m_pid = -1;
        }
    }
    void removeLog() { std::filesystem::remove(m_log); }

private:
    std::string m_log;
    pid_t m_pid = -1;
    bool m_running = false;
};

struct CapturedCounts {
    std::uint64_t upBytes = 0, downBytes = 0, upSegments = 0, downSegments = 0, roundTrips = 0;
};

// Payload-carrying segments of the capture, client->tap is up.
CapturedCounts analyse(const std::string& file, std::uint16_t tapPort) {
    const std::string command =
        "tshark -r '" + file + "' -Y 'tcp.len > 0' -T fields -e tcp.dstport -e tcp.len 2>/dev/null";
    CapturedCounts counts;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        return counts;
    }
    char line[256];
    int last = -1;
    while (std::fgets(line, sizeof line, pipe) != nullptr) {
        std::istringstream fields(line);
        unsigned port = 0;
        std::uint64_t length = 0;
        if (!(fields >> port >> length)) {
            ADD_FAILURE() << "tshark: " << line;
            continue;
        }
        const int direction = port == tapPort ? 0 : 1;
        (direction == 0 ? counts.upBytes : counts.downBytes) += length;
        ++(direction == 0 ? counts.upSegments : counts.downSegments);
        if (direction == 1 && last == 0) {
            ++counts.roundTrips;
        }
        last = direction;
    }
    ::pclose(pipe);
    return counts;
}

}  // namespace

TEST(WireCapture, TapCountsEqualAPacketCaptureOfTheSameConnection) {
    if (std::system("command -v dumpcap >/dev/null 2>&1 && command -v tshark >/dev/null 2>&1") != 0) {
        if (test::ciMode()) {
            FAIL() << "dumpcap/tshark not installed: scripts/test installs Debian package tshark (BUILD_PACKAGES)";
        }
        GTEST_SKIP() << "dumpcap/tshark not installed (Debian package tshark)";
    }
    const int listenFd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    ASSERT_EQ(::bind(listenFd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(listenFd, 4), 0);
    ASSERT_EQ(::getsockname(listenFd, reinterpret_cast<sockaddr*>(&address), &length), 0);
    std::thread server(serve, listenFd);

    WireTap tap("127.0.0.1", ntohs(address.sin_port));
    const std::string file =
        (std::filesystem::temp_directory_path() / ("blobbench-wire-" + std::to_string(::getpid()) + ".pcapng"))
            .string();
    Capture capture(tap.port(), file);
    if (!capture.running()) {
        capture.stop();
        capture.removeLog();
        ::shutdown(listenFd, SHUT_RDWR);
        server.join();
        ::close(listenFd);
        // Root may always capture; others need the wireshark group, which CI does not grant.
        if (test::ciMode() && ::geteuid() == 0) {
            FAIL() << "cannot capture on lo as root: " << capture.output();
        }
        GTEST_SKIP() << "cannot capture on lo: " << capture.output();
    }

    const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    address.sin_port = htons(tap.port());
    ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    setOptions(client);
    EXPECT_EQ(readExactly(client, 6), 6u);
    for (std::size_t size : kExchanges) {
        ASSERT_TRUE(writeAll(client, std::string(size, 'q')));
        ASSERT_EQ(readExactly(client, size), size);
    }
    EXPECT_EQ(readExactly(client, kBulk), kBulk);
    ::close(client);
    server.join();
    ::close(listenFd);
    for (int i = 0; i < 500 && tap.stats().open != 0; ++i) {
        std::this_thread::sleep_for(10ms);
    }
    // libpcap hands packets over in blocks, on a timeout of up to a second: wait for the last one.
    std::this_thread::sleep_for(2500ms);
    capture.stop();

    const WireCounters tapped = tap.snapshot();
    SCOPED_TRACE("dumpcap: " + capture.output());
    const CapturedCounts captured = analyse(file, tap.port());
    if (std::getenv("BLOBBENCH_KEEP_CAPTURE") == nullptr) {
        std::filesystem::remove(file);
        capture.removeLog();
    }

    std::uint64_t upExpected = 0;
    for (std::size_t size : kExchanges) {
        upExpected += size;
    }
    EXPECT_EQ(tapped.sendBytes, upExpected);
    EXPECT_EQ(tapped.recvBytes, upExpected + 6 + kBulk);
    EXPECT_EQ(captured.upBytes, tapped.sendBytes);
    EXPECT_EQ(captured.downBytes, tapped.recvBytes);
    EXPECT_EQ(captured.roundTrips, tapped.roundTrips.value_or(0));
    EXPECT_EQ(tapped.roundTrips, kExchanges.size());
    // Segments differ by definition (TCP segments of up to 64 KiB on loopback, reads of up to
    // the relay's chunk): printed for the record, not compared.
    std::printf(
        "capture: up %llu bytes in %llu segments, down %llu bytes in %llu segments; "
        "tap: up %llu reads, down %llu reads\n",
        static_cast<unsigned long long>(captured.upBytes), static_cast<unsigned long long>(captured.upSegments),
        static_cast<unsigned long long>(captured.downBytes), static_cast<unsigned long long>(captured.downSegments),
        static_cast<unsigned long long>(tapped.sendPackets), static_cast<unsigned long long>(tapped.recvPackets));
}
