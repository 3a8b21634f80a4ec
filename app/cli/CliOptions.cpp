#include "app/cli/CliOptions.h"

#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "engine/core/Error.h"
#include "engine/core/FileKind.h"
#include "engine/core/Printable.h"
#include "engine/data/Dataset.h"
#include "engine/drivers/Registry.h"
#include "engine/drivers/firebird/FirebirdConnectionString.h"
#include "engine/drivers/sqlite/SqliteDriver.h"
#include "engine/drivers/sqlite/SqliteFileName.h"

namespace blobbench::cli {
namespace {

// Checked before anything is allocated or written (issue #21: a huge --rows ended in
// "internal error: std::bad_alloc", --rows 100000000 in a data set of about a terabyte).
constexpr std::uint64_t kMaxRows = 1'000'000;  // 100 times the reference set: about 13 GB

std::uint64_t parseCount(const std::string& option, const std::string& text, std::uint64_t minimum) {
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < minimum) {
        throw Error(ErrorKind::Usage, option + ": '" + text + "' is not a whole number >= " + std::to_string(minimum));
    }
    return value;
}

// Seconds or a rate: a finite decimal number in [minimum, maximum] ("10", "2.5"); `above` refuses the minimum itself.
double parseDecimal(const std::string& option, const std::string& text, double minimum, double maximum, bool above) {
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    const bool inRange = above ? value > minimum : value >= minimum;
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value) || !inRange ||
        value > maximum) {
        char range[96];
        std::snprintf(range, sizeof range, "a number %s %g and <= %g", above ? ">" : ">=", minimum, maximum);
        throw Error(ErrorKind::Usage, option + ": '" + text + "' is not " + range);
    }
    return value;
}

constexpr int kMaxSessions = 1024;
constexpr double kMaxSeconds = 86400;   // a day
constexpr double kMaxRate = 1'000'000;  // statements/s

// --predict-at DOWN/UP[/LATENCY] ("2M/512k", "2M/512k/20ms": one-way, each way), or RATE both ways.
LinkProfile parsePredictAt(const std::string& text) {
    std::vector<std::string> parts;
    for (std::size_t from = 0;;) {
        const std::size_t slash = text.find('/', from);
        parts.push_back(text.substr(from, slash == std::string::npos ? std::string::npos : slash - from));
        if (slash == std::string::npos) {
            break;
        }
        from = slash + 1;
    }
    if (parts.size() > 3 || std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); })) {
        throw Error(ErrorKind::Usage,
                    "--predict-at: '" + text + "' is not DOWN/UP[/LATENCY] (e.g. 2M/512k or 2M/512k/20ms)");
    }
    LinkProfile link;
    try {
        link.bandwidthDown = parseBitRate(parts[0]);
        link.bandwidthUp = parts.size() > 1 ? parseBitRate(parts[1]) : link.bandwidthDown;
        if (parts.size() > 2) {
            link.latencyUp = link.latencyDown = parseLatency(parts[2]);
        }
        link.validate();
    } catch (const Error& e) {
        throw Error(ErrorKind::Usage, std::string("--predict-at: ") + e.what());
    }
    return link;
}

// An output's file: `--json ''` wrote nothing and said nothing.
std::string outputFile(const std::string& option, const std::string& path) {
    if (path.empty()) {
        throw Error(ErrorKind::Usage, option + " needs a file name (it was given an empty one)");
    }
    refuseWhatIsNoFile(option, path);
    return path;
}

const char* commandName(Command command) {
    switch (command) {
        case Command::Prepare:
            return "prepare";
        case Command::Bytea:
            return "bytea";
        case Command::Predict:
            return "predict";
        case Command::Engines:
            return "engines";
        default:
            return "run";
    }
}

// One option of run, prepare, predict, bytea and engines: its spellings (the last is its name), whether
// it takes a value and may be given once only, the command it belongs to when it is one command's, and
// what it does to the options. The other commands (storage, reproduce, check, the fb-blob-test mode)
// parse options of their own.
struct OptionSpec {
    std::vector<std::string> names;
    bool takesValue = false;
    bool once = false;  // a value option given twice dropped the first value unsaid: refused
    std::optional<Command> only;
    std::string onlyWhy;         // what the refusal adds after "--x is an option of <command>"
    bool defaultRunToo = false;  // also taken by a run of the default data set (which it prepares)
    std::function<void(CliOptions& o, const std::string& option, const std::string& value)> apply;
};

