#pragma once

#include <string>

#include "engine/core/Error.h"

namespace blobbench::cli {

// blobbench-cli's exit codes: 0 success, 1 a run or prepare failed (or stdout could not be
// written), 2 bad usage, 128 + the signal for a run a signal cancelled after writing everything.
inline constexpr int kOk = 0;
inline constexpr int kFailed = 1;
inline constexpr int kUsage = 2;

// The code for an Error of `kind` (a cancel by a signal: 128 + the signal).
int exitCodeFor(ErrorKind kind);
// "blobbench-cli: MESSAGE" on stderr, one printable line.
void printError(const std::string& message);

}  // namespace blobbench::cli
