// Hostile round 5f (docs/hostile-round-5f-2026-12-04.md) on the real servers: `storage insert` over a
// PostgreSQL table (D2) and a Firebird database (D3) of the user's named like the study's own, what
// a SIGTERM during the large-object variant leaves (D4), and two `check fb9060` at once in two PID
// namespaces (D1). The cases without a server: tests/unit/test_cli_round5f.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/CancelToken.h"
#include "engine/drivers/Driver.h"
#include "engine/drivers/firebird/FirebirdDriver.h"
#include "support/FirebirdSupport.h"
#include "support/PgSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::runCli;

namespace {

long lines(const std::string& text) {
    return std::count(text.begin(), text.end(), '\n');
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A folder of the test's own beside the Firebird 5 server's shared database (the server writes
// there), and targets in it: inet://HOST:PORT/<folder>/NAME. Its databases are dropped and the
// folder removed with the object, also after a failure.
class Fb5Folder {
public:
    Fb5Folder(const std::string& shared, const std::string& name, std::string user, std::string password)
        : m_prefix(shared.substr(0, shared.find("//", 6) + 1)),
          m_folder(std::filesystem::path(shared.substr(m_prefix.size())).parent_path() / name),
          m_user(std::move(user)),
          m_password(std::move(password)) {
        std::filesystem::remove_all(m_folder);
        std::filesystem::create_directories(m_folder);
        std::filesystem::permissions(m_folder, std::filesystem::perms::all);  // the server's user creates files
    }
    ~Fb5Folder() {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(m_folder, ec)) {
            if (entry.path().extension() == ".fdb") {
                test::dropFirebirdDatabase(m_prefix + entry.path().string(), m_user, m_password);
            }
        }
        std::filesystem::remove_all(m_folder, ec);
    }
    Fb5Folder(const Fb5Folder&) = delete;
    Fb5Folder& operator=(const Fb5Folder&) = delete;
    const std::filesystem::path& folder() const { return m_folder; }
    std::string target(const std::string& name) const { return m_prefix + (m_folder / name).string(); }

private:
    std::string m_prefix;  // "inet://127.0.0.1:3051/"
    std::filesystem::path m_folder;
    std::string m_user, m_password;
};

// Drops the test's own PostgreSQL database at the end, also after a failure.
struct DropPgDatabaseAtEnd {
    std::string conninfo, name;
    ~DropPgDatabaseAtEnd() {
        test::PgConn admin(conninfo);
        admin.value("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
};

std::vector<std::string> filesIn(const std::filesystem::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) {
        out += n + " ";
    }
    return out;
}

// The first column of each row of `sql` on a Firebird database, through the system client.
std::string firebirdValues(const std::string& target, const std::string& user, const std::string& password,
                           const std::string& sql) {
    class Cells final : public RowSink {
    public:
        std::string text;
        void integer(std::size_t, std::int64_t value) override { text += std::to_string(value); }
        void null(std::size_t) override {}
        void chunk(std::size_t, std::string_view bytes) override { text.append(bytes); }
        void endRow() override { text += ' '; }
    };
    FirebirdDriver driver;
    ConnectionSpec spec{"firebird", target};
    spec.user = user;
    spec.password = password;
    auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
    Cells cells;
    session->query(QuerySpec{sql}, cells, CancelToken());
    return cells.text;
}

}  // namespace

// D2: `storage insert` on PostgreSQL dropped a table bb_storage_insert of the user's and unlinked its
// large objects, exit 0, no word. The study marks its own table; another one is refused, naming it.
TEST(Round5fServers, StorageInsertLeavesAPostgresTableOfTheUsersAlone) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const auto own = test::createOwnPgDatabase(conninfo, "h5f_round5f_d2_" + std::to_string(getpid()));
    const DropPgDatabaseAtEnd dropped{conninfo, own.name};
    const auto pg = test::pgTarget(conninfo);
    {
        test::PgConn c(own.conninfo);
        ASSERT_TRUE(c.ok()) << c.errorMessage();
        c.value("CREATE TABLE bb_storage_insert(id bigint primary key, v oid, note text)");
        c.value("INSERT INTO bb_storage_insert VALUES (1, lo_from_bytea(0, 'my precious'), 'user data')");
    }
    for (const char* variant : {"bytea-main", "large-object"}) {
        SCOPED_TRACE(variant);
        const auto r = runCli({"storage", "insert", own.target, "--rows", "10", "--variant", variant, "-q"}, pg.env());
        EXPECT_EQ(r.exitCode, 2) << r.err << r.out;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_TRUE(contains(r.err, own.target + " holds a table bb_storage_insert that the study did not create"))
            << r.err;
        test::PgConn c(own.conninfo);
        EXPECT_EQ(c.value("SELECT note || ' ' || convert_from(lo_get(v), 'UTF8') FROM bb_storage_insert"),
                  "user data my precious");
        EXPECT_EQ(c.value("SELECT count(*) FROM pg_largeobject_metadata"), "1");
    }
    // Renamed out of the way: the study runs, and leaves neither its table nor the user's changed.
    {
        test::PgConn c(own.conninfo);
        c.value("ALTER TABLE bb_storage_insert RENAME TO mine");
    }
    const auto r = runCli(
        {"storage", "insert", own.target, "--rows", "10", "--variant", "bytea-main", "--variant", "large-object", "-q"},
        pg.env());
    EXPECT_EQ(r.exitCode, 0) << r.err << r.out;
    test::PgConn c(own.conninfo);
    EXPECT_EQ(c.value("SELECT to_regclass('bb_storage_insert') IS NULL"), "t");
    EXPECT_EQ(c.value("SELECT note || ' ' || convert_from(lo_get(v), 'UTF8') FROM mine"), "user data my precious");
    EXPECT_EQ(c.value("SELECT count(*) FROM pg_largeobject_metadata"), "1");
}

// D4: SIGTERM 1.5 s into `storage insert --variant large-object --commit-every 1000` left thousands
// of large objects and the table, unsaid. A cancel now removes them; when it cannot (the server does
// not answer within the signal's hard deadline: its backend stopped), the line says what is left and
// how to remove it, and the next run does.
TEST(Round5fServers, ASigtermDuringLargeObjectInsertsLeavesNothingUnsaid) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const auto own = test::createOwnPgDatabase(conninfo, "h5f_round5f_d4_" + std::to_string(getpid()));
    const DropPgDatabaseAtEnd dropped{conninfo, own.name};
    const auto pg = test::pgTarget(conninfo);
    test::PgConn watch(own.conninfo);
    ASSERT_TRUE(watch.ok()) << watch.errorMessage();
    for (const bool stopBackend : {false, true}) {
        SCOPED_TRACE(stopBackend ? "backend stopped after the signal" : "plain SIGTERM");
        CliProcess run({"storage", "insert", own.target, "--rows", "20000", "--variant", "large-object",
                        "--commit-every", "1000", "-q"},
                       pg.env());
        bool committed = false;
        for (int i = 0; i < 600 && run.running() && !committed; ++i) {
            std::this_thread::sleep_for(50ms);
            committed = std::stoll("0" + watch.value("SELECT count(*) FROM pg_largeobject_metadata")) >= 2000;
        }
        ASSERT_TRUE(committed) << "no 2000 large objects committed: " << run.errSoFar();
        const std::string backend = watch.value("SELECT pid FROM pg_stat_activity WHERE datname = '" + own.name +
                                                "' AND pid <> pg_backend_pid() LIMIT 1");
        // Stopped before the signal: the insert in flight, the rollback and the cleanup wait on it
        // until the signal's hard deadline shuts the connection down.
        if (stopBackend && (backend.empty() || ::kill(std::stoi(backend), SIGSTOP) != 0)) {
            run.signal(SIGKILL);
            run.wait(30s);
            GTEST_SKIP() << "cannot stop the server's backend (" << backend << ")";
        }
        run.signal(SIGTERM);
        const auto r = run.wait(30s);
        if (stopBackend) {
            ::kill(std::stoi(backend), SIGCONT);
        }
        EXPECT_EQ(r.exitCode, 143) << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_TRUE(r.err.starts_with("blobbench-cli: SIGTERM: storage insert was cancelled; ")) << r.err;
        const bool said =
            contains(r.err, "left behind: the table bb_storage_insert and its large objects in postgres:" + own.target +
                                " (the next storage insert there removes them");
        std::this_thread::sleep_for(500ms);  // the stopped backend, continued, ends its session
        const std::string left = watch.value("SELECT count(*) FROM pg_largeobject_metadata");
        if (stopBackend) {
            EXPECT_TRUE(said) << r.err;
            EXPECT_NE(left, "0") << "nothing was left, yet the line says so: " << r.err;
        } else {
            EXPECT_EQ(left, "0") << "large objects left: " << r.err;
            EXPECT_EQ(watch.value("SELECT to_regclass('bb_storage_insert') IS NULL"), "t") << r.err;
            EXPECT_FALSE(said) << r.err;
        }
    }
    // What the cut cancel left is the study's own (marked): the next run removes it.
    const auto next =
        runCli({"storage", "insert", own.target, "--rows", "10", "--variant", "bytea-main", "-q"}, pg.env());
    EXPECT_EQ(next.exitCode, 0) << next.err;
    EXPECT_EQ(watch.value("SELECT count(*) FROM pg_largeobject_metadata"), "0");
    EXPECT_EQ(watch.value("SELECT to_regclass('bb_storage_insert') IS NULL"), "t");
}

