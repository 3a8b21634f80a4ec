#include "engine/wire/LinkFit.h"

#include <cmath>

#include <cstdio>

namespace blobbench {

LinkFitResult fitLink(const std::vector<LinkSample>& samples) {
    LinkFitResult r;
    if (samples.size() < 2) {
        r.why = "at least 2 samples are needed to fit a round-trip time and a bandwidth";
        return r;
    }
    // Normal equations of t = a * n + b * B, with B in bits: [snn snb; snb sbb] [a b] = [snt sbt].
    double snn = 0, snb = 0, sbb = 0, snt = 0, sbt = 0;
    for (const LinkSample& s : samples) {
        const double bits = s.bytes * 8.0;
        snn += s.roundTrips * s.roundTrips;
        snb += s.roundTrips * bits;
        sbb += bits * bits;
        snt += s.roundTrips * s.seconds;
        sbt += bits * s.seconds;
    }
    const double det = snn * sbb - snb * snb;
    if (!(std::abs(det) > 1e-12 * snn * sbb)) {
        r.why = "the samples do not tell round trips and bytes apart (their ratios are all the same)";
        return r;
    }
    const double a = (snt * sbb - sbt * snb) / det;
    const double b = (snn * sbt - snb * snt) / det;
    if (!(a > 0) || !(b > 0)) {
        r.why =
            "the best fit has a round-trip time or a bandwidth that is not positive: the times are not those of "
            "a link";
        return r;
    }
    r.ok = true;
    r.rttSeconds = a;
    r.bitsPerSecond = 1.0 / b;
    double sum = 0;
    for (const LinkSample& s : samples) {
        const double predicted = a * s.roundTrips + b * s.bytes * 8.0;
        r.predictedSeconds.push_back(predicted);
        r.residualSeconds.push_back(s.seconds - predicted);
        sum += (s.seconds - predicted) * (s.seconds - predicted);
    }
    r.rmsSeconds = std::sqrt(sum / static_cast<double>(samples.size()));
    return r;
}

LinkProfile LinkFitResult::profile() const {
    const auto oneWay = std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(rttSeconds * 0.5e9)));
    return LinkProfile::symmetric(oneWay, static_cast<std::uint64_t>(std::llround(bitsPerSecond)));
}

std::string LinkFitResult::describe() const {
    if (!ok) {
        return "no fit: " + why;
    }
    char buf[128];
    std::snprintf(buf, sizeof buf, "RTT %.2f ms, %.1f Mbit/s (rms residual %.0f ms)", rttSeconds * 1e3,
                  bitsPerSecond / 1e6, rmsSeconds * 1e3);
    return buf;
}

}  // namespace blobbench
