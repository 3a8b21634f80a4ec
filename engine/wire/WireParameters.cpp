#include "engine/wire/WireParameters.h"

#include <algorithm>
#include <optional>
#include <string>

#include "engine/core/Error.h"

namespace blobbench {
namespace {

ParameterSpec booleanSpec(const char* id, const char* label, bool on, const char* help) {
    ParameterSpec p;
    p.id = id;
    p.label = label;
    p.type = ParameterType::Boolean;
    p.defaultValue = on ? "true" : "false";
    p.help = help;
    return p;
}

ParameterSpec latencySpec(const char* id, const char* label, const char* direction) {
    ParameterSpec p;
    p.id = id;
    p.label = label;
    p.type = ParameterType::Integer;
    p.defaultValue = "0";
    p.minimum = 0;
    p.maximum = std::chrono::duration_cast<std::chrono::milliseconds>(kMaxLatency).count();
    p.unit = "ms";
    p.help = std::string("One-way latency the wire tap adds to every ") + direction +
             " packet (emulated link; turns the tap on).";
    return p;
}

ParameterSpec bandwidthSpec(const char* id, const char* label, const char* direction) {
    ParameterSpec p;
    p.id = id;
    p.label = label;
    p.type = ParameterType::Integer;
    p.defaultValue = "0";
    p.minimum = 0;
    p.maximum = static_cast<std::int64_t>(kMaxBandwidth);
    p.unit = "bit/s";
    p.scale = ParameterScale::Log;
    p.help = std::string("Bandwidth of the emulated link ") + direction +
             " in bit/s of TCP payload: 0 = unlimited, otherwise 9600 (9.6 kbit/s) to 10000000000 (10 Gbit/s); "
             "turns the tap on.";
    return p;
}

std::optional<std::string> givenValue(const std::vector<ParameterSpec>& specs, const ParameterValues& given,
                                      const char* id) {
    const auto it = given.find(id);
    if (it == given.end()) {
        return std::nullopt;
    }
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const ParameterSpec& s) { return s.id == id; });
    std::string value = normaliseParameter(*spec, it->second);
    if (value == spec->defaultValue) {
        return std::nullopt;  // callers that pass every value (the GUI's panel) override nothing by it
    }
    return value;
}

std::uint64_t bandwidthOf(const std::string& id, const std::string& value) {
    const auto bits = std::stoull(value);
    if (bits != 0 && (bits < kMinBandwidth || bits > kMaxBandwidth)) {
        throw Error(ErrorKind::Usage,
                    "parameter '" + id + "': " + value + " bit/s is outside 9600..10000000000 (0 = unlimited)");
    }
    return bits;
}

std::vector<ParameterSpec> buildWireParameters() {
    std::vector<ParameterSpec> specs;
    specs.push_back(booleanSpec(wireparam::WireTap, "Measure through WireTap", true,
                                "Count the connection's bytes, reads/writes and round trips of every sample: at "
                                "the client's own socket calls, or through a counting TCP relay on 127.0.0.1 when "
                                "the link emulation below or the compression estimate needs it (wire_counting). "
                                "Not applicable to embedded databases and Unix-domain sockets."));
    specs.push_back(latencySpec(wireparam::LatencyUp, "Link: latency up", "client->server"));
    specs.push_back(latencySpec(wireparam::LatencyDown, "Link: latency down", "server->client"));
    specs.push_back(bandwidthSpec(wireparam::BandwidthUp, "Link: bandwidth up", "client->server"));
    specs.push_back(bandwidthSpec(wireparam::BandwidthDown, "Link: bandwidth down", "server->client"));
    specs.push_back(booleanSpec(wireparam::CompressionEstimate, "Wire: estimate compression", false,
                                "Also compress what the tap relays with zlib-6 and zstd-3 (flushed per chunk, as "
                                "wire compression does) and report what they would have sent: an estimate, "
                                "costs CPU on a thread of its own; turns the tap on."));
    {
        ParameterSpec p;
        p.id = wireparam::StallTimeout;
        p.label = "Wire: stall timeout";
        p.type = ParameterType::Integer;
        p.defaultValue = std::to_string(WireSettings::kDefaultStallTimeout.count());
        p.minimum = 0;
        p.maximum = 3600;
        p.unit = "s";
        p.help =
            "While a statement or connect is outstanding, the connection is cut when nothing has come from the "
            "server for this long (a hung server or a dead link), and the run ends with \"no data for N s (stall "
            "timeout)\": by the in-process counter at the client's own socket calls, or by the relay. 0 = off. "
            "Without wire counting (wire_tap=false), not in effect.";
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = wireparam::Counting;
        p.label = "Wire: counting";
        p.type = ParameterType::Enum;
        p.choices = {"relay", "in-process"};
        p.defaultValue = "in-process";
        p.help =
            "How the wire statistics are taken: in-process at the client library's own socket calls (the "
            "default; adds almost nothing to the time measured), or through the relay (WireTap). The emulated "
            "link and the compression estimate need the relay: with them, the relay counts.";
        specs.push_back(p);
    }
    return specs;
}

}  // namespace

