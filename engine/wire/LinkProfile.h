#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace blobbench {

// The link a WireTap emulates between client and server. Up is client->server, down is
// server->client. Latency is one-way; bandwidth is in bit/s of TCP payload, 0 = unlimited.
struct LinkProfile {
    std::chrono::nanoseconds latencyUp{0}, latencyDown{0};
    std::uint64_t bandwidthUp = 0, bandwidthDown = 0;

    // Whether the tap delays anything at all: with a default profile it relays as fast as it can.
    bool emulating() const;

    // Throws Error(Usage) naming the bad value: negative or over-long latency, bandwidth outside
    // kMinBandwidth..kMaxBandwidth (0 = unlimited is always valid).
    void validate() const;

    // One line for reports: "unshaped" or "up 512 kbit/s + 20 ms, down 2 Mbit/s + 20 ms".
    std::string describe() const;

    // Same latency both ways (the user's "--latency MS" is one-way, applied to each direction).
    static LinkProfile symmetric(std::chrono::nanoseconds oneWayLatency, std::uint64_t bandwidth = 0);

    friend bool operator==(const LinkProfile&, const LinkProfile&) = default;
};

inline constexpr std::uint64_t kMinBandwidth = 9'600;           // 9.6 kbit/s, a serial modem line
inline constexpr std::uint64_t kMaxBandwidth = 10'000'000'000;  // 10 Gbit/s
inline constexpr std::chrono::seconds kMaxLatency{60};

// "2M", "512k", "9.6k", "10G", "1500000" -> bit/s (decimal multipliers, as link speeds are
// quoted); "0", "unlimited" and "off" -> 0. Throws Error(Usage) on anything else.
std::uint64_t parseBitRate(std::string_view text);

// "20" (milliseconds), "20ms", "500us", "1.5s" -> nanoseconds. Throws Error(Usage) otherwise.
std::chrono::nanoseconds parseLatency(std::string_view text);

// "2 Mbit/s", "9.6 kbit/s", "unlimited".
std::string formatBitRate(std::uint64_t bitsPerSecond);

// "20 ms", "0.5 ms", "0 ms".
std::string formatLatency(std::chrono::nanoseconds latency);

// A timeout as the stall errors name it: "30 s", "300 ms" (whole milliseconds).
std::string formatTimeout(std::chrono::nanoseconds timeout);

}  // namespace blobbench
