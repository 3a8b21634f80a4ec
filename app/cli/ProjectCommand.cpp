#include "app/cli/ProjectCommand.h"

#include "app/cli/AggregateLogFile.h"
#include "engine/drivers/sqlite/SqliteDriver.h"
#include "engine/drivers/sqlite/SqliteFileName.h"

#include <fcntl.h>
#include <unistd.h>

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSysInfo>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "app/cli/PrepareCommand.h"
#include "app/cli/ProgressLine.h"
#include "app/cli/RunKept.h"
#include "app/cli/SessionsCommand.h"
#include "app/cli/Signals.h"
#include "engine/core/Error.h"
#include "engine/core/FileKind.h"
#include "engine/core/Printable.h"
#include "engine/data/Dataset.h"
#include "engine/data/ExpectedContent.h"
#include "engine/drivers/Registry.h"
#include "engine/run/LoadRun.h"
#include "engine/run/Runner.h"
#include "engine/run/Sweep.h"
#include "engine/wire/WireParameters.h"
#include "model/AtomicFile.h"
#include "model/LoadJson.h"
#include "model/MarkdownExport.h"
#include "model/Presets.h"
#include "model/ProjectFile.h"
#include "model/ProjectSaveGuard.h"
#include "model/RunComparison.h"
#include "model/SampleJson.h"

namespace blobbench::cli {
namespace {

QString q(const std::string& text) {
    return QString::fromStdString(text);
}

// A run that saves refuses a journal another live process holds (RunJournal), so it says that
// once, before recoverJournal() notes the same journal as left alone (two lines for one fact).
void refuseJournalHeldElsewhere(const QString& projectPath) {
    const std::string journal = journalPathFor(projectPath).toStdString();
    const int fd = ::open(journal.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        return;  // none, or unreadable: recoverJournal() says which
    }
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    const bool held = ::fcntl(fd, F_GETLK, &whole) == 0 && whole.l_type != F_UNLCK;
    ::close(fd);
    if (held) {
        throw Error(ErrorKind::Io, "the run journal " + journal +
                                       " is in use by another process (a run of this project not saved yet): "
                                       "left alone, nothing was run");
    }
}

std::vector<ScenarioDef> chooseScenarios(const Project& project, const std::vector<std::string>& names) {
    std::vector<ScenarioDef> out;
    if (names.empty()) {
        for (const auto& s : project.scenarios) {
            if (s.enabled) {
                out.push_back(s);
            }
        }
        if (out.empty()) {
            throw Error(ErrorKind::Usage, "the project has no enabled scenario (name one with --scenario)");
        }
        return out;
    }
    for (const auto& name : names) {
        auto it = std::find_if(project.scenarios.begin(), project.scenarios.end(),
                               [&](const ScenarioDef& s) { return s.id == q(name) || s.title == q(name); });
        if (it == project.scenarios.end()) {
            std::string known;
            for (const auto& s : project.scenarios) {
                known += (known.empty() ? "" : ", ") + s.id.toStdString();
            }
            throw Error(ErrorKind::Usage, "unknown scenario '" + name + "' (the project has: " + known + ")");
        }
        out.push_back(*it);
    }
    return out;
}

// The base of --compare: a run of this project's history, or a file (a project's last run, or a
// samples file written by --json).
RunRecord baseRun(const Project& project, const std::string& what) {
    const QString name = q(what);
    if (QFileInfo(name).isFile()) {
        if (looksLikeProjectFile(name)) {
            const Project other = loadProject(name);
            if (other.history.empty()) {
                throw Error(ErrorKind::Usage, "--compare: " + what + " has no run in its history");
            }
            return other.history.back();
        }
        RunRecord r;
        r.samples = readSamplesJson(name, "--compare");
        r.runId = q(r.samples.front().runId);
        return r;
    }
    if (const RunRecord* r = findRun(project, name)) {
        return *r;
    }
    if (std::error_code ec; std::filesystem::exists(what, ec)) {  // a FIFO, a device, a directory
        throw Error(ErrorKind::Usage, "--compare: " + what + ": " + whyNotAFile(what) + ": name a run or a file");
    }
    std::string known;
    for (const auto& r : project.history) {
        known += (known.empty() ? "" : ", ") + r.runId.toStdString();
    }
    throw Error(ErrorKind::Usage,
                "--compare: no run '" + what + "' in the project's history and no such file" +
                    (known.empty() ? std::string(" (the history is empty)") : " (runs: " + known + ")"));
}

// verify_content=on: what the scenario's samples of a point say of their content ("" when off).
std::string contentSummary(const std::vector<Sample>& samples, const std::string& scenarioId) {
    std::string verdict;
    for (const Sample& s : samples) {
        if (s.scenarioId != scenarioId || s.contentCheck.empty()) {
            continue;
        }
        if (s.contentCheck.starts_with("differs")) {
            return ", " + s.error;
        }
        const std::string word = s.contentCheck.starts_with("verified") ? "verified" : "not verified";
        verdict = verdict.empty() || verdict == word ? word : "partly verified";
    }
    return verdict.empty() ? std::string() : ", content " + verdict;
}

class ProjectObserver final : public LoadRunObserver {
public:
    ProjectObserver(ProjectDocument& doc, const QString& runId, const CliOptions& o, bool save)
        : m_doc(doc),
          m_runId(runId),
          m_options(o),
          m_save(save),
          m_line(!o.quiet),
          m_aggregateLog(o.aggregateLog, o.aggregateIntervalS.value_or(1)) {}

