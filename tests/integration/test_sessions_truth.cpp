// Many sessions at once (issue #25), the "Done means" of the real servers, through blobbench-cli
// itself: the sessions' connection bytes summed equal a packet capture of the whole run (PostgreSQL
// and Firebird 5.0.4, in-process counting), a server that kills every backend ends every session
// with its statements kept, an open loop against a server paused for 2 s (SIGSTOP of the run's
// backends) shows the pause in its p99 and schedule lag, and SIGINT ends every session at once.
// Each test has a database of its own (PostgreSQL: createOwnPgDatabase; Firebird 5: a file beside
// the shared one), dropped at the end. The capture tests skip like test_wire_capture when tshark is
// missing or capturing is refused, except under CI=true.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/CaptureSupport.h"
#include "support/FirebirdSupport.h"
#include "support/PgSupport.h"
#include "support/SocketSupport.h"
#include "support/TestSupport.h"

using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::processPortsTo;
using blobbench::test::ProcessResult;
using blobbench::test::TempDir;
using Clock = std::chrono::steady_clock;

namespace {

QJsonObject jsonOf(const std::string& path) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(blobbench::test::readFile(path))).object();
}

double number(const QJsonObject& o, const char* key) {
    return o.value(QLatin1String(key)).toDouble(-1);
}

QJsonObject object(const QJsonObject& o, const char* key) {
    return o.value(QLatin1String(key)).toObject();
}

// Lines a process wrote on stderr.
long linesOf(const std::string& text) {
    return std::count(text.begin(), text.end(), '\n');
}

// The statements each session completed over every scenario (the JSON's all.perSession).
std::vector<double> statementsPerSession(const QJsonObject& run) {
    std::vector<double> out;
    for (const QJsonValue& s : object(run, "all").value(QStringLiteral("perSession")).toArray()) {
        out.push_back(number(s.toObject(), "statements"));
    }
    return out;
}

// The CSV's "all" rows: their statements, in session order.
std::vector<long> csvAllRows(const std::string& path) {
    std::istringstream in(blobbench::test::readFile(path));
    std::vector<long> statements;
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
        std::vector<std::string> fields;
        std::stringstream parts(line);
        for (std::string f; std::getline(parts, f, ',');) {
            fields.push_back(f);
        }
        if (fields.size() > 2 && fields[1] == "all") {
            statements.push_back(std::stol(fields[2]));
        }
    }
    return statements;
}

// Every local port a running process connected from to `serverPort`, polled every few milliseconds
// until it ends: the sessions' connections live for the whole run, and a connect of their own takes
// longer than a poll.
std::set<int> watchPorts(CliProcess& run, int serverPort, std::chrono::seconds bound) {
    std::set<int> ports;
    const auto until = Clock::now() + bound;
    while (run.running() && Clock::now() < until) {
        for (int p : processPortsTo(run.pid(), serverPort)) {
            ports.insert(p);
        }
        std::this_thread::sleep_for(3ms);
    }
    return ports;
}

// The capture's packets of one client port, written to a file of their own: analyseCapture follows
// one stream's sequence numbers, and each connection has its own.
std::string onePort(const std::string& capture, int clientPort) {
    const std::string file = capture + "." + std::to_string(clientPort) + ".pcapng";
    const std::string command = "tshark -r '" + capture + "' -Y 'tcp.port == " + std::to_string(clientPort) + "' -w '" +
                                file + "' >/dev/null 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return file;
}

// The connections opened (SYN without ACK) in a capture file.
int connectsIn(const std::string& file) {
    const std::string command = "tshark -r '" + file + "' -Y 'tcp.flags.syn == 1 && tcp.flags.ack == 0' 2>/dev/null";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        return -1;
    }
    int lines = 0;
    char line[512];
    while (std::fgets(line, sizeof line, pipe) != nullptr) {
        ++lines;
    }
    ::pclose(pipe);
    return lines;
}

