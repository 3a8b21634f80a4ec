// libFuzzer target for the exchange trace decoder (engine/core/ExchangeTrace.cpp), which reads the
// `wire.trace` of every sample in a project or samples file: any bytes must either decode or be
// refused with Error(Data), never crash, hang, leak or allocate past its limits. A decoded trace
// must encode and decode to itself, and the link model must take it without overflow (UBSan).
// The same bytes go in as the base64 text of a file, and each input also runs in the two long
// forms of LongInput.h and as a valid trace of one exchange per input byte (100 kB and more).
// Build and run: see tests/fuzz/CMakeLists.txt and scripts/fuzz.
#include <QString>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "LongInput.h"
#include "engine/core/Error.h"
#include "engine/core/ExchangeTrace.h"
#include "engine/wire/LinkModel.h"
#include "model/SampleJson.h"

namespace {

using namespace std::chrono_literals;

void checkDecoded(const blobbench::ExchangeTrace& trace) {
    if (blobbench::decodeExchangeTrace(blobbench::encodeExchangeTrace(trace)) != trace) {
        std::abort();  // a decoded trace is in whole microseconds: it must round-trip exactly
    }
    // Sums of a decoded trace fit their types (the old decoder let 2^64-byte exchanges wrap them).
    std::uint64_t bytes = trace.leadingRecvBytes + trace.trailingSendBytes;
    std::int64_t nanos = 0;
    for (const blobbench::Exchange& e : trace.exchanges) {
        for (const std::uint64_t b : {e.sendBytes, e.recvBytes}) {
            if (__builtin_add_overflow(bytes, b, &bytes)) {
                std::abort();
            }
        }
        for (const auto t : {e.clientTime, e.sendTime, e.serverTime, e.recvTime}) {
            if (__builtin_add_overflow(nanos, t.count(), &nanos)) {
                std::abort();
            }
        }
    }
    // Unlimited bandwidth and the longest latency: every sum of the model stays in int64.
    const auto link = blobbench::LinkProfile::symmetric(blobbench::kMaxLatency, 0);
    if (blobbench::predictElapsed(trace, 0ns, link).exchanges != trace.exchanges.size()) {
        std::abort();
    }
}

void fuzzBytes(std::string_view bytes) {
    try {
        const blobbench::TraceDecodeBudget budget;  // as predict reads a file
        checkDecoded(blobbench::decodeExchangeTrace(bytes));
    } catch (const blobbench::Error& e) {
        if (e.kind() != blobbench::ErrorKind::Data) {
            std::abort();  // damage is refused as Data only
        }
    }
}

void fuzzText(const std::string& text) {
    try {
        checkDecoded(blobbench::traceFromBase64(QString::fromLatin1(text.data(), static_cast<qsizetype>(text.size()))));
    } catch (const blobbench::Error& e) {
        if (e.kind() != blobbench::ErrorKind::Data) {
            std::abort();
        }
    }
}

// A valid trace of one exchange per byte, its fields made of the bytes around it. Each exchange
// sends at most 255 << 31 bytes (varints of up to six bytes), so a long form's ~106,000 exchanges
// sum to at most ~6e16 bytes, far below the 2^63 the decoder refuses ("more bytes one way than
// 2^63"). With << 39 a long run of 0xef bytes summed to 1.4e19, and the decoder refused the
// generator's own trace.
blobbench::ExchangeTrace traceOf(std::string_view bytes) {
    blobbench::ExchangeTrace trace;
    trace.exchanges.reserve(bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const auto b = static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i]));
        const auto next = static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[(i + 1) % bytes.size()]));
        blobbench::Exchange e;
        e.sendBytes = b << (next % 32);
        e.recvBytes = next * 16384 + b;
        e.clientTime = std::chrono::microseconds(static_cast<std::int64_t>(b));
        e.sendTime = std::chrono::microseconds(static_cast<std::int64_t>(next & 7));
        e.serverTime = std::chrono::microseconds(static_cast<std::int64_t>(b * next));
        e.recvTime = std::chrono::microseconds(static_cast<std::int64_t>(next));
        trace.exchanges.push_back(e);
    }
    trace.leadingRecvBytes = bytes.size();
    return trace;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    fuzzBytes(input);
    fuzzText(input);
    for (const std::string& longer : blobbench::fuzz::longForms(input)) {
        fuzzBytes(longer);
        fuzzText(longer);
        const blobbench::ExchangeTrace valid = traceOf(longer);
        const std::string encoded = blobbench::encodeExchangeTrace(valid);
        if (blobbench::decodeExchangeTrace(encoded) != valid) {
            std::abort();
        }
        checkDecoded(valid);
        fuzzBytes(encoded.substr(0, encoded.size() / 2));  // the same trace cut short
    }
    return 0;
}

#include "FuzzMain.h"
