#include "engine/drivers/firebird/FirebirdSession.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <type_traits>

#include "engine/drivers/ReadOnly.h"
#include "engine/drivers/firebird/FirebirdColumns.h"
#include "engine/drivers/firebird/FirebirdConnectionString.h"
#include "engine/drivers/firebird/FirebirdConstants.h"

namespace blobbench::firebird {
namespace {

using Clock = std::chrono::steady_clock;
using Firebird::FbException;
using Firebird::IStatus;
using Firebird::ThrowStatusWrapper;

Nanos since(Clock::time_point start) {
    return std::chrono::duration_cast<Nanos>(Clock::now() - start);
}

// IStatement from interface version 6 (5.0.3), laid out after the 3.0 table as Firebird's IDL
// declares it: timeouts and createBatch (4.0), free (4.0.1), then the inline BLOB size.
struct StatementVTableV6 : Firebird::IStatement::VTable {
    unsigned (*getTimeout)(Firebird::IStatement*, IStatus*);
    void (*setTimeout)(Firebird::IStatement*, IStatus*, unsigned);
    void* (*createBatch)(Firebird::IStatement*, IStatus*, Firebird::IMessageMetadata*, unsigned, const unsigned char*);
    void (*free)(Firebird::IStatement*, IStatus*);
    unsigned (*getMaxInlineBlobSize)(Firebird::IStatement*, IStatus*);
    void (*setMaxInlineBlobSize)(Firebird::IStatement*, IStatus*, unsigned);
};

// IBatch (4.0) and its completion state, laid out as Firebird's IDL declares them; Debian's 3.0
// headers have neither. Only ever reached through a 4.0+ client's IStatement::createBatch.
struct BatchVTable : Firebird::IReferenceCounted::VTable {
    using Self = Firebird::IReferenceCounted;
    void (*add)(Self*, IStatus*, unsigned count, const void* inBuffer);
    void (*addBlob)(Self*, IStatus*, unsigned length, const void* inBuffer, ISC_QUAD* blobId, unsigned parLength,
                    const unsigned char* par);
    void (*appendBlobData)(Self*, IStatus*, unsigned length, const void* inBuffer);
    void (*addBlobStream)(Self*, IStatus*, unsigned length, const void* inBuffer);
    void (*registerBlob)(Self*, IStatus*, const ISC_QUAD* existingBlob, ISC_QUAD* blobId);
    Firebird::IDisposable* (*execute)(Self*, IStatus*, Firebird::ITransaction* transaction);
    void (*cancel)(Self*, IStatus*);
};

struct BatchCompletionVTable : Firebird::IDisposable::VTable {
    using Self = Firebird::IDisposable;
    unsigned (*getSize)(Self*, IStatus*);
    int (*getState)(Self*, IStatus*, unsigned pos);
    unsigned (*findError)(Self*, IStatus*, unsigned pos);
    void (*getStatus)(Self*, IStatus*, IStatus* to, unsigned pos);
};

constexpr unsigned kStatementVersionBatch = 4;  // IStatement::createBatch from 4.0
constexpr unsigned kXpbBatch = 5;               // IXpbBuilder::BATCH
constexpr unsigned char kBatchTagRecordCounts = 2;
constexpr unsigned char kBatchTagBufferBytesSize = 3;
constexpr unsigned char kBatchTagBlobPolicy = 4;
constexpr int kBatchBlobIdEngine = 1;
constexpr unsigned kBatchNoMoreErrors = 0xffffffff;
constexpr int kBatchBufferBytes = 64 * 1024 * 1024;
constexpr std::size_t kBatchFlushBytes = 16 * 1024 * 1024;  // executed early, well inside the buffer

bool statusHas(IStatus* status, ISC_STATUS code) {
    const intptr_t* v = status->getErrors();
    while (v && v[0] != isc_arg_end) {
        if (v[0] == isc_arg_gds && v[1] == code) {
            return true;
        }
        v += 2;
    }
    return false;
}

std::vector<unsigned char> transactionParameters(const std::string& isolation, bool readOnly) {
    std::vector<unsigned char> tpb = {
        isc_tpb_version3, static_cast<unsigned char>(readOnly ? isc_tpb_read : isc_tpb_write), isc_tpb_wait};
    if (isolation == "read_committed") {
        tpb.push_back(isc_tpb_read_committed);
        tpb.push_back(isc_tpb_rec_version);
    } else if (isolation == "snapshot_table_stability") {
        tpb.push_back(isc_tpb_consistency);
    } else {
        tpb.push_back(isc_tpb_concurrency);
    }
    return tpb;
}

// Ends a transaction the session started for one call: commit on success, rollback otherwise.
class OwnTransaction {
public:
    OwnTransaction(FirebirdSession& session, bool readOnly = false) : m_session(session) {
        m_transaction = session.currentTransaction();
        if (!m_transaction) {
            m_transaction = session.startTransaction(readOnly);
            m_owned = true;
        }
    }
    ~OwnTransaction() {
        if (m_owned && m_transaction) {
            Firebird::IStatus* raw = m_session.client().master()->getStatus();
            Firebird::CheckStatusWrapper st(raw);
            m_transaction->rollback(&st);
            if (st.hasData()) {
                m_transaction->release();
            }
            raw->dispose();
        }
    }
    OwnTransaction(const OwnTransaction&) = delete;
    OwnTransaction& operator=(const OwnTransaction&) = delete;
    Firebird::ITransaction* get() const { return m_transaction; }
    void commit() {
        if (m_owned && m_transaction) {
            m_transaction->commit(&m_session.status());
            m_transaction = nullptr;
        }
    }

private:
    FirebirdSession& m_session;
    Firebird::ITransaction* m_transaction = nullptr;
    bool m_owned = false;
};

}  // namespace

Error FirebirdSession::statusError(ErrorKind kind, const std::string& context, IStatus* status) const {
    char buffer[2048] = {};
    m_client->util()->formatStatus(buffer, sizeof buffer, status);
    if (statusHas(status, isc_cancelled)) {
        kind = ErrorKind::Cancelled;
    } else if (kind == ErrorKind::Sql) {
        // A lost attachment (network error, attachment deleted or database shut down) is no
        // statement's fault: the session is gone and the run must end, not go on with it.
        for (const ISC_STATUS lost : {isc_network_error, isc_net_read_err, isc_net_write_err, isc_att_shutdown,
                                      isc_shutdown, isc_conn_lost, isc_lost_db_connection}) {
            if (statusHas(status, lost)) {
                kind = ErrorKind::Connect;
                break;
            }
        }
    }
    return Error(kind, context + ": " + oneLine(buffer));
}

FirebirdSession::FirebirdSession(std::shared_ptr<FirebirdClient> client, const ConnectionSpec& spec,
                                 const ParameterValues& values)
    : m_client(std::move(client)), m_status(m_client->master()->getStatus()) {
    const FirebirdTarget target = parseFirebirdTarget(spec.target);
    const std::string where = target.toString();
    const std::string context = "firebird:" + maskSecrets(spec.target);
    m_info.engine = "firebird";
    m_info.clientVersion = m_client->versionText();
    m_info.embedded = !target.networked();
    const bool inlineClient = m_client->version() >= FbVersion{5, 0, 3};
    auto attachStarted = std::chrono::steady_clock::now();
    try {
        Releaser<Firebird::IXpbBuilder> dpb{
            m_client->util()->getXpbBuilder(&m_status, Firebird::IXpbBuilder::DPB, nullptr, 0)};
        if (!spec.user.empty()) {
            dpb.object->insertString(&m_status, isc_dpb_user_name, spec.user.c_str());
        }
        if (!spec.password.empty()) {
            dpb.object->insertString(&m_status, isc_dpb_password, spec.password.c_str());
        }
        if (!spec.role.empty()) {
            dpb.object->insertString(&m_status, isc_dpb_sql_role_name, spec.role.c_str());
        }
        const std::string charset = spec.charset.empty() ? "UTF8" : spec.charset;
        dpb.object->insertString(&m_status, isc_dpb_lc_ctype, charset.c_str());
        std::string config = "WireCrypt=" + textValue(values, "wire_crypt");
        if (booleanValue(values, "wire_compression")) {
            config += "\nWireCompression=true";
        }
        if (target.networked()) {
            // A networked target needs only the Remote provider. Without this, a failed attach (a
            // missing file before create_database, a wrong path) falls through to Engine13, and a
            // 5.0 client's Engine13 cannot be loaded into a process that loaded a 3.0 client
            // first (same soname libfbclient.so.2: "undefined symbol fb_dsql_set_timeout"): that
            // error hid the real one.
            config += "\nProviders=Remote";
        }
        dpb.object->insertString(&m_status, isc_dpb_config, config.c_str());
        if (const auto timeout = integerValue(values, "connect_timeout"); timeout > 0) {
            dpb.object->insertInt(&m_status, isc_dpb_connect_timeout, static_cast<int>(timeout));
        }
        if (inlineClient) {
            // Older clients would pass unknown tags on to the server: only a 5.0.3 client gets them.
            dpb.object->insertInt(&m_status, kDpbMaxBlobCacheSize,
                                  static_cast<int>(integerValue(values, "max_blob_cache_size")));
            dpb.object->insertInt(&m_status, kDpbMaxInlineBlobSize,
                                  static_cast<int>(integerValue(values, "max_inline_blob_size")));
        }
        Releaser<Firebird::IProvider> provider{m_client->dispatcher()};
        attachStarted = std::chrono::steady_clock::now();
        try {
            m_attachment = provider.object->attachDatabase(
                &m_status, where.c_str(), dpb.object->getBufferLength(&m_status), dpb.object->getBuffer(&m_status));
        } catch (const FbException& e) {
            // Only a missing file is created: any other failure (password, network) stays an error.
            if (!booleanValue(values, "create_database") || !statusHas(e.getStatus(), isc_io_error)) {
                throw;
            }
            dpb.object->insertInt(&m_status, isc_dpb_page_size, static_cast<int>(integerValue(values, "page_size")));
            dpb.object->insertString(&m_status, isc_dpb_set_db_charset, "UTF8");
            dpb.object->insertInt(&m_status, isc_dpb_sql_dialect, kSqlDialect);
            m_attachment = provider.object->createDatabase(
                &m_status, where.c_str(), dpb.object->getBufferLength(&m_status), dpb.object->getBuffer(&m_status));
            m_info.negotiated["created"] = "true";
        }
    } catch (const FbException& e) {
        Error error = statusError(ErrorKind::Connect, context + ": connect", e.getStatus());
        // A missing file is an I/O error at open: say how to have it created (the window offers
        // Prepare beside this line, see ui/PrepareDialog.cpp errorOffersPrepare).
        if (statusHas(e.getStatus(), isc_io_error) && !booleanValue(values, "create_database")) {
            throw Error(error.kind(), std::string(error.what()) +
                                          " (if the database does not exist yet, prepare it with "
                                          "create_database=true: it creates a missing file)");
        }
        // The client reports a server that accepted the TCP connection but never answered within
        // isc_dpb_connect_timeout as "connection rejected": a real rejection comes at once.
        const auto timeout = std::chrono::seconds(integerValue(values, "connect_timeout"));
        if (timeout.count() > 0 && statusHas(e.getStatus(), isc_connect_reject) &&
            std::chrono::steady_clock::now() - attachStarted >= timeout - std::chrono::milliseconds(100)) {
            throw Error(error.kind(), std::string(error.what()) + " (no answer from the server within the " +
                                          "connect timeout, " + std::to_string(timeout.count()) +
                                          " s: connect_timeout)");
        }
        throw error;
    }
    FirebirdClient::keepPluginsLoaded();

    try {
        m_tpb = transactionParameters(textValue(values, "isolation"), spec.readOnly);
        if (!booleanValue(values, "empty_bpb")) {
            m_bpb = {isc_bpb_version1, isc_bpb_type, 1, isc_bpb_type_segmented};
        }
        m_segment.resize(static_cast<std::size_t>(integerValue(values, "blob_buffer_size")));
        readBackSettings(values);
    } catch (const FbException& e) {
        const Error error = statusError(ErrorKind::Connect, context, e.getStatus());
        detach();
        throw error;
    } catch (...) {
        detach();
        throw;
    }
}

FirebirdSession::~FirebirdSession() {
    detach();
    m_status.dispose();
}

void FirebirdSession::detach() noexcept {
    IStatus* raw = m_client->master()->getStatus();
    Firebird::CheckStatusWrapper st(raw);
    if (m_transaction) {
        m_transaction->rollback(&st);
        if (st.hasData()) {
            m_transaction->release();
        }
        st.init();
        m_transaction = nullptr;
    }
    if (m_attachment) {
        m_attachment->detach(&st);
        if (st.hasData()) {
            // A broken connection cannot detach cleanly; dropping the reference frees the handle.
            m_attachment->release();
        }
        m_attachment = nullptr;
    }
    raw->dispose();
}

Firebird::ITransaction* FirebirdSession::startTransaction(bool readOnly) {
    std::vector<unsigned char> tpb = m_tpb;
    tpb[1] = readOnly ? isc_tpb_read : tpb[1];  // after isc_tpb_version3 (transactionParameters)
    return m_attachment->startTransaction(&m_status, static_cast<unsigned>(tpb.size()), tpb.data());
}

void FirebirdSession::begin() {
    if (m_transaction) {
        throw Error(ErrorKind::Sql, "firebird: begin: a transaction is already active");
    }
    try {
        m_transaction = startTransaction();
    } catch (const FbException& e) {
        throw statusError(ErrorKind::Sql, "firebird: begin", e.getStatus());
    }
}

void FirebirdSession::commit() {
    if (!m_transaction) {
        return;
    }
    if (m_pending) {
        m_pending->flush(m_transaction);  // throws Error with the server's words
    }
    try {
        m_transaction->commit(&m_status);  // releases the interface on success
        m_transaction = nullptr;
    } catch (const FbException& e) {
        throw statusError(ErrorKind::Sql, "firebird: commit", e.getStatus());
    }
}

void FirebirdSession::rollback() {
    if (!m_transaction) {
        return;
    }
    if (m_pending) {
        m_pending->discard();
    }
    Firebird::ITransaction* t = m_transaction;
    m_transaction = nullptr;
    try {
        t->rollback(&m_status);
    } catch (const FbException& e) {
        t->release();
        throw statusError(ErrorKind::Sql, "firebird: rollback", e.getStatus());
    }
}

void FirebirdSession::execute(std::string_view sql) {
    const std::string text(sql);
    try {
        OwnTransaction tx(*this);
        m_attachment->execute(&m_status, tx.get(), static_cast<unsigned>(text.size()), text.c_str(), kSqlDialect,
                              nullptr, nullptr, nullptr, nullptr);
        tx.commit();
    } catch (const FbException& e) {
        throw statusError(ErrorKind::Sql, "firebird: " + oneLine(text), e.getStatus());
    }
}

std::vector<std::optional<std::string>> FirebirdSession::firstRow(const std::string& sql) {
    OwnTransaction tx(*this);
    Releaser<Firebird::IStatement> statement{m_attachment->prepare(&m_status, tx.get(), 0, sql.c_str(), kSqlDialect,
                                                                   Firebird::IStatement::PREPARE_PREFETCH_METADATA)};
    Releaser<Firebird::IMessageMetadata> original{statement.object->getOutputMetadata(&m_status)};
    Releaser<Firebird::IMetadataBuilder> builder{original.object->getBuilder(&m_status)};
    const unsigned count = original.object->getCount(&m_status);
    for (unsigned i = 0; i < count; ++i) {
        builder.object->setType(&m_status, i, SQL_VARYING + kNullableBit);
        builder.object->setLength(&m_status, i, 1024);
    }
    Releaser<Firebird::IMessageMetadata> meta{builder.object->getMetadata(&m_status)};
    std::vector<unsigned char> row(meta.object->getMessageLength(&m_status));
    Releaser<Firebird::IResultSet> cursor{
        statement.object->openCursor(&m_status, tx.get(), nullptr, nullptr, meta.object, 0)};
    std::vector<std::optional<std::string>> out;
    if (cursor.object->fetchNext(&m_status, row.data()) == IStatus::RESULT_OK) {
        for (unsigned i = 0; i < count; ++i) {
            if (load<std::int16_t>(row.data() + meta.object->getNullOffset(&m_status, i))) {
                out.emplace_back(std::nullopt);
                continue;
            }
            const unsigned char* p = row.data() + meta.object->getOffset(&m_status, i);
            out.emplace_back(std::string(reinterpret_cast<const char*>(p + 2), load<std::uint16_t>(p)));
        }
    }
    cursor.take()->close(&m_status);
    statement.take()->free(&m_status);
    tx.commit();
    return out;
}

bool FirebirdSession::tableExists(std::string_view name) {
    std::string upper;
    for (char c : name) {
        upper += c == '\'' ? std::string("''")
                           : std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    }
    try {
        return !firstRow("SELECT 1 FROM RDB$RELATIONS WHERE RDB$RELATION_NAME = '" + upper + "'").empty();
    } catch (const FbException& e) {
        throw statusError(ErrorKind::Sql, "firebird: tableExists", e.getStatus());
    }
}

void FirebirdSession::cancel() {
    m_cancelRequested.store(true);
    if (!m_attachment) {
        return;
    }
    // Its own status: the session's status object belongs to the thread running the statement.
    IStatus* raw = m_client->master()->getStatus();
    Firebird::CheckStatusWrapper st(raw);
    m_attachment->cancelOperation(&st, fb_cancel_raise);
    raw->dispose();
}

std::vector<ParameterEffect> FirebirdSession::applyStatementTunables(Firebird::IStatement* statement,
                                                                     const ParameterValues& requested) {
    std::vector<ParameterEffect> effects;
    auto it = requested.find("max_inline_blob_size");
    if (it == requested.end()) {
        return effects;
    }
    ParameterEffect e;
    e.id = it->first;
    e.requested = it->second;
    const auto version = statement->cloopVTable->version;
    if (!inlineBlobsPossible()) {
        e.inEffect = false;
        e.reason = inlineReason();
    } else if (version < kStatementVersionInlineBlobs) {
        e.inEffect = false;
        e.reason =
            "not in effect (the client's IStatement is interface version " + std::to_string(version) + ", needs 6)";
    } else {
        auto* table = static_cast<StatementVTableV6*>(statement->cloopVTable);
        const auto size = static_cast<unsigned>(std::stoul(it->second));
        table->setMaxInlineBlobSize(statement, &m_status, size);
        m_status.checkException(&m_status);
        const unsigned actual = table->getMaxInlineBlobSize(statement, &m_status);
        m_status.checkException(&m_status);
        e.actual = std::to_string(actual);
        e.inEffect = actual == size;
        if (!e.inEffect) {
            e.reason = "the client applied " + e.actual;
        }
    }
    effects.push_back(e);
    return effects;
}

QueryStats FirebirdSession::query(const QuerySpec& spec, RowSink& sink, const CancelToken& cancel) {
    m_cancelRequested.store(false);
    QueryStats stats;
    const std::string context = "firebird: " + oneLine(spec.sql);
    auto stopRequested = [&] { return cancel.cancelled() || m_cancelRequested.load(std::memory_order_relaxed); };
    if (stopRequested()) {
        throw Error(ErrorKind::Cancelled, context + ": cancelled");
    }
    const bool readOnly = currentTransaction() == nullptr;  // a reading statement: see ReadOnly.h
    if (const std::string refused = readOnly ? refusedFirebirdCall(spec.sql) : std::string(); !refused.empty()) {
        throw Error(ErrorKind::Sql, context + ": " + refused);
    }
    try {
        OwnTransaction tx(*this, readOnly);
        auto t0 = Clock::now();
        Releaser<Firebird::IStatement> statement{
            m_attachment->prepare(&m_status, tx.get(), 0, spec.sql.c_str(), kSqlDialect,
                                  Firebird::IStatement::PREPARE_PREFETCH_METADATA),
            m_client->master()};
        stats.statementEffects = applyStatementTunables(statement.object, spec.statementParameters);
        Releaser<Firebird::IMessageMetadata> declared{statement.object->getOutputMetadata(&m_status)};
        Releaser<Firebird::IMessageMetadata> meta{readableMetadata(m_status, declared.object)};
        const std::vector<OutColumn> columns = describe(m_status, meta.object);
        stats.prepare = since(t0);

        std::vector<ColumnInfo> infos;
        infos.reserve(columns.size());
        for (const auto& c : columns) {
            infos.push_back(c.info);
        }
        sink.columns(infos);

        const std::optional<Counters> before = m_wireCounters ? readWireCounters() : std::nullopt;
        const bool hasCursor = (statement.object->getFlags(&m_status) & Firebird::IStatement::FLAG_HAS_CURSOR) != 0;
        std::vector<unsigned char> row(meta.object->getMessageLength(&m_status));
        spec.mark(QueryPhase::Prepared);
        t0 = Clock::now();
        if (!hasCursor) {
            statement.object->execute(&m_status, tx.get(), nullptr, nullptr, meta.object,
                                      columns.empty() ? nullptr : row.data());
            stats.execute = since(t0);
            spec.mark(QueryPhase::Executed);
            spec.mark(QueryPhase::Fetched);
        } else {
            Releaser<Firebird::IResultSet> cursor{
                statement.object->openCursor(&m_status, tx.get(), nullptr, nullptr, meta.object, 0),
                m_client->master()};
            stats.execute = since(t0);
            spec.mark(QueryPhase::Executed);
            t0 = Clock::now();
            std::uint64_t rows = 0;
            const bool readLobs = spec.fetch == FetchMode::Content;
            while ((!spec.rowLimit || rows < *spec.rowLimit) &&
                   cursor.object->fetchNext(&m_status, row.data()) == IStatus::RESULT_OK) {
                for (std::size_t i = 0; i < columns.size(); ++i) {
                    const OutColumn& c = columns[i];
                    if (load<std::int16_t>(row.data() + c.nullOffset)) {
                        sink.null(i);
                        continue;
                    }
                    if (c.type != SQL_BLOB) {
                        emitScalar(c, row.data(), i, sink);
                        continue;
                    }
                    if (!readLobs) {
                        sink.lobSkipped(i);
                        continue;
                    }
                    auto* id = reinterpret_cast<ISC_QUAD*>(row.data() + c.offset);
                    Releaser<Firebird::IBlob> blob{m_attachment->openBlob(
                        &m_status, tx.get(), id, static_cast<unsigned>(m_bpb.size()), m_bpb.data())};
                    for (;;) {
                        unsigned length = 0;
                        const int result = blob.object->getSegment(&m_status, static_cast<unsigned>(m_segment.size()),
                                                                   m_segment.data(), &length);
                        if (result != IStatus::RESULT_OK && result != IStatus::RESULT_SEGMENT) {
                            break;
                        }
                        if (length) {
                            sink.chunk(i, std::string_view(m_segment.data(), length));
                        }
                    }
                    blob.take()->close(&m_status);
                    sink.valueEnd(i);
                }
                sink.endRow();
                ++rows;
                if (stopRequested()) {
                    throw Error(ErrorKind::Cancelled, context + ": cancelled after " + std::to_string(rows) + " rows");
                }
            }
            cursor.take()->close(&m_status);
            stats.fetch = since(t0);
            spec.mark(QueryPhase::Fetched);
        }
        if (before) {
            if (const auto after = readWireCounters()) {
                stats.nativeLogical = WireStats::of(after->logical - before->logical);
                stats.nativePhysical = WireStats::of(after->physical - before->physical);
            }
        } else {
            stats.nativeLogical = WireStats::unavailable(m_wireCountersReason);
            stats.nativePhysical = WireStats::unavailable(m_wireCountersReason);
        }
        statement.take()->free(&m_status);
        tx.commit();
    } catch (const FbException& e) {
        Error error = statusError(ErrorKind::Sql, context, e.getStatus());
        if (readOnly && statusHas(e.getStatus(), isc_read_only_trans)) {
            error = Error(ErrorKind::Sql, context + ": " + refusedWrite(error.what() + context.size() + 2));
        }
        if (stopRequested()) {
            error = Error(ErrorKind::Cancelled, error.what());
        }
        throw error;
    }
    return stats;
}

// ---------------------------------------------------------------------------------------------
// INSERT for the data set loader: BLOB parameters are written with putSegment in large chunks.

namespace {

class FirebirdInsert final : public InsertStatement, public PendingInserts {
public:
    FirebirdInsert(FirebirdSession& session, std::string sql) : m_session(session), m_sql(std::move(sql)) {
        auto& st = session.status();
        try {
            OwnTransaction tx(session);
            m_statement = session.attachment()->prepare(&st, tx.get(), 0, m_sql.c_str(), kSqlDialect,
                                                        Firebird::IStatement::PREPARE_PREFETCH_METADATA);
            m_meta = m_statement->getInputMetadata(&st);
            const unsigned count = m_meta->getCount(&st);
            m_params.resize(count);
            for (unsigned i = 0; i < count; ++i) {
                m_params[i].type = m_meta->getType(&st, i) & ~kNullableBit;
                m_params[i].length = m_meta->getLength(&st, i);
                m_params[i].scale = m_meta->getScale(&st, i);
                m_params[i].offset = m_meta->getOffset(&st, i);
                m_params[i].nullOffset = m_meta->getNullOffset(&st, i);
            }
            m_buffer.assign(m_meta->getMessageLength(&st), 0);
            if (session.batchInserts() && m_statement->cloopVTable->version >= kStatementVersionBatch) {
                // IBatch::add reads each message at its aligned length (IMessageMetadata::getAlignedLength,
                // 4.0): the message length rounded up to its widest field, at most 8 bytes.
                m_buffer.resize((m_buffer.size() + 7) / 8 * 8, 0);
                createBatch();
            }
            tx.commit();
        } catch (const FbException& e) {
            const Error error =
                session.statusError(ErrorKind::Sql, "firebird: prepare " + oneLine(m_sql), e.getStatus());
            release();
            throw error;
        }
    }
    ~FirebirdInsert() override {
        rollbackOwn();
        releaseBatch();
        release();
    }

