#include "engine/core/ClientPause.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <thread>

namespace blobbench::clientpause {
namespace {

std::int64_t clockNs(clockid_t id) {
    timespec ts{};
    ::clock_gettime(id, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

std::int64_t steadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct State {
    std::mutex mutex;
    std::condition_variable wake;
    int watchers = 0;              // guarded
    std::uint64_t generation = 0;  // guarded: a watcher thread runs while it is the one it started with
    std::int64_t lastLook = 0;     // guarded: CLOCK_BOOTTIME at the last look, 0 = nobody watching
    std::int64_t resumedAt = 0;
    Pauses pauses;
    std::thread thread;

    // Called with the mutex held.
    void look() {
        if (lastLook == 0) {
            return;
        }
        const std::int64_t now = clockNs(CLOCK_BOOTTIME);
        if (const std::int64_t pause = pauseIn(lastLook, now); pause > 0) {
            ++pauses.count;
            pauses.totalNs += pause;
            resumedAt = steadyNs();
        }
        lastLook = now;
    }
    void run(std::uint64_t mine) {
        std::unique_lock lock(mutex);
        while (generation == mine) {
            wake.wait_for(lock, std::chrono::nanoseconds(kTickNs));
            look();
        }
    }
};

State& state() {
    static State s;
    return s;
}

}  // namespace

Watch::Watch() {
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (s.watchers++ == 0) {
        s.lastLook = clockNs(CLOCK_BOOTTIME);
        s.thread = std::thread([&s, mine = s.generation] { s.run(mine); });
    }
}

Watch::~Watch() {
    State& s = state();
    std::thread done;
    {
        std::lock_guard lock(s.mutex);
        if (--s.watchers > 0) {
            return;
        }
        ++s.generation;
        s.lastLook = 0;
        done = std::move(s.thread);
    }
    s.wake.notify_all();
    done.join();
}

std::int64_t pauseIn(std::int64_t bootBeforeNs, std::int64_t bootNowNs) {
    const std::int64_t gap = bootNowNs - bootBeforeNs;
    return gap > kPauseThresholdNs ? gap - kTickNs : 0;
}

std::int64_t resumedAt() {
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.look();
    return s.resumedAt;
}

Pauses pausesSoFar() {
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.look();
    return s.pauses;
}

std::string disturbanceNote(std::int64_t pausedNs, std::string_view during) {
    if (pausedNs <= 0) {
        return {};
    }
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", static_cast<double>(pausedNs) / 1e9);
    return std::string("the client was stopped or suspended for ") + seconds + " s during " + std::string(during) +
           " (SIGSTOP, a suspend or an overloaded machine): its times are not the server's and the link's alone";
}

std::string disturbanceSince(const Pauses& before, std::string_view during) {
    const Pauses now = pausesSoFar();
    if (now.count == before.count) {
        return {};
    }
    return disturbanceNote(std::max<std::int64_t>(now.totalNs - before.totalNs, 1), during);
}

}  // namespace blobbench::clientpause
