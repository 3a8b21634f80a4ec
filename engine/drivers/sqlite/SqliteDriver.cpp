#include "engine/drivers/sqlite/SqliteDriver.h"

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <set>

#include "engine/core/Error.h"
#include "engine/core/LoadParameters.h"
#include "engine/drivers/ReadOnly.h"
#include "engine/drivers/sqlite/SqliteFileName.h"

namespace blobbench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kBlobChunk = 64 * 1024;

bool endsWith(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string quoteIdentifier(std::string_view name) {
    std::string out = "\"";
    for (char c : name) {
        out += c;
        if (c == '"') {
            out += '"';
        }
    }
    return out + "\"";
}

// What follows a statement besides blanks, semicolons and comments: its first 40 characters, or
// empty when nothing does.
std::string moreSql(std::string_view tail) {
    std::size_t i = 0;
    while (i < tail.size()) {
        const char c = tail[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';') {
            ++i;
        } else if (tail.substr(i, 2) == "--") {
            const auto end = tail.find('\n', i);
            i = end == std::string_view::npos ? tail.size() : end + 1;
        } else if (tail.substr(i, 2) == "/*") {
            const auto end = tail.find("*/", i + 2);
            i = end == std::string_view::npos ? tail.size() : end + 2;
        } else {
            std::string rest(tail.substr(i, 40));
            return i + 40 < tail.size() ? rest + "..." : rest;
        }
    }
    return {};
}

// Owns a prepared statement; finalised on every path.
class Statement {
public:
    Statement(sqlite3* db, std::string_view sql) {
        const char* tail = nullptr;
        if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &m_stmt, &tail) != SQLITE_OK) {
            throw Error(ErrorKind::Sql, oneLine(sqlite3_errmsg(db)));
        }
        if (m_stmt == nullptr) {
            throw Error(ErrorKind::Sql, "the statement is empty");
        }
        // sqlite3_prepare compiles the first statement only: "SELECT ... WHERE ID < 3; SELECT ..."
        // read 2 rows and dropped the rest without a word (PostgreSQL and MariaDB refuse it).
        if (const std::string rest = moreSql(std::string_view(tail, sql.data() + sql.size() - tail)); !rest.empty()) {
            sqlite3_finalize(m_stmt);
            m_stmt = nullptr;
            throw Error(ErrorKind::Sql, "more than one statement (after the first: '" + rest +
                                            "'): SQLite runs one; give each its own scenario, or put what must "
                                            "run first in the scenario's setup SQL");
        }
    }
    ~Statement() { sqlite3_finalize(m_stmt); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    sqlite3_stmt* get() const { return m_stmt; }

private:
    sqlite3_stmt* m_stmt = nullptr;
};

// PRAGMA query_only for one statement outside a transaction of the caller's (begin(): a write in
// one is the caller's own). A transaction a scenario's BEGIN or SAVEPOINT opened is no caller's: the
// next scenario's DELETE went through in it, and COMMIT kept it (hostile round 5d E2).
class QueryOnly {
public:
    QueryOnly(sqlite3* db, bool callerTransaction)
        : m_db(db),
          m_active(!callerTransaction &&
                   sqlite3_exec(db, "PRAGMA query_only = 1", nullptr, nullptr, nullptr) == SQLITE_OK) {}
    ~QueryOnly() {
        if (m_active) {
            sqlite3_exec(m_db, "PRAGMA query_only = 0", nullptr, nullptr, nullptr);
        }
    }
    QueryOnly(const QueryOnly&) = delete;
    QueryOnly& operator=(const QueryOnly&) = delete;
    bool active() const { return m_active; }

private:
    sqlite3* m_db;
    bool m_active;
};

