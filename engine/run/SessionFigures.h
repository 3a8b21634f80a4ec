#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "engine/run/SessionRunner.h"

namespace blobbench {

// Throughput over the measured window. MB = 10^6 bytes, as the reports' byte sizes.
struct Rates {
    double statementsPerS = 0;
    double rowsPerS = 0;
    double contentMBPerS = 0;
    double wireMBPerS = 0;  // 0 when the wire was not counted (see StatementTally::wireCounted)
};
Rates ratesOf(const StatementTally& tally, std::chrono::nanoseconds window);

// How evenly the sessions were served: their statements/s. cv = population stddev / mean (0 for
// one session or a mean of 0).
struct Spread {
    double min = 0;
    double max = 0;
    double mean = 0;
    double cv = 0;
};
Spread spreadOf(const std::vector<double>& values);

// One scenario (or every scenario together, id "all"): combined and per session.
struct ScenarioFigures {
    std::string id;
    std::string title;
    StatementTally combined;                 // every session's statements merged
    Rates rates;                             // of `combined`
    std::vector<StatementTally> perSession;  // in session order (empty tallies for sessions that ran none)
    std::vector<Rates> perSessionRates;
    Spread fairness;  // of the sessions' statements/s
};

struct SessionsFigures {
    std::vector<ScenarioFigures> scenarios;  // in the plan's order
    ScenarioFigures all;
    std::uint64_t errors = 0;  // failed statements of every session
    // The sessions' connections' own totals summed (SessionResult::connectionWire), and whether
    // every session had one.
    std::uint64_t connectionWireBytes = 0;
    bool connectionWireComplete = false;
};
SessionsFigures figuresOf(const SessionsOutcome& outcome);

// The text report's section: one line per scenario and session, the fairness, the wire and, for the
// open loop, the schedule.
void writeSessionsReport(std::ostream& out, const SessionsOutcome& outcome, const SessionsFigures& figures);

}  // namespace blobbench
