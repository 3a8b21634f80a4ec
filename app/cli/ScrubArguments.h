#pragma once

namespace blobbench::cli {

// Blanks the passwords in the process's own argument strings, as mysql and isql-fb do: `ps`, /proc/PID/cmdline
// and a crash report show the command line to every user of the machine for the whole run (hostile round
// 5i P1). The value after -p / --password (and --password=VALUE) becomes x's, and each secret of a
// connection string (user:SECRET@, password=SECRET, ?password=SECRET: targetSecretRanges) too. Call it
// after the arguments were copied: the strings are changed in place, their lengths kept.
void scrubArguments(int argc, char** argv);

}  // namespace blobbench::cli
