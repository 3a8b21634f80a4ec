#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace blobbench::cli {

// One command of blobbench-cli: the first word that names it, a line on what it does, and its
// entry. Each command lives in its own file (app/cli/*Command.cpp) and reads its own options:
// storage, reproduce, check and the fb-blob-test compatible mode parse theirs; run, prepare,
// predict, bytea and engines share one option set (CliOptions.h, parseArguments).
struct CliCommand {
    std::string_view name;     // "" for the default command (a connection, a project or options)
    std::string_view summary;  // one line
    // The command's run: its exit code. `out` and `err` are where it prints (std::cout and
    // std::cerr in blobbench-cli); the commands of the shared option set print to std::cout and
    // std::cerr themselves.
    int (*run)(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) = nullptr;
    bool throughStdio = false;  // prints through stdio (bytea): main() checks stdout its own way
};

// Every command, in the order a command line is matched against them.
const std::vector<CliCommand>& cliCommands();

// The command `args` asks for: storage, reproduce or check by their first word; then fb-blob-test's
// own command line (FbCompat.h); then run, prepare, predict, bytea or engines by their first word;
// anything else is the default command, which runs a connection or project (or refuses the word).
const CliCommand& commandFor(const std::vector<std::string>& args);

}  // namespace blobbench::cli
