#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "engine/core/LoadParameters.h"
#include "engine/run/LoadPoint.h"
#include "engine/run/SessionRunner.h"
#include "engine/run/Sweep.h"

namespace blobbench {

// Told of a run whose points may put many sessions on the server: the usual sweep events for the
// points measured on one session (samples), and a point's load figures when many sessions measured it.
class LoadRunObserver : public SweepObserver {
public:
    // The sessions' own events (connects, the data set check): a SessionsObserver that does nothing
    // unless overridden. Called from the session threads: see SessionsObserver.
    virtual SessionsObserver& sessions() { return m_none; }
    // After each point of many sessions: a LoadPoint a scenario (and one for all of them together),
    // and the outcome they came from (for a report). On the thread of run().
    virtual void loadReady(const SweepPoint& /*point*/, const std::vector<LoadPoint>& /*loads*/,
                           const SessionsOutcome& /*outcome*/) {}

private:
    SessionsObserver m_none;
};

// Whether a plan (at any of its points) asks for many sessions, a load duration or a rate: then every
// point runs on SessionRunner, so that a sweep of sessions 1, 2, 4 ... has a throughput at each one.
// Bad load values: Error(Usage) naming the parameter.
bool isLoadRun(const ParameterValues& parameters, const std::vector<SweepPoint>& points);

// Runs a plan (one point, or a sweep's points) either as before, one session and a sample a statement
// (runSweep), or, when isLoadRun(), each point on the sessions it asks for, as load points. A point
// of many sessions that connects nothing, or is cancelled, ends the run; one whose statements failed
// is reported and the next point runs.
class LoadRun {
public:
    LoadRun();
    ~LoadRun();
    // `points` empty: the plan once. `context` names the run for its load points (runId, connection).
    RunOutcome run(const RunPlan& plan, const std::vector<SweepPoint>& points, LoadRunObserver& observer,
                   const LoadContext& context);
    // From any thread: the point under way is cancelled, on one session or on many (every session's
    // Runner at once), and no other starts.
    void cancel();

private:
    Runner m_runner;
    std::mutex m_mutex;
    SessionRunner* m_sessions = nullptr;  // guarded by m_mutex: the point of many sessions under way
    bool m_cancelled = false;             // guarded by m_mutex
};

}  // namespace blobbench
