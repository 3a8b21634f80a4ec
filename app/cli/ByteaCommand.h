#pragma once

#include "app/cli/CliOptions.h"

namespace blobbench::cli {

// `blobbench-cli bytea CONN`: PostgreSQL's bytea text-vs-binary experiment, optionally over an
// emulated link through the wire tap. Prints one table; returns the exit code.
int commandBytea(const CliOptions& options);

}  // namespace blobbench::cli
