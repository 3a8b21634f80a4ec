#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/drivers/Driver.h"

namespace blobbench {

// A 64-bit hash of a byte stream that does not depend on how the stream is split into chunks (a
// BLOB arrives in segments). Eight bytes a step, multiply-and-rotate: several GB/s, so verifying a
// fetch costs little; not cryptographic, it finds a wrong value, not an adversary.
class ContentHash {
public:
    void add(std::string_view bytes);
    std::uint64_t value() const;  // of everything added so far (the state is not changed)
    std::uint64_t length() const { return m_length; }
    void reset() { *this = ContentHash(); }

private:
    void word(std::uint64_t w);
    std::uint64_t m_state = 0x243F6A8885A308D3ULL;
    std::uint64_t m_length = 0;
    unsigned char m_tail[8] = {};
    unsigned m_tailSize = 0;
};

std::uint64_t contentHash(std::string_view bytes);
std::string hashText(std::uint64_t hash);  // 16 hex digits

struct ExpectedValue {
    std::uint64_t length = 0;  // bytes
    std::uint64_t hash = 0;
};

// What a data set holds row by row, for verify_content=on; built before the run (engine/data's
// expectedContent), never inside the measured span.
struct ContentExpectation {
    std::string source;                    // the data set it describes ("synthetic text, seed 1, 600 rows")
    std::vector<ExpectedValue> rows;       // index = ID - 1
    std::uint64_t maxLength = 0;           // characters: the warm-up's MAX(CHAR_LENGTH(CONTENT))
    std::vector<std::string> rowSql;       // statements whose value columns are whole rows (by ID)
    std::vector<std::string> everyRowSql;  // of those, the ones that read every row: a row not read is a mismatch
    std::string maxLengthSql;              // the warm-up's statement
    std::string notInEffect;               // non-empty: why this data set's content cannot be verified
};

// One sample's verification, as the Runner reports it.
struct ContentVerdict {
    std::uint64_t values = 0;           // values compared
    std::uint64_t mismatches = 0;       // rows whose value differs (or that the data set lacks)
    std::string firstMismatch;          // "row 17: expected 3412 bytes (hash ...), got ..."
    std::chrono::nanoseconds spent{0};  // hashing and comparing, inside the driver's fetch span
};

// Forwards every call to `inner` (the MeasuringSink) and compares each row's value columns with
// the expectation: the row is named by its ID column (a column named ID, else the first integer
// one); every non-NULL value column of the row must equal that row's content; a row whose value
// columns are all NULL, or whose ID the data set lacks, is a mismatch.
class VerifyingSink final : public RowSink {
public:
    // `everyRow`: the statement reads every row of the data set (everyRowSql), so that a row it did
    // not read (deleted since the prepare) is a mismatch too, once finishEveryRow() is called.
    VerifyingSink(RowSink& inner, const ContentExpectation& expected, bool everyRow = false)
        : m_inner(inner), m_expected(expected), m_everyRow(everyRow), m_seen(everyRow ? expected.rows.size() : 0) {}
    // After a complete fetch without a row limit: each row of the data set not read is a mismatch.
    void finishEveryRow();

    void columns(const std::vector<ColumnInfo>& columns) override;
    void integer(std::size_t column, std::int64_t value) override;
    void real(std::size_t column, double value) override;
    void null(std::size_t column) override;
    void chunk(std::size_t column, std::string_view bytes) override;
    void valueEnd(std::size_t column) override;
    void lobSkipped(std::size_t column) override;
    void endRow() override;

    const ContentVerdict& verdict() const { return m_verdict; }

private:
    struct Column {
        ContentHash hash;
        bool present = false;  // a value (not NULL) arrived in this row
    };
    Column& at(std::size_t column);
    void mismatch(const std::string& what);

    RowSink& m_inner;
    const ContentExpectation& m_expected;
    std::optional<std::size_t> m_idColumn;
    std::vector<Column> m_columns;
    std::optional<std::int64_t> m_rowId;
    ContentVerdict m_verdict;
    bool m_everyRow = false;
    std::vector<bool> m_seen;  // by ID - 1, where every row is expected
};

// The run parameter: "verify_content" = on|off (true|false) in `values`, taken out of them (it is
// the Runner's, not a driver's); `fallback` when absent. Error(Usage) for another value.
inline constexpr const char* kVerifyContentParameter = "verify_content";
bool takeVerifyContent(ParameterValues& values, bool fallback);

// Whether a scenario's statement is one the expectation can check, and how.
enum class ContentCheckKind { Rows, MaxLength, None };
ContentCheckKind contentCheckKind(const ContentExpectation& expected, std::string_view sql, std::string_view setupSql,
                                  FetchMode fetch);
// Whether the statement is one of the expectation's everyRowSql.
bool readsEveryRow(const ContentExpectation& expected, std::string_view sql);

}  // namespace blobbench
