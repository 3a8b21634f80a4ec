#include "engine/run/SessionRunner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

#include "engine/core/ClientPause.h"
#include "engine/drivers/Registry.h"

namespace blobbench {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t wireOf(const Sample& sample) {
    std::uint64_t bytes = 0;
    for (const char* phase : {"prepare", "execute", "fetch", "until failure"}) {
        if (auto it = sample.tapPhases.find(phase); it != sample.tapPhases.end()) {
            bytes += it->second.sendBytes + it->second.recvBytes;
        }
    }
    return bytes;
}

std::uint64_t nanosBetween(Clock::time_point from, Clock::time_point to) {
    return to > from ? static_cast<std::uint64_t>(std::chrono::nanoseconds(to - from).count()) : 0;
}

// The open loop's slot k, in ns after the schedule's start: k / rate seconds, rounded once. Slots
// k * round(1e9 / rate) drifted: at 3/s slot 3 fell at 0.999999999 s, inside a 1 s run, so a 1 s run
// had 4 slots due and one "missed" (hostile round 5i L11). At most about 127 years.
std::int64_t slotNs(std::uint64_t k, double rate) {
    const long double ns = static_cast<long double>(k) * 1e9L / static_cast<long double>(rate);
    return ns >= 4e18L ? static_cast<std::int64_t>(4e18) : static_cast<std::int64_t>(std::llround(ns));
}

// The first slot whose time is at or after `atNs`.
std::uint64_t firstSlotFrom(std::int64_t atNs, double rate) {
    if (atNs <= 0) {
        return 0;
    }
    const long double guess = std::ceil(static_cast<long double>(atNs) * static_cast<long double>(rate) / 1e9L);
    std::uint64_t k =
        guess >= 1.8e19L ? std::numeric_limits<std::uint64_t>::max() / 2 : static_cast<std::uint64_t>(guess);
    while (k > 0 && slotNs(k - 1, rate) >= atNs) {
        --k;
    }
    while (slotNs(k, rate) < atNs && slotNs(k, rate) < static_cast<std::int64_t>(4e18)) {
        ++k;
    }
    return k;
}

}  // namespace

void StatementTally::merge(const StatementTally& other) {
    statements += other.statements;
    failed += other.failed;
    cancelled += other.cancelled;
    rows += other.rows;
    contentBytes += other.contentBytes;
    wireBytes += other.wireBytes;
    wireUncounted += other.wireUncounted;
    latency.merge(other.latency);
    scheduleLag.merge(other.scheduleLag);
    late += other.late;
    disturbed += other.disturbed;
}

// What the session threads share: the start gate, the schedule and the stop flag.
struct SessionRunner::Schedule {
    std::mutex mutex;
    std::condition_variable changed;
    int arrived = 0;                     // guarded: sessions connected or failed to
    int connected = 0;                   // guarded: of those, the ones connected
    bool go = false;                     // guarded: every session may start
    std::atomic<bool> stop{false};       // cancelled: no session starts another statement
    Clock::time_point start;             // set before go: the schedule's origin
    Clock::time_point measureFrom;       // start + ramp-up
    Clock::time_point end;               // closed loop with a duration and open loop: no statement starts after it
    std::chrono::nanoseconds period{0};  // open loop: between two slots
    std::atomic<std::uint64_t> nextSlot{0};

    void arrive(bool isConnected) {
        std::lock_guard lock(mutex);
        ++arrived;
        connected += isConnected ? 1 : 0;
        changed.notify_all();
    }
    bool waitForGo() {
        std::unique_lock lock(mutex);
        changed.wait(lock, [this] { return go || stop.load(); });
        return !stop.load();
    }
    // False when stopped before `when`.
    bool sleepUntil(Clock::time_point when) {
        std::unique_lock lock(mutex);
        return !changed.wait_until(lock, when, [this] { return stop.load(); });
    }
    void halt() {
        std::lock_guard lock(mutex);
        if (!stop) {
            haltedAt = Clock::now();
        }
        stop = true;
        changed.notify_all();
    }
    std::optional<Clock::time_point> haltedAt;  // guarded: when the run was stopped (cancel, a failed observer)