// Runs blobbench-cli `args` (a --sessions run writing --json `json`) under a capture of `serverPort`
// and compares the sessions' connection bytes, summed, with the capture's TCP payload both ways.
void expectSessionBytesEqualTheCapture(const std::vector<std::string>& args, const std::vector<std::string>& env,
                                       const std::string& json, int serverPort, std::size_t sessions) {
    if (!blobbench::test::captureToolsInstalled()) {
        if (blobbench::test::ciMode()) {
            FAIL() << "dumpcap/tshark not installed: scripts/test installs Debian package tshark (BUILD_PACKAGES)";
        }
        GTEST_SKIP() << "dumpcap/tshark not installed (Debian package tshark)";
    }
    TempDir dir;
    const std::string file = dir.file("sessions.pcapng");
    blobbench::test::LoopbackCapture capture(static_cast<std::uint16_t>(serverPort), file);
    if (!capture.running()) {
        if (blobbench::test::ciMode() && ::geteuid() == 0) {
            FAIL() << "cannot capture on lo as root: " << capture.output();
        }
        GTEST_SKIP() << "cannot capture on lo: " << capture.output();
    }
    CliProcess run(args, env);
    const std::set<int> ports = watchPorts(run, serverPort, 120s);
    const ProcessResult r = run.wait(5s);
    // libpcap hands packets over in blocks, on a timeout of up to a second: wait for the last one.
    std::this_thread::sleep_for(2500ms);
    capture.stop();
    ASSERT_EQ(r.exitCode, 0) << r.err;
    SCOPED_TRACE("dumpcap: " + capture.output());

    const QJsonObject out = jsonOf(json);
    const QJsonArray perSession = out.value(QStringLiteral("perSession")).toArray();
    ASSERT_EQ(static_cast<std::size_t>(perSession.size()), sessions) << r.out;
    double counted = 0;
    for (const QJsonValue& s : perSession) {
        const QJsonObject session = s.toObject();
        EXPECT_EQ(session.value(QStringLiteral("wireMethod")).toString(), QStringLiteral("in-process"));
        const QJsonObject wire = object(session, "connectionWire");
        ASSERT_GT(number(wire, "sendBytes"), 0) << "session " << number(session, "session");
        ASSERT_GT(number(wire, "recvBytes"), 0) << "session " << number(session, "session");
        counted += number(wire, "sendBytes") + number(wire, "recvBytes");
    }
    EXPECT_EQ(number(out, "connectionWireBytes"), counted);

    // The process's own connections to the server, and only those: the server is shared, and other
    // clients' connections on its port are in the capture too.
    ASSERT_EQ(ports.size(), sessions) << "the run's connections to port " << serverPort;
    double captured = 0;
    for (int port : ports) {
        const std::string own = onePort(file, port);
        EXPECT_EQ(connectsIn(own), 1) << "client port " << port << ": the whole connection, once";
        const blobbench::test::CapturedCounts c =
            blobbench::test::analyseCapture(own, static_cast<std::uint16_t>(serverPort));
        EXPECT_EQ(c.foreign, 0u);
        EXPECT_GT(c.downBytes, 0u) << "client port " << port;
        captured += static_cast<double>(c.upBytes + c.downBytes);
        std::printf("client port %d: up %llu bytes, down %llu bytes, %llu segments sent again\n", port,
                    static_cast<unsigned long long>(c.upBytes), static_cast<unsigned long long>(c.downBytes),
                    static_cast<unsigned long long>(c.retransmitted));
    }
    std::printf("sessions' connections: %.0f bytes; capture: %.0f bytes (%+.4f %%)\n", counted, captured,
                captured > 0 ? (counted - captured) / captured * 100 : 0.0);
    ASSERT_GT(captured, 1e6);  // the statements' results, not only the connects
    // The counters stop at each session's last statement; the capture also holds its goodbye.
    EXPECT_NEAR(counted, captured, captured * 0.005);
}

