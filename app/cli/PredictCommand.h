#pragma once

#include "app/cli/CliOptions.h"

namespace blobbench::cli {

// `blobbench-cli predict PROJECT|SAMPLES.json --latency MS --bandwidth RATE [--advise]`: every
// sample with an exchange trace predicted at the link (engine/wire/LinkModel.h), one table row a
// sample; --advise ranks each scenario's parameter sets by predicted time and marks the best with
// its saving against the current one. --json / --markdown write the same. Throws Error(Usage) for
// a file without traces or a missing link; returns the exit code.
int commandPredict(const CliOptions& options);

}  // namespace blobbench::cli
