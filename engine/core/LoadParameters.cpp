#include "engine/core/LoadParameters.h"

#include <string>

#include "engine/core/Error.h"

namespace blobbench {
namespace {

std::int64_t valueOf(const ParameterValues& values, const char* id, const ParameterSpec& spec) {
    const auto it = values.find(id);
    const std::string text = it == values.end() ? spec.defaultValue : normaliseParameter(spec, it->second);
    return std::stoll(text);
}

}  // namespace

std::vector<ParameterSpec> loadParameters() {
    std::vector<ParameterSpec> specs;
    ParameterSpec sessions = integerSpec(
        loadparam::Sessions, "Load: sessions", 1, 1, kMaxSessions, "",
        "Sessions at once, each its own connection on its own thread, with its own wire counting and latency "
        "histogram. Above 1 the run reports throughput (statements/s, rows/s, MB/s) and latency percentiles "
        "from every statement instead of one sample a repetition. Sweep it (1, 2, 4 ... 64) for throughput "
        "against sessions.");
    sessions.scale = ParameterScale::Log;
    specs.push_back(sessions);
    specs.push_back(integerSpec(loadparam::DurationS, "Load: duration", 0, 0, 86400, "s",
                                "Closed loop: each session runs the scenarios in turn, as fast as it can, for this "
                                "long after the ramp-up. 0: each session runs the repetitions."));
    specs.push_back(integerSpec(loadparam::Rate, "Load: rate", 0, 0, 1000000, "statements/s",
                                "Open loop (needs a duration): statements are due at this rate over all sessions, "
                                "and latency runs from when each was due, so a stalled server shows in it (no "
                                "coordinated omission). 0: closed loop."));
    specs.push_back(integerSpec(loadparam::RampUpS, "Load: ramp-up", 0, 0, 3600, "s",
                                "Statements that start in the first seconds after every session connected run but "
                                "are left out of every figure (needs a duration)."));
    ParameterSpec shared;
    shared.id = loadparam::SharedLink;
    shared.label = "Load: shared link";
    shared.type = ParameterType::Boolean;
    shared.defaultValue = "false";
    shared.help =
        "The emulated link (Link: bandwidth and latency) is one line that all sessions share, as behind one DSL line "
        "or VPN tunnel: their bytes queue for its bandwidth one after the other (first come, first served), each "
        "session keeping its own latency. Off: each session has a link of its own. Not in effect without a "
        "bandwidth limit (latency alone is not shared) or with one session.";
    specs.push_back(shared);
    return specs;
}

bool isLoadParameter(std::string_view id) {
    return id == loadparam::Sessions || id == loadparam::DurationS || id == loadparam::Rate ||
           id == loadparam::RampUpS || id == loadparam::SharedLink;
}

LoadSettings resolveLoadSettings(const ParameterValues& values) {
    const std::vector<ParameterSpec> specs = loadParameters();
    LoadSettings s;
    s.sessions = static_cast<int>(valueOf(values, loadparam::Sessions, specs[0]));
    const std::int64_t duration = valueOf(values, loadparam::DurationS, specs[1]);
    const std::int64_t rate = valueOf(values, loadparam::Rate, specs[2]);
    const std::int64_t rampUp = valueOf(values, loadparam::RampUpS, specs[3]);
    if (duration > 0) {
        s.duration = std::chrono::seconds(duration);
    }
    if (rate > 0) {
        if (!s.duration) {
            throw Error(ErrorKind::Usage, std::string("parameter '") + loadparam::Rate +
                                              "': an open loop needs a duration (set " + loadparam::DurationS + ")");
        }
        s.rate = static_cast<double>(rate);
    }
    if (rampUp > 0 && !s.duration) {
        throw Error(ErrorKind::Usage, std::string("parameter '") + loadparam::RampUpS +
                                          "': a ramp-up needs a duration (set " + loadparam::DurationS + ")");
    }
    s.rampUp = std::chrono::seconds(rampUp);
    if (const auto it = values.find(loadparam::SharedLink); it != values.end()) {
        s.sharedLink = normaliseParameter(specs[4], it->second) == "true";
    }
    return s;
}

}  // namespace blobbench