// A value option given once.
OptionSpec single(std::vector<std::string> names,
                  std::function<void(CliOptions&, const std::string&, const std::string&)> apply) {
    return OptionSpec{std::move(names), true, true, std::nullopt, {}, false, std::move(apply)};
}
OptionSpec flag(std::vector<std::string> names, std::function<void(CliOptions&)> apply) {
    return OptionSpec{std::move(names),
                      false,
                      false,
                      std::nullopt,
                      {},
                      false,
                      [apply = std::move(apply)](CliOptions& o, const std::string&, const std::string&) { apply(o); }};
}
OptionSpec of(OptionSpec spec, Command command, std::string why, bool defaultRunToo = false) {
    spec.only = command;
    spec.onlyWhy = std::move(why);
    spec.defaultRunToo = defaultRunToo;
    return spec;
}
// prepare's: the data set a run measures is made by prepare.
OptionSpec ofPrepare(OptionSpec spec) {
    const std::string name = spec.names.back();
    return of(std::move(spec), Command::Prepare,
              "the data set is made by blobbench-cli prepare DATABASE " + name +
                  " ...; a run measures what the "
                  "database holds",
              true);
}

void setLatency(CliOptions& o, const std::string& option, const std::string& value) {
    const auto latency = parseLatency(value);
    if (option != "--latency-down") {
        o.link.latencyUp = latency;
    }
    if (option != "--latency-up") {
        o.link.latencyDown = latency;
    }
    o.wireTap = true;
    o.linkSet = true;
}

void setBandwidth(CliOptions& o, const std::string& option, const std::string& value) {
    const auto rate = parseBitRate(value);
    if (option != "--bandwidth-down" && option != "--down") {
        o.link.bandwidthUp = rate;
    }
    if (option != "--bandwidth-up" && option != "--up") {
        o.link.bandwidthDown = rate;
    }
    o.wireTap = true;
    o.linkSet = true;
}

