#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/CancelToken.h"
#include "engine/core/Error.h"
#include "engine/drivers/Driver.h"
#include "engine/run/ContentCheck.h"
#include "engine/run/Scenario.h"
#include "engine/wire/LinkProfile.h"
#include "engine/wire/LinkShaper.h"
#include "engine/wire/ProcessSockets.h"
#include "engine/wire/WireParameters.h"

namespace blobbench {

class WireTap;
class SocketCounter;

struct RunPlan {
    std::string runId;
    ConnectionSpec connection;
    ParameterValues parameters;  // as given; the runner resolves them against the driver
    std::vector<Scenario> scenarios;
    int repetitions = 1;                    // measured executions per scenario
    int warmups = 0;                        // unmeasured executions before them
    std::optional<std::uint64_t> rowLimit;  // the client stops fetching after this many rows
    // The wire, as callers set it (CLI flags, a project's profile). Wire parameters given explicitly
    // in `parameters` (wire_tap, link_*, wire_compression_estimate) override these fields; see
    // resolveWireSettings() in engine/wire/WireParameters.h for the one rule.
    bool wireTap = false;              // relay a networked engine through a WireTap that counts (and shapes)
    LinkProfile link;                  // emulated link; turns the tap on
    bool estimateCompression = false;  // zlib/zstd estimate of what the tap relays; turns the tap on
    // The link's lines, when several runs (the sessions of a SessionRunner) share one link: their taps
    // send on it (WireTapOptions::sharedLink). Null: the run's tap has a link of its own.
    std::shared_ptr<SharedLink> sharedLink;
    // verify_content=on (this field, or "verify_content" in `parameters`, which the Runner takes out
    // before the driver sees them): each scenario's values are compared with what the data set
    // holds, and a value that differs fails its sample naming the row. `expectContent` (engine/data's
    // expectedContent) builds the expectation on the run's session before anything is measured; the
    // hashing time is taken out of each sample's fetch phase. Off: samples and outputs as before.
    bool verifyContent = false;
    std::function<ContentExpectation(Session&)> expectContent;
    // Statement tunables a scenario takes on top of the run's, worked out on the run's own session
    // (through its tap, under its stall watch) before the scenario's first execution: the fb-blob-test
    // mode's -a, the inline BLOB size from the statement's own BLOB sizes. They go to every execution
    // of the scenario and to its samples' parameters. An Error thrown fails the scenario as its
    // statement failing would (one failed sample; an SQL error lets the run go on). Null: none.
    std::function<ParameterValues(Session&, const Scenario&)> scenarioParameters;
};

// Called on the runner's thread. The GUI hands these to its UI thread (ui/RunController); the CLI prints.
class RunObserver {
public:
    virtual ~RunObserver() = default;
    virtual void connected(const SessionInfo& /*info*/) {}
    // After the connect and before connected() and anything measured, through the tap and under its
    // stall watch: the caller's check of the session (the CLI's data set). An Error thrown here
    // ends the run, reported as "<connection>: data set: <message>".
    virtual void checkSession(Session& /*session*/) {}
    // The tap in front of the server, when the plan asked for one: "127.0.0.1:41234 -> host:3050".
    virtual void wireTapReady(const std::string& /*relay*/, const LinkProfile& /*link*/) {}
    virtual void scenarioStarted(const Scenario& /*scenario*/, int /*repetition*/) {}
    virtual void progress(const Scenario& /*scenario*/, std::uint64_t /*rows*/, std::uint64_t /*bytes*/) {}
    virtual void sampleReady(const Sample& /*sample*/) {}
};

struct RunOutcome {
    std::vector<Sample> samples;  // every measured sample, the failed one included
    SessionInfo session;
    bool ok = true;
    ErrorKind errorKind = ErrorKind::Internal;
    std::string error;  // one line: connection, scenario, what the engine said
};

// Copies one query's phase times, native wire counters and per-statement effects into its sample
// (a statement's effect replaces the session's for the same tunable).
void applyQueryStats(Sample& sample, const QueryStats& stats);

// Runs a plan on the calling thread: connect, then each scenario `warmups + repetitions` times.
// Samples go to the observer as soon as they exist, so a failure later loses nothing measured.
// An SQL error fails its scenario and the run goes on; losing the connection or a cancel ends it.
class Runner {
public:
    Runner();
    ~Runner();  // out of line: WireTap is only declared here
    RunOutcome run(const RunPlan& plan, RunObserver& observer);

