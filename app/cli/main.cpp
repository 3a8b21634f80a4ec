// blobbench-cli: the headless runner. The commands are in the blobbench_cli library (app/cli,
// Commands.h holds the table); this is only the process around them. Exit codes: 0 ok, 1 a run or
// prepare failed (or stdout could not be written), 2 bad usage, 128 + the signal (130 SIGINT,
// 143 SIGTERM) for a run cancelled by one after everything measured was written.
#include <unistd.h>

#include <QCoreApplication>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "app/cli/ScrubArguments.h"
#include "app/cli/Signals.h"

int main(int argc, char** argv) {
    using namespace blobbench;
    using namespace blobbench::cli;
    QCoreApplication::setApplicationName(QStringLiteral("blobbench"));
    QCoreApplication::setApplicationVersion(QStringLiteral(BLOBBENCH_VERSION));
    const std::vector<std::string> args(argv + 1, argv + argc);
    scrubArguments(argc, argv);  // copied: ps and /proc/PID/cmdline no longer show a password
    // Every command: a closed stdout or a full disk behind it is said once everything else is
    // written, exit 1 (a failure or a signal keeps its own code, which says more).
    auto checked = [](int code, int error) {
        if (error != 0) {
            printError(std::string("cannot write to standard output: ") + std::strerror(error));
            return code == kOk ? kFailed : code;
        }
        return code;
    };
    const CliCommand& command = commandFor(args);
    if (command.throughStdio) {
        // Prints through stdio (CheckedStdout would reorder its lines): stdio keeps the error.
        std::signal(SIGPIPE, SIG_IGN);
        const int code = command.run(args, std::cout, std::cerr);
        std::cout.flush();
        if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) {
            return code;
        }
        // stdio forgets the errno of a failed write: one byte more asks the output again (it
        // already failed, so the byte costs nothing).
        const int error = ::write(STDOUT_FILENO, "\n", 1) < 0 ? errno : EIO;
        return checked(code, error);
    }
    CheckedStdout out;
    const int code = command.run(args, std::cout, std::cerr);
    return checked(code, out.error());
}