const std::vector<OptionSpec>& optionTable() {
    using S = const std::string&;
    static const std::vector<OptionSpec> table = {
        // The connection
        {{"-d", "--database"},
         true,
         false,
         std::nullopt,
         {},
         false,
         [](CliOptions& o, S option, S value) {
             if (o.databaseGiven) {
                 throw Error(ErrorKind::Usage, option + ": the connection is already '" + o.database + "' (name one)");
             }
             o.database = value;
             o.databaseGiven = true;
         }},
        single({"-e", "--engine"}, [](CliOptions& o, S, S v) { o.engine = v; }),
        single({"-u", "--username"}, [](CliOptions& o, S, S v) { o.user = v; }),
        single({"-p", "--password"}, [](CliOptions& o, S, S v) { o.password = v; }),
        single({"-c", "--charset"}, [](CliOptions& o, S, S v) { o.charset = v; }),
        single({"--client-library"},
               [](CliOptions& o, S option, S v) {
                   o.clientLibrary = v;
                   refuseWhatIsNoFile(option, o.clientLibrary);
               }),
        {{"-P", "--param"},
         true,
         false,
         std::nullopt,
         {},
         false,
         [](CliOptions& o, S option, S assignment) {
             const auto eq = assignment.find('=');
             if (eq == std::string::npos || eq == 0) {
                 throw Error(ErrorKind::Usage, option + ": '" + assignment + "' is not ID=VALUE");
             }
             if (!o.parameters.emplace(assignment.substr(0, eq), assignment.substr(eq + 1)).second) {
                 throw Error(ErrorKind::Usage, option + " " + assignment.substr(0, eq) +
                                                   "=... is given twice: a tunable takes one value (give it once)");
             }
         }},
        // prepare
        ofPrepare(single({"--from-folder"}, [](CliOptions& o, S, S v) { o.fromFolder = v; })),
        ofPrepare(single({"--rows"},
                         [](CliOptions& o, S option, S v) {
                             o.rows = parseCount(option, v, 1);
                             if (*o.rows > kMaxRows) {
                                 throw Error(ErrorKind::Usage, "--rows: " + std::to_string(*o.rows) +
                                                                   " exceeds the limit of " + std::to_string(kMaxRows) +
                                                                   " rows (about 13 GB of reference data)");
                             }
                         })),
        ofPrepare(single({"--seed"}, [](CliOptions& o, S option, S v) { o.seed = parseCount(option, v, 0); })),
        ofPrepare(flag({"--binary"}, [](CliOptions& o) { o.binary = true; })),
        ofPrepare(single({"--batch"},
                         [](CliOptions& o, S option, S v) {
                             o.batchRows = parseCount(option, v, 1);
                             o.batchSet = true;
                         })),
        of(flag({"--replace"}, [](CliOptions& o) { o.replaceTables = true; }), Command::Prepare,
           "it replaces tables BlobBench did not make"),
        // bytea
        of(single({"--size"},
                  [](CliOptions& o, S option, S v) {
                      o.documentSize = parseSize(v, option);
                      if (*o.documentSize < 1) {
                          throw Error(ErrorKind::Usage, "--size must be at least 1 byte");
                      }
                      if (static_cast<std::uint64_t>(*o.documentSize) > kMaxValueBytes) {
                          throw Error(ErrorKind::Usage,
                                      "--size: " + std::to_string(*o.documentSize) +
                                          " bytes exceed the limit of 1G (PostgreSQL's largest bytea value)");
                      }
                  }),
           Command::Bytea, "the size of its document"),
        of(single({"--predict-at"}, [](CliOptions& o, S, S v) { o.predictAt = parsePredictAt(v); }), Command::Bytea,
           "for other runs: blobbench-cli predict SAMPLES.json --latency MS --bandwidth RATE"),
        // run
        {{"-s", "--scenario"},
         true,
         false,
         std::nullopt,
         {},
         false,
         [](CliOptions& o, S, S v) { o.scenarios.push_back(v); }},
        single({"-r", "--repeat"},
               [](CliOptions& o, S option, S v) {
                   o.repeat = static_cast<int>(parseCount(option, v, 1));
                   o.repeatSet = true;
               }),
        single({"-w", "--warmup"},
               [](CliOptions& o, S option, S v) {
                   o.warmup = static_cast<int>(parseCount(option, v, 0));
                   o.warmupSet = true;
               }),
        single({"-n", "--limit-rows"}, [](CliOptions& o, S option, S v) { o.limitRows = parseCount(option, v, 1); }),
        single({"--json"}, [](CliOptions& o, S option, S v) { o.jsonPath = outputFile(option, v); }),
        single({"--csv"}, [](CliOptions& o, S option, S v) { o.csvPath = outputFile(option, v); }),
        single({"--markdown"}, [](CliOptions& o, S option, S v) { o.markdownPath = outputFile(option, v); }),
        flag({"--verify-content"}, [](CliOptions& o) { o.verifyContent = true; }),
        flag({"-q", "--quiet"}, [](CliOptions& o) { o.quiet = true; }),
        // projects
        single({"--sweep"}, [](CliOptions& o, S, S v) { o.sweep = v; }),
        single({"--connection"},
               [](CliOptions& o, S, S v) {
                   o.connection = v;
                   o.connectionGiven = true;
               }),
        single({"--compare"}, [](CliOptions& o, S, S v) { o.compare = v; }),
        flag({"--no-save"}, [](CliOptions& o) { o.noSave = true; }),
        // predict
        of(flag({"--advise"}, [](CliOptions& o) { o.advise = true; }), Command::Predict,
           "blobbench-cli predict FILE --latency MS --advise"),
        // many sessions
        single({"--sessions"},
               [](CliOptions& o, S option, S v) {
                   const auto n = parseCount(option, v, 1);
                   if (n > kMaxSessions) {
                       throw Error(ErrorKind::Usage, "--sessions: " + std::to_string(n) + " exceeds the limit of " +
                                                         std::to_string(kMaxSessions));
                   }
                   o.sessions = static_cast<int>(n);
               }),
        single({"--duration"},
               [](CliOptions& o, S option, S v) { o.durationS = parseDecimal(option, v, 0, kMaxSeconds, true); }),
        single({"--rate"}, [](CliOptions& o, S option, S v) { o.rate = parseDecimal(option, v, 0, kMaxRate, true); }),
        single({"--ramp-up"},
               [](CliOptions& o, S option, S v) { o.rampUpS = parseDecimal(option, v, 0, kMaxSeconds, false); }),
        flag({"--shared-link"}, [](CliOptions& o) { o.sharedLink = true; }),
        single({"--aggregate-log"},
               [](CliOptions& o, S, S v) {
                   o.aggregateLog = v;
                   if (o.aggregateLog.empty()) {
                       throw Error(ErrorKind::Usage, "--aggregate-log: the file name is empty");
                   }
               }),
        single({"--aggregate-interval"},
               [](CliOptions& o, S option, S v) {
                   const std::uint64_t seconds = parseCount(option, v, 1);
                   if (seconds > 86400) {
                       throw Error(ErrorKind::Usage,
                                   "--aggregate-interval: " + std::to_string(seconds) + " is over 86400 s");
                   }
                   o.aggregateIntervalS = static_cast<int>(seconds);
               }),
        // the wire
        flag({"--wire-tap", "--tap"}, [](CliOptions& o) { o.wireTap = true; }),
        flag({"--no-tap"}, [](CliOptions& o) { o.noTap = true; }),
        flag({"--estimate-compression"},
             [](CliOptions& o) {
                 o.estimateCompression = true;
                 o.wireTap = true;
             }),
        single({"--latency"}, setLatency),
        single({"--latency-up"}, setLatency),
        single({"--latency-down"}, setLatency),
        single({"--bandwidth"}, setBandwidth),
        single({"--up", "--bandwidth-up"}, setBandwidth),
        single({"--down", "--bandwidth-down"}, setBandwidth),
    };
    return table;
}

