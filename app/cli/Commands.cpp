// The command table of blobbench-cli, and the shared option set's commands' dispatch.
#include "app/cli/Commands.h"

#include <algorithm>
#include <iostream>

#include "app/cli/ByteaCommand.h"
#include "app/cli/CheckCommand.h"
#include "app/cli/CliOptions.h"
#include "app/cli/ExitCodes.h"
#include "app/cli/FbCompat.h"
#include "app/cli/PredictCommand.h"
#include "app/cli/PrepareCommand.h"
#include "app/cli/ReproduceCommand.h"
#include "app/cli/RunCommand.h"
#include "app/cli/Signals.h"
#include "app/cli/StorageCommand.h"
#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"

namespace blobbench::cli {

int exitCodeFor(ErrorKind kind) {
    if (kind == ErrorKind::Cancelled && SignalCancel::received() != 0) {
        return 128 + SignalCancel::received();
    }
    return kind == ErrorKind::Usage ? kUsage : kFailed;
}

void printError(const std::string& message) {
    std::cerr << "blobbench-cli: " << terminalLine(message) << std::endl;
}

namespace {

int commandEngines() {
    for (const Driver* driver : allDrivers()) {
        std::cout << driver->id() << "  " << driver->displayName() << (driver->networked() ? "" : " (embedded)")
                  << '\n';
        for (const auto& p : driver->parameters()) {
            std::cout << "  " << p.id << " = " << p.defaultValue;
            if (p.type == ParameterType::Integer) {
                std::cout << "  [" << p.minimum << ".." << p.maximum << (p.unit.empty() ? "" : " " + p.unit) << "]";
            } else if (p.type == ParameterType::Enum) {
                std::string choices;
                for (const auto& c : p.choices) {
                    choices += (choices.empty() ? "" : "|") + c;
                }
                std::cout << "  [" << choices << "]";
            } else if (p.type == ParameterType::Boolean) {
                std::cout << "  [true|false]";
            }
            std::cout << "  " << p.label;
            if (!p.needs.empty()) {
                std::cout << " (needs " << p.needs << ")";
            }
            std::cout << '\n';
        }
    }
    return kOk;
}

// run, prepare, predict, bytea, engines, --help and --version: one option set (parseArguments).
int runParsed(const std::vector<std::string>& args, std::ostream& /*out*/, std::ostream& /*err*/) {
    try {
        const CliOptions options = parseArguments(args);
        switch (options.command) {
            case Command::Help:
                std::cout << usageText();
                return kOk;
            case Command::Version:
                std::cout << "blobbench-cli " << BLOBBENCH_VERSION << '\n';
                return kOk;
            case Command::Engines:
                return commandEngines();
            case Command::Bytea:
                return commandBytea(options);
            case Command::Predict:
                return commandPredict(options);
            case Command::Prepare:
                return commandPrepare(options);
            case Command::Default:
            case Command::Run:
                return commandRun(options);
        }
    } catch (const Error& e) {
        const int sig = e.kind() == ErrorKind::Cancelled ? SignalCancel::received() : 0;
        printError(sig != 0 ? std::string(SignalCancel::name(sig)) + ": " + e.what() : std::string(e.what()));
        return exitCodeFor(e.kind());
    } catch (const std::exception& e) {
        printError(std::string("internal error: ") + e.what());
        return kFailed;
    }
    return kOk;
}

const CliCommand kDefault{"", "run a connection, a project or the default SQLite suite", runParsed};

}  // namespace

const std::vector<CliCommand>& cliCommands() {
    static const std::vector<CliCommand> commands = {
        {"storage", "storage studies: SQLite against one file per BLOB, LOB insert throughput", runStorage},
        {"reproduce", "reproduce the published results with verdicts", runReproduce},
        {"check", "check a results file against the published figures", runCheck},
        {"fb-blob-test", "Firebird's fb-blob-test command line (recognised by its options, not a word)", runFbCompat},
        {"run", "run a connection or a project: the reference suite, a sweep, many sessions", runParsed},
        {"prepare", "load the reference data set into a database", runParsed},
        {"predict", "predict a run's time on another link (--advise: what to change)", runParsed},
        {"bytea", "PostgreSQL bytea: text against binary format, hex against escape", runParsed, true},
        {"engines", "list the engines and their tunables", runParsed},
        kDefault,
    };
    return commands;
}

const CliCommand& commandFor(const std::vector<std::string>& args) {
    const std::vector<CliCommand>& commands = cliCommands();
    auto named = [&](std::string_view name) -> const CliCommand& {
        return *std::find_if(commands.begin(), commands.end(), [&](const CliCommand& c) { return c.name == name; });
    };
    const std::string first = args.empty() ? std::string() : args[0];
    for (const std::string_view byWord : {"storage", "reproduce", "check"}) {
        if (first == byWord) {
            return named(byWord);
        }
    }
    if (isFbCompatCommandLine(args)) {
        return named("fb-blob-test");
    }
    for (const std::string_view byWord : {"run", "prepare", "predict", "bytea", "engines"}) {
        if (first == byWord) {
            return named(byWord);
        }
    }
    return named("");
}

}  // namespace blobbench::cli
