// Many sessions at once on the real servers (issue #25): N sessions are N connections the server
// counts, each session counts only its own socket (in-process equals the relay, session by session),
// and a cancel ends every session with what was measured kept.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/data/Dataset.h"
#include "engine/data/PrepareDataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/data/SyntheticSource.h"
#include "engine/drivers/Registry.h"
#include "engine/run/MeasuringSink.h"
#include "engine/run/SessionFigures.h"
#include "engine/run/SessionRunner.h"
#include "engine/wire/ProcessSockets.h"
#include "support/PgSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;

namespace {

// The local ports of this process's TCP connections to `serverPort`.
std::vector<int> localPortsTo(int serverPort) {
    std::vector<int> ports;
    for (const ProcessSocket& s : processSockets()) {
        sockaddr_storage peer{}, local{};
        socklen_t peerSize = sizeof peer, localSize = sizeof local;
        if (::getpeername(s.fd, reinterpret_cast<sockaddr*>(&peer), &peerSize) != 0 ||
            ::getsockname(s.fd, reinterpret_cast<sockaddr*>(&local), &localSize) != 0 || peer.ss_family != AF_INET) {
            continue;
        }
        if (ntohs(reinterpret_cast<sockaddr_in*>(&peer)->sin_port) == serverPort) {
            ports.push_back(ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port));
        }
    }
    return ports;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) {
        out += (out.empty() ? "" : ",") + p;
    }
    return out.empty() ? "-1" : out;
}

// The first column of the first row of `sql`, on a connection of the test's own.
std::string scalarOn(const ConnectionSpec& spec, const std::string& sql) {
    const Driver& driver = driverById(spec.engine);
    auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
    MeasuringSink sink;
    const CancelToken cancel;
    session->query(QuerySpec{sql, FetchMode::Content, std::nullopt}, sink, cancel);
    return sink.firstValue().value_or("");
}

// What the server saw when every session was connected, and a cancel on demand.
class Observer : public SessionsObserver {
public:
    std::function<std::string()> countOnServer;
    std::string countedOnServer;
    int connectedAtStart = -1;
    void allConnected(int connected, int) override {
        connectedAtStart = connected;
        if (countOnServer) {
            countedOnServer = countOnServer();
        }
    }
    void sampleReady(int, const Sample&, bool counted) override {
        std::lock_guard lock(m_mutex);
        m_counted += counted ? 1 : 0;
        m_arrived.notify_all();
    }
    void waitForCounted(std::uint64_t n) {
        std::unique_lock lock(m_mutex);
        m_arrived.wait(lock, [&] { return m_counted >= n; });
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_arrived;
    std::uint64_t m_counted = 0;
};

SessionsPlan planOn(const ConnectionSpec& spec, Dialect dialect, int sessions, const std::string& counting) {
    SessionsPlan p;
    p.plan.runId = "sessions-" + counting;
    p.plan.connection = spec;
    p.plan.wireTap = true;
    p.plan.parameters["wire_counting"] = counting;
    for (const Scenario& s : referenceSuite(dialect)) {
        if (s.id == "short-blobs" || s.id == "varchar") {
            p.plan.scenarios.push_back(s);
        }
    }
    // No row limit: a client that stops fetching leaves a part of the result in flight, which the
    // relay and the client count at different moments.
    p.plan.repetitions = 2;
    p.sessions = sessions;
    return p;
}

std::uint64_t statementWire(const SessionResult& s) {
    std::uint64_t bytes = 0;
    for (const auto& [id, t] : s.byScenario) {
        EXPECT_TRUE(t.wireCounted()) << id;
        bytes += t.wireBytes;
    }
    return bytes;
}

// Each session ran the same statements: each counted the same bytes (within the tolerance of two
// counters), so none counted another's socket; and the relay counted what the in-process counters did.
void expectOwnCounts(const SessionsOutcome& inProcess, const SessionsOutcome& relay) {
    ASSERT_TRUE(inProcess.ok) << inProcess.error;
    ASSERT_TRUE(relay.ok) << relay.error;
    ASSERT_EQ(inProcess.sessions.size(), relay.sessions.size());
    const std::uint64_t first = statementWire(inProcess.sessions.front());
    ASSERT_GT(first, 0u);
    for (std::size_t i = 0; i < inProcess.sessions.size(); ++i) {
        SCOPED_TRACE("session " + std::to_string(i + 1));
        const SessionResult& p = inProcess.sessions[i];
        const SessionResult& r = relay.sessions[i];
        EXPECT_EQ(p.wireMethod, "in-process");
        EXPECT_EQ(r.wireMethod, "relay");
        ASSERT_TRUE(p.connectionWire && r.connectionWire);
        EXPECT_TRUE(test::relayRoundTripsAgree(statementWire(p), first));
        EXPECT_TRUE(test::relayRoundTripsAgree(statementWire(p), statementWire(r)))
            << statementWire(p) << " in-process, " << statementWire(r) << " relayed";
        const auto bytes = [](const WireCounters& w) { return w.sendBytes + w.recvBytes; };
        // Two connections' totals: Firebird's SRP login sends its random keys as hex without leading zeros, so
        // two connects differ by a few bytes either way (2,436,764 in-process against 2,436,760 relayed in one
        // CI run); the statements above agree exactly.
        const std::uint64_t a = bytes(*p.connectionWire), b = bytes(*r.connectionWire);
        EXPECT_LE(a > b ? a - b : b - a, std::max<std::uint64_t>(8, a / 50)) << a << " in-process, " << b << " relayed";
        EXPECT_GE(bytes(*p.connectionWire), statementWire(p));  // the connection carried its statements and more
    }
    const SessionsFigures f = figuresOf(inProcess);
    EXPECT_TRUE(f.connectionWireComplete);
    std::uint64_t sum = 0;
    for (const SessionResult& s : inProcess.sessions) {
        sum += s.connectionWire->sendBytes + s.connectionWire->recvBytes;
    }
    EXPECT_EQ(f.connectionWireBytes, sum);
}

ConnectionSpec pgSpec() {
    ConnectionSpec spec;
    spec.engine = "postgres";
    spec.target = test::envOrEmpty("BLOBBENCH_PG_CONNINFO");
    return spec;
}

TEST(SessionsServers, PostgresSessionsAreConnectionsOfTheirOwnAndCountTheirOwnBytes) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    test::ensurePgData(conninfo);
    const ConnectionSpec spec = pgSpec();
    const int port = test::pgTarget(conninfo).portNumber();
    Observer observer;
    observer.countOnServer = [&] {
        std::vector<std::string> ports;
        for (int p : localPortsTo(port)) {
            ports.push_back(std::to_string(p));
        }
        return scalarOn(spec, "SELECT count(*) FROM pg_stat_activity WHERE client_port IN (" + joined(ports) +
                                  ") AND pid <> pg_backend_pid()");
    };
    SessionRunner inProcessRunner;
    const SessionsOutcome inProcess = inProcessRunner.run(planOn(spec, Dialect::PostgreSQL, 4, "in-process"), observer);
    EXPECT_EQ(observer.connectedAtStart, 4);
    EXPECT_EQ(observer.countedOnServer, "4");
    Observer quiet;
    SessionRunner relayRunner;
    const SessionsOutcome relay = relayRunner.run(planOn(spec, Dialect::PostgreSQL, 4, "relay"), quiet);
    expectOwnCounts(inProcess, relay);
    const std::uint64_t rows = inProcess.sessions.front().byScenario.at("short-blobs").rows;
    EXPECT_GT(rows, 0u);
    for (const SessionResult& s : inProcess.sessions) {
        EXPECT_EQ(s.byScenario.at("short-blobs").statements, 2u);
        EXPECT_EQ(s.byScenario.at("short-blobs").rows, rows);  // every session read the whole result
    }
}

