// WireTap benchmarks: figures for the targets, each compared with a direct connection in
// the same run. Prints, asserts nothing. Usage:
//   wire_bench [all|throughput|bandwidth|pingpong|cpu|postgres] [--conninfo URI]
// postgres needs the local PostgreSQL 15 (scripts/services/start-postgres); it is skipped otherwise.
#include <libpq-fe.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/Error.h"
#include "engine/wire/WireTap.h"

using namespace blobbench;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

int connectTo(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        std::perror("connect");
        std::exit(1);
    }
    int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    return fd;
}

void writeAll(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n <= 0) {
            return;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

std::size_t readExactly(int fd, std::size_t size) {
    static thread_local std::vector<char> buffer(1 << 20);
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

// One-connection-at-a-time server on 127.0.0.1 running `handler` per connection.
class Server {
public:
    explicit Server(std::function<void(int)> handler) : m_handler(std::move(handler)) {
        m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        ::bind(m_listen, reinterpret_cast<sockaddr*>(&address), sizeof address);
        ::listen(m_listen, 16);
        ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&address), &length);
        m_port = ntohs(address.sin_port);
        m_thread = std::thread([this] {
            for (;;) {
                const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
                if (fd < 0) {
                    return;
                }
                int on = 1;
                ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
                m_handler(fd);
                ::close(fd);
            }
        });
    }
    ~Server() {
        ::shutdown(m_listen, SHUT_RDWR);
        m_thread.join();
        ::close(m_listen);
    }
    std::uint16_t port() const { return m_port; }

private:
    std::function<void(int)> m_handler;
    int m_listen = -1;
    std::uint16_t m_port = 0;
    std::thread m_thread;
};

// The server sends `size` bytes after a one-byte request; returns the seconds from the request to
// the last byte received.
double timedDownload(std::uint16_t port, std::size_t size) {
    const int fd = connectTo(port);
    const auto start = Clock::now();
    writeAll(fd, "g", 1);
    const std::size_t got = readExactly(fd, size);
    const double elapsed = seconds(Clock::now() - start);
    ::close(fd);
    if (got != size) {
        std::printf("  short read: %zu of %zu bytes\n", got, size);
    }
    return elapsed;
}

Server bulkSender(std::size_t size) {
    return Server([size](int fd) {
        std::vector<char> block(1 << 20, 'x');
        char request = 0;
        if (::recv(fd, &request, 1, 0) != 1) {
            return;
        }
        for (std::size_t sent = 0; sent < size; sent += block.size()) {
            writeAll(fd, block.data(), std::min(block.size(), size - sent));
        }
    });
}

void throughput() {
    constexpr std::size_t kSize = std::size_t{4} << 30;  // 4 GiB
    std::printf("== Relay throughput, bulk sender, %zu MiB, unshaped (target >= 1.5 GB/s)\n", kSize >> 20);
    Server server = bulkSender(kSize);
    WireTap tap("127.0.0.1", server.port());
    for (int run = 0; run < 2; ++run) {
        const double direct = timedDownload(server.port(), kSize);
        const double relayed = timedDownload(tap.port(), kSize);
        std::printf("  direct %.2f GB/s   through tap %.2f GB/s   (%.2fx the direct time)\n", kSize / direct / 1e9,
                    kSize / relayed / 1e9, relayed / direct);
    }
    const WireCounters c = tap.snapshot();
    std::printf("  tap counted %llu bytes down in %llu reads (%.0f KiB per read)\n",
                static_cast<unsigned long long>(c.recvBytes), static_cast<unsigned long long>(c.recvPackets),
                c.recvPackets ? static_cast<double>(c.recvBytes) / static_cast<double>(c.recvPackets) / 1024 : 0.0);
}

void bandwidth() {
    constexpr std::size_t kSize = 1'000'000;
    std::printf("== 1 MB at 1 Mbit/s down (target 8.0 s within 2%%)\n");
    Server server = bulkSender(kSize);
    LinkProfile profile;
    profile.bandwidthDown = 1'000'000;
    WireTap tap("127.0.0.1", server.port(), profile);
    const double direct = timedDownload(server.port(), kSize);
    const double relayed = timedDownload(tap.port(), kSize);
    std::printf("  direct %.4f s   shaped %.4f s   error %+.2f%% against 8.0 s\n", direct, relayed,
                (relayed - 8.0) / 8.0 * 100);
}

