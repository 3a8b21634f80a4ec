// Hostile round 5n (docs/hostile-round-5n-2026-12-06.md) without a server: prepare over BlobBench's own
// BLOB_TEST with a row swapped or changed (D1) and over a BLOB_SAMPLE with a user's row (D2), a marker
// changed by hand (D6), --compare of a file an output then overwrites (F7) or that is no file (I7), and
// reproduce sqlite-35-percent with the client stopped (S7). Predict and a disturbed sample (S6):
// test_predict_cli; a view on BLOB_TEST (D5): test_round5n_servers.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "support/TestSupport.h"

using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

std::string sqliteValue(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    std::string value;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW) {
        const unsigned char* text = sqlite3_column_text(stmt, 0);
        value = text != nullptr ? reinterpret_cast<const char*>(text) : "";
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
}

TEST(Round5n, PrepareRefusesABlobTestWithARowSwappedOrChanged) {
    TempDir dir;
    const std::string file = dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "30", "-q"}).exitCode, 0);
    struct Case {
        const char* what;
        std::vector<std::string> change;
        const char* says;
    };
    for (const Case& c : {Case{"a row swapped for the user's, as many rows",
                               {"DELETE FROM BLOB_TEST WHERE ID = 30",
                                "INSERT INTO BLOB_TEST VALUES (1001, 'mine', 'my precious row', 0)"},
                               "BLOB_TEST holds ids 1..1001 and "},
                          Case{"a value the user changed",
                               {"UPDATE BLOB_TEST SET CONTENT = 'mine' WHERE ID = 7"},
                               "BLOB_TEST holds ids 1..30 and "}}) {
        SCOPED_TRACE(c.what);
        const std::string copy = dir.file("copy.db");
        std::filesystem::copy_file(file, copy, std::filesystem::copy_options::overwrite_existing);
        blobbench::test::sqliteExecute(copy, c.change);
        const std::string before =
            sqliteValue(copy, "SELECT group_concat(ID || ':' || length(CONTENT)) FROM BLOB_TEST");
        const auto refused = runCli({"prepare", "sqlite:" + copy, "--rows", "3", "-q"});
        EXPECT_EQ(refused.exitCode, 2) << refused.err;
        EXPECT_NE(refused.err.find(c.says), std::string::npos) << refused.err;
        EXPECT_NE(refused.err.find("rows were changed since"), std::string::npos) << refused.err;
        EXPECT_EQ(sqliteValue(copy, "SELECT group_concat(ID || ':' || length(CONTENT)) FROM BLOB_TEST"), before);
        EXPECT_EQ(runCli({"prepare", "sqlite:" + copy, "--rows", "3", "-q", "--replace"}).exitCode, 0);
    }
    EXPECT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "5", "-q"}).exitCode, 0) << "unchanged: its own";
}

TEST(Round5n, PrepareRefusesABlobSampleWithTheUsersRows) {
    TempDir dir;
    const std::string file = dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "3", "-q"}).exitCode, 0);
    blobbench::test::sqliteExecute(file,
                                   {"INSERT INTO BLOB_SAMPLE VALUES (1001, 'my/file.txt', 'my precious sample')"});
    const auto refused = runCli({"prepare", "sqlite:" + file, "--rows", "3", "-q"});
    EXPECT_EQ(refused.exitCode, 2) << refused.err;
    EXPECT_NE(refused.err.find("BLOB_SAMPLE holds 1 row where BlobBench prepared 0"), std::string::npos) << refused.err;
    EXPECT_EQ(sqliteValue(file, "SELECT FILE_NAME FROM BLOB_SAMPLE"), "my/file.txt");
    // A folder's data set keeps a row per file: preparing it again is its own business.
    const std::string folder = dir.file("files");
    std::filesystem::create_directory(folder);
    blobbench::test::writeFile(folder + "/a.txt", std::string(3000, 'a'));
    blobbench::test::writeFile(folder + "/b.txt", std::string(5000, 'b'));
    const std::string fromFolder = dir.file("f.db");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + fromFolder, "--from-folder", folder, "--rows", "4", "-q"}).exitCode, 0);
    EXPECT_EQ(sqliteValue(fromFolder, "SELECT COUNT(*) FROM BLOB_SAMPLE"), "2");
    const auto again = runCli({"prepare", "sqlite:" + fromFolder, "--from-folder", folder, "--rows", "4", "-q"});
    EXPECT_EQ(again.exitCode, 0) << again.err;
}

TEST(Round5n, AMarkerChangedByHandIsOneLine) {
    TempDir dir;
    const std::string file = dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "3", "-q"}).exitCode, 0);
    blobbench::test::sqliteExecute(file, {"UPDATE BLOBBENCH_DATASET SET VAL = 'abc' WHERE NAME = 'rows'"});
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"run", "sqlite:" + file, "-s", "all-blobs", "-r", "1", "-q"},
          std::vector<std::string>{"prepare", "sqlite:" + file, "--rows", "3", "-q"}}) {
        SCOPED_TRACE(args[0]);
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 1) << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("BLOBBENCH_DATASET holds rows = 'abc', not a whole number"), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    EXPECT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "3", "-q", "--replace"}).exitCode, 0);
}

