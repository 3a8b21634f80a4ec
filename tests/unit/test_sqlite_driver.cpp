#include <gtest/gtest.h>

#include <filesystem>

#include "engine/core/Error.h"
#include "engine/data/Dataset.h"
#include "engine/drivers/Registry.h"
#include "engine/run/MeasuringSink.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::TempDir;

namespace {

// A write that may create the file, as prepare is.
std::unique_ptr<Session> open(const std::string& path, ParameterValues given = {}) {
    const Driver& d = driverById("sqlite");
    ConnectionSpec spec{"sqlite", "sqlite:" + path};
    spec.create = true;
    return d.connect(spec, resolveParameters(d.parameters(), given));
}

// Records the largest chunk so tests can prove values stream in pieces.
class ChunkSink final : public RowSink {
public:
    std::size_t largestChunk = 0;
    std::uint64_t bytes = 0, rows = 0, skipped = 0, nulls = 0;
    void integer(std::size_t, std::int64_t) override {}
    void null(std::size_t) override { ++nulls; }
    void chunk(std::size_t, std::string_view b) override {
        largestChunk = std::max(largestChunk, b.size());
        bytes += b.size();
    }
    void lobSkipped(std::size_t) override { ++skipped; }
    void endRow() override { ++rows; }
};

class SqliteDriverTest : public ::testing::Test {
protected:
    void SetUp() override {
        path = dir.file("t.sqlite");
        auto s = open(path);
        s->execute("CREATE TABLE T (ID INTEGER PRIMARY KEY, NAME VARCHAR(20), DATA BLOB)");
        auto insert = s->prepareInsert("INSERT INTO T (ID, NAME, DATA) VALUES (?, ?, ?)");
        s->begin();
        for (int i = 1; i <= 5; ++i) {
            insert->bindInteger(0, i);
            insert->bindText(1, "row" + std::to_string(i));
            if (i == 3) {
                insert->bindNull(2);
            } else {
                insert->bindBytes(2, std::string(static_cast<std::size_t>(i) * 100000, static_cast<char>('a' + i)));
            }
            insert->execute();
        }
        s->commit();
    }
    TempDir dir;
    std::string path;
};

}  // namespace

TEST_F(SqliteDriverTest, QueryCountsRowsBytesAndMaxId) {
    auto s = open(path);
    MeasuringSink sink;
    const QueryStats stats = s->query(QuerySpec{"SELECT ID, DATA FROM T"}, sink, CancelToken());
    EXPECT_EQ(sink.rows(), 5u);
    EXPECT_EQ(sink.contentBytes(), (1 + 2 + 4 + 5) * 100000u);
    EXPECT_EQ(sink.maxId(), 5);
    EXPECT_EQ(sink.valuesRead(), 4u);
    EXPECT_GT(stats.prepare.count(), 0);
    EXPECT_GT(stats.execute.count(), 0);
    EXPECT_GT(stats.fetch.count(), 0);
    EXPECT_FALSE(stats.nativeLogical.available);
    EXPECT_EQ(stats.nativeLogical.unavailableReason, "not applicable (embedded)");
}

// Hostile round 5c H2: "SELECT ... WHERE ID < 3; SELECT ... FROM T" read 2 rows and the rest of the
// SQL was dropped without a word. A second statement is refused; a trailing ';' or comment is not one.
TEST_F(SqliteDriverTest, ASecondStatementIsRefusedNotDropped) {
    auto s = open(path);
    for (const char* sql :
         {"SELECT ID FROM T WHERE ID < 3; SELECT ID, DATA FROM T", "SELECT ID FROM T; this is not sql"}) {
        MeasuringSink sink;
        try {
            s->query(QuerySpec{sql}, sink, CancelToken());
            ADD_FAILURE() << sql << ": ran";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Sql);
            EXPECT_NE(std::string(e.what()).find("more than one statement (after the first: '"), std::string::npos)
                << e.what();
        }
    }
    for (const char* sql :
         {"SELECT ID FROM T;", "SELECT ID FROM T; -- the ids\n", "SELECT ID FROM T /* all */ ;\n\n"}) {
        MeasuringSink sink;
        EXPECT_NO_THROW(s->query(QuerySpec{sql}, sink, CancelToken())) << sql;
        EXPECT_EQ(sink.rows(), 5u) << sql;
    }
}