void pingpong() {
    constexpr int kExchanges = 1000;
    std::printf("== %d ping-pongs at 20 ms RTT (10 ms each way; target 20 s within 2%%)\n", kExchanges);
    Server server([](int fd) {
        char message[64];
        while (readExactly(fd, sizeof message) == sizeof message) {
            writeAll(fd, message, sizeof message);
        }
    });
    WireTap tap("127.0.0.1", server.port(), LinkProfile::symmetric(10ms));
    auto run = [](std::uint16_t port) {
        const int fd = connectTo(port);
        char message[64] = {};
        const auto start = Clock::now();
        for (int i = 0; i < kExchanges; ++i) {
            writeAll(fd, message, sizeof message);
            readExactly(fd, sizeof message);
        }
        const double elapsed = seconds(Clock::now() - start);
        ::close(fd);
        return elapsed;
    };
    const double direct = run(server.port());
    const double relayed = run(tap.port());
    std::printf("  direct %.4f s   through tap %.4f s   error %+.2f%% against 20.0 s   round trips counted %llu\n",
                direct, relayed, (relayed - 20.0) / 20.0 * 100,
                static_cast<unsigned long long>(tap.snapshot().roundTrips.value_or(0)));
    // The client and server take their own time to answer with or without the tap (the direct run):
    // what the relay itself adds is the rest, per round trip.
    std::printf("  relay's own delay: %.1f us per round trip beyond 20 ms + the direct round trip (%+.2f%%)\n",
                (relayed - 20.0 - direct) / kExchanges * 1e6, (relayed - 20.0 - direct) / 20.0 * 100);
}

double cpuSeconds() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// CPU seconds used so far by the threads named "wiretap" (the relays), from /proc.
double relayCpuSeconds() {
    double total = 0;
    const long ticks = ::sysconf(_SC_CLK_TCK);
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
        std::ifstream comm(task.path() / "comm");
        std::string name;
        std::getline(comm, name);
        if (name != "wiretap") {
            continue;
        }
        std::ifstream statFile(task.path() / "stat");
        std::string stat((std::istreambuf_iterator<char>(statFile)), std::istreambuf_iterator<char>());
        // Fields after the parenthesised name: state is field 3, utime 14, stime 15.
        std::istringstream fields(stat.substr(stat.rfind(')') + 2));
        std::string field;
        for (int i = 3; i <= 15 && fields >> field; ++i) {
            if (i == 14 || i == 15) {
                total += std::stod(field) / static_cast<double>(ticks);
            }
        }
    }
    return total;
}

void cpu() {
    constexpr std::size_t kSize = 6'250'000;  // 5 s at 10 Mbit/s
    std::printf("== CPU under shaping at 10 Mbit/s, %zu bytes (target relay < 5%% of a core)\n", kSize);
    Server server = bulkSender(kSize);
    LinkProfile profile;
    profile.bandwidthDown = 10'000'000;
    profile.latencyDown = 20ms;
    WireTap tap("127.0.0.1", server.port(), profile);
    const double before = cpuSeconds();
    const double relayBefore = relayCpuSeconds();
    const double elapsed = timedDownload(tap.port(), kSize);
    const double used = cpuSeconds() - before;
    const double relay = relayCpuSeconds() - relayBefore;
    std::printf("  %.3f s wall; relay thread %.3f s CPU = %.2f%% of a core; whole process %.2f%%\n", elapsed, relay,
                relay / elapsed * 100, used / elapsed * 100);
}

struct PgResult {
    double seconds = 0;
    std::uint64_t bytes = 0;
};

