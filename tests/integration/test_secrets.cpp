// Passwords never land in what a run writes: stdout, stderr, the JSON, CSV and Markdown exports,
// the project file and its history, the run journal, and error messages for a wrong password.
// PostgreSQL: a role of its own whose password is a unique marker, given in the URI, with -p and
// through PGPASSWORD. Firebird: the real SYSDBA password, given with -p and through ISC_PASSWORD,
// and a wrong one. Every artefact is searched for the password's text.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <QString>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "model/ProjectFile.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

std::string readAll(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Every file the run left in `dir`, and its output, must be free of `secret`.
void expectNowhere(const std::string& secret, const TempDir& dir, const test::ProcessResult& r,
                   const std::string& what) {
    EXPECT_EQ(r.out.find(secret), std::string::npos) << what << ": stdout holds the password:\n" << r.out;
    EXPECT_EQ(r.err.find(secret), std::string::npos) << what << ": stderr holds the password:\n" << r.err;
    int files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
        if (!e.is_regular_file() || e.path().extension() == ".sqlite") {
            continue;
        }
        ++files;
        EXPECT_EQ(readAll(e.path()).find(secret), std::string::npos)
            << what << ": " << e.path() << " holds the password";
    }
    EXPECT_GT(files, 0) << what << ": the run wrote nothing to search";
}

bool exec(PGconn* c, const std::string& sql) {
    PGresult* r = PQexec(c, sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok) {
        ADD_FAILURE() << sql << ": " << PQerrorMessage(c);
    }
    PQclear(r);
    return ok;
}

}  // namespace

TEST(Secrets, PostgresPasswordInNoArtefact) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    // The reference tables, and a role that may read them with a password no other text contains.
    {
        const auto probe = runCli({"run", conninfo, "-s", "warm-up", "-q"});
        if (probe.exitCode != 0) {
            ASSERT_EQ(runCli({"prepare", conninfo, "--rows", "300", "-q"}).exitCode, 0);
        }
    }
    const std::string role = "bb_secret_" + std::to_string(getpid());
    const std::string marker = "Pw-" + std::to_string(getpid()) + "-q7Zt9MarkerX";
    PGconn* admin = PQconnectdb(conninfo.c_str());
    ASSERT_EQ(PQstatus(admin), CONNECTION_OK) << PQerrorMessage(admin);
    ASSERT_TRUE(exec(admin, "CREATE ROLE " + role + " LOGIN PASSWORD '" + marker + "'"));
    exec(admin, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + role);

    const std::regex userinfo(R"(^postgresql://[^@/]*@)");
    const std::string host = std::regex_replace(conninfo, userinfo, "postgresql://");  // no credentials
    const std::string withPassword =
        std::regex_replace(conninfo, userinfo, "postgresql://" + role + ":" + marker + "@");
    ASSERT_NE(withPassword, conninfo) << "BLOBBENCH_PG_CONNINFO is not a postgresql:// URI with user info";

    struct Case {
        const char* what;
        std::vector<std::string> args;
        std::vector<std::string> env;
        int exitCode;
    };
    const std::vector<Case> cases = {
        {"password in the URI", {"run", withPassword}, {}, 0},
        {"password with -p", {"run", host, "-u", role, "-p", marker}, {}, 0},
        {"password in PGPASSWORD", {"run", host, "-u", role}, {"PGPASSWORD=" + marker}, 0},
        {"wrong password", {"run", host, "-u", role, "-p", marker + "-wrong"}, {}, 1},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        TempDir dir;
        auto args = c.args;
        for (const std::string& a :
             std::vector<std::string>{"-s", "short-blobs", "--json", dir.file("r.json"), "--csv", dir.file("r.csv")}) {
            args.push_back(a);
        }
        const auto r = runCli(args, c.env);
        EXPECT_EQ(r.exitCode, c.exitCode) << c.what << ": " << r.err;
        if (c.exitCode != 0) {
            blobbench::test::writeFile(dir.path() / "stderr.txt", r.err);  // something to search
            EXPECT_NE(r.err.find("password authentication failed"), std::string::npos) << r.err;
        }
        expectNowhere(marker, dir, r, c.what);
    }

    // A project: the file, its history, the journal and every export of a run.
    {
        TempDir dir;
        const std::string project = dir.file("secret.blobbench.json");
        Project p = defaultProject(QStringLiteral("/nonexistent.sqlite"));
        p.connections[0].engine = QStringLiteral("postgres");
        p.connections[0].target = QString::fromStdString(host);
        p.connections[0].user = QString::fromStdString(role);
        p.currentConnection = 0;
        for (auto& s : p.scenarios) {
            s.enabled = s.id == QStringLiteral("short-blobs");
        }
        saveProject(QString::fromStdString(project), p);
        const auto r = runCli({"run", project, "-p", marker, "--json", dir.file("p.json"), "--csv", dir.file("p.csv"),
                               "--markdown", dir.file("p.md")});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        EXPECT_EQ(loadProject(QString::fromStdString(project)).history.size(), 1u);
        expectNowhere(marker, dir, r, "project run");
    }
    exec(admin, "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM " + role);
    exec(admin, "DROP ROLE " + role);
    PQfinish(admin);
}

