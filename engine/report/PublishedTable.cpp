#include "engine/report/PublishedTable.h"

#include <cmath>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace blobbench {
namespace {

// "5.0.3" -> {5, 0, 3}; stops at the first part that is not a number ("5.0.4.1678" keeps all four).
std::vector<long> versionParts(const std::string& text) {
    std::vector<long> parts;
    std::size_t i = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        std::size_t end = i;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) {
            ++end;
        }
        parts.push_back(std::stol(text.substr(i, end - i)));
        if (end >= text.size() || text[end] != '.') {
            break;
        }
        i = end + 1;
    }
    return parts;
}

const Condition* findCondition(const std::vector<Condition>& conditions, const std::string& key) {
    const auto it =
        std::find_if(conditions.begin(), conditions.end(), [&](const Condition& c) { return c.key == key; });
    return it == conditions.end() ? nullptr : &*it;
}

std::string percent(double deviation) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.1f%%", deviation * 100.0);
    return buf;
}

// "client 5.0.4 here, 5.0.3 published; link loopback here, not stated published".
std::string differingConditions(const PublishedCell& published, const MeasuredCell& measured) {
    std::string out;
    for (const Condition& p : published.conditions) {
        const Condition* m = findCondition(measured.conditions, p.key);
        if (m == nullptr || conditionHolds(p.value, m->value)) {
            continue;
        }
        out += (out.empty() ? "" : "; ") + p.key + " " + m->value + " here, " + p.value + " published";
    }
    return out;
}

}  // namespace

PublishedCell exactCell(std::string id, std::string quantity, double value, std::string unit, CellKind kind) {
    PublishedCell c;
    c.id = std::move(id);
    c.quantity = std::move(quantity);
    c.value = c.low = c.high = value;
    c.unit = std::move(unit);
    c.kind = kind;
    c.tolerance = "exact";
    return c;
}

PublishedCell cellWithin(std::string id, std::string quantity, double value, std::string unit, CellKind kind,
                         double relative) {
    PublishedCell c = exactCell(std::move(id), std::move(quantity), value, std::move(unit), kind);
    c.low = value * (1.0 - relative);
    c.high = value * (1.0 + relative);
    char buf[48];
    std::snprintf(buf, sizeof buf, "within %g%%", relative * 100.0);
    c.tolerance = buf;
    return c;
}

PublishedCell rangeCell(std::string id, std::string quantity, double low, double high, std::string unit,
                        CellKind kind) {
    PublishedCell c = exactCell(std::move(id), std::move(quantity), (low + high) / 2.0, std::move(unit), kind);
    c.low = low;
    c.high = high;
    char buf[64];
    std::snprintf(buf, sizeof buf, "stated range %g-%g", low, high);
    c.tolerance = buf;
    return c;
}

bool conditionHolds(const std::string& published, const std::string& measured) {
    if (published.ends_with('+')) {
        const std::vector<long> want = versionParts(published.substr(0, published.size() - 1));
        const std::vector<long> have = versionParts(measured);
        return !want.empty() && !have.empty() &&
               !std::lexicographical_compare(have.begin(), have.end(), want.begin(), want.end());
    }
    if (published == measured) {
        return true;
    }
    // "5.0.3" holds for "5.0.3.1683" (a build number), not for "5.0.30".
    return measured.starts_with(published) && measured[published.size()] == '.' && !versionParts(published).empty();
}

const char* toString(VerdictKind kind) {
    switch (kind) {
        case VerdictKind::Reproduced:
            return "reproduced";
        case VerdictKind::Differs:
            return "differs";
        case VerdictKind::NotComparable:
            return "not comparable here";
    }
    return "?";
}

Verdict judge(const PublishedCell& published, const MeasuredCell* measured) {
    Verdict v;
    if (measured == nullptr) {
        v.reason = "this run did not measure it";
        return v;
    }
    if (!measured->value) {
        v.reason = measured->missing.empty() ? "this run did not measure it" : measured->missing;
        return v;
    }
    for (const Condition& p : published.conditions) {
        const Condition* m = findCondition(measured->conditions, p.key);
        if (p.required && (m == nullptr || !conditionHolds(p.value, m->value))) {
            v.reason = "needs " + p.key + " " + p.value + " (this run: " + (m == nullptr ? "unknown" : m->value) + ")";
            return v;
        }
    }
    const double x = *measured->value;
    if (published.value != 0 && std::isfinite(x)) {
        v.deviation = x / published.value - 1.0;
    }
    // A relative slack of 1e-9 so that an exact count computed in double is not refused.
    const double slack = 1e-9 * std::max(1.0, std::abs(published.value));
    if (std::isfinite(x) && x >= published.low - slack && x <= published.high + slack) {
        v.kind = VerdictKind::Reproduced;
        return v;
    }
    v.kind = VerdictKind::Differs;
    const std::string by = v.deviation ? percent(*v.deviation) : std::string("measured ") + std::to_string(x);
    std::string why = differingConditions(published, *measured);
    if (why.empty()) {
        why = published.kind == CellKind::Count
                  ? "the conditions stated are met: an unstated one differs (the data set, the server's batching)"
                  : "machine (the conditions stated are met)";
    } else if (published.kind != CellKind::Count) {
        why += "; machine";
    }
    v.reason = by + ": " + why;
    return v;
}

}  // namespace blobbench
