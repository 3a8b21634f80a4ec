// Issue #29 (hostile round 5) on the real servers: a DELETE ... RETURNING or a DROP TABLE in a
// reading scenario was committed (repetition 1 read 5 rows, repetition 2 read 0, one median of
// both). Reading scenarios run read-only (PostgreSQL default_transaction_read_only, Firebird
// isc_tpb_read): the write is refused in one line naming the scenario, and nothing changes. Also
// two prepares of one PostgreSQL database at once, and libpq's password-file warning said once.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QFile>

#include <algorithm>
#include <map>
#include <regex>
#include <string>

#include "model/Project.h"
#include "model/ProjectFile.h"
#include "support/FirebirdSupport.h"
#include "support/PgSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;
using namespace std::chrono_literals;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

long errorLines(const std::string& text) {
    long n = 0;
    for (std::size_t at = 0; (at = text.find("blobbench-cli: ", at)) != std::string::npos; ++at) {
        n += at == 0 || text[at - 1] == '\n';
    }
    return n;
}

// A project on `target` whose scenarios are the writing statements, one each; `setups` gives a
// scenario's setup SQL by its title.
std::string writingProject(const TempDir& dir, const std::string& engine, const std::string& target,
                           const std::string& user, const std::vector<std::pair<std::string, std::string>>& scenarios,
                           const std::map<std::string, std::string>& setups = {}) {
    Project p;
    p.name = QStringLiteral("Writes in reading scenarios");
    ConnectionProfile connection;
    connection.name = QStringLiteral("server");
    connection.engine = q(engine);
    connection.target = q(target);
    connection.user = q(user);
    connection.useWireTap = false;
    p.connections = {connection};
    int n = 0;
    for (const auto& [title, sql] : scenarios) {
        ScenarioDef def;
        def.id = QStringLiteral("writes-%1").arg(++n);
        def.title = q(title);
        def.sql = q(sql);
        if (const auto setup = setups.find(title); setup != setups.end()) {
            def.setupSql = q(setup->second);
        }
        p.scenarios.push_back(def);
    }
    const std::string path = dir.file("writes.blobbench.json");
    saveProject(q(path), p);
    return path;
}

void expectRefused(const test::ProcessResult& r, const std::string& title) {
    EXPECT_NE(r.err.find(title + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("a reading scenario runs in a read-only transaction, and the server refused a write"),
              std::string::npos)
        << r.err;
}

// The test's own database, dropped at the end.
struct OwnPgDatabase {
    std::string admin;
    test::PgOwnDatabase own;
    OwnPgDatabase(const std::string& conninfo, const std::string& name)
        : admin(conninfo), own(test::createOwnPgDatabase(conninfo, name)) {}
    ~OwnPgDatabase() { test::PgConn(admin).value("DROP DATABASE IF EXISTS " + own.name + " WITH (FORCE)"); }
};

}  // namespace