// A PostgreSQL database of the test's own with the 300-row data set, dropped (its connections
// ended) with the object.
class OwnPgDatabase {
public:
    OwnPgDatabase(const std::string& conninfo, const std::string& tag)
        : m_admin(conninfo),
          m_own(blobbench::test::createOwnPgDatabase(conninfo,
                                                     "blobbench_truth_" + tag + "_" + std::to_string(::getpid()))),
          m_pg(blobbench::test::pgTarget(conninfo)) {
        const ProcessResult prepared = blobbench::test::runCli({"prepare", m_own.target, "--rows", "300", "-q"}, env());
        m_prepared = prepared.exitCode == 0;
        EXPECT_TRUE(m_prepared) << prepared.err;
    }
    ~OwnPgDatabase() { m_admin.value("DROP DATABASE IF EXISTS " + m_own.name + " WITH (FORCE)"); }
    OwnPgDatabase(const OwnPgDatabase&) = delete;
    OwnPgDatabase& operator=(const OwnPgDatabase&) = delete;

    bool prepared() const { return m_prepared; }
    const std::string& target() const { return m_own.target; }  // a URI without the password
    std::vector<std::string> env() const { return m_pg.env(); }
    int port() const { return m_pg.portNumber(); }
    // The server processes of the connections to this database (the test's own admin connection is
    // on the shared one).
    std::vector<pid_t> backends() {
        std::vector<pid_t> pids;
        std::istringstream in(m_admin.value(
            "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity WHERE datname = '" + m_own.name + "'"));
        for (pid_t pid = 0; in >> pid;) {
            pids.push_back(pid);
        }
        return pids;
    }
    // Waits (at most `bound`) until `n` connections to this database are open; false if they never are.
    bool waitForBackends(std::size_t n, CliProcess& run, std::chrono::seconds bound = 60s) {
        const auto until = Clock::now() + bound;
        while (Clock::now() < until && run.running()) {
            if (backends().size() >= n) {
                return true;
            }
            std::this_thread::sleep_for(20ms);
        }
        return false;
    }
    long terminateAll() {
        return std::stol(m_admin.value(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '" + m_own.name + "'"));
    }
    // No connection of the run is left on the server (a backend may take a moment to exit).
    bool noConnectionLeft() {
        for (int i = 0; i < 250; ++i) {
            if (backends().empty()) {
                return true;
            }
            std::this_thread::sleep_for(20ms);
        }
        return false;
    }

private:
    blobbench::test::PgConn m_admin;
    blobbench::test::PgOwnDatabase m_own;
    blobbench::test::PgTarget m_pg;
    bool m_prepared = false;
};

// SIGSTOPs server processes and always SIGCONTs them, also when the test fails half-way.
class StoppedProcesses {
public:
    StoppedProcesses() = default;
    ~StoppedProcesses() { resume(); }
    StoppedProcesses(const StoppedProcesses&) = delete;
    StoppedProcesses& operator=(const StoppedProcesses&) = delete;
    // Stops each of `pids` that is a postgres process; the errno of the first kill that failed, or 0.
    int stop(const std::vector<pid_t>& pids) {
        for (pid_t pid : pids) {
            const std::string comm = blobbench::test::readFile("/proc/" + std::to_string(pid) + "/comm");
            if (comm.rfind("postgres", 0) != 0) {
                ADD_FAILURE() << "pid " << pid << " is not a postgres backend: " << comm;
                continue;
            }
            if (::kill(pid, SIGSTOP) != 0) {
                return errno;
            }
            m_stopped.push_back(pid);
        }
        return 0;
    }
    void resume() {
        for (pid_t pid : m_stopped) {
            ::kill(pid, SIGCONT);
        }
        m_stopped.clear();
    }

private:
    std::vector<pid_t> m_stopped;
};

std::vector<std::string> pgRun(const OwnPgDatabase& db, std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", db.target(), "-s", "short-blobs"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

TEST(SessionsTruth, PostgresSessionBytesEqualAPacketCaptureOfTheRun) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    OwnPgDatabase db(conninfo, "capture");
    ASSERT_TRUE(db.prepared());
    TempDir dir;
    const std::string json = dir.file("pg.json");
    expectSessionBytesEqualTheCapture(
        {"run", db.target(), "-s", "short-blobs", "-s", "varchar", "-r", "5", "--sessions", "4", "--json", json, "-q"},
        db.env(), json, db.port(), 4);
}

TEST(SessionsTruth, Firebird5SessionBytesEqualAPacketCaptureOfTheRun) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    std::smatch port;
    ASSERT_TRUE(std::regex_search(database, port, std::regex(R"(^inet://[^:/]+:(\d+)/)"))) << database;
    // A database file of its own beside the shared one, made by prepare through the 5.0 client.
    const std::string target =
        std::regex_replace(database, std::regex(R"([^/]+$)"), "blobbench_truth_" + std::to_string(getpid()) + ".fdb");
    struct Dropped {
        std::string target, user, password;
        ~Dropped() { blobbench::test::dropFirebirdDatabase(target, user, password); }
    } dropped{target, user, password};
    const ProcessResult prepared =
        blobbench::test::runCli({"prepare", "-d", target, "-u", user, "-p", password, "--client-library", client, "-P",
                                 "create_database=true", "--rows", "300", "-q"});
    ASSERT_EQ(prepared.exitCode, 0) << prepared.out << prepared.err;
    TempDir dir;
    const std::string json = dir.file("fb5.json");
    expectSessionBytesEqualTheCapture(
        {"run",         "-d", target,    "-u", user, "-p",         password, "--client-library", client, "-s",
         "short-blobs", "-s", "varchar", "-r", "3",  "--sessions", "4",      "--json",           json,   "-q"},
        {}, json, std::stoi(port[1]), 4);
}

TEST(SessionsTruth, PostgresBackendsKilledEndEverySessionWithTheirStatementsKept) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    OwnPgDatabase db(conninfo, "killed");
    ASSERT_TRUE(db.prepared());
    TempDir dir;
    const std::string json = dir.file("killed.json"), csv = dir.file("killed.csv");
    CliProcess run(pgRun(db, {"--sessions", "3", "--duration", "8", "--json", json, "--csv", csv, "-q"}), db.env());
    ASSERT_TRUE(db.waitForBackends(3, run)) << run.wait(1s).err;
    std::this_thread::sleep_for(2s);
    ASSERT_TRUE(run.running()) << "the run ended before the server killed its sessions";
    const auto killed = Clock::now();
    EXPECT_EQ(db.terminateAll(), 3);
    const ProcessResult r = run.wait(30s);
    const double seconds = std::chrono::duration<double>(Clock::now() - killed).count();
    std::printf("ended %.2f s after the cut, exit %d: %s", seconds, r.exitCode, r.err.c_str());
    EXPECT_EQ(r.exitCode, 1) << r.err;
    // The run had 6 s to go: it is the server's cut that ended it.
    EXPECT_LT(seconds, 4.0) << r.err;
    EXPECT_EQ(linesOf(r.err), 1) << r.err;
    EXPECT_TRUE(r.err.starts_with("blobbench-cli: session ")) << r.err;
    const QJsonObject out = jsonOf(json);
    ASSERT_FALSE(out.isEmpty()) << "no JSON written: " << r.err;
    EXPECT_FALSE(out.value(QStringLiteral("ok")).toBool(true));
    const std::vector<double> statements = statementsPerSession(out);
    ASSERT_EQ(statements.size(), 3u);
    for (std::size_t i = 0; i < statements.size(); ++i) {
        EXPECT_GT(statements[i], 0) << "session " << i + 1 << ": its statements before the cut were lost";
    }
    for (const QJsonValue& s : out.value(QStringLiteral("perSession")).toArray()) {
        EXPECT_FALSE(s.toObject().value(QStringLiteral("ok")).toBool(true)) << "every session ended on the cut";
    }
    const std::vector<long> rows = csvAllRows(csv);
    ASSERT_EQ(rows.size(), 3u) << blobbench::test::readFile(csv);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(static_cast<double>(rows[i]), statements[i]) << "session " << i + 1;
    }
    EXPECT_TRUE(db.noConnectionLeft());
}

