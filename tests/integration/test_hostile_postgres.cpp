// Hostile input against the real PostgreSQL (issue #21). A scenario whose error is 100,000
// characters long (the server quotes the value it could not cast) crashed blobbench-cli in
// maskSecrets and lost the samples measured before it; now it is one error line, exit code 1, and
// the project's history keeps every sample. A password with an unencoded space or '/' in the URI
// never appears in the JSON, CSV, Markdown or an error line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <QString>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>

#include "engine/data/ReferenceSuite.h"
#include "model/Project.h"
#include "model/ProjectFile.h"
#include "support/PgSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

std::string readAll(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The lines of stderr that are blobbench-cli's own messages.
std::vector<std::string> cliLines(const std::string& err) {
    std::vector<std::string> lines;
    for (std::size_t at = 0; at < err.size();) {
        const auto end = err.find('\n', at);
        const std::string one = err.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (one.starts_with("blobbench-cli: ")) {
            lines.push_back(one);
        }
        at = end == std::string::npos ? err.size() : end + 1;
    }
    return lines;
}

// Neither `secret` nor any of `parts` in the output or any file the run left in `dir`.
void expectNowhere(const std::vector<std::string>& secrets, const TempDir& dir, const test::ProcessResult& r,
                   const std::string& what) {
    for (const std::string& secret : secrets) {
        EXPECT_EQ(r.out.find(secret), std::string::npos) << what << ": stdout holds '" << secret << "':\n" << r.out;
        EXPECT_EQ(r.err.find(secret), std::string::npos) << what << ": stderr holds '" << secret << "':\n" << r.err;
        for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
            if (e.is_regular_file()) {
                EXPECT_EQ(readAll(e.path()).find(secret), std::string::npos)
                    << what << ": " << e.path() << " holds '" << secret << "'";
            }
        }
    }
}

TEST(HostilePostgres, LongServerErrorIsOneLineAndKeepsTheSamples) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    test::ensurePgData(conninfo);
    if (HasFatalFailure()) {
        return;
    }
    TempDir dir;
    Project p;
    p.name = QStringLiteral("Hostile: a 100,000-character server error");
    ConnectionProfile connection;
    connection.name = QStringLiteral("PostgreSQL");
    connection.engine = QStringLiteral("postgres");
    connection.target = q(pg.through(pg.portNumber()));
    p.connections = {connection};
    for (const Scenario& s : referenceSuite(Dialect::PostgreSQL)) {
        ScenarioDef def = ScenarioDef::fromScenario(s);
        def.enabled = s.id == "warm-up" || s.id == "short-blobs";
        p.scenarios.push_back(def);
    }
    ScenarioDef hostile;
    hostile.id = QStringLiteral("long-error");
    hostile.title = QStringLiteral("A cast whose error quotes 100,000 characters");
    hostile.sql = QStringLiteral("SELECT CAST('see https://' || repeat('a', 100000) AS integer)");
    p.scenarios.push_back(hostile);
    const std::string path = dir.file("hostile.blobbench.json");
    saveProject(q(path), p);

    const auto r = runCli({"run", path, "-q", "-r", "2"}, pg.env());
    EXPECT_EQ(r.exitCode, 1) << r.err.substr(0, 500);
    const auto lines = cliLines(r.err);
    ASSERT_EQ(lines.size(), 1u) << r.err.substr(0, 500);
    std::cout << "[hostile line] " << lines[0].substr(0, 220) << "... (" << lines[0].size() << " characters)"
              << std::endl;
    EXPECT_NE(lines[0].find("invalid input syntax for type integer"), std::string::npos) << lines[0].substr(0, 300);
    EXPECT_NE(lines[0].find("see https://aaaa"), std::string::npos) << lines[0].substr(0, 300);

    const Project after = loadProject(q(path));
    ASSERT_EQ(after.history.size(), 1u);
    const RunRecord& run = after.history[0];
    EXPECT_TRUE(run.outcome.startsWith(QStringLiteral("failed: "))) << run.outcome.left(300).toStdString();
    ASSERT_EQ(run.samples.size(), 5u) << "two warm-ups, two short-blobs and the failed one";
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(run.samples[i].status, SampleStatus::Complete) << i;
        EXPECT_GT(run.samples[i].rows, 0u) << i;
    }
    EXPECT_EQ(run.samples[4].scenarioId, "long-error");
    EXPECT_EQ(run.samples[4].status, SampleStatus::Failed);
    EXPECT_NE(run.samples[4].error.find("invalid input syntax for type integer"), std::string::npos);
}

