#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/wire/LinkModel.h"

namespace blobbench {

// One parameter set of a scenario at a predicted link: the medians of its samples. A set is one
// connection, one value of every requested parameter and one link the samples were measured over
// (samples of another engine, inline size or link never mix in one set's figures).
struct ParameterSetAdvice {
    std::string connection;  // the samples' connection label (their engine where none)
    // every parameter as resolved, the sweep point's values over them, but the wire tap's and the
    // link's (wireparam::*: how it was measured, which measuredOver says)
    std::map<std::string, std::string> settings;
    std::string measuredOver;                  // the link the samples were measured over: "unshaped" or its description
    std::map<std::string, std::string> point;  // the sweep point; empty outside a sweep
    // What names the set among its scenario's sets: "connection" where they have several, "link"
    // where they were measured over several, then the settings that differ among the sets of its
    // connection; empty when the scenario has one set.
    std::map<std::string, std::string> differing;
    std::size_t samples = 0;  // with a trace
    std::chrono::nanoseconds measured{0};
    std::chrono::nanoseconds predicted{0};
    bool current = false;
    bool best = false;
    double savingVsCurrent = 0;  // (current - this) / current, of the predicted times
};

// A scenario's parameter sets, fastest predicted first.
struct ScenarioAdvice {
    std::string scenarioId;
    std::string scenarioTitle;
    std::vector<ParameterSetAdvice> ranked;
};

// Ranks each scenario's parameter sets by their median predicted time at `link`. The current set is
// one on `currentConnection` (any, when empty) whose settings agree with `current` on every tunable
// both name (a project's values), else the first measured on that connection, else the first. Samples without a trace,
// failed or cancelled ones are left out; a scenario none of whose samples has a trace gets no advice.
std::vector<ScenarioAdvice> adviseParameterSets(const std::vector<Sample>& samples, const LinkProfile& link,
                                                const std::map<std::string, std::string>& current = {},
                                                const std::string& currentConnection = {});

// The identity of the parameter set a sample belongs to (its connection, settings and link).
struct ParameterSetKey {
    std::string connection;
    std::map<std::string, std::string> settings;
    std::string measuredOver;
    friend bool operator==(const ParameterSetKey&, const ParameterSetKey&) = default;
    // NOLINTNEXTLINE(modernize-use-nullptr): a false positive of clang-tidy 14 on a defaulted <=>.
    friend auto operator<=>(const ParameterSetKey&, const ParameterSetKey&) = default;
};
ParameterSetKey parameterSetKey(const Sample& sample);

}  // namespace blobbench
