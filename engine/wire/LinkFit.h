#pragma once

#include <string>
#include <vector>

#include "engine/wire/LinkProfile.h"

namespace blobbench {

// The what-if model (LinkModel.h) run backwards: from samples of known round trips, bytes and
// elapsed time, the link that best explains them. Each sample's time is taken as
//     seconds = roundTrips * rtt + bytes * 8 / bandwidth
// (the server's own work and the loopback are in neither term: they show in the residuals), and rtt
// and 1 / bandwidth are fitted by least squares over the samples.
struct LinkSample {
    std::string label;  // "all BLOBs, 5.0.3"
    double roundTrips = 0;
    double bytes = 0;  // what crossed the line that limits it (received, for reads)
    double seconds = 0;
};

struct LinkFitResult {
    bool ok = false;
    std::string why;                       // when not ok: "2 samples are needed", "the samples do not tell ... apart"
    double rttSeconds = 0;                 // round-trip time
    double bitsPerSecond = 0;              // bandwidth
    std::vector<double> predictedSeconds;  // per sample, in order
    std::vector<double> residualSeconds;   // measured - predicted
    double rmsSeconds = 0;

    // The link the relay emulates for this fit: rtt split evenly between the two directions, the
    // bandwidth both ways (a fit of received bytes says nothing of the other direction).
    LinkProfile profile() const;
    std::string describe() const;  // "RTT 8.85 ms, 55.3 Mbit/s (rms residual 228 ms)"
};

LinkFitResult fitLink(const std::vector<LinkSample>& samples);

}  // namespace blobbench
