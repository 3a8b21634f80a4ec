#include "engine/drivers/postgres/PostgresSession.h"

#include <libpq/libpq-fs.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "engine/drivers/ReadOnly.h"
#include "engine/drivers/postgres/PostgresDriver.h"
#include "engine/drivers/postgres/PostgresInsert.h"

namespace blobbench {
namespace {

using pg::Clock;
using pg::since;
namespace type = pg::type;
namespace param = pg::param;

// Values are handed to the sink in pieces of this size: libpq already holds the whole row, but sinks
// must never assume a value arrives in one piece.
constexpr std::size_t SinkChunk = 64 * 1024;

enum class Mode { SingleRow, Cursor, Whole };

void ignoreNotice(void* /*arg*/, const char* /*message*/) {
    // DROP ... IF EXISTS and friends would otherwise print to stderr in the middle of a run's output.
}

ColumnKind kindOf(Oid oid) {
    switch (oid) {
        case type::Int2:
        case type::Int4:
        case type::Int8:
            return ColumnKind::Integer;
        case type::Float4:
        case type::Float8:
            return ColumnKind::Real;
        case type::Text:
        case type::Varchar:
        case type::Bpchar:
        case type::Name:
            return ColumnKind::Text;
        case type::Bytea:
        case type::ObjectId:
            return ColumnKind::Binary;
        case type::Bool:
            return ColumnKind::Boolean;
        default:
            return ColumnKind::Other;
    }
}

std::uint64_t bigEndian(const char* data, int length) {
    std::uint64_t value = 0;
    for (int i = 0; i < length; ++i) {
        value = (value << 8) | static_cast<unsigned char>(data[i]);
    }
    return value;
}

// Decoded length of a bytea value in escape output: \\ and \ooo are one byte each.
std::uint64_t escapeDecodedLength(const char* text, std::size_t length) {
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < length; ++bytes) {
        if (text[i] == '\\') {
            i += (i + 1 < length && text[i + 1] == '\\') ? 2 : 4;
        } else {
            ++i;
        }
    }
    return bytes;
}

std::string withoutTrailingSemicolons(std::string sql) {
    while (!sql.empty() && (sql.back() == ';' || std::isspace(static_cast<unsigned char>(sql.back())))) {
        sql.pop_back();
    }
    return sql;
}

std::string libVersionText(int version) {
    return std::to_string(version / 10000) + "." + std::to_string(version % 10000);
}

ParameterEffect clientSide(const std::string& id, const std::string& value) {
    ParameterEffect effect;
    effect.id = id;
    effect.requested = value;
    effect.actual = value;
    return effect;
}

}  // namespace

struct PostgresSession::FetchPlan {
    Mode mode = Mode::SingleRow;
    int resultFormat = 0;
    std::int64_t fetchSize = 100;
    std::optional<std::uint64_t> rowLimit;
    std::string sql;
    const QuerySpec* spec = nullptr;  // for the phase marks
};

// Turns libpq rows into sink calls and counts what arrived.
class PostgresSession::RowDelivery {
public:
    RowDelivery(PostgresSession& session, RowSink& sink, std::vector<Oid> types, int resultFormat, bool idsOnly,
                bool decodeTextBytea, std::size_t loChunk)
        : m_session(session),
          m_sink(sink),
          m_types(std::move(types)),
          m_binary(resultFormat == 1),
          m_idsOnly(idsOnly),
          m_decode(decodeTextBytea),
          m_loBuffer(loChunk) {}

    void row(const PGresult* result, int row) {
        for (int c = 0; c < static_cast<int>(m_types.size()); ++c) {
            const auto column = static_cast<std::size_t>(c);
            if (PQgetisnull(result, row, c)) {
                m_sink.null(column);
                continue;
            }
            const char* data = PQgetvalue(result, row, c);
            const auto length = static_cast<std::size_t>(PQgetlength(result, row, c));
            switch (m_types[column]) {
                case type::Int2:
                case type::Int4:
                case type::Int8:
                    m_sink.integer(column, integerOf(data, length));
                    break;
                case type::Bool:
                    m_sink.integer(column, m_binary ? (data[0] != 0) : (data[0] == 't'));
                    break;
                case type::Float4:
                case type::Float8:
                    m_sink.real(column, realOf(m_types[column], data, length));
                    break;
                case type::ObjectId:
                    largeObject(column, oidOf(data, length));
                    break;
                case type::Bytea:
                    bytea(column, data, length);
                    break;
                default:
                    chunks(column, data, length);
                    break;
            }
        }
        m_sink.endRow();
        ++m_rows;
    }