class SqliteInsert final : public InsertStatement {
public:
    SqliteInsert(sqlite3* db, std::string_view sql) : m_db(db), m_statement(db, sql) {}
    void bindInteger(std::size_t i, std::int64_t v) override { check(sqlite3_bind_int64(stmt(), index(i), v)); }
    void bindBoolean(std::size_t i, bool v) override { check(sqlite3_bind_int(stmt(), index(i), v ? 1 : 0)); }
    void bindNull(std::size_t i) override { check(sqlite3_bind_null(stmt(), index(i))); }
    void bindText(std::size_t i, std::string_view v) override {
        check(sqlite3_bind_text64(stmt(), index(i), v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
    }
    void bindBytes(std::size_t i, std::string_view v) override {
        check(sqlite3_bind_blob64(stmt(), index(i), v.data(), v.size(), SQLITE_TRANSIENT));
    }
    void execute() override {
        const int rc = sqlite3_step(stmt());
        sqlite3_reset(stmt());
        sqlite3_clear_bindings(stmt());
        if (rc != SQLITE_DONE) {
            throw Error(ErrorKind::Sql, oneLine(sqlite3_errmsg(m_db)));
        }
    }

private:
    sqlite3_stmt* stmt() const { return m_statement.get(); }
    static int index(std::size_t i) { return static_cast<int>(i) + 1; }
    void check(int rc) const {
        if (rc != SQLITE_OK) {
            throw Error(ErrorKind::Sql, oneLine(sqlite3_errmsg(m_db)));
        }
    }
    sqlite3* m_db;
    Statement m_statement;
};

ColumnKind kindOfDeclared(const char* declared) {
    if (declared == nullptr) {
        return ColumnKind::Other;
    }
    std::string d(declared);
    for (auto& c : d) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    if (d.find("INT") != std::string::npos) {
        return ColumnKind::Integer;
    }
    if (d.find("BOOL") != std::string::npos) {
        return ColumnKind::Boolean;
    }
    if (d.find("CHAR") != std::string::npos || d.find("CLOB") != std::string::npos ||
        d.find("TEXT") != std::string::npos) {
        return ColumnKind::Text;
    }
    if (d.find("BLOB") != std::string::npos) {
        return ColumnKind::Binary;
    }
    if (d.find("REAL") != std::string::npos || d.find("FLOA") != std::string::npos ||
        d.find("DOUB") != std::string::npos) {
        return ColumnKind::Real;
    }
    return ColumnKind::Other;
}

class SqliteSession final : public Session {
public:
    SqliteSession(const ConnectionSpec& spec, const ParameterValues& values) : m_values(values) {
        m_path = SqliteDriver::pathOf(spec.target);
        namespace fs = std::filesystem;
        std::error_code ec;
        const bool readOnly = spec.readOnly || textValue(values, "mode") == "read-only";
        // A URI file name ("file:/x/s.db?mode=ro") is checked as the file SQLite opens for it.
        const std::optional<std::string> file = sqliteFileOf(m_path);
        if (file && fs::is_directory(*file, ec)) {
            throw Error(ErrorKind::Io, "is a directory, not a database file");
        }
        const bool exists = file && fs::exists(*file, ec);
        if (readOnly && !exists) {
            throw Error(ErrorKind::Io, "does not exist");
        }
        if (!exists && !spec.create) {
            // connect() names the path: "sqlite:/x.db: connect: no such database file (...)".
            throw Error(ErrorKind::Io,
                        "no such database file (a read creates none; prepare it first: "
                        "blobbench-cli prepare sqlite:" +
                            m_path + ", or Connection > Prepare data set in the workbench)");
        }
        const int flags =
            readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (spec.create ? SQLITE_OPEN_CREATE : 0));
        // SQLite refuses a URI's mode=rwc without SQLITE_OPEN_CREATE; the file was found above.
        int uriFlags = 0;
        if (isSqliteUri(m_path)) {
            uriFlags =
                SQLITE_OPEN_URI | (!readOnly && sqliteUriParameter(m_path, "mode") == "rwc" ? SQLITE_OPEN_CREATE : 0);
        }
        if (sqlite3_open_v2(m_path.c_str(), &m_db, flags | uriFlags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
            const std::string message = m_db ? sqlite3_errmsg(m_db) : "out of memory";
            sqlite3_close(m_db);
            m_db = nullptr;
            throw Error(ErrorKind::Connect, oneLine(message));
        }
        try {
            configure(exists);
        } catch (...) {
            sqlite3_close(m_db);
            m_db = nullptr;
            throw;
        }
    }

    ~SqliteSession() override {
        closeBlob();
        if (m_db != nullptr) {
            sqlite3_close_v2(m_db);
        }
    }

    const SessionInfo& info() const override { return m_info; }
    Dialect dialect() const override { return Dialect::SQLite; }

    void execute(std::string_view sql) override {
        std::string text(sql);
        char* message = nullptr;
        if (sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
            std::string what = message ? message : sqlite3_errmsg(m_db);
            sqlite3_free(message);
            throw Error(ErrorKind::Sql, oneLine(what));
        }
    }

    QueryStats query(const QuerySpec& spec, RowSink& sink, const CancelToken& cancel) override {
        QueryStats stats;
        stats.nativeLogical = WireStats::unavailable("not applicable (embedded)");
        stats.nativePhysical = stats.nativeLogical;
        const auto t0 = Clock::now();
        Statement statement(m_db, spec.sql);
        sqlite3_stmt* stmt = statement.get();
        const int count = sqlite3_column_count(stmt);
        std::vector<ColumnInfo> columns(static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i) {
            auto& c = columns[static_cast<std::size_t>(i)];
            c.name = sqlite3_column_name(stmt, i);
            c.kind = kindOfDeclared(sqlite3_column_decltype(stmt, i));
            c.isLob = c.kind == ColumnKind::Text || c.kind == ColumnKind::Binary;
        }
        // In blob-API mode, value columns that come straight from a table are read with
        // sqlite3_blob_open in chunks; the statement itself then only carries their type.
        BlobPlan plan = planBlobReads(spec, stmt, columns, stats);
        // An open blob handle keeps a read transaction: close it with the query, on every path.
        struct BlobCloser {
            SqliteSession* session;
            ~BlobCloser() { session->closeBlob(); }
        } blobCloser{this};
        std::unique_ptr<Statement> wrapped;
        if (plan.active) {
            wrapped = std::make_unique<Statement>(m_db, plan.sql);
            stmt = wrapped->get();
        }
        stats.prepare = Clock::now() - t0;
        const QueryOnly readOnly(m_db, m_callerTransaction);  // a reading statement: see ReadOnly.h
        const bool autocommitBefore = sqlite3_get_autocommit(m_db) != 0;
        // PRAGMA query_only lets some statements change the file: PRAGMA journal_mode = WAL rewrote
        // its header, VACUUM INTO left an empty file (hostile round 5c I3). SQLite tells which.
        if (readOnly.active() && sqlite3_stmt_readonly(stmt) == 0) {
            throw Error(ErrorKind::Sql, refusedWrite("SQLite: the statement may change the database file"));
        }
        sink.columns(columns);
        spec.mark(QueryPhase::Prepared);

        const auto t1 = Clock::now();
        int rc = sqlite3_step(stmt);
        const auto t2 = Clock::now();
        stats.execute = t2 - t1;
        spec.mark(QueryPhase::Executed);
        std::uint64_t rows = 0;
        while (rc == SQLITE_ROW) {
            if (cancel.cancelled()) {
                throw Error(ErrorKind::Cancelled, "cancelled after " + std::to_string(rows) + " rows");
            }
            if (spec.rowLimit && rows >= *spec.rowLimit) {
                break;
            }
            for (int i = 0; i < count; ++i) {
                readColumn(stmt, static_cast<std::size_t>(i), spec.fetch, plan, sink);
            }
            sink.endRow();
            ++rows;
            rc = sqlite3_step(stmt);
        }
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            if (rc == SQLITE_INTERRUPT || cancel.cancelled()) {
                throw Error(ErrorKind::Cancelled, "cancelled after " + std::to_string(rows) + " rows");
            }
            const std::string words = oneLine(sqlite3_errmsg(m_db));
            throw Error(ErrorKind::Sql, rc == SQLITE_READONLY && readOnly.active() ? refusedWrite(words) : words);
        }
        if (readOnly.active() && autocommitBefore && sqlite3_get_autocommit(m_db) == 0) {
            // BEGIN, SAVEPOINT: what the next scenarios did in it would be committed by a COMMIT.
            sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw Error(ErrorKind::Sql, refusedTransaction());
        }
        stats.fetch = Clock::now() - t2;
        spec.mark(QueryPhase::Fetched);
        return stats;
    }

    void begin() override {
        execute("BEGIN");
        m_callerTransaction = true;
    }
    void commit() override {
        execute("COMMIT");
        m_callerTransaction = false;
    }
    void rollback() override {
        m_callerTransaction = false;
        if (!sqlite3_get_autocommit(m_db)) {
            execute("ROLLBACK");
        }
    }
    std::unique_ptr<InsertStatement> prepareInsert(std::string_view sql) override {
        return std::make_unique<SqliteInsert>(m_db, sql);
    }
    bool tableExists(std::string_view name) override {
        Statement s(m_db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1 COLLATE NOCASE");
        sqlite3_bind_text(s.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
        return sqlite3_step(s.get()) == SQLITE_ROW;
    }
    void cancel() override { sqlite3_interrupt(m_db); }

private:
    struct BlobColumn {
        bool viaApi = false;
        std::string table;
        std::string column;
        std::size_t rowidColumn = 0;
    };
    struct BlobPlan {
        bool active = false;
        std::string sql;
        std::vector<BlobColumn> columns;
    };

    void configure(bool existed) {
        sqlite3_extended_result_codes(m_db, 1);
        m_info.engine = "sqlite";
        m_info.embedded = true;
        m_info.clientVersion = sqlite3_libversion();
        m_info.serverVersion = m_info.clientVersion;
        m_info.versionBanner = {"SQLite " + m_info.clientVersion + " (embedded, " + m_path + ")"};
        // A corrupt or foreign file is found here, not in the middle of a run.
        std::string check = pragma("schema_version");
        (void)check;

        const std::int64_t pageSize = integerValue(m_values, "page_size");
        if (!existed || pragma("page_count") == "0") {
            execute("PRAGMA page_size=" + std::to_string(pageSize));
        }
        execute("PRAGMA cache_size=-" + std::to_string(integerValue(m_values, "cache_size")));
        execute("PRAGMA mmap_size=" + std::to_string(integerValue(m_values, "mmap_size")));
        const std::string journal = textValue(m_values, "journal_mode");
        // WAL is the one journal mode written into the file: switching an existing file into or out of it
        // rewrites its header and lasts beyond the run, so a run leaves the file's mode as it found it and
        // says so. The other modes hold for the connection only.
        const std::string fileMode = existed ? pragma("journal_mode") : std::string();
        const bool keepWal = existed && journal != "wal" && fileMode == "wal";
        const bool keepRollback = existed && journal == "wal" && fileMode != "wal" && pragma("page_count") != "0";
        const std::string journalNow = keepWal || keepRollback ? fileMode : pragma("journal_mode=" + journal);
        execute("PRAGMA synchronous=" + textValue(m_values, "synchronous"));

        auto effect = [&](const std::string& id, const std::string& actual, bool inEffect, const std::string& why) {
            m_info.effects.push_back({id, textValue(m_values, id), actual, inEffect, why});
        };
        const std::string pageNow = pragma("page_size");
        const bool pageOk = pageNow == std::to_string(pageSize);
        effect("page_size", pageNow, pageOk, pageOk ? "" : "fixed when the database was created (needs a new file)");
        effect("cache_size", std::to_string(-std::stoll(pragma("cache_size"))), true, "");
        const std::string mmapNow = pragma("mmap_size");
        const bool mmapOk = mmapNow == textValue(m_values, "mmap_size");
        effect("mmap_size", mmapNow, mmapOk, mmapOk ? "" : "limited by SQLITE_MAX_MMAP_SIZE of this build");
        const bool journalOk = journalNow == journal;
        effect("journal_mode", journalNow, journalOk,
               journalOk ? ""
               : keepWal ? "the file is in WAL mode and is left so (switching would rewrite it): give "
                           "journal_mode=wal, or switch the file yourself (sqlite3 FILE 'PRAGMA journal_mode=" +
                               journal + "')"
               : keepRollback ? "the file is in " + fileMode +
                                    " mode and is left so (switching to WAL would rewrite it, and it would stay WAL): "
                                    "give journal_mode=" +
                                    fileMode + ", or switch the file yourself (sqlite3 FILE 'PRAGMA journal_mode=wal')"
                              : "refused by SQLite for this database");
        static const char* levels[] = {"off", "normal", "full", "extra"};
        const std::string syncNow = pragma("synchronous");
        const std::string syncName =
            syncNow.size() == 1 && syncNow[0] >= '0' && syncNow[0] <= '3' ? levels[syncNow[0] - '0'] : syncNow;
        effect("synchronous", syncName, syncName == textValue(m_values, "synchronous"), "");
        effect("blob_api", textValue(m_values, "blob_api"), true, "");
        effect("mode", sqlite3_db_readonly(m_db, "main") ? "read-only" : "read-write", true, "");
        m_info.negotiated["journal_mode"] = journalNow;
    }

    std::string pragma(const std::string& name) {
        Statement s(m_db, "PRAGMA " + name);
        const int rc = sqlite3_step(s.get());
        if (rc == SQLITE_ROW) {
            const auto* text = sqlite3_column_text(s.get(), 0);
            return text ? reinterpret_cast<const char*>(text) : "";
        }
        if (rc != SQLITE_DONE) {
            throw Error(ErrorKind::Data, m_path + ": " + oneLine(sqlite3_errmsg(m_db)));
        }
        return "";
    }

    // Which columns can be read through the incremental blob API: those whose origin is a table
    // column and whose table's INTEGER PRIMARY KEY (the rowid) is also in the result. The others
    // stay on the SQL path, and the sample says so.
    BlobPlan planBlobReads(const QuerySpec& spec, sqlite3_stmt* stmt, const std::vector<ColumnInfo>& columns,
                           QueryStats& stats) {
        BlobPlan plan;
        if (!booleanValue(m_values, "blob_api") && spec.fetch == FetchMode::Content) {
            return plan;
        }
        const std::size_t count = columns.size();
        plan.columns.resize(count);
        std::set<std::string> names;
        bool uniqueNames = true;
        for (const auto& c : columns) {
            uniqueNames = names.insert(c.name).second && uniqueNames;
        }
        std::vector<std::string> notVia;
        for (std::size_t i = 0; i < count; ++i) {
            if (!columns[i].isLob) {
                continue;
            }
            const char* table = sqlite3_column_table_name(stmt, static_cast<int>(i));
            const char* origin = sqlite3_column_origin_name(stmt, static_cast<int>(i));
            if (table == nullptr || origin == nullptr) {
                notVia.push_back(columns[i].name + " (an expression)");
                continue;
            }
            const std::string key = rowidColumnOf(table);
            bool found = false;
            for (std::size_t j = 0; j < count && !key.empty(); ++j) {
                const char* t = sqlite3_column_table_name(stmt, static_cast<int>(j));
                const char* o = sqlite3_column_origin_name(stmt, static_cast<int>(j));
                if (t && o && sqlite3_stricmp(t, table) == 0 && sqlite3_stricmp(o, key.c_str()) == 0) {
                    plan.columns[i] = {true, table, origin, j};
                    found = true;
                    break;
                }
            }
            if (!found) {
                notVia.push_back(columns[i].name + " (the result has no INTEGER PRIMARY KEY of " + table + ")");
            }
        }
        bool any = false;
        for (const auto& c : plan.columns) {
            any = any || c.viaApi;
        }
        if (any && !uniqueNames) {
            any = false;
            notVia.emplace_back("all columns (result column names are not unique)");
        }
        if (booleanValue(m_values, "blob_api")) {
            std::string reason;
            for (const auto& n : notVia) {
                reason += (reason.empty() ? "read by SQL: " : ", ") + n;
            }
            stats.statementEffects.push_back({"blob_api", "true", any ? "true" : "false", notVia.empty() && any,
                                              any || !notVia.empty() ? reason : "no value columns"});
        }
        if (!any) {
            plan.columns.clear();
            return plan;
        }
        // typeof() of a column lets SQLite skip loading the value (OPFLAG_TYPEOFARG); the flattener
        // turns the wrapper back into a plain scan.
        std::string select;
        for (std::size_t i = 0; i < count; ++i) {
            const std::string name = quoteIdentifier(columns[i].name);
            select += (i ? ", " : "") + (plan.columns[i].viaApi ? "typeof(" + name + ")" : name);
        }
        std::string inner = spec.sql;
        while (!inner.empty() && (inner.back() == ';' || std::isspace(static_cast<unsigned char>(inner.back())))) {
            inner.pop_back();
        }
        plan.sql = "SELECT " + select + " FROM (" + inner + ")";
        plan.active = true;
        return plan;
    }

    std::string rowidColumnOf(const std::string& table) {
        Statement s(m_db, "PRAGMA table_info(" + quoteIdentifier(table) + ")");
        std::string key;
        int keys = 0;
        while (sqlite3_step(s.get()) == SQLITE_ROW) {
            if (sqlite3_column_int(s.get(), 5) > 0) {
                ++keys;
                const char* type = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 2));
                if (type && sqlite3_stricmp(type, "INTEGER") == 0) {
                    key = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 1));
                }
            }
        }
        return keys == 1 ? key : std::string();
    }

    void readColumn(sqlite3_stmt* stmt, std::size_t column, FetchMode fetch, const BlobPlan& plan, RowSink& sink) {
        const int i = static_cast<int>(column);
        const bool viaApi = plan.active && plan.columns[column].viaApi;
        if (viaApi) {
            const auto* type = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
            if (type == nullptr || std::string_view(type) == "null") {
                sink.null(column);
                return;
            }
            if (fetch == FetchMode::IdsOnly) {
                sink.lobSkipped(column);
                return;
            }
            readThroughBlobApi(stmt, column, plan.columns[column], sink);
            return;
        }
        switch (sqlite3_column_type(stmt, i)) {
            case SQLITE_NULL:
                sink.null(column);
                return;
            case SQLITE_INTEGER:
                sink.integer(column, sqlite3_column_int64(stmt, i));
                return;
            case SQLITE_FLOAT:
                sink.real(column, sqlite3_column_double(stmt, i));
                return;
            default: {
                // column_blob for text too: column_text would NUL-terminate, copying a large value.
                const auto* data = sqlite3_column_blob(stmt, i);
                const auto size = static_cast<std::size_t>(sqlite3_column_bytes(stmt, i));
                sink.chunk(column, std::string_view(static_cast<const char*>(data), size));
                sink.valueEnd(column);
                return;
            }
        }
    }

    void readThroughBlobApi(sqlite3_stmt* stmt, std::size_t column, const BlobColumn& how, RowSink& sink) {
        const sqlite3_int64 rowid = sqlite3_column_int64(stmt, static_cast<int>(how.rowidColumn));
        int rc = SQLITE_OK;
        if (m_blob != nullptr && m_blobTable == how.table && m_blobColumn == how.column) {
            rc = sqlite3_blob_reopen(m_blob, rowid);
        } else {
            closeBlob();
            rc = sqlite3_blob_open(m_db, "main", how.table.c_str(), how.column.c_str(), rowid, 0, &m_blob);
            m_blobTable = how.table;
            m_blobColumn = how.column;
        }
        if (rc != SQLITE_OK) {
            const std::string what = oneLine(sqlite3_errmsg(m_db));
            closeBlob();
            throw Error(ErrorKind::Sql,
                        "blob_open " + how.table + "." + how.column + " row " + std::to_string(rowid) + ": " + what);
        }
        if (m_buffer.size() < kBlobChunk) {
            m_buffer.resize(kBlobChunk);
        }
        const int size = sqlite3_blob_bytes(m_blob);
        for (int offset = 0; offset < size;) {
            const int n = std::min<int>(static_cast<int>(kBlobChunk), size - offset);
            if (sqlite3_blob_read(m_blob, m_buffer.data(), n, offset) != SQLITE_OK) {
                throw Error(ErrorKind::Sql, "blob_read: " + oneLine(sqlite3_errmsg(m_db)));
            }
            sink.chunk(column, std::string_view(m_buffer.data(), static_cast<std::size_t>(n)));
            offset += n;
        }
        sink.valueEnd(column);
    }

    void closeBlob() {
        if (m_blob != nullptr) {
            sqlite3_blob_close(m_blob);
            m_blob = nullptr;
        }
    }

    std::string m_path;
    ParameterValues m_values;
    SessionInfo m_info;
    sqlite3* m_db = nullptr;
    bool m_callerTransaction = false;  // begin() opened the transaction, and its commit() or rollback() ends it
    sqlite3_blob* m_blob = nullptr;
    std::string m_blobTable;
    std::string m_blobColumn;
    std::vector<char> m_buffer;
};

}  // namespace

