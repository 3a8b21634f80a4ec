#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/drivers/mariadb/MariadbSession.h"

namespace blobbench {

// A prepared INSERT (COM_STMT_PREPARE), its parameters bound in their binary form and sent whole.
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

    MariadbSession& m_session;
    std::string m_sql;
    MYSQL_STMT* m_stmt = nullptr;
    std::vector<Value> m_values;
};

namespace mariadb {

struct FetchPlan {
    bool binary = false;    // prepared statement (binary protocol) or COM_QUERY (text)
    bool buffered = false;  // store_result before the first row
    const QuerySpec* spec = nullptr;
    std::function<void(QueryPhase)> clientMark;  // called right after the spec's mark
};

// Runs one reading statement and streams its rows into `sink`; fills stats' times.
void fetch(MariadbSession& session, const FetchPlan& plan, RowSink& sink, QueryStats& stats, const CancelToken& cancel);

}  // namespace mariadb
}  // namespace blobbench
