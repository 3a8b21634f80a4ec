#include "app/cli/FbCompat.h"

#include <QString>
#include <algorithm>
#include <charconv>
#include <deque>
#include <optional>
#include <set>

#include "app/cli/CliOptions.h"
#include "app/cli/ExitCodes.h"
#include "app/cli/FbCompatWire.h"
#include "app/cli/RunKept.h"
#include "app/cli/Signals.h"
#include "app/cli/StallGuard.h"
#include "engine/core/ClientPause.h"
#include "engine/core/Error.h"
#include "engine/core/ErrorLine.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "engine/report/FbCompatReport.h"
#include "engine/run/MeasuringSink.h"
#include "engine/run/Runner.h"
#include "model/SampleJson.h"

namespace blobbench::cli {
namespace {

// The inline size range of protocol 19, and what the remote client prefetches per fetch batch
// (Firebird's remote.h: at most 1000 rows and 1 MiB of messages): the BLOB cache must hold the
// inline BLOBs of one batch, or the server stops inlining.
constexpr std::int64_t kMaxInlineBlobSize = 65535;
constexpr std::size_t kRowsPerFetchBatch = 1000;

struct FbCompatOptions {
    std::string database;
    std::string user;
    std::string password;
    std::string charset = "UTF8";
    std::string clientLibrary;
    std::optional<std::uint64_t> limitRows;
    std::int64_t maxInlineBlobSize = kMaxInlineBlobSize;
    bool compress = false;
    bool autoInline = false;
    bool help = false;
    int repeat = 1;
    std::string jsonPath;
    std::string csvPath;
    CompatWireOptions wire;  // extensions, off by default (FbCompatWire.h)
};

const std::set<std::string>& valueOptions() {
    static const std::set<std::string> options = {
        "-d", "--database", "-u", "--username", "-p", "--password", "-c", "--charset", "-n", "--limit-rows", "-i",
        "--max-inline-blob-size", "--repeat", "-r", "--json", "--csv", "--client-library",
        // the generic CLI's, so that their values are never taken for a database
        "-e", "--engine", "-P", "--param", "-s", "--scenario", "-w", "--warmup", "--from-folder", "--rows", "--seed",
        "--batch"};
    return options;
}

std::int64_t parseNumber(const std::string& option, const std::string& text, std::int64_t minimum,
                         std::int64_t maximum) {
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < minimum || value > maximum) {
        throw Error(ErrorKind::Usage, option + ": '" + text + "' is not a whole number in " + std::to_string(minimum) +
                                          ".." + std::to_string(maximum));
    }
    return value;
}

FbCompatOptions parse(const std::vector<std::string>& args) {
    FbCompatOptions o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i];
        std::string value;
        bool hasValue = false;
        if (arg.starts_with("--") && arg.find('=') != std::string::npos) {
            value = arg.substr(arg.find('=') + 1);
            arg = arg.substr(0, arg.find('='));
            hasValue = true;
        }
        auto take = [&]() -> std::string {
            if (hasValue) {
                return value;
            }
            if (i + 1 >= args.size()) {
                throw Error(ErrorKind::Usage, arg + " needs a value");
            }
            return args[++i];
        };
        if (arg == "-h" || arg == "--help") {
            o.help = true;
        } else if (arg == "-d" || arg == "--database") {
            o.database = take();
        } else if (arg == "-u" || arg == "--username") {
            o.user = take();
        } else if (arg == "-p" || arg == "--password") {
            o.password = take();
        } else if (arg == "-c" || arg == "--charset") {
            o.charset = take();
        } else if (arg == "-n" || arg == "--limit-rows") {
            o.limitRows = static_cast<std::uint64_t>(parseNumber(arg, take(), 1, INT64_MAX));
        } else if (arg == "-i" || arg == "--max-inline-blob-size") {
            o.maxInlineBlobSize = parseNumber(arg, take(), 0, kMaxInlineBlobSize);
        } else if (arg == "-z" || arg == "--compress") {
            o.compress = true;
        } else if (arg == "-a" || arg == "--auto-blob-inline") {
            o.autoInline = true;
        } else if (arg == "-r" || arg == "--repeat") {
            o.repeat = static_cast<int>(parseNumber(arg, take(), 1, 1000));
        } else if (arg == "--json" || arg == "--csv") {
            // `--json ''` wrote nothing, a second --json dropped the first, and nothing said so.
            std::string& path = arg == "--json" ? o.jsonPath : o.csvPath;
            if (!path.empty()) {
                throw Error(ErrorKind::Usage, arg + " is given twice (give it once)");
            }
            path = take();
            if (path.empty()) {
                throw Error(ErrorKind::Usage, arg + " needs a file name (it was given an empty one)");
            }
            refuseWhatIsNoFile(arg, path);
        } else if (arg == "--client-library") {
            o.clientLibrary = take();
            refuseWhatIsNoFile(arg, o.clientLibrary);
        } else if (parseCompatWireOption(arg, take, o.wire)) {
        } else if (arg.starts_with("-") && arg.size() > 1) {
            throw Error(ErrorKind::Usage, "unknown option '" + shownOption(arg) + "' (try --help)");
        } else if (o.database.empty()) {
            o.database = arg;
        } else {
            throw Error(ErrorKind::Usage, "unexpected argument '" + arg + "'");
        }
    }
    if (!o.jsonPath.empty() && !o.csvPath.empty() && sameFile(o.jsonPath, o.csvPath)) {
        throw Error(ErrorKind::Usage,
                    "--json and --csv name the same file " + o.csvPath + " (each would overwrite the other)");
    }
    if (o.user.empty()) {
        o.user = qEnvironmentVariable("ISC_USER").toStdString();
    }
    if (o.password.empty()) {
        o.password = qEnvironmentVariable("ISC_PASSWORD").toStdString();
    }
    return o;
}

