#pragma once

#include <string>

#include "app/cli/CliOptions.h"

namespace blobbench::cli {

class SignalCancel;

// Whether `run` was given a project file rather than a connection (by name or content).
bool isProjectRun(const CliOptions& options);

// run PROJECT.blobbench.json: the project's scenarios on its current connection, optionally a
// sweep, each sample appended to the project's history (saved after every point unless --no-save),
// a Markdown summary on stdout, optional CSV / JSON / Markdown files and a comparison with an
// earlier run. Returns 0 or 1; throws Error (Usage: exit 2) for bad options or an unknown name.
int commandRunProject(const CliOptions& options);

// The default SQLite data set, in BLOBBENCH_DATA_DIR or the user's data folder (created): its path.
std::string defaultDatabasePath();

// Prepares the default data set at `path` when it is missing or incomplete, with the progress line
// and summary of `blobbench-cli` with no arguments (main.cpp); a complete one is left as it is.
// A signal `interrupt` holds cancels it (Error(Cancelled), nothing left behind).
void ensureDefaultDatabase(const std::string& path, const CliOptions& options, SignalCancel& interrupt);

// Options that only mean something for a project; refuses them for `run CONNECTION`.
void refuseProjectOnlyOptions(const CliOptions& options);

}  // namespace blobbench::cli