// Hostile round 5c I3: PRAGMA query_only let "PRAGMA journal_mode = WAL" rewrite the file's header
// and "VACUUM INTO" leave an empty file. A statement SQLite says may change the file is refused; the
// file is byte for byte what it was, and a reading pragma still runs.
TEST_F(SqliteDriverTest, AStatementThatMayChangeTheFileIsRefusedInAReadingScenario) {
    auto s = open(path);
    const auto before = std::filesystem::last_write_time(path);
    const std::string bytes = test::readFile(path);
    const std::string copy = path + ".vacuumed";
    for (const std::string& sql :
         {std::string("PRAGMA journal_mode = WAL"), std::string("VACUUM"), "VACUUM INTO '" + copy + "'",
          std::string("PRAGMA user_version = 7"), std::string("ANALYZE")}) {
        MeasuringSink sink;
        try {
            s->query(QuerySpec{sql}, sink, CancelToken());
            ADD_FAILURE() << sql << ": ran";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Sql);
            EXPECT_NE(std::string(e.what()).find("may change the database file"), std::string::npos) << e.what();
        }
    }
    EXPECT_FALSE(std::filesystem::exists(copy));
    EXPECT_EQ(test::readFile(path), bytes);
    EXPECT_EQ(std::filesystem::last_write_time(path), before);
    MeasuringSink sink;
    EXPECT_NO_THROW(s->query(QuerySpec{"PRAGMA user_version"}, sink, CancelToken()));
    EXPECT_EQ(sink.rows(), 1u);
}

// Hostile round 5d E2: BEGIN (or SAVEPOINT) as a reading scenario opened a transaction the driver
// took for the caller's: PRAGMA query_only was skipped, the next scenario's DELETE ran in it, and a
// COMMIT kept it. The statement that opens one is rolled back and refused; the DELETE after it is
// refused too, and the file keeps its bytes. A transaction of the caller's (begin()) is its own.
TEST_F(SqliteDriverTest, AScenarioThatOpensATransactionIsRolledBackAndLetsNoWriteThrough) {
    auto s = open(path);
    const std::string bytes = test::readFile(path);
    for (const char* opening : {"BEGIN", "SAVEPOINT a", "BEGIN IMMEDIATE"}) {
        for (const char* sql : {opening, "DELETE FROM T WHERE ID = 2"}) {
            MeasuringSink sink;
            try {
                s->query(QuerySpec{sql}, sink, CancelToken());
                ADD_FAILURE() << sql << ": ran";
            } catch (const Error& e) {
                EXPECT_EQ(e.kind(), ErrorKind::Sql) << sql;
                const std::string what = e.what();
                const bool opened = std::string(sql) == opening;
                // BEGIN IMMEDIATE takes the write lock: refused before it runs, as SQLite says it writes.
                EXPECT_TRUE(opened ? what.find("opened one of its own, which is rolled back") != std::string::npos ||
                                         what.find("may change the database file") != std::string::npos
                                   : what.find("refused a write") != std::string::npos)
                    << sql << ": " << e.what();
            }
        }
        MeasuringSink sink;  // no transaction is left to commit: SQLite says so
        EXPECT_THROW(s->query(QuerySpec{"COMMIT"}, sink, CancelToken()), Error);
    }
    EXPECT_EQ(test::readFile(path), bytes);
    // The caller's own transaction: its reads run in it, and what it writes is its own.
    s->begin();
    MeasuringSink sink;
    EXPECT_NO_THROW(s->query(QuerySpec{"SELECT ID FROM T"}, sink, CancelToken()));
    s->execute("DELETE FROM T WHERE ID = 2");
    s->rollback();
    EXPECT_EQ(test::readFile(path), bytes);
}

