// blobbench-cli as a user runs it: exit codes, one-line errors, the report's layout, JSON output.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <fstream>
#include <regex>

#include "support/TestSupport.h"

using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

void sqlite(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK) << (message ? message : "");
    sqlite3_free(message);
    sqlite3_close(db);
}

int lineCount(const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

// One prepared database shared by the tests of this file (a small one: 300 rows).
class CliTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir = new TempDir;
        db = "sqlite:" + dir->file("ref.sqlite");
        const auto r = runCli({"prepare", db, "--rows", "300"});
        ASSERT_EQ(r.exitCode, 0) << r.err;
    }
    static void TearDownTestSuite() { delete dir; }
    static TempDir* dir;
    static std::string db;
};
TempDir* CliTest::dir = nullptr;
std::string CliTest::db;

}  // namespace

TEST_F(CliTest, RunPrintsTheReferenceLayout) {
    const auto r = runCli({"run", db});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::string& out = r.out;
    EXPECT_EQ(out.rfind("===== Test of BLOBs transmission =====\n", 0), 0u) << out;
    const char* titles[] = {"** Warming up the cache **",
                            "** Test read short BLOBs **",
                            "** Test read VARCHAR(8191) **",
                            "** Test read all BLOBs **",
                            "** Test read mixed BLOBs and VARCHARs **",
                            "** Test read mixed BLOBs and VARCHARs with optimize **",
                            "** Test read only BLOB IDs **"};
    std::size_t at = 0;
    for (const char* title : titles) {
        const auto found = out.find(std::string(title) + "\n-----", at);
        ASSERT_NE(found, std::string::npos) << title << " missing or out of order";
        at = found + 1;
    }
    EXPECT_TRUE(std::regex_search(out, std::regex("\nElapsed time: [0-9]+ ms\nMax char length: [0-9]+\n")));
    EXPECT_TRUE(std::regex_search(
        out, std::regex("\\*\\* Test read all BLOBs \\*\\*\n-+\nSQL:\n\nSELECT\n  ID,\n  CONTENT\nFROM BLOB_TEST\n\n"
                        "Elapsed time: [0-9]+ ms\nMax id: 300\nRecord count: 300\nContent size: [0-9]+ bytes\n"
                        "Wire statistics: not applicable \\(embedded\\)\n")))
        << out;
    // ids only: no content is read
    EXPECT_TRUE(std::regex_search(out, std::regex("only BLOB IDs \\*\\*\n[^*]*Record count: 300\nWire statistics")));
}

TEST_F(CliTest, JsonHoldsEverySample) {
    const std::string json = dir->file("out.json");
    const std::string csv = dir->file("out.csv");
    const auto r = runCli({"run", db, "--scenario", "all-blobs", "--scenario", "short-blobs", "--repeat", "3", "--json",
                           json, "--csv", csv});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("(median of 3)"), std::string::npos);
    QFile file(QString::fromStdString(json));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    EXPECT_EQ(root[QStringLiteral("formatVersion")].toInt(), 1);
    const QJsonArray samples = root[QStringLiteral("samples")].toArray();
    ASSERT_EQ(samples.size(), 6);
    const QJsonObject first = samples[0].toObject();
    EXPECT_EQ(first[QStringLiteral("scenario")].toString(), QStringLiteral("all-blobs"));
    EXPECT_EQ(first[QStringLiteral("rows")].toInteger(), 300);
    EXPECT_GT(first[QStringLiteral("contentBytes")].toInteger(), 0);
    EXPECT_EQ(first[QStringLiteral("status")].toString(), QStringLiteral("complete"));
    EXPECT_GT(first[QStringLiteral("phases")].toObject()[QStringLiteral("fetchNs")].toInteger(), 0);
    std::ifstream in(csv);
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
        ++lines;
    }
    EXPECT_EQ(lines, 7);
}