    std::uint64_t rows() const { return m_rows; }
    std::uint64_t textByteaValues() const { return m_textByteaValues; }
    std::uint64_t decodedBytes() const { return m_decodedBytes; }
    std::uint64_t receivedBytes() const { return m_receivedBytes; }

private:
    std::int64_t integerOf(const char* data, std::size_t length) const {
        if (m_binary) {
            auto value = bigEndian(data, static_cast<int>(length));
            // sign-extend int2/int4
            const unsigned bits = static_cast<unsigned>(length * 8);
            if (bits < 64 && (value >> (bits - 1)) & 1U) {
                value |= ~std::uint64_t{0} << bits;
            }
            return static_cast<std::int64_t>(value);
        }
        std::int64_t value = 0;
        std::from_chars(data, data + length, value);
        return value;
    }

    // Oids are unsigned 32-bit: no sign extension.
    Oid oidOf(const char* data, std::size_t length) const {
        if (m_binary) {
            return static_cast<Oid>(bigEndian(data, static_cast<int>(length)));
        }
        Oid value = 0;
        std::from_chars(data, data + length, value);
        return value;
    }

    double realOf(Oid oid, const char* data, std::size_t length) const {
        if (!m_binary) {
            return std::strtod(std::string(data, length).c_str(), nullptr);
        }
        if (oid == type::Float4) {
            auto bits = static_cast<std::uint32_t>(bigEndian(data, 4));
            float value = 0;
            std::memcpy(&value, &bits, sizeof value);
            return value;
        }
        auto bits = bigEndian(data, 8);
        double value = 0;
        std::memcpy(&value, &bits, sizeof value);
        return value;
    }

    void chunks(std::size_t column, const char* data, std::size_t length) {
        m_receivedBytes += length;
        std::size_t offset = 0;
        do {
            const std::size_t piece = std::min(SinkChunk, length - offset);
            m_sink.chunk(column, std::string_view(data + offset, piece));
            offset += piece;
        } while (offset < length);
        m_sink.valueEnd(column);
    }

    void bytea(std::size_t column, const char* data, std::size_t length) {
        if (m_binary) {
            chunks(column, data, length);
            return;
        }
        ++m_textByteaValues;
        const bool hex = length >= 2 && data[0] == '\\' && data[1] == 'x';
        const std::uint64_t decoded = hex ? (length - 2) / 2 : escapeDecodedLength(data, length);
        m_decodedBytes += decoded;
        if (!m_decode) {
            chunks(column, data, length);
            return;
        }
        std::size_t decodedLength = 0;
        unsigned char* bytes = PQunescapeBytea(reinterpret_cast<const unsigned char*>(data), &decodedLength);
        if (!bytes) {
            throw Error(ErrorKind::Internal, "postgres: out of memory decoding a bytea value");
        }
        try {
            chunks(column, reinterpret_cast<const char*>(bytes), decodedLength);
        } catch (...) {
            PQfreemem(bytes);
            throw;
        }
        PQfreemem(bytes);
    }

    // A large object is read through its own descriptor in lo_chunk_size pieces; ids-only leaves it closed.
    void largeObject(std::size_t column, Oid oid) {
        if (m_idsOnly) {
            m_sink.lobSkipped(column);
            return;
        }
        PGconn* conn = m_session.connection();
        const int fd = lo_open(conn, oid, INV_READ);
        if (fd < 0) {
            throw m_session.sqlError("lo_open " + std::to_string(oid), nullptr);
        }
        try {
            bool any = false;
            while (true) {
                const int got = lo_read(conn, fd, m_loBuffer.data(), m_loBuffer.size());
                if (got < 0) {
                    throw m_session.sqlError("lo_read " + std::to_string(oid), nullptr);
                }
                if (got == 0) {
                    break;
                }
                m_receivedBytes += static_cast<std::uint64_t>(got);
                m_sink.chunk(column, std::string_view(m_loBuffer.data(), static_cast<std::size_t>(got)));
                any = true;
            }
            if (!any) {
                m_sink.chunk(column, std::string_view());
            }
        } catch (...) {
            lo_close(conn, fd);
            throw;
        }
        lo_close(conn, fd);
        m_sink.valueEnd(column);
    }

    PostgresSession& m_session;
    RowSink& m_sink;
    std::vector<Oid> m_types;
    bool m_binary;
    bool m_idsOnly;
    bool m_decode;
    std::vector<char> m_loBuffer;
    std::uint64_t m_rows = 0;
    std::uint64_t m_textByteaValues = 0;
    std::uint64_t m_decodedBytes = 0;
    std::uint64_t m_receivedBytes = 0;
};

