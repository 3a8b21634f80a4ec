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

// Options that only mean something for a project; refuses them for `run CONNECTION`.
void refuseProjectOnlyOptions(const CliOptions& options);

}  // namespace blobbench::cli