TEST(SessionsServers, PostgresCancelEndsEverySessionAndKeepsTheirStatements) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    test::ensurePgData(conninfo);
    const ConnectionSpec spec = pgSpec();
    SessionsPlan plan = planOn(spec, Dialect::PostgreSQL, 3, "in-process");
    plan.duration = 600s;  // only the cancel ends it
    Observer observer;
    SessionRunner runner;
    std::thread canceller([&] {
        observer.waitForCounted(9);
        runner.cancel();
    });
    const SessionsOutcome outcome = runner.run(plan, observer);
    canceller.join();
    EXPECT_FALSE(outcome.ok);
    const SessionsFigures f = figuresOf(outcome);
    EXPECT_GE(f.all.combined.statements + f.all.combined.cancelled, 9u);
    EXPECT_EQ(outcome.errorKind, ErrorKind::Cancelled) << outcome.error;
    for (const SessionResult& s : outcome.sessions) {
        EXPECT_TRUE(s.connected);
        EXPECT_EQ(s.errorKind, ErrorKind::Cancelled) << "session " << s.index << ": " << s.error;
    }
    // Every session closed its connection: none of this process's is left on the server's port.
    const int port = test::pgTarget(conninfo).portNumber();
    EXPECT_TRUE(localPortsTo(port).empty());
}

TEST(SessionsServers, PostgresOpenLoopAccountsForEverySlot) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    test::ensurePgData(conninfo);
    SessionsPlan plan = planOn(pgSpec(), Dialect::PostgreSQL, 2, "in-process");
    plan.duration = 1000ms;
    plan.rampUp = 200ms;
    plan.rate = 50;  // 50 slots in the measured second
    Observer observer;
    SessionRunner runner;
    const SessionsOutcome outcome = runner.run(plan, observer);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    EXPECT_EQ(outcome.slotsDue, 50u);
    const StatementTally& all = figuresOf(outcome).all.combined;
    EXPECT_EQ(all.statements + all.failed + all.cancelled + outcome.slotsMissed, 50u);
    EXPECT_EQ(all.scheduleLag.count(), all.statements);
}