const OptionSpec* optionSpec(const std::string& name) {
    for (const OptionSpec& spec : optionTable()) {
        if (std::find(spec.names.begin(), spec.names.end(), name) != spec.names.end()) {
            return &spec;
        }
    }
    return nullptr;
}

void refuseSessionContradictions(const CliOptions& o) {
    if (o.rampUpS && !o.sessionsRun()) {
        throw Error(ErrorKind::Usage, "--ramp-up needs --sessions, --duration or --rate (a sessions run)");
    }
    if (o.aggregateIntervalS && o.aggregateLog.empty()) {
        throw Error(ErrorKind::Usage, "--aggregate-interval needs --aggregate-log FILE (where its lines go)");
    }
    // A project's run may be one of many sessions through its load tunables: ProjectCommand checks it.
    const bool mayBeLoad = o.sessionsRun() || o.database.ends_with(".json") || o.parameters.contains("sessions") ||
                           o.parameters.contains("load_duration_s");
    if ((o.sharedLink || !o.aggregateLog.empty()) && !mayBeLoad) {
        throw Error(ErrorKind::Usage, std::string(o.sharedLink ? "--shared-link" : "--aggregate-log") +
                                          " is for a run of many sessions (give --sessions N or --duration S)");
    }
    if (!o.sessionsRun()) {
        return;
    }
    if (o.command != Command::Run && o.command != Command::Default) {
        throw Error(ErrorKind::Usage, "--sessions, --duration and --rate are options of run");
    }
    if (o.rate && !o.durationS) {
        throw Error(ErrorKind::Usage, "--rate needs --duration (how long the schedule runs)");
    }
    if (o.durationS && o.repeatSet) {
        throw Error(ErrorKind::Usage, "--duration and --repeat both say how long each session runs (give one)");
    }
    if (o.durationS && o.warmupSet) {
        throw Error(ErrorKind::Usage, "--warmup counts repetitions: with --duration, --ramp-up S leaves a warm-up out");
    }
}

}  // namespace

