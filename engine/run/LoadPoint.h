#pragma once

#include <string>
#include <vector>

#include "engine/core/Parameter.h"
#include "engine/core/Sample.h"
#include "engine/run/SessionFigures.h"

namespace blobbench {

// What a run of many sessions keeps of one scenario at one point (a project's history, the window's
// load charts): the statements of every session after the ramp-up, their latency histogram whole,
// and each session's own tally. Built from a SessionsOutcome; read back from a project file.
struct LoadPoint {
    std::string runId;
    std::string scenarioId;  // kAllScenarios: every scenario together
    std::string scenarioTitle;
    std::string sql;             // the statement the sessions ran (setup first, when any): a project edited during the
                                 // run keeps what ran with its figures (hostile round 5i D7); empty for the "all" point
    ParameterValues point;       // the sweep's values at this point ("sessions" -> "8"); empty outside a sweep
    ParameterValues parameters;  // the run's tunables as resolved (sessions, duration, rate among them)
    std::string startedAt;       // ISO 8601, UTC
    std::string engine;
    std::string connection;  // display label, never a password
    std::string serverVersion;
    std::string clientVersion;
    std::string wireMethod;  // "relay", "in-process", or empty when the wire was not counted
    std::string link;        // the emulated link as in effect (SessionsOutcome::link), "" for none
    int sessions = 1;
    bool openLoop = false;
    double rate = 0;  // open loop: statements/s asked over all sessions
    Nanos window{0};  // the measured window: from the end of the ramp-up to the last statement's end (an open
                      // loop: to the schedule's end, or the stop)
    Nanos rampUp{0};
    std::uint64_t slotsDue = 0;     // open loop
    std::uint64_t slotsMissed = 0;  // open loop
    std::uint64_t excluded = 0;     // statements of the ramp-up and warm-ups, run but not counted
    std::string error;              // the point's first failure ("session 3: ..."), empty when none
    StatementTally combined;        // every session's statements merged
    std::vector<StatementTally> perSession;

    static constexpr const char* kAllScenarios = "all";

    Rates rates() const { return ratesOf(combined, window); }
    Spread fairness() const;  // of the sessions' statements/s
};

// Where a point was measured: what a SessionsOutcome does not hold.
struct LoadContext {
    std::string runId;
    ParameterValues point;
    ParameterValues parameters;
    std::string connection;
    std::string startedAt;
};

// A point per scenario, in the plan's order, and one for every scenario together when there are
// several.
std::vector<LoadPoint> loadPointsOf(const SessionsOutcome& outcome, const LoadContext& context);

}  // namespace blobbench