TEST(ReadOnlyScenarios, PostgresRefusesDeleteAndDrop) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    const OwnPgDatabase database(conninfo, "bb_readonly_" + std::to_string(getpid()));
    const test::PgOwnDatabase& own = database.own;
    const auto prepared = runCli({"prepare", own.target, "--rows", "20", "-q"}, pg.env());
    ASSERT_EQ(prepared.exitCode, 0) << prepared.err;
    TempDir dir;
    const std::string path = writingProject(dir, "postgres", own.target, "",
                                            {{"Delete five", "DELETE FROM blob_test WHERE id <= 5 RETURNING id"},
                                             {"Drop a table", "DROP TABLE blob_sample"}});
    const auto r = runCli({"run", path, "-r", "2", "--no-save", "-q"}, pg.env());
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(errorLines(r.err), 1) << r.err;  // the run's line names the first scenario refused
    expectRefused(r, "Delete five");
    EXPECT_NE(r.out.find("writes-2 failed"), std::string::npos) << "the second is refused too: " << r.out;
    test::PgConn check(own.conninfo);
    EXPECT_EQ(check.value("SELECT count(*) FROM blob_test"), "20");
    EXPECT_EQ(check.value("SELECT to_regclass('blob_sample') IS NOT NULL"), "t");
    // Round 5b G4: PostgreSQL lets the large-object functions through a read-only transaction, and
    // each repetition committed a large object. Refused before they run, named.
    const std::string objects = check.value("SELECT count(*) FROM pg_largeobject_metadata");
    TempDir loDir;
    const std::string lo = writingProject(loDir, "postgres", own.target, "",
                                          {{"Create a large object", "SELECT lo_create(0) AS id"},
                                           {"Large object from bytea", "SELECT lo_from_bytea(0, '\\x41') AS id"}});
    const auto refusedLo = runCli({"run", lo, "-r", "2", "--no-save", "-q"}, pg.env());
    EXPECT_EQ(refusedLo.exitCode, 1) << refusedLo.err;
    EXPECT_NE(refusedLo.err.find("Create a large object: "), std::string::npos) << refusedLo.err;
    EXPECT_NE(refusedLo.err.find("lo_create() can write even in a read-only transaction"), std::string::npos)
        << refusedLo.err;
    EXPECT_NE(refusedLo.out.find("writes-2 failed"), std::string::npos) << refusedLo.out;
    EXPECT_EQ(check.value("SELECT count(*) FROM pg_largeobject_metadata"), objects);
    // Hostile round 5d G1: a transaction a scenario opened was taken for the caller's, so the next
    // scenario's DELETE and lo_create() ran in it with no read-only default and no scan, and COMMIT
    // kept them. The opening statement is rolled back and refused; what follows is refused as alone.
    TempDir txDir;
    const std::string tx =
        writingProject(txDir, "postgres", own.target, "",
                       {{"Begin read write", "BEGIN READ WRITE"},
                        {"Delete one", "DELETE FROM blob_test WHERE id = 7"},
                        {"Commit", "COMMIT"},
                        {"Start serializable", "START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE"},
                        {"Create a large object", "SELECT lo_create(0) AS id"},
                        {"Commit again", "COMMIT"}});
    const auto refusedTx = runCli({"run", tx, "-r", "1", "--no-save", "-q"}, pg.env());
    EXPECT_EQ(refusedTx.exitCode, 1) << refusedTx.err;
    EXPECT_NE(refusedTx.err.find("Begin read write: "), std::string::npos) << refusedTx.err;
    EXPECT_NE(refusedTx.err.find("opened one of its own, which is rolled back"), std::string::npos) << refusedTx.err;
    for (const char* failed : {"writes-2 failed", "writes-4 failed", "writes-5 failed"}) {
        EXPECT_NE(refusedTx.out.find(failed), std::string::npos) << failed << "\n" << refusedTx.out;
    }
    EXPECT_EQ(check.value("SELECT count(*) FROM blob_test"), "20");
    EXPECT_EQ(check.value("SELECT count(*) FROM pg_largeobject_metadata"), objects);
    // The writing calls still write on the next session: prepare again.
    EXPECT_EQ(runCli({"prepare", own.target, "--rows", "10", "-q"}, pg.env()).exitCode, 0);
}

// Round 5e A3, A5, A6: three ways a write got through. A setup SQL's BEGIN left a transaction open, taken
// for the caller's, so the next scenario's DELETE ran in it and a COMMIT kept it; lowrite() was missing
// from the large-object calls; a procedure or DO block committed and opened a read-write transaction of
// its own from inside the statement. The first is rolled back and refused after the setup, the others
// before they run; nothing changes.
TEST(ReadOnlyScenarios, PostgresSetupTransactionsProceduresAndLowriteWriteNothing) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    const OwnPgDatabase database(conninfo, "bb_readonly5e_" + std::to_string(getpid()));
    const test::PgOwnDatabase& own = database.own;
    test::PgConn admin(own.conninfo);
    admin.value("CREATE TABLE victim (id integer)");
    admin.value("INSERT INTO victim SELECT generate_series(1, 9)");
    admin.value(
        "CREATE PROCEDURE bb_p() LANGUAGE plpgsql AS $$ BEGIN COMMIT; SET TRANSACTION READ WRITE; "
        "DELETE FROM victim WHERE id = 3; COMMIT; END $$");
    const std::string oid = admin.value("SELECT lo_from_bytea(0, 'original')");
    TempDir dir;
    const std::string path =
        writingProject(dir, "postgres", own.target, "",
                       {{"Setup begins", "SELECT count(*) FROM victim"},
                        {"Delete one", "DELETE FROM victim WHERE id = 1 RETURNING id"},
                        {"Commit", "COMMIT"},
                        {"Write a large object", "SELECT lowrite(lo_open(" + oid + ", 131072), 'PWNED') AS n"},
                        {"Call a procedure", "CALL bb_p()"},
                        {"A DO block",
                         "DO $$ BEGIN COMMIT; SET TRANSACTION READ WRITE; DELETE FROM victim WHERE "
                         "id = 4; COMMIT; END $$"}},
                       {{"Setup begins", "BEGIN"}});
    const auto r = runCli({"run", path, "-r", "1", "--no-save", "-q"}, pg.env());
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(errorLines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("Setup begins: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the setup SQL left a transaction of its own open"), std::string::npos) << r.err;
    for (const char* failed :
         {"writes-1 failed", "writes-2 failed", "writes-4 failed", "writes-5 failed", "writes-6 failed"}) {
        EXPECT_NE(r.out.find(failed), std::string::npos) << failed << "\n" << r.out;
    }
    EXPECT_EQ(admin.value("SELECT string_agg(id::text, ',' ORDER BY id) FROM victim"), "1,2,3,4,5,6,7,8,9");
    EXPECT_EQ(admin.value("SELECT encode(lo_get(" + oid + "), 'escape')"), "original");
    const auto why = runCli({"run", path, "-s", "writes-5", "-r", "1", "--no-save"}, pg.env());
    EXPECT_NE(why.err.find("CALL is refused before it runs: a procedure may commit"), std::string::npos) << why.err;
    const auto lo = runCli({"run", path, "-s", "writes-4", "-r", "1", "--no-save"}, pg.env());
    EXPECT_NE(lo.err.find("lowrite() can write even in a read-only transaction"), std::string::npos) << lo.err;
}