std::string usageText() {
    return R"(Usage: blobbench-cli [COMMAND] [OPTIONS] [CONNECTION]

Measures how a database moves large values (BLOB, bytea, CLOB) to the client.
With no arguments: prepares the reference data set in SQLite under the user's data
directory (once), then runs the reference suite and prints the report.

Commands:
  run        run the reference suite (or --scenario ...) and print the report;
             run PROJECT.blobbench.json runs a saved project (see "projects" below)
  prepare    create and fill the reference tables BLOB_SAMPLE and BLOB_TEST
  engines    list the engines and their tunables (use them with --param)
  bytea      PostgreSQL: one document as bytea in binary, hex and escape text, and as a
             large object: insert and select times, bytes, ratios (--size 2M, --repeat 3,
             and the wire options to emulate a link)
  predict    predict PROJECT|SAMPLES.json at another link from the samples' exchange traces,
             without running: --latency MS, --bandwidth RATE (--bandwidth-up ...), --advise,
             --json FILE, --markdown FILE (see "predict" below)
  check      check fb9060 CONNECTION: whether a Firebird server and client show issue
             #9060 (stale BLOB content with inline BLOBs; see check --help)
  reproduce  reproduce NAME [CONNECTION]: a published experiment run again, each published
             figure against the one measured here with a verdict (--list, --rows N,
             --at-fitted-link, --json FILE; see reproduce --help)
  --help     this text
  --version  the version

Connection:
  CONNECTION, -d, --database CONN   sqlite:PATH or PATH.db (more engines: see `engines`)
  -e, --engine ID                   the engine, when the connection string does not tell
  -u, --username USER               user name
  -p, --password PASSWORD           password (better: the engine's environment variable)
  -c, --charset NAME                character set
      --client-library PATH         client library to load (Firebird)
  -P, --param ID=VALUE              set an engine tunable (repeatable)

prepare:
      --from-folder DIR             load every file below DIR into BLOB_SAMPLE, then fill
                                    BLOB_TEST by the reference rule (cycling in name order)
      --rows N                      rows of BLOB_TEST (default 10000)
      --seed N                      seed of the synthetic data (default 20251129)
      --binary                      incompressible bytes instead of source-like text
      --batch N                     rows per transaction (default 1000)
      --replace                     replace BLOB_TEST / BLOB_SAMPLE even when BlobBench did
                                    not make them (else prepare refuses to drop their rows)

run:
  -s, --scenario ID                 run only this scenario (repeatable): warm-up, short-blobs,
                                    varchar, all-blobs, mixed, mixed-optimised, blob-ids
  -r, --repeat N                    measured repetitions; the report shows the median
  -w, --warmup N                    unmeasured repetitions before them
  -n, --limit-rows N                stop each fetch after N rows
      --json FILE                   also write every sample as JSON
      --csv FILE                    also write every sample as CSV
  -q, --quiet                       no progress on stderr
      --sessions N                  N sessions at once, each its own connection and wire
                                    counting; each runs the scenarios --repeat times, or
      --duration S                  in turn, as fast as it can, for S seconds (closed loop)
      --rate R                      open loop: R statements/s across the sessions, on a
                                    schedule; latency runs from each statement's slot and
                                    the schedule lag and missed slots are reported (needs
                                    --duration)
      --ramp-up S                   statements of the first S seconds are left out of every
                                    figure; with --json / --csv: the per-session figures
                                    and latency histograms (docs/sessions.md)
      --shared-link                 the emulated link (--bandwidth) is one link all sessions
                                    share, not one each (-P load_shared_link=true)
      --aggregate-log FILE          a line per interval in pgbench's --aggregate-interval
                                    format (PostgreSQL 15 columns, latencies in us); a
                                    sweep writes FILE.1, FILE.2 ... one per point
      --aggregate-interval S        its interval in whole seconds (default 1)
      --verify-content              compare every value read with the data set's (a synthetic
                                    data set: computed from its seed); a value that differs
                                    fails its sample, naming the row (-P verify_content=on)

Wire (networked engines; the tap is on by default for them):
      --tap, --wire-tap             relay the connection through a counting tap on 127.0.0.1:
                                    bytes, packets (reads) and round trips of every statement
      --no-tap                      connect directly (no measured wire statistics)
      --latency MS                  emulate a one-way latency each way (20, 20ms, 500us, 1.5s)
      --latency-up / --latency-down the same for one direction
      --bandwidth RATE              cap each direction (2M, 512k, 9.6k, 10G bit/s; 0 = unlimited)
      --bandwidth-up / --up, --bandwidth-down / --down   the same for one direction
                                    (any link option turns the wire tap on)
      --estimate-compression        also report what zlib-6 and zstd-3 wire compression would
                                    have sent (an estimate; costs CPU; turns the tap on)
      -P wire_tap=false, -P link_latency_up_ms=40, -P link_bandwidth_down=2000000 ...
                                    the same as tunables; a non-default value given with -P
                                    overrides the flag (see docs/wire.md)

projects (run PROJECT.blobbench.json):
  -s, --scenario NAME               a scenario of the project by id or title (repeatable;
                                    default: every enabled scenario)
      --sweep NAME                  run the project's sweep NAME (one point after another)
      --connection NAME             run on the project's connection NAME (default: its
                                    current one), e.g. Firebird 3 then 5 with --compare last
  -r, --repeat N / -w, --warmup N   override the sweep's repetitions / warm-ups
      --markdown FILE               also write a Markdown summary (and the comparison)
      --compare RUN                 compare with a run of the history (its id, "last",
                                    "previous") or a file (a project: its last run; or
                                    the samples JSON of --json); prints ratio and p-value
      --no-save                     do not append the run to the project's history
                                    (by default the project is saved after every point)

predict (predict PROJECT|SAMPLES.json):
      --latency MS / --bandwidth RATE   the link to predict at, as the wire options above
                                    (one-way latency each way; --latency-up, --bandwidth-up ...)
      --advise                      rank each scenario's parameter sets (sweep points) by
                                    predicted time; the best is marked with its saving
      --json FILE / --markdown FILE also write the predictions (and the advice)

bytea (bytea CONN):
      --size SIZE                   the document (default 2M; 256K, 1G at most)
  -r, --repeat N                    repetitions of each path (median)
      --predict-at DOWN/UP[/LAT]    also predict each path at that link from this run's
                                    exchange traces (2M/512k, 2M/512k/20ms); run unshaped
      --json FILE                   also write every insert and select as a sample with its
                                    exchange trace (for predict); the wire options emulate a link

Runs of one project wait for each other (one line says so). SIGINT / SIGTERM cancel a run: the
sample in progress is kept as cancelled, everything measured is written; a second one ends at once.
Before a run or prepare has connected, the first one ends it at once (nothing is measured yet).
An option that takes one value may be given once.

Exit codes: 0 success, 1 a run or prepare failed (or stdout could not be written), 2 bad usage,
130 / 143 a run cancelled by SIGINT / SIGTERM after writing everything.
)";
}