PostgresSession::PostgresSession(PGconn* conn, std::string label, std::vector<std::string> secrets,
                                 ParameterValues values)
    : m_conn(conn), m_label(std::move(label)), m_secrets(std::move(secrets)), m_values(std::move(values)) {}

PostgresSession::~PostgresSession() {
    if (m_openWriter) {
        m_openWriter->abandon();
    }
    if (m_cancelHandle) {
        PQfreeCancel(m_cancelHandle);
    }
    if (m_conn) {
        PQfinish(m_conn);
    }
}

std::string PostgresSession::scrub(std::string text) const {
    for (const auto& secret : m_secrets) {
        for (auto at = text.find(secret); !secret.empty() && at != std::string::npos; at = text.find(secret, at)) {
            text.replace(at, secret.size(), "***");
        }
    }
    return maskSecrets(text);
}

Error PostgresSession::sqlError(const std::string& what, const PGresult* result) const {
    const bool cancelled = result && pg::sqlState(result) == pg::CancelledState && m_cancelRequested.load();
    if (m_reading && result && pg::sqlState(result) == pg::ReadOnlyState) {
        return Error(ErrorKind::Sql, m_label + ": " + what + ": " + refusedWrite(scrub(pg::messageOf(m_conn, result))));
    }
    // A lost connection (the backend terminated, the server gone) ends the run: every later
    // statement would fail on it too.
    const bool lost = !cancelled && PQstatus(m_conn) == CONNECTION_BAD;
    return Error(cancelled ? ErrorKind::Cancelled
                 : lost    ? ErrorKind::Connect
                           : ErrorKind::Sql,
                 m_label + ": " + what + ": " + scrub(pg::messageOf(m_conn, result)));
}

pg::Result PostgresSession::run(const std::string& sql, const char* what, bool tuplesExpected) {
    pg::Result result(PQexec(m_conn, sql.c_str()));
    const auto status = PQresultStatus(result.get());
    if (!result || (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY) ||
        (tuplesExpected && status != PGRES_TUPLES_OK)) {
        throw sqlError(what, result.get());
    }
    return result;
}