TEST_F(SqliteDriverTest, BlobApiStreamsInChunksAndCountsTheSame) {
    auto s = open(path, {{"blob_api", "true"}});
    ChunkSink sink;
    const QueryStats stats = s->query(QuerySpec{"SELECT ID, DATA FROM T"}, sink, CancelToken());
    EXPECT_EQ(sink.rows, 5u);
    EXPECT_EQ(sink.bytes, (1 + 2 + 4 + 5) * 100000u);
    EXPECT_EQ(sink.nulls, 1u);
    EXPECT_LE(sink.largestChunk, 64u * 1024u) << "a value must never be handed over whole";
    ASSERT_EQ(stats.statementEffects.size(), 1u);
    EXPECT_TRUE(stats.statementEffects[0].inEffect);
}

TEST_F(SqliteDriverTest, BlobApiWithoutRowidIsReportedNotInEffect) {
    auto s = open(path, {{"blob_api", "true"}});
    MeasuringSink sink;
    const QueryStats stats = s->query(QuerySpec{"SELECT DATA FROM T"}, sink, CancelToken());
    EXPECT_EQ(sink.contentBytes(), 1200000u);
    ASSERT_EQ(stats.statementEffects.size(), 1u);
    EXPECT_FALSE(stats.statementEffects[0].inEffect);
    EXPECT_NE(stats.statementEffects[0].reason.find("INTEGER PRIMARY KEY"), std::string::npos);
}

TEST_F(SqliteDriverTest, IdsOnlyLeavesValuesUnread) {
    auto s = open(path);
    ChunkSink sink;
    s->query(QuerySpec{"SELECT ID, DATA FROM T", FetchMode::IdsOnly}, sink, CancelToken());
    EXPECT_EQ(sink.rows, 5u);
    EXPECT_EQ(sink.bytes, 0u);
    EXPECT_EQ(sink.skipped, 4u);
    EXPECT_EQ(sink.nulls, 1u);
}

TEST_F(SqliteDriverTest, RowLimitStopsTheFetch) {
    auto s = open(path);
    MeasuringSink sink;
    QuerySpec q{"SELECT ID, DATA FROM T ORDER BY ID"};
    q.rowLimit = 2;
    s->query(q, sink, CancelToken());
    EXPECT_EQ(sink.rows(), 2u);
    EXPECT_EQ(sink.contentBytes(), 300000u);
}

TEST_F(SqliteDriverTest, CancelledTokenStopsTheFetch) {
    auto s = open(path);
    MeasuringSink sink;
    CancelToken cancel;
    cancel.cancel();
    try {
        s->query(QuerySpec{"SELECT ID, DATA FROM T"}, sink, cancel);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
    }
}

TEST_F(SqliteDriverTest, SqlErrorNamesTheProblem) {
    auto s = open(path);
    MeasuringSink sink;
    try {
        s->query(QuerySpec{"SELECT NOPE FROM T"}, sink, CancelToken());
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Sql);
        EXPECT_NE(std::string(e.what()).find("NOPE"), std::string::npos) << e.what();
    }
}

TEST_F(SqliteDriverTest, TunablesAreReadBack) {
    auto s = open(dir.file("new.sqlite"), {{"page_size", "8192"}, {"journal_mode", "wal"}, {"synchronous", "normal"}});
    const auto& effects = s->info().effects;
    auto find = [&](const std::string& id) {
        for (const auto& e : effects) {
            if (e.id == id) {
                return e;
            }
        }
        return ParameterEffect{};
    };
    EXPECT_EQ(find("page_size").actual, "8192");
    EXPECT_TRUE(find("page_size").inEffect);
    EXPECT_EQ(find("journal_mode").actual, "wal");
    EXPECT_EQ(find("synchronous").actual, "normal");
    // An existing database keeps its page size: reported, not faked.
    auto again = open(path, {{"page_size", "65536"}});
    for (const auto& e : again->info().effects) {
        if (e.id == "page_size") {
            EXPECT_FALSE(e.inEffect);
            EXPECT_EQ(e.actual, "4096");
        }
    }
}

