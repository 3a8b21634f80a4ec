// Hostile round 5m (docs/hostile-round-5m-2026-12-06.md) on the real servers: the fb-blob-test
// compatible mode (S2) and reproduce's bytea publication (S3) with the client stopped inside what
// they time, and prepare over a PostgreSQL blob_test earlier in the search_path (D2). The cases
// without a server: tests/unit/test_round5m.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "support/PgSupport.h"
#include "support/TestSupport.h"

using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? v : "";
}

// S2: the compatible mode's report keeps fb-blob-test's layout; the stop is a line on stderr and the
// sample's `disturbed`. A stop that falls between statements disturbs none: tried again.
TEST(Round5mServers, TheCompatibleModeSaysWhichTestTheStoppedClientDisturbed) {
    const std::string database = env("BLOBBENCH_FB_DATABASE");
    if (database.empty()) {
        GTEST_SKIP() << "BLOBBENCH_FB_DATABASE not set";
    }
    ASSERT_EQ(blobbench::test::ensureFirebirdData(database, env("BLOBBENCH_FB_USER"), env("BLOBBENCH_FB_PASSWORD")),
              "");
    bool said = false;
    for (int attempt = 0; attempt < 3 && !said; ++attempt) {
        TempDir dir;
        const std::string json = dir.file("compat.json");
        CliProcess compat({"-d", database, "-u", env("BLOBBENCH_FB_USER"), "-r", "30", "--json", json},
                          {"ISC_PASSWORD=" + env("BLOBBENCH_FB_PASSWORD")});
        std::this_thread::sleep_for(800ms);
        compat.stopFor(1500ms);
        const auto r = compat.wait(120s);
        ASSERT_EQ(r.exitCode, 0) << r.err;
        QFile file(QString::fromStdString(json));
        ASSERT_TRUE(file.open(QIODevice::ReadOnly));
        int marked = 0;
        for (const auto& s :
             QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("samples")).toArray()) {
            marked += s.toObject()
                              .value(QStringLiteral("disturbed"))
                              .toString()
                              .startsWith(QStringLiteral("the client was stopped"))
                          ? 1
                          : 0;
        }
        said = r.err.find("the client was stopped or suspended for") != std::string::npos;
        EXPECT_EQ(said, marked > 0) << r.err;
        EXPECT_EQ(r.out.find("stopped"), std::string::npos) << "the report keeps fb-blob-test's layout";
    }
    EXPECT_TRUE(said) << "a 1.5 s stop in three runs never fell inside a statement";
}

// S3: a disturbed path's times give no verdict; the bytes received still do.
TEST(Round5mServers, ReproduceDrawsNoVerdictFromTimesAStoppedClientDisturbed) {
    const std::string conninfo = env("BLOBBENCH_PG_CONNINFO");
    if (conninfo.empty()) {
        GTEST_SKIP() << "BLOBBENCH_PG_CONNINFO not set";
    }
    const auto target = blobbench::test::pgTarget(conninfo);
    const std::string uri = "postgresql://" + target.user + "@" + target.host + ":" + target.port + "/" + target.dbname;
    bool disturbed = false;
    for (int attempt = 0; attempt < 3 && !disturbed; ++attempt) {
        CliProcess reproduce({"reproduce", "postgres-bytea-2007", uri, "--size", "262144"}, target.env());
        std::this_thread::sleep_for(1500ms);
        reproduce.stopFor(1500ms);
        const auto r = reproduce.wait(180s);
        ASSERT_EQ(r.exitCode, 0) << r.err;
        disturbed = r.out.find("disturbed: ") != std::string::npos;
        if (disturbed) {
            EXPECT_NE(r.out.find("the client was stopped or suspended during the measured spans"), std::string::npos)
                << r.out;
            EXPECT_NE(r.out.find("Verdicts: 1 reproduced, 0 differ, 7 not comparable here"), std::string::npos)
                << r.out;
        }
    }
    EXPECT_TRUE(disturbed) << "a 1.5 s stop in three runs never fell inside a measured span";
}

// D2: a blob_test of the user's in a schema before BlobBench's in the search_path is another table.
TEST(Round5mServers, PrepareLeavesABlobTestEarlierInTheSearchPathAlone) {
    const std::string conninfo = env("BLOBBENCH_PG_CONNINFO");
    if (conninfo.empty()) {
        GTEST_SKIP() << "BLOBBENCH_PG_CONNINFO not set";
    }
    const auto own = blobbench::test::createOwnPgDatabase(conninfo, "round5m_d2_" + std::to_string(getpid()));
    const auto target = blobbench::test::pgTarget(conninfo);
    ASSERT_EQ(runCli({"prepare", own.target, "--rows", "20", "-q"}, target.env()).exitCode, 0);
    {
        blobbench::test::PgConn c(own.conninfo);
        c.value("CREATE SCHEMA u");
        c.value("CREATE TABLE u.blob_test (id integer, short_content text, content text, short_blob integer)");
        c.value("INSERT INTO u.blob_test VALUES (1, 'a', 'theirs', 1)");
    }
    const auto refused =
        runCli({"prepare", own.target + "?options=-csearch_path%3Du,public", "--rows", "5", "-q"}, target.env());
    EXPECT_EQ(refused.exitCode, 2) << refused.err;
    EXPECT_NE(refused.err.find("BLOB_TEST holds 1 row where BlobBench prepared 20"), std::string::npos) << refused.err;
    {
        blobbench::test::PgConn c(own.conninfo);
        EXPECT_EQ(c.value("SELECT content FROM u.blob_test"), "theirs");
        EXPECT_EQ(c.value("SELECT count(*) FROM public.blob_test"), "20");
    }
    blobbench::test::PgConn c(conninfo);
    c.value("DROP DATABASE IF EXISTS " + own.name);
}

}  // namespace
