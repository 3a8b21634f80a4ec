#pragma once

// Internal to the PostgreSQL driver: libpq handles, type oids and the tunables' ids, shared by the
// driver, the session and the insert statement. Never included outside engine/drivers/postgres.

#include <libpq-fe.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/Error.h"
#include "engine/core/Sample.h"

namespace blobbench::pg {

struct ResultDeleter {
    void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// Built-in type oids (catalog/pg_type_d.h is a server header; these values never change).
namespace type {
inline constexpr Oid Bool = 16;
inline constexpr Oid Bytea = 17;
inline constexpr Oid Name = 19;
inline constexpr Oid Int8 = 20;
inline constexpr Oid Int2 = 21;
inline constexpr Oid Int4 = 23;
inline constexpr Oid Text = 25;
inline constexpr Oid ObjectId = 26;  // a large object's handle when a column stores one
inline constexpr Oid Float4 = 700;
inline constexpr Oid Float8 = 701;
inline constexpr Oid Bpchar = 1042;
inline constexpr Oid Varchar = 1043;
}  // namespace type

// Tunable ids, declared in PostgresDriver::parameters().
namespace param {
inline constexpr const char* ResultFormat = "result_format";
inline constexpr const char* ParamFormat = "param_format";
inline constexpr const char* ByteaOutput = "bytea_output";
inline constexpr const char* StandardStrings = "standard_conforming_strings";
inline constexpr const char* FetchMode = "fetch_mode";
inline constexpr const char* FetchSize = "fetch_size";
inline constexpr const char* DecodeTextBytea = "decode_text_bytea";
inline constexpr const char* InsertMethod = "insert_method";
inline constexpr const char* Pipeline = "pipeline";
inline constexpr const char* LoChunkSize = "lo_chunk_size";
inline constexpr const char* SslMode = "sslmode";
inline constexpr const char* ConnectTimeout = "connect_timeout";
inline constexpr const char* StatementTimeout = "statement_timeout";
inline constexpr const char* ToastCompression = "default_toast_compression";
inline constexpr const char* ColumnStorage = "column_storage";
inline constexpr const char* ColumnCompression = "column_compression";
}  // namespace param

using Clock = std::chrono::steady_clock;
inline Nanos since(Clock::time_point start) {
    return std::chrono::duration_cast<Nanos>(Clock::now() - start);
}

inline std::string sqlState(const PGresult* result) {
    const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    return state ? state : "";
}

// The server's or libpq's words on one line: a result's message when there is one, else the connection's.
inline std::string messageOf(PGconn* conn, const PGresult* result) {
    std::string text;
    if (result) {
        text = PQresultErrorMessage(result);
    }
    if (text.empty() && conn) {
        text = PQerrorMessage(conn);
    }
    text = oneLine(text);
    return text.empty() ? "unknown libpq error" : text;
}

inline constexpr std::string_view CancelledState = "57014";  // query_canceled: user request or timeout
inline constexpr std::string_view ReadOnlyState = "25006";   // read_only_sql_transaction

// Reading the shape of a scenario's INSERT by hand, not with std::regex: it recursed once per
// character, and a statement of 100 kB (many columns, a long literal) overflowed the stack.
namespace sql {

inline bool isSpace(char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

inline void skipSpace(std::string_view text, std::size_t& at) {
    while (at < text.size() && isSpace(text[at])) {
        ++at;
    }
}

// The word at `at` in any case; moves `at` past it.
inline bool word(std::string_view text, std::size_t& at, std::string_view lower) {
    if (text.size() - at < lower.size()) {
        return false;
    }
    for (std::size_t i = 0; i < lower.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(text[at + i])) != lower[i]) {
            return false;
        }
    }
    at += lower.size();
    return true;
}

// Text up to the next ')' inside "( ... )" at `at`; moves `at` past the ')'.
inline bool parenthesised(std::string_view text, std::size_t& at, std::string& inside) {
    if (at >= text.size() || text[at] != '(') {
        return false;
    }
    const auto close = text.find(')', at + 1);
    if (close == std::string_view::npos) {
        return false;
    }
    inside = std::string(text.substr(at + 1, close - at - 1));
    at = close + 1;
    return true;
}

// The table of "INSERT INTO table ..." (leading space, any case), or "" for any other statement;
// `after` is set past the table's name.
inline std::string insertTable(std::string_view text, std::size_t* after = nullptr) {
    std::size_t at = 0;
    skipSpace(text, at);
    if (!word(text, at, "insert") || at >= text.size() || !isSpace(text[at])) {
        return {};
    }
    skipSpace(text, at);
    if (!word(text, at, "into") || at >= text.size() || !isSpace(text[at])) {
        return {};
    }
    skipSpace(text, at);
    const std::size_t begin = at;
    while (at < text.size() && !isSpace(text[at]) && text[at] != '(') {
        ++at;
    }
    if (after) {
        *after = at;
    }
    return std::string(text.substr(begin, at - begin));
}

// "INSERT INTO table (columns) VALUES (values)" with an optional ';', and nothing else.
struct InsertParts {
    std::string table;
    std::string columns;
    std::string values;
};

inline std::optional<InsertParts> simpleInsert(std::string_view text) {
    InsertParts parts;
    std::size_t at = 0;
    parts.table = insertTable(text, &at);
    if (parts.table.empty()) {
        return std::nullopt;
    }
    skipSpace(text, at);
    if (!parenthesised(text, at, parts.columns)) {
        return std::nullopt;
    }
    skipSpace(text, at);
    if (!word(text, at, "values")) {
        return std::nullopt;
    }
    skipSpace(text, at);
    if (!parenthesised(text, at, parts.values)) {
        return std::nullopt;
    }
    skipSpace(text, at);
    if (at < text.size() && text[at] == ';') {
        ++at;
    }
    skipSpace(text, at);
    if (at != text.size()) {
        return std::nullopt;
    }
    return parts;
}

}  // namespace sql

}  // namespace blobbench::pg
