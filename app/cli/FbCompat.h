#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace blobbench::cli {

// fb-blob-test's command line (Firebird's own BLOB transfer test), so its users can switch to
// blobbench-cli with the same flags and get the same report:
//   blobbench-cli [<database>] -d/--database -u/--username -p/--password -c/--charset
//                 -n/--limit-rows -i/--max-inline-blob-size -z/--compress -a/--auto-blob-inline -h/--help
// plus --repeat N (median), --json FILE, --csv FILE and --client-library PATH.

// True when there is no subcommand and either an option only fb-blob-test has (-z, -i, -a) or a
// Firebird connection string; `blobbench-cli run ...` always gets the generic report.
bool isFbCompatCommandLine(const std::vector<std::string>& args);

// Runs the reference suite the way fb-blob-test does and prints its report. Returns the exit code:
// 0 ok, 1 a connection or a test failed, 2 bad usage. Errors go to `err` as one line each.
int runFbCompat(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

std::string fbCompatUsage();

}  // namespace blobbench::cli
