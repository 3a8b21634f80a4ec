#pragma once

#include <string>

#include "app/cli/CliOptions.h"
#include "engine/drivers/Driver.h"

namespace blobbench::cli {

class SignalCancel;

// The connection the options name (`database` the connection string): the engine from --engine or
// from the string; says on stderr when --charset or --client-library is not in effect on it.
ConnectionSpec connectionFrom(const CliOptions& options, const std::string& database);

// prepare CONNECTION: loads the reference data set (or --from-folder, --rows, --binary) with one
// progress line; a signal before it connected ends it at once, after it the batch is rolled back.
int commandPrepare(const CliOptions& options);

// The default SQLite data set, in BLOBBENCH_DATA_DIR or the user's data folder (created): its path.
std::string defaultDatabasePath();

// Prepares the default data set at `path` when it is missing or incomplete, with the progress line
// and summary of `blobbench-cli` with no arguments; a complete one is left as it is.
// A signal `interrupt` holds cancels it (Error(Cancelled), nothing left behind).
void ensureDefaultDatabase(const std::string& path, const CliOptions& options, SignalCancel& interrupt);

}  // namespace blobbench::cli
