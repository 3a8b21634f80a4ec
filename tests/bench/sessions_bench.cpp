// Many sessions at once (issue #25): BlobBench's SessionRunner at N sessions against N bare libpq
// threads running the same statement (the short-blobs scenario's SQL, text results, single-row
// mode: the driver's defaults) for the same time, in the same run. The sides alternate over several
// rounds (throughput() says which), so that a change of the machine's load touches each; the median
// of the rounds' ratios is held against the target (0.95) and said PASS or FAIL. It is a benchmark: it prints
// figures and exits 0 either way. Then the process's resident memory at 1, 4 and N sessions, with every session
// connected and after fetching, and the cost of a session from a least-squares line through them. Run:
// BLOBBENCH_PG_CONNINFO=... sessions_bench [--sessions N] [--seconds S] [--rounds R]
#include <libpq-fe.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/data/ReferenceSuite.h"
#include "engine/run/SessionFigures.h"
#include "engine/run/SessionRunner.h"

using namespace blobbench;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kTarget = 0.95;  // issue #25: at least 0.95x the throughput of bare client threads

long residentKb() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmRSS:", 0) == 0) {
            return std::atol(line.c_str() + 6);
        }
    }
    return 0;
}

// This process's CPU time (user + system, every thread), s.
double cpuSeconds() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// A side's statements/s, and the client's CPU time a statement (connects included): on a machine
// whose CPUs the server shares, the client's CPU is taken from the server's.
struct Measured {
    double rate = 0;
    double cpuUs = 0;
};

std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    std::string one, five, fifteen;
    in >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

// One bare statement: every row in single-row mode, every value's length read. `asTheDriver`: on the
// wire as the driver sends it (the unnamed statement prepared and described, each a round trip of its
// own, then executed: three round trips); else one PQsendQueryParams (one round trip), as most
// clients do.
void bareStatement(PGconn* conn, const std::string& sql, bool asTheDriver) {
    if (asTheDriver) {
        for (PGresult* step : {PQprepare(conn, "", sql.c_str(), 0, nullptr), PQdescribePrepared(conn, "")}) {
            const bool ok = PQresultStatus(step) == PGRES_COMMAND_OK;
            PQclear(step);
            if (!ok) {
                throw std::runtime_error(PQerrorMessage(conn));
            }
        }
    }
    const int sent = asTheDriver ? PQsendQueryPrepared(conn, "", 0, nullptr, nullptr, nullptr, 0)
                                 : PQsendQueryParams(conn, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0);
    if (!sent || !PQsetSingleRowMode(conn)) {
        throw std::runtime_error(PQerrorMessage(conn));
    }
    std::uint64_t bytes = 0;
    std::string error;
    while (PGresult* result = PQgetResult(conn)) {
        const auto status = PQresultStatus(result);
        if (status == PGRES_SINGLE_TUPLE) {
            for (int c = 0; c < PQnfields(result); ++c) {
                bytes += static_cast<std::uint64_t>(PQgetlength(result, 0, c));
            }
        } else if (status != PGRES_TUPLES_OK && error.empty()) {
            error = PQresultErrorMessage(result);
        }
        PQclear(result);
    }
    if (!error.empty()) {
        throw std::runtime_error(error);
    }
    (void)bytes;
}

