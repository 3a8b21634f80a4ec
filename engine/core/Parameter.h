#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace blobbench {

enum class ParameterType { Integer, Boolean, Enum, Text };
enum class ParameterScale { Linear, Log, PowerOfTwo };

// A tunable that an engine declares as data; the GUI builds its controls, the CLI its flags and the
// project file its keys from these declarations.
struct ParameterSpec {
    std::string id;  // stable key, e.g. "max_inline_blob_size"
    std::string label;
    ParameterType type = ParameterType::Integer;
    std::string defaultValue;
    std::int64_t minimum = 0;  // Integer only
    std::int64_t maximum = 0;
    std::vector<std::string> choices;  // Enum only
    std::string unit;                  // "B", "KiB", "ms", "bit/s"
    std::string help;
    std::string needs;  // e.g. "client and server >= 5.0.3"; empty when always honoured
    ParameterScale scale = ParameterScale::Linear;
    bool perStatement = false;  // can change between statements without reconnecting
};

using ParameterValues = std::map<std::string, std::string>;

// What a session did with a requested value: in effect (and the value read back), or not and why.
struct ParameterEffect {
    std::string id;
    std::string requested;
    std::string actual;  // read back from the engine; empty when it cannot be read
    bool inEffect = true;
    std::string reason;  // why not in effect
    bool operator==(const ParameterEffect&) const = default;
};

// Normalises one value ("on" -> "true", "0x10" is refused) or throws Error(Usage) naming the parameter.
std::string normaliseParameter(const ParameterSpec& spec, std::string_view value);

// An integer tunable, as the drivers and the run declare theirs.
ParameterSpec integerSpec(std::string id, std::string label, std::int64_t def, std::int64_t min, std::int64_t max,
                          std::string unit, std::string help, ParameterScale scale = ParameterScale::Linear);

// Defaults filled in, every value validated, unknown ids refused (Error(Usage) naming the id).
ParameterValues resolveParameters(const std::vector<ParameterSpec>& specs, const ParameterValues& given);

// A statement's values: the session's `values` with `statement`'s per-statement tunables over them.
// An unknown id, or a per-session one whose value differs from the session's, is Error(Usage)
// prefixed with `engine` ("postgres: parameter 'x' is set per session (connect with x=...)").
ParameterValues statementValues(const std::string& engine, const std::vector<ParameterSpec>& specs,
                                const ParameterValues& values, const ParameterValues& statement);

// statementValues() for one session, whose own values never change: the last answer is kept, since a
// session asks again with the same statement tunables at every statement of a run.
class StatementValues {
public:
    const ParameterValues& of(const std::string& engine, const std::vector<ParameterSpec>& specs,
                              const ParameterValues& values, const ParameterValues& statement) {
        if (!m_known || statement != m_statement) {
            m_known = false;  // a refused one leaves nothing behind
            m_values = statementValues(engine, specs, values, statement);
            m_statement = statement;
            m_known = true;
        }
        return m_values;
    }

private:
    bool m_known = false;
    ParameterValues m_statement;
    ParameterValues m_values;
};

// Typed access to a resolved value.
std::int64_t integerValue(const ParameterValues& values, const std::string& id);
bool booleanValue(const ParameterValues& values, const std::string& id);
const std::string& textValue(const ParameterValues& values, const std::string& id);

// Parses "64K", "1M", "2Mbit" style sizes (K=1024 for bytes); throws Error(Usage) naming `what`.
std::int64_t parseSize(std::string_view text, std::string_view what);

}  // namespace blobbench