CliOptions parseArguments(const std::vector<std::string>& args) {
    CliOptions o;
    std::size_t i = 0;
    if (!args.empty()) {
        const std::string& first = args[0];
        if (first == "run") {
            o.command = Command::Run;
            ++i;
        } else if (first == "prepare") {
            o.command = Command::Prepare;
            ++i;
        } else if (first == "engines") {
            o.command = Command::Engines;
            ++i;
        } else if (first == "bytea") {
            o.command = Command::Bytea;
            ++i;
        } else if (first == "predict") {
            o.command = Command::Predict;
            ++i;
        } else if (!first.starts_with("-") && first.find_first_of(":/.") == std::string::npos) {
            throw Error(ErrorKind::Usage, "unknown command '" + first + "' (try --help)");
        } else {
            o.command = Command::Run;
        }
    }
    std::map<std::string, std::string> given;  // a single-valued option's canonical name -> how it was spelt
    std::vector<const OptionSpec*> used;       // the options given, for the commands they belong to
    for (; i < args.size(); ++i) {
        std::string arg = args[i];
        std::optional<std::string> inlineValue;
        if (arg.starts_with("--") && arg.find('=') != std::string::npos) {
            inlineValue = arg.substr(arg.find('=') + 1);
            arg = arg.substr(0, arg.find('='));
        }
        if (arg == "-h" || arg == "--help") {
            o.command = Command::Help;
            return o;
        }
        if (arg == "--version") {
            o.command = Command::Version;
            return o;
        }
        const OptionSpec* spec = optionSpec(arg);
        if (spec == nullptr) {
            if (arg.starts_with("-") && arg.size() > 1) {
                throw Error(ErrorKind::Usage, "unknown option '" + shownOption(arg) + "' (try --help)");
            }
            if (o.databaseGiven) {
                throw Error(ErrorKind::Usage,
                            "unexpected argument '" + arg + "' (the connection is already '" + o.database + "')");
            }
            o.database = arg;
            o.databaseGiven = true;
            continue;
        }
        // Given twice, the first value was dropped without a word (--json a.json --json b.json wrote only b.json).
        if (spec->once) {
            const auto [before, first] = given.emplace(spec->names.back(), arg);
            if (!first) {
                const std::string spelt = before->second == arg ? "" : " (" + before->second + " and " + arg + ")";
                throw Error(ErrorKind::Usage,
                            spec->names.back() + " is given twice" + spelt +
                                ": it takes one value, and the first would be dropped (give it once)");
            }
        }
        std::string value;
        if (spec->takesValue) {
            if (!inlineValue && i + 1 >= args.size()) {
                throw Error(ErrorKind::Usage, arg + " needs a value");
            }
            value = inlineValue ? *inlineValue : args[++i];
        } else if (inlineValue) {
            throw Error(ErrorKind::Usage, arg + " takes no value (it was given '" + *inlineValue + "')");
        }
        spec->apply(o, arg, value);
        used.push_back(spec);
    }
    // An option of another command was ignored without a word (hostile round 5n I6): refused, saying
    // whose it is. `run` on the default SQLite data set prepares it with prepare's options when it has to.
    const bool defaultRun = (o.command == Command::Run || o.command == Command::Default) && !o.databaseGiven;
    for (const OptionSpec* spec : used) {
        if (spec->only && *spec->only != o.command && !(spec->defaultRunToo && defaultRun)) {
            throw Error(ErrorKind::Usage, spec->names.back() + " is an option of " + commandName(*spec->only) + " (" +
                                              spec->onlyWhy + ")");
        }
    }
    if (o.databaseGiven && o.database.empty() && (o.command == Command::Run || o.command == Command::Prepare)) {
        // '' is what an unset shell variable gives ("run \"$DB\""): running the default SQLite suite
        // instead would measure something else without a word.
        throw Error(ErrorKind::Usage,
                    "the connection named is empty (''): name a database or a project, or name "
                    "none for the default SQLite data set");
    }
    o.link.validate();
    // prepare loads the data set directly: a link or the tap was accepted and ignored (hostile round 5o D7).
    if (o.command == Command::Prepare && o.wireTap) {
        throw Error(ErrorKind::Usage,
                    "--tap, --latency, --bandwidth and --estimate-compression are options of run and "
                    "bytea (prepare loads the data set directly, without a link)");
    }
    if (o.noTap && o.wireTap) {
        throw Error(
            ErrorKind::Usage,
            "--no-tap contradicts --tap, --latency, --bandwidth and --estimate-compression (the tap does them)");
    }
    refuseSessionContradictions(o);
    if (o.repeat > 1000 || o.warmup > 1000) {
        throw Error(ErrorKind::Usage, "--repeat and --warmup take at most 1000");
    }
    // --verify-content and -P verify_content=off together: one of them was silently dropped (5c B5).
    if (const auto it = o.parameters.find("verify_content"); it != o.parameters.end() && o.verifyContent) {
        throw Error(ErrorKind::Usage, "--verify-content and -P verify_content=" + it->second +
                                          " both say whether to verify: give one of them");
    }
    // Two outputs on one file would overwrite each other after every point (and the project file
    // with them would be lost): refused before anything is measured.
    // A project's run journal and lock file too: an export over the journal replaced the samples of
    // a run whose save failed (the line said they were in the journal).
    const bool project = o.database.ends_with(".json");
    const std::string journal = project ? o.database + ".journal" : std::string();
    const std::string lock = project ? o.database + ".lock" : std::string();
    // "sqlite:/x/s.db" is the file /x/s.db: `--json /x/s.db` replaced the database with the JSON.
    // "sqlite:file:/x/s.db?mode=ro" is that file too.
    // A Firebird database on this machine is a file too (hostile round 5o O2: --json over the .fdb).
    const bool firebird =
        !project && (o.engine == "firebird" || (o.engine.empty() && firebird::looksLikeFirebirdTarget(o.database)));
    const std::string databaseFile = o.database.starts_with("sqlite:")
                                         ? sqliteFileOf(SqliteDriver::pathOf(o.database)).value_or(std::string())
                                     : firebird ? localFirebirdFile(o.database)
                                                : o.database;
    // A SQLite database inside the folder it is prepared from read itself as one of the files the second
    // time (hostile round 5n D8).
    if (o.command == Command::Prepare && !o.fromFolder.empty() && o.database.starts_with("sqlite:") &&
        !databaseFile.empty() && isWithin(databaseFile, o.fromFolder)) {
        throw Error(ErrorKind::Usage, "--from-folder " + o.fromFolder + " holds the database being prepared (" +
                                          databaseFile +
                                          "): it would load the database (and its journal) as files; put it elsewhere");
    }
    // Its -wal, -shm and -journal files too: SQLite resets and removes them, and what was written there
    // went with them (hostile round 5m X1).
    auto sidecar = [&](const char* suffix) {
        return databaseFile.empty() || project ? std::string() : databaseFile + suffix;
    };
    const std::string wal = sidecar("-wal"), shm = sidecar("-shm"), rollback = sidecar("-journal");
    const std::vector<std::pair<const char*, const std::string*>> outputs = {
        {"--json", &o.jsonPath},
        {"--csv", &o.csvPath},
        {"--markdown", &o.markdownPath},
        {"--aggregate-log", &o.aggregateLog},
        {"the database or project", &databaseFile},
        {"the database's -wal file", &wal},
        {"the database's -shm file", &shm},
        {"the database's -journal file", &rollback},
        {"the project's run journal", &journal},
        {"the project's lock file", &lock}};
    // --compare's file is read before the run and an output named on it is written after: the base
    // samples or another project's history were overwritten unsaid (hostile round 5n F7).
    if (std::error_code ec; !o.compare.empty() && std::filesystem::exists(o.compare, ec)) {
        for (std::size_t i = 0; i < 4; ++i) {  // the outputs: --json, --csv, --markdown, --aggregate-log
            if (!outputs[i].second->empty() && sameFile(o.compare, *outputs[i].second)) {
                throw Error(ErrorKind::Usage, std::string("--compare and ") + outputs[i].first +
                                                  " name the same file " + *outputs[i].second +
                                                  " (the output would overwrite the run it is compared with)");
            }
        }
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        for (std::size_t j = i + 1; j < outputs.size(); ++j) {
            if (!outputs[i].second->empty() && !outputs[j].second->empty() &&
                sameFile(*outputs[i].second, *outputs[j].second)) {
                throw Error(ErrorKind::Usage, std::string(outputs[i].first) + " and " + outputs[j].first +
                                                  " name the same file " + *outputs[j].second +
                                                  " (each would overwrite the other)");
            }
        }
    }
    return o;
}

