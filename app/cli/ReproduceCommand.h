#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace blobbench::cli {

// `blobbench-cli reproduce NAME [CONNECTION] [options]` and `reproduce --list`: a published
// experiment (engine/report/PublishedTable.h) run again under its conditions where they are known,
// each published figure printed against the one measured here with a verdict (issue #28).
// args[0] is "reproduce". Exit codes: 0 the table was printed, 1 the experiment failed, 2 bad usage.
int runReproduce(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

std::string reproduceUsage();

}  // namespace blobbench::cli
