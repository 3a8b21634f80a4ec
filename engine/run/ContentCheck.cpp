#include "engine/run/ContentCheck.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "engine/core/Error.h"

namespace blobbench {
namespace {

constexpr std::uint64_t kMultiplyA = 0x87C37B91114253D5ULL;
constexpr std::uint64_t kMultiplyB = 0x4CF5AD432745937FULL;

std::uint64_t rotl(std::uint64_t x, int r) {
    return (x << r) | (x >> (64 - r));
}

// MurmurHash3's finaliser: every input bit reaches every output bit.
std::uint64_t finalMix(std::uint64_t h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return h;
}

std::string trimmed(std::string_view text) {
    const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
    while (!text.empty() && space(static_cast<unsigned char>(text.front()))) {
        text.remove_prefix(1);
    }
    while (!text.empty() && space(static_cast<unsigned char>(text.back()))) {
        text.remove_suffix(1);
    }
    return std::string(text);
}

// Hashing time is the Runner's to take out of the fetch phase.
class Spent {
public:
    explicit Spent(std::chrono::nanoseconds& total) : m_total(total), m_start(std::chrono::steady_clock::now()) {}
    ~Spent() { m_total += std::chrono::steady_clock::now() - m_start; }
    Spent(const Spent&) = delete;
    Spent& operator=(const Spent&) = delete;

private:
    std::chrono::nanoseconds& m_total;
    std::chrono::steady_clock::time_point m_start;
};

}  // namespace

void ContentHash::word(std::uint64_t w) {
    m_state = rotl(m_state ^ (w * kMultiplyA), 31) * kMultiplyB;
}

void ContentHash::add(std::string_view bytes) {
    m_length += bytes.size();
    if (m_tailSize > 0) {
        const std::size_t take = std::min<std::size_t>(8 - m_tailSize, bytes.size());
        std::memcpy(m_tail + m_tailSize, bytes.data(), take);
        m_tailSize += static_cast<unsigned>(take);
        bytes.remove_prefix(take);
        if (m_tailSize < 8) {
            return;
        }
        std::uint64_t w = 0;
        std::memcpy(&w, m_tail, 8);
        word(w);
        m_tailSize = 0;
    }
    while (bytes.size() >= 8) {
        std::uint64_t w = 0;
        std::memcpy(&w, bytes.data(), 8);
        word(w);
        bytes.remove_prefix(8);
    }
    std::memcpy(m_tail, bytes.data(), bytes.size());
    m_tailSize = static_cast<unsigned>(bytes.size());
}

std::uint64_t ContentHash::value() const {
    std::uint64_t h = m_state;
    if (m_tailSize > 0) {
        std::uint64_t w = 0;
        std::memcpy(&w, m_tail, m_tailSize);
        h = rotl(h ^ (w * kMultiplyA), 31) * kMultiplyB;
    }
    return finalMix(h ^ m_length);
}

std::uint64_t contentHash(std::string_view bytes) {
    ContentHash h;
    h.add(bytes);
    return h.value();
}

std::string hashText(std::uint64_t hash) {
    char text[20];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

void VerifyingSink::columns(const std::vector<ColumnInfo>& columns) {
    m_idColumn.reset();
    for (std::size_t i = 0; i < columns.size() && !m_idColumn; ++i) {
        std::string name = columns[i].name;
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
        if (name == "ID") {
            m_idColumn = i;
        }
    }
    for (std::size_t i = 0; i < columns.size() && !m_idColumn; ++i) {
        if (columns[i].kind == ColumnKind::Integer) {
            m_idColumn = i;
        }
    }
    m_columns.assign(columns.size(), Column{});
    m_inner.columns(columns);
}

VerifyingSink::Column& VerifyingSink::at(std::size_t column) {
    if (m_columns.size() <= column) {
        m_columns.resize(column + 1);
    }
    return m_columns[column];
}

void VerifyingSink::integer(std::size_t column, std::int64_t value) {
    if (m_idColumn == column || (!m_idColumn && column == 0)) {
        m_rowId = value;
    }
    m_inner.integer(column, value);
}

void VerifyingSink::real(std::size_t column, double value) {
    m_inner.real(column, value);
}

void VerifyingSink::null(std::size_t column) {
    m_inner.null(column);
}

void VerifyingSink::chunk(std::size_t column, std::string_view bytes) {
    {
        Spent spent(m_verdict.spent);
        Column& c = at(column);
        c.present = true;
        c.hash.add(bytes);
    }
    m_inner.chunk(column, bytes);
}

void VerifyingSink::valueEnd(std::size_t column) {
    at(column).present = true;  // an empty value is a value too
    m_inner.valueEnd(column);
}

void VerifyingSink::lobSkipped(std::size_t column) {
    m_inner.lobSkipped(column);
}

void VerifyingSink::mismatch(const std::string& what) {
    if (++m_verdict.mismatches == 1) {
        m_verdict.firstMismatch = what;
    }
}

void VerifyingSink::endRow() {
    {
        Spent spent(m_verdict.spent);
        const std::string row = m_rowId ? "row " + std::to_string(*m_rowId) : std::string("a row without an ID");
        const ExpectedValue* expected = nullptr;
        if (m_rowId && *m_rowId >= 1 && static_cast<std::uint64_t>(*m_rowId) <= m_expected.rows.size()) {
            expected = &m_expected.rows[static_cast<std::size_t>(*m_rowId - 1)];
        }
        bool anyValue = false;
        bool rowDiffers = false;
        std::string what;
        for (std::size_t i = 0; i < m_columns.size(); ++i) {
            Column& c = m_columns[i];
            if (m_idColumn == i || !c.present) {
                c.hash.reset();
                c.present = false;
                continue;
            }
            anyValue = true;
            ++m_verdict.values;
            const std::uint64_t hash = c.hash.value();
            const std::uint64_t length = c.hash.length();
            if (expected && (length != expected->length || hash != expected->hash) && !rowDiffers) {
                rowDiffers = true;
                what = row + ": expected " + std::to_string(expected->length) + " bytes (hash " +
                       hashText(expected->hash) + "), got " + std::to_string(length) + " bytes (hash " +
                       hashText(hash) + ")";
            }
            c.hash.reset();
            c.present = false;
        }
        if (expected && m_everyRow)
            m_seen[static_cast<std::size_t>(*m_rowId - 1)] = true;
        if (!expected) {
            mismatch(row + ": the data set has no such row (" + std::to_string(m_expected.rows.size()) + " rows)");
        } else if (!anyValue) {
            mismatch(row + ": expected " + std::to_string(expected->length) + " bytes (hash " +
                     hashText(expected->hash) + "), got NULL");
        } else if (rowDiffers) {
            mismatch(what);
        }
        m_rowId.reset();
    }
    m_inner.endRow();
}

void VerifyingSink::finishEveryRow() {
    if (!m_everyRow)
        return;
    const auto missing = static_cast<std::uint64_t>(std::count(m_seen.begin(), m_seen.end(), false));
    for (std::size_t i = 0; i < m_seen.size(); ++i) {
        if (!m_seen[i]) {
            mismatch("row " + std::to_string(i + 1) + ": in the data set, not read (" + std::to_string(missing) +
                     " of its " + std::to_string(m_seen.size()) + " rows missing)");
        }
    }
}

bool readsEveryRow(const ContentExpectation& expected, std::string_view sql) {
    const std::string statement = trimmed(sql);
    return std::any_of(expected.everyRowSql.begin(), expected.everyRowSql.end(),
                       [&](const std::string& s) { return statement == trimmed(s); });
}

bool takeVerifyContent(ParameterValues& values, bool fallback) {
    const auto it = values.find(kVerifyContentParameter);
    if (it == values.end()) {
        return fallback;
    }
    const std::string value = it->second;
    values.erase(it);
    if (value == "on" || value == "true" || value == "1") {
        return true;
    }
    if (value == "off" || value == "false" || value == "0") {
        return false;
    }
    throw Error(ErrorKind::Usage, "parameter 'verify_content': '" + value + "' is not on or off");
}

ContentCheckKind contentCheckKind(const ContentExpectation& expected, std::string_view sql, std::string_view setupSql,
                                  FetchMode fetch) {
    if (!expected.notInEffect.empty() || !trimmed(setupSql).empty()) {
        return ContentCheckKind::None;
    }
    const std::string statement = trimmed(sql);
    if (!expected.maxLengthSql.empty() && statement == trimmed(expected.maxLengthSql)) {
        return ContentCheckKind::MaxLength;
    }
    if (fetch != FetchMode::Content) {
        return ContentCheckKind::None;
    }
    for (const std::string& s : expected.rowSql) {
        if (statement == trimmed(s)) {
            return ContentCheckKind::Rows;
        }
    }
    return ContentCheckKind::None;
}

}  // namespace blobbench
