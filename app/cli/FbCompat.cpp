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
#include "engine/core/Error.h"
#include "engine/core/ErrorLine.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "engine/report/FbCompatReport.h"
#include "engine/run/Runner.h"
#include "engine/wire/WireParameters.h"
#include "model/AtomicFile.h"
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
    // --relay after --tap took the relay without a word (hostile round 5o X16).
    if (o.wire.tapGiven && o.wire.relay) {
        throw Error(ErrorKind::Usage,
                    "--tap and --relay contradict each other (--tap counts at fbclient's own socket "
                    "calls, --relay through the relay): give one");
    }
    // The database's own file on this machine (hostile round 5o O2: the .fdb replaced by the JSON).
    refuseOutputOverFirebirdDatabase("--json", o.jsonPath, ConnectionSpec{"firebird", o.database});
    refuseOutputOverFirebirdDatabase("--csv", o.csvPath, ConnectionSpec{"firebird", o.database});
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

// Each export written on its own: a failed --json stopped the run unsaid and left the --csv unwritten
// (hostile round 5d C6). "" when both are written, else the line: what failed, what holds the samples.
// `last`: a pipe or a descriptor (/dev/stdout) takes the exports then only, once; a file after each test.
std::string save(const FbCompatOptions& o, const SessionInfo& info, const std::vector<Sample>& samples, bool last) {
    const auto now = [&](const std::string& path) { return last || replacedWhole(path) ? path : std::string(); };
    const auto [failed, written] =
        writeEachExport({{now(o.jsonPath), [&](const QString& path) { writeSamplesJson(path, info, samples); }},
                         {now(o.csvPath), [&](const QString& path) { writeSamplesCsv(path, samples); }}});
    if (failed.empty()) {
        return {};
    }
    return failed + (last ? "; its " : "; the run stopped: its ") + std::to_string(samples.size()) +
           (samples.size() == 1 ? " sample is" : " samples are") + " printed above" +
           (written.empty() ? "" : " and saved in " + written);
}

// The reference suite as fb-blob-test runs it: -n is a FETCH FIRST in each reading statement (the
// report shows the statement as run).
std::vector<Scenario> compatSuite(const FbCompatOptions& o) {
    std::vector<Scenario> suite = referenceSuite(Dialect::Firebird);
    for (Scenario& scenario : suite) {
        if (o.limitRows && scenario.kind == ScenarioKind::Query) {
            scenario.sql += "\nFETCH FIRST " + std::to_string(*o.limitRows) + " ROWS ONLY";
        }
    }
    return suite;
}

// The Runner's samples as fb-blob-test reports them: a section per test once its repetitions are
// measured (the failing sample alone when one fails), the exports written after each test, a failure
// said on stderr once it is known whether the run went on after it.
class CompatObserver final : public RunObserver {
public:
    CompatObserver(const FbCompatOptions& o, const RunPlan& plan, const StallGuard& stalls, SignalCancel& interrupt,
                   std::ostream& out, std::ostream& err)
        : m_options(o), m_plan(plan), m_stalls(stalls), m_interrupt(interrupt), m_err(err), m_report(out) {}

    std::function<void()> stopRun;  // an export could not be written: the run stops after the test
    std::string missingTable;       // the data set check's line, as the user sees it

    void checkSession(Session& session) override {
        m_interrupt.started();  // from here a signal cancels the run: what is measured is printed and saved
        if (!session.tableExists("BLOB_TEST")) {
            missingTable = m_plan.connection.label() + ": no table BLOB_TEST (run: blobbench-cli prepare " +
                           maskSecrets(m_options.database) + ")";
            throw Error(ErrorKind::Data, missingTable);
        }
    }
    void connected(const SessionInfo& info) override {
        m_info = info;
        m_report.header(info);
    }
    void sampleReady(const Sample& measured) override {
        if (m_stopped) {
            return;
        }
        sayFailure(false);  // the run went on after it
        Sample sample = measured;
        if (sample.status == SampleStatus::Failed) {
            sample.error = oneLine(m_stalls.explained(sample.error));  // without the tap, the guard's cut
        }
        // The client's own stop or suspend is in the time: said on stderr (the report keeps
        // fb-blob-test's layout) and with the sample (hostile round 5m S2).
        if (!sample.disturbed.empty()) {
            m_err << "blobbench-cli: " << terminalLine(sample.scenarioTitle + ": " + sample.disturbed) << std::endl;
        }
        m_all.push_back(sample);
        m_pending.push_back(sample);
        if (sample.status != SampleStatus::Complete || static_cast<int>(m_pending.size()) >= m_plan.repetitions) {
            section();
        }
    }