    // --aggregate-log: opened (and so checked) before anything is measured, a file per point of a sweep.
    AggregateLogFile& aggregateLog() { return m_aggregateLog; }
    std::string aggregateLogError;  // the first failure to write it, "" for none

    // Set when the run's scenarios read BLOB_TEST: checked as `blobbench-cli run TARGET` checks it.
    std::string prepareHint;
    void checkSession(Session& session) override {
        if (prepareHint.empty() || session.dialect() == Dialect::None) {
            return;
        }
        std::string line = requireDataset(session, prepareHint);
        if (line != m_datasetLine) {  // a sweep reconnects: said once
            clear();
            std::cerr << terminalLine(line) << '\n';
            m_datasetLine = std::move(line);
        }
    }
    void connected(const SessionInfo& info) override {
        if (m_session.engine.empty()) {
            m_session = info;
        }
    }
    void pointStarted(const SweepPoint& point, std::size_t ordinal, std::size_t count) override {
        try {
            // A run without a sweep is one point: its log is FILE itself, not FILE.1.
            m_aggregateLog.begin(m_options.sweep.empty() ? std::nullopt : std::optional<std::size_t>(ordinal));
        } catch (const Error& e) {
            aggregateLogError = aggregateLogError.empty() ? e.what() : aggregateLogError;
        }
        m_point = point.values.empty()
                      ? std::string()
                      : "[" + std::to_string(ordinal + 1) + "/" + std::to_string(count) + " " + point.label() + "] ";
    }
    void scenarioStarted(const Scenario& scenario, int repetition) override {
        show(m_point + scenario.title + (repetition < 0 ? " (warm-up)" : " #" + std::to_string(repetition + 1)));
    }
    void progress(const Scenario& scenario, std::uint64_t rows, std::uint64_t bytes) override {
        show(m_point + scenario.title + ": " + std::to_string(rows) + " rows, " + std::to_string(bytes >> 20) + " MB");
    }
    void sampleReady(const Sample& sample) override {
        m_doc.appendSample(m_runId, sample);
        m_samples.push_back(sample);
        // Journaled at once, synced after the point (the page cache outlives a killed process; the
        // sync is for a crash of the machine): a kill -9 lost every sample of a run without a
        // sweep, which is one point.
        keepInJournal([&] { m_journal->append({sample}, false); });
    }
    void pointFinished(const SweepPoint& point, const RunOutcome& outcome) override {
        clear();
        for (const auto& p : summariseSamples(outcome.samples)) {
            std::cout << (point.values.empty() ? std::string() : point.label() + ": ") << p.scenarioId.toStdString();
            if (p.elapsed.count == 0) {
                std::cout << " failed" << contentSummary(outcome.samples, p.scenarioId.toStdString()) << "\n";
                continue;
            }
            std::cout << " median " << QString::number(p.elapsed.median, 'f', 3).toStdString()
                      << " ms (n=" << p.elapsed.count
                      << (p.failed ? ", " + std::to_string(p.failed) + " failed" : std::string()) << ")"
                      << contentSummary(outcome.samples, p.scenarioId.toStdString()) << "\n";
        }
        std::cout << std::flush;
        // After every point: a crash or a Stop later loses nothing measured. The point's samples are
        // in the run's journal (its cost does not grow with the history); exports are rewritten whole.
        keepInJournal([&] { m_journal->sync(); });
        keepInExports();
    }
    // After a storage study: its figures, then journal and exports as after a point.
    void studyFinished(const std::vector<Sample>& samples) {
        clear();
        for (const auto& s : samples) {
            std::cout << s.scenarioId << " " << pointText(s.point).toStdString() << ": ";
            if (s.status != SampleStatus::Complete) {
                std::cout << s.error << '\n';
                continue;
            }
            std::cout << s.scalar.value_or("-") << ' ' << s.scalarLabel;
            if (auto mb = s.negotiated.find("MB/s"); mb != s.negotiated.end()) {
                std::cout << ", " << mb->second << " MB/s";
            }
            std::cout << '\n';
        }
        std::cout << std::flush;
        keepInJournal([&] { m_journal->sync(); });
        keepInExports();
    }
    // A point of many sessions: its report, its load figures in the run (and its journal, synced).
    SessionsObserver& sessions() override { return m_sessionsObserver; }
    void loadReady(const SweepPoint& point, const std::vector<LoadPoint>& loads,
                   const SessionsOutcome& outcome) override {
        clear();
        if (!point.values.empty()) {
            std::cout << "\n" << point.label() << ":\n";
        }
        writeSessionsReport(std::cout, outcome, figuresOf(outcome));
        std::cout << std::flush;
        if (const std::string failed = m_aggregateLog.end(); !failed.empty() && aggregateLogError.empty()) {
            aggregateLogError = failed;
        }
        m_doc.appendLoads(m_runId, loads);
        m_loads.insert(m_loads.end(), loads.begin(), loads.end());
        keepInJournal([&] { m_journal->appendLoads(loads); });
        keepInExports();
    }
    std::size_t loads() const { return m_loads.size(); }
    void showText(const std::string& text) { show(text); }
    // Set once the runner exists: a sample that cannot be kept (the journal or an export on a full
    // disk) stops the run, which then keeps what it measured wherever it still can (finish()).
    std::function<void()> stopRun;
    // The project file as loaded: a save notices another program's change since (ProjectSaveGuard).
    ProjectFileStamp stamp;
    // The first failure to keep a sample during the run, "" for none.
    const std::string& keepError() const { return m_keepError; }
    const QString& mergeNote() const { return m_mergeNote; }
    std::size_t samples() const { return m_samples.size(); }