// Built once: a run asks for them at every statement.
const std::vector<ParameterSpec>& wireParameters() {
    static const std::vector<ParameterSpec> specs = buildWireParameters();
    return specs;
}

bool isWireParameter(std::string_view id) {
    for (const char* wire :
         {wireparam::WireTap, wireparam::LatencyUp, wireparam::LatencyDown, wireparam::BandwidthUp,
          wireparam::BandwidthDown, wireparam::CompressionEstimate, wireparam::StallTimeout, wireparam::Counting}) {
        if (id == wire) {
            return true;
        }
    }
    return false;
}

WireSettings resolveWireSettings(bool typedTap, const LinkProfile& typedLink, bool typedEstimate,
                                 const ParameterValues& given) {
    const auto& specs = wireParameters();
    WireSettings s;
    s.link = typedLink;
    s.estimateCompression = typedEstimate;
    if (auto v = givenValue(specs, given, wireparam::LatencyUp)) {
        s.link.latencyUp = std::chrono::milliseconds(std::stoll(*v));
    }
    if (auto v = givenValue(specs, given, wireparam::LatencyDown)) {
        s.link.latencyDown = std::chrono::milliseconds(std::stoll(*v));
    }
    if (auto v = givenValue(specs, given, wireparam::BandwidthUp)) {
        s.link.bandwidthUp = bandwidthOf(wireparam::BandwidthUp, *v);
    }
    if (auto v = givenValue(specs, given, wireparam::BandwidthDown)) {
        s.link.bandwidthDown = bandwidthOf(wireparam::BandwidthDown, *v);
    }
    if (auto v = givenValue(specs, given, wireparam::CompressionEstimate)) {
        s.estimateCompression = *v == "true";
    }
    if (auto it = given.find(wireparam::StallTimeout); it != given.end()) {
        const auto spec = std::find_if(specs.begin(), specs.end(),
                                       [](const ParameterSpec& p) { return p.id == wireparam::StallTimeout; });
        s.stallTimeout = std::chrono::seconds(std::stoll(normaliseParameter(*spec, it->second)));
    }
    s.link.validate();
    if (auto v = givenValue(specs, given, wireparam::WireTap)) {
        s.tap = *v == "true";
        if (!s.tap && s.link.emulating()) {
            throw Error(ErrorKind::Usage,
                        "wire_tap=false contradicts the emulated link " + s.link.describe() + " (the tap emulates it)");
        }
        if (!s.tap && s.estimateCompression) {
            throw Error(ErrorKind::Usage, "wire_tap=false contradicts the compression estimate (the tap makes it)");
        }
    } else {
        s.tap = typedTap || s.link.emulating() || s.estimateCompression;
    }
    if (auto it = given.find(wireparam::Counting); it != given.end()) {
        const auto spec = std::find_if(specs.begin(), specs.end(),
                                       [](const ParameterSpec& p) { return p.id == wireparam::Counting; });
        const std::string v = normaliseParameter(*spec, it->second);
        s.inProcessAsked = v == "in-process";
        s.relayAsked = v == "relay";
    }
    s.inProcess = !s.relayAsked && s.tap && !s.link.emulating() && !s.estimateCompression;
    return s;
}