// Collects the columns of a statement without fetching it.
class ColumnsSink final : public RowSink {
public:
    void columns(const std::vector<ColumnInfo>& c) override { cols = c; }
    void integer(std::size_t, std::int64_t) override {}
    void null(std::size_t) override {}
    void chunk(std::size_t, std::string_view) override {}
    void endRow() override {}
    std::vector<ColumnInfo> cols;
};

// Per row: the sizes of its BLOBs (0 for NULL).
class SizesSink final : public RowSink {
public:
    void integer(std::size_t, std::int64_t value) override { m_row.push_back(value); }
    void null(std::size_t) override { m_row.push_back(0); }
    void chunk(std::size_t, std::string_view) override {}
    void endRow() override {
        rows.push_back(std::move(m_row));
        m_row.clear();
    }
    std::vector<std::vector<std::int64_t>> rows;

private:
    std::vector<std::int64_t> m_row;
};

// The inline BLOB cache a limit needs: the most that any one fetch batch holds inline.
std::int64_t cacheNeeded(const std::vector<std::vector<std::int64_t>>& rows, std::int64_t limit) {
    std::int64_t window = 0;
    std::int64_t worst = 0;
    std::deque<std::int64_t> perRow;
    for (const auto& row : rows) {
        std::int64_t inRow = 0;
        for (std::int64_t size : row) {
            if (size > 0 && size <= limit) {
                inRow += size;
            }
        }
        perRow.push_back(inRow);
        window += inRow;
        if (perRow.size() > kRowsPerFetchBatch) {
            window -= perRow.front();
            perRow.pop_front();
        }
        worst = std::max(worst, window);
    }
    return worst;
}