namespace {

// Built once: the specs are the same for every call, and a run asks for them at every statement.
std::vector<ParameterSpec> buildSqliteParameters() {
    std::vector<ParameterSpec> specs;
    ParameterSpec page{"page_size", "Page size", ParameterType::Integer, "4096", 512, 65536};
    page.unit = "B";
    page.scale = ParameterScale::PowerOfTwo;
    page.help = "Database page size; takes effect only when the database file is created.";
    page.needs = "a new database file";
    specs.push_back(page);
    ParameterSpec mmap{"mmap_size", "Memory-mapped I/O", ParameterType::Integer, "0", 0, 1LL << 40};
    mmap.unit = "B";
    mmap.scale = ParameterScale::Log;
    mmap.help = "Bytes of the file read through mmap instead of read(); 0 = off.";
    specs.push_back(mmap);
    ParameterSpec cache{"cache_size", "Page cache", ParameterType::Integer, "2000", 0, 16 * 1024 * 1024};
    cache.unit = "KiB";
    cache.scale = ParameterScale::Log;
    cache.help = "Page cache size in KiB (PRAGMA cache_size=-N).";
    specs.push_back(cache);
    ParameterSpec journal{"journal_mode", "Journal mode", ParameterType::Enum, "delete"};
    journal.choices = {"delete", "truncate", "persist", "memory", "wal", "off"};
    journal.help = "Rollback journal or write-ahead log.";
    specs.push_back(journal);
    ParameterSpec sync{"synchronous", "Synchronous", ParameterType::Enum, "full"};
    sync.choices = {"off", "normal", "full", "extra"};
    sync.help = "How often SQLite waits for data to reach the disk.";
    specs.push_back(sync);
    ParameterSpec blobApi{"blob_api", "Read BLOBs with the incremental blob API", ParameterType::Boolean, "false"};
    blobApi.help =
        "Read value columns with sqlite3_blob_open/read in 64 KiB chunks instead of sqlite3_column_blob; needs the "
        "table's INTEGER PRIMARY KEY in the result.";
    blobApi.perStatement = true;
    specs.push_back(blobApi);
    ParameterSpec mode{"mode", "Open mode", ParameterType::Enum, "read-write"};
    mode.choices = {"read-write", "read-only"};
    specs.push_back(mode);
    // Sessions at once (connections on one file): applied by the run (SessionRunner), never by this driver.
    for (auto& spec : loadParameters()) {
        if (spec.id != loadparam::SharedLink) {  // no link to share: the file is on this machine
            specs.push_back(std::move(spec));
        }
    }
    return specs;
}

}  // namespace

