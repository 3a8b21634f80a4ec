#pragma once

#include <string>
#include <vector>

#include "engine/drivers/Driver.h"
#include "engine/drivers/postgres/PgCommon.h"

namespace blobbench {

class PostgresSession;

// One INSERT with $1..$n placeholders, executed in the way the insert_method tunable names: prepared
// (text or binary parameters, optionally pipelined), SQL literals, or COPY rows. Parameters whose column
// is an oid are written as large objects first. A COPY or a pipeline stays open between execute() calls
// and is finished by the session before any other command (or by commit()).
class PostgresInsert final : public InsertStatement {
public:
    PostgresInsert(PostgresSession& session, std::string sql, std::string name);
    ~PostgresInsert() override;
    PostgresInsert(const PostgresInsert&) = delete;
    PostgresInsert& operator=(const PostgresInsert&) = delete;

    void bindInteger(std::size_t index, std::int64_t value) override;
    void bindBoolean(std::size_t index, bool value) override;
    void bindNull(std::size_t index) override;
    void bindText(std::size_t index, std::string_view utf8) override;
    void bindBytes(std::size_t index, std::string_view bytes) override;
    void execute() override;

    // Ends an open COPY or pipeline and reports its errors.
    void finish();
    // Ends an open COPY or pipeline without caring for its outcome (rollback, destruction).
    void abandon() noexcept;

private:
    enum class Method { Prepared, Literal, LiteralLegacy, CopyText, CopyBinary };
    enum class Kind { Unbound, Null, Integer, Boolean, Text, Bytes };
    struct Slot {
        Kind kind = Kind::Unbound;
        std::int64_t integer = 0;
        std::string bytes;
    };

    Slot& slot(std::size_t index);
    bool writesLargeObjects() const;
    void writeLargeObjects();
    void executePrepared();
    void executeLiteral();
    void executeCopy();
    void consumePipeline();
    std::string literal(std::size_t index) const;
    void appendCopyText(std::string& row, std::size_t index) const;
    void appendCopyBinary(std::string& row, std::size_t index) const;

    PostgresSession& m_session;
    PGconn* m_conn;
    std::string m_sql;
    std::string m_name;
    Method m_method = Method::Prepared;
    bool m_binaryParameters = true;
    bool m_pipelineWanted = false;
    std::size_t m_loChunk = 8192;
    std::vector<Oid> m_types;
    std::vector<Slot> m_slots;

    // COPY: the table and, for each COPY column, which parameter feeds it.
    std::string m_copySql;
    std::vector<std::size_t> m_copyParameter;
    bool m_copying = false;

    bool m_pipelined = false;
    int m_pipelinePending = 0;
};

}  // namespace blobbench