// D3: `storage insert` on Firebird dropped a database of the user's at DIR/bb_storage_blob.fdb ("a
// leftover of an interrupted run"). The study marks the databases it creates; another one is
// refused, naming it, before any variant runs. Its own leftovers, and a cancel's, are still removed.
TEST(Round5fServers, StorageInsertLeavesAFirebirdDatabaseOfTheUsersAlone) {
    BLOBBENCH_REQUIRE_ENV(shared, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    const Fb5Folder dir(shared, "h5f-round5f-d3-" + std::to_string(getpid()), user, password);
    const std::vector<std::string> env = {"ISC_PASSWORD=" + password};
    const std::string mine = dir.target("bb_storage_blob.fdb");
    const std::string target = dir.target("other.fdb");
    for (const std::string& db : {mine, target}) {
        const auto prepared = runCli(
            {"prepare", db, "-u", user, "--client-library", client, "-P", "create_database=true", "--rows", "10", "-q"},
            env);
        ASSERT_EQ(prepared.exitCode, 0) << prepared.err;
    }
    const auto insert = [&](const std::vector<std::string>& more) {
        std::vector<std::string> args = {"storage", "insert", target, "-u", user, "--client-library", client, "-q"};
        args.insert(args.end(), more.begin(), more.end());
        return args;
    };
    const auto refused = runCli(insert({"--rows", "10"}), env);
    EXPECT_EQ(refused.exitCode, 2) << refused.err << refused.out;
    EXPECT_EQ(lines(refused.err), 1) << refused.err;
    EXPECT_TRUE(contains(refused.err, "the database firebird:" + mine + " was not created by the study"))
        << refused.err;
    EXPECT_FALSE(contains(refused.out, "firebird  ")) << "a variant ran: " << refused.out;
    EXPECT_EQ(joined(filesIn(dir.folder())), "bb_storage_blob.fdb other.fdb ");
    const auto read = runCli({"run", mine, "-u", user, "--client-library", client, "-s", "warm-up", "-q"}, env);
    EXPECT_EQ(read.exitCode, 0) << "the user's database was harmed: " << read.err;
    // The variants whose databases are free run, and leave nothing beside the target.
    const auto others = runCli(insert({"--rows", "10", "--variant", "varchar", "--variant", "ibatch"}), env);
    EXPECT_EQ(others.exitCode, 0) << others.err << others.out;
    EXPECT_EQ(joined(filesIn(dir.folder())), "bb_storage_blob.fdb other.fdb ");
    // A run killed outright leaves its marked database; the next run replaces it.
    CliProcess killed(insert({"--rows", "200000", "--variant", "varchar", "--commit-every", "1000"}), env);
    for (int i = 0; i < 600 && killed.running() && !std::filesystem::exists(dir.folder() / "bb_storage_varchar.fdb");
         ++i) {
        std::this_thread::sleep_for(50ms);
    }
    std::this_thread::sleep_for(1s);
    killed.signal(SIGKILL);
    killed.wait(10s);
    ASSERT_TRUE(std::filesystem::exists(dir.folder() / "bb_storage_varchar.fdb")) << killed.errSoFar();
    const auto again = runCli(insert({"--rows", "10", "--variant", "varchar"}), env);
    EXPECT_EQ(again.exitCode, 0) << again.err << again.out;
    EXPECT_EQ(joined(filesIn(dir.folder())), "bb_storage_blob.fdb other.fdb ");
    // A SIGTERM removes the variant's database.
    CliProcess cancelled(insert({"--rows", "200000", "--variant", "varchar", "--commit-every", "1000"}), env);
    for (int i = 0; i < 600 && cancelled.running() && !std::filesystem::exists(dir.folder() / "bb_storage_varchar.fdb");
         ++i) {
        std::this_thread::sleep_for(50ms);
    }
    std::this_thread::sleep_for(1s);
    cancelled.signal(SIGTERM);
    const auto r = cancelled.wait(30s);
    EXPECT_EQ(r.exitCode, 143) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_EQ(joined(filesIn(dir.folder())), "bb_storage_blob.fdb other.fdb ") << r.err;
    EXPECT_EQ(firebirdValues(mine, user, password, "SELECT COUNT(*) FROM BLOB_TEST"), "10 ");
}

// D1: two `check fb9060` at once in two PID namespaces (both pid 1) met on BLOBBENCH_FB9060_1: one
// failed (a primary key of RDB$RELATIONS, or a deadlock in its DROP). Each names its table by the
// run now, and a DDL that meets the other's in the system tables is tried again.
TEST(Round5fServers, TwoChecksFb9060AtOnceWithOnePidBothRun) {
    BLOBBENCH_REQUIRE_ENV(shared, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    const std::string unshare = "/usr/bin/unshare";
    if (::access(unshare.c_str(), X_OK) != 0 || test::runProgram(unshare, {"--pid", "--fork", "true"}).exitCode != 0) {
        GTEST_SKIP() << "no PID namespaces here (unshare --pid needs CAP_SYS_ADMIN)";
    }
    const Fb5Folder dir(shared, "h5f-round5f-d1-" + std::to_string(getpid()), user, password);
    const std::string target = dir.target("check.fdb");
    const std::vector<std::string> env = {"ISC_PASSWORD=" + password};
    const auto prepared = runCli(
        {"prepare", target, "-u", user, "--client-library", client, "-P", "create_database=true", "--rows", "10", "-q"},
        env);
    ASSERT_EQ(prepared.exitCode, 0) << prepared.err;
    for (int round = 0; round < 4; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        std::vector<std::unique_ptr<CliProcess>> checks;
        for (int i = 0; i < 2; ++i) {
            checks.push_back(std::make_unique<CliProcess>(
                std::vector<std::string>{"--pid", "--fork", BLOBBENCH_CLI_PATH, "check", "fb9060", target, "-u", user,
                                         "--client-library", client},
                env, -1, std::vector<std::string>{}, unshare));
        }
        const auto first = checks[0]->wait(120s);
        const auto second = checks[1]->wait(120s);
        for (const auto* r : {&first, &second}) {
            EXPECT_TRUE(r->exitCode == 0 || r->exitCode == 4) << r->exitCode << ": " << r->err;
            EXPECT_TRUE(r->err.empty()) << r->err;
            EXPECT_TRUE(contains(r->out, "\nResult: ")) << r->out;
        }
        EXPECT_EQ(first.exitCode, second.exitCode) << "two checks of one server and client disagree";
    }
    EXPECT_EQ(firebirdValues(target, user, password,
                             "SELECT COUNT(*) FROM RDB$RELATIONS WHERE RDB$RELATION_NAME STARTING WITH "
                             "'BLOBBENCH_FB9060_'"),
              "0 ")
        << "a check's table was left";
}
