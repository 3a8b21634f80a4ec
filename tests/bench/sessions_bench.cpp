// Many sessions at once (issue #25): BlobBench's SessionRunner at N sessions against N bare libpq
// threads running the same statement (the short-blobs scenario's SQL, text results, single-row
// mode: the driver's defaults) for the same time, in the same run; and the process's resident
// memory with 1 and with N sessions connected, for the cost of a session.
// Run: BLOBBENCH_PG_CONNINFO=... sessions_bench [--sessions N] [--seconds S]
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
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

long residentKb() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmRSS:", 0) == 0) {
            return std::atol(line.c_str() + 6);
        }
    }
    return 0;
}

// One bare statement: every row in single-row mode, every value's length read.
void bareStatement(PGconn* conn, const std::string& sql) {
    if (!PQsendQueryParams(conn, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) || !PQsetSingleRowMode(conn)) {
        throw std::runtime_error(PQerrorMessage(conn));
    }
    std::uint64_t bytes = 0;
    while (PGresult* result = PQgetResult(conn)) {
        const auto status = PQresultStatus(result);
        if (status == PGRES_SINGLE_TUPLE) {
            for (int c = 0; c < PQnfields(result); ++c) {
                bytes += static_cast<std::uint64_t>(PQgetlength(result, 0, c));
            }
        } else if (status != PGRES_TUPLES_OK) {
            std::string message = PQresultErrorMessage(result);
            PQclear(result);
            throw std::runtime_error(message);
        }
        PQclear(result);
    }
    (void)bytes;
}

double bareThreads(const std::string& conninfo, const std::string& sql, int sessions, double seconds) {
    std::vector<PGconn*> conns;
    for (int i = 0; i < sessions; ++i) {
        conns.push_back(PQconnectdb(conninfo.c_str()));
        if (PQstatus(conns.back()) != CONNECTION_OK) {
            throw std::runtime_error(PQerrorMessage(conns.back()));
        }
    }
    std::atomic<std::uint64_t> statements{0};
    const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    std::vector<std::thread> threads;
    for (PGconn* conn : conns) {
        threads.emplace_back([&, conn] {
            while (Clock::now() < end) {
                bareStatement(conn, sql);
                ++statements;
            }
        });
    }
    const auto start = Clock::now();
    for (auto& t : threads) {
        t.join();
    }
    const double spent = std::chrono::duration<double>(Clock::now() - start).count();
    for (PGconn* conn : conns) {
        PQfinish(conn);
    }
    return static_cast<double>(statements.load()) / spent;
}

struct Resident : SessionsObserver {
    long kb = 0;
    void allConnected(int, int) override { kb = residentKb(); }
};

double sessionRunnerRate(const std::string& conninfo, const Scenario& scenario, int sessions, double seconds, long& kb,
                         bool counted = true) {
    SessionsPlan plan;
    plan.plan.runId = "sessions-bench";
    plan.plan.connection = ConnectionSpec{"postgres", conninfo};
    plan.plan.wireTap = counted;  // counted in-process, as the CLI does by default
    plan.plan.scenarios = {scenario};
    plan.sessions = sessions;
    plan.duration = std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
    Resident observer;
    SessionRunner runner;
    const SessionsOutcome outcome = runner.run(plan, observer);
    if (!outcome.ok) {
        throw std::runtime_error(outcome.error);
    }
    kb = observer.kb;
    return figuresOf(outcome).all.rates.statementsPerS;
}

}  // namespace

int main(int argc, char** argv) {
    const char* env = std::getenv("BLOBBENCH_PG_CONNINFO");
    std::string conninfo = env ? env : "";
    int sessions = 16;
    double seconds = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--sessions") {
            sessions = std::max(2, std::atoi(argv[i + 1]));
        } else if (option == "--seconds") {
            seconds = std::max(0.5, std::atof(argv[i + 1]));
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
        long one = 0, many = 0;
        // First: loads the client library and the counter's hooks, and gives the memory of one session.
        sessionRunnerRate(conninfo, scenario, 1, 0.5, one);
        const double ours = sessionRunnerRate(conninfo, scenario, sessions, seconds, many);
        const double bare = bareThreads(conninfo, scenario.sql, sessions, seconds);
        long unused = 0;
        const double uncounted = sessionRunnerRate(conninfo, scenario, sessions, seconds, unused, false);
        std::cout << "short-blobs, " << sessions << " sessions, " << seconds << " s each way\n"
                  << "  BlobBench SessionRunner: " << ours << " statements/s\n"
                  << "  the same, wire not counted (--no-tap): " << uncounted << " statements/s\n"
                  << "  bare libpq threads:      " << bare << " statements/s\n"
                  << "  ratio: " << (bare > 0 ? ours / bare : 0) << " (issue #25 asks >= 0.95)\n"
                  << "  resident memory with every session connected: 1 session " << one << " kB, " << sessions
                  << " sessions " << many << " kB: " << (many - one) / (sessions - 1) << " kB per session\n";
    } catch (const std::exception& e) {
        std::cerr << "sessions_bench: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
