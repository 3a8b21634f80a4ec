#include "engine/drivers/postgres/PostgresInsert.h"

#include <libpq/libpq-fs.h>

#include "engine/drivers/postgres/PostgresSession.h"

namespace blobbench {
namespace {

namespace type = pg::type;
namespace param = pg::param;

// Rows in flight before a pipeline sync: enough to hide round trips, few enough that the server's
// replies never fill a socket buffer while we are still sending.
constexpr int PipelineBatch = 256;

void appendBigEndian(std::string& out, std::uint64_t value, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) {
        out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
    }
}

std::string hexBytea(std::string_view bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out = "\\x";
    out.reserve(2 + bytes.size() * 2);
    for (unsigned char c : bytes) {
        out.push_back(digits[c >> 4]);
        out.push_back(digits[c & 0x0f]);
    }
    return out;
}

bool isTextType(Oid oid) {
    return oid == type::Text || oid == type::Varchar || oid == type::Bpchar;
}

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) {
        return "";
    }
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

PostgresInsert::PostgresInsert(PostgresSession& session, std::string sql, std::string name)
    : m_session(session), m_conn(session.connection()), m_sql(std::move(sql)), m_name(std::move(name)) {
    const auto& values = session.values();
    const std::string& method = textValue(values, param::InsertMethod);
    m_method = method == "literal"          ? Method::Literal
               : method == "literal_legacy" ? Method::LiteralLegacy
               : method == "copy_text"      ? Method::CopyText
               : method == "copy_binary"    ? Method::CopyBinary
                                            : Method::Prepared;
    m_binaryParameters = textValue(values, param::ParamFormat) == "binary";
    m_pipelineWanted = booleanValue(values, param::Pipeline);
    m_loChunk = static_cast<std::size_t>(integerValue(values, param::LoChunkSize));

    // Every method prepares: the server tells each parameter's type, which decides its encoding.
    pg::Result prepared(PQprepare(m_conn, m_name.c_str(), m_sql.c_str(), 0, nullptr));
    if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
        throw session.sqlError("prepare insert", prepared.get());
    }
    pg::Result described(PQdescribePrepared(m_conn, m_name.c_str()));
    if (PQresultStatus(described.get()) != PGRES_COMMAND_OK) {
        throw session.sqlError("describe insert", described.get());
    }
    for (int i = 0; i < PQnparams(described.get()); ++i) {
        m_types.push_back(PQparamtype(described.get(), i));
    }
    m_slots.resize(m_types.size());

    if (m_method == Method::CopyText || m_method == Method::CopyBinary) {
        const auto insert = pg::sql::simpleInsert(m_sql);
        if (!insert) {
            throw Error(
                ErrorKind::Unsupported,
                "postgres: insert_method copy needs INSERT INTO table (columns) VALUES ($1, ...), not: " + m_sql);
        }
        const std::string& columns = insert->columns;
        const std::string& placeholders = insert->values;
        std::size_t start = 0;
        while (start <= placeholders.size()) {
            auto end = placeholders.find(',', start);
            const std::string item = trim(placeholders.substr(start, end - start));
            if (item.size() < 2 || item[0] != '$') {
                throw Error(ErrorKind::Unsupported,
                            "postgres: insert_method copy takes only $n placeholders as values, not '" + item + "'");
            }
            const auto number = std::stoul(item.substr(1));
            if (number == 0 || number > m_types.size()) {
                throw Error(ErrorKind::Usage, "postgres: placeholder " + item + " out of range in " + m_sql);
            }
            m_copyParameter.push_back(number - 1);
            if (end == std::string::npos) {
                break;
            }
            start = end + 1;
        }
        m_copySql = "COPY " + insert->table + " (" + columns + ") FROM STDIN" +
                    (m_method == Method::CopyBinary ? " WITH (FORMAT binary)" : "");
    }
}

PostgresInsert::~PostgresInsert() {
    try {
        finish();
    } catch (const Error& error) {
        m_session.deferWriterError(error);
    }
    abandon();
    m_session.writerGone(this);
    m_session.insertClosed();
    const std::string deallocate = "DEALLOCATE " + m_name;
    if (PQtransactionStatus(m_conn) != PQTRANS_INERROR && PQtransactionStatus(m_conn) != PQTRANS_ACTIVE) {
        pg::Result ignored(PQexec(m_conn, deallocate.c_str()));
    }
}

