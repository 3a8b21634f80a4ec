#include "engine/run/Runner.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>

#include "engine/core/ClientPause.h"
#include "engine/core/LoadParameters.h"
#include "engine/drivers/Registry.h"
#include "engine/run/MeasuringSink.h"
#include "engine/wire/SocketCounter.h"
#include "engine/wire/WireParameters.h"
#include "engine/wire/WireTap.h"

namespace blobbench {
namespace {

using Clock = std::chrono::steady_clock;

// After cancel(), how long the tap lets a connection stay silent before it cuts it, and when it
// cuts every connection whatever still flows (a server that ignores the cancel).
constexpr auto kCancelGrace = std::chrono::seconds(2);

// The Runner's own clock at the driver's phase marks, for a statement that fails before its
// driver reports its times: the phase under way ends at the failure.
struct PhaseClock {
    Clock::time_point start;
    std::optional<Clock::time_point> prepared, executed, fetched;

    void mark(QueryPhase phase) {
        const auto now = Clock::now();
        (phase == QueryPhase::Prepared ? prepared : phase == QueryPhase::Executed ? executed : fetched) = now;
    }
    void keepPartial(PhaseTimes& phases) const {
        const auto end = fetched.value_or(Clock::now());
        phases.prepare = prepared.value_or(end) - start;
        if (prepared) {
            phases.execute = executed.value_or(end) - *prepared;
            phases.fetch = executed ? end - *executed : Nanos{0};
        }
    }
};

Sample sampleFor(const RunPlan& plan, const Scenario& scenario, const SessionInfo& info,
                 const ParameterValues& resolved, int repetition, const WireSettings& wire, bool tapped) {
    Sample s;
    s.runId = plan.runId;
    s.scenarioId = scenario.id;
    s.scenarioTitle = scenario.title;
    s.sql = scenario.sql;
    s.repetition = repetition;
    s.startedAt = isoNow();
    s.engine = plan.connection.engine;
    s.connection = plan.connection.label();
    s.serverVersion = info.serverVersion;
    s.clientVersion = info.clientVersion;
    s.negotiated = info.negotiated;
    s.parameters = resolved;
    s.effects = info.effects;
    if (info.embedded) {
        s.tap = WireStats::unavailable("not applicable (embedded)");
    } else if (wire.tap && !tapped) {
        s.tap = WireStats::unavailable("not applicable (no TCP connection to relay)");
    } else if (!wire.tap) {
        s.tap = WireStats::unavailable("wire tap not enabled");
    }
    if (tapped) {
        s.negotiated["link"] = wire.link.describe();
    }
    return s;
}

std::string milliseconds(Nanos spent) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f ms", static_cast<double>(spent.count()) / 1e6);
    return text;
}

// verify_content=on: the sample's content check, and true when a value differs from the data set's
// (then the sample is failed and its error names the row). The hashing time leaves the fetch phase.
bool judgeContent(Sample& sample, const Scenario& scenario, ContentCheckKind check, const ContentExpectation& expected,
                  const ContentVerdict* verdict, const std::optional<std::string>& scalar) {
    const bool complete = sample.status == SampleStatus::Complete;
    if (!expected.notInEffect.empty()) {
        sample.contentCheck = "not in effect: " + expected.notInEffect;
        return false;
    }
    if (check == ContentCheckKind::None) {
        sample.contentCheck =
            scenario.kind == ScenarioKind::Scalar && expected.maxLengthSql.empty()
                ? "not verified: the data set holds values that are not text (engines count their characters "
                  "each their own way)"
            : scenario.fetch != FetchMode::Content ? "not verified: BLOB ids only (the scenario asks for no content)"
            : !scenario.setupSql.empty()           ? "not verified: the scenario has setup SQL (it may change the rows)"
                                                   : "not verified: not a statement of the reference suite (its values "
                                                     "need not be whole rows of BLOB_TEST)";
        return false;
    }
    if (check == ContentCheckKind::MaxLength) {
        const std::string want = std::to_string(expected.maxLength);
        if (!complete) {
            sample.contentCheck = "not verified: the statement did not finish";
            return false;
        }
        if (scalar && *scalar == want) {
            sample.contentCheck = "verified: the max char length equals the data set's (" + want + ")";
            return false;
        }
        sample.contentCheck = "differs: max char length " + scalar.value_or("NULL") + ", the data set's " + want;
        sample.status = SampleStatus::Failed;
        sample.error = "content differs from the prepared data set: max char length expected " + want + ", got " +
                       scalar.value_or("NULL");
        return true;
    }
    sample.phases.fetch -= std::min(sample.phases.fetch, verdict->spent);
    const std::string cost = " (" + milliseconds(verdict->spent) + " of hashing taken out of the fetch time)";
    if (verdict->mismatches == 0) {
        sample.contentCheck = std::string(complete ? "verified: " : "verified until the failure: ") +
                              std::to_string(verdict->values) + " values equal the data set's" + cost;
        return false;
    }
    const std::string more =
        verdict->mismatches > 1 ? " (" + std::to_string(verdict->mismatches - 1) + " more rows differ)" : "";
    sample.contentCheck = "differs: " + std::to_string(verdict->mismatches) + " rows of " +
                          std::to_string(sample.rows) + ", first " + verdict->firstMismatch + cost;
    if (!complete) {
        return false;  // already failed; its own error is the one to report
    }
    sample.status = SampleStatus::Failed;
    sample.error = "content differs from the prepared data set: " + verdict->firstMismatch + more;
    return true;
}

// What a session depends on: the connection, the tunables applied at connect time, and the link.
// A client library's error names the address it connected to: through the relay, the relay's port
// ("connection to server at \"127.0.0.1\", port 39935 failed"), which the user never gave (hostile round
// 5j S20). The server's port is named instead.
Error withServerPort(const Error& e, std::uint16_t relayPort, const std::string& upstream) {
    const std::string relay = std::to_string(relayPort);
    const std::string server = upstream.substr(upstream.rfind(':') + 1);
    std::string message = e.what();
    for (const std::string& before : {"port " + relay, ":" + relay, "/" + relay}) {
        const std::string after = before.substr(0, before.size() - relay.size()) + server;
        for (std::size_t at = message.find(before); at != std::string::npos;
             at = message.find(before, at + after.size())) {
            const std::size_t end = at + before.size();
            if (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end])) != 0) {
                continue;  // another number that starts with these digits
            }
            message.replace(at, before.size(), after);
        }
    }
    return message == e.what() ? e : Error(e.kind(), message);
}