// -a: the inline size that leaves the fewest BLOBs to fetch separately (each costs round trips)
// while one fetch batch of inline BLOBs still fits the BLOB cache; from the statement's own
// BLOB sizes. The tightest such value: the size of the largest BLOB it lets through.
std::int64_t chooseInlineSize(Session& session, const std::string& sql, std::int64_t cacheSize) {
    ColumnsSink columns;
    QuerySpec probe;
    probe.sql = sql;
    probe.rowLimit = 0;
    session.query(probe, columns, CancelToken());
    std::string select;
    for (const auto& c : columns.cols) {
        if (c.isLob) {
            select += (select.empty() ? "" : ", ") + std::string("OCTET_LENGTH(Q.\"") + c.name + "\")";
        }
    }
    if (select.empty()) {
        return 0;
    }
    SizesSink sizes;
    QuerySpec q;
    q.sql = "SELECT " + select + " FROM (" + sql + ") Q";
    session.query(q, sizes, CancelToken());
    std::vector<std::int64_t> candidates = {0};
    for (const auto& row : sizes.rows) {
        for (std::int64_t s : row) {
            if (s > 0 && s <= kMaxInlineBlobSize) {
                candidates.push_back(s);
            }
        }
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    // cacheNeeded grows with the limit: binary search for the largest candidate that fits.
    std::size_t lo = 0;
    std::size_t hi = candidates.size() - 1;
    while (lo < hi) {
        const std::size_t mid = (lo + hi + 1) / 2;
        if (cacheNeeded(sizes.rows, candidates[mid]) <= cacheSize) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return candidates[lo];
}

Sample sampleOf(const Scenario& scenario, const std::string& sql, const ConnectionSpec& spec, const SessionInfo& info,
                const ParameterValues& values, int repetition, const std::string& runId) {
    Sample s;
    s.runId = runId;
    s.scenarioId = scenario.id;
    s.scenarioTitle = scenario.title;
    s.sql = sql;
    s.repetition = repetition;
    s.startedAt = isoNow();
    s.engine = spec.engine;
    s.connection = spec.label();
    s.serverVersion = info.serverVersion;
    s.clientVersion = info.clientVersion;
    s.negotiated = info.negotiated;
    s.parameters = values;
    s.effects = info.effects;
    s.tap = WireStats::unavailable(info.embedded ? "not applicable (embedded)" : "wire tap not enabled");
    return s;
}

// Each export written on its own: a failed --json stopped the run unsaid and left the --csv unwritten
// (hostile round 5d C6). "" when both are written, else the line: what failed, what holds the samples.
std::string save(const FbCompatOptions& o, const SessionInfo& info, const std::vector<Sample>& samples) {
    const auto [failed, written] =
        writeEachExport({{o.jsonPath, [&](const QString& path) { writeSamplesJson(path, info, samples); }},
                         {o.csvPath, [&](const QString& path) { writeSamplesCsv(path, samples); }}});
    if (failed.empty()) {
        return {};
    }
    return failed + "; the run stopped: its " + std::to_string(samples.size()) +
           (samples.size() == 1 ? " sample is" : " samples are") + " printed above" +
           (written.empty() ? "" : " and saved in " + written);
}

int run(const FbCompatOptions& o, std::ostream& out, std::ostream& err) {
    if (o.database.empty()) {
        throw Error(ErrorKind::Usage, "name the database: -d inet://localhost/blob_test (try --help)");
    }
    const Driver& driver = driverById("firebird");
    ConnectionSpec spec;
    spec.engine = driver.id();
    spec.target = o.database;
    spec.user = o.user;
    spec.password = o.password;
    spec.charset = o.charset;
    spec.clientLibrary = o.clientLibrary;
    const ParameterValues values =
        resolveParameters(driver.parameters(), {{"wire_compression", o.compress ? "true" : "false"},
                                                {"max_inline_blob_size", std::to_string(o.maxInlineBlobSize)}});
    // From before the connect: the Firebird client installs SIGINT / SIGTERM handlers of its own
    // when it loads, and one of them caught during the connect shut the attachment down ("connection
    // shutdown", exit 1). Until the run starts a signal ends the process with its own line.
    SignalCancel interrupt;
    const std::string nothingMeasured = "nothing was measured";
    interrupt.endAtOnceUntilStarted("the run", nothingMeasured);
    CompatWire wire(o.wire, driver, spec);  // outlives the session
    // A server gone silent fails the call blocked on it (hostile round 5d A4: still running at 80 s).
    const StallGuard stalls(driver, spec, o.wire.stallTimeout, wire.tap(), wire.counter());
    std::unique_ptr<Session> session;
    try {
        session = wire.connect(driver, spec, values);
    } catch (const Error& e) {
        if (SignalCancel::received() != 0) {
            interrupt.endAtOnceUntilStarted("the run", nothingMeasured);  // the signal failed it: said as such
        }
        throw Error(e.kind(), stalls.explained(prefixedOnce(spec.label(), e.what())));
    }
    interrupt.started();
    if (!session->tableExists("BLOB_TEST")) {
        throw Error(ErrorKind::Data,
                    spec.label() + ": no table BLOB_TEST (run: blobbench-cli prepare " + maskSecrets(o.database) + ")");
    }
    const SessionInfo info = session->info();
    // A first SIGINT / SIGTERM cancels the statement in progress (fb_cancel_operation) and ends the
    // suite; what is measured is printed and saved. Cleared before the session it cancels goes.
    CancelToken cancel;
    const ClearCancelOnExit clearCancel(interrupt);
    interrupt.setCancel([cancel, s = session.get()] {
        cancel.cancel();
        s->cancel();
    });
    const clientpause::Watch pauses;  // a stopped or suspended client is said with the sample it disturbed
    const std::int64_t cacheSize = integerValue(values, "max_blob_cache_size");
    const std::string runId = isoNow();
    FbCompatReport report(out);
    report.header(info);
    std::vector<Sample> all;
    int exitCode = kOk;
    for (const Scenario& scenario : referenceSuite(Dialect::Firebird)) {
        if (cancel.cancelled()) {
            break;
        }
        std::string sql = scenario.sql;
        if (o.limitRows && scenario.kind == ScenarioKind::Query) {
            sql += "\nFETCH FIRST " + std::to_string(*o.limitRows) + " ROWS ONLY";
        }
        QuerySpec query;
        query.sql = sql;
        query.fetch = scenario.fetch;
        std::int64_t inlineSize = o.maxInlineBlobSize;
        std::vector<Sample> repetitions;
        try {
            if (o.autoInline && scenario.readsLobs) {
                inlineSize = scenario.fetch == FetchMode::IdsOnly ? 0 : chooseInlineSize(*session, sql, cacheSize);
            }
            query.statementParameters["max_inline_blob_size"] = std::to_string(inlineSize);
            for (int rep = 0; rep < o.repeat && !cancel.cancelled(); ++rep) {
                Sample sample = sampleOf(scenario, sql, spec, info, values, rep, runId);
                sample.parameters["max_inline_blob_size"] = std::to_string(inlineSize);
                MeasuringSink sink;
                const clientpause::Pauses paused = clientpause::pausesSoFar();
                try {
                    wire.mark(query);
                    const QueryStats stats = session->query(query, sink, cancel);
                    applyQueryStats(sample, stats);
                    wire.finish(sample);
                } catch (const Error& e) {
                    const bool cancelled = e.kind() == ErrorKind::Cancelled || cancel.cancelled();
                    sample.status = cancelled ? SampleStatus::Cancelled : SampleStatus::Failed;
                    sample.error = oneLine(stalls.explained(std::string(e.what())));
                }
                // The client's own stop or suspend is in the time: said on stderr (the report keeps
                // fb-blob-test's layout) and with the sample (hostile round 5m S2).
                sample.disturbed = clientpause::disturbanceSince(paused, "the sample");
                if (!sample.disturbed.empty()) {
                    err << "blobbench-cli: " << terminalLine(scenario.title + ": " + sample.disturbed) << std::endl;
                }
                sample.rows = sink.rows();
                sample.contentBytes = sink.contentBytes();
                sample.valuesRead = sink.valuesRead();
                sample.valuesSkipped = sink.valuesSkipped();
                sample.maxId = sink.maxId();
                if (scenario.kind == ScenarioKind::Scalar) {
                    sample.scalarLabel = scenario.scalarLabel;
                    sample.scalar = sink.firstValue();
                }
                repetitions.push_back(sample);
                all.push_back(sample);
                if (sample.status != SampleStatus::Complete) {
                    break;
                }
            }
        } catch (const Error& e) {  // the -a size query
            Sample failed = sampleOf(scenario, sql, spec, info, values, 0, runId);
            failed.status = SampleStatus::Failed;
            failed.error = oneLine(stalls.explained(std::string(e.what())));
            repetitions = {failed};
            all.push_back(failed);
        }
        if (repetitions.empty()) {
            break;  // cancelled before its first repetition
        }
        bool connectionCut = false;
        if (repetitions.back().status != SampleStatus::Complete) {
            // The failing sample is the one to show, whatever the median of the others; a cancelled
            // one is said by the signal's line.
            repetitions = {repetitions.back()};
            // The stall timeout cut the connection: every scenario after it would fail at once.
            connectionCut = !stalls.cut().empty();
            if (!cancel.cancelled()) {
                err << "blobbench-cli: "
                    << terminalLine(scenario.title + ": " + repetitions.back().error +
                                    (connectionCut ? "; the run stopped: the connection is cut" : ""))
                    << std::endl;
                exitCode = kFailed;
            }
        }
        report.section(repetitions, scenario.readsLobs);
        if (const std::string failed = save(o, info, all); !failed.empty()) {
            out.flush();
            err << "blobbench-cli: " << terminalLine(failed) << std::endl;
            return kFailed;
        }
        if (connectionCut) {
            break;
        }
    }
    if (SignalCancel::received() != 0) {
        out.flush();
        return SignalCancel::report(err, "the run",
                                    "everything measured is printed and saved (the sample in progress as cancelled)");
    }
    return exitCode;
}

}  // namespace

std::string fbCompatUsage() {
    return R"(Usage fb-blob-test [<database>] <options>
General options:
    -h [ --help ]                        Show help

Database options:
    -d [ --database ] connection_string  Database connection string
    -u [ --username ] user               User name
    -p [ --password ] password           Password
    -c [ --charset ] charset             Character set, default UTF8
    -n [ --limit-rows ] value            Limit of rows
    -i [ --max-inline-blob-size ] value  Maximum inline blob size, default 65535
    -z [ --compress ]                    Wire compression, default False
    -a [ --auto-blob-inline ]            Set optimal maximum inline blob size for each statement

blobbench-cli options:
    -r [ --repeat ] N                    Run each test N times, report the median
    --json FILE                          Also write every sample as JSON
    --csv FILE                           Also write every sample as CSV
    --client-library PATH                libfbclient to load (e.g. a 5.0.3 client)
)" + compatWireUsage() +
           R"(

Example of use:

blobbench-cli -d inet://localhost/blob_test -u SYSDBA -p masterkey -z
)";
}