// Round 5f A1-A7: writes through a Unicode-escaped name, SQL in a string a function runs, EXECUTE of a
// statement the setup prepared, a catalogue-writing function, COPY to a server file or a program (and
// COPY TO STDOUT, which looped for ever), a replication slot. Each is refused in one line and the run
// ends; no large object, slot or file appears.
TEST(ReadOnlyScenarios, PostgresCallsThatWriteAroundTheReadOnlyTransactionAreRefused) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    const OwnPgDatabase database(conninfo, "bb_readonly5f_" + std::to_string(getpid()));
    const test::PgOwnDatabase& own = database.own;
    test::PgConn admin(own.conninfo);
    admin.value("CREATE TABLE victim (id integer)");
    admin.value("INSERT INTO victim SELECT generate_series(1, 9)");
    admin.value("CREATE SCHEMA bb_coll");
    const std::string objects = admin.value("SELECT count(*) FROM pg_largeobject_metadata");
    const std::string slotCount = admin.value("SELECT count(*) FROM pg_replication_slots");
    TempDir dir;
    const std::string file = dir.file("copied.txt");
    const std::string path =
        writingProject(dir, "postgres", own.target, "",
                       {{"Unicode name", "SELECT U&\"lo\\005fcreate\"(0) AS o"},
                        {"Query in a string", "SELECT query_to_xml('SELECT lo_create(0) AS o', true, false, '') AS x"},
                        {"Explain execute", "EXPLAIN ANALYZE EXECUTE bb_p"},
                        {"Collations", "SELECT pg_import_system_collations('bb_coll') AS n"},
                        {"Copy to a file", "COPY (SELECT id FROM victim) TO '" + file + "'"},
                        {"Copy to stdout", "COPY (SELECT id FROM victim) TO STDOUT"},
                        {"Replication slot", "SELECT * FROM pg_create_physical_replication_slot('bb_slot')"}},
                       {{"Explain execute", "PREPARE bb_p AS SELECT lo_create(0) AS o"}});
    CliProcess run({"run", path, "-r", "2", "--no-save", "-q"}, pg.env());
    const auto r = run.wait(60s);
    ASSERT_NE(r.exitCode, -1) << "still running after 60 s: " << run.errSoFar();
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(errorLines(r.err), 1) << r.err;
    for (int n = 1; n <= 7; ++n) {
        const std::string failed = "writes-" + std::to_string(n) + " failed";
        EXPECT_NE(r.out.find(failed), std::string::npos) << failed << "\n" << r.out;
    }
    EXPECT_EQ(admin.value("SELECT count(*) FROM pg_largeobject_metadata"), objects);
    EXPECT_EQ(admin.value("SELECT count(*) FROM pg_replication_slots"), slotCount);
    EXPECT_EQ(admin.value("SELECT count(*) FROM pg_collation WHERE collnamespace = 'bb_coll'::regnamespace"), "0");
    EXPECT_EQ(admin.value("SELECT count(*) FROM victim"), "9");
    EXPECT_FALSE(QFile::exists(q(file)));
}

// Item 11: two prepares of one database at once: the second failed with the server's words for a
// catalogue race ("duplicate key value violates unique constraint pg_type_typname_nsp_index").
TEST(ReadOnlyScenarios, PostgresPrepareSaysAnotherPrepareHoldsTheDatabase) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    const OwnPgDatabase database(conninfo, "bb_prepare2_" + std::to_string(getpid()));
    const test::PgOwnDatabase& own = database.own;
    int refused = 0;
    for (int attempt = 0; attempt < 2; ++attempt) {
        CliProcess first({"prepare", own.target, "--rows", "2000", "-q"}, pg.env());
        CliProcess second({"prepare", own.target, "--rows", "2000", "-q"}, pg.env());
        for (auto* run : {&first, &second}) {
            const auto r = run->wait(300s);
            if (r.exitCode != 0) {
                ++refused;
                EXPECT_EQ(r.exitCode, 1) << r.err;
                EXPECT_NE(r.err.find("another prepare of this database is running"), std::string::npos) << r.err;
                EXPECT_EQ(r.err.find("duplicate key"), std::string::npos) << r.err;
            }
        }
    }
    EXPECT_GE(refused, 1) << "the prepares never overlapped";
}