    // The whole project, at the start (a read-only folder or file, or a full disk shows before
    // anything is measured); the journal lives from here to finish().
    void saveAtStart(const RunRecord& starting) {
        if (m_save) {
            // The journal first: one another process holds refuses the run before it is saved (it
            // was saved first, a run without samples or outcome in the history).
            auto journal = std::make_unique<RunJournal>(m_doc.filePath(), starting);
            try {
                save();
            } catch (...) {
                journal->discard();
                throw;
            }
            m_journal = std::move(journal);
        }
        try {
            writeExports();
        } catch (const Error& e) {
            // Nothing was measured: the run saved a moment ago ends here as failed, not as a run
            // without samples or outcome in the history with its journal left behind.
            if (m_journal) {
                m_doc.finishRun(m_runId, QStringLiteral("failed: ") + q(oneLine(e.what())));
                try {
                    save();
                    m_journal->discard();
                } catch (const Error&) {  // the journal stays: the next run recovers the run from it
                }
            }
            throw;
        }
    }

    // At the end: the project saved (the journal removed then) or, when it cannot be, the run's
    // outcome added to the journal for the next run; the exports written; where the samples are.
    RunKept finish(const RunRecord& finished) {
        RunKept k;
        k.samples = m_samples.size() + m_loads.size();
        k.loadPoints = m_loads.size();
        k.saving = m_save;
        k.project = m_doc.filePath().toStdString();
        if (m_save) {
            try {
                save();
                k.inProject = true;
                m_journal->discard();
            } catch (const Error& e) {
                k.projectError = oneLine(e.what());
                try {
                    m_journal->beginRun(finished);  // a failed write leaves the journal whole
                } catch (const Error&) {
                }
                // A journal deleted under the run (its folder removed) holds nothing any more: the samples
                // go to a rescue file instead of a line that names a file that is gone (hostile round 5i D4).
                if (m_journal->stillAtItsPath()) {
                    k.journal = m_journal->path().toStdString();
                    k.inJournal = m_journal->samplesHeld();
                } else {
                    k.projectError += "; its run journal " + m_journal->path().toStdString() +
                                      " was deleted or replaced during the run";
                }
            }
        }
        finishExports(k);
        return k;
    }

private:
    void save() {
        GuardedSave saved = saveProjectGuarded(m_doc.filePath(), m_doc.project(), m_runId, stamp);
        if (saved.merged) {
            m_doc.reset(std::move(*saved.merged), m_doc.filePath());
            m_mergeNote = saved.note;
        }
        m_doc.markClean();
    }
    void stop(const Error& e) {
        if (m_keepError.empty()) {
            m_keepError = oneLine(e.what());
            if (stopRun) {
                stopRun();
            }
        }
    }
    void keepInJournal(const std::function<void()>& write) {
        if (!m_journal || m_journalBroken) {
            return;
        }
        try {
            write();
        } catch (const Error& e) {
            m_journalBroken = true;
            stop(e);
        }
    }
    void keepInExports() {
        try {
            writeExports();
        } catch (const Error& e) {
            stop(e);
        }
    }
    // Each export on its own; a samples file in the temporary folder when nothing else holds them.
    void finishExports(RunKept& k) {
        writeExportsOrRescue(
            k, m_options.jsonPath, m_options.csvPath, m_session, m_samples, m_runId.toStdString(),
            [this](const RunKept& kept) {
                const bool lost =
                    kept.samples > 0 && !kept.inProject && kept.inJournal < kept.samples && kept.exports.empty();
                return lost && (m_save || !kept.exportErrors.empty());
            },
            m_loads);
    }

