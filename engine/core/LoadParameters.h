#pragma once

#include <chrono>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/core/Parameter.h"

namespace blobbench {

// How many sessions a run puts on the server at once, and how (engine/run/SessionRunner.h). Every
// driver appends them to its parameters(), so the CLI (-P sessions=8), projects, sweeps (sessions
// 1, 2, 4 ... 64 on x) and the window's parameter panel get them like any tunable; the run applies
// them, never the driver. Their ids start with "sessions" or "load_" and their labels with "Load: ".
namespace loadparam {
inline constexpr const char* Sessions = "sessions";
inline constexpr const char* DurationS = "load_duration_s";  // 0: each session runs the repetitions
inline constexpr const char* Rate = "load_rate";             // statements/s over all sessions; 0: closed loop
inline constexpr const char* RampUpS = "load_ramp_up_s";
// The emulated link (link_*) is one line all sessions share instead of one per session. Networked
// engines only: an embedded engine has no link.
inline constexpr const char* SharedLink = "load_shared_link";
}  // namespace loadparam

inline constexpr std::int64_t kMaxSessions = 1024;

std::vector<ParameterSpec> loadParameters();
bool isLoadParameter(std::string_view id);

// What a run does about sessions, from resolved or given values (a missing id takes its default).
struct LoadSettings {
    int sessions = 1;
    std::optional<std::chrono::milliseconds> duration;  // unset: the repetitions
    std::optional<double> rate;                         // unset: closed loop
    std::chrono::milliseconds rampUp{0};
    bool sharedLink = false;
    // A run of many sessions, or a single session under a duration or rate: SessionRunner's figures.
    bool concurrent() const { return sessions > 1 || duration.has_value(); }
    friend bool operator==(const LoadSettings&, const LoadSettings&) = default;
};

// Bad values (out of range, a rate without a duration, a ramp-up without a duration): Error(Usage)
// naming the parameter.
LoadSettings resolveLoadSettings(const ParameterValues& values);

}  // namespace blobbench
