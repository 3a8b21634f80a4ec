// The stall timeout and the cancel grace without the relay: a run counted in-process (the default)
// against a real server that stops answering mid-result. The server's stand-in is a WireTap in front
// of the real PostgreSQL or Firebird server holding every answer after 100,000 bytes down (the
// Runner sees only an endpoint; it relays nothing itself). The stall timeout cuts the silent call
// and says so; with the timeout off, a cancel that the server does not answer is cut after the grace.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "engine/run/Runner.h"
#include "engine/wire/WireTap.h"
#include "support/PgSupport.h"
#include "support/TestSupport.h"

namespace blobbench {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kHeldAfter = 100'000;

class SilentMidResult {
public:
    explicit SilentMidResult(const ConnectionSpec& real)
        : m_driver(driverById(real.engine)),
          m_endpoint(*m_driver.endpoint(real)),
          m_standIn(m_endpoint.host, m_endpoint.port),
          m_spec(m_driver.redirected(real, Endpoint{"127.0.0.1", m_standIn.port()})) {}

    // All BLOBs, with the answers held once the connect is over and kHeldAfter bytes have come down.
    RunPlan plan(const char* stallTimeout) {
        RunPlan p;
        p.runId = "inprocess-stall";
        p.connection = m_spec;
        p.wireTap = true;
        p.parameters["wire_stall_timeout_s"] = stallTimeout;
        const Dialect dialect = m_spec.engine == "postgres" ? Dialect::PostgreSQL : Dialect::Firebird;
        for (const Scenario& s : referenceSuite(dialect)) {
            if (s.id == "all-blobs") {
                p.scenarios.push_back(s);
            }
        }
        return p;
    }

    struct Arm : RunObserver {
        explicit Arm(WireTap* tap) : standIn(tap) {}
        WireTap* standIn;
        void connected(const SessionInfo&) override {
            FaultPlan hold;
            hold.stallDownAfter = kHeldAfter;  // forever
            standIn->setFaults(hold);
        }
    };
    Arm arm() { return Arm(&m_standIn); }

    bool holding() { return m_standIn.stats().faultsInjected > 0; }

private:
    const Driver& m_driver;
    Endpoint m_endpoint;
    WireTap m_standIn;
    ConnectionSpec m_spec;
};

void expectInProcess(const RunOutcome& outcome) {
    ASSERT_EQ(outcome.samples.size(), 1u) << outcome.error;
    EXPECT_EQ(outcome.samples[0].tap.method, "in-process");
    EXPECT_GE(outcome.samples[0].tapPhases.at("until failure").recvBytes, kHeldAfter / 2);
}

void stallTimeoutCutsIt(const ConnectionSpec& real) {
    SilentMidResult server(real);
    auto arm = server.arm();
    Runner runner;
    const RunOutcome outcome = runner.run(server.plan("1"), arm);
    EXPECT_FALSE(outcome.ok);
    EXPECT_NE(outcome.error.find("(in-process counting: no data for 1 s (stall timeout))"), std::string::npos)
        << outcome.error;
    expectInProcess(outcome);
    EXPECT_EQ(outcome.samples[0].status, SampleStatus::Failed);
}

void cancelGraceCutsIt(const ConnectionSpec& real) {
    SilentMidResult server(real);
    auto arm = server.arm();
    Runner runner;
    std::atomic<bool> done = false;
    // Cancel once the answers are held and the client waits for them.
    std::thread canceller([&] {
        while (!done && !server.holding()) {
            std::this_thread::sleep_for(5ms);
        }
        std::this_thread::sleep_for(300ms);
        runner.cancel();
    });
    const RunOutcome outcome = runner.run(server.plan("0"), arm);
    done = true;
    canceller.join();
    EXPECT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.errorKind, ErrorKind::Cancelled) << outcome.error;
    EXPECT_NE(outcome.error.find("no data for 2 s after the cancel (cancel grace)"), std::string::npos)
        << outcome.error;
    expectInProcess(outcome);
    EXPECT_EQ(outcome.samples[0].status, SampleStatus::Cancelled);
}

ConnectionSpec postgres(const std::string& conninfo) {
    test::ensurePgData(conninfo);
    ConnectionSpec spec;
    spec.engine = "postgres";
    spec.target = conninfo;
    return spec;
}

ConnectionSpec firebird(const std::string& database) {
    ConnectionSpec spec;
    spec.engine = "firebird";
    spec.target = database;
    spec.user = test::envOrEmpty("BLOBBENCH_FB_USER");
    spec.password = test::envOrEmpty("BLOBBENCH_FB_PASSWORD");
    return spec;
}

TEST(InProcessStall, PostgresStallTimeoutCutsAServerSilentMidResult) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    stallTimeoutCutsIt(postgres(conninfo));
}

TEST(InProcessStall, PostgresCancelGraceCutsAServerThatDoesNotAnswerTheCancel) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    cancelGraceCutsIt(postgres(conninfo));
}

TEST(InProcessStall, FirebirdStallTimeoutCutsAServerSilentMidResult) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    stallTimeoutCutsIt(firebird(database));
}

TEST(InProcessStall, FirebirdCancelGraceCutsAServerThatDoesNotAnswerTheCancel) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    cancelGraceCutsIt(firebird(database));
}

}  // namespace
}  // namespace blobbench
