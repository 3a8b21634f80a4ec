#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/drivers/postgres/ByteaExperiment.h"
#include "engine/wire/ExchangeRecorder.h"
#include "engine/wire/LinkProfile.h"

namespace blobbench {
class WireTap;
class SocketCounter;
}  // namespace blobbench

namespace blobbench::cli {

// The bytea experiment's wire, span by span (ByteaExperimentOptions::onSpan): each insert's and
// select's counters and exchange trace, taken from the relay or the in-process counter with the
// same marks as the Runner's, so that its samples can be saved (--json, for `predict`) and predicted
// at another link (--predict-at).
class ByteaTraces {
public:
    // Exactly one of the two counts; both outlive this object.
    ByteaTraces(WireTap* tap, SocketCounter* counter);

    void onSpan(ByteaSpan span, bool begins);

    // One sample per path, span and repetition, in the experiment's order: scenario "bytea-insert" or
    // "bytea-select", sweep point {path}, the span's time, counters and trace. Empty when the spans
    // recorded do not match the trials (the experiment stopped half-way).
    std::vector<Sample> samples(const std::vector<ByteaTrial>& trials, const std::string& connection,
                                std::uint64_t documentBytes) const;

    // What a cancelled or failed experiment measured, when it threw and returned no trials: one
    // complete sample per span that ended (its time taken by this object at the span's marks, the
    // select's execute + fetch as one execute phase), then one sample `status` with `error` for the
    // span in progress, or for the next one when the experiment stopped between spans. Paths in the
    // experiment's order, `repetitions` each. Its content bytes are those the path sends or receives
    // for the document where they follow from its size alone (0 for text escape).
    std::vector<Sample> partialSamples(const std::string& connection, std::uint64_t documentBytes, int repetitions,
                                       SampleStatus status, const std::string& error) const;

private:
    struct Span {
        WireCounters counters;
        ExchangeTrace trace;
        Nanos elapsed{0};
    };
    WireCounters now(ExchangeRecorder::Mark* mark) const;
    void withWire(Sample& sample, const Span& recorded) const;

    WireTap* m_tap;
    SocketCounter* m_counter;
    WireCounters m_from;
    ExchangeRecorder::Mark m_fromMark;
    std::chrono::steady_clock::time_point m_fromTime;
    std::optional<ByteaSpan> m_open;  // begun, not ended
    std::vector<Span> m_spans[2];     // by ByteaSpan
};

// Prints, per path, the median insert and select predicted at `link` from the samples' traces.
void printByteaPrediction(const std::vector<ByteaTrial>& trials, const std::vector<Sample>& samples,
                          const LinkProfile& link);

}  // namespace blobbench::cli