TEST(SessionsTruth, PostgresOpenLoopShowsAServerPausedFor2sInP99AndScheduleLag) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    OwnPgDatabase db(conninfo, "paused");
    ASSERT_TRUE(db.prepared());
    TempDir dir;
    const auto openLoop = [&](const std::string& json) {
        return pgRun(db, {"--sessions", "2", "--duration", "6", "--rate", "20", "--json", json, "-q"});
    };
    const std::string control = dir.file("control.json"), paused = dir.file("paused.json");
    {
        const ProcessResult r = blobbench::test::runCli(openLoop(control), db.env());
        ASSERT_EQ(r.exitCode, 0) << r.err;
    }
    {
        CliProcess run(openLoop(paused), db.env());
        ASSERT_TRUE(db.waitForBackends(2, run)) << run.wait(1s).err;
        std::this_thread::sleep_for(2s);
        StoppedProcesses stopped;  // declared after the database: it resumes them before the drop
        const std::vector<pid_t> backends = db.backends();
        ASSERT_EQ(backends.size(), 2u);
        if (const int error = stopped.stop(backends); error != 0) {
            if (blobbench::test::ciMode() && ::geteuid() == 0) {
                FAIL() << "cannot stop the server's backends as root: " << std::strerror(error);
            }
            GTEST_SKIP() << "cannot stop the server's backends: " << std::strerror(error);
        }
        std::this_thread::sleep_for(2s);
        stopped.resume();
        const ProcessResult r = run.wait(60s);
        ASSERT_EQ(r.exitCode, 0) << r.err;
    }
    const QJsonObject without = object(object(jsonOf(control), "all"), "combined");
    const QJsonObject with = jsonOf(paused);
    const QJsonObject all = object(object(with, "all"), "combined");
    ASSERT_GT(number(all, "statements"), 0);
    // Latency runs from the slot: the statements due while the server stood still waited for it.
    EXPECT_GT(number(object(all, "latency"), "p99Ns"), 1.5e9);
    EXPECT_GT(number(object(all, "latency"), "maxNs"), 1.5e9);
    EXPECT_GT(number(object(all, "scheduleLag"), "maxNs"), 1e9);
    EXPECT_GT(number(all, "late"), 0);
    // Every slot accounted for, and the pause was the server's, not the client's.
    EXPECT_EQ(
        number(all, "statements") + number(all, "failed") + number(all, "cancelled") + number(with, "slotsMissed"),
        number(with, "slotsDue"));
    EXPECT_EQ(number(with, "clientPauses"), 0);
    EXPECT_EQ(number(all, "disturbed"), 0);
    // The same run without the pause: its p99 is far below the pause.
    ASSERT_GT(number(without, "statements"), 0);
    EXPECT_LT(number(object(without, "latency"), "p99Ns"), 0.75e9);
    std::printf("p99 / max / schedule lag max / late: paused %.0f / %.0f / %.0f ms / %.0f, control %.1f / %.1f ms\n",
                number(object(all, "latency"), "p99Ns") / 1e6, number(object(all, "latency"), "maxNs") / 1e6,
                number(object(all, "scheduleLag"), "maxNs") / 1e6, number(all, "late"),
                number(object(without, "latency"), "p99Ns") / 1e6, number(object(without, "latency"), "maxNs") / 1e6);
}