std::filesystem::path resolvedPath(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path p = fs::absolute(path, ec);
    // A link whose target is not there yet is followed too: writing through it creates the target.
    for (int hops = 0; hops < 40; ++hops) {  // a loop of links ends here, as the kernel's ELOOP does
        if (fs::path real = fs::weakly_canonical(p, ec); !ec) {
            p = std::move(real);
        }
        if (!fs::is_symlink(fs::symlink_status(p, ec))) {
            break;
        }
        const fs::path target = fs::read_symlink(p, ec);
        if (ec) {
            break;
        }
        p = target.is_absolute() ? target : p.parent_path() / target;
    }
    return p.lexically_normal();
}

std::string shownOption(const std::string& arg) {
    if (arg.size() > 2 && arg.starts_with("-p") && arg[2] != '-') {
        return "-p... (a value glued to -p is not shown; write -p PASSWORD, with a space)";
    }
    for (const char* secret : {"--password", "-password", "--passwd", "--pwd"}) {
        if (arg.starts_with(secret) && arg.size() > std::strlen(secret)) {
            return std::string(secret) + "... (not shown)";
        }
    }
    return printable(arg);
}

bool sameFile(const std::string& a, const std::string& b) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec)) {
        return fs::equivalent(a, b, ec);
    }
    return resolvedPath(a) == resolvedPath(b);
}

