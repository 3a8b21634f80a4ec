#include "engine/drivers/mariadb/MariadbFetch.h"

#include "engine/drivers/mariadb/MariadbDriver.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>

namespace blobbench {
namespace {

using Clock = std::chrono::steady_clock;
Nanos since(Clock::time_point start) {
    return std::chrono::duration_cast<Nanos>(Clock::now() - start);
}

// Values reach the sink in pieces of at most this size, and the binary protocol's buffers are no larger.
constexpr std::size_t kChunk = 64 * 1024;
constexpr unsigned kBinaryCharset = 63;

enum class Shape { Integer, Real, Bytes };

Shape shapeOf(const MYSQL_FIELD& field) {
    switch (field.type) {
        case MYSQL_TYPE_TINY:
        case MYSQL_TYPE_SHORT:
        case MYSQL_TYPE_LONG:
        case MYSQL_TYPE_LONGLONG:
        case MYSQL_TYPE_INT24:
        case MYSQL_TYPE_YEAR:
            return Shape::Integer;
        case MYSQL_TYPE_FLOAT:
        case MYSQL_TYPE_DOUBLE:
            return Shape::Real;
        default:
            return Shape::Bytes;
    }
}

ColumnInfo infoOf(const MYSQL_FIELD& field) {
    ColumnInfo info;
    info.name = field.name ? field.name : "";
    switch (field.type) {
        case MYSQL_TYPE_TINY_BLOB:
        case MYSQL_TYPE_MEDIUM_BLOB:
        case MYSQL_TYPE_LONG_BLOB:
        case MYSQL_TYPE_BLOB:
        case MYSQL_TYPE_STRING:
        case MYSQL_TYPE_VAR_STRING:
        case MYSQL_TYPE_VARCHAR:
            info.kind = field.charsetnr == kBinaryCharset ? ColumnKind::Binary : ColumnKind::Text;
            break;
        default:
            info.kind = shapeOf(field) == Shape::Integer ? ColumnKind::Integer
                        : shapeOf(field) == Shape::Real  ? ColumnKind::Real
                                                         : ColumnKind::Other;
    }
    info.isLob = false;  // every value travels inside its row
    return info;
}

void pieces(RowSink& sink, std::size_t column, const char* data, std::size_t length) {
    std::size_t offset = 0;
    do {
        const std::size_t piece = std::min(kChunk, length - offset);
        sink.chunk(column, std::string_view(data + offset, piece));
        offset += piece;
    } while (offset < length);
}

struct ResultDeleter {
    void operator()(MYSQL_RES* result) const { mysql_free_result(result); }
};
using Result = std::unique_ptr<MYSQL_RES, ResultDeleter>;

struct StmtDeleter {
    void operator()(MYSQL_STMT* stmt) const { mysql_stmt_close(stmt); }
};
using Statement = std::unique_ptr<MYSQL_STMT, StmtDeleter>;

void mark(const mariadb::FetchPlan& plan, QueryPhase phase) {
    plan.spec->mark(phase);
    if (plan.clientMark) {
        plan.clientMark(phase);
    }
}

bool stopHere(MariadbSession& session, const CancelToken& cancel) {
    if (cancel.cancelled() || session.cancelRequested()) {
        throw Error(ErrorKind::Cancelled, session.label() + ": query cancelled");
    }
    return false;
}

void fetchText(MariadbSession& session, const mariadb::FetchPlan& plan, RowSink& sink, QueryStats& stats,
               const CancelToken& cancel) {
    MYSQL* conn = session.connection();
    const QuerySpec& spec = *plan.spec;
    mark(plan, QueryPhase::Prepared);  // COM_QUERY has no prepare: the phase is empty
    const auto executeStart = Clock::now();
    if (mysql_real_query(conn, spec.sql.data(), spec.sql.size()) != 0) {
        throw session.connectionError("query");
    }
    stats.execute = since(executeStart);
    mark(plan, QueryPhase::Executed);
    const auto fetchStart = Clock::now();
    Result result(plan.buffered ? mysql_store_result(conn) : mysql_use_result(conn));
    if (!result) {
        if (mysql_field_count(conn) == 0) {
            stats.fetch = since(fetchStart);
            mark(plan, QueryPhase::Fetched);
            return;  // no result set
        }
        throw session.connectionError("fetch");
    }
    const unsigned count = mysql_num_fields(result.get());
    const MYSQL_FIELD* fields = mysql_fetch_fields(result.get());
    std::vector<ColumnInfo> columns;
    std::vector<Shape> shapes;
    for (unsigned c = 0; c < count; ++c) {
        columns.push_back(infoOf(fields[c]));
        shapes.push_back(shapeOf(fields[c]));
    }
    sink.columns(columns);
    std::uint64_t delivered = 0;
    while (!(spec.rowLimit && delivered >= *spec.rowLimit) && !stopHere(session, cancel)) {
        MYSQL_ROW row = mysql_fetch_row(result.get());
        if (!row) {
            if (mysql_errno(conn) != 0) {
                throw session.connectionError("fetch");
            }
            break;
        }
        const unsigned long* lengths = mysql_fetch_lengths(result.get());
        for (unsigned c = 0; c < count; ++c) {
            if (!row[c]) {
                sink.null(c);
                continue;
            }
            const std::size_t length = lengths[c];
            if (shapes[c] == Shape::Integer) {
                std::int64_t value = 0;
                std::from_chars(row[c], row[c] + length, value);
                sink.integer(c, value);
            } else if (shapes[c] == Shape::Real) {
                sink.real(c, std::strtod(std::string(row[c], length).c_str(), nullptr));
            } else {
                pieces(sink, c, row[c], length);
                sink.valueEnd(c);
            }
        }
        sink.endRow();
        ++delivered;
    }
    result.reset();  // a streamed result stopped early reads the rest of it here
    if (mysql_errno(conn) != 0) {
        throw session.connectionError("fetch");
    }
    stats.fetch = since(fetchStart);
    mark(plan, QueryPhase::Fetched);
}

void fetchBinary(MariadbSession& session, const mariadb::FetchPlan& plan, RowSink& sink, QueryStats& stats,
                 const CancelToken& cancel) {
    MYSQL* conn = session.connection();
    const QuerySpec& spec = *plan.spec;
    const auto prepareStart = Clock::now();
    Statement stmt(mysql_stmt_init(conn));
    if (!stmt) {
        throw session.connectionError("prepare");
    }
    if (mysql_stmt_prepare(stmt.get(), spec.sql.data(), spec.sql.size()) != 0) {
        throw session.statementError("prepare", stmt.get());
    }
    Result meta(mysql_stmt_result_metadata(stmt.get()));
    stats.prepare = since(prepareStart);
    mark(plan, QueryPhase::Prepared);

    const unsigned count = meta ? mysql_num_fields(meta.get()) : 0;
    const MYSQL_FIELD* fields = meta ? mysql_fetch_fields(meta.get()) : nullptr;
    std::vector<ColumnInfo> columns;
    std::vector<Shape> shapes;
    std::vector<MYSQL_BIND> binds(count);
    std::vector<std::int64_t> integers(count);
    std::vector<double> reals(count);
    std::vector<std::vector<char>> buffers(count);
    std::vector<unsigned long> lengths(count);
    std::vector<my_bool> nulls(count), errors(count);
    for (unsigned c = 0; c < count; ++c) {
        columns.push_back(infoOf(fields[c]));
        shapes.push_back(shapeOf(fields[c]));
        MYSQL_BIND& b = binds[c];
        std::memset(&b, 0, sizeof b);
        b.is_null = &nulls[c];
        b.length = &lengths[c];
        b.error = &errors[c];
        if (shapes[c] == Shape::Integer) {
            b.buffer_type = MYSQL_TYPE_LONGLONG;
            b.buffer = &integers[c];
            b.is_unsigned = (fields[c].flags & UNSIGNED_FLAG) != 0;
        } else if (shapes[c] == Shape::Real) {
            b.buffer_type = MYSQL_TYPE_DOUBLE;
            b.buffer = &reals[c];
        } else {
            // Sized from the column's declared length, at most one chunk: a longer value is read in
            // pieces with mysql_stmt_fetch_column.
            const std::size_t size = std::clamp<std::size_t>(fields[c].length, 1, plan.piece);
            buffers[c].resize(size);
            b.buffer_type = columns[c].kind == ColumnKind::Binary ? MYSQL_TYPE_BLOB : MYSQL_TYPE_STRING;
            b.buffer = buffers[c].data();
            b.buffer_length = size;
        }
    }
    sink.columns(columns);

    if (plan.prefetchRows > 0) {
        unsigned long type = CURSOR_TYPE_READ_ONLY;
        unsigned long rows = plan.prefetchRows;
        if (mysql_stmt_attr_set(stmt.get(), STMT_ATTR_CURSOR_TYPE, &type) != 0 ||
            mysql_stmt_attr_set(stmt.get(), STMT_ATTR_PREFETCH_ROWS, &rows) != 0) {
            throw session.statementError("cursor", stmt.get());
        }
    }
    const auto executeStart = Clock::now();
    if (mysql_stmt_execute(stmt.get()) != 0) {
        throw session.statementError("execute", stmt.get());
    }
    stats.execute = since(executeStart);
    mark(plan, QueryPhase::Executed);
    const auto fetchStart = Clock::now();
    if (count > 0 && mysql_stmt_bind_result(stmt.get(), binds.data()) != 0) {
        throw session.statementError("bind result", stmt.get());
    }
    if (count > 0 && plan.buffered && mysql_stmt_store_result(stmt.get()) != 0) {
        throw session.statementError("store result", stmt.get());
    }
    std::vector<char> rest(plan.piece);
    std::uint64_t pieceCalls = 0;
    std::uint64_t delivered = 0;
    while (count > 0 && !(spec.rowLimit && delivered >= *spec.rowLimit) && !stopHere(session, cancel)) {
        const int rc = mysql_stmt_fetch(stmt.get());
        if (rc == MYSQL_NO_DATA) {
            break;
        }
        if (rc == 1) {
            throw session.statementError("fetch", stmt.get());
        }
        for (unsigned c = 0; c < count; ++c) {
            if (nulls[c]) {
                sink.null(c);
            } else if (shapes[c] == Shape::Integer) {
                sink.integer(c, integers[c]);
            } else if (shapes[c] == Shape::Real) {
                sink.real(c, reals[c]);
            } else {
                const std::size_t length = lengths[c];
                const std::size_t first = std::min<std::size_t>(length, binds[c].buffer_length);
                sink.chunk(c, std::string_view(buffers[c].data(), first));
                for (std::size_t offset = first; offset < length;) {
                    MYSQL_BIND piece;
                    std::memset(&piece, 0, sizeof piece);
                    unsigned long got = 0;
                    piece.buffer_type = binds[c].buffer_type;
                    piece.buffer = rest.data();
                    piece.buffer_length = rest.size();
                    piece.length = &got;
                    ++pieceCalls;
                    if (mysql_stmt_fetch_column(stmt.get(), &piece, c, offset) != 0) {
                        throw session.statementError("fetch column", stmt.get());
                    }
                    const std::size_t n = std::min<std::size_t>(rest.size(), length - offset);
                    sink.chunk(c, std::string_view(rest.data(), n));
                    offset += n;
                }
                sink.valueEnd(c);
            }
        }
        sink.endRow();
        ++delivered;
    }
    // A streamed result stopped early is read to its end here. COM_STMT_CLOSE (no reply) goes after the
    // measured span: a relay would see a send that nothing answers only some time after the client did.
    if (mysql_stmt_free_result(stmt.get()) != 0) {
        throw session.statementError("fetch", stmt.get());
    }
    if (plan.pieceCalls != nullptr) {
        *plan.pieceCalls = pieceCalls;
    }
    stats.fetch = since(fetchStart);
    mark(plan, QueryPhase::Fetched);
}

}  // namespace

namespace mariadb {

void fetch(MariadbSession& session, const FetchPlan& plan, RowSink& sink, QueryStats& stats,
           const CancelToken& cancel) {
    if (plan.binary) {
        fetchBinary(session, plan, sink, stats, cancel);
    } else {
        fetchText(session, plan, sink, stats, cancel);
    }
}

}  // namespace mariadb

namespace {

// The SQL around its '?' placeholders (outside quoted strings, identifiers and comments are not
// expected in an INSERT the tool writes).
std::vector<std::string> placeholderParts(const std::string& sql) {
    std::vector<std::string> parts(1);
    char quote = 0;
    for (std::size_t i = 0; i < sql.size(); ++i) {
        const char c = sql[i];
        if (quote != 0) {
            parts.back() += c;
            if (c == '\\' && i + 1 < sql.size()) {
                parts.back() += sql[++i];
            } else if (c == quote) {
                quote = 0;
            }
        } else if (c == '\'' || c == '"' || c == '`') {
            quote = c;
            parts.back() += c;
        } else if (c == '?') {
            parts.emplace_back();
        } else {
            parts.back() += c;
        }
    }
    return parts;
}

}  // namespace

MariadbInsert::MariadbInsert(MariadbSession& session, std::string sql)
    : m_session(session),
      m_sql(std::move(sql)),
      m_method(textValue(session.m_values, mariadbparam::InsertMethod)),
      m_chunk(static_cast<std::size_t>(integerValue(session.m_values, mariadbparam::LongDataChunk))) {
    if (m_method == "text-hex") {
        m_sqlParts = placeholderParts(m_sql);
        m_values.resize(m_sqlParts.size() - 1);
        ++m_session.m_liveInserts;
        return;
    }
    m_stmt = mysql_stmt_init(session.connection());
    if (!m_stmt) {
        throw session.connectionError("prepare insert");
    }
    if (mysql_stmt_prepare(m_stmt, m_sql.data(), m_sql.size()) != 0) {
        const Error e = session.statementError("prepare insert", m_stmt);
        mysql_stmt_close(m_stmt);
        throw e;
    }
    m_values.resize(mysql_stmt_param_count(m_stmt));
    ++m_session.m_liveInserts;
}

MariadbInsert::~MariadbInsert() {
    --m_session.m_liveInserts;
    if (m_stmt) {
        mysql_stmt_close(m_stmt);
    }
}

MariadbInsert::Value& MariadbInsert::at(std::size_t index) {
    if (index >= m_values.size()) {
        throw Error(ErrorKind::Usage, m_session.label() + ": insert: parameter " + std::to_string(index + 1) + " of " +
                                          std::to_string(m_values.size()));
    }
    return m_values[index];
}

void MariadbInsert::bindInteger(std::size_t index, std::int64_t value) {
    at(index) = Value{MYSQL_TYPE_LONGLONG, value, {}};
}
void MariadbInsert::bindBoolean(std::size_t index, bool value) {
    at(index) = Value{MYSQL_TYPE_LONGLONG, value ? 1 : 0, {}};
}
void MariadbInsert::bindNull(std::size_t index) {
    at(index) = Value{};
}
void MariadbInsert::bindText(std::size_t index, std::string_view utf8) {
    at(index) = Value{MYSQL_TYPE_STRING, 0, std::string(utf8)};
}
void MariadbInsert::bindBytes(std::size_t index, std::string_view bytes) {
    at(index) = Value{MYSQL_TYPE_BLOB, 0, std::string(bytes)};
}

void MariadbInsert::executeText() {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string sql = m_sqlParts.front();
    for (std::size_t i = 0; i < m_values.size(); ++i) {
        const Value& v = m_values[i];
        if (v.type == MYSQL_TYPE_NULL) {
            sql += "NULL";
        } else if (v.type == MYSQL_TYPE_LONGLONG) {
            sql += std::to_string(v.integer);
        } else if (v.type == MYSQL_TYPE_BLOB) {
            sql.reserve(sql.size() + 2 * v.bytes.size() + 3);
            sql += "X'";
            for (const unsigned char c : v.bytes) {
                sql += kHex[c >> 4];
                sql += kHex[c & 15];
            }
            sql += '\'';
        } else {
            std::string escaped(2 * v.bytes.size() + 1, '\0');
            escaped.resize(mysql_real_escape_string(m_session.connection(), escaped.data(), v.bytes.data(),
                                                    static_cast<unsigned long>(v.bytes.size())));
            sql += '\'' + escaped + '\'';
        }
        sql += m_sqlParts[i + 1];
    }
    if (mysql_real_query(m_session.connection(), sql.data(), sql.size()) != 0) {
        Error e = m_session.connectionError("insert");
        // The server closes the connection on a statement above its max_allowed_packet and the client
        // says only "Server has gone away (2006)": the size is the reason.
        const auto limit = m_session.m_info.negotiated.find("max_allowed_packet");
        std::uint64_t packet = 0;
        if (limit != m_session.m_info.negotiated.end() &&
            std::from_chars(limit->second.data(), limit->second.data() + limit->second.size(), packet).ec ==
                std::errc() &&
            sql.size() > packet) {
            e = Error(e.kind(), std::string(e.what()) + " (the statement was " + std::to_string(sql.size()) +
                                    " B of SQL, the BLOBs as hex: above the server's max_allowed_packet " +
                                    limit->second + " B)");
        }
        throw e;
    }
}

void MariadbInsert::execute() {
    if (m_method == "text-hex") {
        executeText();
        return;
    }
    const bool longData = m_method == "long-data";
    std::vector<MYSQL_BIND> binds(m_values.size());
    std::vector<unsigned long> lengths(m_values.size());
    for (std::size_t i = 0; i < m_values.size(); ++i) {
        MYSQL_BIND& b = binds[i];
        std::memset(&b, 0, sizeof b);
        Value& v = m_values[i];
        b.buffer_type = v.type;
        if (v.type == MYSQL_TYPE_LONGLONG) {
            b.buffer = &v.integer;
        } else if (v.type != MYSQL_TYPE_NULL) {
            b.buffer = v.bytes.data();
            b.buffer_length = v.bytes.size();
            lengths[i] = v.bytes.size();
            b.length = &lengths[i];
        }
    }
    if (mysql_stmt_bind_param(m_stmt, binds.data()) != 0) {
        throw m_session.statementError("insert", m_stmt);
    }
    if (longData) {
        // No reply per chunk: the server gathers the parameter and answers at COM_STMT_EXECUTE, which then
        // carries no value for it. A value of 0 bytes is sent as one empty chunk (NULL otherwise).
        for (std::size_t i = 0; i < m_values.size(); ++i) {
            const Value& v = m_values[i];
            if (v.type != MYSQL_TYPE_BLOB && v.type != MYSQL_TYPE_STRING) {
                continue;
            }
            std::size_t at = 0;
            do {
                const std::size_t n = std::min(m_chunk, v.bytes.size() - at);
                if (mysql_stmt_send_long_data(m_stmt, static_cast<unsigned>(i), v.bytes.data() + at,
                                              static_cast<unsigned long>(n)) != 0) {
                    throw m_session.statementError("insert (send long data)", m_stmt);
                }
                at += n;
            } while (at < v.bytes.size());
        }
    }
    if (mysql_stmt_execute(m_stmt) != 0) {
        throw m_session.statementError("insert", m_stmt);
    }
}

}  // namespace blobbench
