#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/run/AggregateLog.h"
#include "engine/run/LatencyHistogram.h"
#include "engine/run/Runner.h"

namespace blobbench {

// Many sessions at once (issue #25): each session is its own connection, made by its own Runner on
// its own thread, with its own wire counting (its own relay, or its own in-process counter: the
// counter adopts only the connects of the thread it runs on, so a session never counts another's
// socket).
struct SessionsPlan {
    RunPlan plan;  // the connection, tunables, wire and scenarios every session uses; its
                   // repetitions and warm-ups are each session's when neither duration nor rate is set
    int sessions = 1;
    // Closed loop: each session runs the scenarios in turn, one statement after the other, until
    // the duration (after the ramp-up) is over. Unset: each session runs the plan's repetitions.
    std::optional<std::chrono::milliseconds> duration;
    // Open loop (needs a duration): statements are due every 1/rate s across all sessions, in the
    // scenarios' order; a free session takes the next slot and waits for its time. Latency runs from
    // the slot's time, so a stalled server shows in it (no coordinated omission).
    std::optional<double> rate;
    // Statements that start in the first rampUp after every session connected are run, not counted.
    std::chrono::milliseconds rampUp{0};
    // The plan's emulated link is one link all sessions share (SharedLink, LinkShaper.h) instead of a
    // link per session; in effect only with a bandwidth limit (latency is each connection's own anyway).
    bool sharedLink = false;
};

// What one session counted for one scenario (statements after the ramp-up only).
struct StatementTally {
    std::uint64_t statements = 0;  // complete ones: rows, bytes and latencies are theirs
    std::uint64_t failed = 0;      // SQL errors, content mismatches, a lost connection
    std::uint64_t cancelled = 0;
    std::uint64_t rows = 0;
    std::uint64_t contentBytes = 0;
    std::uint64_t wireBytes = 0;      // both directions, prepare + execute + fetch, as counted
    std::uint64_t wireUncounted = 0;  // complete statements whose wire was not counted
    bool wireCounted() const { return statements > 0 && wireUncounted == 0; }
    LatencyHistogram latency;      // closed loop: prepare + execute + fetch; open loop: slot to end
    LatencyHistogram scheduleLag;  // open loop: slot to start
    std::uint64_t late = 0;        // open loop: started more than one slot interval after its slot
    // Statements whose latency includes a pause of the client itself (stopped, suspended: ClientPause.h),
    // which is the client's time, not the server's or the link's.
    std::uint64_t disturbed = 0;
    void merge(const StatementTally& other);
};

struct SessionResult {
    int index = 0;
    bool connected = false;
    bool ok = true;  // false: the session ended on a failure (its first one is `error`)
    ErrorKind errorKind = ErrorKind::Internal;
    std::string error;
    SessionInfo info;
    std::map<std::string, StatementTally> byScenario;  // scenario id -> its statements
    std::uint64_t excluded = 0;                        // statements of the ramp-up and warm-ups
    // The connection's own totals (connect, checks, every statement), from its relay or counter,
    // at its last statement that left the session open; nullopt when uncounted.
    std::optional<WireCounters> connectionWire;
    std::string wireMethod;        // "relay", "in-process" or empty
    std::vector<Sample> failures;  // its failed and cancelled samples (partial), the first kMaxKeptFailures
    std::string firstSampleError;  // the first failed statement's error
    static constexpr std::size_t kMaxKeptFailures = 20;
};

struct SessionsOutcome {
    std::vector<SessionResult> sessions;
    std::vector<Scenario> scenarios;  // in the plan's order
    bool openLoop = false;
    double rate = 0;
    std::chrono::nanoseconds rampUp{0};
    // Measured: from the end of the ramp-up to the last statement's end; an open loop's reaches at least
    // its schedule's end (or the stop), so that its rates are of the schedule.
    std::chrono::nanoseconds window{0};
    std::uint64_t slotsDue = 0;     // open loop: slots due in the measured window
    std::uint64_t slotsMissed = 0;  // of those, the ones no session had started when the time was up
    // The emulated link as it was in effect: "" (none), "<profile>, each session its own link",
    // "<profile>, one link shared by all N sessions", with why a shared link asked for was not in effect.
    std::string link;
    bool linkShared = false;  // the sessions shared one link
    // The client itself was stopped or suspended during the run (ClientPause.h): how often, how long.
    std::uint64_t clientPauses = 0;
    std::chrono::nanoseconds clientPaused{0};
    bool ok = true;
    ErrorKind errorKind = ErrorKind::Internal;
    std::string error;  // the first session's failure: "session 3: <connection>: ..."
};

// Called from the session threads (each session's calls in order, different sessions' at once):
// implementations must be thread-safe. allConnected() is called on the thread of run().
class SessionsObserver {
public:
    virtual ~SessionsObserver() = default;
    virtual void checkSession(int /*session*/, Session& /*session*/) {}
    virtual void connected(int /*session*/, const SessionInfo& /*info*/) {}
    // The session's own relay, when its wire is relayed (each session has one, with its own link).
    virtual void wireTapReady(int /*session*/, const std::string& /*relay*/, const LinkProfile& /*link*/) {}
    // Every session has connected (or failed to); nothing measured has started. `connected` of
    // `sessions` hold a connection to the server now.
    virtual void allConnected(int /*connected*/, int /*sessions*/) {}
    virtual void sampleReady(int /*session*/, const Sample& /*sample*/, bool /*counted*/) {}
    // After sampleReady, for each statement that counts (after the ramp-up), with the latency and
    // lag the run's histograms record: for logs over time (AggregateLog).
    virtual void statementEnded(int /*session*/, const StatementEnd& /*statement*/) {}
};

class SessionRunner {
public:
    SessionRunner();
    ~SessionRunner();
    // Blocks until every session has ended. Every session connects (and passes the observer's
    // check) before any statement starts; when one cannot, none starts and the run fails with its
    // error. Bad plans (no sessions, a rate without a duration):
    // Error(Usage).
    SessionsOutcome run(const SessionsPlan& plan, SessionsObserver& observer);
    // From any thread: every session's Runner is cancelled at once (each ends within its Runner's
    // cancel grace); what was measured is kept.
    void cancel();

    struct Schedule;  // what the session threads share (the start gate, the slots, the stop); in the .cpp

private:
    std::mutex m_mutex;
    std::vector<std::unique_ptr<Runner>> m_runners;  // guarded by m_mutex while run() sets them up
    std::shared_ptr<Schedule> m_shared;              // guarded by m_mutex
    bool m_cancelled = false;                        // guarded by m_mutex
};

}  // namespace blobbench
