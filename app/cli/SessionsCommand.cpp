#include "app/cli/SessionsCommand.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <iostream>
#include <mutex>

#include "app/cli/AggregateLogFile.h"
#include "app/cli/RunKept.h"
#include "engine/core/Error.h"
#include "engine/core/LoadParameters.h"
#include "engine/core/Printable.h"
#include "engine/data/Dataset.h"
#include "engine/report/TextReport.h"
#include "engine/run/SessionFigures.h"
#include "engine/run/SessionRunner.h"
#include "engine/wire/WireParameters.h"
#include "model/SessionsJson.h"

namespace blobbench::cli {
namespace {

std::chrono::milliseconds millisecondsOf(double seconds) {
    return std::chrono::milliseconds(std::llround(seconds * 1000));  // seconds >= 0 (parseDecimal)
}

// Session 1 checks the data set and gives the report its header; the others are like it.
class CliSessionsObserver final : public SessionsObserver {
public:
    CliSessionsObserver(const CliOptions& o, std::string target, std::vector<std::string> notes,
                        SignalCancel& interrupt, AggregateLogFile& log)
        : m_options(o), m_target(std::move(target)), m_notes(std::move(notes)), m_interrupt(interrupt), m_log(log) {}

    void statementEnded(int /*session*/, const StatementEnd& statement) override { m_log.record(statement); }

