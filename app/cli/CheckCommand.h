#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace blobbench::cli {

// `blobbench-cli check fb9060 CONNECTION [options]`: whether a Firebird server and client show
// issue #9060 (stale BLOB content on a same-transaction re-read after BLOB id reuse, inline BLOBs).
// A check of a known defect, not a measurement: it has a table of its own and prints "defect seen"
// or "not seen" for each inline BLOB size it tries. args[0] is "check".
// Exit codes: 0 not seen, 4 defect seen (each size tried), 1 the check could not run, 2 bad usage.
int runCheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

std::string checkUsage();

}  // namespace blobbench::cli