    // A run of many sessions exports its load points (the sessions' figures), others their samples.
    // Before and during the run, a pipe or a device (/dev/stdout, a FIFO) is left out: it takes the
    // export once, at the end (finishExports), where a rewrite would be appended to it.
    void writeExports() {
        if (!m_options.jsonPath.empty() && replacedWhole(m_options.jsonPath)) {
            if (!m_loads.empty()) {
                writeLoadsJson(q(m_options.jsonPath), m_loads);
            } else {
                writeSamplesJson(q(m_options.jsonPath), m_session, m_samples);
            }
        }
        if (!m_options.csvPath.empty() && replacedWhole(m_options.csvPath)) {
            if (!m_loads.empty()) {
                writeLoadsCsv(q(m_options.csvPath), m_loads);
            } else {
                writeSamplesCsv(q(m_options.csvPath), m_samples);
            }
        }
    }

    // The sessions of a point: session 1 checks the data set, as the single session does.
    class SessionsCheck final : public SessionsObserver {
    public:
        explicit SessionsCheck(ProjectObserver& owner) : m_owner(owner) {}
        void statementEnded(int /*session*/, const StatementEnd& statement) override {
            m_owner.m_aggregateLog.record(statement);
        }
        void checkSession(int session, Session& s) override {
            if (session == 1) {
                std::lock_guard lock(m_mutex);
                m_owner.checkSession(s);
            }
        }

    private:
        ProjectObserver& m_owner;
        std::mutex m_mutex;
    };

    void show(const std::string& text) { m_line.show(text); }
    void clear() { m_line.clear(); }