TEST(SessionsTruth, PostgresSigintEndsEverySessionAtOnceAndWritesTheJson) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    OwnPgDatabase db(conninfo, "sigint");
    ASSERT_TRUE(db.prepared());
    TempDir dir;
    const std::string json = dir.file("sigint.json");
    CliProcess run(pgRun(db, {"--sessions", "4", "--duration", "30", "--json", json, "-q"}), db.env());
    ASSERT_TRUE(db.waitForBackends(4, run)) << run.wait(1s).err;
    std::this_thread::sleep_for(2s);
    ASSERT_TRUE(run.running());
    const auto signalled = Clock::now();
    run.signal(SIGINT);
    const ProcessResult r = run.wait(60s);
    const double seconds = std::chrono::duration<double>(Clock::now() - signalled).count();
    std::printf("ended %.2f s after SIGINT, exit %d: %s", seconds, r.exitCode, r.err.c_str());
    ASSERT_EQ(r.exitCode, 130) << r.err;
    EXPECT_LT(seconds, 3.0) << "from SIGINT to the process's end";
    EXPECT_TRUE(r.err.starts_with("blobbench-cli: SIGINT: the run was cancelled")) << r.err;
    EXPECT_EQ(linesOf(r.err), 1) << r.err;
    const QJsonObject out = jsonOf(json);
    ASSERT_FALSE(out.isEmpty()) << "no JSON written: " << r.err;
    const std::vector<double> statements = statementsPerSession(out);
    ASSERT_EQ(statements.size(), 4u);
    for (std::size_t i = 0; i < statements.size(); ++i) {
        EXPECT_GT(statements[i], 0) << "session " << i + 1;
    }
    EXPECT_TRUE(db.noConnectionLeft());
}