    // After the run: a test stopped between its repetitions printed and saved with what it has, the
    // last failure said. `runStopped`: the run ended before its last test (a cut or lost connection).
    void finish(bool runStopped) {
        if (!m_pending.empty() && !m_stopped) {
            section();
        }
        sayFailure(runStopped);
        // Once more at the end: what a pipe or a descriptor takes (files hold it already).
        const bool waiting = (!m_options.jsonPath.empty() && !replacedWhole(m_options.jsonPath)) ||
                             (!m_options.csvPath.empty() && !replacedWhole(m_options.csvPath));
        if (waiting && !m_stopped && !m_all.empty()) {
            if (const std::string failed = save(m_options, m_info, m_all, true); !failed.empty()) {
                m_err << "blobbench-cli: " << terminalLine(failed) << std::endl;
                m_stopped = true;
            }
        }
    }
    bool failed() const { return m_failed; }
    bool stopped() const { return m_stopped; }  // an export could not be written
    std::size_t samples() const { return m_all.size(); }

private:
    void section() {
        std::vector<Sample> repetitions = std::move(m_pending);
        m_pending.clear();
        const Scenario* scenario = scenarioOf(repetitions.back().scenarioId);
        const bool lobs = scenario == nullptr || scenario->readsLobs;
        const bool content = scenario == nullptr || scenario->fetch != FetchMode::IdsOnly;
        if (repetitions.back().status != SampleStatus::Complete) {
            // The repetitions measured whole before it get their section, in fb-blob-test's layout
            // (hostile round 5o X11: they were on no line); then the failing sample's own, whatever the
            // median of the others. A cancelled one is said by the signal's line too.
            if (repetitions.size() > 1) {
                m_report.section({repetitions.begin(), repetitions.end() - 1}, lobs, content);
            }
            repetitions = {repetitions.back()};
            if (repetitions.back().status == SampleStatus::Failed) {
                m_failure = repetitions.back().scenarioTitle + ": " + repetitions.back().error;
                m_failed = true;
            }
        }
        m_report.section(repetitions, lobs, content);
        if (const std::string failed = save(m_options, m_info, m_all, false); !failed.empty()) {
            sayFailure(false);
            m_err << "blobbench-cli: " << terminalLine(failed) << std::endl;
            m_stopped = true;
            if (stopRun) {
                stopRun();
            }
        }
    }
    void sayFailure(bool runStopped) {
        if (!m_failure.empty()) {
            m_err << "blobbench-cli: "
                  << terminalLine(m_failure + (runStopped ? "; the run stopped: the connection is cut" : ""))
                  << std::endl;
            m_failure.clear();
        }
    }
    const Scenario* scenarioOf(const std::string& scenarioId) const {
        for (const Scenario& scenario : m_plan.scenarios) {
            if (scenario.id == scenarioId) {
                return &scenario;
            }
        }
        return nullptr;
    }

    const FbCompatOptions& m_options;
    const RunPlan& m_plan;
    const StallGuard& m_stalls;
    SignalCancel& m_interrupt;
    std::ostream& m_err;
    FbCompatReport m_report;
    SessionInfo m_info;
    std::vector<Sample> m_all;
    std::vector<Sample> m_pending;  // the test in progress's repetitions
    std::string m_failure;          // a failed test's line, until it is known whether the run went on
    bool m_failed = false;
    bool m_stopped = false;
};

