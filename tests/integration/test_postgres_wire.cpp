// Our PostgreSQL driver through the wire tap, as the Runner will use it: endpoint() and redirected()
// reach the real server through the relay, and the bytes and round trips it counts follow from what
// the driver does (prepare + describe, then one request for single-row, BEGIN/DECLARE/FETCH.../CLOSE/
// COMMIT for a cursor; hex doubles what binary sends).

#include "engine/wire/WireTap.h"
#include "test_postgres_support.h"

namespace blobbench {
namespace {

using pgtest::CollectingSink;
using pgtest::querySpec;

struct PhaseCounts {
    WireCounters prepare;
    WireCounters executeAndFetch;
};

PhaseCounts measure(Session& session, WireTap& tap, QuerySpec spec, CollectingSink& sink) {
    WireCounters marks[3];
    int next = 0;
    spec.phaseMark = [&](QueryPhase) { marks[next++] = tap.snapshot(); };
    const WireCounters start = tap.snapshot();
    session.query(spec, sink, CancelToken());
    EXPECT_EQ(next, 3);
    return {marks[0] - start, marks[2] - marks[0]};
}

TEST(PostgresThroughTheTap, CountsFollowFromTheProtocol) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const ConnectionSpec direct = pgtest::specFor(conninfo);
    const auto server = pgtest::driver().endpoint(direct);
    ASSERT_TRUE(server);
    WireTap tap(server->host, server->port);
    const ConnectionSpec relayed = pgtest::driver().redirected(direct, Endpoint{"127.0.0.1", tap.port()});

    auto setup = pgtest::connect(conninfo);
    pgtest::ScopedTable table(*setup, pgtest::tableName("wire"), "id bigint, content bytea");
    const std::uint64_t n = 1 << 20;
    {
        auto insert = setup->prepareInsert("INSERT INTO " + table.name() + " (id, content) VALUES ($1, $2)");
        for (int i = 1; i <= 4; ++i) {
            insert->bindInteger(0, i);
            insert->bindBytes(1, pgtest::randomBytes(n, static_cast<unsigned>(i)));
            insert->execute();
        }
    }
    const std::string select = "SELECT id, content FROM " + table.name() + " ORDER BY id";

    std::uint64_t binaryDown = 0;
    for (const char* format : {"binary", "text"}) {
        auto session = pgtest::driver().connect(
            relayed, resolveParameters(pgtest::driver().parameters(), {{"result_format", format}}));
        EXPECT_EQ(tap.stats().accepted, std::string(format) == "binary" ? 1U : 2U);
        CollectingSink sink;
        const PhaseCounts counts = measure(*session, tap, querySpec(select), sink);
        EXPECT_EQ(counts.prepare.roundTrips, 2U) << format;          // PQprepare, PQdescribePrepared
        EXPECT_EQ(counts.executeAndFetch.roundTrips, 1U) << format;  // one Bind/Execute/Sync, rows stream back
        EXPECT_GT(counts.executeAndFetch.recvBytes, sink.contentBytes) << format;
        EXPECT_LT(counts.executeAndFetch.recvBytes, sink.contentBytes + 4096) << format;  // framing only
        if (std::string(format) == "binary") {
            EXPECT_EQ(sink.contentBytes, 4 * n);
            binaryDown = counts.executeAndFetch.recvBytes;
        } else {
            EXPECT_EQ(sink.contentBytes, 4 * (2 + 2 * n));
            const double ratio =
                static_cast<double>(counts.executeAndFetch.recvBytes) / static_cast<double>(binaryDown);
            EXPECT_NEAR(ratio, 2.0, 0.01);
        }
    }

    // Cursor: BEGIN, DECLARE, FETCH 2, FETCH 2, FETCH 2 (empty), CLOSE, COMMIT.
    auto session = pgtest::driver().connect(
        relayed, resolveParameters(pgtest::driver().parameters(), {{"fetch_mode", "cursor"}, {"fetch_size", "2"}}));
    CollectingSink sink;
    const PhaseCounts counts = measure(*session, tap, querySpec(select), sink);
    EXPECT_EQ(sink.rows.size(), 4U);
    EXPECT_EQ(counts.executeAndFetch.roundTrips, 7U);
}

}  // namespace
}  // namespace blobbench