    // Where the measured schedule ended: the planned end, or the stop when the run was stopped
    // before it (an open loop's slots after the stop never came due). Before the start: the start.
    Clock::time_point scheduleEnd() {
        std::lock_guard lock(mutex);
        return haltedAt ? std::clamp(*haltedAt, measureFrom, std::max(end, measureFrom)) : end;
    }
};

namespace {

// One session's statement: whether it counts, and for the open loop its slot and its lag.
struct Statement {
    bool counted = false;
    std::optional<Clock::time_point> slot;
    std::uint64_t lagNs = 0;
};

// Turns one session's Runner callbacks into its tallies.
class SessionTallies final : public RunObserver {
public:
    SessionTallies(int index, SessionsObserver& outer, SessionResult& result, std::chrono::nanoseconds period,
                   std::string connection)
        : m_index(index), m_outer(outer), m_result(result), m_period(period), m_connection(std::move(connection)) {}

    Statement current;

    // The Runner checks at every run(), that is every statement of a kept session: once is enough.
    void checkSession(Session& session) override {
        if (!m_result.connected) {
            m_outer.checkSession(m_index, session);
        }
    }
    void wireTapReady(const std::string& relay, const LinkProfile& link) override {
        if (!m_result.connected) {
            m_outer.wireTapReady(m_index, relay, link);
        }
    }
    void connected(const SessionInfo& info) override {
        if (!m_result.connected) {
            m_result.info = info;
            m_outer.connected(m_index, info);
        }
    }
    void sampleReady(const Sample& sample) override {
        const auto now = Clock::now();
        m_outer.sampleReady(m_index, sample, current.counted);
        if (sample.status == SampleStatus::Failed && m_result.firstSampleError.empty()) {
            // Named as a run of one session names it (hostile round 5i L16: "session 1: database is locked").
            // A driver's error may start with the connection already (PostgreSQL, MariaDB): named once
            // (hostile round 5j E1).
            std::string_view error = sample.error;
            if (error.starts_with(m_connection + ": ")) {
                error.remove_prefix(m_connection.size() + 2);
            }
            m_result.firstSampleError = m_connection + ": " + sample.scenarioTitle + ": " + std::string(error);
        }
        // A cancelled statement is kept as a failed one is: its time, rows and bytes up to the cancel
        // (partial) are what was measured, and a Stop or a signal must not drop them.
        if (sample.status != SampleStatus::Complete && m_result.failures.size() < SessionResult::kMaxKeptFailures) {
            m_result.failures.push_back(sample);
        }
        if (!current.counted) {
            ++m_result.excluded;
            return;
        }
        StatementTally& tally = m_result.byScenario[sample.scenarioId];
        if (sample.status != SampleStatus::Complete) {
            ++(sample.status == SampleStatus::Cancelled ? tally.cancelled : tally.failed);
            m_outer.statementEnded(m_index, StatementEnd{false, std::chrono::system_clock::now(), 0, std::nullopt});
            return;
        }
        ++tally.statements;
        tally.rows += sample.rows;
        tally.contentBytes += sample.contentBytes;
        if (sample.tap.available) {
            tally.wireBytes += wireOf(sample);
        } else {
            ++tally.wireUncounted;
        }
        // A pause of the client itself in the statement (the Runner says so), or, in the open loop,
        // between the statement's slot and its start: its latency holds the client's own time.
        const std::int64_t resumed = clientpause::resumedAt();
        if (!sample.disturbed.empty() ||
            (current.slot && resumed > 0 &&
             resumed >
                 std::chrono::duration_cast<std::chrono::nanoseconds>(current.slot->time_since_epoch()).count())) {
            ++tally.disturbed;
        }
        StatementEnd ended{true, std::chrono::system_clock::now(), 0, std::nullopt};
        if (current.slot) {
            ended.latencyNs = nanosBetween(*current.slot, now);
            ended.lagNs = current.lagNs;
            tally.scheduleLag.record(current.lagNs);
            tally.late += current.lagNs > static_cast<std::uint64_t>(m_period.count()) ? 1 : 0;
        } else {
            const auto spent = sample.phases.prepare + sample.phases.elapsed();
            ended.latencyNs = static_cast<std::uint64_t>(std::max<std::int64_t>(0, spent.count()));
        }
        tally.latency.record(ended.latencyNs);
        m_outer.statementEnded(m_index, ended);
    }

private:
    int m_index;
    SessionsObserver& m_outer;
    SessionResult& m_result;
    std::chrono::nanoseconds m_period;
    std::string m_connection;  // its label, passwords masked
};

// One session, on its own thread: connect, wait for the others, then its statements.
class SessionLoop {
public:
    SessionLoop(const SessionsPlan& plan, int index, Runner& runner, SessionRunner::Schedule& shared,
                SessionsObserver& observer, SessionResult& result)
        : m_plan(plan),
          m_runner(runner),
          m_shared(shared),
          m_result(result),
          m_tallies(index, observer, result, shared.period, plan.plan.connection.label()) {
        for (const Scenario& scenario : plan.plan.scenarios) {
            RunPlan one = plan.plan;
            one.scenarios = {scenario};
            one.repetitions = 1;
            one.warmups = 0;
            m_single.push_back(std::move(one));
        }
    }

