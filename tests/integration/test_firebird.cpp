// The Firebird driver against the real Firebird server that scripts/services/start-firebird starts
// (BLOBBENCH_FB_DATABASE, BLOBBENCH_FB_USER, BLOBBENCH_FB_PASSWORD). Without them the tests skip,
// or fail when CI=true, so CI never passes by skipping.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <regex>
#include <thread>

#include "engine/core/Error.h"
#include "engine/drivers/firebird/FirebirdDriver.h"

using namespace blobbench;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// Counts what a query delivered, as the reference tool does: rows, bytes read, the largest id.
class CountingSink final : public RowSink {
public:
    void columns(const std::vector<ColumnInfo>& c) override { cols = c; }
    void integer(std::size_t column, std::int64_t value) override {
        if (column == 0) {
            maxId = std::max(maxId, value);
            first = value;
        }
    }
    void real(std::size_t, double value) override { lastReal = value; }
    void null(std::size_t) override { ++nulls; }
    void chunk(std::size_t, std::string_view bytes) override {
        contentBytes += bytes.size();
        ++chunks;
        text.append(bytes.substr(0, std::min<std::size_t>(bytes.size(), 64)));
    }
    void valueEnd(std::size_t) override { ++values; }
    void lobSkipped(std::size_t) override { ++skipped; }
    void endRow() override { rows.fetch_add(1); }

    std::vector<ColumnInfo> cols;
    std::atomic<std::uint64_t> rows{0};
    std::uint64_t contentBytes = 0, chunks = 0, values = 0, skipped = 0, nulls = 0;
    std::int64_t maxId = 0, first = 0;
    double lastReal = 0;
    std::string text;
};

QuerySpec queryOf(std::string sql) {
    QuerySpec q;
    q.sql = std::move(sql);
    return q;
}

std::string contentOfLength(std::size_t length, int seed) {
    std::string s;
    s.reserve(length + 64);
    int line = 0;
    while (s.size() < length) {
        s += "row " + std::to_string(seed) + " line " + std::to_string(line++) + ": some source text;\n";
    }
    s.resize(length);
    return s;
}

class FirebirdTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_spec.engine = "firebird";
        m_spec.target = env("BLOBBENCH_FB_DATABASE");
        m_spec.user = env("BLOBBENCH_FB_USER");
        m_spec.password = env("BLOBBENCH_FB_PASSWORD");
        if (m_spec.target.empty()) {
            if (env("CI") == "true") {
                FAIL() << "BLOBBENCH_FB_DATABASE is not set (run scripts/services/start-firebird)";
            }
            GTEST_SKIP() << "BLOBBENCH_FB_DATABASE is not set (run scripts/services/start-firebird)";
        }
    }

    std::unique_ptr<Session> connect(const ParameterValues& values = {}) const {
        return m_driver.connect(m_spec, resolveParameters(m_driver.parameters(), values));
    }

    // The error a connection attempt raises, or a test failure when it succeeds.
    Error connectError(const ConnectionSpec& spec) const {
        try {
            m_driver.connect(spec, resolveParameters(m_driver.parameters(), {}));
        } catch (const Error& e) {
            return e;
        }
        ADD_FAILURE() << "connected to " << spec.target;
        return Error(ErrorKind::Internal, "connected");
    }

    FirebirdDriver m_driver;
    ConnectionSpec m_spec;
};

TEST_F(FirebirdTest, ConnectsAndReportsVersions) {
    auto session = connect();
    const SessionInfo& info = session->info();
    EXPECT_EQ(info.engine, "firebird");
    EXPECT_TRUE(std::regex_search(info.serverVersion, std::regex(R"(V\d+\.\d+\.\d+)"))) << info.serverVersion;
    EXPECT_FALSE(info.clientVersion.empty());
    ASSERT_GE(info.versionBanner.size(), 3u);
    EXPECT_NE(info.versionBanner.front().find("(access method)"), std::string::npos);
    EXPECT_NE(info.versionBanner.back().find("on disk structure version"), std::string::npos);
    EXPECT_FALSE(info.embedded);
    EXPECT_FALSE(info.negotiated.at("protocol").empty());
    EXPECT_EQ(info.negotiated.at("network_protocol"), "TCPv4");
    EXPECT_EQ(session->dialect(), Dialect::Firebird);
}

