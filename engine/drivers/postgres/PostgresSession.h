#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "engine/drivers/Driver.h"
#include "engine/drivers/postgres/PgCommon.h"

namespace blobbench {

class PostgresInsert;

// One libpq connection. Owns the PGconn (finished in the destructor, whatever happened) and a PGcancel
// handle made at connect time so that cancel() can run on another thread.
class PostgresSession final : public Session {
public:
    // Takes ownership of `conn` even when it is a failed connection, so the caller can throw and still
    // have it finished. `secrets` are scrubbed from every message.
    PostgresSession(PGconn* conn, std::string label, std::vector<std::string> secrets, ParameterValues values);
    ~PostgresSession() override;
    PostgresSession(const PostgresSession&) = delete;
    PostgresSession& operator=(const PostgresSession&) = delete;

    // Applies the session tunables and reads back what is in effect. Throws Error(Connect).
    void start();

    const SessionInfo& info() const override { return m_info; }
    Dialect dialect() const override { return Dialect::PostgreSQL; }

    void execute(std::string_view sql) override;
    QueryStats query(const QuerySpec& spec, RowSink& sink, const CancelToken& cancel) override;

    void begin() override;
    void commit() override;
    void rollback() override;
    std::unique_ptr<InsertStatement> prepareInsert(std::string_view sql) override;
    bool tableExists(std::string_view name) override;
    void cancel() override;

    // For PostgresInsert and the driver.
    PGconn* connection() const { return m_conn; }
    const ParameterValues& values() const { return m_values; }
    std::string scrub(std::string text) const;
    Error sqlError(const std::string& what, const PGresult* result) const;
    pg::Result run(const std::string& sql, const char* what, bool tuplesExpected = false);
    void setOpenWriter(PostgresInsert* writer) { m_openWriter = writer; }
    void writerGone(PostgresInsert* writer);
    void finishOtherWriter(PostgresInsert* writer);
    // A COPY or pipeline that failed while its statement was destroyed: reported by the next call.
    void deferWriterError(const Error& error) { m_writerError = error.what(); }
    void insertClosed() { --m_liveInserts; }  // from ~PostgresInsert

private:
    struct FetchPlan;
    class RowDelivery;

    void finishOpenWriter();
    // default_transaction_read_only for the statements that follow: on for query() (a reading
    // statement), off before execute(), begin() and prepareInsert(). Only a change costs a round trip.
    void setReadOnly(bool readOnly);
    void requestServerCancel();
    // A transaction open that begin() did not open (the setup SQL's BEGIN): rolled back and refused.
    void refuseTransactionLeftOpen(const char* what);
    void applyColumnTunables(std::string_view insertSql);
    void fetch(const FetchPlan& plan, RowDelivery& delivery, QueryStats& stats, const CancelToken& cancel,
               bool needsTransaction);
    void fetchStreaming(const FetchPlan& plan, RowDelivery& delivery, QueryStats& stats, const CancelToken& cancel);
    void fetchCursor(const FetchPlan& plan, RowDelivery& delivery, QueryStats& stats, const CancelToken& cancel);

    PGconn* m_conn;
    PGcancel* m_cancelHandle = nullptr;
    std::string m_label;
    std::vector<std::string> m_secrets;
    ParameterValues m_values;
    StatementValues m_statementValues;  // the values of the last statement's tunables
    SessionInfo m_info;
    std::atomic<bool> m_cancelRequested{false};
    PostgresInsert* m_openWriter = nullptr;  // a COPY or pipeline in progress, finished before anything else
    int m_insertCounter = 0;
    int m_liveInserts = 0;             // InsertStatements not yet destroyed: they write in autocommit
    bool m_readOnly = true;            // as start() and setReadOnly() set it (the server reports it from 14 on)
    bool m_callerTransaction = false;  // begin() opened the transaction in progress
    bool m_reading = false;            // in query(), read-only: a refused write is named as the reading statement's
    std::string m_writerError;
};

}  // namespace blobbench