    Clock::time_point lastEnd;
    bool endedEarly = false;  // its connection was lost (or the statement could not run): it stopped taking slots

    void run() {
        m_runner.setKeepSession(true);
        if (connect() && m_shared.waitForGo()) {
            lastEnd = Clock::now();
            if (m_plan.rate) {
                openLoop();
            } else if (m_plan.duration) {
                closedLoop();
            } else {
                repetitions();
            }
        }
        m_runner.setKeepSession(false);  // closes the connection, on the thread that made it
    }

private:
    bool connect() {
        RunPlan none = m_plan.plan;
        none.scenarios.clear();
        const RunOutcome outcome = m_runner.run(none, m_tallies);
        if (!outcome.ok) {
            fail(outcome);
            m_shared.arrive(false);
            return false;
        }
        m_result.connected = true;
        keepWire();
        m_shared.arrive(true);
        return true;
    }
    void fail(const RunOutcome& outcome) {
        if (m_result.ok) {
            m_result.ok = false;
            m_result.errorKind = outcome.errorKind;
            m_result.error = outcome.error;
        }
    }
    void keepWire() {
        if (auto wire = m_runner.keptSessionWire()) {
            m_result.connectionWire = wire;
            m_result.wireMethod = m_runner.keptSessionWireMethod();
        }
    }
    // False when the session cannot go on (it lost its connection, or the run was cancelled).
    bool statement(std::size_t scenario) {
        const RunOutcome outcome = m_runner.run(m_single[scenario], m_tallies);
        lastEnd = Clock::now();
        if (outcome.ok || outcome.errorKind == ErrorKind::Sql || outcome.errorKind == ErrorKind::Data) {
            keepWire();
            if (!outcome.ok && m_result.firstSampleError.empty()) {
                m_result.firstSampleError = outcome.error;
            }
            return true;
        }
        keepWire();  // the connection's totals up to the end, the statement that ended it included
        fail(outcome);
        endedEarly = true;
        return false;
    }
    bool stopping() const { return m_shared.stop.load(); }

