// What re-plotting a what-if costs: 10,000 samples predicted at a new link (the target:
// under 50 ms on the UI thread), for traces of 20, 100 and 500 exchanges a sample, and the advice
// (ranking parameter sets) over the same samples. Prints figures, asserts nothing.
// Usage: predict_bench [SAMPLES]   (default 10000)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "BenchTraces.h"
#include "engine/wire/LinkAdvice.h"
#include "engine/wire/LinkModel.h"

using namespace blobbench;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<Sample> samples(std::size_t count, std::size_t exchanges) {
    std::mt19937 random(42);
    std::vector<Sample> out(count);
    for (std::size_t i = 0; i < count; ++i) {
        Sample& s = out[i];
        s.scenarioId = "scenario-" + std::to_string(i % 7);
        s.scenarioTitle = s.scenarioId;
        s.point["max_inline_blob_size"] = std::to_string((i / 7) % 20 * 1024);
        s.phases.fetch = std::chrono::milliseconds(5 + random() % 50);
        s.trace = bench::madeUpTrace(random, exchanges);
    }
    return out;
}

double milliseconds(Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t count = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10'000;
    LinkProfile link = LinkProfile::symmetric(40ms, 2'000'000);
    for (std::size_t exchanges : {20u, 100u, 500u}) {
        const std::vector<Sample> all = samples(count, exchanges);
        double best = 1e9;
        std::chrono::nanoseconds sink{0};
        for (int round = 0; round < 5; ++round) {
            link.latencyUp = link.latencyDown = std::chrono::milliseconds(10 + round);  // a new link each time
            const auto t0 = Clock::now();
            for (const Sample& s : all) {
                sink += predictSample(s, link)->predicted;
            }
            best = std::min(best, milliseconds(Clock::now() - t0));
        }
        const auto t0 = Clock::now();
        const auto advice = adviseParameterSets(all, link);
        const double advise = milliseconds(Clock::now() - t0);
        std::printf(
            "%zu samples x %zu exchanges: predicted in %.2f ms (best of 5; target < 50 ms), "
            "advice for %zu scenarios in %.2f ms  [sum of predictions %.1f s]\n",
            count, exchanges, best, advice.size(), advise, std::chrono::duration<double>(sink).count());
    }
    return 0;
}
