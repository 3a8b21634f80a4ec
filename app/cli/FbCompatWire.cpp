#include "app/cli/FbCompatWire.h"

#include <stdexcept>

#include "engine/core/Error.h"

namespace blobbench::cli {

bool parseCompatWireOption(const std::string& arg, const std::function<std::string()>& take, CompatWireOptions& o) {
    if (arg == "--tap" || arg == "--wire-tap") {
        o.tap = true;
        o.tapGiven = true;
    } else if (arg == "--relay") {
        o.tap = true;
        o.relay = true;
    } else if (arg == "--latency" || arg == "--latency-up" || arg == "--latency-down") {
        const auto latency = parseLatency(take());
        if (arg != "--latency-down") {
            o.link.latencyUp = latency;
        }
        if (arg != "--latency-up") {
            o.link.latencyDown = latency;
        }
        o.tap = true;
    } else if (arg == "--bandwidth" || arg == "--bandwidth-up" || arg == "--bandwidth-down" || arg == "--up" ||
               arg == "--down") {
        const auto rate = parseBitRate(take());
        if (arg != "--bandwidth-down" && arg != "--down") {
            o.link.bandwidthUp = rate;
        }
        if (arg != "--bandwidth-up" && arg != "--up") {
            o.link.bandwidthDown = rate;
        }
        o.tap = true;
    } else if (arg == "--stall-timeout") {
        const std::string text = take();
        std::size_t used = 0;
        long seconds = -1;
        try {
            seconds = std::stol(text, &used);
        } catch (const std::exception&) {
        }
        if (text.empty() || used != text.size() || seconds < 0 || seconds > 86400) {
            throw Error(ErrorKind::Usage,
                        "--stall-timeout: '" + text + "' is not a whole number of seconds in 0..86400");
        }
        o.stallTimeout = std::chrono::seconds(seconds);
    } else {
        return false;
    }
    o.link.validate();
    return true;
}

bool isCompatWireValueOption(const std::string& arg) {
    return arg == "--latency" || arg == "--latency-up" || arg == "--latency-down" || arg == "--bandwidth" ||
           arg == "--bandwidth-up" || arg == "--bandwidth-down" || arg == "--up" || arg == "--down" ||
           arg == "--stall-timeout";
}

std::string compatWireUsage() {
    return R"(    --tap                                Also count the wire (bytes, packets, round trips) at
                                         fbclient's own socket calls: "Wire tap statistics"
    --relay                              Count through the relay (WireTap) instead
    --latency MS, --bandwidth RATE       Emulate a link through the relay (also -up/-down,
                                         --up, --down; 20, 500us, 2M, 512k)
    --stall-timeout SECONDS              A server that sends nothing for this long while
                                         the mode waits on it fails the call (default 30,
                                         0 = wait for good)
)";
}

}  // namespace blobbench::cli