TEST(Round5n, CompareWithAFileAnOutputWouldOverwriteIsRefused) {
    TempDir dir;
    const std::string base = dir.file("b.json");
    blobbench::test::writeFile(base, "{\"samples\": []}");
    const std::string project = dir.file("p.blobbench.json");  // refused before it is read
    for (const char* option : {"--json", "--csv", "--markdown"}) {
        SCOPED_TRACE(option);
        const auto r = runCli({"run", project, "-r", "1", "--no-save", "--compare", base, option, base});
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_NE(r.err.find(std::string("--compare and ") + option + " name the same file"), std::string::npos)
            << r.err;
        EXPECT_EQ(blobbench::test::readFile(base), "{\"samples\": []}");
    }
}

TEST(Round5n, CompareWithAFifoOrAFolderSaysWhatItIs) {
    TempDir dir;
    const std::string db = dir.file("c.sqlite");
    blobbench::test::sqliteExecute(db, {"CREATE TABLE t(x)"});
    const std::string project = dir.file("p.blobbench.json");
    blobbench::test::writeFile(project, R"({"formatVersion": 1, "name": "i7", "currentConnection": 0, "connections": [
            {"name": "sqlite", "engine": "sqlite", "target": "sqlite:)" +
                                            db + R"("}],
          "scenarios": [{"id": "one", "sql": "SELECT 1"}]})");
    const std::string fifo = dir.file("f");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string& what : {fifo, dir.path().string()}) {
        SCOPED_TRACE(what);
        const auto r = runCli({"run", project, "-r", "1", "--no-save", "-q", "--compare", what});
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_EQ(r.err.find("no such file"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("--compare: " + what + ": "), std::string::npos) << r.err;
    }
}

// I6: prepare's and bytea's options given to run were ignored; I10: a variant of another engine ran
// nothing and said complete; D8: a database inside the folder it is prepared from read itself.
TEST(Round5n, OptionsACommandWouldIgnoreAreRefused) {
    TempDir dir;
    const std::string db = "sqlite:" + dir.file("s.db");
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    const std::vector<Case> cases = {
        {{"run", db, "--rows", "7"}, "--rows is an option of prepare"},
        {{"run", db, "--seed", "5"}, "--seed is an option of prepare"},
        {{"run", db, "--binary"}, "--binary is an option of prepare"},
        {{"run", db, "--from-folder", dir.path().string()}, "--from-folder is an option of prepare"},
        {{"run", db, "--batch", "10"}, "--batch is an option of prepare"},
        {{"run", db, "--size", "5"}, "--size is an option of bytea"},
        {{"prepare", db, "--size", "5"}, "--size is an option of bytea"},
        {{"storage", "insert", "sqlite:" + dir.file("ins"), "--variant", "bytea-copy", "--rows", "3"},
         "--variant bytea-copy is not a variant of sqlite (sqlite: "},
        {{"prepare", "sqlite:" + dir.file("src/x.db"), "--from-folder", dir.file("src"), "--rows", "3"},
         "holds the database being prepared"},
    };
    std::filesystem::create_directory(dir.file("src"));
    blobbench::test::writeFile(dir.file("src/a.bin"), std::string(100, 'a'));
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::PrintToString(c.args));
        const auto r = runCli(c.args);
        EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("s.db"))) << "refused before anything was made";
    EXPECT_FALSE(std::filesystem::exists(dir.file("src/x.db")));
    // run on the default data set takes them for preparing it.
    const auto defaults =
        runCli({"--rows", "20", "-q", "-s", "short-blobs"}, {"BLOBBENCH_DATA_DIR=" + dir.file("data")});
    EXPECT_EQ(defaults.exitCode, 0) << defaults.err;
}

TEST(Round5n, ReproduceDrawsNoVerdictFromTimesTheStoppedClientIsIn) {
    TempDir dir;
    const std::string folder = dir.file("r35");
    CliProcess reproduce({"reproduce", "sqlite-35-percent", folder, "--rows", "20000"});
    reproduce.waitForFile(folder);
    std::this_thread::sleep_for(300ms);
    reproduce.stopFor(1800ms);
    const auto r = reproduce.wait(180s);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    ASSERT_NE(r.out.find("disturbed: the client was stopped"), std::string::npos) << r.out;
    std::size_t withheld = 0;
    for (std::size_t at = r.out.find('\n'); at != std::string::npos; at = r.out.find('\n', at + 1)) {
        const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
        if (line.find(" time ") == std::string::npos || line.find(" (x) ") == std::string::npos) {
            continue;  // the time ratios' rows
        }
        EXPECT_NE(line.find("not comparable here: the client was stopped or suspended"), std::string::npos) << line;
        ++withheld;
    }
    EXPECT_EQ(withheld, 4U) << r.out;
    // The footprint is the file system's: still judged.
    EXPECT_EQ(r.out.find("database / files size (x)") == std::string::npos, false) << r.out;
    const std::string ratio = r.out.substr(r.out.find("database / files size (x)"));
    EXPECT_EQ(ratio.substr(0, ratio.find('\n')).find("stopped or suspended"), std::string::npos) << ratio;
}

}  // namespace
