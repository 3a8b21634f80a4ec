// The fault matrix (issue #10), second part: a Firebird attachment killed mid-fetch by another
// attachment (DELETE FROM MON$ATTACHMENTS), and Runner::cancel() from another thread during the
// connect, the prepare and the BLOB read on PostgreSQL and Firebird. The moment to cancel in is
// made deterministic by a test WireTap in front of the server that stalls the server's answers
// (forever) from a chosen byte on: the cancelling thread waits until the request has gone up (or
// the chosen bytes have come down) and the answer is held. Each run ends with ErrorKind::Cancelled
// within a bound; no socket or thread outlives the Runner and the taps.
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "engine/run/Runner.h"
#include "engine/wire/WireTap.h"
#include "support/PgSupport.h"
#include "support/SocketSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;
using blobbench::test::countSockets;
using blobbench::test::countThreads;

namespace {

using Clock = std::chrono::steady_clock;

// A cancelled run must end within this (the Runner's grace after a cancel is 2 s).
constexpr auto kCancelBound = 10s;

// Counts sockets and threads at construction; expect() waits a moment for the kernel's view, then
// requires them equal again.
class LeakCheck {
public:
    LeakCheck() : m_sockets(countSockets()), m_threads(countThreads()) {}
    void expectNone() const {
        for (int i = 0; i < 150 && (countSockets() > m_sockets || countThreads() > m_threads); ++i) {
            std::this_thread::sleep_for(20ms);
        }
        EXPECT_EQ(countSockets(), m_sockets) << "no leaked socket";
        EXPECT_EQ(countThreads(), m_threads) << "no leaked thread";
    }

private:
    int m_sockets, m_threads;
};

// Waits (bounded) until the condition holds.
bool waitFor(const std::function<bool()>& condition, std::chrono::milliseconds bound = 10s) {
    const auto until = Clock::now() + bound;
    while (!condition()) {
        if (Clock::now() > until) {
            return false;
        }
        std::this_thread::sleep_for(5ms);
    }
    return true;
}

class Observer : public RunObserver {
public:
    std::function<void()> onConnected;
    std::function<void(std::uint64_t)> onProgress;
    void connected(const SessionInfo&) override {
        if (onConnected) {
            onConnected();
        }
    }
    void progress(const Scenario&, std::uint64_t rows, std::uint64_t) override {
        if (onProgress) {
            onProgress(rows);
        }
    }
};

// One engine's server: where it listens and a connection spec that reaches it through a port.
struct Server {
    std::string engine;
    std::string host;
    std::uint16_t port = 0;
    std::function<ConnectionSpec(std::uint16_t)> through;
};

std::optional<Server> postgresServer() {
    const std::string conninfo = test::envOrEmpty("BLOBBENCH_PG_CONNINFO");
    if (conninfo.empty()) {
        return std::nullopt;
    }
    const test::PgTarget pg = test::pgTarget(conninfo);
    Server s{"postgres", pg.host, pg.portNumber(), {}};
    s.through = [pg](std::uint16_t via) {
        ConnectionSpec spec;
        spec.engine = "postgres";
        spec.target = pg.through(via);
        spec.password = pg.password;
        return spec;
    };
    return s;
}

std::optional<Server> firebirdServer() {
    const std::string database = test::envOrEmpty("BLOBBENCH_FB_DATABASE");
    const std::string user = test::envOrEmpty("BLOBBENCH_FB_USER");
    const std::string password = test::envOrEmpty("BLOBBENCH_FB_PASSWORD");
    if (database.empty() || user.empty() || password.empty()) {
        return std::nullopt;
    }
    const auto at = database.find("127.0.0.1:");
    if (at == std::string::npos) {
        return std::nullopt;
    }
    const auto end = database.find('/', at);
    Server s{
        "firebird", "127.0.0.1", static_cast<std::uint16_t>(std::stoi(database.substr(at + 10, end - at - 10))), {}};
    s.through = [=](std::uint16_t via) {
        ConnectionSpec spec;
        spec.engine = "firebird";
        spec.target = database.substr(0, at) + "127.0.0.1:" + std::to_string(via) + database.substr(end);
        spec.user = user;
        spec.password = password;
        return spec;
    };
    return s;
}

// The reference set must be there (the other fault-matrix tests prepare it the same way).
void ensureData(const Server& server) {
    const ConnectionSpec direct = server.through(server.port);
    std::vector<std::string> args = {"prepare", direct.target, "--rows", "200", "-q"};
    std::vector<std::string> env;
    if (server.engine == "firebird") {
        args.insert(args.end(), {"-u", direct.user});
        env.push_back("ISC_PASSWORD=" + direct.password);
    } else {
        env.push_back("PGPASSWORD=" + direct.password);
        if (test::runCli({"run", direct.target, "-s", "warm-up", "-q"}, env).exitCode == 0) {
            return;  // the shared reference set is there: leave it
        }
    }
    static std::set<std::string> ready;
    if (ready.insert(server.engine).second) {
        ASSERT_EQ(test::runCli(args, env).exitCode, 0);
    }
}

// fbclient keeps a thread of its own once loaded and attached: load it before counting threads.
void warmClient(const Server& server) {
    const Driver& driver = driverById(server.engine);
    driver.connect(server.through(server.port), resolveParameters(driver.parameters(), {}));
}

enum class Moment { Connect, Prepare, BlobRead };

std::string nameOf(Moment m) {
    switch (m) {
        case Moment::Connect:
            return "connect";
        case Moment::Prepare:
            return "prepare";
        case Moment::BlobRead:
            return "BLOB read";
    }
    return "?";
}

// Runs the all-BLOBs statement through a Runner (with its own tap) behind a test tap that holds
// the server's answers from the chosen moment on; another thread cancels once the request is held.
void cancelAt(const Server& server, Moment moment) {
    SCOPED_TRACE(server.engine + ", cancel during the " + nameOf(moment));
    warmClient(server);
    const LeakCheck leaks;
    {
        WireTap holding(server.host, server.port);
        constexpr std::uint64_t kBlobBytes = 100'000;  // well inside the BLOB data of the all-BLOBs read
        if (moment == Moment::Connect) {
            FaultPlan plan;
            plan.stallDownAfter = 0;  // the server's first answer never comes
            holding.setFaults(plan);
        }
        RunPlan plan;
        plan.runId = "fault-matrix-cancel";
        plan.connection = server.through(holding.port());
        plan.wireTap = true;
        plan.scenarios = {{"all", "All BLOBs", ScenarioKind::Query, "", "SELECT ID, CONTENT FROM BLOB_TEST"}};
        Runner runner;
        Observer observer;
        std::atomic<bool> armed = moment == Moment::Connect;
        WireCounters atArming;
        observer.onConnected = [&] {
            // On the runner's thread, between the connect and the statement.
            atArming = holding.snapshot();
            FaultPlan faults;
            faults.stallDownAfter = moment == Moment::Prepare ? 0 : kBlobBytes;
            holding.setFaults(faults);
            armed = true;
        };
        std::atomic<bool> held = false;
        std::thread canceller([&] {
            held = waitFor([&] {
                if (!armed) {
                    return false;
                }
                if (moment == Moment::Connect) {
                    return holding.stats().accepted >= 1 && holding.snapshot().sendBytes > 0;
                }
                const WireCounters now = holding.snapshot() - atArming;
                return moment == Moment::Prepare ? now.sendBytes > 0 : now.recvBytes >= kBlobBytes;
            });
            std::this_thread::sleep_for(100ms);  // the request is held: the engine call is blocked in it
            runner.cancel();
        });
        const auto t0 = Clock::now();
        const RunOutcome outcome = runner.run(plan, observer);
        const auto took = Clock::now() - t0;
        canceller.join();
        std::cout << "[fault line] " << outcome.error << std::endl;
        EXPECT_TRUE(held) << "the test tap held the request";
        EXPECT_LT(took, kCancelBound) << "bounded";
        EXPECT_FALSE(outcome.ok);
        EXPECT_EQ(outcome.errorKind, ErrorKind::Cancelled) << outcome.error;
        EXPECT_EQ(outcome.error.find('\n'), std::string::npos) << "one line";
        EXPECT_TRUE(outcome.error.starts_with(plan.connection.label() + ": ")) << outcome.error;
        EXPECT_NE(outcome.error.find("cancelled"), std::string::npos) << outcome.error;
        if (moment == Moment::Connect) {
            EXPECT_NE(outcome.error.find(": connect: cancelled"), std::string::npos) << outcome.error;
            EXPECT_TRUE(outcome.samples.empty());
        } else {
            EXPECT_NE(outcome.error.find(": All BLOBs: "), std::string::npos) << outcome.error;
            ASSERT_EQ(outcome.samples.size(), 1u);
            const Sample& sample = outcome.samples[0];
            EXPECT_EQ(sample.status, SampleStatus::Cancelled);
            if (moment == Moment::Prepare) {
                EXPECT_EQ(sample.tapPhases.count("prepare"), 0u) << "cancelled before the statement was prepared";
                EXPECT_EQ(sample.rows, 0u);
            } else {
                EXPECT_EQ(sample.tapPhases.count("fetch"), 0u) << "cancelled before the fetch ended";
                EXPECT_GT(sample.contentBytes, 0u) << "BLOB bytes had arrived";
            }
        }
    }
    leaks.expectNone();
}

class FaultMatrixCancel : public ::testing::Test {};

// Declares `var`, the Server `found` describes; without one the test fails under CI=true and is
// skipped elsewhere, naming the variables `what` that scripts/test sets.
#define REQUIRE_SERVER(var, found, what)                                                               \
    const std::optional<Server> var##Found = (found);                                                  \
    if (!var##Found) {                                                                                 \
        if (test::ciMode()) {                                                                          \
            FAIL() << what << " is not set: the server this test needs is missing (run scripts/test)"; \
        }                                                                                              \
        GTEST_SKIP() << "set " << what << " (scripts/test does) to run this test";                     \
    }                                                                                                  \
    const Server& var = *var##Found

TEST_F(FaultMatrixCancel, PostgresConnectPrepareBlobRead) {
    REQUIRE_SERVER(server, postgresServer(), "BLOBBENCH_PG_CONNINFO");
    ensureData(server);
    cancelAt(server, Moment::Connect);
    cancelAt(server, Moment::Prepare);
    cancelAt(server, Moment::BlobRead);
}

TEST_F(FaultMatrixCancel, FirebirdConnectPrepareBlobRead) {
    REQUIRE_SERVER(server, firebirdServer(), "BLOBBENCH_FB_DATABASE, _USER, _PASSWORD");
    ensureData(server);
    cancelAt(server, Moment::Connect);
    cancelAt(server, Moment::Prepare);
    cancelAt(server, Moment::BlobRead);
}

// Another attachment deletes the run's attachment from MON$ATTACHMENTS while it reads the BLOBs:
// the sample before is kept complete, the killed one failed with the rows counted so far and the
// server's words, one line naming the connection and the scenario.
TEST_F(FaultMatrixCancel, FirebirdAttachmentKilledMidFetch) {
    REQUIRE_SERVER(server, firebirdServer(), "BLOBBENCH_FB_DATABASE, _USER, _PASSWORD");
    ensureData(server);
    warmClient(server);
    const LeakCheck leaks;
    {
        const Driver& driver = driverById("firebird");
        const ConnectionSpec direct = server.through(server.port);
        RunPlan plan;
        plan.runId = "fault-matrix-fb-kill";
        plan.connection = direct;
        plan.wireTap = true;
        plan.scenarios = {
            {"before", "Before", ScenarioKind::Query, "", "SELECT ID, CONTENT FROM BLOB_TEST WHERE ID <= 10"},
            // 1,000 rows (the reference set five times): progress comes every 256 rows.
            {"all", "All BLOBs", ScenarioKind::Query, "",
             "SELECT a.ID, a.CONTENT FROM BLOB_TEST a CROSS JOIN (SELECT ID FROM BLOB_TEST ROWS 5) b ROWS 1000"},
        };
        Runner runner;
        Observer observer;
        bool killed = false;
        std::string killError;
        observer.onProgress = [&](std::uint64_t rows) {
            if (killed || rows < 256) {
                return;
            }
            killed = true;
            try {
                // This process's other attachment: the run's (MON$REMOTE_PID is the client's pid).
                auto admin = driver.connect(direct, resolveParameters(driver.parameters(), {}));
                admin->execute(
                    "DELETE FROM MON$ATTACHMENTS WHERE MON$ATTACHMENT_ID <> CURRENT_CONNECTION "
                    "AND MON$REMOTE_PID = " +
                    std::to_string(::getpid()));
                admin->commit();
            } catch (const Error& e) {
                killError = e.what();
            }
        };
        const auto t0 = Clock::now();
        const RunOutcome outcome = runner.run(plan, observer);
        std::cout << "[fault line] " << outcome.error << std::endl;
        EXPECT_LT(Clock::now() - t0, 40s) << "bounded";
        EXPECT_TRUE(killed);
        EXPECT_EQ(killError, "");
        EXPECT_FALSE(outcome.ok);
        EXPECT_EQ(outcome.errorKind, ErrorKind::Connect) << "a lost attachment ends the run: " << outcome.error;
        EXPECT_EQ(outcome.error.find('\n'), std::string::npos) << "one line";
        EXPECT_TRUE(outcome.error.starts_with(direct.label() + ": All BLOBs: ")) << outcome.error;
        EXPECT_EQ(outcome.error.find(direct.password), std::string::npos);
        ASSERT_EQ(outcome.samples.size(), 2u);
        EXPECT_EQ(outcome.samples[0].status, SampleStatus::Complete);
        EXPECT_EQ(outcome.samples[0].rows, 10u);
        EXPECT_EQ(outcome.samples[1].status, SampleStatus::Failed);
        EXPECT_GE(outcome.samples[1].rows, 256u) << "rows counted before the fault are kept";
        EXPECT_FALSE(outcome.samples[1].error.empty());
    }
    leaks.expectNone();
}

}  // namespace