TEST_F(FirebirdTest, WrongPasswordIsOneClearConnectError) {
    ConnectionSpec spec = m_spec;
    spec.password = "not-the-password";
    const Error e = connectError(spec);
    EXPECT_EQ(e.kind(), ErrorKind::Connect);
    EXPECT_NE(std::string(e.what()).find("password"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find("not-the-password"), std::string::npos);
}

TEST_F(FirebirdTest, MissingDatabaseIsAConnectError) {
    ConnectionSpec spec = m_spec;
    spec.target = "inet://127.0.0.1//var/tmp/blobbench-fb/does-not-exist.fdb";
    const Error e = connectError(spec);
    EXPECT_EQ(e.kind(), ErrorKind::Connect);
    EXPECT_NE(std::string(e.what()).find("does-not-exist.fdb"), std::string::npos) << e.what();
}

TEST_F(FirebirdTest, ServerNotListeningIsAConnectError) {
    ConnectionSpec spec = m_spec;
    spec.target = "inet://127.0.0.1:1//var/tmp/blobbench-fb/blob_test.fdb";
    const Error e = connectError(spec);
    EXPECT_EQ(e.kind(), ErrorKind::Connect);
    EXPECT_NE(std::string(e.what()).find("network"), std::string::npos) << e.what();
}

TEST_F(FirebirdTest, WrongCharsetIsAConnectError) {
    ConnectionSpec spec = m_spec;
    spec.charset = "NO_SUCH_CHARSET";
    const Error e = connectError(spec);
    EXPECT_EQ(e.kind(), ErrorKind::Connect);
    EXPECT_NE(std::string(e.what()).find("NO_SUCH_CHARSET"), std::string::npos) << e.what();
}

TEST_F(FirebirdTest, UnloadableClientLibraryIsOneClearError) {
    ConnectionSpec spec = m_spec;
    spec.clientLibrary = "/nonexistent/libfbclient.so.5";
    const Error e = connectError(spec);
    EXPECT_EQ(e.kind(), ErrorKind::Connect);
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot load the Firebird client library '/nonexistent/libfbclient.so.5'"), std::string::npos)
        << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);

    spec.clientLibrary = "libz.so.1";  // loads, but is no Firebird client
    const Error other = connectError(spec);
    EXPECT_NE(std::string(other.what()).find("fb_get_master_interface"), std::string::npos) << other.what();
}