TEST(HostilePostgres, PasswordWithSpaceOrSlashInNoArtefact) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    test::ensurePgData(conninfo);
    if (HasFatalFailure()) {
        return;
    }
    const std::string pid = std::to_string(getpid());
    const std::string role = "hostile1_" + pid;
    // Two words: the old masking stopped at the space (and at '/'), so the second word was printed.
    const std::string first = "Rp9x" + pid;
    const std::string second = "secret" + pid + "Zq";
    const std::string spaced = first + " " + second;
    const std::string slashed = first + "/" + second;
    test::PgConn admin(conninfo);
    ASSERT_TRUE(admin.ok()) << admin.errorMessage();
    admin.value("CREATE ROLE " + role + " LOGIN PASSWORD '" + spaced + "'");
    admin.value("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + role);
    const std::string at = "@" + pg.host + ":" + pg.port + "/" + pg.dbname;

    struct Case {
        std::string what;
        std::vector<std::string> args;
        int exitCode;
        std::string expected;  // in the one error line of a failed run
    };
    const std::vector<Case> cases = {
        {"space in the URI", {"run", "postgresql://" + role + ":" + spaced + at}, 0, ""},
        {"space in the URI, wrong",
         {"run", "postgresql://" + role + ":" + spaced + "x" + at},
         1,
         "password authentication failed"},
        {"slash in the URI", {"run", "postgresql://" + role + ":" + slashed + at}, 1, "%2F"},
        {"slash with -p", {"run", "postgresql://" + role + at, "-p", slashed}, 1, "password authentication failed"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        TempDir dir;
        auto args = c.args;
        for (const std::string& a :
             std::vector<std::string>{"-s", "short-blobs", "--json", dir.file("r.json"), "--csv", dir.file("r.csv")}) {
            args.push_back(a);
        }
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, c.exitCode) << c.what << ": " << r.err;
        if (c.exitCode == 0) {
            EXPECT_TRUE(std::filesystem::exists(dir.file("r.json"))) << c.what;
            EXPECT_TRUE(std::filesystem::exists(dir.file("r.csv"))) << c.what;
        } else {
            const auto lines = cliLines(r.err);
            EXPECT_EQ(lines.size(), 1u) << c.what << ": " << r.err;  // no ASSERT: the role is dropped below
            EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.what << ": " << r.err;
        }
        expectNowhere({first, second}, dir, r, c.what);
    }

    // A project run with the password given on the command line: the file, its history and the
    // Markdown summary.
    {
        TempDir dir;
        const std::string path = dir.file("secret.blobbench.json");
        Project p = defaultProject(QStringLiteral("/nonexistent.sqlite"));
        p.connections[0].engine = QStringLiteral("postgres");
        p.connections[0].target = q("postgresql://" + role + at);
        p.currentConnection = 0;
        for (auto& s : p.scenarios) {
            s.enabled = s.id == QStringLiteral("short-blobs");
        }
        saveProject(q(path), p);
        const auto r = runCli({"run", path, "-p", spaced, "--json", dir.file("p.json"), "--csv", dir.file("p.csv"),
                               "--markdown", dir.file("p.md")});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        EXPECT_TRUE(std::filesystem::exists(dir.file("p.md")));
        expectNowhere({first, second}, dir, r, "project run");
    }
    admin.value("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM " + role);
    admin.value("DROP ROLE " + role);
}

