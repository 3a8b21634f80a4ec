#pragma once

#include "app/cli/CliOptions.h"

namespace blobbench::cli {

// run [CONNECTION]: the reference suite (or -s scenarios) on one session with the text report on
// stdout, --json / --csv kept after every sample; a project file goes to commandRunProject, a
// sessions run (--sessions, --duration, --rate or the load tunables) to commandRunSessions. With no
// connection, the default SQLite data set (prepared once).
int commandRun(const CliOptions& options);

}  // namespace blobbench::cli
