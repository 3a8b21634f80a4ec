#include "engine/run/LoadPoint.h"

namespace blobbench {

Spread LoadPoint::fairness() const {
    std::vector<double> perSecond;
    perSecond.reserve(perSession.size());
    for (const StatementTally& t : perSession) {
        perSecond.push_back(ratesOf(t, window).statementsPerS);
    }
    return spreadOf(perSecond);
}

std::vector<LoadPoint> loadPointsOf(const SessionsOutcome& outcome, const LoadContext& context) {
    const SessionsFigures figures = figuresOf(outcome);
    LoadPoint base;
    base.runId = context.runId;
    base.point = context.point;
    base.parameters = context.parameters;
    base.startedAt = context.startedAt;
    base.connection = context.connection;
    base.sessions = static_cast<int>(outcome.sessions.size());
    base.link = outcome.link;
    base.openLoop = outcome.openLoop;
    base.rate = outcome.rate;
    base.window = outcome.window;
    base.rampUp = outcome.rampUp;
    base.slotsDue = outcome.slotsDue;
    base.slotsMissed = outcome.slotsMissed;
    base.error = outcome.ok ? std::string() : outcome.error;
    for (const SessionResult& s : outcome.sessions) {
        base.excluded += s.excluded;
        if (s.connected && base.engine.empty()) {
            base.engine = s.info.engine;
            base.serverVersion = s.info.serverVersion;
            base.clientVersion = s.info.clientVersion;
        }
        if (base.wireMethod.empty()) {
            base.wireMethod = s.wireMethod;
        }
    }
    std::vector<LoadPoint> points;
    auto add = [&](const ScenarioFigures& f) {
        LoadPoint p = base;
        p.scenarioId = f.id;
        p.scenarioTitle = f.title;
        for (const Scenario& s : outcome.scenarios) {
            if (s.id == f.id) {
                p.sql = s.setupSql.empty() ? s.sql : s.setupSql + ";\n" + s.sql;
            }
        }
        p.combined = f.combined;
        p.perSession = f.perSession;
        points.push_back(std::move(p));
    };
    for (const ScenarioFigures& f : figures.scenarios) {
        add(f);
    }
    if (figures.scenarios.size() > 1) {
        add(figures.all);
    }
    return points;
}

}  // namespace blobbench