void PostgresSession::start() {
    m_cancelHandle = PQgetCancel(m_conn);
    PQsetNoticeProcessor(m_conn, ignoreNotice, nullptr);

    auto fail = [&](const Error& error) { return Error(ErrorKind::Connect, error.what()); };
    const std::string& toast = textValue(m_values, param::ToastCompression);
    std::string sets =
        "SET bytea_output = " + textValue(m_values, param::ByteaOutput) +
        "; SET standard_conforming_strings = " + (booleanValue(m_values, param::StandardStrings) ? "on" : "off") +
        "; SET statement_timeout = " + textValue(m_values, param::StatementTimeout) +
        "; SET default_transaction_read_only = on";  // query() reads; the writing calls turn it off
    if (toast != "server") {
        sets += "; SET default_toast_compression = " + toast;
    }
    pg::Result readBack;
    try {
        run(sets, "applying session tunables");
        readBack =
            run("SELECT current_setting('bytea_output'), current_setting('standard_conforming_strings'), "
                "current_setting('statement_timeout'), current_setting('default_toast_compression'), version(), "
                "current_setting('server_encoding'), current_setting('client_encoding')",
                "reading back session settings", true);
    } catch (const Error& error) {
        throw fail(error);
    }
    auto setting = [&](int column) { return std::string(PQgetvalue(readBack.get(), 0, column)); };

    m_info.engine = "postgres";
    m_info.serverVersion = PQparameterStatus(m_conn, "server_version") ? PQparameterStatus(m_conn, "server_version")
                                                                       : std::to_string(PQserverVersion(m_conn));
    m_info.clientVersion = libVersionText(PQlibVersion());
    m_info.versionBanner = {setting(4), "libpq " + m_info.clientVersion};
    m_info.embedded = false;

    auto& negotiated = m_info.negotiated;
    negotiated["protocol"] = std::to_string(PQprotocolVersion(m_conn));
    negotiated["ssl"] = PQsslInUse(m_conn) ? "on" : "off";
    if (PQsslInUse(m_conn)) {
        if (const char* protocol = PQsslAttribute(m_conn, "protocol")) {
            negotiated["ssl_protocol"] = protocol;
        }
        if (const char* cipher = PQsslAttribute(m_conn, "cipher")) {
            negotiated["ssl_cipher"] = cipher;
        }
        if (const char* compression = PQsslAttribute(m_conn, "compression")) {
            negotiated["ssl_compression"] = compression;
        }
    }
    negotiated["compression"] = "none (PostgreSQL 15 has no protocol compression)";
    negotiated["host"] = PQhost(m_conn) ? PQhost(m_conn) : "";
    negotiated["port"] = PQport(m_conn) ? PQport(m_conn) : "";
    negotiated["server_encoding"] = setting(5);
    negotiated["client_encoding"] = setting(6);
    negotiated["backend_pid"] = std::to_string(PQbackendPID(m_conn));
    negotiated["ids_only"] = "bytea and text values travel inside the row; only large objects (oid) stay unread";

    // libpq's effective connection options (after conninfo, environment and defaults).
    std::map<std::string, std::string> effective;
    if (PQconninfoOption* options = PQconninfo(m_conn)) {
        for (const PQconninfoOption* option = options; option->keyword; ++option) {
            if (option->val) {
                effective[option->keyword] = option->val;
            }
        }
        PQconninfoFree(options);
    }

    auto& effects = m_info.effects;
    auto serverSide = [&](const std::string& id, std::string actual) {
        ParameterEffect effect;
        effect.id = id;
        effect.requested = textValue(m_values, id);
        effect.actual = std::move(actual);
        effects.push_back(std::move(effect));
    };
    for (const char* id : {param::ResultFormat, param::FetchMode, param::FetchSize, param::DecodeTextBytea,
                           param::ParamFormat, param::InsertMethod, param::Pipeline, param::LoChunkSize}) {
        effects.push_back(clientSide(id, textValue(m_values, id)));
    }
    serverSide(param::ByteaOutput, setting(0));
    serverSide(param::StandardStrings, setting(1) == "on" ? "true" : "false");
    serverSide(param::StatementTimeout, setting(2));
    serverSide(param::ToastCompression, setting(3));
    serverSide(param::SslMode, (effective.count("sslmode") ? effective["sslmode"] : std::string("?")) +
                                   (PQsslInUse(m_conn) ? ", ssl in use" : ", no ssl"));
    serverSide(param::ConnectTimeout, effective.count("connect_timeout") ? effective["connect_timeout"] : "");
    for (const char* id : {param::ColumnStorage, param::ColumnCompression}) {
        ParameterEffect effect = clientSide(id, textValue(m_values, id));
        if (effect.requested != "default") {
            effect.actual.clear();
            effect.reason = "applied by ALTER TABLE when rows are first inserted into a table";
        }
        effects.push_back(std::move(effect));
    }
}

void PostgresSession::finishOpenWriter() {
    if (m_openWriter) {
        m_openWriter->finish();
    }
    if (!m_writerError.empty()) {
        const std::string message = std::move(m_writerError);
        m_writerError.clear();
        throw Error(ErrorKind::Sql, message);
    }
}

void PostgresSession::finishOtherWriter(PostgresInsert* writer) {
    if (m_openWriter && m_openWriter != writer) {
        m_openWriter->finish();
    }
}

void PostgresSession::writerGone(PostgresInsert* writer) {
    if (m_openWriter == writer) {
        m_openWriter = nullptr;
    }
}

void PostgresSession::requestServerCancel() {
    if (m_cancelHandle) {
        char message[256];
        PQcancel(m_cancelHandle, message, sizeof message);
    }
}

void PostgresSession::cancel() {
    m_cancelRequested = true;
    requestServerCancel();
}

void PostgresSession::setReadOnly(bool readOnly) {
    if (const char* reported = PQparameterStatus(m_conn, "default_transaction_read_only")) {
        m_readOnly = std::strcmp(reported, "on") == 0;  // a statement may have SET it itself
    }
    if (m_readOnly != readOnly && PQtransactionStatus(m_conn) == PQTRANS_IDLE) {
        run(std::string("SET default_transaction_read_only = ") + (readOnly ? "on" : "off"),
            readOnly ? "read-only transactions for reading" : "read-write transactions for writing");
        m_readOnly = readOnly;
    }
}

void PostgresSession::execute(std::string_view sql) {
    finishOpenWriter();
    setReadOnly(false);
    m_cancelRequested = false;
    run(std::string(sql), "execute");
    refuseTransactionLeftOpen("execute");
}

void PostgresSession::refuseTransactionLeftOpen(const char* what) {
    if (!m_callerTransaction && m_liveInserts == 0 && PQtransactionStatus(m_conn) != PQTRANS_IDLE) {
        pg::Result ignored(PQexec(m_conn, "ROLLBACK"));
        throw Error(ErrorKind::Sql, m_label + ": " + what + ": " + refusedOpenTransaction());
    }
}