PostgresInsert::Slot& PostgresInsert::slot(std::size_t index) {
    if (index >= m_slots.size()) {
        throw Error(ErrorKind::Usage, "postgres: parameter " + std::to_string(index + 1) + " of " +
                                          std::to_string(m_slots.size()) + " bound in: " + m_sql);
    }
    return m_slots[index];
}

void PostgresInsert::bindInteger(std::size_t index, std::int64_t value) {
    Slot& s = slot(index);
    s.kind = Kind::Integer;
    s.integer = value;
}

void PostgresInsert::bindBoolean(std::size_t index, bool value) {
    Slot& s = slot(index);
    s.kind = Kind::Boolean;
    s.integer = value ? 1 : 0;
}

void PostgresInsert::bindNull(std::size_t index) {
    slot(index).kind = Kind::Null;
}

void PostgresInsert::bindText(std::size_t index, std::string_view utf8) {
    Slot& s = slot(index);
    s.kind = Kind::Text;
    s.bytes.assign(utf8);
}

void PostgresInsert::bindBytes(std::size_t index, std::string_view bytes) {
    Slot& s = slot(index);
    s.kind = Kind::Bytes;
    s.bytes.assign(bytes);
}

bool PostgresInsert::writesLargeObjects() const {
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
        if (m_types[i] == type::ObjectId && (m_slots[i].kind == Kind::Bytes || m_slots[i].kind == Kind::Text)) {
            return true;
        }
    }
    return false;
}

// lo_creat + lo_write in lo_chunk_size pieces, as lo_import does; the column then receives the new oid.
void PostgresInsert::writeLargeObjects() {
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
        Slot& s = m_slots[i];
        if (m_types[i] != type::ObjectId || (s.kind != Kind::Bytes && s.kind != Kind::Text)) {
            continue;
        }
        const Oid oid = lo_creat(m_conn, INV_READ | INV_WRITE);
        if (oid == InvalidOid) {
            throw m_session.sqlError("lo_creat", nullptr);
        }
        const int fd = lo_open(m_conn, oid, INV_WRITE);
        if (fd < 0) {
            throw m_session.sqlError("lo_open", nullptr);
        }
        for (std::size_t offset = 0; offset < s.bytes.size();) {
            const std::size_t piece = std::min(m_loChunk, s.bytes.size() - offset);
            if (lo_write(m_conn, fd, s.bytes.data() + offset, piece) != static_cast<int>(piece)) {
                lo_close(m_conn, fd);
                throw m_session.sqlError("lo_write", nullptr);
            }
            offset += piece;
        }
        if (lo_close(m_conn, fd) != 0) {
            throw m_session.sqlError("lo_close", nullptr);
        }
        s.kind = Kind::Integer;
        s.integer = oid;
        s.bytes.clear();
    }
}

void PostgresInsert::execute() {
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
        if (m_slots[i].kind == Kind::Unbound) {
            throw Error(ErrorKind::Usage, "postgres: parameter $" + std::to_string(i + 1) + " not bound in: " + m_sql);
        }
    }
    if (writesLargeObjects()) {
        if (m_method == Method::CopyText || m_method == Method::CopyBinary) {
            throw Error(ErrorKind::Unsupported,
                        "postgres: large objects cannot be written while a COPY is open; use insert_method prepared");
        }
        finish();  // no lo_* calls inside a pipeline
        const bool ownTransaction = PQtransactionStatus(m_conn) == PQTRANS_IDLE;
        if (ownTransaction) {
            m_session.run("BEGIN", "begin (large object write)");
        }
        try {
            writeLargeObjects();
            if (m_method == Method::Prepared) {
                const bool pipeline = m_pipelineWanted;
                m_pipelineWanted = false;
                executePrepared();
                m_pipelineWanted = pipeline;
            } else {
                executeLiteral();
            }
        } catch (...) {
            if (ownTransaction) {
                pg::Result ignored(PQexec(m_conn, "ROLLBACK"));
            }
            throw;
        }
        if (ownTransaction) {
            m_session.run("COMMIT", "commit (large object write)");
        }
    } else {
        switch (m_method) {
            case Method::Prepared:
                executePrepared();
                break;
            case Method::Literal:
            case Method::LiteralLegacy:
                executeLiteral();
                break;
            case Method::CopyText:
            case Method::CopyBinary:
                executeCopy();
                break;
        }
    }
    for (auto& s : m_slots) {
        s.kind = Kind::Unbound;
    }
}

