// blobbench-cli: the headless runner. Subcommands prepare / run / engines; with no arguments,
// the default SQLite suite. Exit codes: 0 ok, 1 a run or prepare failed (or stdout could not be
// written), 2 bad usage, 128 + the signal (130 SIGINT, 143 SIGTERM) for a run cancelled by one
// after everything measured was written.
#include <unistd.h>

#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "app/cli/ByteaCommand.h"
#include "app/cli/CheckCommand.h"
#include "app/cli/CliOptions.h"
#include "app/cli/FbCompat.h"
#include "app/cli/PredictCommand.h"
#include "app/cli/ProjectCommand.h"
#include "app/cli/ReproduceCommand.h"
#include "app/cli/RunKept.h"
#include "app/cli/ScrubArguments.h"
#include "app/cli/SessionsCommand.h"
#include "app/cli/Signals.h"
#include "app/cli/StallGuard.h"
#include "app/cli/StorageCommand.h"
#include "engine/core/Error.h"
#include "engine/core/LoadParameters.h"
#include "engine/core/Printable.h"
#include "engine/data/Dataset.h"
#include "engine/data/ExpectedContent.h"
#include "engine/data/PrepareDataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "engine/report/TextReport.h"
#include "engine/run/Runner.h"
#include "model/AtomicFile.h"
#include "model/SampleJson.h"