TEST_F(FirebirdTest, SqlErrorCarriesTheServerText) {
    auto session = connect();
    CountingSink sink;
    try {
        session->query(queryOf("SELECT NOPE FROM RDB$DATABASE"), sink, CancelToken());
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Sql);
        EXPECT_NE(std::string(e.what()).find("NOPE"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
    // The session survives a failed statement.
    session->query(queryOf("SELECT 7 FROM RDB$DATABASE"), sink, CancelToken());
    EXPECT_EQ(sink.first, 7);
}

TEST_F(FirebirdTest, PhaseMarksComeInOrder) {
    auto session = connect();
    std::vector<QueryPhase> marks;
    std::uint64_t rowsAtExecuted = 99;
    CountingSink sink;
    QuerySpec q = queryOf("SELECT RDB$RELATION_NAME FROM RDB$RELATIONS");
    q.phaseMark = [&](QueryPhase p) {
        marks.push_back(p);
        if (p == QueryPhase::Executed) {
            rowsAtExecuted = sink.rows.load();
        }
    };
    session->query(q, sink, CancelToken());
    EXPECT_EQ(marks, (std::vector<QueryPhase>{QueryPhase::Prepared, QueryPhase::Executed, QueryPhase::Fetched}));
    EXPECT_EQ(rowsAtExecuted, 0u);
    EXPECT_GT(sink.rows.load(), 10u);
}

TEST_F(FirebirdTest, CompressionOnAndOffIsReadBack) {
    std::uint64_t bytes[2] = {};
    for (const bool on : {false, true}) {
        auto session = connect({{"wire_compression", on ? "true" : "false"}});
        const SessionInfo& info = session->info();
        EXPECT_EQ(info.negotiated.at("compression"), on ? "on" : "off");
        EXPECT_EQ(info.negotiated.at("wire_compressed"), on ? "TRUE" : "FALSE");
        const auto it = std::find_if(info.effects.begin(), info.effects.end(),
                                     [](const ParameterEffect& e) { return e.id == "wire_compression"; });
        ASSERT_NE(it, info.effects.end());
        EXPECT_TRUE(it->inEffect) << it->reason;
        EXPECT_EQ(it->actual, on ? "true" : "false");
        CountingSink sink;
        session->query(queryOf("SELECT RDB$RELATION_NAME, RDB$VIEW_SOURCE FROM RDB$RELATIONS"), sink, CancelToken());
        bytes[on] = sink.contentBytes;
    }
    EXPECT_GT(bytes[0], 0u);
    EXPECT_EQ(bytes[0], bytes[1]);
}

TEST_F(FirebirdTest, InlineBlobSizeOnThreeZeroIsReportedNotInEffect) {
    auto session = connect({{"max_inline_blob_size", "16384"}});
    const SessionInfo& info = session->info();
    if (info.serverVersion.find("V3.") == std::string::npos && info.clientVersion.find("V3.") == std::string::npos) {
        GTEST_SKIP() << "neither client nor server is 3.0";
    }
    for (const char* id : {"max_inline_blob_size", "max_blob_cache_size"}) {
        const auto it = std::find_if(info.effects.begin(), info.effects.end(),
                                     [&](const ParameterEffect& e) { return e.id == id; });
        ASSERT_NE(it, info.effects.end()) << id;
        EXPECT_FALSE(it->inEffect) << id;
        // The reason names the side that is too old (test_firebird5 covers each side alone).
        EXPECT_EQ(it->reason.rfind("not in effect (needs client and server >= 5.0.3: ", 0), 0u) << it->reason;
        EXPECT_NE(it->reason.find(" older)"), std::string::npos) << it->reason;
        EXPECT_TRUE(it->actual.empty());
    }
    QuerySpec q = queryOf("SELECT RDB$VIEW_SOURCE FROM RDB$RELATIONS");
    q.statementParameters["max_inline_blob_size"] = "0";
    CountingSink sink;
    const QueryStats stats = session->query(q, sink, CancelToken());
    ASSERT_EQ(stats.statementEffects.size(), 1u);
    EXPECT_FALSE(stats.statementEffects[0].inEffect);
    EXPECT_EQ(stats.statementEffects[0].reason.rfind("not in effect (needs client and server >= 5.0.3: ", 0), 0u)
        << stats.statementEffects[0].reason;
    // A 3.0 client has no wire counters: said so, never zeros.
    EXPECT_FALSE(stats.nativeLogical.available);
    EXPECT_FALSE(stats.nativePhysical.available);
    EXPECT_NE(stats.nativeLogical.unavailableReason.find("has no wire counters"), std::string::npos)
        << stats.nativeLogical.unavailableReason;
}

// The reference suite on a small table of our own: every query's rows, bytes and max id are what
// was inserted.
class FirebirdSuiteTest : public FirebirdTest {
protected:
    void SetUp() override {
        FirebirdTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        m_table = "BB_TEST_" + std::to_string(getpid());
        m_session = connect();
        if (m_session->tableExists(m_table)) {
            m_session->execute("DROP TABLE " + m_table);
        }
        m_session->execute("CREATE TABLE " + m_table +
                           " (ID BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, SHORT_CONTENT VARCHAR(8191), "
                           "CONTENT BLOB SUB_TYPE TEXT, SHORT_BLOB BOOLEAN)");
        ASSERT_TRUE(m_session->tableExists(m_table));
        const std::size_t lengths[] = {0, 1, 100, 8190, 8191, 8192, 20000, 77743, 3000, 65535, 65536, 12};
        m_session->begin();
        auto insert = m_session->prepareInsert("INSERT INTO " + m_table +
                                               " (SHORT_CONTENT, CONTENT, SHORT_BLOB) VALUES (?, ?, ?)");
        int seed = 0;
        for (int round = 0; round < 3; ++round) {
            for (std::size_t length : lengths) {
                const std::string content = contentOfLength(length, seed++);
                const bool isShort = length < 8191;
                if (isShort) {
                    insert->bindText(0, content);
                    m_shortRows++;
                    m_shortBytes += length;
                } else {
                    insert->bindNull(0);
                }
                insert->bindText(1, content);
                insert->bindBoolean(2, isShort);
                insert->execute();
                m_rows++;
                m_bytes += length;
                m_maxLength = std::max(m_maxLength, length);
            }
        }
        insert.reset();
        m_session->commit();
    }
    void TearDown() override {
        if (m_session) {
            m_session->execute("DROP TABLE " + m_table);
        }
    }
    std::string sql(std::string text) const { return std::regex_replace(text, std::regex("BLOB_TEST"), m_table); }

    std::string m_table;
    std::unique_ptr<Session> m_session;
    std::uint64_t m_rows = 0, m_bytes = 0, m_shortRows = 0, m_shortBytes = 0;
    std::size_t m_maxLength = 0;
};

TEST_F(FirebirdSuiteTest, EveryReferenceQueryReadsWhatWasInserted) {
    struct Case {
        const char* sql;
        FetchMode fetch;
        std::uint64_t rows, bytes;
    };
    const Case cases[] = {
        {"SELECT ID, CONTENT FROM BLOB_TEST WHERE SHORT_BLOB IS TRUE", FetchMode::Content, m_shortRows, m_shortBytes},
        {"SELECT ID, SHORT_CONTENT FROM BLOB_TEST WHERE SHORT_BLOB IS TRUE", FetchMode::Content, m_shortRows,
         m_shortBytes},
        {"SELECT ID, CONTENT FROM BLOB_TEST", FetchMode::Content, m_rows, m_bytes},
        {"SELECT BLOB_TEST.ID, CASE WHEN CHAR_LENGTH(BLOB_TEST.CONTENT) <= 8191 THEN CAST(BLOB_TEST.CONTENT AS "
         "VARCHAR(8191)) END AS SHORT_CONTENT, CASE WHEN CHAR_LENGTH(BLOB_TEST.CONTENT) > 8191 THEN CONTENT END AS "
         "CONTENT FROM BLOB_TEST",
         FetchMode::Content, m_rows, m_bytes},
        {"SELECT BLOB_TEST.ID, CASE WHEN BLOB_TEST.SHORT_BLOB IS TRUE THEN BLOB_TEST.SHORT_CONTENT END AS "
         "SHORT_CONTENT, CASE WHEN BLOB_TEST.SHORT_BLOB IS FALSE THEN BLOB_TEST.CONTENT END AS CONTENT FROM BLOB_TEST",
         FetchMode::Content, m_rows, m_bytes},
        {"SELECT ID, CONTENT FROM BLOB_TEST", FetchMode::IdsOnly, m_rows, 0},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.sql);
        CountingSink sink;
        QuerySpec q = queryOf(sql(c.sql));
        q.fetch = c.fetch;
        const QueryStats stats = m_session->query(q, sink, CancelToken());
        EXPECT_EQ(sink.rows.load(), c.rows);
        EXPECT_EQ(sink.contentBytes, c.bytes);
        EXPECT_EQ(sink.maxId, static_cast<std::int64_t>(m_rows));
        EXPECT_GT(stats.execute.count(), 0);
        if (c.fetch == FetchMode::IdsOnly) {
            EXPECT_EQ(sink.skipped, m_rows);
        }
    }
    // The warm-up query's scalar.
    CountingSink sink;
    m_session->query(queryOf(sql("SELECT MAX(CHAR_LENGTH(CONTENT)) AS MAX_CHAR_LENGTH FROM BLOB_TEST")), sink,
                     CancelToken());
    EXPECT_EQ(sink.rows.load(), 1u);
    EXPECT_EQ(sink.maxId, static_cast<std::int64_t>(m_maxLength));
    ASSERT_EQ(sink.cols.size(), 1u);
    EXPECT_EQ(sink.cols[0].name, "MAX_CHAR_LENGTH");
}

TEST_F(FirebirdSuiteTest, ColumnsAndSmallBuffersAndRowLimit) {
    CountingSink sink;
    m_session = connect({{"blob_buffer_size", "1000"}, {"empty_bpb", "false"}, {"isolation", "read_committed"}});
    QuerySpec q = queryOf(sql("SELECT ID, CONTENT FROM BLOB_TEST ORDER BY ID"));
    m_session->query(q, sink, CancelToken());
    EXPECT_EQ(sink.contentBytes, m_bytes);
    EXPECT_GE(sink.chunks, m_bytes / 1000);  // a 1000-byte buffer reads in 1000-byte pieces
    ASSERT_EQ(sink.cols.size(), 2u);
    EXPECT_EQ(sink.cols[0].kind, ColumnKind::Integer);
    EXPECT_TRUE(sink.cols[1].isLob);
    EXPECT_EQ(sink.cols[1].kind, ColumnKind::Text);

    CountingSink limited;
    q.rowLimit = 5;
    m_session->query(q, limited, CancelToken());
    EXPECT_EQ(limited.rows.load(), 5u);
    EXPECT_EQ(limited.maxId, 5);
}

TEST_F(FirebirdTest, CancelStopsALongFetch) {
    auto session = connect();
    Session* raw = session.get();
    CountingSink sink;
    std::thread canceller([&] {
        while (sink.rows.load() < 1000) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        raw->cancel();
    });
    // Tens of millions of rows: minutes if not cancelled.
    const QuerySpec q = queryOf("SELECT A.RDB$FIELD_NAME FROM RDB$FIELDS A, RDB$FIELDS B, RDB$FIELDS C");
    try {
        session->query(q, sink, CancelToken());
        ADD_FAILURE() << "the query was not cancelled";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Cancelled) << e.what();
    }
    canceller.join();
    EXPECT_LT(sink.rows.load(), 10'000'000u);
    // The session still works after a cancel.
    CountingSink after;
    session->query(queryOf("SELECT 1 FROM RDB$DATABASE"), after, CancelToken());
    EXPECT_EQ(after.first, 1);
}