void PostgresInsert::executePrepared() {
    const std::size_t n = m_slots.size();
    std::vector<std::string> encoded(n);
    std::vector<const char*> values(n, nullptr);
    std::vector<int> lengths(n, 0);
    std::vector<int> formats(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const Slot& s = m_slots[i];
        const Oid oid = m_types[i];
        std::string& out = encoded[i];
        int format = 0;
        switch (s.kind) {
            case Kind::Unbound:
            case Kind::Null:
                continue;
            case Kind::Integer:
                if (m_binaryParameters &&
                    (oid == type::Int8 || oid == type::Int4 || oid == type::Int2 || oid == type::ObjectId)) {
                    const int bytes = oid == type::Int8 ? 8 : oid == type::Int2 ? 2 : 4;
                    appendBigEndian(out, static_cast<std::uint64_t>(s.integer), bytes);
                    format = 1;
                } else {
                    out = std::to_string(s.integer);
                }
                break;
            case Kind::Boolean:
                if (m_binaryParameters && oid == type::Bool) {
                    out.push_back(s.integer ? '\1' : '\0');
                    format = 1;
                } else {
                    out = s.integer ? "t" : "f";
                }
                break;
            case Kind::Text:
            case Kind::Bytes:
                if (oid == type::Bytea) {
                    if (m_binaryParameters) {
                        out = s.bytes;
                        format = 1;
                    } else {
                        out = hexBytea(s.bytes);
                    }
                } else {
                    out = s.bytes;
                    format = m_binaryParameters && isTextType(oid) ? 1 : 0;
                }
                break;
        }
        values[i] = out.c_str();
        lengths[i] = static_cast<int>(out.size());
        formats[i] = format;
    }

    if (m_pipelineWanted) {
        if (!m_pipelined) {
            m_session.finishOtherWriter(this);
            if (!PQenterPipelineMode(m_conn)) {
                throw m_session.sqlError("enter pipeline mode", nullptr);
            }
            m_pipelined = true;
            m_session.setOpenWriter(this);
        }
        if (!PQsendQueryPrepared(m_conn, m_name.c_str(), static_cast<int>(n), values.data(), lengths.data(),
                                 formats.data(), 0)) {
            throw m_session.sqlError("insert (pipeline)", nullptr);
        }
        if (++m_pipelinePending >= PipelineBatch) {
            consumePipeline();
        }
        return;
    }
    pg::Result result(
        PQexecPrepared(m_conn, m_name.c_str(), static_cast<int>(n), values.data(), lengths.data(), formats.data(), 0));
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
        throw m_session.sqlError("insert", result.get());
    }
}

// Syncs the pipeline and reads every reply; throws the first failure after the pipeline is drained.
void PostgresInsert::consumePipeline() {
    if (!PQpipelineSync(m_conn)) {
        throw m_session.sqlError("pipeline sync", nullptr);
    }
    pg::Result failure;
    int nullsInARow = 0;
    while (true) {
        pg::Result result(PQgetResult(m_conn));
        if (!result) {
            // One NULL ends each query's results; two in a row mean nothing more is coming.
            if (++nullsInARow > 1) {
                break;
            }
            continue;
        }
        nullsInARow = 0;
        const auto status = PQresultStatus(result.get());
        if (status == PGRES_PIPELINE_SYNC) {
            break;
        }
        if (status != PGRES_COMMAND_OK && status != PGRES_PIPELINE_ABORTED && !failure) {
            failure = std::move(result);
        }
    }
    m_pipelinePending = 0;
    if (failure) {
        throw m_session.sqlError("insert (pipeline)", failure.get());
    }
}