std::string sessionKey(const RunPlan& plan, const Driver& driver, const ParameterValues& resolved,
                       const WireSettings& wire) {
    const ConnectionSpec& c = plan.connection;
    std::string key = c.engine + '\n' + c.target + '\n' + c.user + '\n' + c.password + '\n' + c.role + '\n' +
                      c.charset + '\n' + c.clientLibrary + '\n' + (c.readOnly ? "ro" : "rw");
    key += wire.tap ? "\ntap " + wire.link.describe() + (wire.estimateCompression ? " estimating" : "") : "\nno tap";
    key += wire.inProcess ? " in-process" : "";
    for (const auto& spec : driver.parameters()) {
        auto it = resolved.find(spec.id);
        if (!spec.perStatement && it != resolved.end()) {
            key += '\n' + spec.id + '=' + it->second;
        }
    }
    return key;
}

// The stall timeout (the relay's or the in-process counter's) counts only while a driver call is
// outstanding: an idle kept session between a sweep's points is no stall.
// After a cancel the watch stays on (with the grace as timeout, see Runner::cancel): an engine's
// cancel request to a silent server, still waiting, is cut too.
class StallWatch {
public:
    StallWatch(WireTap* tap, SocketCounter* counter, const CancelToken& cancel)
        : m_tap(tap), m_counter(counter), m_cancel(cancel) {
        set(true);
    }
    ~StallWatch() {
        if (!m_cancel.cancelled()) {
            set(false);
        }
    }
    StallWatch(const StallWatch&) = delete;
    StallWatch& operator=(const StallWatch&) = delete;

private:
    void set(bool on) {
        if (m_tap) {
            m_tap->watchStalls(on);
        }
        if (m_counter) {
            m_counter->watchStalls(on);
        }
    }
    WireTap* m_tap;
    SocketCounter* m_counter;
    CancelToken m_cancel;
};

}  // namespace

void applyQueryStats(Sample& sample, const QueryStats& stats) {
    sample.phases.prepare = stats.prepare;
    sample.phases.execute = stats.execute;
    sample.phases.fetch = stats.fetch;
    sample.nativeLogical = stats.nativeLogical;
    sample.nativePhysical = stats.nativePhysical;
    if (stats.statementEffects.empty()) {
        return;
    }
    auto& effects = sample.effects.mut();
    for (const auto& effect : stats.statementEffects) {
        auto it =
            std::find_if(effects.begin(), effects.end(), [&](const ParameterEffect& e) { return e.id == effect.id; });
        if (it != effects.end()) {
            *it = effect;
        } else {
            effects.push_back(effect);
        }
    }
}