// Hostile round 5d E4: a plain reading run switched a WAL file to journal_mode=delete (the
// default), rewriting its header, and nothing said so. The file stays WAL; the tunable is said
// not in effect, with how to switch it.
TEST_F(SqliteDriverTest, AWalFileIsLeftInWalModeAndTheDefaultSaidNotInEffect) {
    const std::string file = dir.file("wal.sqlite");
    open(file, {{"journal_mode", "wal"}})->execute("CREATE TABLE w (x INTEGER)");
    auto headerModes = [&] { return test::readFile(file).substr(18, 2); };  // 2, 2: WAL; 1, 1: rollback
    ASSERT_EQ(headerModes(), std::string("\x02\x02", 2));
    {
        auto s = open(file);
        MeasuringSink sink;
        s->query(QuerySpec{"SELECT count(*) FROM w"}, sink, CancelToken());
        bool seen = false;
        for (const auto& e : s->info().effects) {
            if (e.id == "journal_mode") {
                seen = true;
                EXPECT_EQ(e.actual, "wal");
                EXPECT_FALSE(e.inEffect);
                EXPECT_NE(e.reason.find("the file is in WAL mode and is left so"), std::string::npos) << e.reason;
            }
        }
        EXPECT_TRUE(seen);
    }
    EXPECT_EQ(headerModes(), std::string("\x02\x02", 2));
}

// Round 5e E2: the reverse, journal_mode=wal asked of a rollback-journal file, switched it to WAL for
// good under a reading run, unsaid. The file keeps its mode; the tunable is said not in effect, with how
// to switch it. A new file takes WAL.
TEST_F(SqliteDriverTest, ARollbackJournalFileIsNotSwitchedToWalByARun) {
    const std::string file = dir.file("delete.sqlite");
    open(file)->execute("CREATE TABLE d (x INTEGER)");
    auto headerModes = [&] { return test::readFile(file).substr(18, 2); };
    ASSERT_EQ(headerModes(), std::string("\x01\x01", 2));
    {
        auto s = open(file, {{"journal_mode", "wal"}});
        MeasuringSink sink;
        s->query(QuerySpec{"SELECT count(*) FROM d"}, sink, CancelToken());
        bool seen = false;
        for (const auto& e : s->info().effects) {
            if (e.id == "journal_mode") {
                seen = true;
                EXPECT_EQ(e.actual, "delete");
                EXPECT_FALSE(e.inEffect);
                EXPECT_NE(e.reason.find("switching to WAL would rewrite it"), std::string::npos) << e.reason;
            }
        }
        EXPECT_TRUE(seen);
    }
    EXPECT_EQ(headerModes(), std::string("\x01\x01", 2));
    const std::string fresh = dir.file("fresh.sqlite");
    open(fresh, {{"journal_mode", "wal"}})->execute("CREATE TABLE f (x INTEGER)");
    EXPECT_EQ(test::readFile(fresh).substr(18, 2), std::string("\x02\x02", 2));
}