std::string PostgresInsert::literal(std::size_t index) const {
    const Slot& s = m_slots[index];
    const Oid oid = m_types[index];
    switch (s.kind) {
        case Kind::Unbound:
        case Kind::Null:
            return "NULL";
        case Kind::Integer:
            return std::to_string(s.integer);
        case Kind::Boolean:
            return s.integer ? "TRUE" : "FALSE";
        case Kind::Text:
        case Kind::Bytes:
            break;
    }
    if (oid == type::Bytea) {
        std::size_t length = 0;
        const auto* data = reinterpret_cast<const unsigned char*>(s.bytes.data());
        // PQescapeByteaConn knows the server (hex form, standard_conforming_strings); the legacy
        // PQescapeBytea writes the escape form for whatever connection libpq saw last.
        unsigned char* escaped = m_method == Method::LiteralLegacy
                                     ? PQescapeBytea(data, s.bytes.size(), &length)
                                     : PQescapeByteaConn(m_conn, data, s.bytes.size(), &length);
        if (!escaped) {
            throw m_session.sqlError("escape bytea", nullptr);
        }
        std::string out = "'";
        out.append(reinterpret_cast<const char*>(escaped), length > 0 ? length - 1 : 0);  // length counts the NUL
        out += "'::bytea";
        PQfreemem(escaped);
        return out;
    }
    char* escaped = PQescapeLiteral(m_conn, s.bytes.data(), s.bytes.size());
    if (!escaped) {
        throw m_session.sqlError("escape literal", nullptr);
    }
    std::string out = escaped;
    PQfreemem(escaped);
    return out;
}

// Replaces $n outside quotes with SQL literals and runs the statement as plain text.
void PostgresInsert::executeLiteral() {
    std::string sql;
    sql.reserve(m_sql.size() + 64);
    char quote = 0;
    for (std::size_t i = 0; i < m_sql.size(); ++i) {
        const char c = m_sql[i];
        if (quote) {
            sql.push_back(c);
            if (c == quote) {
                quote = 0;
            }
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            sql.push_back(c);
            continue;
        }
        if (c == '$' && i + 1 < m_sql.size() && std::isdigit(static_cast<unsigned char>(m_sql[i + 1]))) {
            std::size_t end = i + 1;
            while (end < m_sql.size() && std::isdigit(static_cast<unsigned char>(m_sql[end]))) {
                ++end;
            }
            const auto number = std::stoul(m_sql.substr(i + 1, end - i - 1));
            if (number == 0 || number > m_slots.size()) {
                throw Error(ErrorKind::Usage, "postgres: placeholder $" + std::to_string(number) + " out of range");
            }
            sql += literal(number - 1);
            i = end - 1;
            continue;
        }
        sql.push_back(c);
    }
    pg::Result result(PQexec(m_conn, sql.c_str()));
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
        throw m_session.sqlError("insert (literal)", result.get());
    }
}

void PostgresInsert::appendCopyText(std::string& row, std::size_t index) const {
    const Slot& s = m_slots[index];
    switch (s.kind) {
        case Kind::Unbound:
        case Kind::Null:
            row += "\\N";
            return;
        case Kind::Integer:
            row += std::to_string(s.integer);
            return;
        case Kind::Boolean:
            row += s.integer ? "t" : "f";
            return;
        case Kind::Text:
        case Kind::Bytes:
            break;
    }
    const std::string value = m_types[index] == type::Bytea ? hexBytea(s.bytes) : s.bytes;
    for (char c : value) {
        switch (c) {
            case '\\':
                row += "\\\\";
                break;
            case '\t':
                row += "\\t";
                break;
            case '\n':
                row += "\\n";
                break;
            case '\r':
                row += "\\r";
                break;
            default:
                row.push_back(c);
        }
    }
}

