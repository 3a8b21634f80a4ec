#include "engine/core/Parameter.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "engine/core/Error.h"

namespace blobbench {
namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

Error badValue(const ParameterSpec& spec, std::string_view value, const std::string& expected) {
    return Error(ErrorKind::Usage,
                 "parameter " + spec.id + ": '" + std::string(value) + "' is not valid (expected " + expected + ")");
}

}  // namespace

std::string normaliseParameter(const ParameterSpec& spec, std::string_view value) {
    switch (spec.type) {
        case ParameterType::Integer: {
            std::int64_t number = 0;
            const auto* end = value.data() + value.size();
            auto [ptr, ec] = std::from_chars(value.data(), end, number);
            if (value.empty() || ec != std::errc() || ptr != end) {
                throw badValue(spec, value, "a whole number");
            }
            if (number < spec.minimum || number > spec.maximum) {
                throw badValue(spec, value,
                               std::to_string(spec.minimum) + ".." + std::to_string(spec.maximum) +
                                   (spec.unit.empty() ? "" : " " + spec.unit));
            }
            if (spec.scale == ParameterScale::PowerOfTwo && number > 0 && (number & (number - 1)) != 0) {
                throw badValue(spec, value, "a power of two");
            }
            return std::to_string(number);
        }
        case ParameterType::Boolean: {
            const std::string v = lower(value);
            if (v == "true" || v == "on" || v == "yes" || v == "1") {
                return "true";
            }
            if (v == "false" || v == "off" || v == "no" || v == "0") {
                return "false";
            }
            throw badValue(spec, value, "true or false");
        }
        case ParameterType::Enum: {
            const std::string v = lower(value);
            for (const auto& choice : spec.choices) {
                if (lower(choice) == v) {
                    return choice;
                }
            }
            std::string expected;
            for (const auto& choice : spec.choices) {
                expected += (expected.empty() ? "" : ", ") + choice;
            }
            throw badValue(spec, value, "one of " + expected);
        }
        case ParameterType::Text:
            return std::string(value);
    }
    return std::string(value);
}

ParameterValues statementValues(const std::string& engine, const std::vector<ParameterSpec>& specs,
                                const ParameterValues& values, const ParameterValues& statement) {
    ParameterValues out = values;
    for (const auto& [id, value] : statement) {
        const std::string& wanted = id;  // clang 14 does not capture structured bindings
        auto it = std::find_if(specs.begin(), specs.end(), [&](const ParameterSpec& s) { return s.id == wanted; });
        if (it == specs.end()) {
            throw Error(ErrorKind::Usage, engine + ": unknown parameter '" + id + "'");
        }
        const std::string normalised = normaliseParameter(*it, value);
        // Callers may pass every resolved value; only a session-level one that differs is an error.
        const auto session = values.find(id);
        if (!it->perStatement && normalised != (session == values.end() ? std::string() : session->second)) {
            throw Error(ErrorKind::Usage, engine + ": parameter '" + id + "' is set per session (connect with " + id +
                                              "=" + normalised + ")");
        }
        out[id] = normalised;
    }
    return out;
}

ParameterValues resolveParameters(const std::vector<ParameterSpec>& specs, const ParameterValues& given) {
    ParameterValues out;
    for (const auto& [id, value] : given) {
        const std::string& wanted = id;  // clang 14 does not capture structured bindings
        auto it = std::find_if(specs.begin(), specs.end(), [&](const ParameterSpec& s) { return s.id == wanted; });
        if (it == specs.end()) {
            std::string known;
            for (const auto& s : specs) {
                known += (known.empty() ? "" : ", ") + s.id;
            }
            throw Error(ErrorKind::Usage, "unknown parameter '" + id + "' (this engine knows: " + known + ")");
        }
        out[id] = normaliseParameter(*it, value);
    }
    for (const auto& spec : specs) {
        out.try_emplace(spec.id, spec.defaultValue);
    }
    return out;
}

std::int64_t integerValue(const ParameterValues& values, const std::string& id) {
    const std::string& text = textValue(values, id);
    std::int64_t number = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
        throw Error(ErrorKind::Usage, "parameter " + id + ": '" + text + "' is not a whole number");
    }
    return number;
}

bool booleanValue(const ParameterValues& values, const std::string& id) {
    return textValue(values, id) == "true";
}

const std::string& textValue(const ParameterValues& values, const std::string& id) {
    auto it = values.find(id);
    if (it == values.end()) {
        throw Error(ErrorKind::Internal, "parameter " + id + " was not resolved");
    }
    return it->second;
}

std::int64_t parseSize(std::string_view text, std::string_view what) {
    std::int64_t number = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, number);
    if (text.empty() || ec != std::errc() || number < 0) {
        throw Error(ErrorKind::Usage, std::string(what) + ": '" + std::string(text) + "' is not a size");
    }
    const std::string suffix = lower(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
    std::int64_t factor = 1;
    if (suffix.empty() || suffix == "b") {
        factor = 1;
    } else if (suffix == "k" || suffix == "kb" || suffix == "kib") {
        factor = 1024;
    } else if (suffix == "m" || suffix == "mb" || suffix == "mib") {
        factor = 1024 * 1024;
    } else if (suffix == "g" || suffix == "gb" || suffix == "gib") {
        factor = 1024LL * 1024 * 1024;
    } else {
        throw Error(ErrorKind::Usage,
                    std::string(what) + ": '" + std::string(text) + "' has an unknown unit (use K, M or G)");
    }
    if (number > INT64_MAX / factor) {
        throw Error(ErrorKind::Usage, std::string(what) + ": '" + std::string(text) + "' is too large");
    }
    return number * factor;
}

ParameterSpec integerSpec(std::string id, std::string label, std::int64_t def, std::int64_t min, std::int64_t max,
                          std::string unit, std::string help, ParameterScale scale) {
    ParameterSpec spec;
    spec.id = std::move(id);
    spec.label = std::move(label);
    spec.type = ParameterType::Integer;
    spec.defaultValue = std::to_string(def);
    spec.minimum = min;
    spec.maximum = max;
    spec.unit = std::move(unit);
    spec.help = std::move(help);
    spec.scale = scale;
    return spec;
}

}  // namespace blobbench