void storeWireSettings(const WireSettings& settings, ParameterValues& resolved) {
    if (resolved.find(wireparam::WireTap) == resolved.end()) {
        return;  // the driver does not declare them (embedded engine)
    }
    auto ms = [](std::chrono::nanoseconds n) {
        return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(n).count());
    };
    resolved[wireparam::WireTap] = settings.tap ? "true" : "false";
    resolved[wireparam::LatencyUp] = ms(settings.link.latencyUp);
    resolved[wireparam::LatencyDown] = ms(settings.link.latencyDown);
    resolved[wireparam::BandwidthUp] = std::to_string(settings.link.bandwidthUp);
    resolved[wireparam::BandwidthDown] = std::to_string(settings.link.bandwidthDown);
    resolved[wireparam::CompressionEstimate] = settings.estimateCompression ? "true" : "false";
    resolved[wireparam::StallTimeout] = std::to_string(settings.stallTimeout.count());
    resolved[wireparam::Counting] = settings.inProcess ? "in-process" : "relay";
}

std::vector<ParameterEffect> wireEffects(const WireSettings& settings, const ParameterValues& resolved, bool embedded) {
    std::vector<ParameterEffect> effects;
    if (resolved.find(wireparam::WireTap) == resolved.end()) {
        return effects;
    }
    auto add = [&](const char* id, bool asksForSomething) {
        ParameterEffect e;
        e.id = id;
        e.requested = resolved.at(id);
        if (embedded && asksForSomething) {
            e.inEffect = false;
            e.reason = "not in effect (no TCP connection to relay: embedded database or Unix-domain socket)";
        } else {
            e.actual = e.requested;  // the Runner applied exactly the stored value
        }
        effects.push_back(std::move(e));
    };
    add(wireparam::WireTap, settings.tap);
    add(wireparam::LatencyUp, settings.link.latencyUp.count() != 0);
    add(wireparam::LatencyDown, settings.link.latencyDown.count() != 0);
    add(wireparam::BandwidthUp, settings.link.bandwidthUp != 0);
    add(wireparam::BandwidthDown, settings.link.bandwidthDown != 0);
    add(wireparam::CompressionEstimate, settings.estimateCompression);
    ParameterEffect stall;
    stall.id = wireparam::StallTimeout;
    stall.requested = resolved.at(wireparam::StallTimeout);
    if (settings.stallTimeout.count() == 0 || (settings.tap && !embedded)) {
        stall.actual = stall.requested;
    } else {
        stall.inEffect = false;
        stall.reason = embedded ? "not in effect (no TCP connection to relay: embedded database or Unix-domain socket; "
                                  "the client library cannot time out a silent server)"
                                : "not in effect without the wire tap (wire_tap=false): the client library cannot "
                                  "time out a silent server";
    }
    effects.push_back(std::move(stall));
    ParameterEffect counting;
    counting.id = wireparam::Counting;
    counting.requested = settings.inProcessAsked ? "in-process" : resolved.at(wireparam::Counting);
    if (settings.inProcessAsked && !settings.inProcess && settings.tap) {
        counting.inEffect = false;
        counting.actual = "relay";
        counting.reason = "not in effect: the emulated link or the compression estimate needs the relay";
    } else {
        counting.actual = resolved.at(wireparam::Counting);
    }
    effects.push_back(std::move(counting));
    return effects;
}

}  // namespace blobbench
