// Issue #29 (hostile round 5), on SQLite and a FIFO (no server): a signal before the run started,
// repeated single-valued options, control characters in titles and paths, and a scenario that
// writes (run read-only). The PostgreSQL and Firebird side: tests/integration/test_read_only_scenarios.cpp.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/drivers/ReadOnly.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

long lines(const std::string& text) {
    return std::count(text.begin(), text.end(), '\n');
}

// The lines that say something went wrong (a project run also says which data set it read).
long errorLines(const std::string& text) {
    long n = 0;
    for (std::size_t at = 0; (at = text.find("blobbench-cli: ", at)) != std::string::npos; ++at) {
        n += at == 0 || text[at - 1] == '\n';
    }
    return n;
}

// Waits until the process has the FIFO open for reading (an O_NONBLOCK writer then succeeds), and
// holds the write end: the reader stays blocked in read(2) until the writer closes.
int holdFifo(const std::string& fifo, CliProcess& run) {
    for (int i = 0; i < 2000 && run.running(); ++i) {
        const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            return fd;
        }
        std::this_thread::sleep_for(10ms);
    }
    return -1;
}

// A prepared SQLite data set and a project on it whose only scenario is `sql`, titled `title`.
struct OneScenarioProject {
    TempDir dir;
    std::string db = dir.file("ref.sqlite");
    std::string path;

    OneScenarioProject(const std::string& title, const std::string& sql, const std::string& name = "p.blobbench.json")
        : path(dir.file(name)) {
        const auto r = runCli({"prepare", "sqlite:" + db, "--rows", "20", "-q"});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        Project p = defaultProject(q(db));
        for (auto& s : p.scenarios) {
            s.enabled = false;
        }
        ScenarioDef def;
        def.id = QStringLiteral("mine");
        def.title = q(title);
        def.sql = q(sql);
        p.scenarios.push_back(def);
        saveProject(q(path), p);
    }
};

}  // namespace

// Item 2: libpq opened a FIFO named by PGSERVICEFILE and blocked there; the first SIGTERM only asked
// a run that had not started to stop, so the process waited for ever. Before the run starts a
// signal ends the process at once (one line, 128 + the signal), as psql does.
TEST(Round5Cli, SignalWhileReadingAFifoServiceFileEndsAtOnce) {
    for (const bool prepare : {false, true}) {
        TempDir dir;
        const std::string fifo = dir.file("service.fifo");
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
        const std::vector<std::string> args =
            prepare
                ? std::vector<std::string>{"prepare", "service=x dbname=y", "-e", "postgres", "-q"}
                : std::vector<std::string>{"run", "service=x dbname=y", "--engine", "postgres", "-s", "warm-up", "-q"};
        CliProcess run(args, {"PGSERVICEFILE=" + fifo});
        const int writer = holdFifo(fifo, run);
        ASSERT_GE(writer, 0) << "never opened the FIFO: " << run.wait(1s).err;
        std::this_thread::sleep_for(200ms);  // in read(2) now
        run.signal(SIGTERM);
        const auto r = run.wait(20s);
        ::close(writer);
        EXPECT_EQ(r.exitCode, 143) << "-1: still blocked after 20 s; " << r.err;
        EXPECT_EQ(r.killedBy, 0) << "ended by the default action, without a word";
        const std::string line = prepare ? "blobbench-cli: SIGTERM: prepare postgres:service=x dbname=y was cancelled; "
                                         : "blobbench-cli: SIGTERM: the run on postgres:service=x dbname=y was "
                                           "cancelled; it had not started";
        EXPECT_TRUE(r.err.starts_with(line)) << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
    }
}

// Item 2, the other half: a signal once the run is under way still cancels it gracefully.
TEST(Round5Cli, SignalDuringAPlainRunStillKeepsItsSamples) {
    TempDir dir;
    const std::string db = dir.file("ref.sqlite");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + db, "--rows", "2000", "-q"}).exitCode, 0);
    const std::string json = dir.file("s.json");
    CliProcess run({"run", "sqlite:" + db, "-r", "1000", "--json", json, "-q"});
    for (int i = 0; i < 6000 && !std::filesystem::exists(json) && run.running(); ++i) {
        std::this_thread::sleep_for(10ms);
    }
    ASSERT_TRUE(std::filesystem::exists(json)) << run.wait(1s).err;
    run.signal(SIGINT);
    const auto r = run.wait(120s);
    ASSERT_EQ(r.exitCode, 130) << r.err;
    EXPECT_NE(r.err.find("blobbench-cli: SIGINT: the run was cancelled"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("everything measured is written"), std::string::npos) << r.err;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(blobbench::test::readFile(json)));
    EXPECT_GE(doc.object().value(QStringLiteral("samples")).toArray().size(), 1)
        << blobbench::test::readFile(json).substr(0, 300);
}

