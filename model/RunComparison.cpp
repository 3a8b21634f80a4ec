#include "model/RunComparison.h"

#include <algorithm>
#include <charconv>

#include "model/SampleJson.h"

namespace blobbench {
namespace {

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return quantileSorted(values, 0.5);
}

bool numberLess(const std::string& a, const std::string& b) {
    long long x = 0;
    long long y = 0;
    const auto [pa, ea] = std::from_chars(a.data(), a.data() + a.size(), x);
    const auto [pb, eb] = std::from_chars(b.data(), b.data() + b.size(), y);
    if (ea == std::errc() && eb == std::errc() && pa == a.data() + a.size() && pb == b.data() + b.size()) {
        return x < y;
    }
    return a < b;
}

bool pointLess(const PointValues& a, const PointValues& b) {
    auto i = a.begin();
    auto j = b.begin();
    for (; i != a.end() && j != b.end(); ++i, ++j) {
        if (i->first != j->first) {
            return i->first < j->first;
        }
        if (i->second != j->second) {
            return numberLess(i->second, j->second);
        }
    }
    return i == a.end() && j != b.end();
}

const WireStats* wireOf(const Sample& s) {
    if (s.tap.available) {
        return &s.tap;
    }
    if (s.nativePhysical.available) {
        return &s.nativePhysical;
    }
    if (s.nativeLogical.available) {
        return &s.nativeLogical;
    }
    return nullptr;
}

}  // namespace

QString pointText(const PointValues& point) {
    if (point.empty()) {
        return QStringLiteral("-");
    }
    QStringList parts;
    for (const auto& [k, v] : point) {
        parts << qs(k) + QLatin1Char('=') + qs(v);
    }
    return parts.join(QLatin1String(", "));
}

std::vector<PointSummary> summariseSamples(const std::vector<Sample>& samples) {
    std::vector<std::string> scenarioOrder;
    std::map<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>, std::vector<const Sample*>>
        groups;
    for (const auto& s : samples) {
        if (std::find(scenarioOrder.begin(), scenarioOrder.end(), s.scenarioId) == scenarioOrder.end()) {
            scenarioOrder.push_back(s.scenarioId);
        }
        groups[{s.scenarioId, {s.point.begin(), s.point.end()}}].push_back(&s);
    }
    std::vector<PointSummary> out;
    for (const auto& [key, members] : groups) {
        PointSummary p;
        p.scenarioId = qs(key.first);
        p.scenarioTitle = qs(members.front()->scenarioTitle);
        p.point = members.front()->point;
        std::vector<double> content;
        std::vector<double> recv;
        std::vector<double> trips;
        for (const Sample* s : members) {
            if (s->status != SampleStatus::Complete) {
                ++p.failed;
                continue;
            }
            p.elapsedMs.push_back(static_cast<double>(s->phases.elapsed().count()) / 1e6);
            if (s->scalar) {
                p.figure = qs(*s->scalar) + QLatin1Char(' ') + qs(s->scalarLabel);
            }
            content.push_back(static_cast<double>(s->contentBytes));
            if (const WireStats* w = wireOf(*s)) {
                recv.push_back(static_cast<double>(w->counters.recvBytes));
                if (w->counters.roundTrips) {
                    trips.push_back(static_cast<double>(*w->counters.roundTrips));
                }
            }
        }
        p.elapsed = summarise(p.elapsedMs);
        p.timed =
            p.figure.isEmpty() || std::any_of(p.elapsedMs.begin(), p.elapsedMs.end(), [](double ms) { return ms > 0; });
        p.medianContentBytes = median(content);
        if (!recv.empty()) {
            p.medianRecvBytes = median(recv);
        }
        if (!trips.empty()) {
            p.medianRoundTrips = median(trips);
        }
        out.push_back(std::move(p));
    }
    auto rank = [&](const QString& id) {
        return std::find(scenarioOrder.begin(), scenarioOrder.end(), id.toStdString()) - scenarioOrder.begin();
    };
    std::stable_sort(out.begin(), out.end(), [&](const PointSummary& a, const PointSummary& b) {
        if (a.scenarioId != b.scenarioId) {
            return rank(a.scenarioId) < rank(b.scenarioId);
        }
        return pointLess(a.point, b.point);
    });
    return out;
}

std::vector<PointComparison> compareRuns(const std::vector<Sample>& base, const std::vector<Sample>& candidate,
                                         double alpha) {
    const std::vector<PointSummary> before = summariseSamples(base);
    const std::vector<PointSummary> after = summariseSamples(candidate);
    std::vector<PointComparison> out;
    auto find = [&](const QString& scenario, const PointValues& point) {
        return std::find_if(out.begin(), out.end(),
                            [&](const PointComparison& c) { return c.scenarioId == scenario && c.point == point; });
    };
    // The new run's order first (what was just measured), then what only the base has.
    for (const auto& p : after) {
        PointComparison c;
        c.scenarioId = p.scenarioId;
        c.scenarioTitle = p.scenarioTitle;
        c.point = p.point;
        c.candidate = p;
        out.push_back(std::move(c));
    }
    for (const auto& p : before) {
        auto it = find(p.scenarioId, p.point);
        if (it == out.end()) {
            PointComparison c;
            c.scenarioId = p.scenarioId;
            c.scenarioTitle = p.scenarioTitle;
            c.point = p.point;
            out.push_back(std::move(c));
            it = out.end() - 1;
        }
        it->base = p;
    }
    for (auto& c : out) {
        if (!c.base || !c.candidate) {
            continue;
        }
        if (c.base->elapsed.count > 0 && c.candidate->elapsed.count > 0 && c.base->elapsed.median > 0) {
            c.ratio = c.candidate->elapsed.median / c.base->elapsed.median;
        }
        c.test = mannWhitneyU(c.base->elapsedMs, c.candidate->elapsedMs);
        c.significant = c.test.significant(alpha);
    }
    return out;
}

const RunRecord* findRun(const Project& project, const QString& idOrIndex) {
    const auto& h = project.history;
    if (h.empty()) {
        return nullptr;
    }
    if (idOrIndex == QLatin1String("last")) {
        return &h.back();
    }
    if (idOrIndex == QLatin1String("previous")) {
        return h.size() >= 2 ? &h[h.size() - 2] : nullptr;
    }
    bool isNumber = false;
    const int index = idOrIndex.toInt(&isNumber);
    if (isNumber && index < 0) {
        return -index <= static_cast<int>(h.size()) ? &h[h.size() - static_cast<std::size_t>(-index)] : nullptr;
    }
    const auto it = std::find_if(h.rbegin(), h.rend(), [&](const RunRecord& r) { return r.runId == idOrIndex; });
    return it == h.rend() ? nullptr : &*it;
}

}  // namespace blobbench
