// In-process counting (SocketCounter) against a packet capture of the same libpq connection to the
// real PostgreSQL: dumpcap on lo filtered to the client's own port (so other sessions on 5432 are
// not in it), tshark's TCP payload per direction and round trips (same definition) equal the
// counter's. Skipped like test_wire_capture when tshark is missing or capturing is refused, except
// under CI=true.
#include <arpa/inet.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "engine/wire/SocketCounter.h"
#include "support/CaptureSupport.h"
#include "support/PgSupport.h"
#include "support/TestSupport.h"

namespace blobbench {
namespace {

using namespace std::chrono_literals;

TEST(WireCaptureInProcess, CounterEqualsAPacketCaptureOfALibpqConnection) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    if (!test::captureToolsInstalled()) {
        if (test::ciMode()) {
            FAIL() << "dumpcap/tshark not installed: scripts/test installs Debian package tshark (BUILD_PACKAGES)";
        }
        GTEST_SKIP() << "dumpcap/tshark not installed (Debian package tshark)";
    }
    const test::PgTarget target = test::pgTarget(conninfo);
    SocketCounter counter;
    PGconn* conn = nullptr;
    {
        SocketCounter::Adopting adopting(counter, target.portNumber());
        conn = PQconnectdb(conninfo.c_str());
    }
    ASSERT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
    ASSERT_EQ(counter.socketsAdopted(), 1u);
    sockaddr_in local{};
    socklen_t length = sizeof local;
    ASSERT_EQ(::getsockname(PQsocket(conn), reinterpret_cast<sockaddr*>(&local), &length), 0);
    ASSERT_EQ(local.sin_family, AF_INET) << "the test needs an IPv4 conninfo (127.0.0.1)";

    const std::string file =
        (std::filesystem::temp_directory_path() / ("blobbench-inprocess-" + std::to_string(::getpid()) + ".pcapng"))
            .string();
    test::LoopbackCapture capture(ntohs(local.sin_port), file);
    if (!capture.running()) {
        PQfinish(conn);
        if (test::ciMode() && ::geteuid() == 0) {
            FAIL() << "cannot capture on lo as root: " << capture.output();
        }
        GTEST_SKIP() << "cannot capture on lo: " << capture.output();
    }

    const WireCounters before = counter.snapshot();
    for (int size : {1, 1000, 65536, 300000, 2000000}) {
        PGresult* r = PQexec(conn, ("SELECT repeat('x', " + std::to_string(size) + ")").c_str());
        ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(conn);
        EXPECT_EQ(PQgetlength(r, 0, 0), size);
        PQclear(r);
    }
    const WireCounters counted = counter.since(before);
    // libpcap hands packets over in blocks, on a timeout of up to a second: wait for the last one.
    std::this_thread::sleep_for(2500ms);
    capture.stop();
    PQfinish(conn);

    SCOPED_TRACE("dumpcap: " + capture.output());
    const test::CapturedCounts captured = test::analyseCapture(file, target.portNumber());
    std::filesystem::remove(file);
    EXPECT_GT(counted.recvBytes, 2'366'537u);
    EXPECT_EQ(captured.upBytes, counted.sendBytes);
    EXPECT_EQ(captured.downBytes, counted.recvBytes);
    EXPECT_EQ(captured.roundTrips, counted.roundTrips.value_or(0));
    EXPECT_EQ(counted.roundTrips, 5u);
    std::printf("capture: up %llu bytes, down %llu bytes, %llu segments sent again, %llu of another connection\n",
                static_cast<unsigned long long>(captured.upBytes), static_cast<unsigned long long>(captured.downBytes),
                static_cast<unsigned long long>(captured.retransmitted),
                static_cast<unsigned long long>(captured.foreign));
}

}  // namespace
}  // namespace blobbench
