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

// Sessions runs take a connection string: a project, --verify-content and a sweep are refused
// with one line (not in this cut).
void refuseSessionsOptions(const CliOptions& options, bool project);

}  // namespace blobbench::cli