// Item 10: a repeated single-valued option kept only its last value, exit 0 (--json a --json b
// wrote b alone). Refused in one line that names the option, before anything is written.
TEST(Round5Cli, RepeatedSingleValuedOptionIsRefused) {
    TempDir dir;
    const std::string a = dir.file("a.json"), b = dir.file("b.json");
    const std::string db = "sqlite:" + dir.file("none.sqlite");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"run", db, "--json", a, "--json", b}, "--json is given twice"},
        {{"run", db, "--csv", a, "--csv=" + b}, "--csv is given twice"},
        {{"run", db, "--markdown", a, "--markdown", b}, "--markdown is given twice"},
        {{"run", db, "-r", "3", "--repeat", "5"}, "--repeat is given twice (-r and --repeat)"},
        {{"run", db, "-w", "1", "-w", "2"}, "--warmup is given twice"},
        {{"run", db, "-n", "1", "--limit-rows", "2"}, "--limit-rows is given twice"},
        {{"run", db, "-e", "sqlite", "-e", "sqlite"}, "--engine is given twice"},
        {{"run", db, "-p", "secret1", "-p", "secret2"}, "--password is given twice"},
        {{"run", db, "--latency", "10", "--latency", "20"}, "--latency is given twice"},
        {{"run", db, "-P", "fetch_size=1", "-P", "fetch_size=2"}, "fetch_size=... is given twice"},
        {{"run", db, "-d", db}, "the connection is already"},
        {{"prepare", db, "--rows", "5", "--rows", "6"}, "--rows is given twice"},
    };
    for (const auto& [args, said] : cases) {
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 2) << args[2] << ": " << r.err;
        EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_EQ(r.err.find("secret"), std::string::npos) << "a password in the message: " << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(a));
    EXPECT_FALSE(std::filesystem::exists(b));
    // What may be repeated still is: scenarios, and one direction after both.
    const auto ok =
        runCli({"run", db, "-s", "warm-up", "-s", "varchar", "--latency", "10", "--latency-up", "20", "--no-tap"});
    EXPECT_EQ(ok.err.find("given twice"), std::string::npos) << ok.err;
}

