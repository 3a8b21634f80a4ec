#include "engine/drivers/firebird/Fb9060Check.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <thread>

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "engine/drivers/firebird/FirebirdColumns.h"
#include "engine/drivers/firebird/FirebirdConstants.h"
#include "engine/drivers/firebird/FirebirdSession.h"

namespace blobbench {
namespace {

using firebird::FbVersion;
using firebird::FirebirdSession;
using firebird::kSqlDialect;
using firebird::load;
using firebird::Releaser;

std::string hexId(const ISC_QUAD& id) {
    char text[24];
    std::snprintf(text, sizeof text, "%08x:%08x", static_cast<unsigned>(id.gds_quad_high),
                  static_cast<unsigned>(id.gds_quad_low));
    return text;
}

// A statement with a cursor, fetched once and (for the probes) left open, as the report's
// application left its record-exists checks open across the UPDATE that follows them.
class OpenCursor {
public:
    OpenCursor(FirebirdSession& session, const std::string& sql) : m_session(session) {
        auto& st = session.status();
        auto* master = session.client().master();
        Firebird::ITransaction* tx = session.currentTransaction();
        // Set in place: a Releaser assigned from a temporary would free the object with the temporary.
        m_statement.master = master;
        m_statement.object = session.attachment()->prepare(&st, tx, 0, sql.c_str(), kSqlDialect,
                                                           Firebird::IStatement::PREPARE_PREFETCH_METADATA);
        m_meta.object = m_statement.object->getOutputMetadata(&st);
        m_row.resize(m_meta.object->getMessageLength(&st));
        m_cursor.master = master;
        m_cursor.object = m_statement.object->openCursor(&st, tx, nullptr, nullptr, m_meta.object, 0);
        m_fetched = m_cursor.object->fetchNext(&st, m_row.data()) == Firebird::IStatus::RESULT_OK;
    }
    bool fetched() const { return m_fetched; }
    // The BLOB id in column `index` of the fetched row; nullptr when NULL.
    const ISC_QUAD* blobId(unsigned index) {
        auto& st = m_session.status();
        if (!m_fetched || load<std::int16_t>(m_row.data() + m_meta.object->getNullOffset(&st, index))) {
            return nullptr;
        }
        return reinterpret_cast<const ISC_QUAD*>(m_row.data() + m_meta.object->getOffset(&st, index));
    }
    // Closed explicitly before the transaction ends (a commit closes the server's cursor itself).
    void close() {
        auto& st = m_session.status();
        if (m_cursor.object) {
            m_cursor.take()->close(&st);
        }
        if (m_statement.object) {
            m_statement.take()->free(&st);
        }
    }

private:
    FirebirdSession& m_session;
    Releaser<Firebird::IStatement> m_statement;
    Releaser<Firebird::IMessageMetadata> m_meta;
    Releaser<Firebird::IResultSet> m_cursor;
    std::vector<unsigned char> m_row;
    bool m_fetched = false;
};

// A BLOB's content through the client: an empty BPB, so an inline copy the client holds serves it.
std::string readBlob(FirebirdSession& session, const ISC_QUAD& id) {
    auto& st = session.status();
    ISC_QUAD copy = id;
    Releaser<Firebird::IBlob> blob{
        session.attachment()->openBlob(&st, session.currentTransaction(), &copy, 0, nullptr)};
    std::string content;
    std::vector<char> buffer(65535);
    for (;;) {
        unsigned length = 0;
        const int result = blob.object->getSegment(&st, static_cast<unsigned>(buffer.size()), buffer.data(), &length);
        if (result != Firebird::IStatus::RESULT_OK && result != Firebird::IStatus::RESULT_SEGMENT) {
            break;
        }
        content.append(buffer.data(), length);
    }
    blob.take()->close(&st);
    return content;
}

// The re-read of the report: SELECT B of row 2 and its content.
std::string reread(FirebirdSession& session, const std::string& table, std::string* blobIdText) {
    OpenCursor read(session, "SELECT B FROM " + table + " WHERE ID = 2");
    const ISC_QUAD* id = read.blobId(0);
    std::string content = id ? readBlob(session, *id) : std::string("<NULL>");
    if (blobIdText && id) {
        *blobIdText = hexId(*id);
    }
    read.close();
    return content;
}

void runSequence(FirebirdSession& session, const std::string& table, Fb9060Outcome& out) {
    session.begin();
    session.execute("INSERT INTO " + table + " (ID, NAME, B) VALUES (1, 'one', 'AAA-first')");
    session.execute("INSERT INTO " + table + " (ID, NAME, B) VALUES (2, 'two', NULL)");
    out.steps.emplace_back("INSERT rows 1 (B = 'AAA-first') and 2 (B = NULL), one transaction from here on");

    OpenCursor probe1(session, "SELECT FIRST 1 NAME, B FROM " + table + " WHERE ID = 1");
    if (const ISC_QUAD* id = probe1.blobId(1)) {
        out.freedBlobId = hexId(*id);
    }
    out.steps.push_back("SELECT FIRST 1 NAME, B ... WHERE ID = 1: fetched (BLOB id " + out.freedBlobId +
                        ", not opened), cursor left open");
    session.execute("UPDATE " + table + " SET NAME = 'one-b', B = NULL WHERE ID = 1");
    out.steps.emplace_back("UPDATE ... SET B = NULL WHERE ID = 1: row 1's BLOB is freed");

    OpenCursor probe2(session, "SELECT FIRST 1 NAME, B FROM " + table + " WHERE ID = 2");
    out.steps.emplace_back("SELECT FIRST 1 NAME, B ... WHERE ID = 2: fetched, cursor left open");
    session.execute("UPDATE " + table + " SET NAME = 'two-b', B = 'BBB-second' WHERE ID = 2");
    out.steps.emplace_back("UPDATE ... SET B = 'BBB-second' WHERE ID = 2: a new BLOB");

    out.got = reread(session, table, &out.newBlobId);
    out.steps.push_back("SELECT B ... WHERE ID = 2 (BLOB id " + out.newBlobId + (out.blobIdReused() ? ", reused" : "") +
                        "), same transaction: '" + out.got + "'");
    probe1.close();
    probe2.close();
    session.commit();

    session.begin();
    out.gotAfterCommit = reread(session, table, nullptr);
    session.rollback();
    out.steps.push_back("COMMIT, then SELECT B ... WHERE ID = 2 in a new transaction: '" + out.gotAfterCommit + "'");
}

// Whether Firebird refused a statement for another transaction's concurrent work on the same
// records: "deadlock -update conflicts with concurrent update", "lock conflict on no wait transaction".
bool concurrentConflict(Firebird::IStatus* status) {
    for (const intptr_t* v = status->getErrors(); v != nullptr && v[0] != isc_arg_end;
         v += v[0] == isc_arg_cstring ? 3 : 2) {
        if (v[0] == isc_arg_gds && (v[1] == isc_deadlock || v[1] == isc_update_conflict || v[1] == isc_lock_conflict)) {
            return true;
        }
    }
    return false;
}

// CREATE / DROP of the check's table in a transaction of its own. Two checks at once (two names)
// still meet in the system tables, which each DDL's commit updates: the second one is refused with
// "deadlock -update conflicts with concurrent update". Such a refusal is retried after a short random
// pause, a few times; any other error is thrown at once, as execute() says it.
void executeDdl(FirebirdSession& session, const std::string& sql) {
    if (session.currentTransaction() != nullptr) {
        session.execute(sql);
        return;
    }
    std::mt19937 random(std::random_device{}());
    std::uniform_int_distribution<int> pause(20, 250);
    constexpr int kAttempts = 12;
    for (int attempt = 1;; ++attempt) {
        auto& st = session.status();
        Firebird::ITransaction* tx = nullptr;
        try {
            tx = session.startTransaction();
            session.attachment()->execute(&st, tx, static_cast<unsigned>(sql.size()), sql.c_str(), kSqlDialect, nullptr,
                                          nullptr, nullptr, nullptr);
            tx->commit(&st);  // releases tx
            return;
        } catch (const Firebird::FbException& e) {
            const Error error = session.statusError(ErrorKind::Sql, "firebird: " + oneLine(sql), e.getStatus());
            if (tx != nullptr) {
                try {
                    tx->rollback(&st);
                } catch (const Firebird::FbException&) {
                    tx->release();
                }
            }
            if (attempt >= kAttempts || !concurrentConflict(e.getStatus())) {
                throw error;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(pause(random)));
    }
}

}  // namespace

Fb9060Outcome runFb9060Check(const ConnectionSpec& spec, const ParameterValues& values) {
    const Driver& driver = driverById("firebird");
    std::unique_ptr<Session> session = driver.connect(spec, resolveParameters(driver.parameters(), values));
    auto* fb = dynamic_cast<FirebirdSession*>(session.get());
    if (fb == nullptr) {
        throw Error(ErrorKind::Internal, "check fb9060: the Firebird driver returned another session type");
    }
    Fb9060Outcome out;
    out.serverVersion = session->info().serverVersion;
    out.clientVersion = session->info().clientVersion;
    for (const ParameterEffect& e : session->info().effects) {
        if (e.id == "max_inline_blob_size") {
            out.inlineSize = e.inEffect ? e.actual : e.reason;
            out.inlineInEffect = e.inEffect && !e.actual.empty() && e.actual != "0";
        }
    }
    // Its own table, named by the run: a check never writes into the reference tables, two checks at
    // once do not meet, and CREATE (not RECREATE) never replaces a table it did not make.
    out.table = fb9060TableName();
    const std::string context = spec.label() + ": check fb9060: ";
    try {
        executeDdl(*fb, "CREATE TABLE " + out.table +
                            " (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(20), B BLOB SUB_TYPE TEXT)");
    } catch (const Error& e) {
        throw Error(e.kind(), context + e.what());
    }
    try {
        runSequence(*fb, out.table, out);
    } catch (const Firebird::FbException& e) {
        const Error error = fb->statusError(ErrorKind::Sql, context.substr(0, context.size() - 2), e.getStatus());
        try {
            session->rollback();
            executeDdl(*fb, "DROP TABLE " + out.table);
        } catch (const Error&) {
        }
        throw error;
    } catch (const Error& e) {
        try {
            session->rollback();
            executeDdl(*fb, "DROP TABLE " + out.table);
        } catch (const Error&) {
        }
        throw Error(e.kind(), context + e.what());
    }
    try {
        executeDdl(*fb, "DROP TABLE " + out.table);
    } catch (const Error& e) {
        throw Error(e.kind(), context + "the check ran, but its table could not be dropped: " + e.what());
    }
    return out;
}

std::string fb9060TableName() {
    // The pid alone is shared by two processes in two PID namespaces (two containers, both pid 1),
    // whose checks then met on one table: a random part makes the name the run's own. At most 31
    // characters (Firebird 3's identifiers): 17 + up to 7 digits (pid_max is 2^22) + 1 + 6.
    static const std::string name = [] {
        constexpr char kDigits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        std::random_device random;
        std::uniform_int_distribution<int> pick(0, 35);
        std::string suffix;
        for (int i = 0; i < 6; ++i) {
            suffix += kDigits[pick(random)];
        }
        return "BLOBBENCH_FB9060_" + std::to_string(static_cast<long>(::getpid())) + "_" + suffix;
    }();
    return name;
}

std::string fb9060KnownVersions() {
    return "FirebirdSQL/firebird #9060 names 5.0.3 and 5.0.4 affected (reproduced with a 5.0.4 server and 5.0.3 "
           "and 5.0.4 clients; 6.0 snapshots before Alpha 1 too), fixed in 5.0.5; inline BLOBs need client and "
           "server >= 5.0.3 (protocol 19), so older versions cannot show it";
}

Fb9060Expectation fb9060Expectation(const std::string& serverVersion, const std::string& clientVersion) {
    const FbVersion server = firebird::parseFbVersion(serverVersion);
    const FbVersion client = firebird::parseFbVersion(clientVersion);
    constexpr FbVersion inlineFrom{5, 0, 3};
    constexpr FbVersion fixedIn{5, 0, 5};
    if (server < inlineFrom || client < inlineFrom) {
        return Fb9060Expectation::NoInline;
    }
    const auto affected = [&](const FbVersion& v) { return v.major == 5 && v.minor == 0 && v < fixedIn; };
    if (affected(server) && affected(client)) {
        return Fb9060Expectation::Affected;
    }
    const auto fixed = [&](const FbVersion& v) { return (v.major == 5 && v >= fixedIn) || v.major > 6; };
    if (fixed(server) && fixed(client)) {
        return Fb9060Expectation::Fixed;
    }
    return Fb9060Expectation::NotCovered;
}

const char* describe(Fb9060Expectation expectation) {
    switch (expectation) {
        case Fb9060Expectation::Affected:
            return "known affected (both sides 5.0.3 or 5.0.4)";
        case Fb9060Expectation::NoInline:
            return "not affected: no inline BLOBs (a side is older than 5.0.3)";
        case Fb9060Expectation::Fixed:
            return "fixed (both sides 5.0.5 or later)";
        case Fb9060Expectation::NotCovered:
            return "not covered by the report (one side fixed or a 6.0 build: which side holds the fix is not stated)";
    }
    return "";
}

}  // namespace blobbench
