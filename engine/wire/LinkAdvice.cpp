#include "engine/wire/LinkAdvice.h"

#include <algorithm>

namespace blobbench {
namespace {

std::chrono::nanoseconds median(std::vector<std::chrono::nanoseconds> values) {
    if (values.empty()) {
        return std::chrono::nanoseconds{0};
    }
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

bool agrees(const std::map<std::string, std::string>& point, const std::map<std::string, std::string>& current) {
    if (point.empty() || current.empty()) {
        return false;
    }
    return std::all_of(point.begin(), point.end(), [&](const auto& entry) {
        const auto it = current.find(entry.first);
        return it != current.end() && it->second == entry.second;
    });
}

struct Collected {
    std::map<std::string, std::string> point;
    std::vector<std::chrono::nanoseconds> measured, predicted;
};

}  // namespace

std::vector<ScenarioAdvice> adviseParameterSets(const std::vector<Sample>& samples, const LinkProfile& link,
                                                const std::map<std::string, std::string>& current) {
    std::vector<ScenarioAdvice> advice;
    std::vector<std::vector<Collected>> sets;  // per scenario, in the order first measured
    // Where each scenario and each of its parameter sets is, so collecting stays linear in the
    // samples however many sets a sweep measured.
    std::map<std::string, std::size_t> scenarioIndex;
    std::vector<std::map<std::map<std::string, std::string>, std::size_t>> setIndex;
    for (const Sample& s : samples) {
        if (s.status != SampleStatus::Complete) {
            continue;
        }
        const auto p = predictSample(s, link);
        if (!p) {
            continue;
        }
        const auto [scenario, newScenario] = scenarioIndex.try_emplace(s.scenarioId, advice.size());
        if (newScenario) {
            advice.push_back(ScenarioAdvice{s.scenarioId, s.scenarioTitle, {}});
            sets.emplace_back();
            setIndex.emplace_back();
        }
        std::vector<Collected>& mine = sets[scenario->second];
        const auto [set, newSet] = setIndex[scenario->second].try_emplace(s.point, mine.size());
        if (newSet) {
            mine.push_back(Collected{s.point, {}, {}});
        }
        mine[set->second].measured.push_back(p->measured);
        mine[set->second].predicted.push_back(p->predicted);
    }
    for (std::size_t i = 0; i < advice.size(); ++i) {
        auto& ranked = advice[i].ranked;
        for (const Collected& c : sets[i]) {
            ParameterSetAdvice a;
            a.point = c.point;
            a.samples = c.predicted.size();
            a.measured = median(c.measured);
            a.predicted = median(c.predicted);
            ranked.push_back(a);
        }
        const auto agreeing = std::find_if(ranked.begin(), ranked.end(),
                                           [&](const ParameterSetAdvice& a) { return agrees(a.point, current); });
        (agreeing != ranked.end() ? *agreeing : ranked.front()).current = true;  // else the first measured
        const auto now =
            std::find_if(ranked.begin(), ranked.end(), [](const ParameterSetAdvice& a) { return a.current; });
        const double currentSeconds = std::chrono::duration<double>(now->predicted).count();
        for (ParameterSetAdvice& a : ranked) {
            const double seconds = std::chrono::duration<double>(a.predicted).count();
            a.savingVsCurrent = currentSeconds > 0 ? (currentSeconds - seconds) / currentSeconds : 0;
        }
        std::stable_sort(ranked.begin(), ranked.end(), [](const ParameterSetAdvice& x, const ParameterSetAdvice& y) {
            return x.predicted < y.predicted;
        });
        ranked.front().best = true;
    }
    return advice;
}

}  // namespace blobbench
