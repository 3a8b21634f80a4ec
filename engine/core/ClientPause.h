#pragma once

#include <cstdint>
#include <string>
#include <string_view>

// Notices that this process itself was not running for a while: stopped (SIGSTOP, Ctrl+Z, a
// debugger), a suspended machine, or one too loaded to schedule it. A silence the stall timeout
// would blame on the server may then be the client's own, and a sample's times include the pause.
//
// How: a watcher thread looks at CLOCK_BOOTTIME every kTick. Between two looks it advances by
// about kTick; more than kPauseThreshold means the process was not running. CLOCK_BOOTTIME covers
// both causes: it advances while the process is stopped (as CLOCK_MONOTONIC does) and while the
// machine is suspended (which CLOCK_MONOTONIC does not count). A thread that resumes before the
// watcher does (the relay, a receive of the client library) catches the pause up itself in
// resumedAt(), so it never acts on a silence the pause caused.
namespace blobbench::clientpause {

constexpr std::int64_t kTickNs = 100'000'000;              // the watcher's period
constexpr std::int64_t kPauseThresholdNs = 1'000'000'000;  // a gap between looks longer than this is a pause

// While at least one is alive, the watcher runs (the Runner holds one for a run). Without one,
// nothing is detected and resumedAt() stays as it was.
class Watch {
public:
    Watch();
    ~Watch();
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;
};

// The pause a gap between two looks at CLOCK_BOOTTIME shows (ns), or 0 when it is an ordinary tick.
std::int64_t pauseIn(std::int64_t bootBeforeNs, std::int64_t bootNowNs);

// The steady-clock time (ns since its epoch, as std::chrono::steady_clock) at which the client
// last resumed from a pause; 0 when none was seen. A silence that began before it is not the
// server's. Looks at the clock first, so a pause that just ended counts.
std::int64_t resumedAt();

struct Pauses {
    std::uint64_t count = 0;
    std::int64_t totalNs = 0;  // how long the process was not running, summed
};
Pauses pausesSoFar();  // for a sample: compare before and after (looks at the clock first)

// The note a measurement carries when the client was not running for `pausedNs` during it: "the
// client was stopped or suspended for 3.0 s during DURING (...)"; "" for 0.
std::string disturbanceNote(std::int64_t pausedNs, std::string_view during);
// disturbanceNote of the pauses seen since `before` ("" when none).
std::string disturbanceSince(const Pauses& before, std::string_view during);

}  // namespace blobbench::clientpause
