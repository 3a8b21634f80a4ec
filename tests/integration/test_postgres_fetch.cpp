// Reading from the real PostgreSQL 15: content bytes follow from the protocol (binary = n, hex = 2 + 2n,
// escape = 1 or 4 per byte), every fetch mode gives the same rows, ids-only, large objects, cancel.

#include <atomic>
#include <chrono>
#include <thread>

#include "test_postgres_support.h"

namespace blobbench {
namespace {

using pgtest::CollectingSink;
using pgtest::connect;
using pgtest::errorOf;
using pgtest::findEffect;
using pgtest::querySpec;

// What the test table holds, by id: NULL, empty, one byte, every byte value, a 1 MiB random value.
std::vector<std::optional<std::string>> sampleValues() {
    std::string everyByte;
    for (int i = 0; i < 256; ++i) {
        everyByte.push_back(static_cast<char>(i));
    }
    return {std::nullopt,
            std::string(),
            std::string("\x7f", 1),
            everyByte,
            pgtest::randomBytes(100'000, 7),
            pgtest::randomBytes(1 << 20, 11),
            std::string("plain text with a \\ backslash")};
}

std::uint64_t escapeLength(const std::string& bytes) {
    std::uint64_t length = 0;
    for (unsigned char c : bytes) {
        length += c == '\\' ? 2 : (c >= 0x20 && c <= 0x7e) ? 1 : 4;
    }
    return length;
}

class PostgresFetch : public ::testing::Test {
protected:
    void SetUp() override {
        BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
        m_conninfo = conninfo;
        m_setup = connect(m_conninfo);
        m_table = std::make_unique<pgtest::ScopedTable>(*m_setup, pgtest::tableName("fetch"),
                                                        "id bigint PRIMARY KEY, content bytea");
        auto insert = m_setup->prepareInsert("INSERT INTO " + table() + " (id, content) VALUES ($1, $2)");
        const auto values = sampleValues();
        for (std::size_t i = 0; i < values.size(); ++i) {
            insert->bindInteger(0, static_cast<std::int64_t>(i + 1));
            if (values[i]) {
                insert->bindBytes(1, *values[i]);
            } else {
                insert->bindNull(1);
            }
            insert->execute();
        }
    }
    void TearDown() override { m_table.reset(); }

    const std::string& table() const { return m_table->name(); }
    std::string selectAll() const { return "SELECT id, content FROM " + table() + " ORDER BY id"; }

    std::string m_conninfo;
    std::unique_ptr<Session> m_setup;
    std::unique_ptr<pgtest::ScopedTable> m_table;
};

TEST_F(PostgresFetch, BinaryCountsRawBytes) {
    auto session = connect(m_conninfo, {{"result_format", "binary"}});
    CollectingSink sink;
    auto stats = session->query(querySpec(selectAll()), sink, CancelToken());
    const auto values = sampleValues();
    ASSERT_EQ(sink.rows.size(), values.size());
    std::uint64_t expected = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        EXPECT_EQ(sink.rows[i].values[0], std::to_string(i + 1));
        EXPECT_EQ(sink.rows[i].values[1], values[i]) << "row " << i + 1;
        expected += values[i] ? values[i]->size() : 0;
    }
    EXPECT_EQ(sink.contentBytes, expected);
    EXPECT_EQ(sink.columnInfo().at(1).kind, ColumnKind::Binary);
    EXPECT_FALSE(stats.nativeLogical.available);
    EXPECT_EQ(stats.nativeLogical.unavailableReason, "libpq has no wire counters; use the wire tap");
    EXPECT_EQ(findEffect(stats.statementEffects, "bytea_decoded_bytes"), nullptr);
}

TEST_F(PostgresFetch, HexTextIsTwoPlusTwicePerValue) {
    auto session = connect(m_conninfo, {{"result_format", "text"}, {"bytea_output", "hex"}});
    CollectingSink sink;
    auto stats = session->query(querySpec(selectAll()), sink, CancelToken());
    std::uint64_t expected = 0;
    std::uint64_t decoded = 0;
    for (const auto& value : sampleValues()) {
        expected += value ? 2 + 2 * value->size() : 0;
        decoded += value ? value->size() : 0;
    }
    EXPECT_EQ(sink.contentBytes, expected);
    EXPECT_EQ(sink.rows.at(2).values[1], std::string("\\x7f"));
    const auto* effect = findEffect(stats.statementEffects, "bytea_decoded_bytes");
    ASSERT_NE(effect, nullptr);
    EXPECT_EQ(effect->actual, std::to_string(decoded));
    // incompressible bytes: hex doubles them (the 1 MiB value dominates)
    const double ratio = static_cast<double>(sink.contentBytes) / static_cast<double>(decoded);
    EXPECT_NEAR(ratio, 2.0, 0.02);
}

TEST_F(PostgresFetch, EscapeTextIsOneOrFourPerByte) {
    auto session = connect(m_conninfo, {{"result_format", "text"}, {"bytea_output", "escape"}});
    CollectingSink sink;
    auto stats = session->query(querySpec(selectAll()), sink, CancelToken());
    std::uint64_t expected = 0;
    std::uint64_t decoded = 0;
    for (const auto& value : sampleValues()) {
        expected += value ? escapeLength(*value) : 0;
        decoded += value ? value->size() : 0;
    }
    EXPECT_EQ(sink.contentBytes, expected);
    EXPECT_EQ(findEffect(stats.statementEffects, "bytea_decoded_bytes")->actual, std::to_string(decoded));
    // uniform random bytes: 94/256 stay one byte, 1/256 (backslash) two, the rest four: about 2.89x
    const std::string random = pgtest::randomBytes(1 << 20, 11);
    const double ratio = static_cast<double>(escapeLength(random)) / static_cast<double>(random.size());
    EXPECT_NEAR(ratio, (94.0 + 2.0 + 4.0 * 161.0) / 256.0, 0.0289);
}

TEST_F(PostgresFetch, DecodedTextByteaIsByteExact) {
    for (const char* output : {"hex", "escape"}) {
        auto session = connect(m_conninfo, {{"bytea_output", output}, {"decode_text_bytea", "true"}});
        CollectingSink sink;
        session->query(querySpec(selectAll()), sink, CancelToken());
        const auto values = sampleValues();
        ASSERT_EQ(sink.rows.size(), values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            EXPECT_EQ(sink.rows[i].values[1], values[i]) << output << " row " << i + 1;
        }
    }
}

TEST_F(PostgresFetch, EveryFetchModeGivesTheSameRowsAndBytes) {
    for (const char* format : {"text", "binary"}) {
        std::vector<CollectingSink> sinks(3);
        const char* modes[] = {"whole", "single_row", "cursor"};
        auto session = connect(m_conninfo, {{"result_format", format}});
        for (int m = 0; m < 3; ++m) {
            auto stats = session->query(
                querySpec(selectAll(), FetchMode::Content, {{"fetch_mode", modes[m]}, {"fetch_size", "2"}}),
                sinks[static_cast<std::size_t>(m)], CancelToken());
            EXPECT_EQ(findEffect(stats.statementEffects, "fetch_mode")->actual, modes[m]);
        }
        for (int m = 1; m < 3; ++m) {
            const auto& sink = sinks[static_cast<std::size_t>(m)];
            EXPECT_EQ(sink.contentBytes, sinks[0].contentBytes) << format << " " << modes[m];
            ASSERT_EQ(sink.rows.size(), sinks[0].rows.size()) << format << " " << modes[m];
            for (std::size_t r = 0; r < sink.rows.size(); ++r) {
                EXPECT_EQ(sink.rows[r].values, sinks[0].rows[r].values) << format << " " << modes[m] << " " << r;
            }
        }
        // values arrive in pieces: the 1 MiB value alone is more than one chunk
        EXPECT_GT(sinks[1].chunks, sinks[1].valuesRead);
    }
}

TEST_F(PostgresFetch, PhaseMarksComeInOrderInEveryMode) {
    auto session = connect(m_conninfo);
    for (const char* mode : {"whole", "single_row", "cursor"}) {
        std::vector<QueryPhase> marks;
        QuerySpec spec = querySpec(selectAll(), FetchMode::Content, {{"fetch_mode", mode}});
        spec.phaseMark = [&](QueryPhase phase) { marks.push_back(phase); };
        CollectingSink sink;
        sink.onRow = [&](std::size_t) { EXPECT_EQ(marks.size(), 2U) << mode << ": rows arrive between marks"; };
        session->query(spec, sink, CancelToken());
        EXPECT_EQ(marks, (std::vector<QueryPhase>{QueryPhase::Prepared, QueryPhase::Executed, QueryPhase::Fetched}))
            << mode;
    }
}

TEST_F(PostgresFetch, RowLimitStopsEveryMode) {
    auto session = connect(m_conninfo);
    for (const char* mode : {"whole", "single_row", "cursor"}) {
        CollectingSink sink;
        session->query(querySpec(selectAll(), FetchMode::Content, {{"fetch_mode", mode}, {"fetch_size", "2"}}, 3), sink,
                       CancelToken());
        EXPECT_EQ(sink.rows.size(), 3U) << mode;
        // the session is usable afterwards
        CollectingSink after;
        session->query(querySpec("SELECT 42"), after, CancelToken());
        EXPECT_EQ(after.rows.at(0).values.at(0), std::string("42")) << mode;
    }
}

TEST_F(PostgresFetch, IdsOnlySaysByteaTravelsWithTheRow) {
    auto session = connect(m_conninfo, {{"result_format", "binary"}});
    CollectingSink sink;
    auto stats = session->query(querySpec(selectAll(), FetchMode::IdsOnly), sink, CancelToken());
    const auto* effect = findEffect(stats.statementEffects, "ids_only");
    ASSERT_NE(effect, nullptr);
    EXPECT_FALSE(effect->inEffect);
    EXPECT_EQ(sink.skipped, 0U);
    EXPECT_GT(sink.contentBytes, 1U << 20);  // received anyway, so counted
}

TEST_F(PostgresFetch, ErrorsAreOneLineAndLeaveTheSessionUsable) {
    auto session = connect(m_conninfo);
    CollectingSink sink;
    auto error = errorOf([&] { session->query(querySpec("SELECT nope FROM " + table()), sink, CancelToken()); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), ErrorKind::Sql);
    EXPECT_NE(std::string(error->what()).find("column \"nope\" does not exist"), std::string::npos) << error->what();
    EXPECT_EQ(std::string(error->what()).find('\n'), std::string::npos);
    EXPECT_EQ(std::string(error->what()).find(":postgres@"), std::string::npos) << error->what();
    session->execute("SELECT 1");
    // a failure in the middle of a stream: division by zero on the fourth row
    for (const char* mode : {"single_row", "cursor", "whole"}) {
        CollectingSink partial;
        auto late = errorOf([&] {
            session->query(querySpec("SELECT 10 / (4 - i) FROM generate_series(1, 10) i", FetchMode::Content,
                                     {{"fetch_mode", mode}, {"fetch_size", "1"}}),
                           partial, CancelToken());
        });
        ASSERT_TRUE(late);
        EXPECT_EQ(late->kind(), ErrorKind::Sql) << mode;
        EXPECT_NE(std::string(late->what()).find("division by zero"), std::string::npos) << late->what();
        session->execute("SELECT 1");
    }
}

TEST_F(PostgresFetch, StatementTimeoutIsAnSqlErrorNotACancel) {
    auto session = connect(m_conninfo, {{"statement_timeout", "200"}});
    CollectingSink sink;
    auto error = errorOf([&] { session->query(querySpec("SELECT pg_sleep(5)"), sink, CancelToken()); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), ErrorKind::Sql);
    EXPECT_NE(std::string(error->what()).find("statement timeout"), std::string::npos) << error->what();
}

// A long fetch: rows arrive one by one, 2 ms apart, for minutes unless cancelled.
const char* SlowRows = "SELECT i, pg_sleep(0.002)::text FROM generate_series(1, 100000) i";

TEST_F(PostgresFetch, CancelFromAnotherThreadDuringALongFetch) {
    for (const char* mode : {"single_row", "cursor", "whole"}) {
        auto session = connect(m_conninfo, {{"fetch_mode", mode}, {"fetch_size", "10"}});
        CollectingSink sink;
        std::thread canceller;
        std::atomic<bool> started{false};
        auto startCanceller = [&] {
            if (!started.exchange(true)) {
                canceller = std::thread([&] {
                    std::this_thread::sleep_for(std::chrono::milliseconds(100));
                    session->cancel();
                });
            }
        };
        sink.onRow = [&](std::size_t rows) {
            if (rows == 5) {
                startCanceller();
            }
        };
        if (std::string(mode) == "whole") {
            startCanceller();  // no row arrives before the whole result: cancel while executing
        }
        const auto begun = std::chrono::steady_clock::now();
        auto error = errorOf([&] { session->query(querySpec(SlowRows), sink, CancelToken()); });
        canceller.join();
        ASSERT_TRUE(error) << mode;
        EXPECT_EQ(error->kind(), ErrorKind::Cancelled) << mode << ": " << error->what();
        EXPECT_LT(sink.rows.size(), 100000U) << mode;
        // Behaviour, not speed: it stopped long before the 200 s the query would take.
        EXPECT_LT(std::chrono::steady_clock::now() - begun, std::chrono::seconds(60)) << mode;
        CollectingSink after;
        session->query(querySpec("SELECT 7"), after, CancelToken());
        EXPECT_EQ(after.rows.at(0).values.at(0), std::string("7")) << mode;
    }
}

TEST_F(PostgresFetch, CancelTokenStopsTheFetch) {
    for (const char* mode : {"single_row", "cursor"}) {
        auto session = connect(m_conninfo, {{"fetch_mode", mode}});
        CollectingSink sink;
        CancelToken token;
        sink.onRow = [&](std::size_t rows) {
            if (rows == 3) {
                token.cancel();
            }
        };
        auto error = errorOf([&] { session->query(querySpec(SlowRows), sink, token); });
        ASSERT_TRUE(error);
        EXPECT_EQ(error->kind(), ErrorKind::Cancelled) << mode;
        EXPECT_EQ(sink.rows.size(), 3U) << mode;
        CollectingSink after;
        session->query(querySpec("SELECT 8"), after, CancelToken());
        EXPECT_EQ(after.rows.at(0).values.at(0), std::string("8")) << mode;
    }
}

TEST_F(PostgresFetch, ServerGoneMidFetchIsOneClearLine) {
    for (const char* mode : {"single_row", "cursor"}) {
        auto session = connect(m_conninfo, {{"fetch_mode", mode}, {"fetch_size", "10"}});
        const std::string pid = session->info().negotiated.at("backend_pid");
        CollectingSink sink;
        sink.onRow = [&](std::size_t rows) {
            if (rows == 5) {
                m_setup->execute("SELECT pg_terminate_backend(" + pid + ")");
            }
        };
        auto error = errorOf([&] { session->query(querySpec(SlowRows), sink, CancelToken()); });
        ASSERT_TRUE(error) << mode;
        // A lost connection, not an SQL error: the Runner ends the run instead of sending every
        // later scenario to the dead session (#21).
        EXPECT_EQ(error->kind(), ErrorKind::Connect) << mode;
        const std::string message = error->what();
        EXPECT_NE(message.find("terminat"), std::string::npos) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        // the dead session fails again, cleanly, instead of hanging or crashing
        CollectingSink after;
        EXPECT_TRUE(errorOf([&] { session->query(querySpec("SELECT 1"), after, CancelToken()); })) << mode;
    }
}

TEST(PostgresLargeObjects, WrittenWithLoWriteReadWithLoRead) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto session = connect(conninfo, {{"lo_chunk_size", "8192"}});
    pgtest::ScopedTable table(*session, pgtest::tableName("lo"), "id bigint PRIMARY KEY, content oid");
    const std::vector<std::optional<std::string>> values = {std::nullopt, std::string(), std::string("x"),
                                                            pgtest::randomBytes(1 << 20, 3)};
    {
        auto insert = session->prepareInsert("INSERT INTO " + table.name() + " (id, content) VALUES ($1, $2)");
        for (std::size_t i = 0; i < values.size(); ++i) {
            insert->bindInteger(0, static_cast<std::int64_t>(i + 1));
            values[i] ? insert->bindBytes(1, *values[i]) : insert->bindNull(1);
            insert->execute();
        }
    }
    const std::string select = "SELECT id, content FROM " + table.name() + " ORDER BY id";
    for (const char* mode : {"single_row", "cursor", "whole"}) {
        CollectingSink sink;
        auto stats = session->query(querySpec(select, FetchMode::Content, {{"fetch_mode", mode}}), sink, CancelToken());
        ASSERT_EQ(sink.rows.size(), values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            EXPECT_EQ(sink.rows[i].values[1], values[i]) << mode << " row " << i + 1;
        }
        EXPECT_EQ(sink.contentBytes, 1U + (1U << 20));
        EXPECT_TRUE(sink.columnInfo().at(1).isLob);
        const auto* effect = findEffect(stats.statementEffects, "fetch_mode");
        if (std::string(mode) == "single_row") {
            EXPECT_EQ(effect->actual, "cursor");
            EXPECT_FALSE(effect->inEffect);
        }
    }
    CollectingSink idsOnly;
    session->query(querySpec(select, FetchMode::IdsOnly), idsOnly, CancelToken());
    EXPECT_EQ(idsOnly.rows.size(), values.size());
    EXPECT_EQ(idsOnly.skipped, 3U);
    EXPECT_EQ(idsOnly.contentBytes, 0U);
    session->execute("SELECT lo_unlink(content) FROM " + table.name() + " WHERE content IS NOT NULL");
}

}  // namespace
}  // namespace blobbench
