// Hostile round 5l (docs/hostile-round-5l-2026-12-06.md) without a server: prepare over reference
// tables BlobBench did not make (D3), and the insert study with the client stopped inside its timed
// inserts (S5). The cases on the real servers: tests/integration/test_round5l_servers.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "engine/drivers/mariadb/MariadbConnectionString.h"
#include "support/TestSupport.h"

using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

std::string sqliteValue(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    std::string value;
    if (sqlite3_open(path.c_str(), &db) == SQLITE_OK) {
        sqlite3_exec(
            db, sql.c_str(),
            [](void* out, int, char** values, char**) {
                *static_cast<std::string*>(out) = values[0] != nullptr ? values[0] : "";
                return 0;
            },
            &value, nullptr);
    }
    sqlite3_close(db);
    return value;
}

TEST(Round5l, PrepareRefusesToDropReferenceTablesItDidNotMakeAndReplacesThemWhenAsked) {
    TempDir dir;
    const std::string file = dir.file("art.db");
    sqliteValue(file,
                "CREATE TABLE BLOB_TEST (ID INTEGER PRIMARY KEY, SHORT_CONTENT TEXT, CONTENT TEXT, SHORT_BLOB "
                "INTEGER); INSERT INTO BLOB_TEST VALUES (1, 'a', 'mine', 1), (2, 'b', 'mine too', 1)");
    const auto refused = runCli({"prepare", "sqlite:" + file, "--rows", "3", "-q"});
    EXPECT_EQ(refused.exitCode, 2) << refused.err;
    EXPECT_EQ(refused.out, "");
    EXPECT_NE(refused.err.find("BLOB_TEST holds 2 rows that BlobBench did not prepare"), std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("prepare --replace"), std::string::npos) << refused.err;
    EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
    EXPECT_EQ(sqliteValue(file, "SELECT group_concat(CONTENT) FROM BLOB_TEST"), "mine,mine too") << "untouched";

    const auto replaced = runCli({"prepare", "sqlite:" + file, "--rows", "3", "-q", "--replace"});
    ASSERT_EQ(replaced.exitCode, 0) << replaced.err;
    EXPECT_EQ(sqliteValue(file, "SELECT count(*) FROM BLOB_TEST"), "3");
    // Now BlobBench's own (BLOBBENCH_DATASET beside it): prepared again without --replace.
    const auto again = runCli({"prepare", "sqlite:" + file, "--rows", "4", "-q"});
    EXPECT_EQ(again.exitCode, 0) << again.err;
    EXPECT_EQ(sqliteValue(file, "SELECT count(*) FROM BLOB_TEST"), "4");
}

TEST(Round5l, ASampleTableWithRowsIsRefusedAndAnEmptyForeignTableIsReplaced) {
    TempDir dir;
    const std::string samples = dir.file("samples.db");
    sqliteValue(samples,
                "CREATE TABLE BLOB_SAMPLE (ID INTEGER, FILE_NAME TEXT, CONTENT TEXT); INSERT INTO "
                "BLOB_SAMPLE VALUES (1, 'a.c', 'int main;')");
    const auto refused = runCli({"prepare", "sqlite:" + samples, "--rows", "3", "-q"});
    EXPECT_EQ(refused.exitCode, 2) << refused.err;
    EXPECT_NE(refused.err.find("BLOB_SAMPLE holds 1 row that"), std::string::npos) << refused.err;
    const std::string empty = dir.file("empty.db");
    sqliteValue(empty, "CREATE TABLE BLOB_TEST (ID INTEGER)");
    const auto prepared = runCli({"prepare", "sqlite:" + empty, "--rows", "3", "-q"});
    EXPECT_EQ(prepared.exitCode, 0) << "nothing to lose: " << prepared.err;
    const auto misplaced = runCli({"run", "sqlite:" + empty, "--replace"});
    EXPECT_EQ(misplaced.exitCode, 2);
    EXPECT_NE(misplaced.err.find("--replace is an option of prepare"), std::string::npos) << misplaced.err;
}