TEST_F(FirebirdTest, CancelInterruptsTheServerWhileItWorks) {
    auto session = connect();
    Session* raw = session.get();
    CountingSink sink;
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        raw->cancel();
    });
    const auto start = std::chrono::steady_clock::now();
    try {
        // One row after a long server-side count: only the server can stop it.
        session->query(queryOf("SELECT COUNT(*) FROM RDB$FIELDS A, RDB$FIELDS B, RDB$FIELDS C, RDB$FIELDS D"), sink,
                       CancelToken());
        ADD_FAILURE() << "the query was not cancelled";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Cancelled) << e.what();
    }
    canceller.join();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
    CountingSink after;
    session->query(queryOf("SELECT 2 FROM RDB$DATABASE"), after, CancelToken());
    EXPECT_EQ(after.first, 2);
}

TEST_F(FirebirdTest, CancelTokenStopsBetweenRows) {
    auto session = connect();
    CancelToken token;
    class StopAfter final : public RowSink {
    public:
        explicit StopAfter(const CancelToken& t) : m_token(t) {}
        void integer(std::size_t, std::int64_t) override {}
        void null(std::size_t) override {}
        void chunk(std::size_t, std::string_view) override {}
        void endRow() override {
            if (++rows == 10) {
                m_token.cancel();
            }
        }
        int rows = 0;

    private:
        CancelToken m_token;
    } sink(token);
    try {
        session->query(queryOf("SELECT A.RDB$FIELD_NAME FROM RDB$FIELDS A, RDB$FIELDS B"), sink, token);
        ADD_FAILURE() << "not cancelled";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
    }
    EXPECT_EQ(sink.rows, 10);
}

TEST_F(FirebirdTest, LegacyConnectionStringReachesTheSameDatabase) {
    ConnectionSpec spec = m_spec;
    const std::string path = std::regex_replace(m_spec.target, std::regex(R"(^inet://[^/]+/)"), "");
    spec.target = "127.0.0.1/3050:" + path;
    auto session = m_driver.connect(spec, resolveParameters(m_driver.parameters(), {}));
    EXPECT_FALSE(session->info().embedded);
    EXPECT_TRUE(session->tableExists("RDB$DATABASE"));
    EXPECT_FALSE(session->tableExists("NO_SUCH_TABLE_X"));
}

}  // namespace
