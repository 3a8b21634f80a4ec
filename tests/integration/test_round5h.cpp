// Hostile round 5h (docs/hostile-round-5h-2026-12-06.md) on the real servers: sessions connecting to
// Firebird 3 at once crashed the process while the client library was being loaded (C1), and
// `storage insert` sent the Firebird password (ISC_PASSWORD) to a PostgreSQL server (P3). The
// connection totals of cancelled statements (W7) are tested in test_sessions_truth.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "support/FirebirdSupport.h"
#include "support/PgSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::runCli;

namespace {

struct DropPgDatabaseAtEnd {
    std::string conninfo, name;
    ~DropPgDatabaseAtEnd() {
        test::PgConn admin(conninfo);
        admin.value("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
};

}  // namespace

// C1: the first session loaded the system client (dlopen) while the others, connecting counted
// in-process, patched the GOT of every client library loaded: the loader listed libfbclient.so.2
// before relocating it, a patch set its page back to read-only, and the loader's own relocation
// faulted (SIGSEGV in about one run in four with 2 or 3 sessions, before anything was printed).
TEST(Round5h, Firebird3SessionsConnectingAtOnceNeverCrashTheProcess) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    ASSERT_EQ(test::ensureFirebirdData(database, user, password), "");
    for (int attempt = 0; attempt < 12; ++attempt) {
        const auto r = runCli(
            {"run", database, "-u", user, "-p", password, "-s", "short-blobs", "--sessions", "3", "-r", "1", "-q"});
        ASSERT_EQ(r.exitCode, 0) << "attempt " << attempt << " (139: the crash): " << r.err;
    }
}

// P3: an empty password was filled from ISC_PASSWORD for every engine, so a PostgreSQL server received
// the Firebird password in clear (and the study failed to authenticate whenever ISC_PASSWORD was set).
TEST(Round5h, StorageInsertOnPostgresTakesNoFirebirdPassword) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const auto own = test::createOwnPgDatabase(conninfo, "h5h_round5h_p3_" + std::to_string(getpid()));
    const DropPgDatabaseAtEnd dropped{conninfo, own.name};
    std::vector<std::string> env = test::pgTarget(conninfo).env();
    env.push_back("ISC_PASSWORD=the-firebird-password");
    env.push_back("ISC_USER=FIREBIRD_USER");
    const auto r = runCli({"storage", "insert", own.target, "--rows", "10", "--variant", "bytea-main", "-q"}, env);
    EXPECT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_EQ(r.err.find("authentication"), std::string::npos) << r.err;
}
