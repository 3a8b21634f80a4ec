#include "engine/wire/LinkProfile.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "engine/core/Error.h"

namespace blobbench {

namespace {

std::string trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return std::string(text);
}

// A plain decimal number ("12", "9.6"); strtod alone would also take "inf", "0x10" and "1e3".
bool parseDecimal(const std::string& digits, double& value) {
    if (digits.empty()) {
        return false;
    }
    int dots = 0;
    for (char c : digits) {
        if (c == '.') {
            ++dots;
        } else if (c < '0' || c > '9') {
            return false;
        }
    }
    if (dots > 1 || digits == ".") {
        return false;
    }
    value = std::strtod(digits.c_str(), nullptr);
    return true;
}

std::string formatNumber(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
    return buffer;
}

}  // namespace

bool LinkProfile::emulating() const {
    return latencyUp.count() != 0 || latencyDown.count() != 0 || bandwidthUp != 0 || bandwidthDown != 0;
}

void LinkProfile::validate() const {
    auto checkLatency = [](std::chrono::nanoseconds latency, const char* which) {
        if (latency.count() < 0 || latency > kMaxLatency) {
            throw Error(ErrorKind::Usage, std::string("link latency ") + which + " must be between 0 and " +
                                              std::to_string(kMaxLatency.count()) + " s, got " +
                                              formatLatency(latency));
        }
    };
    auto checkBandwidth = [](std::uint64_t bandwidth, const char* which) {
        if (bandwidth != 0 && (bandwidth < kMinBandwidth || bandwidth > kMaxBandwidth)) {
            throw Error(ErrorKind::Usage, std::string("link bandwidth ") + which + " must be between " +
                                              formatBitRate(kMinBandwidth) + " and " + formatBitRate(kMaxBandwidth) +
                                              " (or 0 for unlimited), got " + std::to_string(bandwidth) + " bit/s");
        }
    };
    checkLatency(latencyUp, "up");
    checkLatency(latencyDown, "down");
    checkBandwidth(bandwidthUp, "up");
    checkBandwidth(bandwidthDown, "down");
}

std::string LinkProfile::describe() const {
    if (!emulating()) {
        return "unshaped";
    }
    auto direction = [](std::uint64_t bandwidth, std::chrono::nanoseconds latency) {
        return formatBitRate(bandwidth) + " + " + formatLatency(latency);
    };
    return "up " + direction(bandwidthUp, latencyUp) + ", down " + direction(bandwidthDown, latencyDown);
}

LinkProfile LinkProfile::symmetric(std::chrono::nanoseconds oneWayLatency, std::uint64_t bandwidth) {
    LinkProfile profile;
    profile.latencyUp = profile.latencyDown = oneWayLatency;
    profile.bandwidthUp = profile.bandwidthDown = bandwidth;
    return profile;
}

std::uint64_t parseBitRate(std::string_view input) {
    std::string text = trimmed(input);
    const std::string original = text;
    auto bad = [&original]() {
        return Error(ErrorKind::Usage, "invalid bit rate '" + original +
                                           "': expected a number of bit/s with an optional k, M or G suffix "
                                           "(e.g. 512k, 2M), or 0 for unlimited");
    };
    if (text == "unlimited" || text == "off") {
        return 0;
    }
    // "2Mbit/s", "2 Mbps" and "2M" all mean the same; strip the unit before the multiplier.
    for (std::string_view unit : {"bit/s", "bps", "b/s"}) {
        if (text.size() > unit.size() && text.compare(text.size() - unit.size(), unit.size(), unit) == 0) {
            text = trimmed(std::string_view(text).substr(0, text.size() - unit.size()));
            break;
        }
    }
    double multiplier = 1;
    if (!text.empty()) {
        switch (text.back()) {
            case 'k':
            case 'K':
                multiplier = 1e3;
                break;
            case 'M':
                multiplier = 1e6;
                break;
            case 'G':
            case 'g':
                multiplier = 1e9;
                break;
            default:
                break;
        }
        if (multiplier != 1) {
            text = trimmed(std::string_view(text).substr(0, text.size() - 1));
        }
    }
    double value = 0;
    if (!parseDecimal(text, value)) {
        throw bad();
    }
    const double bits = std::round(value * multiplier);
    if (bits > 1e18) {
        throw bad();
    }
    if (bits < 1 && value > 0) {  // "0.4" was 0: unlimited, without a word (hostile round 5m L3)
        throw Error(ErrorKind::Usage, "bit rate '" + original +
                                          "' rounds to 0 bit/s, which means unlimited: give at least 1 bit/s, or "
                                          "0 for unlimited");
    }
    return static_cast<std::uint64_t>(bits);
}

std::chrono::nanoseconds parseLatency(std::string_view input) {
    std::string text = trimmed(input);
    const std::string original = text;
    double scale = 1e6;  // bare numbers are milliseconds, as in --latency MS
    struct Unit {
        std::string_view suffix;
        double nanos;
    };
    for (const Unit& unit : {Unit{"ms", 1e6}, Unit{"us", 1e3}, Unit{"ns", 1}, Unit{"s", 1e9}}) {
        if (text.size() > unit.suffix.size() &&
            text.compare(text.size() - unit.suffix.size(), unit.suffix.size(), unit.suffix) == 0) {
            scale = unit.nanos;
            text = trimmed(std::string_view(text).substr(0, text.size() - unit.suffix.size()));
            break;
        }
    }
    double value = 0;
    if (!parseDecimal(text, value) || value * scale > 1e15) {
        throw Error(ErrorKind::Usage,
                    "invalid latency '" + original + "': expected milliseconds (e.g. 20) or a number with ms, us or s");
    }
    return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(value * scale)));
}

std::string formatBitRate(std::uint64_t bitsPerSecond) {
    if (bitsPerSecond == 0) {
        return "unlimited";
    }
    const double bits = static_cast<double>(bitsPerSecond);
    if (bitsPerSecond >= 1'000'000'000) {
        return formatNumber(bits / 1e9) + " Gbit/s";
    }
    if (bitsPerSecond >= 1'000'000) {
        return formatNumber(bits / 1e6) + " Mbit/s";
    }
    if (bitsPerSecond >= 1'000) {
        return formatNumber(bits / 1e3) + " kbit/s";
    }
    return std::to_string(bitsPerSecond) + " bit/s";
}

std::string formatLatency(std::chrono::nanoseconds latency) {
    return formatNumber(static_cast<double>(latency.count()) / 1e6) + " ms";
}

std::string formatTimeout(std::chrono::nanoseconds timeout) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count();
    return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

}  // namespace blobbench
