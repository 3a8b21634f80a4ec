#include "engine/run/Sweep.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "engine/core/Error.h"

namespace blobbench {
namespace {

Error sweepError(const std::string& where, const std::string& what) {
    return Error(ErrorKind::Usage, where + ": " + what);
}

std::string axisWhere(const SweepAxisSpec& axis) {
    return "sweep axis '" + (axis.parameter.empty() ? std::string("?") : axis.parameter) + "'";
}

}  // namespace

std::string SweepPoint::label() const {
    std::string out;
    for (const auto& [id, value] : values) {
        out += (out.empty() ? "" : ", ") + id + "=" + value;
    }
    return out;
}

std::vector<std::string> expandAxis(const SweepAxisSpec& axis) {
    const std::string where = axisWhere(axis);
    if (axis.parameter.empty()) {
        throw sweepError(where, "names no tunable");
    }
    if (!axis.range) {
        if (axis.values.empty()) {
            throw sweepError(where, "has no values (a sweep needs at least one point)");
        }
        if (axis.values.size() > kMaxSweepPoints) {
            throw sweepError(where, "has more than " + std::to_string(kMaxSweepPoints) + " values");
        }
        std::set<std::string> seen;
        for (const auto& v : axis.values) {
            if (!seen.insert(v).second) {
                throw sweepError(where, "lists '" + v + "' twice");
            }
        }
        return axis.values;
    }
    const SweepRange& r = *axis.range;
    if (r.points < 1) {
        throw sweepError(where, "range has " + std::to_string(r.points) + " points (a sweep needs at least one)");
    }
    if (static_cast<std::size_t>(r.points) > kMaxSweepPoints) {
        throw sweepError(where, "range has more than " + std::to_string(kMaxSweepPoints) + " points");
    }
    if (r.from > r.to) {
        throw sweepError(where, "range from " + std::to_string(r.from) + " to " + std::to_string(r.to) +
                                    " is inverted (from must not exceed to)");
    }
    if (r.points == 1 || r.from == r.to) {
        if (r.from != r.to) {
            throw sweepError(where, "a range from " + std::to_string(r.from) + " to " + std::to_string(r.to) +
                                        " needs at least 2 points");
        }
        return {std::to_string(r.from)};
    }
    if (r.spacing == SweepSpacing::Log && r.from <= 0) {
        throw sweepError(where, "a log range must start above 0 (from is " + std::to_string(r.from) + ")");
    }
    std::vector<std::string> out;
    std::int64_t last = 0;
    const double steps = static_cast<double>(r.points - 1);
    for (int i = 0; i < r.points; ++i) {
        std::int64_t v = 0;
        if (i == 0) {
            v = r.from;
        } else if (i == r.points - 1) {
            v = r.to;  // exact, whatever the rounding of the steps before
        } else if (r.spacing == SweepSpacing::Linear) {
            const double span = static_cast<double>(r.to) - static_cast<double>(r.from);
            v = r.from + static_cast<std::int64_t>(std::llround(span * i / steps));
        } else {
            const double ratio = std::log(static_cast<double>(r.to) / static_cast<double>(r.from));
            v = static_cast<std::int64_t>(std::llround(static_cast<double>(r.from) * std::exp(ratio * i / steps)));
        }
        v = std::clamp(v, r.from, r.to);
        if (i > 0 && v <= last) {
            continue;  // rounding made two points equal
        }
        out.push_back(std::to_string(v));
        last = v;
    }
    return out;
}

std::vector<SweepPoint> expandSweep(const SweepSpec& sweep) {
    const std::string where = "sweep '" + sweep.name + "'";
    if (sweep.axes.empty()) {
        throw sweepError(where, "has no axis (name a tunable to sweep)");
    }
    if (sweep.axes.size() > 2) {
        throw sweepError(where, "has " + std::to_string(sweep.axes.size()) + " axes (at most two: a grid)");
    }
    if (sweep.axes.size() == 2 && sweep.axes[0].parameter == sweep.axes[1].parameter) {
        throw sweepError(where, "sweeps " + sweep.axes[0].parameter + " twice");
    }
    if (sweep.repetitions < 1) {
        throw sweepError(where, "needs at least 1 repetition (has " + std::to_string(sweep.repetitions) + ")");
    }
    if (sweep.warmups < 0) {
        throw sweepError(where, "has a negative number of warm-ups");
    }
    std::vector<std::vector<std::string>> values;
    for (const auto& axis : sweep.axes) {
        try {
            values.push_back(expandAxis(axis));
        } catch (const Error& e) {
            throw e.withContext(where);
        }
    }
    std::vector<SweepPoint> points;
    const std::vector<std::string> single{std::string()};
    const auto& inner = values.size() == 2 ? values[1] : single;
    if (values[0].size() * inner.size() > kMaxSweepPoints) {
        throw sweepError(where, "has more than " + std::to_string(kMaxSweepPoints) + " points");
    }
    for (const auto& outer : values[0]) {
        for (const auto& in : inner) {
            SweepPoint p;
            p.index = points.size();
            p.values[sweep.axes[0].parameter] = outer;
            if (values.size() == 2) {
                p.values[sweep.axes[1].parameter] = in;
            }
            points.push_back(std::move(p));
        }
    }
    if (sweep.randomOrder) {
        // mt19937_64 and a hand-written Fisher-Yates: the same seed gives the same order on every
        // platform (std::shuffle's algorithm is unspecified).
        std::mt19937_64 random(sweep.seed);
        for (std::size_t i = points.size(); i > 1; --i) {
            const std::size_t j = static_cast<std::size_t>(random() % i);
            std::swap(points[i - 1], points[j]);
        }
    }
    return points;
}

std::vector<SweepPoint> validatedPoints(const SweepSpec& sweep, const std::vector<ParameterSpec>& specs) {
    std::vector<SweepPoint> points = expandSweep(sweep);
    for (const auto& axis : sweep.axes) {
        if (std::none_of(specs.begin(), specs.end(), [&](const ParameterSpec& s) { return s.id == axis.parameter; })) {
            std::string known;
            for (const auto& s : specs) {
                known += (known.empty() ? "" : ", ") + s.id;
            }
            throw Error(ErrorKind::Usage, "sweep '" + sweep.name + "': unknown tunable '" + axis.parameter +
                                              "' (this engine knows: " + known + ")");
        }
    }
    for (auto& point : points) {
        for (auto& entry : point.values) {
            // (a named entry rather than a structured binding: clang before 16 cannot capture those)
            const std::string& id = entry.first;
            std::string& value = entry.second;
            const auto& spec =
                *std::find_if(specs.begin(), specs.end(), [&](const ParameterSpec& s) { return s.id == id; });
            try {
                value = normaliseParameter(spec, value);
            } catch (const Error& e) {
                throw e.withContext("sweep '" + sweep.name + "'");
            }
        }
    }
    return points;
}

namespace {

// Tags each sample with its point on the way to the caller's observer.
class PointObserver final : public RunObserver {
public:
    PointObserver(SweepObserver& target, const SweepPoint& point) : m_target(target), m_point(point) {}
    void connected(const SessionInfo& info) override { m_target.connected(info); }
    void checkSession(Session& session) override { m_target.checkSession(session); }
    void scenarioStarted(const Scenario& scenario, int repetition) override {
        m_target.scenarioStarted(scenario, repetition);
    }
    void progress(const Scenario& scenario, std::uint64_t rows, std::uint64_t bytes) override {
        m_target.progress(scenario, rows, bytes);
    }
    void sampleReady(const Sample& sample) override {
        Sample tagged = sample;
        tagged.point = m_point.values;
        m_target.sampleReady(tagged);
    }

private:
    SweepObserver& m_target;
    const SweepPoint& m_point;
};

}  // namespace

RunOutcome runSweep(Runner& runner, const RunPlan& plan, const std::vector<SweepPoint>& points,
                    SweepObserver& observer) {
    RunOutcome total;
    runner.setKeepSession(true);
    struct CloseAtEnd {
        Runner& runner;
        ~CloseAtEnd() { runner.setKeepSession(false); }
    } close{runner};
    for (std::size_t i = 0; i < points.size(); ++i) {
        const SweepPoint& point = points[i];
        observer.pointStarted(point, i, points.size());
        RunPlan at = plan;
        for (const auto& [id, value] : point.values) {
            at.parameters[id] = value;
        }
        PointObserver tagger(observer, point);
        RunOutcome outcome = runner.run(at, tagger);
        for (auto& s : outcome.samples) {
            s.point = point.values;
        }
        observer.pointFinished(point, outcome);
        total.samples.insert(total.samples.end(), outcome.samples.begin(), outcome.samples.end());
        if (total.session.engine.empty()) {
            total.session = outcome.session;
        }
        if (!outcome.ok && total.ok) {
            total.ok = false;
            total.errorKind = outcome.errorKind;
            total.error = outcome.error + (point.values.empty() ? "" : " (at " + point.label() + ")");
        }
        if (!outcome.ok && outcome.errorKind != ErrorKind::Sql) {
            break;
        }
    }
    return total;
}

}  // namespace blobbench