Runner::Runner() = default;
Runner::~Runner() = default;

void Runner::setKeepSession(bool keep) {
    m_keepSession = keep;
    if (!keep) {
        m_keptSockets.clear();
        m_kept.reset();
        m_keptTap.reset();
        m_keptCounter.reset();
    }
}

std::optional<WireCounters> Runner::keptSessionWire() const {
    if (!m_kept) {
        return m_endedWire;
    }
    if (m_keptTap) {
        return m_keptTap->snapshot();
    }
    if (m_keptCounter) {
        if (!m_kept->inProcessCountingBlind().empty()) {
            return std::nullopt;  // its zeros are no count (TLS through a library of its own)
        }
        return m_keptCounter->snapshot();
    }
    return std::nullopt;
}

const char* Runner::keptSessionWireMethod() const {
    return !m_kept ? (m_endedWire ? m_endedWireMethod : "") : m_keptTap ? "relay" : m_keptCounter ? "in-process" : "";
}

void Runner::cancel() {
    m_cancel.cancel();
    std::lock_guard lock(m_mutex);
    if (m_tap != nullptr) {
        // Armed first: an engine's cancel request that goes through the tap to a silent server is cut too.
        m_tap->setStallTimeout(kCancelGrace);
        m_tap->watchStalls(true);
        m_tap->cutAllAfter(kCancelGrace);  // a server that ignores the cancel and keeps sending
    }
    if (m_counter != nullptr) {
        m_counter->cutCallsAfter(kCancelGrace);  // before the engine's cancel request, as above
    }
    startSocketDeadline();  // before the engine's cancel request, as above
    if (m_session != nullptr) {
        // The engine's own cancel connection (libpq's PQcancel, made on this thread) is adopted too, so
        // the grace cuts it when the server never closes it, as the relay did with every connection.
        std::optional<SocketCounter::Adopting> adopting;
        if (m_counter != nullptr) {
            adopting.emplace(*m_counter);
        }
        m_session->cancel();
    }
}

void Runner::startSocketDeadline() {
    std::lock_guard lock(m_deadlineMutex);
    if (!m_running || !m_direct || m_deadline.joinable()) {
        return;
    }
    // The sockets open before the cancel that are not the session's are another part's of the
    // program; those opened after it are the engine's cancel request's (libpq's PQcancel).
    m_deadline = std::thread([this, atCancel = processSockets()] {
        std::unique_lock wait(m_deadlineMutex);
        auto over = [this] { return !m_running; };
        if (m_runEnded.wait_for(wait, kCancelGrace, over)) {
            return;
        }
        // Until the run ends: a call the engine retries on a new socket is cut as well.
        do {
            std::vector<ProcessSocket> cut =
                m_sessionSockets ? *m_sessionSockets : socketsOpenedSince(m_socketsBefore, processSockets());
            for (const ProcessSocket& socket : socketsOpenedSince(atCancel, processSockets())) {
                if (std::find(cut.begin(), cut.end(), socket) == cut.end()) {
                    cut.push_back(socket);
                }
            }
            shutDownSockets(cut);
        } while (!m_runEnded.wait_for(wait, std::chrono::milliseconds(250), over));
    });
}

void Runner::endSocketDeadline() {
    std::thread deadline;
    {
        std::lock_guard lock(m_deadlineMutex);
        m_running = false;
        m_direct = false;
        m_sessionSockets.reset();
        deadline = std::move(m_deadline);
    }
    m_runEnded.notify_all();
    if (deadline.joinable()) {
        deadline.join();
    }
}

bool Runner::ResolvedPlan::sameInputs(const RunPlan& plan) const {
    return plan.connection == connection && plan.verifyContent == verifyContent && plan.wireTap == wireTap &&
           plan.link == link && plan.estimateCompression == estimateCompression && plan.parameters == given;
}

// One run()'s state, handed from step to step. The relay outlives the session that talks through
// it (members die in reverse order: session, counter, tap).
struct Runner::Attempt {
    Attempt(std::string connection, const CancelToken& cancel) : where(std::move(connection)), m_cancel(cancel) {}

