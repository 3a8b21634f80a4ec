#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace blobbench::cli {

// `blobbench-cli storage <keyed-read|insert|footprint> [target] [options]`: the storage experiments
// of issue #8 (SQLite against one file per BLOB; LOB insert throughput). args[0] is "storage".
// Returns the exit code: 0 ok, 1 the run failed (results so far printed, labelled partial), 2 bad usage.
int runStorage(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

std::string storageUsage();

}  // namespace blobbench::cli