const std::vector<ParameterSpec>& SqliteDriver::parameters() const {
    static const std::vector<ParameterSpec> specs = buildSqliteParameters();
    return specs;
}

std::string SqliteDriver::pathOf(std::string_view target) {
    if (target.starts_with("sqlite://")) {
        return std::string(target.substr(9));  // sqlite:///abs -> /abs
    }
    if (target.starts_with("sqlite:")) {
        return std::string(target.substr(7));
    }
    return std::string(target);
}

bool SqliteDriver::accepts(std::string_view target) const {
    return target.starts_with("sqlite:") || endsWith(target, ".sqlite") || endsWith(target, ".sqlite3") ||
           endsWith(target, ".db");
}

std::unique_ptr<Session> SqliteDriver::connect(const ConnectionSpec& spec, const ParameterValues& values) const {
    const std::string path = pathOf(spec.target);
    if (path.empty()) {
        throw Error(ErrorKind::Usage, "sqlite: no database file named");
    }
    // Open errors name the connection and the phase, like the networked drivers':
    // "sqlite:/x/y.db: connect: unable to open database file".
    try {
        return std::make_unique<SqliteSession>(spec, values);
    } catch (const Error& e) {
        throw Error(e.kind(), spec.label() + ": connect: " + e.what());
    }
}

}  // namespace blobbench
