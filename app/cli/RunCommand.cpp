// run CONNECTION: one session's run of the reference suite, reported as it goes.
#include "app/cli/RunCommand.h"

#include <algorithm>
#include <functional>
#include <iostream>

#include "app/cli/ExitCodes.h"
#include "app/cli/PrepareCommand.h"
#include "app/cli/ProgressLine.h"
#include "app/cli/ProjectCommand.h"
#include "app/cli/RunKept.h"
#include "app/cli/SessionsCommand.h"
#include "app/cli/Signals.h"
#include "engine/core/Error.h"
#include "engine/core/LoadParameters.h"
#include "engine/data/Dataset.h"
#include "engine/data/ExpectedContent.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "engine/report/TextReport.h"
#include "engine/run/Runner.h"
#include "model/AtomicFile.h"
#include "model/SampleJson.h"

namespace blobbench::cli {
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
                m_notes.emplace_back(
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

}  // namespace

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

}  // namespace blobbench::cli