// Issue #21.5: libpq looked the password file up under the relay's port, so an entry for the real
// server gave "fe_sendauth: no password supplied" through the tap (the default); a service file
// naming the host and port sent the relay to libpq's defaults. Now the connection through the relay
// resolves both as a direct one does, and the password is in no output or file.
TEST(HostilePostgres, PasswordFileAndServiceFileWorkThroughTheRelay) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    test::ensurePgData(conninfo);
    if (HasFatalFailure()) {
        return;
    }
    const std::string pid = std::to_string(getpid());
    const std::string role = "hostile_pgpass_" + pid;
    const std::string password = "Pw7file" + pid + "Qz";
    test::PgConn admin(conninfo);
    ASSERT_TRUE(admin.ok()) << admin.errorMessage();
    admin.value("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
    admin.value("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + role);

    TempDir files;
    const std::string passfile = files.file("pgpass");
    test::writeFile(passfile, pg.host + ":" + pg.port + ":" + pg.dbname + ":" + role + ":" + password + "\n");
    std::filesystem::permissions(passfile, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    const std::string servicefile = files.file("pg_service.conf");
    test::writeFile(servicefile, "[bb_hostile]\nhost=" + pg.host + "\nport=" + pg.port + "\ndbname=" + pg.dbname +
                                     "\nuser=" + role + "\n");
    const std::vector<std::string> env = {"PGPASSFILE=" + passfile, "PGSERVICEFILE=" + servicefile};
    const std::vector<std::string> unset = {"PGPASSWORD", "PGSERVICE", "PGHOST", "PGPORT", "PGUSER", "PGDATABASE"};
    const std::string uri = "postgresql://" + role + "@" + pg.host + ":" + pg.port + "/" + pg.dbname;

    struct Case {
        std::string what;
        std::string target;
        std::vector<std::string> env;
        std::vector<std::string> link;  // a link option keeps the relay in use whatever the default counting
    };
    const std::vector<Case> cases = {
        {"password file, direct", uri, env, {"--no-tap"}},
        {"password file, through the relay", uri, env, {"--latency", "1ms"}},
        // PGPORT=1: the service file's port wins over the environment, for the relay too.
        {"service= and password file, through the relay",
         "service=bb_hostile",
         {env[0], env[1], "PGPORT=1"},
         {"--latency", "1ms"}},
        {"PGSERVICE and password file, through the relay",
         "postgresql://",
         {env[0], env[1], "PGSERVICE=bb_hostile", "PGPORT=1"},
         {"--latency", "1ms"}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        TempDir dir;
        std::vector<std::string> args = {"run",    c.target,           "-s",    "short-blobs",
                                         "--json", dir.file("r.json"), "--csv", dir.file("r.csv")};
        args.insert(args.end(), c.link.begin(), c.link.end());
        test::CliProcess run(args, c.env, -1, unset);
        const auto r = run.wait(std::chrono::seconds(120));
        EXPECT_EQ(r.exitCode, 0) << c.what << ": " << r.err;
        EXPECT_EQ(r.err.find("no password supplied"), std::string::npos) << c.what << ": " << r.err;
        const std::string json = readAll(dir.file("r.json"));
        EXPECT_NE(json.find("\"complete\""), std::string::npos) << c.what << ": no complete sample: " << r.err;
        if (c.link.front() != "--no-tap") {
            EXPECT_NE(json.find("\"relay\""), std::string::npos) << c.what << ": not measured through the relay";
        }
        expectNowhere({password}, dir, r, c.what);
    }
    admin.value("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM " + role);
    admin.value("DROP ROLE " + role);
}

// Issue #21.9: after the session's backend went away in the middle of a project run, every later
// scenario failed on its own, each naming the tap's internal connection string (host, hostaddr and
// the relay's port) instead of the user's. Now the lost connection ends the run at once with one
// line naming the user's connection, and no sample names the relay's.
TEST(HostilePostgres, LostConnectionEndsTheRunNamingTheUsersConnection) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    const std::string pid = std::to_string(getpid());
    const std::string role = "hostile_lost_" + pid;
    const std::string password = "Lx4lost" + pid + "Wq";
    test::PgConn admin(conninfo);
    ASSERT_TRUE(admin.ok()) << admin.errorMessage();
    admin.value("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
    struct DropRole {
        test::PgConn& admin;
        std::string role;
        ~DropRole() { admin.value("DROP ROLE " + role); }
    } dropRole{admin, role};
    const std::string target = "postgresql://" + role + "@" + pg.host + ":" + pg.port + "/" + pg.dbname;

    TempDir dir;
    const std::string path = dir.file("lost.blobbench.json");
    Project p = defaultProject(QStringLiteral("/nonexistent.sqlite"));
    p.connections[0].engine = QStringLiteral("postgres");
    p.connections[0].target = q(target);
    p.connections[0].useWireTap = true;
    p.currentConnection = 0;
    auto scenario = [](const char* id, const char* sql) {
        ScenarioDef s;
        s.id = QString::fromUtf8(id);
        s.title = s.id;
        s.sql = QString::fromUtf8(sql);
        return s;
    };
    p.scenarios = {scenario("before", "SELECT 1 AS id, 'x' AS content"),
                   scenario("lost", "SELECT 1 AS id, 'x' AS content FROM pg_sleep(30)"),
                   scenario("after1", "SELECT 2 AS id, 'y' AS content"),
                   scenario("after2", "SELECT 3 AS id, 'z' AS content")};
    saveProject(q(path), p);
    // A reading scenario may not end a session itself (pg_terminate_backend is refused), so the
    // backend is ended from outside while the scenario "lost" sleeps in it.
    std::atomic<int> killed{0};
    std::thread killer([&] {
        test::PgConn killerConn(conninfo);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(25);
        while (killed.load() == 0 && std::chrono::steady_clock::now() < deadline) {
            killed = std::stoi(
                killerConn.value("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = '" +
                                 role + "' AND query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()"));
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
    const auto r = runCli({"run", path, "-q", "--json", dir.file("r.json")}, {"PGPASSWORD=" + password});
    killer.join();
    ASSERT_EQ(killed.load(), 1) << "the scenario 'lost' was never seen sleeping: " << r.err;
    EXPECT_EQ(r.exitCode, 1) << r.err;
    const auto lines = cliLines(r.err);
    ASSERT_FALSE(lines.empty()) << r.err;
    EXPECT_TRUE(lines.front().starts_with("blobbench-cli: postgres:" + target + ": lost: ")) << r.err;
    const Project after = loadProject(q(path));
    ASSERT_EQ(after.history.size(), 1u);
    const auto& samples = after.history.back().samples;
    ASSERT_EQ(samples.size(), 2u) << "the run went on after the connection was lost";
    EXPECT_EQ(samples[0].status, SampleStatus::Complete);
    EXPECT_EQ(samples[1].status, SampleStatus::Failed);
    for (const Sample& sample : samples) {
        EXPECT_EQ(sample.error.find("hostaddr"), std::string::npos) << sample.error;
        if (!sample.error.empty()) {
            EXPECT_TRUE(sample.error.starts_with("postgres:" + target + ": ")) << sample.error;
        }
    }
    EXPECT_EQ(r.err.find("hostaddr"), std::string::npos) << r.err;
    expectNowhere({password}, dir, r, "lost connection");
}

}  // namespace