// Item 11: a password file others may read: libpq's warning was printed twice under -q (read by
// the resolution of the tap's endpoint and again by the connect).
TEST(ReadOnlyScenarios, PasswordFileWarningIsSaidOnce) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    TempDir dir;
    const std::string file = dir.file("pgpass");
    test::writeFile(file, "*:*:*:*:" + pg.password + "\n");
    ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
    const std::string target = "postgresql://" + pg.user + "@" + pg.host + ":" + pg.port + "/" + pg.dbname;
    const auto r = runCli({"run", target, "-s", "warm-up", "-q"}, {"PGPASSFILE=" + file, "PGPASSWORD="});
    const std::string warning = "WARNING: password file";
    const auto first = r.err.find(warning);
    ASSERT_NE(first, std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(warning, first + 1), std::string::npos) << "said twice: " << r.err;
}

TEST(ReadOnlyScenarios, FirebirdRefusesDeleteAndDrop) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    const std::string target =
        std::regex_replace(database, std::regex(R"([^/]+$)"), "bb_readonly_" + std::to_string(getpid()) + ".fdb");
    struct Drop {
        std::string target, user, password;
        ~Drop() { test::dropFirebirdDatabase(target, user, password); }
    } drop{target, user, password};
    const auto prepared = runCli(
        {"prepare", "-d", target, "-u", user, "-p", password, "-P", "create_database=true", "--rows", "20", "-q"});
    ASSERT_EQ(prepared.exitCode, 0) << prepared.err;
    TempDir dir;
    const std::string path = writingProject(dir, "firebird", target, user,
                                            {{"Delete one", "DELETE FROM BLOB_TEST WHERE ID = 1 RETURNING ID"},
                                             {"Drop a table", "DROP TABLE BLOB_SAMPLE"}});
    const auto r = runCli({"run", path, "-p", password, "-r", "2", "--no-save", "-q"});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(errorLines(r.err), 1) << r.err;
    expectRefused(r, "Delete one");
    EXPECT_NE(r.out.find("writes-2 failed"), std::string::npos) << r.out;
    // Round 5b G6: a generator stands outside every transaction, and each repetition moved it on.
    // Refused before the statement is prepared (BB_G need not exist: the server never sees it).
    TempDir genDir;
    const std::string gen = writingProject(genDir, "firebird", target, user,
                                           {{"Move a generator", "SELECT GEN_ID(BB_G, 1) AS ID FROM RDB$DATABASE"},
                                            {"Next value", "SELECT NEXT VALUE FOR BB_G AS ID FROM RDB$DATABASE"}});
    const auto refusedGen = runCli({"run", gen, "-p", password, "-r", "2", "--no-save", "-q"});
    EXPECT_EQ(refusedGen.exitCode, 1) << refusedGen.err;
    EXPECT_NE(refusedGen.err.find("GEN_ID can write even in a read-only transaction"), std::string::npos)
        << refusedGen.err;
    EXPECT_NE(refusedGen.out.find("writes-2 failed"), std::string::npos) << refusedGen.out;
    // Round 5f A12, A14: a generator moved by SQL held in a string, by SET GENERATOR, by ALTER SEQUENCE.
    TempDir moreDir;
    const std::string more =
        writingProject(moreDir, "firebird", target, user,
                       {{"Statement in a string",
                         "EXECUTE BLOCK RETURNS (x BIGINT) AS BEGIN EXECUTE STATEMENT 'SELECT GEN_ID(BB_G, "
                         "1) FROM RDB$DATABASE' INTO :x; SUSPEND; END"},
                        {"Set generator", "SET GENERATOR BB_G TO 1000"},
                        {"Alter sequence", "ALTER SEQUENCE BB_G RESTART WITH 500"}});
    const auto refusedMore = runCli({"run", more, "-p", password, "-r", "1", "--no-save", "-q"});
    EXPECT_EQ(refusedMore.exitCode, 1) << refusedMore.err;
    EXPECT_NE(refusedMore.err.find("EXECUTE STATEMENT can write even in a read-only transaction"), std::string::npos)
        << refusedMore.err;
    for (const char* failed : {"writes-2 failed", "writes-3 failed"}) {
        EXPECT_NE(refusedMore.out.find(failed), std::string::npos) << failed << "\n" << refusedMore.out;
    }
    const auto again = runCli({"run", "-d", target, "-u", user, "-p", password, "-s", "all-blobs", "--no-tap", "-q"});
    EXPECT_EQ(again.exitCode, 0) << again.err;
    EXPECT_NE(again.out.find("Record count: 20\n"), std::string::npos) << again.out;
}