    void repetitions() {
        const int reps = std::max(1, m_plan.plan.repetitions);
        for (std::size_t s = 0; s < m_single.size(); ++s) {
            for (int rep = -m_plan.plan.warmups; rep < reps; ++rep) {
                if (stopping()) {
                    return;
                }
                m_tallies.current = Statement{rep >= 0 && Clock::now() >= m_shared.measureFrom, {}, 0};
                if (!statement(s)) {
                    return;
                }
            }
        }
    }
    void closedLoop() {
        for (std::size_t k = 0; !stopping(); ++k) {
            const auto now = Clock::now();
            if (now >= m_shared.end) {
                return;
            }
            m_tallies.current = Statement{now >= m_shared.measureFrom, {}, 0};
            if (!statement(k % m_single.size())) {
                return;
            }
        }
    }
    void openLoop() {
        while (!stopping() && Clock::now() < m_shared.end) {
            const std::uint64_t k = m_shared.nextSlot.fetch_add(1);
            const auto slot = m_shared.start + std::chrono::nanoseconds(slotNs(k, *m_plan.rate));
            if (slot >= m_shared.end || !m_shared.sleepUntil(slot)) {
                return;
            }
            const auto now = Clock::now();
            if (now >= m_shared.end) {
                return;  // its slot was due, but its time is up: a missed slot
            }
            m_tallies.current = Statement{slot >= m_shared.measureFrom, slot, nanosBetween(slot, now)};
            if (!statement(k % m_single.size())) {
                return;
            }
        }
    }

    const SessionsPlan& m_plan;
    Runner& m_runner;
    SessionRunner::Schedule& m_shared;
    SessionResult& m_result;
    SessionTallies m_tallies;
    std::vector<RunPlan> m_single;  // one plan per scenario: one statement each
};

void refuseBadPlan(const SessionsPlan& plan) {
    if (plan.sessions < 1) {
        throw Error(ErrorKind::Usage, "sessions: " + std::to_string(plan.sessions) + " is not a number >= 1");
    }
    if (plan.plan.scenarios.empty()) {
        throw Error(ErrorKind::Usage, "sessions: the plan has no scenario to run");
    }
    if (ParameterValues given = plan.plan.parameters; takeVerifyContent(given, plan.plan.verifyContent)) {
        // The Runner would build the expectation again for every statement of a session.
        throw Error(ErrorKind::Usage,
                    "sessions: verify_content is not available with many sessions (not in this version)");
    }
    if (plan.rate && (!plan.duration || !(*plan.rate > 0) || !std::isfinite(*plan.rate))) {
        throw Error(ErrorKind::Usage, "rate: an open loop needs a rate > 0 and a duration");
    }
}

// Slots of the open loop whose time falls in [from, to) after the start.
std::uint64_t slotsIn(std::chrono::nanoseconds from, std::chrono::nanoseconds to, double rate) {
    const std::uint64_t a = firstSlotFrom(from.count(), rate);
    const std::uint64_t b = firstSlotFrom(to.count(), rate);
    return b > a ? b - a : 0;
}

// The open loop's slots and the run's one line, once every session has ended.
// `scheduled`: from the start of the measured part to the schedule's end (the planned one, or the stop).
void finish(SessionsOutcome& outcome, const SessionsPlan& plan, std::chrono::nanoseconds scheduled) {
    if (plan.rate) {
        const std::chrono::nanoseconds from = plan.rampUp;
        outcome.slotsDue = slotsIn(from, from + scheduled, *plan.rate);
        std::uint64_t started = 0;
        for (const SessionResult& s : outcome.sessions) {
            for (const auto& [id, tally] : s.byScenario) {
                started += tally.statements + tally.failed + tally.cancelled;
            }
        }
        outcome.slotsMissed = outcome.slotsDue > started ? outcome.slotsDue - started : 0;
    }
    for (const SessionResult& s : outcome.sessions) {
        if (!s.ok && outcome.ok) {
            outcome.ok = false;
            outcome.errorKind = s.errorKind;
            outcome.error = "session " + std::to_string(s.index) + ": " + s.error;
        }
    }
    if (outcome.ok) {
        for (const SessionResult& s : outcome.sessions) {
            if (!s.firstSampleError.empty()) {
                outcome.ok = false;
                outcome.errorKind = ErrorKind::Sql;
                outcome.error = "session " + std::to_string(s.index) + ": " + s.firstSampleError;
                break;
            }
        }
    }
}

}  // namespace