void PostgresSession::begin() {
    finishOpenWriter();
    setReadOnly(false);
    run("BEGIN", "begin");
    m_callerTransaction = true;
}

void PostgresSession::commit() {
    finishOpenWriter();
    m_callerTransaction = false;
    auto result = run("COMMIT", "commit");
    if (std::strcmp(PQcmdStatus(result.get()), "ROLLBACK") == 0) {
        throw Error(ErrorKind::Sql, m_label + ": commit: the transaction had failed and was rolled back");
    }
}

void PostgresSession::rollback() {
    if (m_openWriter) {
        m_openWriter->abandon();
    }
    m_writerError.clear();
    m_callerTransaction = false;
    run("ROLLBACK", "rollback");
}

bool PostgresSession::tableExists(std::string_view name) {
    finishOpenWriter();
    const std::string text(name);
    const char* values[] = {text.c_str()};
    pg::Result result(
        PQexecParams(m_conn, "SELECT to_regclass($1) IS NOT NULL", 1, nullptr, values, nullptr, nullptr, 0));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) {
        throw sqlError("tableExists " + text, result.get());
    }
    return PQgetvalue(result.get(), 0, 0)[0] == 't';
}

std::unique_ptr<InsertStatement> PostgresSession::prepareInsert(std::string_view sql) {
    finishOpenWriter();
    setReadOnly(false);
    applyColumnTunables(sql);
    auto insert =
        std::make_unique<PostgresInsert>(*this, std::string(sql), "bb_insert_" + std::to_string(++m_insertCounter));
    ++m_liveInserts;
    return insert;
}

void PostgresSession::applyColumnTunables(std::string_view insertSql) {
    const std::string& storage = textValue(m_values, param::ColumnStorage);
    const std::string& compression = textValue(m_values, param::ColumnCompression);
    if (storage == "default" && compression == "default") {
        return;
    }
    const std::string table = pg::sql::insertTable(insertSql);
    if (table.empty()) {
        return;
    }
    const char* values[] = {table.c_str()};
    const char* columnsSql =
        "SELECT quote_ident(attname), attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 "
        "AND NOT attisdropped AND atttypid IN (17, 25, 1043) ORDER BY attnum";
    pg::Result columns(PQexecParams(m_conn, columnsSql, 1, nullptr, values, nullptr, nullptr, 0));
    if (PQresultStatus(columns.get()) != PGRES_TUPLES_OK) {
        throw sqlError("reading the value columns of " + table, columns.get());
    }
    std::string alter;
    for (int row = 0; row < PQntuples(columns.get()); ++row) {
        const std::string column = PQgetvalue(columns.get(), row, 0);
        if (storage != "default") {
            alter += std::string(alter.empty() ? "" : ", ") + "ALTER COLUMN " + column + " SET STORAGE " + storage;
        }
        if (compression != "default") {
            alter +=
                std::string(alter.empty() ? "" : ", ") + "ALTER COLUMN " + column + " SET COMPRESSION " + compression;
        }
    }
    if (alter.empty()) {
        return;
    }
    run("ALTER TABLE " + table + " " + alter, "applying column_storage/column_compression");

    pg::Result readBack(
        PQexecParams(m_conn,
                     "SELECT string_agg(attname::text || ' storage=' || attstorage::text || ' compression=' || "
                     "CASE attcompression WHEN 'p' THEN 'pglz' WHEN 'l' THEN 'lz4' ELSE 'default' "
                     "END, '; ' ORDER BY attnum) FROM pg_attribute WHERE attrelid = to_regclass($1) "
                     "AND attnum > 0 AND NOT attisdropped AND atttypid IN (17, 25, 1043)",
                     1, nullptr, values, nullptr, nullptr, 0));
    if (PQresultStatus(readBack.get()) != PGRES_TUPLES_OK) {
        throw sqlError("reading back column storage of " + table, readBack.get());
    }
    const std::string actual = table + ": " + PQgetvalue(readBack.get(), 0, 0);
    for (auto& effect : m_info.effects) {
        if (effect.id == param::ColumnStorage || effect.id == param::ColumnCompression) {
            if (effect.requested != "default") {
                effect.actual = actual;
                effect.reason.clear();
            }
        }
    }
}

