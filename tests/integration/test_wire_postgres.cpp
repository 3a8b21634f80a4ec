// WireTap in front of the real PostgreSQL 15 on 127.0.0.1:5432 (scripts/services/start-postgres),
// driven through libpq directly so these tests do not depend on the driver layer. Skipped when
// the server is not reachable.
#include <libpq-fe.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "engine/wire/WireTap.h"

using namespace blobbench;
using namespace std::chrono_literals;

namespace {

const char* const kConninfo = "dbname=blob_test user=postgres password=postgres connect_timeout=10";
constexpr int kRows = 8;

std::string at(std::uint16_t port) {
    // Appended in place: gcc 12's -Warray-bounds misreads `std::string(...) + "literal"` at -O2.
    std::string conninfo(kConninfo);
    conninfo += " host=127.0.0.1 hostaddr=127.0.0.1 port=";
    conninfo += std::to_string(port);
    return conninfo;
}

using Connection = std::unique_ptr<PGconn, decltype(&PQfinish)>;
using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

Connection open(std::uint16_t port) {
    return Connection(PQconnectdb(at(port).c_str()), &PQfinish);
}

Result exec(PGconn* conn, const char* sql) {
    return Result(PQexec(conn, sql), &PQclear);
}

// Per process: ctest may run the tests of this file in parallel processes.
std::string table() {
    return "blobbench_wire_it_" + std::to_string(::getpid());
}

// Every row's content concatenated, read in binary result format.
std::string readAll(PGconn* conn, std::string* error = nullptr) {
    Result result(PQexecParams(conn, ("SELECT id, content FROM " + table() + " ORDER BY id").c_str(), 0, nullptr,
                               nullptr, nullptr, nullptr, 1),
                  &PQclear);
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) {
        if (error != nullptr) {
            *error = PQerrorMessage(conn);
        }
        return {};
    }
    std::string all;
    for (int row = 0; row < PQntuples(result.get()); ++row) {
        all.append(PQgetvalue(result.get(), row, 1), static_cast<std::size_t>(PQgetlength(result.get(), row, 1)));
    }
    return all;
}

class WirePostgres : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        Connection conn = open(5432);
        if (PQstatus(conn.get()) != CONNECTION_OK) {
            s_unavailable = PQerrorMessage(conn.get());
            return;
        }
        // About 100 KB per row of varied bytes, so a broken relay cannot pass by luck.
        const std::string setup =
            "SET client_min_messages = warning;"
            "DROP TABLE IF EXISTS " +
            table() +
            ";"
            "CREATE TABLE " +
            table() +
            " (id int PRIMARY KEY, content bytea);"
            "INSERT INTO " +
            table() +
            " SELECT g, "
            "  (SELECT string_agg(decode(md5(g::text || ':' || i::text), 'hex'), ''::bytea) "
            "   FROM generate_series(1, 6400) i) "
            "FROM generate_series(1, 8) g;";
        Result done = exec(conn.get(), setup.c_str());
        if (PQresultStatus(done.get()) != PGRES_COMMAND_OK) {
            s_unavailable = PQerrorMessage(conn.get());
            return;
        }
        s_expected = readAll(conn.get());
    }
    static void TearDownTestSuite() {
        if (s_unavailable.empty()) {
            Connection conn = open(5432);
            exec(conn.get(), ("DROP TABLE IF EXISTS " + table()).c_str());
        }
    }
    void SetUp() override {
        if (!s_unavailable.empty()) {
            GTEST_SKIP() << "PostgreSQL on 127.0.0.1:5432 not available: " << s_unavailable;
        }
    }

    static inline std::string s_unavailable;
    static inline std::string s_expected;
};

}  // namespace

TEST_F(WirePostgres, ContentPassesUnchangedAndCountsAreConsistentAcrossRepeats) {
    ASSERT_EQ(s_expected.size(), std::size_t{kRows} * 6400 * 16);
    WireTap tap("127.0.0.1", 5432);
    Connection conn = open(tap.port());
    ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
    const WireCounters connect = tap.snapshot();
    EXPECT_GT(connect.sendBytes, 0u);
    EXPECT_GT(connect.recvBytes, 0u);
    EXPECT_GE(connect.roundTrips.value_or(0), 2u);  // startup, authentication

    WireCounters phases[2];
    for (WireCounters& phase : phases) {
        const WireCounters before = tap.snapshot();
        EXPECT_EQ(readAll(conn.get()), s_expected);
        phase = tap.since(before);
    }
    for (const WireCounters& phase : phases) {
        EXPECT_GT(phase.recvBytes, s_expected.size());  // content plus protocol framing
        EXPECT_LT(phase.recvBytes, s_expected.size() + 4096);
        EXPECT_EQ(phase.roundTrips, 1u);  // simple extended-protocol query: one request, one answer
    }
    EXPECT_EQ(phases[0].sendBytes, phases[1].sendBytes);
    EXPECT_EQ(phases[0].recvBytes, phases[1].recvBytes);
    EXPECT_EQ(phases[0].roundTrips, phases[1].roundTrips);
}

TEST_F(WirePostgres, LatencyCostsOneRoundTripPerQuery) {
    WireTap tap("127.0.0.1", 5432);
    Connection conn = open(tap.port());
    ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
    tap.setLinkProfile(LinkProfile::symmetric(50ms));
    const auto start = std::chrono::steady_clock::now();
    const WireCounters before = tap.snapshot();
    for (int i = 0; i < 3; ++i) {
        exec(conn.get(), "SELECT 1");
    }
    EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
    EXPECT_EQ(tap.since(before).roundTrips, 3u);
}

TEST_F(WirePostgres, CutDuringFetchGivesAClearErrorAndNoHang) {
    WireTap tap("127.0.0.1", 5432);
    Connection conn = open(tap.port());
    ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
    FaultPlan plan;
    plan.cutDownAfter = 200'000;  // well inside the ~800 KB result
    tap.setFaults(plan);
    std::string error;
    EXPECT_EQ(readAll(conn.get(), &error), "");
    EXPECT_NE(error.find("server closed the connection unexpectedly"), std::string::npos) << error;
    EXPECT_EQ(PQstatus(conn.get()), CONNECTION_BAD);
    EXPECT_EQ(tap.stats().faultsInjected, 1u);
}

TEST_F(WirePostgres, ResetDuringConnectFailsTheConnection) {
    WireTap tap("127.0.0.1", 5432);
    FaultPlan plan;
    plan.resetOnConnect = true;
    tap.setFaults(plan);
    Connection conn = open(tap.port());
    EXPECT_EQ(PQstatus(conn.get()), CONNECTION_BAD);
    EXPECT_NE(std::string(PQerrorMessage(conn.get())), "");
}

TEST_F(WirePostgres, TapsOnSeveralSessionsAtOnceCountSeparately) {
    WireTap first("127.0.0.1", 5432);
    WireTap second("127.0.0.1", 5432);
    Connection a = open(first.port());
    Connection b = open(second.port());
    ASSERT_EQ(PQstatus(a.get()), CONNECTION_OK);
    ASSERT_EQ(PQstatus(b.get()), CONNECTION_OK);
    const WireCounters beforeB = second.snapshot();
    EXPECT_EQ(readAll(a.get()), s_expected);
    EXPECT_EQ(second.since(beforeB).recvBytes, 0u);
    EXPECT_GT(first.snapshot().recvBytes, s_expected.size());
}
