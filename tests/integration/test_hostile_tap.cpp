// Issue #21.8: through the wire tap, `inet6://[::1]:PORT/...` (Firebird) always failed naming host
// 127.0.0.1: the relay listens on IPv4 loopback, and the client was told to reach it over IPv6.
// The real servers listen on 127.0.0.1 only, so a stand-in on ::1 forwards to them: a run through
// the relay that succeeds proves the relay dialled [::1]. A closed ::1 port gives one line that
// names [::1] and the port. A Firebird connect timeout is named as one.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "engine/drivers/firebird/FirebirdConnectionString.h"
#include "support/PgSupport.h"
#include "support/SocketSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::Loopback;
using blobbench::test::runCli;
using blobbench::test::ScriptedServer;

namespace {

// The blobbench-cli lines of stderr.
int cliLineCount(const std::string& err) {
    int lines = 0;
    for (std::size_t at = err.find("blobbench-cli: "); at != std::string::npos;
         at = err.find("blobbench-cli: ", at + 1)) {
        lines += at == 0 || err[at - 1] == '\n';
    }
    return lines;
}

struct CliRun {
    std::string what;
    std::vector<std::string> args;
    std::vector<std::string> env;
};

// Each run through the relay reaches the server through `standIn` on ::1 (its port named in `upstream`).
void expectRunsOverIpv6(const std::vector<CliRun>& runs, const ScriptedServer& standIn) {
    const std::string upstream = "-> [::1]:" + std::to_string(standIn.port());
    for (const CliRun& run : runs) {
        const int before = standIn.accepted();
        const auto r = runCli(run.args, run.env);
        EXPECT_EQ(r.exitCode, 0) << run.what << ": " << r.err;
        EXPECT_NE(r.out.find(upstream), std::string::npos) << run.what << ": the relay's line:\n" << r.out;
        EXPECT_GT(standIn.accepted(), before) << run.what << ": nothing reached the stand-in on ::1";
    }
}

void expectOneLineNaming(const std::vector<CliRun>& runs, const std::string& named) {
    for (const CliRun& run : runs) {
        const auto r = runCli(run.args, run.env);
        EXPECT_EQ(r.exitCode, 1) << run.what << ": " << r.err;
        EXPECT_EQ(cliLineCount(r.err), 1) << run.what << ": " << r.err;
        EXPECT_NE(r.err.find(named), std::string::npos) << run.what << ": " << r.err;
        std::cout << "[fault line] " << r.err;
    }
}

}  // namespace

TEST(HostileTap, PostgresOverIpv6ThroughTheRelay) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    test::ensurePgData(conninfo);
    if (HasFatalFailure()) {
        return;
    }
    ScriptedServer standIn([&](int fd) { test::forwardTo(fd, pg.portNumber()); }, Loopback::V6);
    const std::string port = std::to_string(standIn.port());
    const std::vector<std::string> common = {"-s", "short-blobs", "--latency", "1ms"};
    auto run = [&](std::string what, std::string target) {
        std::vector<std::string> args = {"run", target};
        args.insert(args.end(), common.begin(), common.end());
        return CliRun{std::move(what), args, pg.env()};
    };
    expectRunsOverIpv6({run("host=::1", "host=::1 port=" + port + " dbname=" + pg.dbname + " user=" + pg.user),
                        run("a URI with [::1]", "postgresql://" + pg.user + "@[::1]:" + port + "/" + pg.dbname)},
                       standIn);
    const std::string closed = std::to_string(test::closedPort(Loopback::V6));
    expectOneLineNaming({run("host=::1, closed", "host=::1 port=" + closed + " dbname=" + pg.dbname)},
                        "cannot connect to upstream [::1]:" + closed);
}

