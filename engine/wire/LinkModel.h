#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "engine/core/ExchangeTrace.h"
#include "engine/core/Sample.h"
#include "engine/wire/LinkProfile.h"

namespace blobbench {

// What a sample would take over another link, from its exchange trace (docs/wire.md, "The link
// model"). The link is a LinkProfile as the relay emulates it: one-way latency per direction and a
// bandwidth cap of TCP payload per direction. Each exchange pays latencyUp + latencyDown (one
// round-trip time) and the serialisation of its bytes on each line, less the time the measured run
// already spent moving them (the bytes a slow line queues while the other side is busy anyway cost
// nothing more); the loopback's own round trip, already in the measured time, is taken out.
struct LinkPrediction {
    std::chrono::nanoseconds measured{0};   // the sample's elapsed (execute + fetch)
    std::chrono::nanoseconds loopback{0};   // the measured exchanges' own round trips, taken out
    std::chrono::nanoseconds latency{0};    // what the link's latency adds
    std::chrono::nanoseconds transfer{0};   // what its bandwidth adds
    std::chrono::nanoseconds predicted{0};  // measured - loopback + latency + transfer
    std::uint64_t exchanges = 0;
    std::uint64_t sendBytes = 0;
    std::uint64_t recvBytes = 0;
};

LinkPrediction predictElapsed(const ExchangeTrace& trace, std::chrono::nanoseconds measured, const LinkProfile& link);

// Whether the sample was measured through an emulated link (its link_* tunables): the model starts from a
// loopback measurement, and such a sample's time holds the emulated link already (predicted at the very
// link it was measured on, it read twice the time: hostile round 5j X2).
bool measuredOnAnEmulatedLink(const Sample& sample);
inline constexpr const char* kEmulatedLinkReason =
    "measured through an emulated link: the model predicts from a loopback measurement";

// A disturbed sample (the client was stopped or suspended during it) holds that pause in its time: the
// model would carry it to every link (hostile round 5n S6: 2,013.5 ms predicted among 22 ms).
inline constexpr const char* kDisturbedReason =
    "disturbed (the client was stopped or suspended during them): their times hold the pause";

// Absent when the sample has no trace (its counts were not ours, or it was saved before traces), was
// measured through an emulated link, or was disturbed.
std::optional<LinkPrediction> predictSample(const Sample& sample, const LinkProfile& link);

}  // namespace blobbench