    ProjectDocument& m_doc;
    QString m_runId;
    const CliOptions& m_options;
    bool m_save;
    ProgressLine m_line;
    std::string m_point;
    std::string m_datasetLine;
    SessionInfo m_session;
    std::vector<Sample> m_samples;
    std::vector<LoadPoint> m_loads;
    AggregateLogFile m_aggregateLog;
    SessionsCheck m_sessionsObserver{*this};
    std::unique_ptr<RunJournal> m_journal;
    bool m_journalBroken = false;
    std::string m_keepError;
    QString m_mergeNote;
};

// The report on stdout, then "Saved run ..." or one line saying what went wrong and where the
// samples are; returns the exit code.
int reportRun(const CliOptions& o, const RunRecord& done, const std::optional<RunRecord>& base, const RunKept& kept,
              const ProjectObserver& observer, const RunOutcome& outcome) {
    QString markdown = markdownRunSummary(done);
    if (base) {
        markdown += QLatin1Char('\n') + markdownComparison(*base, done, compareRuns(base->samples, done.samples));
    }
    std::cout << '\n' << markdown.toStdString() << std::flush;
    std::string failed = runKeptLine(kept, !observer.keepError().empty());
    if (!o.markdownPath.empty()) {
        try {
            writeMarkdown(q(o.markdownPath), markdown);
        } catch (const Error& e) {
            failed += (failed.empty() ? "" : "; ") + oneLine(e.what());
        }
    }
    if (kept.inProject) {
        const QString& note = observer.mergeNote();
        std::cerr << "Saved run " << done.runId.toStdString() << " in " << printable(kept.project)
                  << (note.isEmpty() ? std::string() : " (" + printable(note.toStdString()) + ")") << '\n';
    }
    if (const int sig = SignalCancel::received(); sig != 0) {
        std::cerr << "blobbench-cli: " << SignalCancel::name(sig) << ": the run was cancelled ("
                  << printable(oneLine(outcome.error)) << "); "
                  << (failed.empty() ? "everything measured is written" : printable(failed)) << std::endl;
        return 128 + sig;
    }
    const std::string line = outcome.ok ? failed : oneLine(outcome.error) + (failed.empty() ? "" : "; " + failed);
    if (!line.empty()) {
        std::cerr << "blobbench-cli: " << terminalLine(line) << std::endl;
        return 1;
    }
    return 0;
}

// The index of the project's connection --connection names ('' names a connection called so, not
// the current one); a name no connection or several have is refused.
int connectionNamed(const Project& project, const CliOptions& o) {
    const auto named = [&](const ConnectionProfile& c) { return c.name == q(o.connection); };
    const auto it = std::find_if(project.connections.begin(), project.connections.end(), named);
    if (it == project.connections.end()) {
        QStringList names;
        for (const auto& c : project.connections) {
            names << c.name;
        }
        throw Error(ErrorKind::Usage, "--connection: " + o.database + " has no connection '" + o.connection +
                                          "' (it has: " + names.join(QStringLiteral(", ")).toStdString() + ")");
    }
    if (const auto count = std::count_if(project.connections.begin(), project.connections.end(), named); count > 1) {
        throw Error(ErrorKind::Usage, "--connection: " + o.database + " has " + std::to_string(count) +
                                          " connections named '" + o.connection +
                                          "', so the name does not say which: rename them in the project");
    }
    return static_cast<int>(it - project.connections.begin());
}

}  // namespace

bool isProjectRun(const CliOptions& o) {
    return !o.database.empty() && looksLikeProjectFile(q(o.database));
}

void refuseProjectOnlyOptions(const CliOptions& o) {
    const char* option = !o.sweep.empty()          ? "--sweep"
                         : o.connectionGiven       ? "--connection"
                         : !o.markdownPath.empty() ? "--markdown"
                         : !o.compare.empty()      ? "--compare"
                         : o.noSave                ? "--no-save"
                                                   : nullptr;
    if (option != nullptr) {
        throw Error(ErrorKind::Usage, std::string(option) + " needs a project file (run PROJECT.blobbench.json)");
    }
}

namespace {

// One project run's state, from step to step of commandRunProject.
struct ProjectRun {
    QString path;                     // the project file itself (a preset's user copy, a link resolved)
    std::optional<ProjectLock> lock;  // held from the load to the last save (none with --no-save)
    ProjectDocument doc;
    ProjectFileStamp stamp;  // the file as loaded: a save notices another program's change
    const ConnectionProfile* profile = nullptr;
    const Driver* driver = nullptr;
    std::vector<ScenarioDef> studies;  // storage studies: after the SQL scenarios, once each
    RunPlan plan;
    std::vector<storage::StudyJob> jobs;
    std::vector<SweepPoint> points{SweepPoint{}};
    RunRecord record;
    std::optional<RunRecord> base;  // --compare
};

// The project loaded under its lock, a crashed run's journal recovered into it, its connection chosen.
void openProject(const CliOptions& o, ProjectRun& r) {
    r.path = q(o.database);
    if (isPresetFile(r.path)) {
        r.path = userCopyOfPreset(r.path);
        std::cerr << "blobbench-cli: " << terminalLine(o.database) << " is a preset: the run is saved in your copy, "
                  << r.path.toStdString() << '\n';
    }
    // The file itself, not a link to it: the lock and the journal sit next to the file that is
    // written, so a run through a link and one through the file's own name exclude each other.
    if (const QString real = QFileInfo(r.path).canonicalFilePath(); !real.isEmpty()) {
        r.path = real;
    }
    // One run at a time writes to a project (issue #21): a second one waits rather than refusing,
    // because runs measured at the same time on one machine disturb each other's figures, and a
    // script that starts several wants them all in the history. Held from the load (which sees the
    // runs before it) to the last save; --no-save writes nothing and takes no lock.
    if (!o.noSave && QFileInfo(r.path).isFile()) {
        r.lock.emplace(
            r.path,
            [&](const std::string& line) {
                std::cerr << "blobbench-cli: " << terminalLine(o.database + ": " + line) << '\n';
            },
            [] { return SignalCancel::received() != 0; });
    }
    Project loaded = loadProjectStamped(r.path, r.stamp);
    if (!o.noSave) {
        refuseJournalHeldElsewhere(r.path);
    }
    // A run that crashed or was killed left its journal: its samples join the history first.
    if (const QString recovered = recoverJournal(r.path, loaded); !recovered.isEmpty()) {
        std::cerr << "blobbench-cli: " << terminalLine(o.database + ": " + recovered.toStdString()) << '\n';
        if (!o.noSave) {
            saveProjectGuarded(r.path, loaded, {}, r.stamp);  // a file changed meanwhile: refused, the journal kept
            removeJournal(r.path);
        }
    }
    if (const std::string note = unreadTracesNote(unreadTraces(loaded)); !note.empty()) {
        std::cerr << "blobbench-cli: " << terminalLine(o.database + ": " + note) << '\n';
    }
    if (o.connectionGiven) {
        loaded.currentConnection = connectionNamed(loaded, o);
    }
    r.doc.reset(std::move(loaded), r.path);
    r.profile = r.doc.project().current();
    if (r.profile == nullptr) {
        throw Error(ErrorKind::Usage, o.database + ": the project has no connection");
    }
}

// The connection as the command line amends it, the scenarios split into SQL and storage studies, a
// missing SQLite database said (the default data set prepared), the plan of the SQL scenarios and the
// studies' jobs, all checked before anything connects.
void planRun(const CliOptions& o, SignalCancel& interrupt, ProjectRun& r) {
    const Project& project = r.doc.project();
    ConnectionSpec spec = r.profile->toSpec(q(o.password));
    if (!o.user.empty()) {
        spec.user = o.user;
    }
    if (const std::string note = charsetNotInEffect(spec.engine, o.charset); !note.empty()) {
        std::cerr << "blobbench-cli: " << terminalLine(note) << '\n';
    } else if (!o.charset.empty()) {
        spec.charset = o.charset;  // like -u: the command line over the project's connection
    }
    r.driver = &driverById(spec.engine);
    // The project's Firebird database on this machine is no place for an output (hostile round 5p C4).
    for (const auto& [option, path] :
         {std::pair{"--json", &o.jsonPath}, std::pair{"--csv", &o.csvPath}, std::pair{"--markdown", &o.markdownPath}}) {
        refuseOutputOverFirebirdDatabase(option, *path, spec);
    }
    // Storage studies (keyed-read, footprint, insert) run after the SQL scenarios, once each, through
    // the same function as `blobbench-cli storage`; they take no part in sweeps or repetitions.
    std::vector<Scenario> queries;
    for (const auto& s : chooseScenarios(project, o.scenarios)) {
        if (s.isStudy()) {
            if (!o.sweep.empty() && !o.scenarios.empty()) {
                throw Error(ErrorKind::Usage,
                            "scenario '" + s.id.toStdString() + "' is a storage study: studies take no part in sweeps");
            }
            if (o.sweep.empty()) {
                r.studies.push_back(s);
            }
        } else {
            queries.push_back(s.toScenario());
        }
    }
    if (queries.empty() && r.studies.empty()) {
        throw Error(ErrorKind::Usage, "--sweep: the project's enabled scenarios are all storage studies");
    }
    if (spec.engine == "sqlite" && !queries.empty()) {
        // Opening a missing SQLite file would create an empty one and fail on every scenario.
        std::string file = spec.target;
        for (const char* prefix : {"sqlite://", "sqlite:"}) {
            if (file.starts_with(prefix)) {
                file = file.substr(std::string(prefix).size());
                break;
            }
        }
        // The default data set (a preset's ${DATA}/reference.sqlite) is prepared on demand, as
        // `blobbench-cli` with no arguments does; any other missing file is the user's mistake.
        if (QFileInfo(q(file)).absoluteFilePath() == QFileInfo(defaultSqlitePath()).absoluteFilePath()) {
            ensureDefaultDatabase(defaultDatabasePath(), o, interrupt);
        } else if (!QFileInfo::exists(q(file))) {
            throw Error(ErrorKind::Data, o.database + ": the database " + file +
                                             " does not exist (create the reference data set with: blobbench-cli "
                                             "prepare sqlite:" +
                                             file + ")");
        }
    }
    RunPlan& plan = r.plan;
    plan.runId = isoNow();
    while (findRun(project, q(plan.runId)) != nullptr) {  // the clock's milliseconds are not unique
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        plan.runId = isoNow();
    }
    plan.connection = spec;
    if (auto it = project.parameters.find(r.profile->engine); it != project.parameters.end()) {
        plan.parameters = it->second;
    }
    for (const auto& [id, value] : o.parameters) {
        plan.parameters[id] = value;
    }
    applySessionsFlags(o, plan.parameters);
    plan.verifyContent = takeVerifyContent(plan.parameters, o.verifyContent);
    if (plan.verifyContent) {
        plan.expectContent = cachedExpectedContent();
    }
    resolveParameters(r.driver->parameters(), plan.parameters);  // bad tunables refused before connecting
    plan.scenarios = queries;
    plan.rowLimit = o.limitRows;
    // The studies' jobs, checked now: a bad option costs nothing.
    for (const auto& s : r.studies) {
        try {
            r.jobs.push_back(
                studyJob(project, s, plan.runId, {{r.profile->name, q(o.password)}}, o.limitRows.value_or(0)));
            if (!o.user.empty() && r.jobs.back().connection.engine == spec.engine &&
                r.jobs.back().connection.target == spec.target) {
                r.jobs.back().connection.user = o.user;
            }
        } catch (const storage::StudyOptionError& e) {
            throw Error(ErrorKind::Usage, o.database + ": scenario '" + s.id.toStdString() + "': options." + e.what());
        }
    }
    // The same rule as the workbench: networked engines go through the tap unless the project or
    // --no-tap turns it off (--tap turns it back on); the project's saved link applies whenever the
    // tap is in use, unless the command line names one.
    plan.wireTap = r.driver->networked() && !o.noTap && (o.wireTap || r.profile->useWireTap);
    plan.link = o.linkSet ? o.link : toLinkProfile(r.profile->link);
    plan.estimateCompression = o.estimateCompression;
    if (o.wireTap && !r.driver->networked()) {
        throw Error(
            ErrorKind::Usage,
            r.driver->displayName() + " is embedded: --wire-tap, --latency and --bandwidth need a networked engine");
    }
    plan.repetitions = o.repeat;
    plan.warmups = o.warmup;
}

// --sweep: the sweep's points (a random order seeded), its counts unless -r/-w say otherwise.
void applySweep(const CliOptions& o, ProjectRun& r) {
    r.record.runId = q(r.plan.runId);
    if (o.sweep.empty()) {
        return;
    }
    const Project& project = r.doc.project();
    RunPlan& plan = r.plan;
    auto it = std::find_if(project.sweeps.begin(), project.sweeps.end(),
                           [&](const SweepDef& s) { return s.name == q(o.sweep); });
    if (it == project.sweeps.end()) {
        std::string known;
        for (const auto& s : project.sweeps) {
            known += (known.empty() ? "" : ", ") + s.name.toStdString();
        }
        throw Error(ErrorKind::Usage, "unknown sweep '" + o.sweep +
                                          "' (the project has: " + (known.empty() ? std::string("none") : known) + ")");
    }
    SweepSpec sweep = it->toSpec();
    if (sweep.randomOrder && sweep.seed == 0) {
        // 53 bits: exact in every JSON reader (JavaScript's numbers included), never 0
        std::random_device entropy;
        sweep.seed = (((static_cast<std::uint64_t>(entropy()) << 32) ^ entropy()) & ((1ULL << 53) - 1)) | 1;
    }
    r.points = validatedPoints(sweep, r.driver->parameters());
    plan.repetitions = o.repeatSet ? o.repeat : sweep.repetitions;
    plan.warmups = o.warmupSet ? o.warmup : sweep.warmups;
    r.record.sweepName = it->name;
    r.record.orderSeed = sweep.randomOrder ? sweep.seed : 0;
}

// What a run of many sessions cannot do, refused; --compare's base found, before anything is measured.
void refuseWhatTheRunCannotDo(const CliOptions& o, ProjectRun& r) {
    const bool loadRun = isLoadRun(r.plan.parameters, o.sweep.empty() ? std::vector<SweepPoint>{} : r.points);
    if (!loadRun && (!o.aggregateLog.empty() || o.sharedLink)) {
        throw Error(ErrorKind::Usage, std::string(o.sharedLink ? "--shared-link" : "--aggregate-log") +
                                          ": this run is of one session (give --sessions N, or set the project's "
                                          "load tunables)");
    }
    if (loadRun) {
        if (r.plan.verifyContent) {
            throw Error(ErrorKind::Usage,
                        "--verify-content (-P verify_content) is not available with many sessions "
                        "(not in this version)");
        }
        if (!r.jobs.empty()) {
            throw Error(ErrorKind::Usage,
                        "storage studies run on one session: leave them out of a run of many "
                        "sessions (-s names the scenarios)");
        }
        // A run of many sessions reports no compression estimate (hostile round 5m EC1).
        if (r.plan.estimateCompression || r.plan.parameters.contains(wireparam::CompressionEstimate)) {
            throw Error(ErrorKind::Usage,
                        "--estimate-compression (-P wire_compression_estimate) is not available with many sessions "
                        "(not in this version): run the scenario in one session to estimate its compression");
        }
    }
    if (!o.compare.empty()) {
        r.base = baseRun(r.doc.project(), o.compare);  // before measuring: a typo costs nothing
        // The comparison is of samples, which a run of many sessions does not keep (its figures are load
        // points): it printed an empty table and exited 0 (hostile round 5g C13).
        if (isLoadRun(r.plan.parameters, o.sweep.empty() ? std::vector<SweepPoint>{} : r.points)) {
            throw Error(ErrorKind::Usage,
                        "--compare compares the samples of runs of one session, and a run of many sessions keeps "
                        "load points instead (compare them in the window's Load tab, or their --csv)");
        }
        if (r.base->samples.empty() && !r.base->loads.empty()) {
            throw Error(ErrorKind::Usage, "--compare: run " + r.base->runId.toStdString() +
                                              " is a run of many sessions: it holds load points, no samples to "
                                              "compare with (compare load runs in the window's Load tab)");
        }
    }
}

// --aggregate-log's files, one per sweep point: none may be a file the run writes or reads.
void checkAggregateLog(const CliOptions& o, const ProjectRun& r, ProjectObserver& observer) {
    const std::string projectPath = r.doc.filePath().toStdString();
    // An SQLite database and its journal files (hostile round 5k F1, F2: FILE.2 a link to the database
    // truncated it; to its -wal, the log went nowhere).
    const std::string database =
        r.plan.connection.engine == "sqlite"
            ? sqliteFileOf(SqliteDriver::pathOf(r.plan.connection.target)).value_or(std::string())
            : std::string();
    const auto sidecar = [&](const char* suffix) { return database.empty() ? database : database + suffix; };
    observer.aggregateLog().check(o.sweep.empty() ? 0 : r.points.size(),
                                  {{"the database", database},
                                   {"the database's -wal file", sidecar("-wal")},
                                   {"the database's -shm file", sidecar("-shm")},
                                   {"the database's -journal file", sidecar("-journal")},
                                   {"the project", projectPath},
                                   {"the project's run journal", projectPath + ".journal"},
                                   {"the project's lock file", projectPath + ".lock"},
                                   {"--json", o.jsonPath},
                                   {"--csv", o.csvPath},
                                   {"--markdown", o.markdownPath}});
    // Each point's file is opened when the point starts: none is made before then.
}

// The storage studies, once each after the SQL scenarios: their samples to the observer, a failure in the
// outcome (the first one said), a cancel ending them.
void runStudies(const std::vector<storage::StudyJob>& jobs, const CancelToken& cancel, ProjectObserver& observer,
                RunOutcome& outcome) {
    for (const auto& job : jobs) {
        if (cancel.cancelled()) {
            break;
        }
        storage::StudyHooks hooks;
        hooks.cancel = cancel;
        hooks.sample = [&](const Sample& sample) { observer.sampleReady(sample); };
        hooks.progress = [&](const std::string& what) { observer.showText(job.scenarioId + ": " + what); };
        storage::StudyOutcome study;
        try {
            study = storage::runStudy(job, hooks);
        } catch (const Error& e) {
            study.error = oneLine(e.what());
        }
        observer.studyFinished(study.samples);
        if (!study.ok() && outcome.ok) {
            outcome.ok = false;
            outcome.errorKind = study.cancelled ? ErrorKind::Cancelled : ErrorKind::Internal;
            outcome.error = job.scenarioId + ": " + study.error + " (results so far kept)";
        }
    }
}

// The run: the SQL scenarios (one session or many, at each sweep point) through LoadRun, then the
// storage studies; every sample to the journal, the exports and the history as it comes; the report.
int measure(const CliOptions& o, SignalCancel& interrupt, ProjectRun& r) {
    r.record.startedAt = r.record.runId;
    r.record.machine = QSysInfo::machineHostName();
    r.record.connectionName = r.profile->name;
    r.record.link = r.profile->link;
    r.record.toolVersion = QStringLiteral(BLOBBENCH_VERSION);
    r.doc.beginRun(r.record);
    const bool save = !o.noSave;
    ProjectObserver observer(r.doc, r.record.runId, o, save);
    if (readsReferenceTable(r.plan.scenarios)) {
        observer.prepareHint = "run: blobbench-cli prepare " + r.plan.connection.label();
    }
    observer.stamp = r.stamp;
    checkAggregateLog(o, r, observer);
    observer.saveAtStart(r.record);  // a read-only folder or a full disk shows now, before anything is measured

    LoadRun runner;
    RunOutcome outcome;
    const ClearCancelOnExit clearCancel(interrupt);  // an exception must not leave the handler a destroyed runner
    const CancelToken studiesCancel;                 // the storage studies poll it between phases and variants
    interrupt.setCancel([&runner, studiesCancel] {
        runner.cancel();
        studiesCancel.cancel();
    });
    observer.stopRun = [&runner, studiesCancel] {
        runner.cancel();
        studiesCancel.cancel();
    };
    if (!r.plan.scenarios.empty()) {
        LoadContext context;
        context.runId = r.plan.runId;
        context.connection = r.plan.connection.label();
        outcome = runner.run(r.plan, r.points, observer, context);
    }
    runStudies(r.jobs, studiesCancel, observer, outcome);
    interrupt.setCancel({});
    observer.stopRun = {};
    if (!observer.keepError().empty()) {  // the run was stopped: what it measured had nowhere safe to go
        outcome.ok = false;
        outcome.errorKind = ErrorKind::Io;
        outcome.error =
            observer.keepError() + ": the run stopped after " + measuredCount(observer.samples(), observer.loads());
    } else if (SignalCancel::received() != 0 && outcome.ok) {  // after the last sample: what is measured is whole
        outcome.ok = false;
        outcome.errorKind = ErrorKind::Cancelled;
        outcome.error = "cancelled";
    }
    r.doc.finishRun(r.record.runId, outcome.ok ? QStringLiteral("complete")
                                    : outcome.errorKind == ErrorKind::Cancelled
                                        ? QStringLiteral("cancelled")
                                        : QStringLiteral("failed: ") + q(oneLine(outcome.error)));
    if (const std::string failed = observer.aggregateLog().end();
        !failed.empty() && observer.aggregateLogError.empty()) {
        observer.aggregateLogError = failed;
    }
    if (!observer.aggregateLogError.empty()) {
        std::cerr << "blobbench-cli: " << terminalLine(observer.aggregateLogError) << " (the run's figures are kept)"
                  << std::endl;
    } else if (observer.aggregateLog().active()) {
        std::cout << "Aggregate log: " << printable(observer.aggregateLog().written())
                  << " (pgbench --aggregate-interval columns, PostgreSQL 15 order, microseconds)" << std::endl;
    }
    const RunKept kept = observer.finish(*findRun(r.doc.project(), r.record.runId));
    return reportRun(o, *findRun(r.doc.project(), r.record.runId), r.base, kept, observer, outcome);
}

}  // namespace

int commandRunProject(const CliOptions& o) {
    SignalCancel interrupt;  // from here a first SIGINT / SIGTERM is the run's to handle
    ProjectRun r;
    openProject(o, r);
    planRun(o, interrupt, r);
    applySweep(o, r);
    refuseWhatTheRunCannotDo(o, r);
    return measure(o, interrupt, r);
}

}  // namespace blobbench::cli