    RunOutcome outcome;
    const std::string where;   // the connection as the user gave it
    std::string sessionLabel;  // the label of the spec the driver connected with (the tap's, when relayed)
    std::unique_ptr<WireTap> tap;
    std::unique_ptr<SocketCounter> counter;  // instead of the relay: wire_counting=in-process, unshaped
    std::unique_ptr<Session> session;
    ParameterValues resolved;
    WireSettings wire;
    std::string key;
    bool verify = false;
    Nanos connectTime{0};
    WireCounters connectWire;
    std::optional<ContentExpectation> expectation;  // verify_content: what the data set holds
    SampleContextSharing context;                   // the session's samples hold one copy of its context
    std::string blindReason;  // why the in-process counter does not see this session's I/O ("" when it does)
    bool counted = false;     // the relay or the counter counts the samples' wire
    const char* method = "in-process";
    std::optional<ErrorKind> firstQueryFailure;  // a content mismatch is none: the run goes on after it
    ParameterValues scenarioValues;              // the scenario in progress's own (RunPlan::scenarioParameters)

    // The first failure is the one the user needs; later ones are in their samples.
    void fail(const Error& e, const std::string& context) {
        if (!outcome.ok) {
            return;
        }
        outcome.ok = false;
        outcome.errorKind = e.kind();
        // The line names the connection once, as the user gave it: a driver's message that starts
        // with its own label (the same, or the redirected one of the tap) loses that prefix.
        std::string message = withoutLabel(e.what());
        if (!context.empty() && message.starts_with(context + ": ")) {
            message.erase(0, context.size() + 2);  // the driver's "connect: ..." under the phase "connect"
        }
        outcome.error = context.empty() ? where + ": " + message : where + ": " + context + ": " + message;
    }
    // A driver's message that names the spec it connected with (the tap's redirected one, with the
    // relay's host and port) names the connection as the user gave it instead.
    std::string asGiven(std::string message) const {
        if (!sessionLabel.empty() && sessionLabel != where && message.starts_with(sessionLabel + ": ")) {
            message.replace(0, sessionLabel.size(), where);
        }
        return message;
    }
    // The relay's own words ("cannot connect to upstream ...", or either's "no data for 30 s (stall
    // timeout)") explain a driver's bare "connection reset".
    Error tapContext(const Error& e) const {
        const std::string last = tap ? tap->stats().lastError : counter ? counter->lastError() : std::string();
        return last.empty() ? e : Error(e.kind(), std::string(e.what()) + " (" + last + ")");
    }
    // A failure after cancel() is the cancel (the tap cut a call the server did not answer).
    Error cancelledOr(const Error& e) const {
        if (!m_cancel.cancelled() || std::string_view(e.what()).find("cancelled") != std::string_view::npos) {
            return e;
        }
        std::string message = withoutLabel(e.what());
        if (message.starts_with("connect: ")) {
            message.erase(0, 9);
        }
        return Error(ErrorKind::Cancelled, "cancelled (" + message + ")");
    }
    WireCounters wireNow(ExchangeRecorder::Mark* trace = nullptr) const {
        return tap ? tap->snapshot(trace) : counter->snapshot(trace);
    }

private:
    std::string withoutLabel(std::string message) const {
        for (const std::string& label : {where, sessionLabel}) {
            if (!label.empty() && message.starts_with(label + ": ")) {
                message.erase(0, label.size() + 2);
                break;
            }
        }
        return message;
    }
    const CancelToken& m_cancel;
};

