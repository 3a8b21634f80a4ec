#include "engine/wire/LinkModel.h"

#include <cmath>

#include <algorithm>

namespace blobbench {
namespace {

// The line time of `bytes` at `bandwidth` bit/s, as LinkShaper schedules it; 0 = unlimited.
double lineSeconds(std::uint64_t bytes, std::uint64_t bandwidth) {
    return bandwidth == 0 ? 0.0 : static_cast<double>(bytes) * 8.0 / static_cast<double>(bandwidth);
}

double seconds(std::chrono::nanoseconds t) {
    return std::chrono::duration<double>(t).count();
}

// Saturates: a time past what int64 nanoseconds hold (centuries of bytes at a tiny bandwidth) or a
// NaN must not wrap into a negative figure on any caller (the window calls the model directly).
std::chrono::nanoseconds nanos(double s) {
    const double ns = s * 1e9;
    if (std::isnan(ns)) {
        return std::chrono::nanoseconds::max();
    }
    if (ns >= 9.2e18) {
        return std::chrono::nanoseconds::max();
    }
    if (ns <= -9.2e18) {
        return std::chrono::nanoseconds::min();
    }
    return std::chrono::nanoseconds(static_cast<std::int64_t>(ns + (ns >= 0 ? 0.5 : -0.5)));
}

// A trace of few exchanges says little about the loopback: its quickest answer is mostly the
// server's work, and for a statement of one exchange all of it (a warm-up SELECT on Firebird 5:
// 0.1 ms predicted for 183 ms measured, hostile round 4). Below kFewExchanges the estimate is
// capped at kLoopbackCeiling, more than a loopback round trip takes on a loaded machine.
constexpr std::size_t kFewExchanges = 8;
constexpr std::chrono::nanoseconds kLoopbackCeiling = std::chrono::microseconds(200);

}  // namespace

LinkPrediction predictElapsed(const ExchangeTrace& trace, std::chrono::nanoseconds measured, const LinkProfile& link) {
    LinkPrediction p;
    p.measured = measured;
    p.exchanges = trace.exchanges.size();
    p.sendBytes = trace.trailingSendBytes;
    p.recvBytes = trace.leadingRecvBytes;
    // The loopback's round trip: the quickest answer of the trace, which is the loopback's round trip
    // plus the least work a server does; every exchange paid at least that. One pass: re-plotting
    // 10,000 samples at a new link must stay well under 50 ms (tests/bench/predict_bench.cpp).
    std::chrono::nanoseconds fastest = std::chrono::nanoseconds::max();
    double transfer = 0;
    const bool capped = link.bandwidthUp != 0 || link.bandwidthDown != 0;
    for (const Exchange& e : trace.exchanges) {
        fastest = std::min(fastest, e.serverTime);
        p.sendBytes += e.sendBytes;
        p.recvBytes += e.recvBytes;
        if (capped) {
            // The relay takes the request off the client at once and queues it before the line; the
            // answer's bytes leave as the server writes them, so a slow server hides a slow line.
            transfer += std::max(0.0, lineSeconds(e.sendBytes, link.bandwidthUp) - seconds(e.sendTime));
            transfer += std::max(0.0, lineSeconds(e.recvBytes, link.bandwidthDown) - seconds(e.recvTime));
        }
    }
    if (p.exchanges < kFewExchanges) {
        fastest = std::min(fastest, kLoopbackCeiling);
    }
    p.loopback = p.exchanges == 0 ? std::chrono::nanoseconds{0} : fastest * static_cast<std::int64_t>(p.exchanges);
    p.latency = (link.latencyUp + link.latencyDown) * static_cast<std::int64_t>(p.exchanges);
    p.transfer = nanos(transfer);
    // What the measured time spent off the loopback's round trips; never below 0 (a trace whose
    // times pass its sample's, as a hand-made file may hold, predicted -998 ms).
    const double rest = std::max(0.0, seconds(measured) - seconds(p.loopback));
    const double total = rest + seconds(p.latency) + transfer;
    // Exact in nanoseconds where it fits; saturated where the sum would wrap.
    p.predicted = std::abs(total) < 9e9
                      ? (rest > 0 ? measured - p.loopback : std::chrono::nanoseconds{0}) + p.latency + p.transfer
                      : nanos(total);
    return p;
}

bool measuredOnAnEmulatedLink(const Sample& sample) {
    // The link as the relay emulated it: the tunables hold whole milliseconds, so a latency under one
    // (500us) reads 0 there (hostile round 5m L2).
    if (const auto link = sample.negotiated->find("link");
        link != sample.negotiated->end() && link->second != "unshaped") {
        return true;
    }
    for (const char* id : {"link_latency_up_ms", "link_latency_down_ms", "link_bandwidth_up", "link_bandwidth_down"}) {
        const auto it = sample.parameters->find(id);
        if (it != sample.parameters->end() && !it->second.empty() && it->second != "0") {
            return true;
        }
    }
    return false;
}

std::optional<LinkPrediction> predictSample(const Sample& sample, const LinkProfile& link) {
    if (!sample.trace || measuredOnAnEmulatedLink(sample) || !sample.disturbed.empty()) {
        return std::nullopt;
    }
    return predictElapsed(*sample.trace, sample.phases.elapsed(), link);
}

}  // namespace blobbench