// Item 9: control characters in a scenario's title (an OSC window title, colours, BEL) reached the
// terminal raw through the text report, the progress and error lines and the Markdown export; a
// newline in the project's path split the "Saved run ... in" line. They are escaped wherever text
// is made for a terminal or Markdown; the JSON keeps the real title.
TEST(Round5Cli, ControlCharactersInTitlesAndPathsAreEscaped) {
    const std::string title =
        "Evil\x1b]0;pwned\x07\x1b[31m red\nline \xc2\x9b"
        "2J";
    OneScenarioProject p(title, "SELECT ID, CONTENT FROM BLOB_TEST ORDER BY ID", "p\nq.blobbench.json");
    TempDir out;
    const std::string md = out.file("r.md"), json = out.file("r.json");
    const auto r = runCli({"run", p.path, "--markdown", md, "--json", json, "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::string markdown = blobbench::test::readFile(md);
    for (const std::string* text : {&r.out, &r.err, &markdown}) {
        EXPECT_EQ(text->find('\x1b'), std::string::npos) << *text;
        EXPECT_EQ(text->find('\x07'), std::string::npos) << *text;
        EXPECT_EQ(text->find("\xc2\x9b"), std::string::npos) << *text;
    }
    EXPECT_NE(markdown.find("Evil\\x1b]0;pwned\\x07\\x1b[31m red line \\u009b2J"), std::string::npos) << markdown;
    const auto saved = r.err.find("Saved run ");
    ASSERT_NE(saved, std::string::npos) << r.err;
    const std::string line = r.err.substr(saved, r.err.find('\n', saved) - saved);
    EXPECT_TRUE(line.ends_with("/p\\nq.blobbench.json")) << line;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(blobbench::test::readFile(json)));
    const QJsonArray samples = doc.object().value(QStringLiteral("samples")).toArray();
    ASSERT_FALSE(samples.isEmpty()) << blobbench::test::readFile(json).substr(0, 300);
    EXPECT_EQ(samples[0].toObject().value(QStringLiteral("title")).toString().toStdString(), title);

    // The plain run's text report and a one-line error, with the same title in a failing scenario.
    OneScenarioProject failing(title, "SELECT NOPE FROM BLOB_TEST");
    const auto f = runCli({"run", failing.path, "--no-save", "-q"});
    EXPECT_EQ(f.exitCode, 1) << f.err;
    EXPECT_EQ(f.err.find('\x1b'), std::string::npos) << f.err;
    EXPECT_EQ(errorLines(f.err), 1) << f.err;
    EXPECT_EQ(lines(f.err), 2) << f.err;
}

// Item 8 on SQLite: a DELETE ... RETURNING in a reading scenario was committed: repetition 1 read
// 5 rows, repetition 2 read 0, and the report showed one median of both. The statement runs with
// PRAGMA query_only: refused, one line naming the scenario, nothing deleted.
TEST(Round5Cli, WritingStatementInAReadingScenarioIsRefused) {
    for (const std::string& sql :
         {std::string("DELETE FROM BLOB_TEST WHERE ID <= 5 RETURNING ID"), std::string("DROP TABLE BLOB_SAMPLE")}) {
        OneScenarioProject p("Deletes rows", sql);
        const auto r = runCli({"run", p.path, "-r", "2", "--no-save", "-q"});
        EXPECT_EQ(r.exitCode, 1) << r.err;
        EXPECT_NE(r.err.find("Deletes rows: "), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("a reading scenario runs in a read-only transaction, and the server refused a write"),
                  std::string::npos)
            << r.err;
        EXPECT_EQ(errorLines(r.err), 1) << r.err;
        const auto again = runCli({"run", "sqlite:" + p.db, "-s", "all-blobs", "-q"});
        EXPECT_EQ(again.exitCode, 0) << again.err;
        EXPECT_NE(again.out.find("Record count: 20\n"), std::string::npos) << again.out;
    }
}

// The calls that write through a read-only transaction (round 5b G4/G6) are found as calls, not
// inside comments, literals or quoted names, and a multi-word name only as its words in a row.
TEST(Round5Cli, WritingCallsAreFoundOutsideCommentsAndLiterals) {
    struct Case {
        const char* sql;
        const char* found;
    };
    const Case cases[] = {
        {"SELECT lo_create(0) AS o", "lo_create"},
        {"select LO_FROM_BYTEA(0, '\\x41')", "lo_from_bytea"},
        {"SELECT 'lo_create(0)' AS text, \"lo_unlink\" FROM t -- lo_unlink(1)\n/* lo_put */", ""},
        {"SELECT $$ lo_create(0) $$, $body$ GEN_ID $body$ AS x", ""},
        {"SELECT lo_get(o), lo_creat_x FROM t WHERE id = $1", ""},
        {"SELECT GEN_ID(G1, 1) FROM RDB$DATABASE", "GEN_ID"},
        {"SELECT next  value\n for G1 FROM RDB$DATABASE", "NEXT VALUE FOR"},
        {"SELECT NEXT_VALUE, value FOR_X FROM T", ""},
        {"SELECT 'it''s GEN_ID(G, 1)' FROM RDB$DATABASE", ""},
        // Hostile round 5c I1: a quoted name called as a function is the function.
        {"SELECT \"lo_create\"(0)", "lo_create"},
        {"SELECT \"lo_unlink\" (o) FROM t", "lo_unlink"},
        {"SELECT \"lo_create\" FROM t", ""},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.sql);
        EXPECT_EQ(
            writingCallIn(c.sql, {"lo_create", "lo_from_bytea", "lo_unlink", "lo_put", "GEN_ID", "NEXT VALUE FOR"}),
            c.found)
            << c.sql;
    }
}

// A reading statement is a query, a write the read-only transaction refuses, or a transaction
// statement rolled back after it; a statement that can end the read-only transaction from inside or
// runs SQL from a string is refused before it runs (round 5e A5-A7). Each row names its statement.
struct ReadingStatementCase {
    const char* name;
    SqlDialect dialect;
    const char* sql;
    const char* refusedWord;  // "" when the statement may run as a reading one
};

class ReadingStatements : public ::testing::TestWithParam<ReadingStatementCase> {};

