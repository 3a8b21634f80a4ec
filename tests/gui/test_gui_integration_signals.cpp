// The workbench window's executable against the real Firebird 3 server (label integration): after
// its connection attached, SIGTERM closes the window with one line on stderr and exit 143. The
// Firebird client installs SIGINT / SIGTERM handlers of its own at its first attach; over the
// default action they swallowed the signal and the window stayed open (app/gui/QuitOnSignal.h).
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/TestSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;

namespace {

// Whether process `pid` has mapped the Firebird client (its connection has loaded it).
bool loadedFirebirdClient(pid_t pid) {
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    std::stringstream text;
    text << maps.rdbuf();
    return text.str().find("libfbclient") != std::string::npos;
}

// The window on `database`, SIGTERM once its connection attached: one line and exit 143. With the
// Firebird 5.0.4 client the window closed but the process then died by SIGSEGV in fb_shutdown():
// the client's own shutdown thread, woken by the signal, raced the library's teardown at exit().
void sigtermAfterAttach(const std::string& database, const std::string& user, const std::string& password,
                        const std::string& client) {
    ASSERT_EQ(test::ensureFirebirdData(database, user, password, client), "");
    test::TempDir dir;
    const std::string project = dir.file("fb.blobbench.json");
    test::writeFile(project, R"({"formatVersion": 1, "name": "signals", "currentConnection": 0,
        "connections": [{"engine": "firebird", "name": "Firebird", "target": ")" +
                                 database + R"(", "user": ")" + user + R"(", "clientLibrary": ")" + client + R"("}]})");
    test::CliProcess window({project},
                            {"QT_QPA_PLATFORM=offscreen", "HOME=" + dir.path().string(), "ISC_PASSWORD=" + password},
                            -1, {}, test::windowProgram());
    // The window tests its connection at start: the client is loaded and attached.
    const auto until = std::chrono::steady_clock::now() + 60s;
    while (window.running() && !loadedFirebirdClient(window.pid()) && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(100ms);
    ASSERT_TRUE(window.running()) << window.errSoFar();
    ASSERT_TRUE(loadedFirebirdClient(window.pid())) << "the window never loaded the Firebird client";
    std::this_thread::sleep_for(3s);  // the attach after the load, and its handlers
    window.signal(SIGTERM);
    const auto r = window.wait(20s);
    EXPECT_EQ(r.killedBy, 0) << "ended by signal " << r.killedBy << ": " << r.err;
    EXPECT_EQ(r.exitCode, 128 + SIGTERM) << r.err;
    EXPECT_NE(r.err.find("blobbench: SIGTERM: the window closes"), std::string::npos) << r.err;
}

}  // namespace

TEST(GuiIntegrationSignals, SigtermClosesTheWindowAfterAFirebirdAttach) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    sigtermAfterAttach(database, test::envOrEmpty("BLOBBENCH_FB_USER"), test::envOrEmpty("BLOBBENCH_FB_PASSWORD"), "");
}

TEST(GuiIntegrationSignals, SigtermClosesTheWindowAfterAFirebird5ClientAttach) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    sigtermAfterAttach(database, test::envOrEmpty("BLOBBENCH_FB5_USER"), test::envOrEmpty("BLOBBENCH_FB5_PASSWORD"),
                       client);
}