// N bare libpq threads for `seconds`, every connection made first: statements/s over the window from
// the threads' start to the end of their last statement (as SessionRunner's window).
Measured bareThreads(const std::string& conninfo, const std::string& sql, int sessions, double seconds,
                     bool asTheDriver) {
    const double cpuBefore = cpuSeconds();
    std::vector<PGconn*> conns;
    const auto finish = [&conns] {
        for (PGconn* conn : conns) {
            PQfinish(conn);
        }
    };
    for (int i = 0; i < sessions; ++i) {
        conns.push_back(PQconnectdb(conninfo.c_str()));
        if (PQstatus(conns.back()) != CONNECTION_OK) {
            const std::string message = PQerrorMessage(conns.back());
            finish();
            throw std::runtime_error(message);
        }
    }
    std::atomic<std::uint64_t> statements{0};
    std::mutex mutex;
    std::string firstError;
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    std::vector<std::thread> threads;
    for (PGconn* conn : conns) {
        threads.emplace_back([&, conn] {
            try {
                while (Clock::now() < end) {
                    bareStatement(conn, sql, asTheDriver);
                    ++statements;
                }
            } catch (const std::exception& e) {
                std::lock_guard lock(mutex);
                firstError = firstError.empty() ? e.what() : firstError;
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    const double spent = std::chrono::duration<double>(Clock::now() - start).count();
    finish();
    if (!firstError.empty()) {
        throw std::runtime_error("bare thread: " + firstError);
    }
    const double n = static_cast<double>(statements.load());
    return {n / spent, n > 0 ? (cpuSeconds() - cpuBefore) / n * 1e6 : 0};
}

// The resident memory with every session connected, and the largest seen after a statement ended
// (every session still connected: the sessions' fetch buffers, threads and counters included).
struct Resident : SessionsObserver {
    long connectedKb = 0;
    std::atomic<long> fetchedKb{0};
    void allConnected(int, int) override { connectedKb = residentKb(); }
    void sampleReady(int, const Sample&, bool) override {
        const long kb = residentKb();
        for (long seen = fetchedKb.load(); kb > seen && !fetchedKb.compare_exchange_weak(seen, kb);) {
        }
    }
};

SessionsOutcome runSessions(const std::string& conninfo, const Scenario& scenario, int sessions, double seconds,
                            SessionsObserver& observer, bool counted) {
    SessionsPlan plan;
    plan.plan.runId = "sessions-bench";
    plan.plan.connection = ConnectionSpec{"postgres", conninfo};
    plan.plan.wireTap = counted;  // counted in-process, as the CLI does by default
    plan.plan.scenarios = {scenario};
    plan.sessions = sessions;
    plan.duration = std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
    SessionRunner runner;
    SessionsOutcome outcome = runner.run(plan, observer);
    if (!outcome.ok) {
        throw std::runtime_error(outcome.error);
    }
    return outcome;
}

Measured sessionRunnerRate(const std::string& conninfo, const Scenario& scenario, int sessions, double seconds,
                           bool counted) {
    const double cpuBefore = cpuSeconds();
    SessionsObserver quiet;
    const ScenarioFigures all = figuresOf(runSessions(conninfo, scenario, sessions, seconds, quiet, counted)).all;
    const double n = static_cast<double>(all.combined.statements);
    return {all.rates.statementsPerS, n > 0 ? (cpuSeconds() - cpuBefore) / n * 1e6 : 0};
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n == 0 ? 0 : n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Least squares y = a + b x: b is the cost of one more session, the largest residual how far the
// points are from a line.
struct Fit {
    double intercept = 0, slope = 0, largestResidual = 0;
};
Fit linearFit(const std::vector<double>& x, const std::vector<double>& y) {
    const double n = static_cast<double>(x.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    Fit f;
    const double d = n * sxx - sx * sx;
    f.slope = d != 0 ? (n * sxy - sx * sy) / d : 0;
    f.intercept = (sy - f.slope * sx) / n;
    for (std::size_t i = 0; i < x.size(); ++i) {
        f.largestResidual = std::max(f.largestResidual, std::abs(y[i] - (f.intercept + f.slope * x[i])));
    }
    return f;
}

// Four sides a round, in an order rotated each round: SessionRunner counted (as the CLI runs) and
// uncounted, bare threads of one round trip a statement (the reference the target is held
// against) and bare threads on the wire as the driver (which tells the driver's extra round trips
// from the rest of BlobBench's cost).
void throughput(const std::string& conninfo, const Scenario& scenario, int sessions, double seconds, int rounds) {
    std::printf("throughput, statements/s (%d sessions, %.1f s each side, the sides' order rotated each round)\n",
                sessions, seconds);
    std::printf("  %-6s %10s %10s %10s %14s %8s %14s\n", "round", "BlobBench", "uncounted", "bare", "bare 3-trip",
                "ratio", "vs 3-trip");
    enum Side { Counted, Uncounted, Bare, BareAsTheDriver, kSides };
    std::vector<double> figures[kSides], cpu[kSides], ratios, driverRatios;
    for (int round = 0; round < rounds; ++round) {
        double rate[kSides] = {};
        for (int step = 0; step < kSides; ++step) {
            const int side = (step + round) % kSides;
            const Measured m = side == Counted || side == Uncounted
                                   ? sessionRunnerRate(conninfo, scenario, sessions, seconds, side == Counted)
                                   : bareThreads(conninfo, scenario.sql, sessions, seconds, side == BareAsTheDriver);
            rate[side] = m.rate;
            figures[side].push_back(m.rate);
            cpu[side].push_back(m.cpuUs);
        }
        ratios.push_back(rate[Bare] > 0 ? rate[Counted] / rate[Bare] : 0);
        driverRatios.push_back(rate[BareAsTheDriver] > 0 ? rate[Counted] / rate[BareAsTheDriver] : 0);
        std::printf("  %-6d %10.1f %10.1f %10.1f %14.1f %8.3f %14.3f\n", round + 1, rate[Counted], rate[Uncounted],
                    rate[Bare], rate[BareAsTheDriver], ratios.back(), driverRatios.back());
        std::fflush(stdout);
    }
    const double m = median(ratios);
    std::printf("  %-6s %10.1f %10.1f %10.1f %14.1f %8.3f %14.3f\n", "median", median(figures[Counted]),
                median(figures[Uncounted]), median(figures[Bare]), median(figures[BareAsTheDriver]), m,
                median(driverRatios));
    std::printf("  %-6s %10.0f %10.0f %10.0f %14.0f   (client CPU us a statement, median)\n", "CPU",
                median(cpu[Counted]), median(cpu[Uncounted]), median(cpu[Bare]), median(cpu[BareAsTheDriver]));
    std::printf("  ratio (BlobBench / bare) from %.3f to %.3f over the rounds\n",
                *std::min_element(ratios.begin(), ratios.end()), *std::max_element(ratios.begin(), ratios.end()));
    std::printf(
        "  bare: PQsendQueryParams, one round trip; bare 3-trip: PQprepare, PQdescribePrepared and\n"
        "  PQsendQueryPrepared, the driver's three round trips; both text results in single-row mode\n");
    std::printf(
        "%s: BlobBench at %d sessions reached %.3f of %d bare libpq threads (median of %d rounds; issue #25 "
        "asks >= %.2f)\n",
        m >= kTarget ? "PASS" : "FAIL", sessions, m, sessions, rounds, kTarget);
}

void memory(const std::string& conninfo, const Scenario& scenario, int sessions) {
    std::set<int> points = {1, std::min(4, sessions), sessions};
    std::vector<double> x, connected, fetched;
    std::printf("resident memory, kB (in-process counting, 2 s of statements at each point)\n");
    std::printf("  %-10s %12s %16s\n", "sessions", "connected", "after fetching");
    for (int n : points) {
        Resident observer;
        runSessions(conninfo, scenario, n, 2.0, observer, true);
        x.push_back(n);
        connected.push_back(static_cast<double>(observer.connectedKb));
        fetched.push_back(static_cast<double>(observer.fetchedKb.load()));
        std::printf("  %-10d %12ld %16ld\n", n, observer.connectedKb, observer.fetchedKb.load());
    }
    const Fit c = linearFit(x, connected), f = linearFit(x, fetched);
    std::printf("  linear fit, connected:      %.0f kB + %.1f kB per session (largest residual %.0f kB)\n", c.intercept,
                c.slope, c.largestResidual);
    std::printf("  linear fit, after fetching: %.0f kB + %.1f kB per session (largest residual %.0f kB)\n", f.intercept,
                f.slope, f.largestResidual);
}

}  // namespace

int main(int argc, char** argv) {
    const char* env = std::getenv("BLOBBENCH_PG_CONNINFO");
    std::string conninfo = env ? env : "";
    int sessions = 16;
    int rounds = 3;
    double seconds = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--sessions") {
            sessions = std::max(2, std::atoi(argv[i + 1]));
        } else if (option == "--seconds") {
            seconds = std::max(0.5, std::atof(argv[i + 1]));
        } else if (option == "--rounds") {
            rounds = std::max(1, std::atoi(argv[i + 1]));
        } else if (option == "--conninfo") {
            conninfo = argv[i + 1];
        }
    }
    if (conninfo.empty()) {
        std::cerr << "sessions_bench: set BLOBBENCH_PG_CONNINFO or pass --conninfo\n";
        return 2;
    }
    Scenario scenario;
    for (const Scenario& s : referenceSuite(Dialect::PostgreSQL)) {
        if (s.id == "short-blobs") {
            scenario = s;
        }
    }
    try {
        PGconn* probe = PQconnectdb(conninfo.c_str());
        if (PQstatus(probe) != CONNECTION_OK) {
            const std::string message = PQerrorMessage(probe);
            PQfinish(probe);
            throw std::runtime_error(message);
        }
        std::printf("sessions_bench: short-blobs on PostgreSQL %d, database %s at %s:%s; %u CPUs, load average %s\n",
                    PQserverVersion(probe), PQdb(probe), PQhost(probe), PQport(probe),
                    std::thread::hardware_concurrency(), loadAverage().c_str());
        PQfinish(probe);
        // First: loads the client library and the counter's hooks, and warms the server's cache.
        (void)sessionRunnerRate(conninfo, scenario, 1, 0.5, true);
        // Memory before the rounds: every point after at most smaller ones, whose freed memory the
        // allocator may keep.
        memory(conninfo, scenario, sessions);
        throughput(conninfo, scenario, sessions, seconds, rounds);
        std::printf("load average at the end: %s\n", loadAverage().c_str());
    } catch (const std::exception& e) {
        std::cerr << "sessions_bench: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