void refuseWhatIsNoFile(const std::string& option, const std::string& path) {
    if (option == "--client-library") {
        if (const std::string why = whyNotALibraryFile(path); !why.empty()) {
            throw Error(ErrorKind::Usage,
                        option + " " + path + ": " + why + ": name the client library's file (libfbclient.so)");
        }
        return;
    }
    // A directory or a socket can never take an export: said before anything is measured. A FIFO
    // or a device is written in place when the export is written (a FIFO must have its reader
    // then); probing a FIFO now would end its reader's input.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !(S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))) {
        return;
    }
    throw Error(ErrorKind::Usage, option + " " + path + ": " + whyNotAFile(path) + ": name a file to write");
}

namespace {

// Whether `host` is this machine: a loopback name or address, its host name, or a name that resolves to
// an address of one of its interfaces (hostile round 5p C2: `inet://vm:3050//...`, vm being this host).
bool isThisMachine(const std::string& host) {
    if (host.empty() || host == "localhost" || host == "127.0.0.1" || host == "::1") {
        return true;
    }
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0 && strcasecmp(name, host.c_str()) == 0) {
        return true;
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    if (::getaddrinfo(host.c_str(), "3050", &hints, &found) != 0) {
        return false;
    }
    ifaddrs* interfaces = nullptr;
    bool local = false;
    if (::getifaddrs(&interfaces) == 0) {
        for (const addrinfo* a = found; a != nullptr && !local; a = a->ai_next) {
            for (const ifaddrs* i = interfaces; i != nullptr && !local; i = i->ifa_next) {
                if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != a->ai_family) {
                    continue;
                }
                local = a->ai_family == AF_INET
                            ? reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr.s_addr ==
                                  reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr
                            : std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr,
                                          &reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)->sin6_addr,
                                          sizeof(in6_addr)) == 0;
            }
        }
        ::freeifaddrs(interfaces);
    }
    ::freeaddrinfo(found);
    return local;
}

}  // namespace

std::string localFirebirdFile(const std::string& target) {
    const firebird::FirebirdTarget t = firebird::parseFirebirdTarget(target);
    // The file first: a host name is only looked up when a file of that path is here to be replaced.
    std::error_code ec;
    return t.path.starts_with("/") && std::filesystem::exists(t.path, ec) && (!t.networked() || isThisMachine(t.host))
               ? t.path
               : std::string();
}

void refuseOutputOverFirebirdDatabase(const std::string& option, const std::string& output,
                                      const ConnectionSpec& connection) {
    if (output.empty() || connection.engine != "firebird") {
        return;
    }
    if (const std::string file = localFirebirdFile(connection.target); !file.empty() && sameFile(output, file)) {
        throw Error(ErrorKind::Usage, option + " and the database name the same file " + file +
                                          " (the output would replace the database)");
    }
}

bool isWithin(const std::string& path, const std::string& directory) {
    const std::filesystem::path p = resolvedPath(path);
    const std::filesystem::path d = resolvedPath(directory);
    const auto differs = std::mismatch(d.begin(), d.end(), p.begin(), p.end()).first;
    return differs == d.end() || (std::next(differs) == d.end() && differs->empty());  // "dir/": an empty last part
}

void refuseOutputOverStudyFiles(const std::string& option, const std::string& path,
                                const std::vector<std::filesystem::path>& files, const std::filesystem::path& folder) {
    for (const std::filesystem::path& file : files) {
        if (sameFile(path, file.string())) {
            throw Error(ErrorKind::Usage, option + " " + path + " is the study's own " + file.filename().string() +
                                              " in its work directory " + file.parent_path().string() +
                                              " (the output would replace it): name a file elsewhere");
        }
    }
    if (!folder.empty() && isWithin(path, folder.string())) {
        throw Error(ErrorKind::Usage, option + " " + path + " is in the study's own " + folder.filename().string() +
                                          "/ in its work directory " + folder.parent_path().string() +
                                          " (the study replaces that folder): name a file elsewhere");
    }
}

std::string charsetNotInEffect(const std::string& engine, const std::string& charset) {
    if (charset.empty() || engine == "firebird") {
        return {};
    }
    const std::string how =
        engine == "postgres" ? "; PostgreSQL takes client_encoding=... in the connection string" : "";
    return "-c " + charset + " is not in effect on " + driverById(engine).displayName() +
           ": only Firebird takes a connection character set" + how;
}

}  // namespace blobbench::cli
