#pragma once

#include <mysql.h>

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/Error.h"
#include "engine/drivers/Driver.h"
#include "engine/drivers/mariadb/MariadbConnectionString.h"

namespace blobbench {

// One libmariadb connection (MYSQL*, closed in the destructor whatever happened).
class MariadbSession final : public Session {
public:
    // What mysql_real_connect needs, kept so that cancel() can open its own connection for KILL QUERY.
    struct Params {
        mariadb::MariadbTarget target;
        std::string user;
        std::string password;
        bool hasPassword = false;
        bool compress = false;
        unsigned connectTimeout = 0;
        unsigned long maxAllowedPacket = 0;  // the client's; 0: libmariadb's default
        unsigned long netBufferLength = 0;   // the client's; 0: libmariadb's default
    };

    MariadbSession(Params params, std::string label, ParameterValues values);
    ~MariadbSession() override;
    MariadbSession(const MariadbSession&) = delete;
    MariadbSession& operator=(const MariadbSession&) = delete;

    // Connects, applies the session tunables and reads back what is in effect. Throws Error(Connect).
    void start();

    const SessionInfo& info() const override { return m_info; }
    Dialect dialect() const override { return Dialect::MariaDB; }

    void execute(std::string_view sql) override;
    QueryStats query(const QuerySpec& spec, RowSink& sink, const CancelToken& cancel) override;

    void begin() override;
    void commit() override;
    void rollback() override;
    std::unique_ptr<InsertStatement> prepareInsert(std::string_view sql) override;
    bool tableExists(std::string_view name) override;
    void cancel() override;
    std::string inProcessCountingBlind() const override;

    // For MariadbInsert and the fetchers.
    MYSQL* connection() const { return m_conn; }
    const std::string& label() const { return m_label; }
    std::string scrub(std::string text) const;
    Error error(const std::string& what, unsigned code, const std::string& message) const;
    Error connectionError(const std::string& what) const;
    Error statementError(const std::string& what, MYSQL_STMT* stmt) const;
    bool cancelRequested() const { return m_cancelRequested.load(); }

    // The client library's byte counters (MARIADB_CONNECTION_BYTES_READ / _SENT), when it has them.
    struct ClientBytes {
        std::uint64_t read = 0;
        std::uint64_t sent = 0;
    };
    std::optional<ClientBytes> clientBytes() const;

private:
    struct ServerBytes {
        std::uint64_t received = 0;
        std::uint64_t sent = 0;
        std::optional<bool> readOnly;  // the session's transaction mode (tx_read_only)
    };

    static MYSQL* open(const Params& params);
    void run(const std::string& sql, const char* what);
    std::optional<std::string> scalar(const std::string& sql, const char* what, int column = 0);
    bool inTransaction() const;
    void setReadOnly(bool readOnly);
    // A transaction open that begin() did not open (the setup SQL's START TRANSACTION): rolled back and refused.
    void refuseTransactionLeftOpen(const char* what);
    ServerBytes serverBytes();

    Params m_params;
    MYSQL* m_conn = nullptr;
    std::string m_label;
    ParameterValues m_values;
    StatementValues m_statementValues;  // the values of the last statement's tunables
    SessionInfo m_info;
    unsigned long m_threadId = 0;
    std::atomic<bool> m_cancelRequested{false};
    bool m_readOnly = false;
    bool m_reading = false;
    int m_liveInserts = 0;
    bool m_callerTransaction = false;  // begin() opened the transaction in progress
    // The server's Bytes_received / Bytes_sent at the end of the last query (or of start()), and what
    // one SHOW SESSION STATUS exchange adds to them (measured at start()).
    ServerBytes m_serverBefore;
    ServerBytes m_statusCost;
    friend class MariadbInsert;
};

}  // namespace blobbench