TEST(SessionsServers, Firebird5SessionsAreAttachmentsOfTheirOwnAndCountTheirOwnBytes) {
    const std::string database = test::envOrEmpty("BLOBBENCH_FB5_DATABASE");
    const std::string client = test::envOrEmpty("BLOBBENCH_FB5_CLIENT");
    if (database.empty() || client.empty()) {
        if (test::ciMode()) {
            FAIL() << "BLOBBENCH_FB5_DATABASE / BLOBBENCH_FB5_CLIENT are not set (run scripts/test)";
        }
        GTEST_SKIP() << "BLOBBENCH_FB5_DATABASE / BLOBBENCH_FB5_CLIENT not set (scripts/services/start-firebird5)";
    }
    ConnectionSpec spec;
    spec.engine = "firebird";
    spec.target = database;
    spec.user = test::envOrEmpty("BLOBBENCH_FB5_USER");
    spec.password = test::envOrEmpty("BLOBBENCH_FB5_PASSWORD");
    spec.clientLibrary = client;
    ASSERT_EQ(test::ensureFirebirdData(spec.target, spec.user, spec.password, spec.clientLibrary), "");
    Observer observer;
    observer.countOnServer = [&] {
        return scalarOn(spec, "SELECT count(*) FROM MON$ATTACHMENTS WHERE MON$REMOTE_PID = " +
                                  std::to_string(::getpid()) + " AND MON$ATTACHMENT_ID <> CURRENT_CONNECTION");
    };
    SessionRunner inProcessRunner;
    const SessionsOutcome inProcess = inProcessRunner.run(planOn(spec, Dialect::Firebird, 3, "in-process"), observer);
    EXPECT_EQ(observer.connectedAtStart, 3);
    EXPECT_EQ(observer.countedOnServer, "3");
    Observer quiet;
    SessionRunner relayRunner;
    const SessionsOutcome relay = relayRunner.run(planOn(spec, Dialect::Firebird, 3, "relay"), quiet);
    expectOwnCounts(inProcess, relay);
}

TEST(SessionsServers, MariadbSessionsAreConnectionsOfTheirOwnAndCountTheirOwnBytes) {
    BLOBBENCH_REQUIRE_ENV(url, "BLOBBENCH_MARIADB_URL");
    ConnectionSpec spec;
    spec.engine = "mariadb";
    spec.target = url;
    {
        const Driver& driver = driverById("mariadb");
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
        if (!readDatasetSummary(*session)) {
            SyntheticProfile profile;
            profile.rows = 300;
            prepareDataset(spec, {}, SyntheticRowSource(profile), PrepareOptions{});
        }
    }
    const int port = driverById("mariadb").endpoint(spec)->port;
    Observer observer;
    observer.countOnServer = [&] {
        std::vector<std::string> hosts;
        for (int p : localPortsTo(port)) {
            hosts.push_back("'127.0.0.1:" + std::to_string(p) + "'");
        }
        return scalarOn(spec, "SELECT count(*) FROM information_schema.PROCESSLIST WHERE HOST IN (" + joined(hosts) +
                                  ") AND ID <> CONNECTION_ID()");
    };
    SessionRunner inProcessRunner;
    const SessionsOutcome inProcess = inProcessRunner.run(planOn(spec, Dialect::MariaDB, 3, "in-process"), observer);
    EXPECT_EQ(observer.connectedAtStart, 3);
    EXPECT_EQ(observer.countedOnServer, "3");
    Observer quiet;
    SessionRunner relayRunner;
    const SessionsOutcome relay = relayRunner.run(planOn(spec, Dialect::MariaDB, 3, "relay"), quiet);
    expectOwnCounts(inProcess, relay);
}

TEST(SessionsServers, SqliteSessionsAreConnectionsOnOneFile) {
    test::TempDir dir;
    ConnectionSpec spec{"sqlite", "sqlite:" + dir.file("sessions.sqlite")};
    {
        spec.create = true;
        const Driver& driver = driverById("sqlite");
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
        SyntheticProfile profile;
        profile.rows = 100;
        prepareReferenceTables(*session, SyntheticRowSource(profile), PrepareOptions{});
        spec.create = false;
    }
    Observer observer;
    SessionRunner runner;
    SessionsPlan plan = planOn(spec, Dialect::SQLite, 4, "in-process");
    plan.plan.parameters.clear();
    plan.plan.wireTap = false;
    const SessionsOutcome outcome = runner.run(plan, observer);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    EXPECT_EQ(observer.connectedAtStart, 4);
    for (const SessionResult& s : outcome.sessions) {
        EXPECT_EQ(s.byScenario.at("short-blobs").statements, 2u);
        EXPECT_FALSE(s.connectionWire.has_value());
    }
}

}  // namespace