namespace blobbench::cli {
namespace {

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr int kUsage = 2;

int exitCodeFor(ErrorKind kind) {
    if (kind == ErrorKind::Cancelled && SignalCancel::received() != 0) {
        return 128 + SignalCancel::received();
    }
    return kind == ErrorKind::Usage ? kUsage : kFailed;
}

void printError(const std::string& message) {
    std::cerr << "blobbench-cli: " << terminalLine(message) << std::endl;
}

}  // namespace

std::string defaultDatabasePath() {
    QString dir = qEnvironmentVariable("BLOBBENCH_DATA_DIR");
    if (dir.isEmpty()) {
        // Without HOME, Qt answers "//.local/share/...": 126 MB prepared there, then a failure.
        if (qEnvironmentVariable("HOME").isEmpty() && qEnvironmentVariable("XDG_DATA_HOME").isEmpty()) {
            throw Error(ErrorKind::Usage,
                        "HOME is not set: there is no data directory for the default database (set HOME or "
                        "BLOBBENCH_DATA_DIR, or name a database: run sqlite:/path/to/file.sqlite)");
        }
        dir = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    }
    if (!QDir().mkpath(dir)) {
        throw Error(ErrorKind::Io, "cannot create the data directory " + dir.toStdString());
    }
    return QDir(dir).filePath(QStringLiteral("reference.sqlite")).toStdString();
}

namespace {

ConnectionSpec connectionFrom(const CliOptions& o, const std::string& database) {
    ConnectionSpec spec;
    spec.engine = o.engine.empty() ? driverForTarget(database).id() : driverById(o.engine).id();
    spec.target = database;
    spec.user = o.user;
    spec.password = o.password;
    spec.charset = o.charset;
    spec.clientLibrary = o.clientLibrary;
    if (const std::string note = charsetNotInEffect(spec.engine, o.charset); !note.empty()) {
        std::cerr << "blobbench-cli: " << terminalLine(note) << '\n';
    }
    // Only Firebird loads a client library by path (hostile round 5c M2: silently ignored elsewhere).
    if (!o.clientLibrary.empty() && spec.engine != "firebird") {
        std::cerr << "blobbench-cli: "
                  << terminalLine("--client-library " + o.clientLibrary + " is not in effect on " +
                                  driverById(spec.engine).displayName() +
                                  ": only Firebird loads its client library by path")
                  << '\n';
    }
    return spec;
}

// Progress on stderr, only on a terminal, at most ten times a second.
class ProgressLine {
public:
    explicit ProgressLine(bool enabled) : m_enabled(enabled && isatty(STDERR_FILENO)) {}
    ~ProgressLine() { clear(); }
    void show(const std::string& text) {
        if (!m_enabled) {
            return;
        }
        const auto now = std::chrono::steady_clock::now();
        if (now - m_last < std::chrono::milliseconds(100)) {
            return;
        }
        m_last = now;
        std::cerr << '\r' << printable(text) << "\033[K" << std::flush;
        m_shown = true;
    }
    void clear() {
        if (m_shown) {
            std::cerr << "\r\033[K" << std::flush;
            m_shown = false;
        }
    }

private:
    bool m_enabled;
    bool m_shown = false;
    std::chrono::steady_clock::time_point m_last{};
};

DatasetSummary prepareOn(const ConnectionSpec& spec, const CliOptions& o, const CancelToken& cancel,
                         const std::function<void()>& connected) {
    DatasetChoice choice;
    choice.folder = o.fromFolder;
    choice.rows = o.rows;
    choice.seed = o.seed;
    choice.binary = o.binary;
    auto source = makeRowSource(choice);
    ProgressLine line(!o.quiet);
    PrepareOptions options;
    options.batchRows = o.batchRows;
    options.cancel = cancel;
    options.connected = connected;
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
        line.show("Preparing " + spec.label() + ": " + std::to_string(done) + " / " + std::to_string(total) +
                  " rows (" + std::to_string(done * 100 / std::max<std::uint64_t>(total, 1)) + "%)");
    };
    return prepareDataset(spec, o.parameters, *source, options);
}

void printSummary(const std::string& where, const DatasetSummary& s, Nanos took) {
    std::cout << "Prepared " << where << ": " << s.rows << " rows, " << s.contentBytes << " content bytes, "
              << s.shortRows << " short rows (" << s.shortBytes << " bytes), longest " << s.maxLength << " characters";
    if (s.nonUtf8Samples > 0) {
        std::cout << ", " << s.nonUtf8Samples << " files not UTF-8 (loaded as bytes)";
    }
    std::cout << " in " << wholeMilliseconds(took) << " ms\n";
    for (const ParameterEffect& e : s.notInEffect) {
        std::cerr << "blobbench-cli: prepare: " << e.id << "=" << e.requested << " is "
                  << (e.reason.starts_with("not in effect") ? e.reason : "not in effect: " + e.reason) << '\n';
    }
}

int commandPrepare(const CliOptions& o) {
    if (o.database.empty()) {
        throw Error(ErrorKind::Usage, "prepare: name the database (e.g. sqlite:/tmp/blob_test.sqlite)");
    }
    const ConnectionSpec spec = connectionFrom(o, o.database);
    const auto t0 = std::chrono::steady_clock::now();
    CancelToken cancel;
    SignalCancel interrupt;  // polled between rows: the batch in progress is rolled back
    interrupt.endAtOnceUntilStarted("prepare " + spec.label(),
                                    "it was connecting: nothing was written and the data set is not marked complete");
    interrupt.setCancel([cancel] { cancel.cancel(); });
    DatasetSummary summary;
    const StallGuard stalls(driverById(spec.engine), spec, stallTimeoutOf(o.parameters));
    try {
        summary = prepareOn(spec, o, cancel, [&interrupt] { interrupt.started(); });
    } catch (const Error& e) {
        if (SignalCancel::received() != 0) {
            return SignalCancel::report(std::cerr, "prepare " + spec.label(),
                                        "the batch in progress is rolled back and the data set is not marked "
                                        "complete (" +
                                            oneLine(e.what()) + ")");
        }
        throw stalls.explained(e);
    }
    printSummary(spec.label(), summary, std::chrono::steady_clock::now() - t0);
    if (SignalCancel::received() != 0) {
        return SignalCancel::report(std::cerr, "prepare " + spec.label(), "it had finished: the data set is complete");
    }
    return kOk;
}

}  // namespace

