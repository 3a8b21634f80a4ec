// A cancel ends the run even when the server keeps sending (issue #29.1), a stopped client is not
// a server's stall (#29.4), and a failed or cancelled sample keeps what it measured (#29.5). On
// the real PostgreSQL: a loopback proxy stands in front of it and swallows every cancel request
// (as a pooler that hands it to another backend would), so the server streams an endless result
// on, or the proxy trickles it down one byte every 0.2 s.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "engine/run/Runner.h"
#include "model/Project.h"
#include "model/ProjectFile.h"
#include "model/SampleJson.h"
#include "support/PgSupport.h"
#include "support/SocketSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::TempDir;

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kMarker = "blobbench_endless_marker";
// A result the server would take hours over: 10 kB a row, two billion rows, streamed as they are
// made (a set-returning function in the select list; in FROM it would be materialized first).
const std::string kEndlessSql =
    std::string("SELECT generate_series(1, 2000000000) AS ID, repeat('x', 10000) AS CONTENT /* ") + kMarker + " */";

bool waitFor(const std::function<bool()>& condition, std::chrono::milliseconds bound) {
    const auto until = Clock::now() + bound;
    while (!condition()) {
        if (Clock::now() > until) {
            return false;
        }
        std::this_thread::sleep_for(10ms);
    }
    return true;
}

std::uint32_t be32(const std::string& s, std::size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, s.data() + at, 4);
    return ntohl(v);
}

// Relays to the real server, swallowing cancel requests. With `trickle`, once the marked
// statement has gone up and 256 kB of its answer come down, the rest comes down one byte every 0.2 s.
class CancelIgnoringProxy {
public:
    CancelIgnoringProxy(std::uint16_t upstream, bool trickle)
        : m_upstream(upstream), m_trickle(trickle), m_server([this](int fd) { serve(fd); }) {}
    std::uint16_t port() const { return m_server.port(); }
    int cancelsSwallowed() const { return m_cancels.load(); }
    std::uint64_t downAfterMarker() const { return m_down.load(); }
    bool trickling() const { return m_trickling.load(); }

private:
    void serve(int client) {
        const std::string first = test::readUpTo(client, 8);
        if (first.size() == 8 && be32(first, 0) == 16 && be32(first, 4) == 80877102) {
            test::readUpTo(client, 8);  // the backend's key: never passed on
            m_cancels.fetch_add(1);
            return;
        }
        const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in to{};
        to.sin_family = AF_INET;
        to.sin_port = htons(m_upstream);
        to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(server, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 || !test::writeAll(server, first)) {
            ::close(server);
            return;
        }
        relay(client, server);
        ::close(server);
    }
    void relay(int client, int server) {
        bool marked = false;
        std::string recent;  // the tail of what went up, to find the marker across reads
        char buffer[65536];
        for (;;) {
            const bool slow = m_trickle && marked && m_down.load() >= 256 * 1024;
            m_trickling = m_trickling || slow;
            pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
            if (::poll(fds, 2, 1000) < 0) {
                return;
            }
            if (fds[0].revents != 0) {
                const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
                if (n <= 0 || !test::writeAll(server, std::string_view(buffer, static_cast<std::size_t>(n)))) {
                    return;
                }
                recent = recent.substr(recent.size() > 64 ? recent.size() - 64 : 0) +
                         std::string(buffer, static_cast<std::size_t>(n));
                marked = marked || recent.find(kMarker) != std::string::npos;
            }
            if (fds[1].revents != 0) {
                const ssize_t n = ::recv(server, buffer, slow ? 1 : sizeof buffer, 0);
                if (n <= 0 || !test::writeAll(client, std::string_view(buffer, static_cast<std::size_t>(n)))) {
                    return;
                }
                if (marked) {
                    m_down.fetch_add(static_cast<std::uint64_t>(n));
                }
                if (slow) {
                    std::this_thread::sleep_for(200ms);
                }
            }
        }
    }

    std::uint16_t m_upstream;
    bool m_trickle;
    std::atomic<int> m_cancels{0};
    std::atomic<std::uint64_t> m_down{0};
    std::atomic<bool> m_trickling{false};
    test::ScriptedServer m_server;  // last: its threads use the members above
};

// A project with one connection (through the wire tap) and one scenario.
std::string writeProject(const TempDir& dir, const std::string& target, const std::string& sql) {
    Project p;
    p.name = QStringLiteral("Cancel deadline");
    ConnectionProfile connection;
    connection.name = QStringLiteral("PostgreSQL");
    connection.engine = QStringLiteral("postgres");
    connection.target = QString::fromStdString(target);
    connection.useWireTap = true;
    p.connections = {connection};
    ScenarioDef scenario;
    scenario.id = QStringLiteral("s");
    scenario.title = QStringLiteral("The statement");
    scenario.sql = QString::fromStdString(sql);
    p.scenarios = {scenario};
    const std::string path = dir.file("p.blobbench.json");
    saveProject(QString::fromStdString(path), p);
    return path;
}

