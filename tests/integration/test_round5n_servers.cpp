// Hostile round 5n (docs/hostile-round-5n-2026-12-06.md) on a real server: prepare over a data set a
// user's view depends on (D5). The drop failed unsaid after BlobBench's marker was gone, the create then
// said "relation blob_test already exists", and the data set read as not BlobBench's from then on.
// The cases without a server: tests/unit/test_round5n.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "support/PgSupport.h"
#include "support/TestSupport.h"

using blobbench::test::runCli;

namespace {

TEST(Round5nServers, PrepareSaysWhatDependsOnBlobTestAndDropsNothing) {
    const char* conninfo = std::getenv("BLOBBENCH_PG_CONNINFO");
    if (conninfo == nullptr || *conninfo == '\0') {
        GTEST_SKIP() << "BLOBBENCH_PG_CONNINFO not set";
    }
    const auto own = blobbench::test::createOwnPgDatabase(conninfo, "round5n_d5_" + std::to_string(getpid()));
    const auto target = blobbench::test::pgTarget(conninfo);
    ASSERT_EQ(runCli({"prepare", own.target, "--rows", "20", "-q"}, target.env()).exitCode, 0);
    {
        blobbench::test::PgConn c(own.conninfo);
        c.value("CREATE VIEW v_mine AS SELECT id FROM blob_test");
    }
    for (const char* replace : {"", "--replace"}) {
        SCOPED_TRACE(replace);
        std::vector<std::string> args = {"prepare", own.target, "--rows", "5", "-q"};
        if (*replace != '\0') {
            args.emplace_back(replace);
        }
        const auto refused = runCli(args, target.env());
        EXPECT_EQ(refused.exitCode, 1) << refused.err;
        EXPECT_NE(refused.err.find("cannot drop table blob_test because other objects depend on it"), std::string::npos)
            << refused.err;
        EXPECT_NE(refused.err.find("(dropping BLOB_TEST to prepare it again"), std::string::npos) << refused.err;
        EXPECT_EQ(refused.err.find("already exists"), std::string::npos) << refused.err;
        blobbench::test::PgConn c(own.conninfo);
        EXPECT_EQ(c.value("SELECT count(*) FROM blob_test"), "20");
        EXPECT_EQ(c.value("SELECT val FROM blobbench_dataset WHERE name = 'rows'"), "20") << "the marker is kept";
    }
    // The data set is still BlobBench's: it runs, and once the view goes it is prepared again.
    const auto run = runCli({"run", own.target, "-s", "all-blobs", "-r", "1", "-q"}, target.env());
    EXPECT_EQ(run.exitCode, 0) << run.err;
    {
        blobbench::test::PgConn c(own.conninfo);
        c.value("DROP VIEW v_mine");
    }
    EXPECT_EQ(runCli({"prepare", own.target, "--rows", "5", "-q"}, target.env()).exitCode, 0);
    blobbench::test::PgConn c(conninfo);
    c.value("DROP DATABASE IF EXISTS " + own.name);
}

}  // namespace