SessionRunner::SessionRunner() = default;
SessionRunner::~SessionRunner() = default;

void SessionRunner::cancel() {
    std::lock_guard lock(m_mutex);
    m_cancelled = true;
    if (m_shared) {
        m_shared->halt();
    }
    // At once, not one after the other: an engine's cancel request may wait on its server.
    std::vector<std::thread> cancels;
    for (const auto& runner : m_runners) {
        cancels.emplace_back([r = runner.get()] { r->cancel(); });
    }
    for (auto& t : cancels) {
        t.join();
    }
}

namespace {

// The plan the sessions run: with one SharedLink in every session's RunPlan when they share a link
// that is in effect; `outcome` says which link was in effect.
SessionsPlan withLink(const SessionsPlan& asked, SessionsOutcome& outcome) {
    SessionsPlan plan = asked;
    const WireSettings wire =
        resolveWireSettings(asked.plan.wireTap, asked.plan.link, asked.plan.estimateCompression, asked.plan.parameters);
    if (!wire.tap || !wire.link.emulating()) {
        outcome.link = asked.sharedLink ? "none (a shared link was asked for, but no link is emulated)" : "";
        return plan;
    }
    // A Unix-domain socket (or an embedded engine) has no TCP endpoint for a relay: no link is emulated
    // there, shared or not (hostile round 5j S16: "one link shared by all 2 sessions" at 633 MB/s).
    try {
        if (!driverById(asked.plan.connection.engine).endpoint(asked.plan.connection)) {
            outcome.link = "none (no TCP endpoint to relay: the link is not emulated)";
            return plan;
        }
    } catch (const Error&) {
        // An unknown engine or a bad target: the sessions' connects say so.
    }
    const std::string profile = wire.link.describe();
    const bool limited = wire.link.bandwidthUp != 0 || wire.link.bandwidthDown != 0;
    if (asked.sharedLink && limited && asked.sessions > 1) {
        plan.plan.sharedLink = std::make_shared<SharedLink>();
        outcome.linkShared = true;
        outcome.link = profile + ", one link shared by all " + std::to_string(asked.sessions) +
                       " sessions (their bytes queue for its bandwidth, first come first served)";
        return plan;
    }
    outcome.link = profile + ", each session its own link";
    if (asked.sharedLink) {
        outcome.link += asked.sessions > 1 ? " (shared link not in effect: it has no bandwidth limit, and latency is "
                                             "each connection's own)"
                                           : " (shared link not in effect: one session)";
    }
    return plan;
}

}  // namespace