    void checkSession(int session, Session& s) override {
        m_interrupt.started();
        if (session == 1) {
            const std::string note = requireDataset(s, "run: blobbench-cli prepare " + maskTarget(m_target));
            std::lock_guard lock(m_mutex);
            m_notes.insert(m_notes.begin(), note);
        }
    }
    void wireTapReady(int session, const std::string& relay, const LinkProfile& link) override {
        if (session == 1) {
            std::lock_guard lock(m_mutex);
            m_notes.push_back("Wire tap: each session its own relay (session 1: " + relay + "), link " +
                              link.describe() +
                              (m_sharedLink && m_options.sessions.value_or(1) > 1 &&
                                       (link.bandwidthUp != 0 || link.bandwidthDown != 0)
                                   ? ": one link all sessions share"
                                   : " on each"));
        }
    }
    bool m_sharedLink = false;  // set before the run
    void connected(int session, const SessionInfo& info) override {
        std::lock_guard lock(m_mutex);
        if (session == 1) {
            m_info = info;
            m_haveInfo = true;
        }
    }
    void allConnected(int connected, int sessions) override {
        std::lock_guard lock(m_mutex);
        if (m_haveInfo) {
            TextReport(std::cout).header(m_info, m_notes);
        }
        if (!m_options.quiet) {
            // Fewer sessions than asked would measure another load: nothing starts then (hostile round 5j S20).
            std::cerr << "blobbench-cli: " << connected << " of " << sessions << " sessions connected; "
                      << (connected == sessions ? "measuring" : "nothing is measured") << std::endl;
        }
    }

private:
    const CliOptions& m_options;
    std::string m_target;
    std::mutex m_mutex;
    std::vector<std::string> m_notes;  // guarded by m_mutex
    SessionInfo m_info;                // guarded by m_mutex
    bool m_haveInfo = false;           // guarded by m_mutex
    SignalCancel& m_interrupt;
    AggregateLogFile& m_log;
};

// Each export on its own: a failed --json left the --csv unwritten, and nothing said so (hostile
// round 5d C5). "" when every export is written, else the one line of what failed and where the
// figures are.
std::string writeOutputs(const CliOptions& o, const RunPlan& plan, const SessionsOutcome& outcome,
                         const SessionsFigures& figures) {
    const auto [failed, written] = writeEachExport(
        {{o.jsonPath,
          [&](const QString& path) {
              writeSessionsJson(path, sessionsToJson(outcome, figures, plan.runId, plan.connection.label()));
          }},
         {o.csvPath, [&](const QString& path) { writeSessionsCsv(path, outcome, figures); }}});
    if (failed.empty()) {
        return {};
    }
    return failed + "; the report is printed above" + (written.empty() ? "" : " and written to " + written);
}

// An export that cannot be written (no such folder, no permission, a read-only file system) is said
// before any session connects: a sessions run measured for its whole duration and only then said
// "cannot write nodir/x.json", its histograms in no file (hostile round 5i D6). Special files (a FIFO,
// /dev/stdout) are left to the writer, as before.
void refuseUnwritable(const std::string& flag, const std::string& path) {
    if (path.empty()) {
        return;
    }
    struct stat st {};
    const bool existed = ::stat(path.c_str(), &st) == 0;
    if (existed && !S_ISREG(st.st_mode)) {
        return;
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0) {
        const int error = errno;
        throw Error(ErrorKind::Io,
                    "cannot write " + path + " (" + flag + "): " + std::strerror(error) + "; nothing was measured");
    }
    ::close(fd);
    if (!existed) {
        ::unlink(path.c_str());
    }
}

}  // namespace

void applySessionsFlags(const CliOptions& o, ParameterValues& parameters) {
    const auto whole = [](const std::optional<double>& value, const char* flag, const char* id, ParameterValues& out) {
        if (!value) {
            return;
        }
        if (*value != std::floor(*value) || *value < 0 || *value > 1e9) {
            throw Error(ErrorKind::Usage, std::string(flag) +
                                              " takes whole seconds or statements/s with a project (it sets the "
                                              "tunable " +
                                              id + ")");
        }
        out[id] = std::to_string(static_cast<std::int64_t>(*value));
    };
    if (o.sessions) {
        parameters[loadparam::Sessions] = std::to_string(*o.sessions);
    }
    if (o.sharedLink) {
        parameters[loadparam::SharedLink] = "true";
    }
    whole(o.durationS, "--duration", loadparam::DurationS, parameters);
    whole(o.rate, "--rate", loadparam::Rate, parameters);
    whole(o.rampUpS, "--ramp-up", loadparam::RampUpS, parameters);
}

void refuseSessionsOptions(const CliOptions& o, bool project) {
    if (!o.sessionsRun() || project) {
        return;  // a project's run takes them as its load tunables (applySessionsFlags)
    }
    if (o.verifyContent || o.parameters.contains(kVerifyContentParameter)) {
        throw Error(ErrorKind::Usage,
                    "--verify-content (-P verify_content) is not available with --sessions (not in this version)");
    }
    // The relay's compression estimate is per sample of one session; a sessions run reports none, so
    // asking for it gave nothing and no word (hostile round 5l EC1).
    if (o.estimateCompression || o.parameters.contains(wireparam::CompressionEstimate)) {
        throw Error(ErrorKind::Usage,
                    "--estimate-compression (-P wire_compression_estimate) is not available with --sessions (not in "
                    "this version): run the scenario in one session to estimate its compression");
    }
}

int commandRunSessions(const CliOptions& o, const RunPlan& plan, SignalCancel& interrupt,
                       const std::vector<std::string>& notes) {
    SessionsPlan sessions;
    sessions.plan = plan;
    sessions.sessions = o.sessions.value_or(1);
    if (o.durationS) {
        sessions.duration = millisecondsOf(*o.durationS);
    }
    sessions.rate = o.rate;
    sessions.rampUp = millisecondsOf(o.rampUpS.value_or(0));
    sessions.sharedLink = o.sharedLink || resolveLoadSettings(plan.parameters).sharedLink;
    refuseUnwritable("--json", o.jsonPath);
    refuseUnwritable("--csv", o.csvPath);
    AggregateLogFile log(o.aggregateLog, o.aggregateIntervalS.value_or(1));
    log.check(0, {});         // the exports and the database were compared with it when the options were read
    log.begin(std::nullopt);  // an unwritable log is refused before anything connects
    CliSessionsObserver observer(o, plan.connection.target, notes, interrupt, log);
    observer.m_sharedLink = sessions.sharedLink;
    SessionRunner runner;
    interrupt.setCancel([&runner] { runner.cancel(); });
    const SessionsOutcome outcome = runner.run(sessions, observer);
    interrupt.setCancel({});
    const std::string logFailed = log.end();
    const SessionsFigures figures = figuresOf(outcome);
    writeSessionsReport(std::cout, outcome, figures);
    if (log.active() && logFailed.empty()) {
        std::cout << "Aggregate log: " << printable(log.written()) << " (pgbench --aggregate-interval "
                  << o.aggregateIntervalS.value_or(1) << " columns, PostgreSQL 15 order, microseconds)\n";
    }
    std::cout.flush();
    std::string unwritten = writeOutputs(o, plan, outcome, figures);
    if (!logFailed.empty()) {
        unwritten = logFailed + (unwritten.empty() ? "" : "; " + unwritten);
    }
    if (!unwritten.empty()) {
        std::cerr << "blobbench-cli: " << terminalLine(unwritten) << std::endl;
    }
    if (const int sig = SignalCancel::received(); sig != 0) {
        std::cerr << "blobbench-cli: " << SignalCancel::name(sig) << ": the run was cancelled ("
                  << printable(oneLine(outcome.error)) << "); everything measured is "
                  << (unwritten.empty() ? "written" : "printed") << std::endl;
        return 128 + sig;
    }
    if (!outcome.ok) {
        std::cerr << "blobbench-cli: " << terminalLine(outcome.error) << std::endl;
        return 1;
    }
    return unwritten.empty() ? 0 : 1;
}

}  // namespace blobbench::cli
