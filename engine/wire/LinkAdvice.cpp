#include "engine/wire/LinkAdvice.h"

#include "engine/wire/WireParameters.h"

#include <algorithm>
#include <set>

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

// A set agrees with the project's values where every tunable both name has the same value; a set
// with no settings, or no values to agree with, does not.
bool agrees(const std::map<std::string, std::string>& settings, const std::map<std::string, std::string>& current) {
    if (settings.empty() || current.empty()) {
        return false;
    }
    bool named = false;
    for (const auto& [id, value] : current) {
        const auto it = settings.find(id);
        if (it == settings.end()) {
            continue;
        }
        if (it->second != value) {
            return false;
        }
        named = true;
    }
    return named;
}

struct Collected {
    ParameterSetKey key;
    std::map<std::string, std::string> point;
    std::vector<std::chrono::nanoseconds> measured, predicted;
};

// The keys whose values differ among `maps` (a key absent from one counted as "").
std::set<std::string> differingKeys(const std::vector<const std::map<std::string, std::string>*>& maps) {
    std::set<std::string> keys, differ;
    for (const auto* m : maps) {
        for (const auto& [k, v] : *m) {
            keys.insert(k);
        }
    }
    for (const std::string& k : keys) {
        std::set<std::string> values;
        for (const auto* m : maps) {
            const auto it = m->find(k);
            values.insert(it == m->end() ? std::string() : it->second);
        }
        if (values.size() > 1) {
            differ.insert(k);
        }
    }
    return differ;
}

// Names each set of one scenario by what tells it apart (ParameterSetAdvice::differing).
void nameSets(std::vector<ParameterSetAdvice>& ranked) {
    std::set<std::string> connections, links;
    for (const ParameterSetAdvice& a : ranked) {
        connections.insert(a.connection);
        links.insert(a.measuredOver);
    }
    std::map<std::string, std::set<std::string>> differByConnection;
    for (const std::string& c : connections) {
        std::vector<const std::map<std::string, std::string>*> mine;
        for (const ParameterSetAdvice& a : ranked) {
            if (a.connection == c) {
                mine.push_back(&a.settings);
            }
        }
        differByConnection[c] = differingKeys(mine);
    }
    for (ParameterSetAdvice& a : ranked) {
        if (connections.size() > 1) {
            a.differing["connection"] = a.connection;
        }
        if (links.size() > 1) {
            a.differing["link"] = a.measuredOver;
        }
        for (const std::string& k : differByConnection[a.connection]) {
            const auto it = a.settings.find(k);
            a.differing[k] = it == a.settings.end() ? std::string() : it->second;
        }
    }
}

}  // namespace

ParameterSetKey parameterSetKey(const Sample& s) {
    ParameterSetKey key;
    key.connection = s.connection.empty() ? s.engine : s.connection;
    // The wire tap's and the link's own settings say how the sample was measured, not what ran:
    // the link is `measuredOver`, from what the Runner recorded.
    for (const auto& [k, v] : *s.parameters) {
        if (!isWireParameter(k)) {
            key.settings[k] = v;
        }
    }
    for (const auto& [k, v] : s.point) {
        if (!isWireParameter(k)) {
            key.settings[k] = v;
        }
    }
    const auto link = s.negotiated->find("link");
    key.measuredOver = link == s.negotiated->end() ? "unshaped" : link->second;
    return key;
}

std::vector<ScenarioAdvice> adviseParameterSets(const std::vector<Sample>& samples, const LinkProfile& link,
                                                const std::map<std::string, std::string>& current,
                                                const std::string& currentConnection) {
    std::vector<ScenarioAdvice> advice;
    std::vector<std::vector<Collected>> sets;  // per scenario, in the order first measured
    // Where each scenario and each of its parameter sets is, so collecting stays linear in the
    // samples however many sets a sweep measured.
    std::map<std::string, std::size_t> scenarioIndex;
    std::vector<std::map<ParameterSetKey, std::size_t>> setIndex;
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
        ParameterSetKey key = parameterSetKey(s);
        const auto [set, newSet] = setIndex[scenario->second].try_emplace(key, mine.size());
        if (newSet) {
            mine.push_back(Collected{std::move(key), s.point, {}, {}});
        }
        mine[set->second].measured.push_back(p->measured);
        mine[set->second].predicted.push_back(p->predicted);
    }
    for (std::size_t i = 0; i < advice.size(); ++i) {
        auto& ranked = advice[i].ranked;
        for (const Collected& c : sets[i]) {
            ParameterSetAdvice a;
            a.connection = c.key.connection;
            a.settings = c.key.settings;
            a.measuredOver = c.key.measuredOver;
            a.point = c.point;
            a.samples = c.predicted.size();
            a.measured = median(c.measured);
            a.predicted = median(c.predicted);
            ranked.push_back(a);
        }
        nameSets(ranked);
        auto onCurrent = [&](const ParameterSetAdvice& a) {
            return currentConnection.empty() || a.connection == currentConnection;
        };
        auto agreeing = std::find_if(ranked.begin(), ranked.end(), [&](const ParameterSetAdvice& a) {
            return onCurrent(a) && agrees(a.settings, current);
        });
        if (agreeing == ranked.end()) {
            agreeing = std::find_if(ranked.begin(), ranked.end(), onCurrent);  // the first measured there
        }
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