    // The rows added so far, executed in `transaction` (before it commits).
    void flush(Firebird::ITransaction* transaction) override {
        if (!m_batch || m_pendingRows == 0) {
            return;
        }
        auto& st = m_session.status();
        auto* table = static_cast<BatchVTable*>(m_batch->cloopVTable);
        ThrowStatusWrapper::clearException(&st);
        Firebird::IDisposable* state = table->execute(m_batch, &st, transaction);
        const unsigned rows = m_pendingRows;
        m_pendingRows = 0;
        m_pendingBytes = 0;
        if (st.getState() & IStatus::STATE_ERRORS) {
            throw m_session.statusError(ErrorKind::Sql, "firebird: IBatch execute of " + oneLine(m_sql), &st);
        }
        auto* completion = static_cast<BatchCompletionVTable*>(state->cloopVTable);
        const unsigned size = completion->getSize(state, &st);
        const unsigned failed = completion->findError(state, &st, 0);
        std::optional<Error> error;
        if (failed != kBatchNoMoreErrors) {
            IStatus* to = m_session.client().master()->getStatus();
            completion->getStatus(state, &st, to, failed);
            error = m_session.statusError(ErrorKind::Sql,
                                          "firebird: IBatch row " + std::to_string(failed + 1) + " of " +
                                              std::to_string(rows) + ": " + oneLine(m_sql),
                                          to);
            to->dispose();
        } else if (size != rows) {
            error = Error(ErrorKind::Sql, "firebird: IBatch executed " + std::to_string(size) + " of " +
                                              std::to_string(rows) + " rows: " + oneLine(m_sql));
        }
        state->dispose();
        if (error) {
            throw *error;
        }
    }