RunOutcome Runner::run(const RunPlan& plan, RunObserver& observer) {
    const clientpause::Watch pauses;  // a stopped or suspended client is not a server's stall
    {
        std::lock_guard lock(m_deadlineMutex);
        m_running = true;
    }
    // Ends last, after Detach: the deadline may still have to cut a cancel request that holds m_mutex.
    struct EndDeadline {
        Runner* runner;
        ~EndDeadline() { runner->endSocketDeadline(); }
    } endDeadline{this};
    Attempt a(plan.connection.label(), m_cancel);
    a.verify = plan.verifyContent;
    try {
        const Driver& driver = driverById(plan.connection.engine);
        resolvePlan(plan, driver, a);
        openSession(plan, driver, a);
        if (a.counter) {
            a.counter->setStallTimeout(a.wire.stallTimeout);  // a kept counter: the timeout may differ between runs
        }
        if (a.tap) {
            a.tap->setStallTimeout(a.wire.stallTimeout);  // a kept tap: the timeout may differ between runs
            observer.wireTapReady("127.0.0.1:" + std::to_string(a.tap->port()) + " -> " + a.tap->upstream(),
                                  a.wire.link);
        }
    } catch (const Error& e) {
        std::lock_guard lock(m_mutex);
        m_tap = nullptr;
        m_counter = nullptr;
        a.fail(a.tap ? withServerPort(e, a.tap->port(), a.tap->upstream()) : e, "connect");
        return std::move(a.outcome);
    }
    // Hands a healthy session (and its relay) back for the next run: an SQL error leaves the
    // connection usable. Reads only the outcome's ok and errorKind, which a move leaves as they are.
    struct KeepForNextRun {
        Runner* runner;
        Attempt& a;
        ~KeepForNextRun() { runner->keepForNextRun(a); }
    } keep{this, a};
    {
        std::lock_guard lock(m_mutex);
        m_session = a.session.get();
        m_tap = a.tap.get();
        m_counter = a.counter.get();
    }
    struct Detach {
        Runner* runner;
        ~Detach() {
            std::lock_guard lock(runner->m_mutex);
            runner->m_session = nullptr;
            runner->m_tap = nullptr;
            runner->m_counter = nullptr;
        }
    } detach{this};
    if (!startMeasuring(plan, observer, a)) {
        return std::move(a.outcome);
    }
    for (const Scenario& scenario : plan.scenarios) {
        if (!measureScenario(plan, scenario, observer, a)) {
            break;
        }
    }
    return std::move(a.outcome);
}

// The plan's settings resolved, or the last run's when its inputs are the same.
void Runner::resolvePlan(const RunPlan& plan, const Driver& driver, Attempt& a) {
    if (!m_lastResolved || !m_lastResolved->sameInputs(plan)) {
        m_lastResolved.reset();  // a plan that does not resolve leaves nothing behind
        ResolvedPlan r;
        r.connection = plan.connection;
        r.given = plan.parameters;
        r.verifyContent = plan.verifyContent;
        r.wireTap = plan.wireTap;
        r.link = plan.link;
        r.estimateCompression = plan.estimateCompression;
        ParameterValues given = plan.parameters;
        r.verify = takeVerifyContent(given, plan.verifyContent);
        r.resolved = resolveParameters(driver.parameters(), given);
        r.wire = resolveWireSettings(plan.wireTap, plan.link, plan.estimateCompression, given);
        storeWireSettings(r.wire, r.resolved);
        r.key = sessionKey(plan, driver, r.resolved, r.wire);
        m_lastResolved = std::move(r);
    }
    a.verify = m_lastResolved->verify;
    a.resolved = m_lastResolved->resolved;
    a.wire = m_lastResolved->wire;
    a.key = m_lastResolved->key;
}

// The kept session when it fits the plan, else a new connection: through the relay, or counted in
// process, or direct.
void Runner::openSession(const RunPlan& plan, const Driver& driver, Attempt& a) {
    if (m_keepSession && m_kept && m_keptKey == a.key) {
        {
            std::lock_guard lock(m_deadlineMutex);
            m_direct = !m_keptTap && !m_keptCounter;
            m_sessionSockets = m_keptSockets;
        }
        a.session = std::move(m_kept);
        a.tap = std::move(m_keptTap);
        a.counter = std::move(m_keptCounter);
        a.connectTime = m_keptConnectTime;
        a.connectWire = m_keptConnectWire;
        a.sessionLabel = m_keptSessionLabel;
    } else {
        m_kept.reset();  // closed before the new one opens: one connection at a time
        m_endedWire.reset();
        m_keptSockets.clear();
        m_keptTap.reset();
        m_keptCounter.reset();
        ConnectionSpec spec = plan.connection;
        // Without a TCP endpoint (embedded, Unix-domain socket) the tap is not applicable: the
        // samples' effects say so and the run goes on unshaped.
        if (const auto endpoint = a.wire.tap ? driver.endpoint(spec) : std::nullopt; endpoint && a.wire.inProcess) {
            a.counter = std::make_unique<SocketCounter>();
            a.counter->setStallTimeout(a.wire.stallTimeout);
        } else if (endpoint) {
            a.tap = std::make_unique<WireTap>(endpoint->host, endpoint->port, a.wire.link,
                                              WireTapOptions{a.wire.estimateCompression, plan.sharedLink});
            a.tap->setStallTimeout(a.wire.stallTimeout);
            spec = driver.redirected(spec, Endpoint{"127.0.0.1", a.tap->port()});
        }
        a.sessionLabel = spec.label();
        {
            std::lock_guard lock(m_deadlineMutex);
            m_direct = !a.tap && !a.counter;
            m_socketsBefore = m_direct ? processSockets() : std::vector<ProcessSocket>{};
            m_sessionSockets.reset();
        }
        const auto t0 = Clock::now();
        {
            std::lock_guard lock(m_mutex);
            m_tap = a.tap.get();
            m_counter = a.counter.get();
        }
        try {
            if (m_cancel.cancelled()) {
                throw Error(ErrorKind::Cancelled, "cancelled");
            }
            StallWatch watch(a.tap.get(), a.counter.get(), m_cancel);
            std::optional<SocketCounter::Adopting> adopting;
            if (a.counter) {
                // Every TCP connection the connect opens on this thread, to any port: a connection
                // string may name several servers, and the one connected to is not known before.
                adopting.emplace(*a.counter);
            }
            a.session = driver.connect(spec, a.resolved);
        } catch (const Error& e) {
            std::lock_guard lock(m_mutex);
            m_tap = nullptr;
            m_counter = nullptr;
            throw a.cancelledOr(a.tapContext(e));
        }
        a.connectTime = Clock::now() - t0;
        if (!a.tap && !a.counter) {
            std::lock_guard lock(m_deadlineMutex);
            m_sessionSockets = socketsOpenedSince(m_socketsBefore, processSockets());
        }
        if (a.tap) {
            a.connectWire = a.tap->snapshot();
        } else if (a.counter) {
            a.connectWire = a.counter->snapshot();
        }
    }
}