bool isFbCompatCommandLine(const std::vector<std::string>& args) {
    if (args.empty() || args[0] == "run" || args[0] == "prepare" || args[0] == "engines" || args[0] == "bytea") {
        return false;
    }
    bool fbOnly = false;
    std::string database;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const std::string key = arg.starts_with("--") ? arg.substr(0, arg.find('=')) : arg;
        if (key == "-e" || key == "--engine") {
            return false;  // an engine named explicitly: the generic command line
        }
        if (key == "-z" || key == "--compress" || key == "-a" || key == "--auto-blob-inline" || key == "-i" ||
            key == "--max-inline-blob-size") {
            fbOnly = true;
        }
        if ((valueOptions().count(key) || isCompatWireValueOption(key)) && key == arg) {
            if ((key == "-d" || key == "--database") && i + 1 < args.size()) {
                database = args[i + 1];
            }
            ++i;
        } else if ((key == "--database") && key != arg) {
            database = arg.substr(arg.find('=') + 1);
        } else if (!arg.starts_with("-") && database.empty()) {
            database = arg;
        }
    }
    if (fbOnly) {
        return true;
    }
    if (database.empty()) {
        return false;
    }
    try {
        return driverForTarget(database).id() == "firebird";
    } catch (const Error&) {
        return false;
    }
}

int runFbCompat(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    try {
        const FbCompatOptions options = parse(args);
        if (options.help) {
            out << fbCompatUsage();
            return kOk;
        }
        return run(options, out, err);
    } catch (const Error& e) {
        err << "blobbench-cli: " << terminalLine(e.what()) << std::endl;
        return e.kind() == ErrorKind::Usage ? kUsage : kFailed;
    } catch (const std::exception& e) {
        err << "blobbench-cli: internal error: " << terminalLine(e.what()) << std::endl;
        return kFailed;
    }
}

}  // namespace blobbench::cli
