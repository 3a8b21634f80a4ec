#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/wire/LinkModel.h"

namespace blobbench {

// One parameter set (sweep point) of a scenario at a predicted link: the medians of its samples.
struct ParameterSetAdvice {
    std::map<std::string, std::string> point;  // empty outside a sweep
    std::size_t samples = 0;                   // with a trace
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
// the one whose point agrees with `current` on every tunable it names (a project's values), else
// the one measured first (a sweep's first point). Samples without a trace, failed or cancelled
// ones are left out; a scenario none of whose samples has a trace gets no advice.
std::vector<ScenarioAdvice> adviseParameterSets(const std::vector<Sample>& samples, const LinkProfile& link,
                                                const std::map<std::string, std::string>& current = {});

}  // namespace blobbench
