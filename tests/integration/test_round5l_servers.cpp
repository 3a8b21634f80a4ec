// Hostile round 5l (docs/hostile-round-5l-2026-12-06.md) on the real PostgreSQL: prepare over a
// blob_test BlobBench did not make (D3), and bytea with the client stopped inside its measured spans
// (S5). MariaDB's counters under TLS (T1) are in test_mariadb.cpp; the cases without a server in
// tests/unit/test_round5l.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <chrono>
#include <string>
#include <thread>

#include "support/PgSupport.h"
#include "support/TestSupport.h"

using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

std::string pgConninfo() {
    const char* c = std::getenv("BLOBBENCH_PG_CONNINFO");
    return c != nullptr ? c : "";
}

TEST(Round5lServers, PrepareLeavesAPostgresBlobTestOfSomeoneElsesAlone) {
    if (pgConninfo().empty()) {
        GTEST_SKIP() << "BLOBBENCH_PG_CONNINFO not set";
    }
    const auto own = blobbench::test::createOwnPgDatabase(pgConninfo(), "round5l_d3_" + std::to_string(getpid()));
    const auto env = blobbench::test::pgTarget(pgConninfo()).env();
    {
        blobbench::test::PgConn c(own.conninfo);
        c.value("CREATE TABLE blob_test (id integer, short_content text, content text, short_blob integer)");
        c.value("INSERT INTO blob_test VALUES (1, 'a', 'theirs', 1)");
    }
    const auto refused = runCli({"prepare", own.target, "--rows", "3", "-q"}, env);
    EXPECT_EQ(refused.exitCode, 2) << refused.err;
    EXPECT_NE(refused.err.find("BLOB_TEST holds 1 row that BlobBench did not prepare"), std::string::npos)
        << refused.err;
    {
        blobbench::test::PgConn c(own.conninfo);
        EXPECT_EQ(c.value("SELECT content FROM blob_test"), "theirs");
    }
    const auto replaced = runCli({"prepare", own.target, "--rows", "3", "-q", "--replace"}, env);
    EXPECT_EQ(replaced.exitCode, 0) << replaced.err;
    blobbench::test::PgConn c(pgConninfo());
    c.value("DROP DATABASE IF EXISTS " + own.name);
}

// S5: bytea's times with the client stopped inside a measured span; the path is said disturbed (its
// samples too). A stop that falls between spans (a TRUNCATE, a connect) disturbs none: tried again.
TEST(Round5lServers, ByteaSaysWhichPathTheStoppedClientDisturbed) {
    if (pgConninfo().empty()) {
        GTEST_SKIP() << "BLOBBENCH_PG_CONNINFO not set";
    }
    blobbench::test::ensurePgData(pgConninfo());
    const auto target = blobbench::test::pgTarget(pgConninfo());
    const std::string uri = "postgresql://" + target.user + "@" + target.host + ":" + target.port + "/" + target.dbname;
    bool disturbed = false;
    for (int attempt = 0; attempt < 3 && !disturbed; ++attempt) {
        TempDir dir;
        const std::string json = dir.file("bytea.json");
        CliProcess bytea({"bytea", uri, "--size", "8M", "-r", "2", "--bandwidth", "100M", "--json", json},
                         target.env());
        std::this_thread::sleep_for(1500ms);
        bytea.stopFor(1500ms);
        const auto r = bytea.wait(120s);
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
        const bool said = r.out.find("Disturbed: ") != std::string::npos;
        EXPECT_EQ(said, marked > 0) << r.out;
        disturbed = said;
    }
    EXPECT_TRUE(disturbed) << "a 1.5 s stop in three runs never fell inside a measured span";
}

}  // namespace