QJsonArray samplesIn(const std::string& json) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(blobbench::test::readFile(json)))
        .object()[QStringLiteral("samples")]
        .toArray();
}

}  // namespace

// SIGTERM while the server streams an endless result (or trickles it) and ignores the cancel: the
// run ends within the grace and a little, the sample cancelled with what it read, the JSON written.
// So too with the tap off ("none"): no relay or counter stands in front of the connection, and the
// deadline shuts the session's socket down itself.
TEST(CancelDeadline, SigtermEndsAFetchTheServerKeepsSending) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    for (const bool trickle : {false, true}) {
        for (const std::string counting : {"in-process", "relay", "none"}) {
            SCOPED_TRACE(std::string(trickle ? "trickle" : "endless stream") + ", " + counting);
            CancelIgnoringProxy proxy(pg.portNumber(), trickle);
            TempDir dir;
            const std::string project =
                writeProject(dir, pg.through(proxy.port()) + " sslmode=disable gssencmode=disable", kEndlessSql);
            const std::string json = dir.file("e.json");
            std::vector<std::string> args = {"run", project, "-r", "1", "-q", "--no-save", "--json", json};
            if (counting == "none") {
                args.push_back("--no-tap");
            } else {
                args.insert(args.end(), {"-P", "wire_counting=" + counting, "-P", "wire_stall_timeout_s=3"});
            }
            CliProcess run(args, pg.env());
            ASSERT_TRUE(waitFor(
                [&] { return (trickle ? proxy.trickling() : proxy.downAfterMarker() > 4'000'000) || !run.running(); },
                60s))
                << run.errSoFar();
            ASSERT_TRUE(run.running()) << run.wait(1s).err;
            std::this_thread::sleep_for(trickle ? 1s : 300ms);
            const auto t0 = Clock::now();
            run.signal(SIGTERM);
            const auto r = run.wait(std::chrono::seconds(20));
            const double took = std::chrono::duration<double>(Clock::now() - t0).count();
            std::cout << "[cancel deadline] " << (trickle ? "trickle" : "endless") << ", " << counting
                      << ": SIGTERM to exit " << took << " s" << std::endl;
            if (r.exitCode == -1) {
                ADD_FAILURE() << "still running 20 s after SIGTERM (killed): " << r.err;
                continue;  // the other cases are still measured
            }
            EXPECT_EQ(r.exitCode, 128 + SIGTERM) << r.err;
            EXPECT_GE(proxy.cancelsSwallowed(), 1) << "the engine's cancel request was sent, and ignored";
            const QJsonArray samples = samplesIn(json);
            ASSERT_EQ(samples.size(), 1) << r.err;
            const QJsonObject s = samples[0].toObject();
            EXPECT_EQ(s[QStringLiteral("status")].toString(), QStringLiteral("cancelled"));
            EXPECT_TRUE(s[QStringLiteral("partial")].toBool());
            EXPECT_GT(s[QStringLiteral("rows")].toInteger(), 0);
            EXPECT_GT(s[QStringLiteral("phases")].toObject()[QStringLiteral("fetchNs")].toInteger(), 0);
            if (counting != "none") {
                const QJsonObject tap = s[QStringLiteral("wire")].toObject()[QStringLiteral("tap")].toObject();
                EXPECT_GT(tap[QStringLiteral("recvBytes")].toInteger(), s[QStringLiteral("contentBytes")].toInteger())
                    << QJsonDocument(tap).toJson().toStdString();
            }
        }
    }
}