// S5: a client stopped inside the insert study's timed inserts; its inserts/s hold the pause, and the
// result says so (in the report and the JSON), as a run's sample does.
TEST(Round5l, TheInsertStudySaysWhenTheClientWasStoppedDuringItsInserts) {
    TempDir dir;
    const std::string json = dir.file("insert.json");
    const std::string folder = dir.file("ins");
    std::filesystem::create_directory(folder);
    CliProcess study({"storage", "insert", folder, "--variant", "bind", "--rows", "400000", "--size", "100",
                      "--commit-every", "1000", "-q", "--json", json});
    // The variant's database exists once its inserts are under way.
    study.waitForFile(folder + "/insert-bind.sqlite");
    std::this_thread::sleep_for(100ms);
    study.stopFor(1800ms);
    const auto r = study.wait(120s);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    QFile file(QString::fromStdString(json));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonArray results =
        QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("results")).toArray();
    ASSERT_EQ(results.size(), 1);
    const QJsonObject result = results.at(0).toObject();
    if (result.value(QStringLiteral("elapsedNs")).toDouble() < 1.8e9) {
        GTEST_SKIP() << "the inserts ended before the stop ("
                     << result.value(QStringLiteral("elapsedNs")).toDouble() / 1e9 << " s)";
    }
    EXPECT_TRUE(result.value(QStringLiteral("disturbed"))
                    .toString()
                    .startsWith(QStringLiteral("the client was stopped or suspended for ")))
        << r.out;
    EXPECT_NE(r.out.find("disturbed: the client was stopped or suspended"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// E2: the port libmariadb connects to when the URI names none, which the relay must stand in front of
// too: an option file's (read_default_file) before MYSQL_TCP_PORT before 3306.
TEST(Round5l, AMariadbTargetWithoutAPortConnectsWhereLibmariadbWould) {
    using blobbench::mariadb::parseMariadbTarget;
    TempDir dir;
    const std::string cnf = dir.file("my.cnf");
    {
        std::ofstream out(cnf);
        out << "# options\n[mysqld]\nport=1111\n[client]\nuser = bb\n port = 3399 \n[other]\nport=2222\n";
    }
    unsetenv("MYSQL_TCP_PORT");
    EXPECT_EQ(parseMariadbTarget("mariadb://bb@127.0.0.1/db").tcpPort(), 3306);
    EXPECT_EQ(parseMariadbTarget("mariadb://bb@127.0.0.1:3307/db?read_default_file=" + cnf).tcpPort(), 3307)
        << "the port written wins";
    EXPECT_EQ(parseMariadbTarget("mariadb://bb@127.0.0.1/db?read_default_file=" + cnf).tcpPort(), 3399);
    EXPECT_EQ(parseMariadbTarget("mariadb://bb@127.0.0.1/db?read_default_file=" + cnf + "&read_default_group=other")
                  .tcpPort(),
              2222)
        << "the named group, read after [client]";
    setenv("MYSQL_TCP_PORT", "3398", 1);
    EXPECT_EQ(parseMariadbTarget("mariadb://bb@127.0.0.1/db").tcpPort(), 3398);
    EXPECT_EQ(parseMariadbTarget("mariadb://bb@127.0.0.1/db?read_default_file=" + cnf).tcpPort(), 3399)
        << "the option file before the variable";
    // Round 5m E1: a comment after the value, quotes around it, and !include.
    const std::string quoted = dir.file("quoted.cnf");
    {
        std::ofstream out(quoted);
        out << "[client]\nport = \"3397\" # the test's own\n";
    }
    EXPECT_EQ(parseMariadbTarget("mariadb://bb@127.0.0.1/db?read_default_file=" + quoted).tcpPort(), 3397);
    const std::string including = dir.file("including.cnf");
    {
        std::ofstream out(including);
        out << "[client]\nuser=bb\n!include " << quoted << "\n";
    }
    EXPECT_EQ(parseMariadbTarget("mariadb://bb@127.0.0.1/db?read_default_file=" + including).tcpPort(), 3397);
    setenv("MYSQL_TCP_PORT", "not-a-port", 1);
    EXPECT_EQ(parseMariadbTarget("mariadb://bb@127.0.0.1/db").tcpPort(), 3306);
    unsetenv("MYSQL_TCP_PORT");
}

// EC1: a sessions run reports no compression estimate: asking for one is refused before connecting.
TEST(Round5l, ACompressionEstimateIsRefusedForASessionsRun) {
    for (const std::vector<std::string>& ask :
         {std::vector<std::string>{"--estimate-compression"}, {"-P", "wire_compression_estimate=true"}}) {
        std::vector<std::string> args = {"run", "postgresql://nobody@127.0.0.1:1/none", "--sessions", "2", "--duration",
                                         "1"};
        args.insert(args.end(), ask.begin(), ask.end());
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_NE(r.err.find("is not available with --sessions"), std::string::npos) << r.err;
    }
}

}  // namespace