// Hostile round 5h W7: a statement cancelled (or failed) ended its session's connection, and the
// connection's total ("Wire: the sessions' connections carried ...") left it out: 0.004 MB where the
// cancelled statements had moved 425 kB each. The total holds them now, as the kept samples do.
TEST(SessionsTruth, PostgresCancelledStatementsAreInTheConnectionTotals) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    OwnPgDatabase db(conninfo, "cancelwire");
    ASSERT_TRUE(db.prepared());
    TempDir dir;
    const std::string json = dir.file("cancel.json");
    // 2 Mbit/s: an all-blobs statement (3.8 MB) takes about 15 s, so the signal lands in the fetch.
    CliProcess run({"run", db.target(), "-s", "all-blobs", "--sessions", "2", "--duration", "30", "--bandwidth", "2M",
                    "--json", json, "-q"},
                   db.env());
    ASSERT_TRUE(db.waitForBackends(2, run)) << run.wait(1s).err;
    std::this_thread::sleep_for(2s);
    ASSERT_TRUE(run.running());
    run.signal(SIGINT);
    const ProcessResult r = run.wait(60s);
    ASSERT_EQ(r.exitCode, 130) << r.err;
    const QJsonObject out = jsonOf(json);
    ASSERT_FALSE(out.isEmpty()) << "no JSON written: " << r.err;
    const QJsonArray sessions = out[QStringLiteral("perSession")].toArray();
    ASSERT_EQ(sessions.size(), 2);
    for (const auto& value : sessions) {
        const QJsonObject session = value.toObject();
        const QJsonArray kept = session[QStringLiteral("failedSamples")].toArray();
        ASSERT_FALSE(kept.isEmpty()) << "the cancelled statement is kept";
        double moved = 0;
        for (const auto& sample : kept) {
            const QJsonObject o = sample.toObject();
            EXPECT_EQ(o[QStringLiteral("status")].toString(), QStringLiteral("cancelled"));
            moved += number(object(object(o, "wire"), "tap"), "recvBytes");
        }
        EXPECT_GT(moved, 100000) << "2 s at 2 Mbit/s moves about 500 kB";
        const double total = number(object(session, "connectionWire"), "recvBytes");
        EXPECT_GE(total, moved) << "the connection's total leaves out the statement the cancel ended";
    }
}