    // From any thread: stops the run at the next row or chunk, interrupting the engine call. A
    // connect or call on which nothing moves for kCancelGrace after the cancel (a server that does
    // not answer the cancel) is cut, by the relay or the in-process counter; a connection with
    // neither (the tap off, a Unix-domain socket) has its sockets shut down kCancelGrace after the
    // cancel whatever still flows. The run ends with ErrorKind::Cancelled either way.
    void cancel();

    // For sweeps: keep the session open after run() and reuse it in the next run() when the
    // connection and every tunable that is not perStatement are unchanged (a reconnect costs more
    // than the point it measures). Off by default; turning it off closes a kept session.
    void setKeepSession(bool keep);

    // What the kept session's connection carried so far, its connect included (its relay's or its
    // in-process counter's totals), and which of the two counted it; when the last run failed or was
    // cancelled and let its connection go, what that connection carried in all; nullopt when there
    // is neither or nothing counts its wire. From the thread that calls run(), between runs.
    std::optional<WireCounters> keptSessionWire() const;
    const char* keptSessionWireMethod() const;

private:
    // run()'s steps, on the state of one run (Attempt, in Runner.cpp).
    struct Attempt;
    void resolvePlan(const RunPlan& plan, const Driver& driver, Attempt& a);
    void openSession(const RunPlan& plan, const Driver& driver, Attempt& a);
    bool startMeasuring(const RunPlan& plan, RunObserver& observer, Attempt& a);
    bool measureScenario(const RunPlan& plan, const Scenario& scenario, RunObserver& observer, Attempt& a);
    Sample measureOnce(const RunPlan& plan, const Scenario& scenario, ContentCheckKind check, int rep,
                       RunObserver& observer, Attempt& a, bool& scenarioFailed, bool& contentFailed);
    void keepForNextRun(Attempt& a);  // at the end of run(): a healthy session kept, or its wire remembered

    // The hard deadline of a cancel for a connection with no relay or counter in front of it.
    void startSocketDeadline();  // from cancel()
    void endSocketDeadline();    // when run() returns: the deadline's thread stops and is joined

    // What run() makes of a plan's settings before it connects, kept for the next run: a sessions run
    // asks for the same plan at every statement, and resolving it again cost a tenth of the client's
    // time a statement. Only touched by the thread that calls run().
    struct ResolvedPlan {
        // The plan's inputs
        ConnectionSpec connection;
        ParameterValues given;
        bool verifyContent = false;
        bool wireTap = false;
        LinkProfile link;
        bool estimateCompression = false;
        // and what they resolve to.
        bool verify = false;
        ParameterValues resolved;
        WireSettings wire;
        std::string key;

        bool sameInputs(const RunPlan& plan) const;
    };
    std::optional<ResolvedPlan> m_lastResolved;

    CancelToken m_cancel;
    bool m_keepSession = false;
    std::unique_ptr<Session> m_kept;               // only touched by the thread that calls run()
    std::unique_ptr<WireTap> m_keptTap;            // the relay the kept session talks through
    std::unique_ptr<SocketCounter> m_keptCounter;  // or the in-process counter of its socket
    WireCounters m_keptConnectWire;
    // What the last connection carried in all when a failed or cancelled run let it go (it is not kept):
    // keptSessionWire() answers with it until another connection is made, so that a sessions run's
    // connection totals hold the statement that ended it (hostile round 5h W7).
    std::optional<WireCounters> m_endedWire;
    const char* m_endedWireMethod = "";
    std::string m_keptKey;
    std::string m_keptSessionLabel;  // the label the kept session was connected with (the tap's)
    Nanos m_keptConnectTime{0};
    std::mutex m_mutex;
    Session* m_session = nullptr;        // guarded by m_mutex, for cancel()
    WireTap* m_tap = nullptr;            // guarded by m_mutex: the relay of the connect or run under way, for cancel()
    SocketCounter* m_counter = nullptr;  // guarded by m_mutex: or the in-process counter, for cancel()
    std::vector<ProcessSocket> m_keptSockets;  // the sockets the kept session's connect opened

    // Guarded by m_deadlineMutex, not m_mutex: cancel() holds m_mutex while the engine's cancel
    // request may wait on a server that never answers it, and the deadline must cut that too.
    std::mutex m_deadlineMutex;
    std::condition_variable m_runEnded;
    bool m_running = false;                                      // a run() is under way
    bool m_direct = false;                                       // it talks to the server with no relay or counter
    std::vector<ProcessSocket> m_socketsBefore;                  // the process's sockets before its connect
    std::optional<std::vector<ProcessSocket>> m_sessionSockets;  // those the connect opened, once connected
    std::thread m_deadline;
};

}  // namespace blobbench