TEST_P(ReadingStatements, AreRefusedBeforeTheyRunOnlyWhenNoReadOnlyTransactionStopsThem) {
    const ReadingStatementCase& c = GetParam();
    const std::string refused = refusedReadingStatement(c.sql, c.dialect);
    if (std::string(c.refusedWord).empty()) {
        EXPECT_EQ(refused, "") << c.sql;
    } else {
        EXPECT_NE(refused.find(std::string("; ") + c.refusedWord + " is refused before it runs"), std::string::npos)
            << c.sql << "\n"
            << refused;
        EXPECT_NE(refused.find("belongs in the scenario's setup SQL"), std::string::npos) << refused;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Round5e, ReadingStatements,
    ::testing::Values(
        ReadingStatementCase{"PgSelect", SqlDialect::Postgres, "SELECT id, content FROM blob_test", ""},
        ReadingStatementCase{"PgParenthesisedWith", SqlDialect::Postgres, " ( WITH x AS (SELECT 1) SELECT * FROM x)",
                             ""},
        ReadingStatementCase{"PgCommentFirst", SqlDialect::Postgres, "-- CALL p()\n/* DO */ TABLE blob_test", ""},
        ReadingStatementCase{"PgDeleteGoesToTheServer", SqlDialect::Postgres, "DELETE FROM t RETURNING id", ""},
        ReadingStatementCase{"PgBeginIsRolledBackAfter", SqlDialect::Postgres, "BEGIN READ WRITE", ""},
        ReadingStatementCase{"PgCall", SqlDialect::Postgres, "call h5e_p()", "CALL"},
        ReadingStatementCase{"PgDo", SqlDialect::Postgres, "DO $$ BEGIN COMMIT; END $$", "DO"},
        ReadingStatementCase{"PgCallAfterComment", SqlDialect::Postgres, "/* SELECT */ CALL p()", "CALL"},
        ReadingStatementCase{"PgSet", SqlDialect::Postgres, "SET default_transaction_read_only = off", "SET"},
        ReadingStatementCase{"PgVacuum", SqlDialect::Postgres, "VACUUM blob_test", "VACUUM"},
        ReadingStatementCase{"MariaSelect", SqlDialect::Mariadb, "SELECT `delete` FROM t # CALL p()", ""},
        ReadingStatementCase{"MariaDescribe", SqlDialect::Mariadb, "DESCRIBE BLOB_TEST", ""},
        ReadingStatementCase{"MariaCall", SqlDialect::Mariadb, "CALL h5e_p()", "CALL"},
        ReadingStatementCase{"MariaHashCommentHidesNothing", SqlDialect::Mariadb, "# SELECT\nCALL p()", "CALL"},
        ReadingStatementCase{"MariaDashDashWithoutSpaceIsNoComment", SqlDialect::Mariadb, "--SELECT\nCALL p()", ""},
        ReadingStatementCase{"MariaExecutableComment", SqlDialect::Mariadb,
                             "/*!100300 SET STATEMENT tx_read_only=0 FOR */ CALL p()", "CALL"},
        ReadingStatementCase{"MariaExecutableCommentM", SqlDialect::Mariadb, "/*M!100300 CALL */ p()", "CALL"},
        ReadingStatementCase{"MariaPrepare", SqlDialect::Mariadb,
                             "PREPARE s FROM 'SET STATEMENT tx_read_only=0 FOR DELETE FROM v'", "PREPARE"},
        ReadingStatementCase{"MariaExecute", SqlDialect::Mariadb, "EXECUTE s", "EXECUTE"},
        ReadingStatementCase{"MariaExecuteImmediate", SqlDialect::Mariadb, "EXECUTE IMMEDIATE 'DELETE FROM v'",
                             "EXECUTE"},
        ReadingStatementCase{"MariaCompound", SqlDialect::Mariadb, "BEGIN NOT ATOMIC DELETE FROM v; END", "BEGIN"},
        ReadingStatementCase{"MariaStartIsRolledBackAfter", SqlDialect::Mariadb, "START TRANSACTION", ""},
        ReadingStatementCase{"MariaSetStatementSelect", SqlDialect::Mariadb,
                             "SET STATEMENT max_statement_time=5 FOR SELECT 1", ""},
        ReadingStatementCase{"MariaSetStatementCall", SqlDialect::Mariadb,
                             "SET STATEMENT max_statement_time=5 FOR CALL p()", "CALL"},
        ReadingStatementCase{"MariaBackslashInLiteral", SqlDialect::Mariadb, "DO 'it\\'s', (SELECT 1)", "DO"},
        ReadingStatementCase{"MariaSet", SqlDialect::Mariadb, "SET autocommit = 0", "SET"},
        ReadingStatementCase{"MariaHandler", SqlDialect::Mariadb, "HANDLER t OPEN", "HANDLER"}),
    [](const ::testing::TestParamInfo<ReadingStatementCase>& info) { return std::string(info.param.name); });

// In MariaDB's dialect a backslash escapes a quote, so a literal cannot hide what follows it.
TEST(Round5Cli, MariadbLiteralsEndWhereTheServerEndsThem) {
    EXPECT_EQ(writingCallIn("SELECT 'a\\'', 'b' FROM t WHERE x = tx_read_only", {"tx_read_only"}, SqlDialect::Mariadb),
              "tx_read_only");
    EXPECT_EQ(writingCallIn("SELECT 'tx_read_only', `tx_read_only` FROM t", {"tx_read_only"}, SqlDialect::Mariadb), "");
}

// Round 5f: calls that write where the read-only transaction does not stop them, each found as the
// server reads it (a Unicode-escaped name, a function that runs SQL from a string, EXECUTE of a
// prepared statement, a replication slot, a file on the server, a generator moved by SQL in a string).
TEST(Round5fCalls, AreRefusedWithTheirNameAndWhy) {
    struct Case {
        const char* sql;
        const char* refused;  // what the line names; "" for a statement that may run
    };
    const Case postgres[] = {
        {"SELECT U&\"lo\\005fcreate\"(0) AS o", "lo_create()"},
        {"SELECT U&\"lo!005fcreate\" UESCAPE '!' (0) AS o", "lo_create()"},
        {"SELECT U&\"lo\\005fget\"(1) AS o", ""},
        {"SELECT query_to_xml('SELECT lo_create(0) AS o', true, false, '') AS x", "query_to_xml()"},
        {"SELECT * FROM ts_stat('SELECT to_tsvector(''x'')')", "ts_stat()"},
        {"EXPLAIN ANALYZE EXECUTE h5fp", "EXECUTE"},
        {"SELECT pg_import_system_collations('s') AS n", "pg_import_system_collations()"},
        {"SELECT * FROM pg_create_physical_replication_slot('s')", "pg_create_physical_replication_slot()"},
        {"SELECT pg_try_advisory_lock(1)", ""},  // BlobBench's own prepare takes one
        {"SELECT id, content FROM blob_test WHERE note = 'execute lo_create'", ""},
    };
    for (const Case& c : postgres) {
        SCOPED_TRACE(c.sql);
        const std::string line = refusedPostgresCall(c.sql);
        if (std::string(c.refused).empty()) {
            EXPECT_EQ(line, "") << c.sql;
        } else {
            EXPECT_NE(line.find(std::string("and ") + c.refused + " can write even"), std::string::npos)
                << c.sql << "\n"
                << line;
        }
    }
    EXPECT_NE(refusedReadingStatement("COPY (SELECT 1) TO PROGRAM 'id'", SqlDialect::Postgres)
                  .find("COPY is refused before it runs: COPY moves rows outside a query's result"),
              std::string::npos);
    EXPECT_NE(refusedMariadbCall("SELECT id FROM victim INTO OUTFILE '/tmp/x'").find("INTO OUTFILE can write"),
              std::string::npos);
    EXPECT_NE(refusedMariadbCall("SELECT v FROM victim WHERE id = 1 INTO DUMPFILE '/tmp/x'").find("INTO DUMPFILE"),
              std::string::npos);
    EXPECT_EQ(refusedMariadbCall("SELECT 'into outfile' AS t"), "");
    const Case firebird[] = {
        {"EXECUTE BLOCK RETURNS (x BIGINT) AS BEGIN EXECUTE STATEMENT 'SELECT GEN_ID(G, 1) FROM RDB$DATABASE' "
         "INTO :x; SUSPEND; END",
         "EXECUTE STATEMENT"},
        {"SET GENERATOR G TO 1000", "SET GENERATOR"},
        {"ALTER SEQUENCE G RESTART WITH 500", "ALTER SEQUENCE"},
        {"SELECT GEN_ID(G, 0) FROM RDB$DATABASE", "GEN_ID"},
        {"SELECT ID, CONTENT FROM BLOB_TEST", ""},
    };
    for (const Case& c : firebird) {
        SCOPED_TRACE(c.sql);
        const std::string line = refusedFirebirdCall(c.sql);
        if (std::string(c.refused).empty()) {
            EXPECT_EQ(line, "") << c.sql;
        } else {
            EXPECT_NE(line.find(std::string("and ") + c.refused + " can write even"), std::string::npos)
                << c.sql << "\n"
                << line;
        }
    }
}