TEST(Secrets, FirebirdPasswordInNoArtefact) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    ASSERT_GE(password.size(), 6u) << "a password this short could occur in any text";
    {
        TempDir dir;
        const auto probe = runCli({"run", database, "-u", user, "-p", password, "-s", "warm-up", "-q"});
        if (probe.exitCode != 0) {
            ASSERT_EQ(runCli({"prepare", database, "-u", user, "-p", password, "--rows", "300", "-q"}).exitCode, 0);
        }
    }
    struct Case {
        const char* what;
        std::vector<std::string> args;
        std::vector<std::string> env;
        int exitCode;
    };
    const std::vector<Case> cases = {
        {"password with -p", {"run", database, "-u", user, "-p", password}, {}, 0},
        {"password in ISC_PASSWORD", {"run", database, "-u", user}, {"ISC_PASSWORD=" + password}, 0},
        {"wrong password", {"run", database, "-u", user, "-p", password + "x9"}, {}, 1},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        TempDir dir;
        auto args = c.args;
        for (const std::string& a :
             std::vector<std::string>{"-s", "short-blobs", "--json", dir.file("r.json"), "--csv", dir.file("r.csv")}) {
            args.push_back(a);
        }
        const auto r = runCli(args, c.env);
        EXPECT_EQ(r.exitCode, c.exitCode) << c.what << ": " << r.err;
        if (c.exitCode != 0) {
            blobbench::test::writeFile(dir.path() / "stderr.txt", r.err);
        }
        expectNowhere(password, dir, r, c.what);
    }
}

// L2: the first run against a new PostgreSQL database printed "(run: blobbench-cli prepare
// postgresql://u:SECRET@...)". The shared server's `postgres` database has no data set.
TEST(PasswordInHints, ThePrepareHintOfADatabaseWithoutADataSetMasksThePassword) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const auto slash = conninfo.rfind('/');
    const auto at = conninfo.find('@');
    if (conninfo.rfind("postgresql://", 0) != 0 || slash == std::string::npos || at == std::string::npos ||
        conninfo.find(':', 13) > at)
        GTEST_SKIP() << "needs a postgresql://user:password@host/db URI";
    const std::string target = conninfo.substr(0, slash + 1) + "postgres";
    const std::string password = conninfo.substr(conninfo.find(':', 13) + 1, at - conninfo.find(':', 13) - 1);
    const auto r = runCli({"run", target, "-s", "warm-up", "-r", "1", "-q"});
    EXPECT_NE(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("run: blobbench-cli prepare postgresql://"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(":" + password + "@"), std::string::npos) << r.err;
}
