#pragma once

#include <string_view>
#include <vector>

#include "engine/core/Parameter.h"
#include "engine/wire/LinkProfile.h"

namespace blobbench {

// Tunables of the wire tap and the emulated link. Every networked driver appends them to its
// parameters() so the CLI (-P id=value), projects and the GUI get them without engine-specific
// code; the Runner applies them, never the driver. Their ids share the prefixes "wire_" and
// "link_" and their labels "Wire: " and "Link: ", so a UI can group them.
namespace wireparam {
inline constexpr const char* WireTap = "wire_tap";
inline constexpr const char* LatencyUp = "link_latency_up_ms";
inline constexpr const char* LatencyDown = "link_latency_down_ms";
inline constexpr const char* BandwidthUp = "link_bandwidth_up";
inline constexpr const char* BandwidthDown = "link_bandwidth_down";
inline constexpr const char* CompressionEstimate = "wire_compression_estimate";
inline constexpr const char* StallTimeout = "wire_stall_timeout_s";
inline constexpr const char* Counting = "wire_counting";  // "relay" | "in-process" (SocketCounter.h)
}  // namespace wireparam

const std::vector<ParameterSpec>& wireParameters();  // built once
bool isWireParameter(std::string_view id);

// What the Runner does about the wire for one run.
struct WireSettings {
    bool tap = false;
    LinkProfile link;
    bool estimateCompression = false;
    // Count at the client library's own socket calls (SocketCounter) instead of relaying: the
    // default (wire_counting=in-process) whenever nothing needs the relay (no link, no estimate);
    // wire_counting=relay asks for the relay.
    bool inProcess = false;
    bool inProcessAsked = false;  // wire_counting=in-process given explicitly
    bool relayAsked = false;      // wire_counting=relay given
    // Idle stall timeout the counter or the relay enforces while a driver call is outstanding (0 = off).
    std::chrono::seconds stallTimeout{kDefaultStallTimeout};

    static constexpr std::chrono::seconds kDefaultStallTimeout{30};

    friend bool operator==(const WireSettings&, const WireSettings&) = default;
};

// The one precedence rule. The typed fields (RunPlan::wireTap, link, estimateCompression) are what
// callers set: CLI flags, a project's connection profile. A wire parameter given in `given` (the
// plan's parameters as given, e.g. "-P link_latency_up_ms=40") with a value other than its
// default overrides the typed field it names; a default value overrides nothing, so a caller that
// passes every value (the GUI's parameter panel) keeps the profile's link. A link that emulates
// anything or a compression estimate turns the tap on, unless wire_tap=false was given, which
// with them is a contradiction: Error(Usage). The stall timeout has no typed field: the value in
// `given` (default 30 s, 0 = off) is the one used; it does not turn the tap on. Bad values: Error(Usage) naming the
// parameter (LinkProfile's rules for bandwidth: 0 = unlimited or 9.6 kbit/s .. 10 Gbit/s).
WireSettings resolveWireSettings(bool typedTap, const LinkProfile& typedLink, bool typedEstimate,
                                 const ParameterValues& given);

// Writes the settings in effect into resolved values (of a driver that declares the wire
// parameters), so a sample's parameters say which link it was measured over. Latency in whole ms.
void storeWireSettings(const WireSettings& settings, ParameterValues& resolved);

// What each wire parameter did: in effect, or not applicable when there is no wire (embedded). The
// stall timeout is in effect whenever the wire is counted (settings.tap, either way, and not embedded).
std::vector<ParameterEffect> wireEffects(const WireSettings& settings, const ParameterValues& resolved, bool embedded);

}  // namespace blobbench