QueryStats PostgresSession::query(const QuerySpec& spec, RowSink& sink, const CancelToken& cancel) {
    finishOpenWriter();
    // A reading statement: outside a transaction of the caller's, and with no insert of its open,
    // it runs in a read-only transaction (a DELETE or DROP in a scenario is refused, not committed).
    refuseTransactionLeftOpen("prepare");
    const bool ownReadOnly = m_liveInserts == 0 && PQtransactionStatus(m_conn) == PQTRANS_IDLE;
    if (ownReadOnly) {
        if (const std::string refused = refusedReadingStatement(spec.sql, SqlDialect::Postgres); !refused.empty()) {
            throw Error(ErrorKind::Sql, m_label + ": prepare: " + refused);
        }
        // Calls that write where the read-only transaction does not stop them: large objects (before
        // PostgreSQL 17), SQL held in a string, replication slots, files on the server.
        if (const std::string refused = refusedPostgresCall(spec.sql); !refused.empty()) {
            throw Error(ErrorKind::Sql, m_label + ": prepare: " + refused);
        }
        setReadOnly(true);
    }
    struct Reading {
        bool& flag;
        ~Reading() { flag = false; }
    } reading{m_reading};
    m_reading = ownReadOnly;
    m_cancelRequested = false;
    QueryStats stats;
    stats.nativeLogical = WireStats::unavailable("libpq has no wire counters; use the wire tap");
    stats.nativePhysical = stats.nativeLogical;

    // Per-statement tunables override the session's for this query only.
    const ParameterValues& values =
        m_statementValues.of("postgres", PostgresDriver().parameters(), m_values, spec.statementParameters);

    FetchPlan plan;
    plan.sql = spec.sql;
    plan.spec = &spec;
    plan.rowLimit = spec.rowLimit;
    plan.resultFormat = textValue(values, param::ResultFormat) == "binary" ? 1 : 0;
    plan.fetchSize = integerValue(values, param::FetchSize);
    const std::string& modeText = textValue(values, param::FetchMode);
    plan.mode = modeText == "cursor" ? Mode::Cursor : modeText == "whole" ? Mode::Whole : Mode::SingleRow;

    // Prepare the unnamed statement: validates the SQL and tells the column types before any row.
    const auto prepareStart = Clock::now();
    pg::Result prepared(PQprepare(m_conn, "", spec.sql.c_str(), 0, nullptr));
    if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
        throw sqlError("prepare", prepared.get());
    }
    pg::Result described(PQdescribePrepared(m_conn, ""));
    if (PQresultStatus(described.get()) != PGRES_COMMAND_OK) {
        throw sqlError("describe", described.get());
    }
    stats.prepare = since(prepareStart);
    spec.mark(QueryPhase::Prepared);

    std::vector<ColumnInfo> columns;
    std::vector<Oid> types;
    bool largeObjects = false;
    bool inlineValues = false;
    for (int c = 0; c < PQnfields(described.get()); ++c) {
        const Oid oid = PQftype(described.get(), c);
        ColumnInfo info;
        info.name = PQfname(described.get(), c);
        info.kind = kindOf(oid);
        info.isLob = oid == type::ObjectId;
        largeObjects = largeObjects || info.isLob;
        inlineValues = inlineValues || oid == type::Bytea || info.kind == ColumnKind::Text;
        columns.push_back(std::move(info));
        types.push_back(oid);
    }

    ParameterEffect modeEffect = clientSide(param::FetchMode, modeText);
    if (largeObjects && spec.fetch == FetchMode::Content && plan.mode == Mode::SingleRow) {
        // lo_read needs the connection, which a streaming single-row result holds until its last row.
        plan.mode = Mode::Cursor;
        modeEffect.actual = "cursor";
        modeEffect.inEffect = false;
        modeEffect.reason = "large objects cannot be read while a single-row result is streaming";
    }
    stats.statementEffects.push_back(clientSide(param::ResultFormat, textValue(values, param::ResultFormat)));
    stats.statementEffects.push_back(modeEffect);
    stats.statementEffects.push_back(clientSide(param::FetchSize, textValue(values, param::FetchSize)));
    if (spec.fetch == FetchMode::IdsOnly && inlineValues) {
        ParameterEffect idsOnly;
        idsOnly.id = "ids_only";
        idsOnly.requested = "true";
        idsOnly.actual = "values received with the row";
        idsOnly.inEffect = false;
        idsOnly.reason = "PostgreSQL sends bytea and text values inside the row; only large objects can stay unread";
        stats.statementEffects.push_back(idsOnly);
    }

    sink.columns(columns);
    RowDelivery delivery(*this, sink, types, plan.resultFormat, spec.fetch == FetchMode::IdsOnly,
                         booleanValue(values, param::DecodeTextBytea),
                         static_cast<std::size_t>(integerValue(values, param::LoChunkSize)));

    const bool needsTransaction = largeObjects && spec.fetch == FetchMode::Content;
    try {
        fetch(plan, delivery, stats, cancel, needsTransaction);
    } catch (const Error& error) {
        // The server's words for a value whose text rendering passes its 1 GB allocation limit say nothing of
        // bytea; say what happened and what helps.
        if (error.kind() == ErrorKind::Sql && plan.resultFormat == 0 &&
            std::string_view(error.what()).find("invalid memory alloc request size") != std::string_view::npos) {
            throw Error(ErrorKind::Sql, std::string(error.what()) +
                                            " (a value rendered as text passes the server's 1 GB limit: hex "
                                            "doubles bytea, escape quadruples most bytes; use result_format=binary)");
        }
        throw;
    }

    if (delivery.textByteaValues() > 0) {
        ParameterEffect decoded;
        decoded.id = "bytea_decoded_bytes";
        decoded.requested = textValue(values, param::DecodeTextBytea) == "true" ? "decoded" : "as received";
        decoded.actual = std::to_string(delivery.decodedBytes());
        decoded.reason = "decoded length of " + std::to_string(delivery.textByteaValues()) +
                         " bytea values received as " + textValue(m_values, param::ByteaOutput) + " text";
        stats.statementEffects.push_back(decoded);
    }
    if (ownReadOnly && PQtransactionStatus(m_conn) != PQTRANS_IDLE) {
        // BEGIN READ WRITE: the next scenarios ran in it, their DELETE and lo_create() committed by a
        // COMMIT (hostile round 5d G1).
        run("ROLLBACK", "rollback");
        throw Error(ErrorKind::Sql, m_label + ": execute: " + refusedTransaction());
    }
    return stats;
}