int run(const FbCompatOptions& o, std::ostream& out, std::ostream& err) {
    if (o.database.empty()) {
        throw Error(ErrorKind::Usage, "name the database: -d inet://localhost/blob_test (try --help)");
    }
    const Driver& driver = driverById("firebird");
    RunPlan plan;
    plan.runId = isoNow();
    plan.connection.engine = driver.id();
    plan.connection.target = o.database;
    plan.connection.user = o.user;
    plan.connection.password = o.password;
    plan.connection.charset = o.charset;
    plan.connection.clientLibrary = o.clientLibrary;
    plan.parameters = {{"wire_compression", o.compress ? "true" : "false"},
                       {"max_inline_blob_size", std::to_string(o.maxInlineBlobSize)}};
    plan.repetitions = o.repeat;
    plan.scenarios = compatSuite(o);
    // The wire extensions (FbCompatWire.h): counted in process at fbclient's socket calls unless a
    // link is emulated or --relay asks for the relay; off, the run talks to the server directly.
    plan.wireTap = o.wire.tap;
    plan.link = o.wire.link;
    if (o.wire.tap) {
        plan.parameters[wireparam::StallTimeout] = std::to_string(o.wire.stallTimeout.count());
        if (o.wire.relay) {
            plan.parameters[wireparam::Counting] = "relay";
        }
    }
    const std::int64_t cacheSize =
        integerValue(resolveParameters(driver.parameters(), plan.parameters), "max_blob_cache_size");
    if (o.autoInline) {
        // -a: each BLOB-reading test's inline size from its own BLOB sizes (blob-ids fetch none inline).
        plan.scenarioParameters = [cacheSize](Session& session, const Scenario& scenario) -> ParameterValues {
            if (!scenario.readsLobs) {
                return {};
            }
            const std::int64_t size =
                scenario.fetch == FetchMode::IdsOnly ? 0 : chooseInlineSize(session, scenario.sql, cacheSize);
            return {{"max_inline_blob_size", std::to_string(size)}};
        };
    }
    // From before the connect: the Firebird client installs SIGINT / SIGTERM handlers of its own
    // when it loads, and one of them caught during the connect shut the attachment down ("connection
    // shutdown", exit 1). Until the run starts a signal ends the process with its own line.
    SignalCancel interrupt;
    interrupt.endAtOnceUntilStarted("the run", "nothing was measured");
    // A server gone silent fails the call blocked on it (hostile round 5d A4: still running at 80 s):
    // with the tap, the Runner's relay or counter; without, this guard's watch of the connection.
    const StallGuard stalls(driver, plan.connection, o.wire.tap ? std::chrono::seconds(0) : o.wire.stallTimeout);
    CompatObserver observer(o, plan, stalls, interrupt, out, err);
    Runner runner;
    RunOutcome outcome;
    {
        const ClearCancelOnExit clearCancel(interrupt);
        interrupt.setCancel([&runner] { runner.cancel(); });
        observer.stopRun = [&runner] { runner.cancel(); };
        outcome = runner.run(plan, observer);
    }
    const bool cancelled = SignalCancel::received() != 0;
    const bool lastTestRun = !outcome.samples.empty() && outcome.samples.back().scenarioId == plan.scenarios.back().id;
    observer.finish(!outcome.ok && !cancelled && !observer.stopped() && !lastTestRun && observer.failed());
    out.flush();
    if (observer.stopped()) {
        return kFailed;
    }
    if (cancelled) {
        return SignalCancel::report(err, "the run",
                                    "everything measured is printed and saved (the sample in progress as cancelled)");
    }
    if (observer.samples() == 0 && !outcome.ok) {  // nothing measured: the connect or the data set check
        const std::string line =
            !observer.missingTable.empty() ? observer.missingTable : stalls.explained(oneLine(outcome.error));
        err << "blobbench-cli: " << terminalLine(line) << std::endl;
        return outcome.errorKind == ErrorKind::Usage ? kUsage : kFailed;
    }
    return observer.failed() ? kFailed : kOk;
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