// The default database: prepared into a temporary file and renamed, so that an interrupted
// prepare never leaves a file that looks complete.
void ensureDefaultDatabase(const std::string& path, const CliOptions& o, SignalCancel& interrupt) {
    namespace fs = std::filesystem;
    if (fs::exists(path)) {
        ConnectionSpec spec{"sqlite", path};
        const Driver& driver = driverById("sqlite");
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
        if (readDatasetSummary(*session)) {
            return;
        }
        std::cerr << "blobbench-cli: " << path << " holds no complete data set; preparing it again\n";
    }
    const std::string partial = path + ".part";
    fs::remove(partial);
    CliOptions prepare = o;
    prepare.parameters.clear();
    const auto t0 = std::chrono::steady_clock::now();
    DatasetSummary summary;
    const CancelToken cancel;
    interrupt.setCancel([cancel] { cancel.cancel(); });
    try {
        summary = prepareOn(ConnectionSpec{"sqlite", partial}, prepare, cancel, [&interrupt] { interrupt.started(); });
        interrupt.setCancel({});
    } catch (...) {
        interrupt.setCancel({});
        fs::remove(partial);
        if (SignalCancel::received() != 0) {
            throw Error(ErrorKind::Cancelled, "the default data set " + path +
                                                  " was being prepared: nothing was measured (the next run "
                                                  "prepares it again)");
        }
        throw;
    }
    fs::rename(partial, path);
    printSummary("sqlite:" + path, summary, std::chrono::steady_clock::now() - t0);
    std::cout << '\n';
}

namespace {

class CliObserver final : public RunObserver {
public:
    CliObserver(TextReport& report, const CliOptions& o, std::vector<std::string> notes, int repetitions,
                std::string runId)
        : m_report(report),
          m_options(o),
          m_notes(std::move(notes)),
          m_repetitions(repetitions),
          m_runId(std::move(runId)),
          m_line(!o.quiet) {}

    std::string target;                 // for the hint when the data set is missing
    SignalCancel* interrupt = nullptr;  // told once connected: from then on a signal cancels the run
    void checkSession(Session& session) override {
        started();
        m_notes.insert(m_notes.begin(), requireDataset(session, "run: blobbench-cli prepare " + maskTarget(target)));
    }
    void wireTapReady(const std::string& relay, const LinkProfile& link) override {
        started();
        m_notes.push_back("Wire tap: " + relay + ", link " + link.describe());
    }
    void connected(const SessionInfo& info) override {
        m_session = info;
        // verify_content=on and in effect (else the header's not-in-effect line says why not).
        for (const ParameterEffect& e : info.effects) {
            if (e.id == kVerifyContentParameter && e.inEffect) {
                m_notes.push_back(
                    "Content: every value read is compared with the data set's (verify_content=on; the hashing "
                    "time is taken out of each fetch time)");
            }
        }
        m_report.header(info, m_notes);
    }
    void scenarioStarted(const Scenario& scenario, int repetition) override {
        m_line.show(scenario.title + (repetition < 0 ? " (warm-up)" : "") + "...");
    }
    void progress(const Scenario& scenario, std::uint64_t rows, std::uint64_t bytes) override {
        m_line.show(scenario.title + ": " + std::to_string(rows) + " rows, " + std::to_string(bytes >> 20) + " MB");
    }
    void sampleReady(const Sample& sample) override {
        m_line.clear();
        m_samples.push_back(sample);
        m_pending.push_back(sample);
        if (static_cast<int>(m_pending.size()) >= m_repetitions || sample.status != SampleStatus::Complete) {
            m_report.section(m_pending);
            m_pending.clear();
        }
        keepInExports();  // after every sample: a later crash or failure loses nothing measured
    }
    // Called when an export cannot be written (a full disk): the run stops, as a project run does.
    std::function<void()> stopRun;
    const std::string& keepError() const { return m_keepError; }
    std::size_t samples() const { return m_samples.size(); }