// A statement the server fails mid-fetch: the failed sample keeps its phase times so far, rows,
// content bytes and wire counts, marked partial, and the JSON reader reads the mark back.
TEST(CancelDeadline, AFailedSampleKeepsWhatItMeasured) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    for (const std::string counting : {"in-process", "relay"}) {
        SCOPED_TRACE(counting);
        RunPlan plan;
        plan.runId = "partial-sample";
        plan.connection.engine = "postgres";
        plan.connection.target = pg.through(pg.portNumber());
        plan.connection.password = pg.password;
        plan.wireTap = true;
        plan.parameters["wire_counting"] = counting;
        plan.scenarios = {{"fails", "Fails mid-fetch", ScenarioKind::Query, "",
                           "SELECT g AS ID, CASE WHEN g < 500 THEN repeat('x', 10000) ELSE (1 / (g - g))::text END "
                           "AS CONTENT FROM generate_series(1, 1000) g"}};
        Runner runner;
        RunObserver observer;
        const RunOutcome outcome = runner.run(plan, observer);
        ASSERT_EQ(outcome.samples.size(), 1u) << outcome.error;
        const Sample& s = outcome.samples[0];
        EXPECT_EQ(s.status, SampleStatus::Failed) << s.error;
        EXPECT_NE(s.error.find("division by zero"), std::string::npos) << s.error;
        EXPECT_TRUE(s.partial);
        EXPECT_GT(s.rows, 0u);
        EXPECT_GT(s.contentBytes, 0u);
        EXPECT_GT(s.phases.prepare.count(), 0);
        EXPECT_GT(s.phases.execute.count(), 0);
        EXPECT_GT(s.phases.elapsed().count(), 0);
        ASSERT_TRUE(s.tap.available) << s.tap.unavailableReason;
        EXPECT_GT(s.tap.counters.recvBytes, s.contentBytes);
        const Sample back = sampleFromJson(sampleToJson(s));
        EXPECT_TRUE(back.partial);
        EXPECT_EQ(back.phases.elapsed(), s.phases.elapsed());
        EXPECT_EQ(back.tap.counters.recvBytes, s.tap.counters.recvBytes);
        Sample whole = s;
        whole.partial = false;
        EXPECT_FALSE(sampleToJson(whole).contains(QStringLiteral("partial"))) << "old readers see what they knew";

        // The same through blobbench-cli: the JSON it writes holds the partial figures.
        TempDir dir;
        const std::string project = writeProject(dir, plan.connection.target, plan.scenarios[0].sql);
        const std::string json = dir.file("f.json");
        const auto r = test::runCli(
            {"run", project, "-r", "1", "-q", "--no-save", "--json", json, "-P", "wire_counting=" + counting},
            pg.env());
        EXPECT_EQ(r.exitCode, 1) << r.err;
        const QJsonArray samples = samplesIn(json);
        ASSERT_EQ(samples.size(), 1) << r.err;
        const QJsonObject j = samples[0].toObject();
        EXPECT_TRUE(j[QStringLiteral("partial")].toBool());
        EXPECT_GT(j[QStringLiteral("phases")].toObject()[QStringLiteral("elapsedNs")].toInteger(), 0);
        EXPECT_TRUE(j[QStringLiteral("wire")]
                        .toObject()[QStringLiteral("tap")]
                        .toObject()[QStringLiteral("available")]
                        .toBool());
    }
}

// SIGSTOP for 7 s while the statement runs, with a stall timeout of 4 s: the run completes (the
// relay does not blame the server for the client's own pause) and the sample says it was disturbed.
TEST(CancelDeadline, AStoppedClientIsNoServerStall) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    test::PgConn admin(conninfo);
    ASSERT_TRUE(admin.ok()) << admin.errorMessage();
    for (const std::string counting : {"relay", "in-process"}) {
        SCOPED_TRACE(counting);
        TempDir dir;
        const std::string marker = "blobbench_stop_marker_" + std::to_string(::getpid()) + "_" + counting;
        const std::string project = writeProject(
            dir, pg.through(pg.portNumber()), "SELECT 1 AS ID, 'x' AS CONTENT FROM pg_sleep(3) /* " + marker + " */");
        const std::string json = dir.file("s.json");
        CliProcess run({"run", project, "-r", "1", "-q", "--no-save", "--json", json, "-P", "wire_counting=" + counting,
                        "-P", "wire_stall_timeout_s=4"},
                       pg.env());
        ASSERT_TRUE(waitFor(
            [&] {
                return admin.value(
                           "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query "
                           "LIKE '%" +
                           marker + "%'") != "0" ||
                       !run.running();
            },
            60s));
        ASSERT_TRUE(run.running()) << run.wait(1s).err;
        run.stopFor(7s);
        const auto r = run.wait(60s);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        EXPECT_EQ(r.err.find("stall timeout"), std::string::npos) << r.err;
        const QJsonArray samples = samplesIn(json);
        ASSERT_EQ(samples.size(), 1) << r.err;
        const QJsonObject s = samples[0].toObject();
        EXPECT_EQ(s[QStringLiteral("status")].toString(), QStringLiteral("complete"))
            << s[QStringLiteral("error")].toString().toStdString();
        EXPECT_NE(s[QStringLiteral("disturbed")].toString().toStdString().find("stopped or suspended"),
                  std::string::npos)
            << QJsonDocument(s).toJson().toStdString();
    }
}