void PostgresSession::fetch(const FetchPlan& plan, RowDelivery& delivery, QueryStats& stats, const CancelToken& cancel,
                            bool needsTransaction) {
    if (plan.mode == Mode::Cursor) {
        fetchCursor(plan, delivery, stats, cancel);
        return;
    }
    const bool ownTransaction = needsTransaction && PQtransactionStatus(m_conn) == PQTRANS_IDLE;
    try {
        if (ownTransaction) {
            // BEGIN travels as a simple query, which discards the unnamed statement: prepare it again.
            run("BEGIN", "begin (large object reads)");
            pg::Result again(PQprepare(m_conn, "", plan.sql.c_str(), 0, nullptr));
            if (PQresultStatus(again.get()) != PGRES_COMMAND_OK) {
                throw sqlError("prepare", again.get());
            }
        }
        fetchStreaming(plan, delivery, stats, cancel);
    } catch (...) {
        if (ownTransaction) {
            pg::Result ignored(PQexec(m_conn, "ROLLBACK"));
        }
        throw;
    }
    if (ownTransaction) {
        run("COMMIT", "commit (large object reads)");
    }
}

void PostgresSession::fetchStreaming(const FetchPlan& plan, RowDelivery& delivery, QueryStats& stats,
                                     const CancelToken& cancel) {
    const auto executeStart = Clock::now();
    if (!PQsendQueryPrepared(m_conn, "", 0, nullptr, nullptr, nullptr, plan.resultFormat)) {
        throw sqlError("execute", nullptr);
    }
    const bool singleRow = plan.mode == Mode::SingleRow;
    if (singleRow && !PQsetSingleRowMode(m_conn)) {
        while (pg::Result ignored{PQgetResult(m_conn)}) {
        }
        throw Error(ErrorKind::Internal, m_label + ": libpq refused single-row mode");
    }

    bool first = true;
    Clock::time_point fetchStart = executeStart;
    pg::Result failure;
    std::vector<pg::Result> whole;  // whole mode: delivered after the connection is free again
    bool stopping = false;
    bool cancelled = false;
    std::exception_ptr sinkFailure;
    std::uint64_t delivered = 0;
    auto stop = [&] {
        if (!stopping && singleRow) {
            requestServerCancel();  // otherwise libpq keeps receiving every remaining row
        }
        stopping = true;
    };
    auto deliverAll = [&](const PGresult* result) {
        for (int row = 0; row < PQntuples(result) && !stopping; ++row) {
            if (cancel.cancelled() || m_cancelRequested) {
                cancelled = true;
                stop();
                break;
            }
            if (plan.rowLimit && delivered >= *plan.rowLimit) {
                stop();
                break;
            }
            try {
                delivery.row(result, row);
            } catch (...) {
                sinkFailure = std::current_exception();
                stop();
                break;
            }
            ++delivered;
        }
    };

    while (pg::Result result{PQgetResult(m_conn)}) {
        if (first) {
            stats.execute = since(executeStart);
            plan.spec->mark(QueryPhase::Executed);
            fetchStart = Clock::now();
            first = false;
        }
        const auto status = PQresultStatus(result.get());
        if (status == PGRES_SINGLE_TUPLE || status == PGRES_TUPLES_OK) {
            if (!singleRow) {
                whole.push_back(std::move(result));
                continue;
            }
            deliverAll(result.get());
            if (!stopping && plan.rowLimit && delivered >= *plan.rowLimit && status == PGRES_SINGLE_TUPLE) {
                stop();
            }
        } else if (status != PGRES_COMMAND_OK && !failure) {
            failure = std::move(result);
        }
    }
    for (const auto& result : whole) {
        if (!failure) {
            deliverAll(result.get());
        }
    }
    if (first) {
        stats.execute = since(executeStart);  // no result at all: the connection failed
        plan.spec->mark(QueryPhase::Executed);
    }
    stats.fetch = first ? Nanos{0} : since(fetchStart);
    const bool stoppedByLimit = failure && stopping && pg::sqlState(failure.get()) == pg::CancelledState;
    if ((!failure || stoppedByLimit) && !sinkFailure && !cancelled && !m_cancelRequested) {
        plan.spec->mark(QueryPhase::Fetched);
    }

    if (sinkFailure) {
        std::rethrow_exception(sinkFailure);
    }
    if (cancelled || (m_cancelRequested && (!failure || pg::sqlState(failure.get()) == pg::CancelledState))) {
        throw Error(ErrorKind::Cancelled, m_label + ": query cancelled");
    }
    if (failure && !stoppedByLimit) {
        throw sqlError("query", failure.get());
    }
}

