#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/ExchangeTrace.h"
#include "engine/core/Parameter.h"
#include "engine/core/Shared.h"

namespace blobbench {

using Nanos = std::chrono::nanoseconds;

// Phase times of one measured execution. Elapsed (the reference tool's figure) runs from opening
// the cursor to the last fetch: prepare is excluded.
struct PhaseTimes {
    Nanos connect{0};  // of the session the sample ran on
    Nanos prepare{0};
    Nanos execute{0};  // execute / open cursor
    Nanos fetch{0};    // first fetch to last fetch, BLOB reads included
    // Saturated: phases read from a hostile file may each be near the type's limit.
    Nanos elapsed() const {
        Nanos::rep sum = 0;
        if (__builtin_add_overflow(execute.count(), fetch.count(), &sum)) {
            return execute.count() < 0 ? Nanos::min() : Nanos::max();
        }
        return Nanos(sum);
    }
};

// What the same bytes would have been on the wire had a streaming compressor sent them, each
// relayed chunk compressed and flushed on its own (zlib level 6 with Z_SYNC_FLUSH, zstd level 3
// with ZSTD_e_flush), as wire compression flushes per packet. An estimate, not a measurement.
struct CompressionEstimate {
    std::uint64_t zlibSendBytes = 0;
    std::uint64_t zlibRecvBytes = 0;
    std::uint64_t zstdSendBytes = 0;
    std::uint64_t zstdRecvBytes = 0;
};

// Traffic in both directions as seen from the client. roundTrips is absent where the source
// does not count them (Firebird's logical counters); compressed is absent unless the wire tap was
// asked to estimate compression.
struct WireCounters {
    std::uint64_t sendPackets = 0;
    std::uint64_t recvPackets = 0;
    std::uint64_t sendBytes = 0;
    std::uint64_t recvBytes = 0;
    std::optional<std::uint64_t> roundTrips;
    std::optional<CompressionEstimate> compressed;

    WireCounters operator-(const WireCounters& earlier) const;
};

// A set of counters from one source, or why there are none. Never filled with guesses.
struct WireStats {
    bool available = false;
    std::string unavailableReason;  // "not applicable (embedded)", "client 3.0 has no wire counters", ...
    // How our own counts were taken: "relay" (WireTap) or "in-process" (SocketCounter); empty for
    // the client's native counters and for samples saved before the distinction existed.
    std::string method;
    WireCounters counters;

    static WireStats unavailable(std::string reason) {
        WireStats s;
        s.unavailableReason = std::move(reason);
        return s;
    }
    static WireStats of(const WireCounters& c) {
        WireStats s;
        s.available = true;
        s.counters = c;
        return s;
    }
};

enum class SampleStatus { Complete, Failed, Cancelled };

const char* toString(SampleStatus status);

// One measured execution with its full context: a plain value, copyable across threads.
struct Sample {
    std::string runId;
    std::string scenarioId;
    std::string scenarioTitle;
    std::string sql;
    int repetition = 0;  // 0-based; warm-up repetitions are not kept
    // The sweep point this sample belongs to: swept tunable -> value ("mmap_size" -> "65536").
    // Empty outside a sweep. Samples of one scenario with equal points are repetitions of each other.
    std::map<std::string, std::string> point;
    std::string startedAt;  // ISO 8601, UTC

    std::string engine;
    std::string connection;  // display label, never a password
    std::string serverVersion;
    std::string clientVersion;
    // The session's context, shared between the samples of one session (copy on write):
    Shared<std::map<std::string, std::string>> negotiated;  // "compression" -> "on", "protocol" -> "19", ...
    Shared<ParameterValues> parameters;                     // as requested, resolved
    Shared<std::vector<ParameterEffect>> effects;           // what was really in effect

    PhaseTimes phases;
    std::uint64_t rows = 0;
    std::uint64_t contentBytes = 0;   // bytes actually read of value columns
    std::uint64_t valuesRead = 0;     // non-null values whose content was read
    std::uint64_t valuesSkipped = 0;  // values left unread (ids-only mode)
    std::optional<std::int64_t> maxId;
    std::string scalarLabel;  // for single-value scenarios: "Max char length"
    std::optional<std::string> scalar;

    WireStats tap;                                  // measured by the wire tap over the measured span (execute + fetch)
    std::map<std::string, WireCounters> tapPhases;  // connect (of the session), prepare, execute, fetch
    // The measured span's round trips one by one, when its counts are ours (relay or in-process):
    // its bytes and exchanges equal tap's. Absent for samples saved before traces existed.
    std::optional<ExchangeTrace> trace;
    // The trace's base64 text as a project held it, when the load's budget left it undecoded (a
    // history whose traces pass kMaxFileTraceExchanges): checked, not predictable, saved unchanged.
    Shared<std::string> unreadTrace;  // shared: the samples of a group in the file share one text
    WireStats nativeLogical;          // the client's own counters (Firebird 5.0.2+ items 150-153)
    WireStats nativePhysical;         // items 154-158

    SampleStatus status = SampleStatus::Complete;
    std::string error;  // one line, when not complete
    // Failed or cancelled mid-statement: phases, rows, bytes and wire counts are what was measured
    // up to the failure (the phase under way ends there), not those of a whole statement.
    bool partial = false;
    // Why the sample's times are not the link's and the server's alone (the client itself was
    // stopped or suspended during it, ClientPause.h); empty when nothing disturbed it.
    std::string disturbed;
    // verify_content=on: what was checked of the values read against the data set ("verified: 5884
    // values equal the data set's (...)", "differs: ...", "not verified: ...", "not in effect: ...");
    // empty when verification was off.
    std::string contentCheck;
};

// Makes consecutive samples with an equal session context (negotiated flags, parameters,
// effects) hold one shared copy of it; the Runner and the project loader pass every sample through.
struct SampleContextSharing {
    Shared<std::map<std::string, std::string>> negotiated;
    Shared<ParameterValues> parameters;
    Shared<std::vector<ParameterEffect>> effects;

    void share(Sample& sample) {
        sample.negotiated.shareWith(negotiated);
        sample.parameters.shareWith(parameters);
        sample.effects.shareWith(effects);
    }
};

// Current UTC time as ISO 8601 with milliseconds.
std::string isoNow();

}  // namespace blobbench