TEST_F(CliTest, UnknownScenarioIsBadUsage) {
    const auto r = runCli({"run", db, "-s", "all-blobs", "-s", "no-such"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("unknown scenario 'no-such'"), std::string::npos) << r.err;
    EXPECT_EQ(lineCount(r.err), 1) << r.err;
}

// An SQL error in the middle of the suite: exit 1, one line naming the scenario and SQLite's words,
// and every sample measured before and after it kept in the report and the JSON.
TEST(CliFailures, SqlErrorKeepsWhatWasMeasured) {
    TempDir dir;
    const std::string path = dir.file("broken.sqlite");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + path, "--rows", "100"}).exitCode, 0);
    sqlite(path, "ALTER TABLE BLOB_TEST DROP COLUMN SHORT_CONTENT");
    const std::string json = dir.file("partial.json");
    const auto r = runCli({"run", "sqlite:" + path, "--json", json});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(lineCount(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("Test read VARCHAR(8191)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("no such column: SHORT_CONTENT"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("Failed: no such column"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("** Test read all BLOBs **"), std::string::npos) << "the suite goes on after an SQL error";
    QFile file(QString::fromStdString(json));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonArray samples = QJsonDocument::fromJson(file.readAll()).object()[QStringLiteral("samples")].toArray();
    ASSERT_EQ(samples.size(), 7);
    EXPECT_EQ(samples[1].toObject()[QStringLiteral("status")].toString(), QStringLiteral("complete"));
    EXPECT_EQ(samples[2].toObject()[QStringLiteral("status")].toString(), QStringLiteral("failed"));
    EXPECT_EQ(samples[3].toObject()[QStringLiteral("status")].toString(), QStringLiteral("complete"));
    EXPECT_EQ(samples[3].toObject()[QStringLiteral("rows")].toInteger(), 100);
}

struct BadInput {
    std::vector<std::string> args;
    int exitCode;
    std::string fragment;
};

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, OneClearLineAndTheRightExitCode) {
    TempDir dir;
    blobbench::test::writeFile(dir.path() / "corrupt.sqlite", std::string(4096, 'z'));
    blobbench::test::writeFile(dir.path() / "empty/.keep", "");
    std::filesystem::remove(dir.path() / "empty/.keep");
    std::vector<std::string> args;
    for (auto a : GetParam().args) {
        const auto at = a.find("@DIR@");
        if (at != std::string::npos) {
            a.replace(at, 5, dir.path().string());
        }
        args.push_back(a);
    }
    const auto r = runCli(args);
    EXPECT_EQ(r.exitCode, GetParam().exitCode) << r.err;
    EXPECT_NE(r.err.find(GetParam().fragment), std::string::npos) << r.err;
    EXPECT_EQ(lineCount(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("blobbench-cli: ", 0), 0u) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cli, CliBadInput,
    ::testing::Values(BadInput{{"--frobnicate"}, 2, "unknown option '--frobnicate'"},
                      BadInput{{"explode"}, 2, "unknown command 'explode'"},
                      BadInput{{"run", "--engine", "oracle", "x.db"}, 2, "unknown engine 'oracle'"},
                      BadInput{{"run", "what-is-this"}, 2, "cannot tell the engine"},
                      BadInput{{"run", "--repeat", "zero", "x.db"}, 2, "--repeat: 'zero'"},
                      BadInput{{"run", "--param", "page_size=1000", "sqlite:@DIR@/a.sqlite"}, 2, "page_size"},
                      BadInput{{"run", "--param", "warp=9", "sqlite:@DIR@/a.sqlite"}, 2, "unknown parameter 'warp'"},
                      BadInput{{"run", "-P", "mode=read-only", "sqlite:@DIR@/missing.sqlite"}, 1, "does not exist"},
                      BadInput{{"run", "sqlite:@DIR@"}, 1, "is a directory"},
                      BadInput{{"run", "sqlite:@DIR@/corrupt.sqlite"}, 1, "not a database"},
                      BadInput{{"run", "sqlite:@DIR@/fresh.sqlite"}, 1, "fresh.sqlite: connect: no such database file"},
                      BadInput{{"prepare", "sqlite:@DIR@/x.sqlite", "--from-folder", "@DIR@/empty"}, 1, "no files"},
                      BadInput{
                          {"prepare", "sqlite:@DIR@/x.sqlite", "--from-folder", "@DIR@/nothing"}, 1, "no such folder"},
                      BadInput{{"prepare"}, 2, "name the database"},
                      BadInput{{"run", "--json"}, 2, "--json needs a value"},
                      BadInput{{"run", "--latency", "fast", "x.db"}, 2, "fast"},
                      BadInput{{"run", "--bandwidth", "1k", "x.db"}, 2, "between 9.6 kbit/s and 10 Gbit/s"},
                      BadInput{{"run", "--wire-tap", "sqlite:@DIR@/a.sqlite"}, 2, "embedded"},
                      BadInput{{"run", "--no-tap", "--latency", "5", "x.db"}, 2, "--no-tap contradicts"},
                      BadInput{{"run", "--tap"}, 2, "the default database is SQLite"}));

// A connect that fails names the connection once, in `run` and in the compatible mode (-d), on
// Firebird and PostgreSQL (nobody listens on port 1: refused at once).
TEST(CliBasics, AFailedConnectNamesTheConnectionOnce) {
    const std::string firebird = "inet://127.0.0.1:1//nowhere.fdb";
    const std::string postgres = "host=127.0.0.1 port=1 dbname=x user=postgres";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"run", firebird, "-q"}, "firebird:" + firebird},
        {{"-d", firebird}, "firebird:" + firebird},
        {{"run", postgres, "-q"}, "postgres:" + postgres},
    };
    for (const auto& [args, label] : cases) {
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 1) << r.err;
        EXPECT_EQ(lineCount(r.err), 1) << r.err;
        EXPECT_EQ(r.err.rfind("blobbench-cli: " + label + ": connect: ", 0), 0u) << r.err;
        EXPECT_EQ(r.err.find(label, r.err.find(label) + 1), std::string::npos) << "named twice: " << r.err;
    }
}

