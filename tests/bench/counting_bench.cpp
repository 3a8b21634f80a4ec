// What counting the wire costs (issue #18): the same scenario on the same kept-open session kind,
// run without counting (wire_tap=false), the default measured run (counted in-process) and counted
// through the relay (wire_counting=relay), alternated round by round (the order rotates), through the Runner as the
// CLI uses it. Prints the median elapsed time (execute + fetch) of each and the ratios to the
// uncounted run; the bar is in-process <= 1.03 x uncounted.
//
//   BLOBBENCH_PG_CONNINFO=... BLOBBENCH_FB_DATABASE=... BLOBBENCH_FB_USER=... BLOBBENCH_FB_PASSWORD=...
//   [BLOBBENCH_FB5_DATABASE=... BLOBBENCH_FB5_USER=... BLOBBENCH_FB5_PASSWORD=... BLOBBENCH_FB5_CLIENT=...]
//   counting_bench [--rounds 5] [--warmup 1]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/data/ReferenceSuite.h"
#include "engine/run/Runner.h"

using namespace blobbench;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2);
}

struct Case {
    std::string title;
    ConnectionSpec spec;
    Dialect dialect;
    std::string scenario;
};

enum Mode { None, InProcess, Relay, kModes };

// CPU time of this thread (the Runner runs on it): what counting costs the client, much less
// disturbed by a busy machine than elapsed time. The relay's cost is mostly elsewhere (its thread,
// the hand-overs), so this column is for the in-process side.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Measured {
    double ms = 0;
    double cpuMs = 0;
    std::uint64_t roundTrips = 0;
};

Measured runOnce(const Case& c, Mode mode, int warmups) {
    RunPlan plan;
    plan.connection = c.spec;
    for (const Scenario& s : referenceSuite(c.dialect)) {
        if (s.id == c.scenario) {
            plan.scenarios.push_back(s);
        }
    }
    plan.warmups = warmups;
    plan.repetitions = 1;
    plan.wireTap = mode != None;
    plan.parameters["wire_tap"] = mode == None ? "false" : "true";
    if (mode == Relay) {
        plan.parameters["wire_counting"] = "relay";  // the default counts in-process
    }
    Runner runner;
    RunObserver quiet;
    const double cpu0 = threadCpuMs();
    const RunOutcome outcome = runner.run(plan, quiet);
    const double cpu = threadCpuMs() - cpu0;
    if (!outcome.ok || outcome.samples.empty()) {
        std::fprintf(stderr, "%s: %s\n", c.title.c_str(), outcome.error.c_str());
        std::exit(1);
    }
    const Sample& s = outcome.samples.back();
    if (mode != None && s.tap.method != (mode == InProcess ? "in-process" : "relay")) {
        std::fprintf(stderr, "%s: counted by '%s', not the mode measured\n", c.title.c_str(), s.tap.method.c_str());
        std::exit(1);
    }
    return {std::chrono::duration<double, std::milli>(s.phases.elapsed()).count(), cpu,
            s.tap.available ? s.tap.counters.roundTrips.value_or(0) : 0};
}

}  // namespace

int main(int argc, char** argv) {
    int rounds = 5;
    int warmups = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--rounds")) {
            rounds = std::atoi(argv[i + 1]);
        } else if (!std::strcmp(argv[i], "--warmup")) {
            warmups = std::atoi(argv[i + 1]);
        }
    }
    std::vector<Case> cases;
    if (const std::string fb = env("BLOBBENCH_FB_DATABASE"); !fb.empty()) {
        ConnectionSpec spec;
        spec.engine = "firebird";
        spec.target = fb;
        spec.user = env("BLOBBENCH_FB_USER");
        spec.password = env("BLOBBENCH_FB_PASSWORD");
        cases.push_back({"Firebird, short BLOBs", spec, Dialect::Firebird, "short-blobs"});
        cases.push_back({"Firebird, all BLOBs", spec, Dialect::Firebird, "all-blobs"});
    }
    if (const std::string fb5 = env("BLOBBENCH_FB5_DATABASE"); !fb5.empty()) {
        ConnectionSpec spec;
        spec.engine = "firebird";
        spec.target = fb5;
        spec.user = env("BLOBBENCH_FB5_USER");
        spec.password = env("BLOBBENCH_FB5_PASSWORD");
        spec.clientLibrary = env("BLOBBENCH_FB5_CLIENT");
        cases.push_back({"Firebird 5, short BLOBs", spec, Dialect::Firebird, "short-blobs"});
        cases.push_back({"Firebird 5, all BLOBs", spec, Dialect::Firebird, "all-blobs"});
    }
    if (const std::string pg = env("BLOBBENCH_PG_CONNINFO"); !pg.empty()) {
        ConnectionSpec spec;
        spec.engine = "postgres";
        spec.target = pg;
        cases.push_back({"PostgreSQL, all values", spec, Dialect::PostgreSQL, "all-blobs"});
    }
    std::printf("median of %d alternated rounds (%d warm-up each), elapsed = execute + fetch\n", rounds, warmups);
    std::printf(
        "| query | round trips | --no-tap ms | default (in-process) ms | relay ms | default / --no-tap | relay / "
        "--no-tap "
        "|\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    for (const Case& c : cases) {
        std::vector<double> ms[kModes], cpu[kModes];
        std::uint64_t roundTrips = 0;
        for (int r = 0; r < rounds; ++r) {
            for (int k = 0; k < kModes; ++k) {
                const Mode mode = static_cast<Mode>((r + k) % kModes);
                const Measured m = runOnce(c, mode, warmups);
                ms[mode].push_back(m.ms);
                cpu[mode].push_back(m.cpuMs);
                if (mode == InProcess) {
                    roundTrips = m.roundTrips;
                }
            }
        }
        const double none = median(ms[None]), in = median(ms[InProcess]), relay = median(ms[Relay]);
        auto least = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
        std::printf("| %s | %llu | %.1f | %.1f | %.1f | %.3f | %.3f |\n", c.title.c_str(),
                    static_cast<unsigned long long>(roundTrips), none, in, relay, in / none, relay / none);
        std::printf("|   client thread CPU per run (connect, warm-up, run) | | %.1f | %.1f | %.1f | %.3f | %.3f |\n",
                    median(cpu[None]), median(cpu[InProcess]), median(cpu[Relay]),
                    median(cpu[InProcess]) / median(cpu[None]), median(cpu[Relay]) / median(cpu[None]));
        std::printf("|   fastest run | | %.1f | %.1f | %.1f | %.3f | %.3f |\n", least(ms[None]), least(ms[InProcess]),
                    least(ms[Relay]), least(ms[InProcess]) / least(ms[None]), least(ms[Relay]) / least(ms[None]));
        std::fflush(stdout);
    }
    return 0;
}
