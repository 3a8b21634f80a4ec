#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/drivers/mariadb/MariadbSession.h"

namespace blobbench {

// An INSERT as insert_method says: binary (COM_STMT_PREPARE, its parameters bound in their binary form
// and sent whole in COM_STMT_EXECUTE), long-data (prepared, BLOB and text parameters sent first in
// COM_STMT_SEND_LONG_DATA chunks of long_data_chunk bytes), or text-hex (no prepare: COM_QUERY with each
// '?' replaced by a literal, BLOBs as X'...', text escaped by mysql_real_escape_string; a '?' inside a
// quoted string of the SQL is left alone).
class MariadbInsert final : public InsertStatement {
public:
    MariadbInsert(MariadbSession& session, std::string sql);
    ~MariadbInsert() override;
    MariadbInsert(const MariadbInsert&) = delete;
    MariadbInsert& operator=(const MariadbInsert&) = delete;

    void bindInteger(std::size_t index, std::int64_t value) override;
    void bindBoolean(std::size_t index, bool value) override;
    void bindNull(std::size_t index) override;
    void bindText(std::size_t index, std::string_view utf8) override;
    void bindBytes(std::size_t index, std::string_view bytes) override;
    void execute() override;

private:
    struct Value {
        enum_field_types type = MYSQL_TYPE_NULL;
        std::int64_t integer = 0;
        std::string bytes;
    };
    Value& at(std::size_t index);

    void executeText();

    MariadbSession& m_session;
    std::string m_sql;
    std::string m_method;                 // binary | text-hex | long-data
    std::size_t m_chunk = 65536;          // long-data
    std::vector<std::string> m_sqlParts;  // text-hex: the SQL around its placeholders
    MYSQL_STMT* m_stmt = nullptr;
    std::vector<Value> m_values;
};

namespace mariadb {

struct FetchPlan {
    bool binary = false;             // prepared statement (binary protocol) or COM_QUERY (text)
    bool buffered = false;           // store_result before the first row
    unsigned long prefetchRows = 0;  // binary: a read-only server-side cursor, this many rows per fetch
    std::size_t piece = 64 * 1024;   // binary: a value's bytes per buffer (mysql_stmt_fetch_column after the first)
    std::uint64_t* pieceCalls = nullptr;  // binary: set to the mysql_stmt_fetch_column calls made
    const QuerySpec* spec = nullptr;
    std::function<void(QueryPhase)> clientMark;  // called right after the spec's mark
};

// Runs one reading statement and streams its rows into `sink`; fills stats' times.
void fetch(MariadbSession& session, const FetchPlan& plan, RowSink& sink, QueryStats& stats, const CancelToken& cancel);

}  // namespace mariadb
}  // namespace blobbench
