#pragma once

// Shared by the tests/integration/test_postgres*.cpp executables: a session factory, a sink that keeps
// what it is given, scratch tables. The server comes from BLOBBENCH_PG_CONNINFO (BLOBBENCH_REQUIRE_ENV).

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/core/Error.h"
#include "engine/drivers/postgres/PostgresDriver.h"
#include "support/TestSupport.h"

namespace blobbench::pgtest {

inline const PostgresDriver& driver() {
    static const PostgresDriver instance;
    return instance;
}

inline ConnectionSpec specFor(const std::string& target) {
    ConnectionSpec spec;
    spec.engine = "postgres";
    spec.target = target;
    return spec;
}

inline std::unique_ptr<Session> connect(const std::string& target, const ParameterValues& given = {}) {
    return driver().connect(specFor(target), resolveParameters(driver().parameters(), given));
}

inline QuerySpec querySpec(std::string sql, FetchMode fetch = FetchMode::Content, ParameterValues statement = {},
                           std::optional<std::uint64_t> rowLimit = std::nullopt) {
    QuerySpec spec;
    spec.sql = std::move(sql);
    spec.fetch = fetch;
    spec.statementParameters = std::move(statement);
    spec.rowLimit = rowLimit;
    return spec;
}

// A table name of this process, so parallel runs do not collide.
inline std::string tableName(const std::string& stem) {
    return "bb_pgtest_" + stem + "_" + std::to_string(getpid());
}

inline std::string randomBytes(std::size_t size, unsigned seed) {
    std::mt19937 engine(seed);
    std::string out(size, '\0');
    for (auto& c : out) {
        c = static_cast<char>(engine() & 0xff);
    }
    return out;
}

// Keeps every row (values joined from their chunks) and counts what arrived.
class CollectingSink : public RowSink {
public:
    struct Row {
        std::vector<std::optional<std::string>> values;  // integers as decimal text
        std::vector<bool> skipped;
    };

    void columns(const std::vector<ColumnInfo>& columns) override {
        m_columns = columns;
        startRow();
    }
    void integer(std::size_t column, std::int64_t value) override { m_row.values[column] = std::to_string(value); }
    void real(std::size_t column, double value) override { m_row.values[column] = std::to_string(value); }
    void null(std::size_t column) override { m_row.values[column].reset(); }
    void chunk(std::size_t column, std::string_view bytes) override {
        if (!m_row.values[column]) {
            m_row.values[column] = std::string();
        }
        m_row.values[column]->append(bytes);
        contentBytes += bytes.size();
        ++chunks;
    }
    void valueEnd(std::size_t /*column*/) override { ++valuesRead; }
    void lobSkipped(std::size_t column) override {
        m_row.skipped[column] = true;
        ++skipped;
    }
    void endRow() override {
        rows.push_back(std::move(m_row));
        startRow();
        if (onRow) {
            onRow(rows.size());
        }
    }

    const std::vector<ColumnInfo>& columnInfo() const { return m_columns; }

    std::vector<Row> rows;
    std::uint64_t contentBytes = 0;
    std::uint64_t chunks = 0;
    std::uint64_t valuesRead = 0;
    std::uint64_t skipped = 0;
    std::function<void(std::size_t)> onRow;

private:
    void startRow() {
        m_row.values.assign(m_columns.size(), std::nullopt);
        m_row.skipped.assign(m_columns.size(), false);
    }

    std::vector<ColumnInfo> m_columns;
    Row m_row;
};

inline const ParameterEffect* findEffect(const std::vector<ParameterEffect>& effects, const std::string& id) {
    for (const auto& effect : effects) {
        if (effect.id == id) {
            return &effect;
        }
    }
    return nullptr;
}

// Runs fn and returns the Error it throws (a failed expectation when it throws nothing).
template <typename Fn>
std::optional<Error> errorOf(Fn&& fn) {
    try {
        fn();
    } catch (const Error& error) {
        return error;
    }
    ADD_FAILURE() << "expected a blobbench::Error";
    return std::nullopt;
}

// Drops the table when the test ends, whatever happened.
class ScopedTable {
public:
    ScopedTable(Session& session, std::string name, const std::string& columns)
        : m_session(session), m_name(std::move(name)) {
        m_session.execute("DROP TABLE IF EXISTS " + m_name);
        m_session.execute("CREATE TABLE " + m_name + " (" + columns + ")");
    }
    ~ScopedTable() {
        try {
            m_session.execute("DROP TABLE IF EXISTS " + m_name);
        } catch (...) {
        }
    }
    ScopedTable(const ScopedTable&) = delete;
    ScopedTable& operator=(const ScopedTable&) = delete;
    const std::string& name() const { return m_name; }

private:
    Session& m_session;
    std::string m_name;
};

}  // namespace blobbench::pgtest