SessionsOutcome SessionRunner::run(const SessionsPlan& asked, SessionsObserver& observer) {
    refuseBadPlan(asked);
    SessionsOutcome outcome;
    const SessionsPlan plan = withLink(asked, outcome);
    const clientpause::Watch pauses;  // one for the whole run: the Runners' own come and go per statement
    outcome.scenarios = plan.plan.scenarios;
    outcome.openLoop = plan.rate.has_value();
    outcome.rate = plan.rate.value_or(0);
    outcome.rampUp = plan.rampUp;
    outcome.sessions.resize(static_cast<std::size_t>(plan.sessions));
    auto shared = std::make_shared<Schedule>();
    if (plan.rate) {
        // At most about 127 years: a rate of 1e-10/s overflowed the nanoseconds (llround), the period
        // became 1 ns, and the run went as fast as it could with two billion slots "missed".
        const double periodNs = std::min(1e9 / *plan.rate, 4e18);
        shared->period = std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(periodNs)));
        shared->period = std::max(shared->period, std::chrono::nanoseconds(1));
    }
    {
        std::lock_guard lock(m_mutex);
        m_shared = shared;
        for (int i = 0; i < plan.sessions; ++i) {
            m_runners.push_back(std::make_unique<Runner>());
        }
        if (m_cancelled) {
            shared->stop = true;
        }
    }
    std::vector<std::unique_ptr<SessionLoop>> loops;
    std::vector<std::thread> threads;
    for (int i = 0; i < plan.sessions; ++i) {
        SessionResult& result = outcome.sessions[static_cast<std::size_t>(i)];
        result.index = i + 1;
        loops.push_back(std::make_unique<SessionLoop>(plan, i + 1, *m_runners[static_cast<std::size_t>(i)], *shared,
                                                      observer, result));
        threads.emplace_back([loop = loops.back().get()] { loop->run(); });
    }
    int connected = 0;
    {
        std::unique_lock lock(shared->mutex);
        shared->changed.wait(lock, [&] { return shared->arrived == plan.sessions || shared->stop.load(); });
        connected = shared->connected;
    }
    try {
        observer.allConnected(connected, plan.sessions);
    } catch (...) {
        // The observer's failure ends the run; the session threads must not outlive it (a joinable
        // std::thread destroyed by the unwinding terminates the process).
        shared->halt();
        for (auto& t : threads) {
            t.join();
        }
        std::lock_guard lock(m_mutex);
        m_runners.clear();
        m_shared.reset();
        throw;
    }
    if (connected < plan.sessions) {
        shared->halt();  // fewer sessions than asked would measure another load: nothing starts
    }
    const clientpause::Pauses pausedBefore = clientpause::pausesSoFar();
    {
        std::lock_guard lock(shared->mutex);
        shared->start = Clock::now();
        shared->measureFrom = shared->start + plan.rampUp;
        shared->end = shared->measureFrom + plan.duration.value_or(std::chrono::milliseconds(0));
        shared->go = true;
        shared->changed.notify_all();
    }
    for (auto& t : threads) {
        t.join();
    }
    Clock::time_point last = shared->measureFrom;
    for (const auto& loop : loops) {
        last = std::max(last, loop->lastEnd);
    }
    // A closed loop measures until its last statement ended. An open loop's rates are of its schedule:
    // it runs until the schedule's end (or the stop), whose last period holds no slot; ending at the
    // last statement made every rate R*D/(R*D-1) too high (3 slots in 3 s at 1/s read 1.5/s).
    Clock::time_point scheduleEnd = shared->scheduleEnd();
    // Every session lost its connection before the end (a killed server, terminated backends): no
    // slot came due for anyone after the last of them stopped. Counting to the planned end made a
    // run that ended at 1.45 s "6.00 s measured, 60 slots due, 45 missed" (hostile round 5i L10).
    if (connected == plan.sessions &&
        std::all_of(loops.begin(), loops.end(), [](const auto& loop) { return loop->endedEarly; })) {
        Clock::time_point stopped = shared->measureFrom;
        for (const auto& loop : loops) {
            stopped = std::max(stopped, loop->lastEnd);
        }
        scheduleEnd = std::min(scheduleEnd, stopped);
    }
    if (plan.rate) {
        last = std::max(last, scheduleEnd);
    }
    outcome.window = last - shared->measureFrom;
    const clientpause::Pauses pausedAfter = clientpause::pausesSoFar();
    outcome.clientPauses = pausedAfter.count - pausedBefore.count;
    outcome.clientPaused = std::chrono::nanoseconds(pausedAfter.totalNs - pausedBefore.totalNs);
    {
        std::lock_guard lock(m_mutex);
        m_runners.clear();
        m_shared.reset();
        for (SessionResult& s : outcome.sessions) {
            if (m_cancelled && s.ok) {  // it saw the stop between two statements
                s.ok = false;
                s.errorKind = ErrorKind::Cancelled;
                s.error = plan.plan.connection.label() + ": cancelled";
            }
        }
    }
    finish(outcome, plan, std::max(scheduleEnd - shared->measureFrom, Clock::duration::zero()));
    return outcome;
}

}  // namespace blobbench