void Runner::keepForNextRun(Attempt& a) {
    m_endedWire.reset();
    const bool healthy = a.outcome.ok || a.outcome.errorKind == ErrorKind::Sql;
    if (m_keepSession && !healthy) {
        // Let go: what its connection carried, up to here, for keptSessionWire().
        if (a.tap) {
            m_endedWire = a.tap->snapshot();
            m_endedWireMethod = "relay";
        } else if (a.counter && (!a.session || a.session->inProcessCountingBlind().empty())) {
            m_endedWire = a.counter->snapshot();
            m_endedWireMethod = "in-process";
        }
    }
    if (m_keepSession && healthy) {
        m_kept = std::move(a.session);
        m_keptTap = std::move(a.tap);
        m_keptCounter = std::move(a.counter);
        m_keptKey = a.key;
        m_keptConnectTime = a.connectTime;
        m_keptConnectWire = a.connectWire;
        m_keptSessionLabel = a.sessionLabel;
        std::lock_guard lock(m_deadlineMutex);
        m_keptSockets = m_sessionSockets.value_or(std::vector<ProcessSocket>{});
    }
}

// Before the first sample: the data set checked, verify_content's expectation built, the session's
// effects (the wire's and verify_content's with the driver's) told to the observer. False: the run
// ends (a.outcome says why).
bool Runner::startMeasuring(const RunPlan& plan, RunObserver& observer, Attempt& a) {
    try {
        StallWatch watch(a.tap.get(), a.counter.get(), m_cancel);
        observer.checkSession(*a.session);
    } catch (const Error& e) {
        a.fail(a.cancelledOr(a.tapContext(e)), "data set");
        return false;
    }
    // verify_content: what the data set holds, built on this session before anything is measured.
    if (a.verify) {
        try {
            StallWatch watch(a.tap.get(), a.counter.get(), m_cancel);
            if (plan.expectContent) {
                a.expectation = plan.expectContent(*a.session);
            } else {
                a.expectation.emplace();
                a.expectation->notInEffect = "this run names no data set to verify against";
            }
        } catch (const Error& e) {
            a.fail(a.cancelledOr(a.tapContext(e)), "content check");
            return false;
        }
        a.resolved[kVerifyContentParameter] = "on";
    }
    a.outcome.session = a.session->info();
    // The wire tunables are the Runner's, not the driver's: their effects join the session's.
    for (auto& effect : wireEffects(a.wire, a.resolved, a.wire.tap && !a.tap && !a.counter)) {
        a.outcome.session.effects.push_back(std::move(effect));
    }
    if (a.expectation) {
        ParameterEffect effect;
        effect.id = kVerifyContentParameter;
        effect.requested = "on";
        effect.inEffect = a.expectation->notInEffect.empty();
        effect.actual = effect.inEffect ? "on" : "off";
        effect.reason = effect.inEffect ? "" : "not in effect (" + a.expectation->notInEffect + ")";
        a.outcome.session.effects.push_back(std::move(effect));
    }
    observer.connected(a.outcome.session);
    // An in-process counter that saw none of the connect's bytes does not see this client's socket calls
    // (libmariadb with TLS reads and writes through its TLS library): its zeros would read as a free
    // wire (hostile round 5k T1: 0 B for 604,545 B on the wire). Said, and the relay offered instead.
    a.blindReason = a.tap == nullptr && a.counter != nullptr ? a.session->inProcessCountingBlind() : "";
    a.counted = a.tap != nullptr || (a.counter != nullptr && a.blindReason.empty());
    a.method = a.tap ? "relay" : "in-process";
    return true;
}