void PostgresSession::fetchCursor(const FetchPlan& plan, RowDelivery& delivery, QueryStats& stats,
                                  const CancelToken& cancel) {
    // BEGIN, CLOSE and COMMIT are round trips that cursor mode costs: they count in execute and fetch.
    const auto executeStart = Clock::now();
    const bool ownTransaction = PQtransactionStatus(m_conn) == PQTRANS_IDLE;
    if (ownTransaction) {
        run("BEGIN", "begin (cursor)");
    }
    bool cancelled = false;
    try {
        run("DECLARE blobbench_cursor NO SCROLL CURSOR FOR " + withoutTrailingSemicolons(plan.sql), "declare cursor");
        stats.execute = since(executeStart);
        plan.spec->mark(QueryPhase::Executed);

        const auto fetchStart = Clock::now();
        std::uint64_t delivered = 0;
        while (!cancelled) {
            auto wanted = static_cast<std::uint64_t>(plan.fetchSize);
            if (plan.rowLimit) {
                wanted = std::min(wanted, *plan.rowLimit - delivered);
            }
            if (wanted == 0) {
                break;
            }
            const std::string fetch = "FETCH FORWARD " + std::to_string(wanted) + " FROM blobbench_cursor";
            pg::Result batch(
                PQexecParams(m_conn, fetch.c_str(), 0, nullptr, nullptr, nullptr, nullptr, plan.resultFormat));
            if (PQresultStatus(batch.get()) != PGRES_TUPLES_OK) {
                throw sqlError("fetch", batch.get());
            }
            const int rows = PQntuples(batch.get());
            for (int row = 0; row < rows; ++row) {
                if (cancel.cancelled() || m_cancelRequested) {
                    cancelled = true;
                    break;
                }
                delivery.row(batch.get(), row);
                ++delivered;
            }
            if (static_cast<std::uint64_t>(rows) < wanted) {
                break;
            }
        }
        run("CLOSE blobbench_cursor", "close cursor");
        if (ownTransaction) {
            run("COMMIT", "commit (cursor)");
        }
        stats.fetch = since(fetchStart);
        if (!cancelled) {
            plan.spec->mark(QueryPhase::Fetched);
        }
    } catch (...) {
        // Leave the connection as it was: our transaction rolled back, or at least our cursor closed.
        pg::Result ignored(PQexec(m_conn, ownTransaction ? "ROLLBACK" : "CLOSE blobbench_cursor"));
        throw;
    }
    if (cancelled) {
        throw Error(ErrorKind::Cancelled, m_label + ": query cancelled");
    }
}

}  // namespace blobbench