    // At the end: the report's last section, each export written once more on its own (the disk
    // may have room again), a samples file in the temporary folder when no file holds them.
    RunKept finish() {
        if (!m_pending.empty()) {
            m_report.section(m_pending);  // a run stopped mid-scenario: its samples so far
            m_pending.clear();
        }
        RunKept k;
        k.samples = m_samples.size();
        writeExportsOrRescue(
            k, m_options.jsonPath, m_options.csvPath, m_session, m_samples, m_runId,
            [](const RunKept& kept) { return kept.samples > 0 && kept.exports.empty() && !kept.exportErrors.empty(); });
        return k;
    }

private:
    void writeJson(const std::string& path) { writeSamplesJson(QString::fromStdString(path), m_session, m_samples); }
    void keepInExports() {
        if (!m_keepError.empty()) {
            return;  // stopped: finish() writes each file once more
        }
        try {
            if (!m_options.jsonPath.empty() && replacedWhole(m_options.jsonPath)) {  // a pipe takes it at the end
                writeJson(m_options.jsonPath);
            }
            if (!m_options.csvPath.empty() && replacedWhole(m_options.csvPath)) {
                writeSamplesCsv(QString::fromStdString(m_options.csvPath), m_samples);
            }
        } catch (const Error& e) {
            m_keepError = oneLine(e.what());
            if (stopRun) {
                stopRun();
            }
        }
    }
    void started() {
        if (interrupt != nullptr) {
            interrupt->started();
        }
    }
    TextReport& m_report;
    const CliOptions& m_options;
    std::vector<std::string> m_notes;
    int m_repetitions;
    std::string m_runId;
    std::string m_keepError;  // the first export that could not be written
    ProgressLine m_line;
    SessionInfo m_session;
    std::vector<Sample> m_samples;
    std::vector<Sample> m_pending;
};

std::vector<Scenario> selectScenarios(Dialect dialect, const std::vector<std::string>& ids) {
    std::vector<Scenario> suite = referenceSuite(dialect);
    if (ids.empty()) {
        return suite;
    }
    std::vector<Scenario> chosen;
    for (const auto& id : ids) {
        auto it = std::find_if(suite.begin(), suite.end(), [&](const Scenario& s) { return s.id == id; });
        if (it == suite.end()) {
            std::string known;
            for (const auto& s : suite) {
                known += (known.empty() ? "" : ", ") + s.id;
            }
            throw Error(ErrorKind::Usage, "unknown scenario '" + id + "' (known: " + known + ")");
        }
        chosen.push_back(*it);
    }
    return chosen;
}

int commandRun(const CliOptions& o) {
    refuseSessionsOptions(o, isProjectRun(o));
    if (isProjectRun(o)) {
        return commandRunProject(o);
    }
    refuseProjectOnlyOptions(o);
    std::string database = o.database;
    if (database.empty() && o.wireTap) {
        throw Error(ErrorKind::Usage,
                    "the default database is SQLite, which is embedded: --wire-tap, --latency and --bandwidth need a "
                    "networked engine (name one)");
    }
    SignalCancel interrupt;  // from here a first SIGINT / SIGTERM is the command's to handle
    const std::string notStarted = "it had not started (connecting): nothing was measured";
    interrupt.endAtOnceUntilStarted("the run", notStarted);
    if (database.empty()) {
        database = defaultDatabasePath();
        ensureDefaultDatabase(database, o, interrupt);
        database = "sqlite:" + database;
    }
    RunPlan plan;
    plan.runId = isoNow();
    plan.connection = connectionFrom(o, database);
    interrupt.endAtOnceUntilStarted("the run on " + plan.connection.label(), notStarted);
    plan.parameters = o.parameters;
    plan.repetitions = o.repeat;
    plan.warmups = o.warmup;
    // Networked engines are measured through the tap unless --no-tap: wire counts by default.
    plan.wireTap = !o.noTap && (o.wireTap || driverById(plan.connection.engine).networked());
    plan.link = o.link;
    plan.estimateCompression = o.estimateCompression;
    const Driver& driver = driverById(plan.connection.engine);
    if (o.wireTap && !driver.networked()) {
        throw Error(
            ErrorKind::Usage,
            driver.displayName() + " is embedded: --wire-tap, --latency and --bandwidth need a networked engine");
    }
    // verify_content (--verify-content or -P verify_content=on) is the Runner's, not the driver's.
    plan.verifyContent = takeVerifyContent(plan.parameters, o.verifyContent);
    if (plan.verifyContent) {
        plan.expectContent = cachedExpectedContent();
    }
    if (o.sharedLink) {
        plan.parameters[loadparam::SharedLink] = "true";  // an embedded engine has no link: refused as unknown
    }
    // Refuse bad tunables before touching the database.
    resolveParameters(driver.parameters(), plan.parameters);
    plan.scenarios = selectScenarios(driver.dialect(), o.scenarios);

    // The data set must be complete before anything is measured: the Runner checks it on the run's
    // own session (through the tap, with the run's timeouts), so a failure there reads like any other.
    std::vector<std::string> notes;
    if (o.limitRows) {
        plan.rowLimit = o.limitRows;
        notes.push_back("Rows limited to " + std::to_string(*o.limitRows) +
                        " per statement (the client stops fetching)");
    }
    if (o.sessionsRun()) {
        return commandRunSessions(o, plan, interrupt, notes);
    }
    // -P sessions=8 (and the other load tunables) ask for the same as --sessions 8.
    if (const LoadSettings load = resolveLoadSettings(plan.parameters); load.concurrent()) {
        CliOptions sessions = o;
        sessions.sessions = load.sessions;
        if (load.duration) {
            sessions.durationS = std::chrono::duration<double>(*load.duration).count();
        }
        sessions.rate = load.rate;
        if (load.rampUp.count() > 0) {
            sessions.rampUpS = std::chrono::duration<double>(load.rampUp).count();
        }
        refuseSessionsOptions(sessions, false);
        return commandRunSessions(sessions, plan, interrupt, notes);
    }
    if (o.sharedLink || !o.aggregateLog.empty()) {
        throw Error(ErrorKind::Usage, std::string(o.sharedLink ? "--shared-link" : "--aggregate-log") +
                                          ": this run is of one session (give --sessions N or --duration S)");
    }

    TextReport report(std::cout);
    CliObserver observer(report, o, notes, o.repeat, plan.runId);
    observer.target = plan.connection.target;
    observer.interrupt = &interrupt;
    Runner runner;
    interrupt.setCancel([&runner] { runner.cancel(); });
    observer.stopRun = [&runner] { runner.cancel(); };
    RunOutcome outcome = runner.run(plan, observer);
    interrupt.setCancel({});
    observer.stopRun = {};
    if (!observer.keepError().empty()) {  // stopped: what it measured had nowhere safe to go
        outcome.ok = false;
        outcome.error =
            observer.keepError() + ": the run stopped after " + std::to_string(observer.samples()) + " samples";
    }
    // Hostile round 5c F1: a full disk under --json stopped the run with one line that said neither
    // that it stopped nor where the samples were, and the report of the scenario in progress was lost.
    RunKept where = observer.finish();
    std::erase(where.exportErrors, observer.keepError());  // said once, as what stopped the run
    const std::string kept = runKeptLine(where, !observer.keepError().empty());
    if (const int sig = SignalCancel::received(); sig != 0) {
        printError(std::string(SignalCancel::name(sig)) + ": the run was cancelled (" + oneLine(outcome.error) + "); " +
                   (kept.empty() ? "everything measured is written" : kept));
        return 128 + sig;
    }
    if (!outcome.ok || !kept.empty()) {
        printError(outcome.ok ? kept : oneLine(outcome.error) + (kept.empty() ? "" : "; " + kept));
        return kFailed;
    }
    return kOk;
}

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

int runCommand(const std::vector<std::string>& args);

}  // namespace
}  // namespace blobbench::cli

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
    if (!args.empty() && args[0] == "bytea") {
        // Prints through stdio (CheckedStdout would reorder its lines): stdio keeps the error.
        std::signal(SIGPIPE, SIG_IGN);
        const int code = runCommand(args);
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
    int code = 0;
    if (!args.empty() && args[0] == "storage") {
        code = runStorage(args, std::cout, std::cerr);
    } else if (!args.empty() && args[0] == "reproduce") {
        code = runReproduce(args, std::cout, std::cerr);
    } else if (!args.empty() && args[0] == "check") {
        code = runCheck(args, std::cout, std::cerr);
    } else if (isFbCompatCommandLine(args)) {
        code = runFbCompat(args, std::cout, std::cerr);
    } else {
        code = runCommand(args);
    }
    return checked(code, out.error());
}

namespace blobbench::cli {
namespace {

int runCommand(const std::vector<std::string>& args) {
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

}  // namespace
}  // namespace blobbench::cli
