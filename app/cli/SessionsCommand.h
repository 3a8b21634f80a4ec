#pragma once

#include <string>
#include <vector>

#include "app/cli/CliOptions.h"
#include "app/cli/Signals.h"
#include "engine/run/Runner.h"

namespace blobbench::cli {

// run ... --sessions N [--duration S] [--rate R] [--ramp-up S] (issue #25): the plan that one
// session would run, run by N sessions at once (engine/run/SessionRunner.h). Prints the sessions'
// report; --json and --csv write their figures. Returns the exit code.
int commandRunSessions(const CliOptions& options, const RunPlan& plan, SignalCancel& interrupt,
                       const std::vector<std::string>& notes);

// A sessions run of a connection string refuses --verify-content with one line (not in this version);
// a project's run takes the flags as its load tunables instead.
void refuseSessionsOptions(const CliOptions& options, bool project);

// --sessions, --duration, --rate and --ramp-up as the load tunables of a project's run (sessions,
// load_duration_s, load_rate, load_ramp_up_s): whole numbers, else Error(Usage) naming the flag.
void applySessionsFlags(const CliOptions& options, ParameterValues& parameters);

}  // namespace blobbench::cli