// One scenario's warm-ups and repetitions. False: the run ends (a cancel, a lost connection).
bool Runner::measureScenario(const RunPlan& plan, const Scenario& scenario, RunObserver& observer, Attempt& a) {
    bool scenarioFailed = false;
    const ContentCheckKind check =
        a.expectation ? contentCheckKind(*a.expectation, scenario.sql, scenario.setupSql, scenario.fetch)
                      : ContentCheckKind::None;
    a.scenarioValues.clear();
    if (plan.scenarioParameters) {
        try {
            if (m_cancel.cancelled()) {
                throw Error(ErrorKind::Cancelled, "cancelled");
            }
            StallWatch watch(a.tap.get(), a.counter.get(), m_cancel);
            a.scenarioValues = plan.scenarioParameters(*a.session, scenario);
        } catch (const Error& raw) {
            const Error e = a.cancelledOr(a.tapContext(raw));
            Sample failed = sampleFor(plan, scenario, a.outcome.session, a.resolved, 0, a.wire, a.counted);
            failed.status = e.kind() == ErrorKind::Cancelled ? SampleStatus::Cancelled : SampleStatus::Failed;
            failed.error = oneLine(a.asGiven(e.what()));
            a.firstQueryFailure = a.firstQueryFailure.value_or(e.kind());
            a.fail(e, scenario.title);
            a.context.share(failed);
            a.outcome.samples.push_back(failed);
            observer.sampleReady(failed);
            return a.firstQueryFailure == ErrorKind::Sql;  // as a failed statement
        }
    }
    for (int rep = -plan.warmups; rep < std::max(1, plan.repetitions) && !scenarioFailed; ++rep) {
        if (m_cancel.cancelled()) {
            a.fail(Error(ErrorKind::Cancelled, "cancelled"), scenario.title);
            return false;
        }
        bool contentFailed = false;
        Sample sample = measureOnce(plan, scenario, check, rep, observer, a, scenarioFailed, contentFailed);
        if (rep >= 0 || scenarioFailed) {
            a.context.share(sample);
            a.outcome.samples.push_back(sample);
            observer.sampleReady(sample);
        }
        if (scenarioFailed && !contentFailed && a.firstQueryFailure != ErrorKind::Sql) {
            return false;
        }
    }
    return true;
}

