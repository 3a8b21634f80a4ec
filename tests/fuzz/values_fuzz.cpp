// libFuzzer target for the value parsers of the command line and the tunables: sizes ("64K"),
// bit rates ("2M", "9.6k"), latencies ("20ms"), and every declared tunable of every driver
// (normaliseParameter). Any text is accepted or refused with Error(Usage), never a crash or an
// out-of-range value; an accepted value normalises to itself. Each input also runs in two long
// forms of 100 kB (LongInput.h).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "LongInput.h"
#include "engine/core/Error.h"
#include "engine/core/Parameter.h"
#include "engine/drivers/Registry.h"
#include "engine/wire/LinkProfile.h"

using namespace blobbench;

namespace {

template <typename F>
void refusedAsUsage(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Usage) {
            std::abort();
        }
    }
}

void fuzzOne(const std::string& text) {
    refusedAsUsage([&] { (void)parseSize(text, "size"); });
    refusedAsUsage([&] {
        const std::uint64_t rate = parseBitRate(text);
        if (rate != 0) {
            LinkProfile p;
            p.bandwidthUp = rate;
            refusedAsUsage([&] { p.validate(); });
            (void)formatBitRate(rate);
        }
    });
    refusedAsUsage([&] {
        const auto latency = parseLatency(text);
        if (latency.count() < 0) {
            std::abort();
        }
        (void)formatLatency(latency);
    });
    for (const Driver* driver : allDrivers()) {
        for (const ParameterSpec& spec : driver->parameters()) {
            refusedAsUsage([&] {
                const std::string value = normaliseParameter(spec, text);
                if (normaliseParameter(spec, value) != value) {
                    std::abort();  // normalising is idempotent
                }
                if (spec.type == ParameterType::Integer) {
                    const long long n = std::stoll(value);
                    if (n < spec.minimum || n > spec.maximum) {
                        std::abort();
                    }
                }
            });
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    fuzzOne(text);
    for (const std::string& longer : fuzz::longForms(text)) {
        fuzzOne(longer);
    }
    return 0;
}

#include "FuzzMain.h"
