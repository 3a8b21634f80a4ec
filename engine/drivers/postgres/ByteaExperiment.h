#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/drivers/Driver.h"

namespace blobbench {

// The classic PostgreSQL experiment: one document of incompressible bytes written and read back as
// binary, as text in hex and escape form, and as a large object, on fresh sessions of the given
// connection (redirect it through the wire tap to emulate a link). Times are medians over repetitions.
enum class ByteaSpan { Insert, Select };

struct ByteaExperimentOptions {
    std::uint64_t documentBytes = 2 * 1024 * 1024;
    int repetitions = 3;
    std::uint64_t seed = 20251129;
    // Told, on the experiment's thread, where each measured span begins and ends: the insert's
    // bind + execute, the select's execute + fetch (its Prepared and Fetched marks), path after path,
    // repetition after repetition. A caller that counts the wire cuts each span's exchange trace there.
    std::function<void(ByteaSpan span, bool begins)> onSpan;
};

struct ByteaTrial {
    std::string path;                 // "binary", "text hex", "text escape", "large object"
    std::string how;                  // the calls and settings used, for the report
    Nanos insert{0};                  // bind + execute (+ lo_write), median
    Nanos select{0};                  // execute + fetch, median
    std::vector<Nanos> inserts;       // every repetition's, in order
    std::vector<PhaseTimes> selects;  // likewise (execute, fetch)
    std::uint64_t sentBytes = 0;      // the value as handed to libpq for the insert
    std::uint64_t receivedBytes = 0;  // content bytes of the select, in the format received
    bool identical = false;           // the bytes read back (decoded) equal those written
    double insertRatio = 0;           // against binary
    double selectRatio = 0;
    double receivedRatio = 0;
    std::string disturbed;  // the client was stopped or suspended during a measured span (ClientPause.h); or empty
};

std::vector<ByteaTrial> runByteaExperiment(const Driver& driver, const ConnectionSpec& spec,
                                           const ParameterValues& given, const ByteaExperimentOptions& options,
                                           const CancelToken& cancel);

}  // namespace blobbench
