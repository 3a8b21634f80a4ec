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
#include "support/CaptureSupport.h"
#include "support/TestSupport.h"

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

}  // namespace

TEST(WireCapture, TapCountsEqualAPacketCaptureOfTheSameConnection) {
    if (!test::captureToolsInstalled()) {
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
    test::LoopbackCapture capture(tap.port(), file);
    if (!capture.running()) {
        capture.stop();
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
    const test::CapturedCounts captured = test::analyseCapture(file, tap.port());
    if (std::getenv("BLOBBENCH_KEEP_CAPTURE") == nullptr) {
        std::filesystem::remove(file);
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
        "capture: up %llu bytes in %llu segments, down %llu bytes in %llu segments, %llu sent again; "
        "tap: up %llu reads, down %llu reads\n",
        static_cast<unsigned long long>(captured.upBytes), static_cast<unsigned long long>(captured.upSegments),
        static_cast<unsigned long long>(captured.downBytes), static_cast<unsigned long long>(captured.downSegments),
        static_cast<unsigned long long>(captured.retransmitted), static_cast<unsigned long long>(tapped.sendPackets),
        static_cast<unsigned long long>(tapped.recvPackets));
}
