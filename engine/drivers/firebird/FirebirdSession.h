#pragma once

#include <firebird/Interface.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/Error.h"
#include "engine/drivers/Driver.h"
#include "engine/drivers/firebird/FirebirdClient.h"

namespace blobbench::firebird {

// Rows an insert statement holds back (an IBatch) until the transaction ends.
class PendingInserts {
public:
    virtual ~PendingInserts() = default;
    virtual void flush(Firebird::ITransaction* transaction) = 0;
    virtual void discard() noexcept = 0;  // the transaction rolls back: the rows go with it
};

// One attachment. Owns at most one explicit transaction (begin/commit/rollback); query() and
// execute() outside it run in a transaction of their own.
class FirebirdSession final : public Session {
public:
    // Attaches; throws Error(Connect) with Firebird's own words. Never leaves an attachment behind.
    FirebirdSession(std::shared_ptr<FirebirdClient> client, const ConnectionSpec& spec, const ParameterValues& values);
    ~FirebirdSession() override;
    FirebirdSession(const FirebirdSession&) = delete;
    FirebirdSession& operator=(const FirebirdSession&) = delete;

    const SessionInfo& info() const override { return m_info; }
    Dialect dialect() const override { return Dialect::Firebird; }

    void execute(std::string_view sql) override;
    QueryStats query(const QuerySpec& spec, RowSink& sink, const CancelToken& cancel) override;

    void begin() override;
    void commit() override;
    void rollback() override;
    std::unique_ptr<InsertStatement> prepareInsert(std::string_view sql) override;
    bool tableExists(std::string_view name) override;
    void cancel() override;

    // For the insert statement and tests.
    Firebird::IAttachment* attachment() const { return m_attachment; }
    Firebird::ThrowStatusWrapper& status() { return m_status; }
    const FirebirdClient& client() const { return *m_client; }
    const FbVersion& serverVersion() const { return m_serverVersion; }
    bool wireCountersAvailable() const { return m_wireCounters; }

    // Firebird's status as one line, classified (Cancelled when the server says so).
    Error statusError(ErrorKind kind, const std::string& context, Firebird::IStatus* status) const;

    // The explicit transaction, or a new one that the caller must end.
    Firebird::ITransaction* startTransaction(bool readOnly = false);  // readOnly: isc_tpb_read (query())
    Firebird::ITransaction* currentTransaction() const { return m_transaction; }

    // insert_method=ibatch and both sides >= 4.0: prepareInsert's statements send IBatch messages.
    bool batchInserts() const { return m_batchInserts; }
    // The statement whose batch commit() must execute first (nullptr: none).
    void setPendingInserts(PendingInserts* pending) { m_pending = pending; }
    void forgetPendingInserts(const PendingInserts* pending) {
        if (m_pending == pending) {
            m_pending = nullptr;
        }
    }

    // First row of a query, every column as text (NULL: nullopt). For small internal questions.
    std::vector<std::optional<std::string>> firstRow(const std::string& sql);

private:
    struct Counters {
        WireCounters logical;
        WireCounters physical;
    };
    std::optional<Counters> readWireCounters();
    // FirebirdSessionSettings.cpp: what the attachment really got, step by step.
    void readBackSettings(const ParameterValues& values);
    unsigned readVersionsAndFlags();  // the connection flags (compression, encryption), or 0
    void readServerContext();
    void linkEffects(const ParameterValues& values, bool compressed, bool encrypted);
    void inlineBlobEffects(const ParameterValues& values);
    void timeoutEffects(const ParameterValues& values);
    void insertMethodEffect(const ParameterValues& values);
    void wireCountersAvailability();
    std::vector<ParameterEffect> applyStatementTunables(Firebird::IStatement* statement,
                                                        const ParameterValues& requested);
    bool inlineBlobsPossible() const;
    std::string inlineReason() const;
    void detach() noexcept;

    std::shared_ptr<FirebirdClient> m_client;
    Firebird::ThrowStatusWrapper m_status;
    Firebird::IAttachment* m_attachment = nullptr;
    Firebird::ITransaction* m_transaction = nullptr;
    SessionInfo m_info;
    FbVersion m_serverVersion;
    std::vector<unsigned char> m_tpb;
    std::vector<unsigned char> m_bpb;  // empty when empty_bpb
    std::vector<char> m_segment;       // reused getSegment buffer
    bool m_wireCounters = false;
    std::string m_wireCountersReason;
    std::atomic<bool> m_cancelRequested{false};
    bool m_batchInserts = false;
    PendingInserts* m_pending = nullptr;
};

}  // namespace blobbench::firebird