// One execution of a scenario's statement: its phases, wire counters and content, as a sample.
Sample Runner::measureOnce(const RunPlan& plan, const Scenario& scenario, ContentCheckKind check, int rep,
                           RunObserver& observer, Attempt& a, bool& scenarioFailed, bool& contentFailed) {
    observer.scenarioStarted(scenario, rep);
    Sample sample = sampleFor(plan, scenario, a.outcome.session, a.resolved, rep, a.wire, a.counted);
    for (const auto& [id, value] : a.scenarioValues) {
        sample.parameters[id] = value;
    }
    if (!a.blindReason.empty()) {
        sample.tap = WireStats::unavailable("not counted in-process (" + a.blindReason +
                                            "): -P wire_counting=relay counts them");
    }
    sample.phases.connect = a.connectTime;
    // Tap snapshots at the session's phase marks, taken on this thread inside query().
    WireCounters atStart, atPrepared, atExecuted, atFetched;
    ExchangeRecorder::Mark traceFrom, traceTo;  // the measured span's, for its exchange trace
    bool prepared = false, executed = false, fetched = false;
    PhaseClock clock{Clock::now()};
    const clientpause::Pauses pausesBefore = clientpause::pausesSoFar();
    MeasuringSink sink([&](std::uint64_t rows, std::uint64_t bytes) { observer.progress(scenario, rows, bytes); });
    std::optional<VerifyingSink> verifying;
    if (check == ContentCheckKind::Rows) {
        verifying.emplace(sink, *a.expectation, !plan.rowLimit && readsEveryRow(*a.expectation, scenario.sql));
    }
    RowSink& rowSink = verifying ? static_cast<RowSink&>(*verifying) : sink;
    try {
        StallWatch watch(a.tap.get(), a.counter.get(), m_cancel);
        if (!scenario.setupSql.empty()) {
            a.session->execute(scenario.setupSql);
        }
        QuerySpec query{scenario.sql, scenario.fetch, plan.rowLimit};
        if (a.counted) {
            atStart = a.wireNow();
        }
        query.phaseMark = [&](QueryPhase phase) {
            clock.mark(phase);
            if (a.counted) {
                switch (phase) {
                    case QueryPhase::Prepared:
                        atPrepared = a.wireNow(&traceFrom);
                        prepared = true;
                        break;
                    case QueryPhase::Executed:
                        atExecuted = a.wireNow();
                        executed = true;
                        break;
                    case QueryPhase::Fetched:
                        atFetched = a.wireNow(&traceTo);
                        fetched = true;
                        break;
                }
            }
        };
        for (const auto& [id, value] : a.resolved) {
            if (!isWireParameter(id) && !isLoadParameter(id) && id != kVerifyContentParameter) {  // the run's
                query.statementParameters[id] = value;
            }
        }
        for (const auto& [id, value] : a.scenarioValues) {
            query.statementParameters[id] = value;
        }
        clock.start = Clock::now();
        const QueryStats stats = a.session->query(query, rowSink, m_cancel);
        applyQueryStats(sample, stats);
    } catch (const Error& raw) {
        const Error e = a.cancelledOr(a.tapContext(raw));
        sample.status = e.kind() == ErrorKind::Cancelled ? SampleStatus::Cancelled : SampleStatus::Failed;
        sample.error = oneLine(a.asGiven(e.what()));
        sample.partial = true;
        clock.keepPartial(sample.phases);
        scenarioFailed = true;
        a.firstQueryFailure = a.firstQueryFailure.value_or(e.kind());
        a.fail(e, scenario.title);
    }
    if (a.expectation) {
        sample.rows = sink.rows();
        if (verifying && sample.status == SampleStatus::Complete)
            verifying->finishEveryRow();
        contentFailed = judgeContent(sample, scenario, check, *a.expectation,
                                     verifying ? &verifying->verdict() : nullptr, sink.firstValue());
        if (contentFailed) {
            scenarioFailed = true;
            a.fail(Error(ErrorKind::Data, sample.error), scenario.title);
        }
    }
    if (a.counted) {
        sample.tapPhases["connect"] = a.connectWire;
        if (prepared) {
            sample.tapPhases["prepare"] = atPrepared - atStart;
        }
        if (prepared && executed) {
            sample.tapPhases["execute"] = atExecuted - atPrepared;
        }
        if (executed && fetched) {
            sample.tapPhases["fetch"] = atFetched - atExecuted;
        }
        if (prepared && fetched) {
            // The measured span, like Elapsed: from opening the cursor to the last fetch.
            sample.tap = WireStats::of(atFetched - atPrepared);
            sample.trace = a.tap ? a.tap->exchanges(traceFrom, traceTo) : a.counter->exchanges(traceFrom, traceTo);
        } else if (prepared) {
            const WireCounters soFar = a.wireNow() - atPrepared;
            sample.tap = sample.partial ? WireStats::of(soFar)  // up to the failure, as the phases
                                        : WireStats::unavailable("the driver reported no end of the fetch");
            sample.tapPhases["until failure"] = soFar;
        } else {
            sample.tap = WireStats::unavailable("the driver reported no phase marks");
        }
        sample.tap.method = a.method;
        ExchangeRecorder::Mark done;  // a kept session's recorder holds one sample's runs at most
        a.wireNow(&done);
        if (a.tap) {
            a.tap->forgetTraceBefore(done);
        } else {
            a.counter->forgetTraceBefore(done);
        }
    }
    sample.rows = sink.rows();
    sample.contentBytes = sink.contentBytes();
    sample.valuesRead = sink.valuesRead();
    sample.valuesSkipped = sink.valuesSkipped();
    if (scenario.kind == ScenarioKind::Query) {  // a scalar's first integer is its value, not an id (5o X25)
        sample.maxId = sink.maxId();
    }
    if (scenario.kind == ScenarioKind::Scalar) {
        sample.scalarLabel = scenario.scalarLabel;
        sample.scalar = sink.firstValue();
    }
    sample.disturbed = clientpause::disturbanceSince(pausesBefore, "the sample");
    return sample;
}

}  // namespace blobbench
