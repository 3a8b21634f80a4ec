#include "engine/run/LoadRun.h"

namespace blobbench {

bool isLoadRun(const ParameterValues& parameters, const std::vector<SweepPoint>& points) {
    if (resolveLoadSettings(parameters).concurrent()) {
        return true;
    }
    for (const SweepPoint& point : points) {
        ParameterValues at = parameters;
        for (const auto& [id, value] : point.values) {
            at[id] = value;
        }
        if (resolveLoadSettings(at).concurrent()) {
            return true;
        }
    }
    return false;
}

LoadRun::LoadRun() = default;
LoadRun::~LoadRun() = default;

void LoadRun::cancel() {
    std::lock_guard lock(m_mutex);
    m_cancelled = true;
    m_runner.cancel();
    if (m_sessions != nullptr) {
        m_sessions->cancel();
    }
}

RunOutcome LoadRun::run(const RunPlan& plan, const std::vector<SweepPoint>& points, LoadRunObserver& observer,
                        const LoadContext& context) {
    if (!isLoadRun(plan.parameters, points)) {
        return points.empty() ? m_runner.run(plan, observer) : runSweep(m_runner, plan, points, observer);
    }
    const std::vector<SweepPoint> each = points.empty() ? std::vector<SweepPoint>{SweepPoint{}} : points;
    RunOutcome total;
    for (std::size_t i = 0; i < each.size(); ++i) {
        const SweepPoint& point = each[i];
        SessionsPlan sessions;
        sessions.plan = plan;
        for (const auto& [id, value] : point.values) {
            sessions.plan.parameters[id] = value;
        }
        const LoadSettings load = resolveLoadSettings(sessions.plan.parameters);
        sessions.sessions = load.sessions;
        sessions.duration = load.duration;
        sessions.rate = load.rate;
        sessions.rampUp = load.rampUp;
        sessions.sharedLink = load.sharedLink;
        SessionRunner runner;
        {
            std::lock_guard lock(m_mutex);
            if (m_cancelled) {
                total.ok = false;
                total.errorKind = ErrorKind::Cancelled;
                total.error = "cancelled";
                break;
            }
            m_sessions = &runner;
        }
        struct Forget {
            LoadRun& run;
            ~Forget() {
                std::lock_guard lock(run.m_mutex);
                run.m_sessions = nullptr;
            }
        } forget{*this};
        if (!points.empty()) {
            observer.pointStarted(point, i, points.size());
        }
        LoadContext at = context;
        at.point = point.values;
        at.parameters = sessions.plan.parameters;
        at.startedAt = isoNow();
        const SessionsOutcome outcome = runner.run(sessions, observer.sessions());
        const std::vector<LoadPoint> loads = loadPointsOf(outcome, at);
        observer.loadReady(point, loads, outcome);
        bool connected = false;
        for (const SessionResult& s : outcome.sessions) {
            connected = connected || s.connected;
            if (total.session.engine.empty() && s.connected) {
                total.session = s.info;
            }
        }
        if (!outcome.ok && total.ok) {
            total.ok = false;
            total.errorKind = outcome.errorKind;
            total.error = outcome.error + (point.values.empty() ? "" : " (at " + point.label() + ")");
        }
        if (!outcome.ok && (outcome.errorKind == ErrorKind::Cancelled || !connected)) {
            break;
        }
    }
    return total;
}

}  // namespace blobbench