TEST(HostileTap, FirebirdInet6ThroughTheRelay) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    ASSERT_EQ(test::ensureFirebirdData(database, user, password), "");
    const firebird::FirebirdTarget real = firebird::parseFirebirdTarget(database);
    ASSERT_TRUE(real.networked() && real.tcpPort()) << database;
    ScriptedServer standIn([&](int fd) { test::forwardTo(fd, *real.tcpPort()); }, Loopback::V6);
    auto run = [&](std::string what, std::uint16_t port) {
        firebird::FirebirdTarget v6 = real;
        v6.form = firebird::FirebirdTarget::Form::Url;
        v6.scheme = "inet6";
        v6.host = "::1";
        v6.port = std::to_string(port);
        return CliRun{std::move(what),
                      {"run", v6.toString(), "-u", user, "-p", password, "-s", "short-blobs", "--latency", "1ms"},
                      {}};
    };
    const CliRun good = run("inet6://[::1]", standIn.port());
    expectRunsOverIpv6({good}, standIn);
    const std::uint16_t closed = test::closedPort(Loopback::V6);
    expectOneLineNaming({run("inet6://[::1], closed", closed)},
                        "cannot connect to upstream [::1]:" + std::to_string(closed));
}

// Issue #21.9: a Firebird server that accepts the connection and never answers was reported as
// "connection rejected by remote interface" (the client's words for its connect timeout); the line
// now names the timeout. A server that closes at once is not said to have timed out.
TEST(HostileTap, FirebirdConnectTimeoutIsNamed) {
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    ScriptedServer silent([](int fd) { test::readToEnd(fd); });  // until the client gives up
    ScriptedServer closing([](int) {});
    auto run = [&](std::string what, std::uint16_t port, const char* tap) {
        return CliRun{std::move(what),
                      {"run", "inet://127.0.0.1:" + std::to_string(port) + "//x.fdb", "-u", user, "-p", password, "-P",
                       "connect_timeout=1", tap},
                      {}};
    };
    expectOneLineNaming({run("silent, direct", silent.port(), "--no-tap"),
                         run("silent, through the relay", silent.port(), "--latency=1ms")},
                        "(no answer from the server within the connect timeout, 1 s: connect_timeout)");
    const auto r = runCli(run("closes at once", closing.port(), "--no-tap").args);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(r.err.find("connect timeout"), std::string::npos) << r.err;
}

// Hostile round 3: `prepare` on a Firebird 3 server with -P insert_method=ibatch (IBatch needs
// 4.0) inserted with execute and printed only "Prepared ...": a tunable asked for and not in
// effect went unsaid. Now a line says so. A scratch database next to the shared one.
TEST(HostileTap, PrepareSaysATunableThatIsNotInEffect) {
    BLOBBENCH_REQUIRE_ENV(shared, "BLOBBENCH_FB_DATABASE");
    const std::string folder = std::filesystem::path(shared.substr(shared.find("//", 6) + 1)).parent_path().string();
    const std::string file = folder + "/hostile-ibatch-" + std::to_string(getpid()) + ".fdb";
    const std::string target = shared.substr(0, shared.find("//", 6) + 1) + file;
    const std::string user = test::envOrEmpty("BLOBBENCH_FB_USER");
    const std::string password = test::envOrEmpty("BLOBBENCH_FB_PASSWORD");
    const std::string sql = "/tmp/blobbench-hostile-ibatch-" + std::to_string(getpid()) + ".sql";
    std::ofstream(sql) << "CREATE DATABASE '" << target << "' USER '" << user << "' PASSWORD '" << password << "';\n";
    const int created = std::system(("isql-fb -q -i " + sql + " >/dev/null 2>&1").c_str());
    std::filesystem::remove(sql);
    ASSERT_EQ(created, 0) << "isql-fb could not create " << target;
    const std::vector<std::string> env = {"ISC_PASSWORD=" + password};
    const auto r = runCli({"prepare", target, "-u", user, "--rows", "20", "-q", "-P", "insert_method=ibatch"}, env);
    const auto plain = runCli({"prepare", target, "-u", user, "--rows", "20", "-q"}, env);
    std::filesystem::remove(file);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("Prepared "), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("blobbench-cli: prepare: insert_method=ibatch is not in effect (IBatch needs client and "
                         "server >= 4.0: "),
              std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(plain.exitCode, 0) << plain.err;
    EXPECT_EQ(plain.err, "") << "a tunable not asked for is not said";
}