// Issue #25: --shared-link puts every session behind one bandwidth (one DSL line, one VPN tunnel),
// where by default each session has a link of its own. What the sessions carried in the measured
// window is compared with the line's capacity; the pgbench-style aggregate log counts the same
// statements as the JSON.
TEST(SessionsTruth, PostgresSharedLinkCarriesOneBandwidthForAllSessions) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    OwnPgDatabase db(conninfo, "sharedlink");
    ASSERT_TRUE(db.prepared());
    TempDir dir;
    constexpr double kLineBytesPerS = 4e6 / 8;  // --bandwidth 4M, each direction
    const auto carried = [&](bool shared) {
        const std::string json = dir.file(shared ? "shared.json" : "own.json");
        const std::string log = dir.file(shared ? "shared.log" : "own.log");
        std::vector<std::string> args = pgRun(db, {"--sessions", "4", "--duration", "4", "--bandwidth", "4M", "--json",
                                                   json, "--aggregate-log", log, "-q"});
        if (shared) {
            args.push_back("--shared-link");
        }
        const ProcessResult r = CliProcess(args, db.env()).wait(120s);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        const QJsonObject out = jsonOf(json);
        EXPECT_EQ(out[QStringLiteral("linkShared")].toBool(), shared);
        EXPECT_NE(out[QStringLiteral("link")].toString().indexOf(shared ? QStringLiteral("shared by all 4 sessions")
                                                                        : QStringLiteral("each session its own link")),
                  -1)
            << out[QStringLiteral("link")].toString().toStdString();
        const QJsonObject all = object(object(out, "all"), "combined");
        const double statements = number(all, "statements");
        EXPECT_GT(statements, 0);
        // The log's num_transactions (column 2) and failures (column 14) add up to the JSON's.
        std::istringstream lines(blobbench::test::readFile(log));
        double logged = 0;
        double failures = 0;
        for (std::string line; std::getline(lines, line);) {
            std::istringstream columns(line);
            std::vector<double> c{std::istream_iterator<double>(columns), std::istream_iterator<double>()};
            EXPECT_EQ(c.size(), 16u) << line;
            if (c.size() == 16) {
                logged += c[1];
                failures += c[13];
            }
        }
        EXPECT_EQ(logged, statements);
        EXPECT_EQ(failures, 0);
        return number(all, "wireBytes") / (number(out, "windowNs") / 1e9);
    };
    const double shared = carried(true);
    const double own = carried(false);
    // Everything the sessions read passed one 4 Mbit/s line; the queries went up on the other.
    EXPECT_LE(shared, kLineBytesPerS * 1.10) << "bytes/s over the window with one shared line";
    EXPECT_GE(shared, kLineBytesPerS * 0.5) << "the line was kept busy";
    // Four lines of their own carry more than one can (the server sends far faster than 0.5 MB/s).
    EXPECT_GE(own, kLineBytesPerS * 2) << "bytes/s over the window with a line per session";
}

// Hostile round 5i L10: an open loop whose every session lost its connection early (backends
// terminated at 1.5 s of 6) counted its window and slots to the planned end: "6.00 s measured, 60 slots
// due, 45 missed" for a run that ended at 1.45 s, and its rate read 2.2/s for a 10/s schedule. The
// schedule ends where the last session stopped.
TEST(SessionsTruth, PostgresOpenLoopEndedByTheServerCountsItsScheduleToTheEnd) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    OwnPgDatabase db(conninfo, "killedopen");
    ASSERT_TRUE(db.prepared());
    TempDir dir;
    const std::string json = dir.file("open.json");
    CliProcess run(pgRun(db, {"--sessions", "2", "--duration", "20", "--rate", "10", "--json", json, "-q"}), db.env());
    ASSERT_TRUE(db.waitForBackends(2, run)) << run.wait(1s).err;
    std::this_thread::sleep_for(2s);
    ASSERT_TRUE(run.running());
    EXPECT_EQ(db.terminateAll(), 2);
    const ProcessResult r = run.wait(30s);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    const QJsonObject out = jsonOf(json);
    ASSERT_FALSE(out.isEmpty()) << r.err;
    const double window = number(out, "windowNs") / 1e9;
    EXPECT_LT(window, 10.0) << "the window ran on to the planned 20 s";
    const double due = number(out, "slotsDue");
    EXPECT_LE(due, window * 10 + 1);
    const double missed = number(out, "slotsMissed");
    EXPECT_LE(missed, 3) << "slots after the sessions ended counted as missed (" << due << " due)";
}

}  // namespace