PgResult readAllBlobs(const std::string& conninfo) {
    PGconn* conn = PQconnectdb(conninfo.c_str());
    if (PQstatus(conn) != CONNECTION_OK) {
        throw Error(ErrorKind::Connect, PQerrorMessage(conn));
    }
    const auto start = Clock::now();
    PGresult* result = PQexecParams(conn, "SELECT id, content FROM blobbench_wire_bench ORDER BY id", 0, nullptr,
                                    nullptr, nullptr, nullptr, 1);
    PgResult out;
    if (PQresultStatus(result) == PGRES_TUPLES_OK) {
        for (int row = 0; row < PQntuples(result); ++row) {
            out.bytes += static_cast<std::uint64_t>(PQgetlength(result, row, 1));
        }
    } else {
        std::printf("  query failed: %s\n", PQerrorMessage(conn));
    }
    out.seconds = seconds(Clock::now() - start);
    PQclear(result);
    PQfinish(conn);
    return out;
}

std::string withHostPort(const std::string& conninfo, std::uint16_t port) {
    return conninfo + " host=127.0.0.1 hostaddr=127.0.0.1 port=" + std::to_string(port);
}

void postgres(const std::string& conninfo) {
    std::printf("== PostgreSQL binary \"read all BLOBs\", 32 x 4 MiB bytea (target tap <= 1.10x direct)\n");
    PGconn* conn = PQconnectdb(withHostPort(conninfo, 5432).c_str());
    if (PQstatus(conn) != CONNECTION_OK) {
        std::printf("  skipped: %s\n", oneLine(PQerrorMessage(conn)).c_str());
        PQfinish(conn);
        return;
    }
    PQclear(PQexec(conn,
                   "SET client_min_messages = warning;"
                   "DROP TABLE IF EXISTS blobbench_wire_bench;"
                   "CREATE TABLE blobbench_wire_bench (id int PRIMARY KEY, content bytea);"
                   "ALTER TABLE blobbench_wire_bench ALTER content SET STORAGE EXTERNAL;"
                   "INSERT INTO blobbench_wire_bench SELECT g, convert_to(repeat(md5(g::text), 131072), 'UTF8') "
                   "FROM generate_series(1, 32) g;"));
    WireTap tap("127.0.0.1", 5432);
    double direct = 0;
    double relayed = 0;
    std::uint64_t bytes = 0;
    constexpr int kRuns = 5;
    readAllBlobs(withHostPort(conninfo, 5432));  // warm the cache
    for (int run = 0; run < kRuns; ++run) {
        direct += readAllBlobs(withHostPort(conninfo, 5432)).seconds;
        const PgResult r = readAllBlobs(withHostPort(conninfo, tap.port()));
        relayed += r.seconds;
        bytes = r.bytes;
    }
    const WireCounters c = tap.snapshot();
    std::printf("  %d runs, %.1f MiB content each: direct %.4f s   through tap %.4f s   ratio %.3fx\n", kRuns,
                static_cast<double>(bytes) / (1 << 20), direct / kRuns, relayed / kRuns, relayed / direct);
    std::printf("  tap totals: up %llu bytes / %llu reads, down %llu bytes / %llu reads, round trips %llu\n",
                static_cast<unsigned long long>(c.sendBytes), static_cast<unsigned long long>(c.sendPackets),
                static_cast<unsigned long long>(c.recvBytes), static_cast<unsigned long long>(c.recvPackets),
                static_cast<unsigned long long>(c.roundTrips.value_or(0)));
    PQclear(PQexec(conn, "DROP TABLE blobbench_wire_bench"));
    PQfinish(conn);
}

}  // namespace

int main(int argc, char** argv) {
    std::string which = "all";
    std::string conninfo = "dbname=blob_test user=postgres password=postgres";
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--conninfo") == 0 && i + 1 < argc) {
            conninfo = argv[++i];
        } else {
            which = argv[i];
        }
    }
    try {
        if (which == "all" || which == "throughput") {
            throughput();
        }
        if (which == "all" || which == "bandwidth") {
            bandwidth();
        }
        if (which == "all" || which == "pingpong") {
            pingpong();
        }
        if (which == "all" || which == "cpu") {
            cpu();
        }
        if (which == "all" || which == "postgres") {
            postgres(conninfo);
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "wire_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