void PostgresInsert::appendCopyBinary(std::string& row, std::size_t index) const {
    const Slot& s = m_slots[index];
    const Oid oid = m_types[index];
    std::string field;
    switch (s.kind) {
        case Kind::Unbound:
        case Kind::Null:
            appendBigEndian(row, 0xffffffffU, 4);  // -1: NULL
            return;
        case Kind::Integer:
            if (oid != type::Int8 && oid != type::Int4 && oid != type::Int2) {
                throw Error(ErrorKind::Unsupported,
                            "postgres: COPY binary: integer into a column of type oid " + std::to_string(oid));
            }
            appendBigEndian(field, static_cast<std::uint64_t>(s.integer),
                            oid == type::Int8   ? 8
                            : oid == type::Int2 ? 2
                                                : 4);
            break;
        case Kind::Boolean:
            if (oid != type::Bool) {
                throw Error(ErrorKind::Unsupported,
                            "postgres: COPY binary: boolean into a column of type oid " + std::to_string(oid));
            }
            field.push_back(s.integer ? '\1' : '\0');
            break;
        case Kind::Text:
        case Kind::Bytes:
            if (oid != type::Bytea && !isTextType(oid)) {
                throw Error(ErrorKind::Unsupported,
                            "postgres: COPY binary: bytes into a column of type oid " + std::to_string(oid));
            }
            field = s.bytes;
            break;
    }
    appendBigEndian(row, field.size(), 4);
    row += field;
}

void PostgresInsert::executeCopy() {
    if (!m_copying) {
        m_session.finishOtherWriter(this);
        pg::Result started(PQexec(m_conn, m_copySql.c_str()));
        if (PQresultStatus(started.get()) != PGRES_COPY_IN) {
            throw m_session.sqlError(m_copySql, started.get());
        }
        m_copying = true;
        m_session.setOpenWriter(this);
        if (m_method == Method::CopyBinary) {
            static const char header[] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";  // signature, flags, extension
            if (PQputCopyData(m_conn, header, 19) != 1) {
                throw m_session.sqlError("COPY header", nullptr);
            }
        }
    }
    std::string row;
    if (m_method == Method::CopyBinary) {
        appendBigEndian(row, m_copyParameter.size(), 2);
        for (std::size_t parameter : m_copyParameter) {
            appendCopyBinary(row, parameter);
        }
    } else {
        for (std::size_t k = 0; k < m_copyParameter.size(); ++k) {
            if (k > 0) {
                row.push_back('\t');
            }
            appendCopyText(row, m_copyParameter[k]);
        }
        row.push_back('\n');
    }
    if (PQputCopyData(m_conn, row.data(), static_cast<int>(row.size())) != 1) {
        throw m_session.sqlError("COPY row", nullptr);
    }
}

void PostgresInsert::finish() {
    if (m_copying) {
        m_copying = false;
        m_session.writerGone(this);
        if (m_method == Method::CopyBinary) {
            PQputCopyData(m_conn, "\377\377", 2);  // trailer: field count -1
        }
        if (PQputCopyEnd(m_conn, nullptr) != 1) {
            throw m_session.sqlError("COPY end", nullptr);
        }
        pg::Result failure;
        while (pg::Result result{PQgetResult(m_conn)}) {
            if (PQresultStatus(result.get()) != PGRES_COMMAND_OK && !failure) {
                failure = std::move(result);
            }
        }
        if (failure) {
            throw m_session.sqlError("COPY", failure.get());
        }
    }
    if (m_pipelined) {
        std::optional<Error> failure;
        try {
            consumePipeline();
        } catch (const Error& error) {
            failure = error;
        }
        PQexitPipelineMode(m_conn);
        m_pipelined = false;
        m_session.writerGone(this);
        if (failure) {
            throw *failure;
        }
    }
}

void PostgresInsert::abandon() noexcept {
    if (m_copying) {
        m_copying = false;
        PQputCopyEnd(m_conn, "abandoned by BlobBench");
        while (pg::Result result{PQgetResult(m_conn)}) {
        }
    }
    if (m_pipelined) {
        try {
            consumePipeline();
        } catch (...) {
            // the rows are being thrown away anyway
        }
        PQexitPipelineMode(m_conn);
        m_pipelined = false;
    }
    m_session.writerGone(this);
}

}  // namespace blobbench
