#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/Parameter.h"
#include "engine/drivers/Driver.h"
#include "engine/wire/LinkProfile.h"

namespace blobbench::cli {

enum class Command { Default, Prepare, Run, Engines, Bytea, Predict, Help, Version };

// What the command line asked for; parseArguments() throws Error(Usage) with one line on bad input.
struct CliOptions {
    Command command = Command::Default;
    std::string engine;          // empty: from the connection string
    std::string database;        // connection string
    bool databaseGiven = false;  // named on the command line, even as '' (refused: not the default)
    std::string user;
    std::string password;
    std::string charset;
    std::string clientLibrary;
    ParameterValues parameters;
    // prepare
    std::string fromFolder;
    std::optional<std::uint64_t> rows;
    std::optional<std::uint64_t> seed;
    bool binary = false;
    bool replaceTables = false;                // --replace: drop reference tables BlobBench did not make
    std::optional<std::int64_t> documentSize;  // bytea: --size
    std::optional<LinkProfile> predictAt;      // bytea: --predict-at DOWN/UP[/LATENCY]
    std::uint64_t batchRows = 1000;
    bool batchSet = false;  // --batch given
    // run
    std::vector<std::string> scenarios;  // ids; empty: the whole reference suite
    int repeat = 1;
    int warmup = 0;
    std::optional<std::uint64_t> limitRows;
    std::string jsonPath;
    std::string csvPath;
    bool quiet = false;
    bool verifyContent = false;  // --verify-content: the same as -P verify_content=on
    // many sessions at once (app/cli/SessionsCommand.cpp): any of these makes the run a sessions run
    std::optional<int> sessions;            // --sessions N
    std::optional<double> durationS;        // --duration S: closed loop for S seconds
    std::optional<double> rate;             // --rate R: open loop, R statements/s across the sessions
    std::optional<double> rampUpS;          // --ramp-up S: left out of every figure
    bool sharedLink = false;                // --shared-link: the emulated link is one link all sessions share
    std::string aggregateLog;               // --aggregate-log FILE: pgbench's --aggregate-interval lines
    std::optional<int> aggregateIntervalS;  // --aggregate-interval S (default 1)
    bool sessionsRun() const { return sessions || durationS || rate; }
    // wire tap and link emulation (networked engines)
    bool wireTap = false;  // asked for explicitly (--tap or a link option)
    bool noTap = false;    // --no-tap
    bool linkSet = false;  // a link option was given: it overrides a project's saved link
    LinkProfile link;
    bool estimateCompression = false;  // --estimate-compression (turns the tap on)
    bool repeatSet = false;            // --repeat / --warmup given: they override a sweep's own counts
    bool warmupSet = false;
    // run PROJECT.blobbench.json (app/cli/ProjectCommand.cpp)
    std::string sweep;
    std::string markdownPath;
    std::string compare;           // a run id of the project's history, "last", "previous", or a file
    std::string connection;        // --connection: a project's connection by name (default: its current one)
    bool connectionGiven = false;  // --connection was given, even as '' (a connection may be named so)
    bool noSave = false;
    // predict PROJECT|SAMPLES.json (app/cli/PredictCommand.cpp): the link is `link`
    bool advise = false;
};

CliOptions parseArguments(const std::vector<std::string>& args);
// "" when -c applies to the engine; else the one line that says it is not in effect (only Firebird
// takes a connection character set), so that the option is never ignored without a word.
std::string charsetNotInEffect(const std::string& engine, const std::string& charset);
std::string usageText();
// The absolute path `path` names once symbolic links are followed (also a last link whose target
// does not exist yet), "." and ".." resolved.
std::filesystem::path resolvedPath(const std::string& path);
// Whether two output paths are one file (the same inode, or the same path once resolved).
bool sameFile(const std::string& a, const std::string& b);

// An unknown option as a refusal may show it: "-pS3cret" (a password glued to -p) is never echoed
// (hostile round 5j W1), nor what follows '=' in "--password=..."; anything else as given, printable.
std::string shownOption(const std::string& arg);
// Error(Usage) "OPTION PATH: not a regular file (a directory): ..." when the export `path` is a directory or a
// socket (a FIFO or a device is written in place; writeFileAtomically refuses a FIFO no process reads). For
// --client-library, the file dlopen would open (whyNotALibraryFile: a bare name is looked up in
// LD_LIBRARY_PATH), which blocked in dlopen when it was a FIFO.
void refuseWhatIsNoFile(const std::string& option, const std::string& path);
// The file of a Firebird database on this machine (an absolute path that exists here, named locally or
// through a URL or host:path whose host is this machine), or "": an output there would replace it.
std::string localFirebirdFile(const std::string& target);
// Error(Usage) when `output` (of `option`) is the file of the Firebird database `connection` names on
// this machine: writing it would replace the database (hostile round 5o O2, 5p C3 and C4).
void refuseOutputOverFirebirdDatabase(const std::string& option, const std::string& output,
                                      const ConnectionSpec& connection);
// Whether `path` is `directory` or names something under it (paths resolved).
bool isWithin(const std::string& path, const std::string& directory);
// Error(Usage) when the output file `path` of `option` (--json) is one of the files a study writes in
// its work directory, or under its `folder` when there is one: the output would replace them.
void refuseOutputOverStudyFiles(const std::string& option, const std::string& path,
                                const std::vector<std::filesystem::path>& files,
                                const std::filesystem::path& folder = {});

}  // namespace blobbench::cli