TEST(SqliteParameters, BadValuesAreRefusedWithTheirName) {
    const Driver& d = driverById("sqlite");
    for (const auto& [id, value] : std::vector<std::pair<std::string, std::string>>{{"page_size", "1000"},
                                                                                    {"page_size", "big"},
                                                                                    {"journal_mode", "sometimes"},
                                                                                    {"blob_api", "maybe"},
                                                                                    {"mmap_size", "-1"},
                                                                                    {"no_such_knob", "1"}}) {
        try {
            resolveParameters(d.parameters(), {{id, value}});
            ADD_FAILURE() << id << "=" << value << " accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find(id), std::string::npos) << e.what();
        }
    }
    const auto ok = resolveParameters(d.parameters(), {{"blob_api", "on"}, {"journal_mode", "WAL"}});
    EXPECT_EQ(ok.at("blob_api"), "true");
    EXPECT_EQ(ok.at("journal_mode"), "wal");
    EXPECT_EQ(ok.at("page_size"), "4096");
}

// A mistyped path once became an empty database that the run then found no data set in.
TEST(SqliteOpen, AMissingFileIsNeverCreatedByARead) {
    TempDir dir;
    const Driver& d = driverById("sqlite");
    const std::string path = dir.file("mistyped.sqlite");
    try {
        d.connect(ConnectionSpec{"sqlite", "sqlite:" + path}, resolveParameters(d.parameters(), {}));
        ADD_FAILURE() << path << " opened";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_TRUE(what.starts_with("sqlite:" + path + ": connect: no such database file")) << what;
        EXPECT_NE(what.find("blobbench-cli prepare sqlite:" + path), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
    ConnectionSpec write{"sqlite", "sqlite:" + path};
    write.create = true;
    d.connect(write, resolveParameters(d.parameters(), {}));
    EXPECT_TRUE(std::filesystem::exists(path));
}

TEST(SqliteOpen, BadFilesGiveOneClearError) {
    TempDir dir;
    const Driver& d = driverById("sqlite");
    const auto defaults = resolveParameters(d.parameters(), {});
    auto expectError = [&](const std::string& target, ParameterValues values, const std::string& fragment) {
        try {
            d.connect(ConnectionSpec{"sqlite", target}, values);
            ADD_FAILURE() << target << " opened";
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(fragment), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
    };
    expectError("sqlite:" + dir.path().string(), defaults, "is a directory");
    auto ro = defaults;
    ro["mode"] = "read-only";
    expectError("sqlite:" + dir.file("missing.sqlite"), ro, "does not exist");
    blobbench::test::writeFile(dir.path() / "corrupt.sqlite", std::string(8192, 'x'));
    expectError("sqlite:" + dir.file("corrupt.sqlite"), defaults, "not a database");
}

TEST(Registry, PicksTheEngineFromTheTarget) {
    EXPECT_EQ(driverForTarget("sqlite:/tmp/x").id(), "sqlite");
    EXPECT_EQ(driverForTarget("/tmp/blob.db").id(), "sqlite");
    EXPECT_THROW(driverById("oracle"), Error);
    try {
        driverForTarget("what-is-this");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
    }
}

TEST(Secrets, MaskedInLabels) {
    EXPECT_EQ(maskSecrets("host=x password=secret user=u"), "host=x password=*** user=u");
    EXPECT_EQ(maskSecrets("postgresql://u:secret@h:5432/db"), "postgresql://u:***@h:5432/db");
    EXPECT_EQ(maskSecrets("postgresql://h/db?password=secret&x=1"), "postgresql://h/db?password=***&x=1");
    ConnectionSpec spec{"postgres", "postgresql://u:pw@h/db"};
    spec.password = "pw";
    EXPECT_EQ(spec.label().find("pw@"), std::string::npos);
}

TEST_F(SqliteDriverTest, PhaseMarksComeInOrder) {
    auto s = open(path);
    MeasuringSink sink;
    std::vector<QueryPhase> marks;
    QuerySpec q{"SELECT ID, DATA FROM T"};
    q.phaseMark = [&](QueryPhase p) { marks.push_back(p); };
    s->query(q, sink, CancelToken());
    EXPECT_EQ(marks, (std::vector<QueryPhase>{QueryPhase::Prepared, QueryPhase::Executed, QueryPhase::Fetched}));
}