TEST(CliBasics, HelpAndVersion) {
    const auto help = runCli({"--help"});
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_NE(help.out.find("Usage: blobbench-cli"), std::string::npos);
    const auto version = runCli({"--version"});
    EXPECT_EQ(version.exitCode, 0);
    EXPECT_EQ(version.out.rfind("blobbench-cli ", 0), 0u);
    const auto engines = runCli({"engines"});
    EXPECT_EQ(engines.exitCode, 0);
    EXPECT_NE(engines.out.find("blob_api"), std::string::npos);
}

TEST(CliBasics, DefaultRunPreparesOnceThenRuns) {
    TempDir dir;
    const std::string env = "BLOBBENCH_DATA_DIR=" + dir.path().string();
    // The full default data set takes seconds; the row count is the default's, the test checks the flow.
    const auto first = runCli({"--rows", "200", "-q"}, {env});
    ASSERT_EQ(first.exitCode, 0) << first.err;
    EXPECT_NE(first.out.find("Prepared sqlite:"), std::string::npos);
    EXPECT_NE(first.out.find("Record count: 200"), std::string::npos);
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "reference.sqlite"));
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "reference.sqlite.part"));
    const auto second = runCli({"-q"}, {env});
    ASSERT_EQ(second.exitCode, 0) << second.err;
    EXPECT_EQ(second.out.find("Prepared sqlite:"), std::string::npos) << "prepared twice";
}

// A mistyped file name once became an empty database; a run creates nothing and says how to prepare.
TEST(CliBasics, RunOnAMissingSqliteFileCreatesNothing) {
    TempDir dir;
    const std::string file = dir.file("mistyped.sqlite");
    const auto r = runCli({"run", "sqlite:" + file, "-q"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("sqlite:" + file + ": connect: no such database file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("blobbench-cli prepare sqlite:" + file), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(file));
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
    ASSERT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "20", "-q"}).exitCode, 0);  // a write creates it
    EXPECT_EQ(runCli({"run", "sqlite:" + file, "-q", "-s", "short-blobs"}).exitCode, 0);
}

// The reference article's database is filled by its own EXECUTE BLOCK, without BlobBench's
// BLOBBENCH_DATASET table: a BLOB_TEST with the reference columns runs, counted and labelled.
TEST(CliBasics, BlobTestNotPreparedByBlobBenchRunsWithItsCounts) {
    TempDir dir;
    const std::string file = dir.file("article.sqlite");
    sqlite(file,
           "CREATE TABLE BLOB_TEST (ID INTEGER PRIMARY KEY, SHORT_CONTENT VARCHAR(8191), CONTENT BLOB, SHORT_BLOB "
           "BOOLEAN);"
           "INSERT INTO BLOB_TEST VALUES (1, 'abc', 'abc', TRUE), (2, NULL, CAST(zeroblob(9000) AS BLOB), FALSE),"
           "(3, 'hello', 'hello', TRUE)");
    const auto r = runCli({"run", "sqlite:" + file, "-s", "short-blobs", "-s", "all-blobs"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("Data set: BLOB_TEST not prepared by BlobBench: 3 rows, 9008 content bytes, 2 short rows "
                         "(8 bytes)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("Record count: 2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Record count: 3"), std::string::npos) << r.out;
}

TEST(CliBasics, BlobTestWithoutTheReferenceColumnsIsRefusedNamingThem) {
    TempDir dir;
    const std::string file = dir.file("other.sqlite");
    sqlite(file, "CREATE TABLE BLOB_TEST (ID INTEGER PRIMARY KEY, DATA BLOB); INSERT INTO BLOB_TEST VALUES (1, x'00')");
    const auto r = runCli({"run", "sqlite:" + file});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("no complete reference data set: BLOB_TEST lacks the reference columns ID, SHORT_CONTENT, "
                         "CONTENT, SHORT_BLOB"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(CliBasics, IncompleteDataSetIsRefused) {
    TempDir dir;
    const std::string db = "sqlite:" + dir.file("half.sqlite");
    ASSERT_EQ(runCli({"prepare", db, "--rows", "50"}).exitCode, 0);
    // An interrupted prepare leaves no completion marker.
    sqlite(dir.file("half.sqlite"), "DELETE FROM BLOBBENCH_DATASET WHERE NAME = 'complete'");
    const auto r = runCli({"run", db});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("no complete reference data set"), std::string::npos) << r.err;
}