    void bindInteger(std::size_t index, std::int64_t value) override {
        const OutColumn& p = param(index);
        unsigned char* at = m_buffer.data() + p.offset;
        switch (p.type) {
            case SQL_SHORT:
                store(at, static_cast<std::int16_t>(value));
                break;
            case SQL_LONG:
                store(at, static_cast<std::int32_t>(value));
                break;
            case SQL_INT64:
                store(at, value);
                break;
            case SQL_BOOLEAN:
                *at = value ? 1 : 0;
                break;
            case SQL_DOUBLE:
                store(at, static_cast<double>(value));
                break;
            default:
                bindText(index, std::to_string(value));
                return;
        }
        setNull(p, false);
    }
    void bindBoolean(std::size_t index, bool value) override {
        const OutColumn& p = param(index);
        if (p.type != SQL_BOOLEAN) {
            bindInteger(index, value ? 1 : 0);
            return;
        }
        m_buffer[p.offset] = value ? 1 : 0;
        setNull(p, false);
    }
    void bindNull(std::size_t index) override { setNull(param(index), true); }
    void bindText(std::size_t index, std::string_view utf8) override { bindBytes(index, utf8); }
    void bindBytes(std::size_t index, std::string_view bytes) override {
        const OutColumn& p = param(index);
        unsigned char* at = m_buffer.data() + p.offset;
        auto& st = m_session.status();
        switch (p.type) {
            case SQL_VARYING:
                if (bytes.size() > p.length) {
                    throw tooLong(index, bytes.size(), p.length);
                }
                store(at, static_cast<std::uint16_t>(bytes.size()));
                std::memcpy(at + 2, bytes.data(), bytes.size());
                break;
            case SQL_TEXT:
                if (bytes.size() > p.length) {
                    throw tooLong(index, bytes.size(), p.length);
                }
                std::memset(at, ' ', p.length);
                std::memcpy(at, bytes.data(), bytes.size());
                break;
            case SQL_BLOB:
                if (m_batch) {
                    addBatchBlob(reinterpret_cast<ISC_QUAD*>(at), bytes);
                    break;
                }
                try {
                    auto* id = reinterpret_cast<ISC_QUAD*>(at);
                    Firebird::IBlob* blob = m_session.attachment()->createBlob(&st, transaction(), id, 0, nullptr);
                    constexpr std::size_t chunk = 65535;  // the largest segment the API takes
                    try {
                        for (std::size_t done = 0; done < bytes.size(); done += chunk) {
                            const std::size_t n = std::min(chunk, bytes.size() - done);
                            blob->putSegment(&st, static_cast<unsigned>(n), bytes.data() + done);
                        }
                    } catch (...) {
                        blob->release();
                        throw;
                    }
                    blob->close(&st);
                } catch (const FbException& e) {
                    throw m_session.statusError(ErrorKind::Sql, "firebird: write BLOB parameter", e.getStatus());
                }
                break;
            default:
                throw Error(ErrorKind::Data, "firebird: parameter " + std::to_string(index + 1) +
                                                 " does not take text (SQL type " + std::to_string(p.type) + ")");
        }
        setNull(p, false);
    }
    void execute() override {
        auto& st = m_session.status();
        if (m_batch) {
            auto* table = static_cast<BatchVTable*>(m_batch->cloopVTable);
            ThrowStatusWrapper::clearException(&st);
            table->add(m_batch, &st, 1, m_buffer.data());
            if (st.getState() & IStatus::STATE_ERRORS) {
                throw m_session.statusError(ErrorKind::Sql, "firebird: IBatch add: " + oneLine(m_sql), &st);
            }
            ++m_pendingRows;
            m_pendingBytes += m_buffer.size();
            if (Firebird::ITransaction* current = m_session.currentTransaction()) {
                if (m_pendingBytes >= kBatchFlushBytes) {
                    flush(current);
                }
                return;
            }
            // No explicit transaction: each row commits on its own, as execute() does.
            OwnTransaction tx(m_session);
            flush(tx.get());
            tx.commit();
            return;
        }
        try {
            m_statement->execute(&st, transaction(), m_meta, m_buffer.data(), nullptr, nullptr);
            if (m_ownTransaction) {
                m_ownTransaction->commit(&st);
                m_ownTransaction = nullptr;
            }
        } catch (const FbException& e) {
            throw m_session.statusError(ErrorKind::Sql, "firebird: " + oneLine(m_sql), e.getStatus());
        }
    }

private:
    void createBatch() {
        auto& st = m_session.status();
        Releaser<Firebird::IXpbBuilder> pb{m_session.client().util()->getXpbBuilder(&st, kXpbBatch, nullptr, 0)};
        pb.object->insertInt(&st, kBatchTagRecordCounts, 1);
        pb.object->insertInt(&st, kBatchTagBlobPolicy, kBatchBlobIdEngine);
        pb.object->insertInt(&st, kBatchTagBufferBytesSize, kBatchBufferBytes);
        auto* table = static_cast<StatementVTableV6*>(m_statement->cloopVTable);
        ThrowStatusWrapper::clearException(&st);
        void* batch =
            table->createBatch(m_statement, &st, m_meta, pb.object->getBufferLength(&st), pb.object->getBuffer(&st));
        ThrowStatusWrapper::checkException(&st);
        m_batch = static_cast<Firebird::IReferenceCounted*>(batch);
        m_session.setPendingInserts(this);
    }
    // A BLOB of the batch: the engine assigns its id when the batch executes. Up to 64 KiB as one
    // segment (as putSegment writes them), longer ones as a stream BLOB.
    void addBatchBlob(ISC_QUAD* id, std::string_view bytes) {
        auto& st = m_session.status();
        auto* table = static_cast<BatchVTable*>(m_batch->cloopVTable);
        static const unsigned char stream[] = {isc_bpb_version1, isc_bpb_type, 1, isc_bpb_type_stream};
        const bool large = bytes.size() > 65535;
        ThrowStatusWrapper::clearException(&st);
        table->addBlob(m_batch, &st, static_cast<unsigned>(bytes.size()), bytes.data(), id,
                       large ? static_cast<unsigned>(sizeof stream) : 0, large ? stream : nullptr);
        if (st.getState() & IStatus::STATE_ERRORS) {
            throw m_session.statusError(ErrorKind::Sql, "firebird: IBatch addBlob", &st);
        }
        m_pendingBytes += bytes.size();
    }
    void discard() noexcept override {
        if (!m_batch || m_pendingRows == 0) {
            return;
        }
        IStatus* raw = m_session.client().master()->getStatus();
        static_cast<BatchVTable*>(m_batch->cloopVTable)->cancel(m_batch, raw);
        raw->dispose();
        m_pendingRows = 0;
        m_pendingBytes = 0;
    }
    void releaseBatch() noexcept {
        if (!m_batch) {
            return;
        }
        m_session.forgetPendingInserts(this);
        m_batch->release();  // rows not executed are dropped with it
        m_batch = nullptr;
    }
    template <typename T>
    static void store(unsigned char* at, T value) {
        std::memcpy(at, &value, sizeof value);
    }
    const OutColumn& param(std::size_t index) const {
        if (index >= m_params.size()) {
            throw Error(ErrorKind::Internal, "firebird: parameter " + std::to_string(index + 1) + " of " +
                                                 std::to_string(m_params.size()) + " in " + oneLine(m_sql));
        }
        return m_params[index];
    }
    void setNull(const OutColumn& p, bool isNull) {
        store(m_buffer.data() + p.nullOffset, static_cast<std::int16_t>(isNull ? -1 : 0));
    }
    Error tooLong(std::size_t index, std::size_t size, unsigned limit) const {
        return Error(ErrorKind::Data, "firebird: parameter " + std::to_string(index + 1) + ": " + std::to_string(size) +
                                          " bytes do not fit in " + std::to_string(limit));
    }
    // BLOBs must be created in the transaction that executes the INSERT.
    Firebird::ITransaction* transaction() {
        if (auto* t = m_session.currentTransaction()) {
            return t;
        }
        if (!m_ownTransaction) {
            m_ownTransaction = m_session.startTransaction();
        }
        return m_ownTransaction;
    }
    void rollbackOwn() noexcept {
        if (!m_ownTransaction) {
            return;
        }
        IStatus* raw = m_session.client().master()->getStatus();
        Firebird::CheckStatusWrapper st(raw);
        m_ownTransaction->rollback(&st);
        if (st.hasData()) {
            m_ownTransaction->release();
        }
        raw->dispose();
        m_ownTransaction = nullptr;
    }
    void release() noexcept {
        if (m_meta) {
            m_meta->release();
            m_meta = nullptr;
        }
        if (m_statement) {
            // free, not just release: the server keeps a released statement until detach.
            IStatus* raw = m_session.client().master()->getStatus();
            Firebird::CheckStatusWrapper st(raw);
            m_statement->free(&st);
            if (st.hasData()) {
                m_statement->release();
            }
            raw->dispose();
            m_statement = nullptr;
        }
    }

    FirebirdSession& m_session;
    std::string m_sql;
    Firebird::IStatement* m_statement = nullptr;
    Firebird::IMessageMetadata* m_meta = nullptr;
    Firebird::ITransaction* m_ownTransaction = nullptr;
    std::vector<OutColumn> m_params;
    std::vector<unsigned char> m_buffer;
    Firebird::IReferenceCounted* m_batch = nullptr;  // an IBatch (insert_method=ibatch)
    unsigned m_pendingRows = 0;
    std::size_t m_pendingBytes = 0;
};

}  // namespace

std::unique_ptr<InsertStatement> FirebirdSession::prepareInsert(std::string_view sql) {
    return std::make_unique<FirebirdInsert>(*this, std::string(sql));
}

}  // namespace blobbench::firebird
