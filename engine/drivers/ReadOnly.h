#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace blobbench {

// Session::query() runs a reading statement: outside a transaction the caller opened, each driver
// runs it read-only (PostgreSQL default_transaction_read_only, Firebird isc_tpb_read, SQLite
// PRAGMA query_only), so that a DELETE ... RETURNING or a DROP TABLE in a scenario is refused
// instead of committed between its repetitions (repetition 1 read 5 rows, repetition 2 read 0).
// Writes go through execute(), begin() and prepareInsert().

// The words for such a refusal: the engine's own, then what they mean.
inline std::string refusedWrite(const std::string& engineWords) {
    return "a reading scenario runs in a read-only transaction, and the server refused a write in it (" + engineWords +
           "); a statement that changes data belongs in the scenario's setup SQL, which is not measured";
}

// A reading statement that opened a transaction and left it open (BEGIN, START TRANSACTION READ
// WRITE, SAVEPOINT): the next scenarios ran in it as in one of the caller's, their writes allowed,
// and a COMMIT kept them (hostile round 5d E2, F2, G1). It is rolled back and refused.
inline std::string refusedTransaction() {
    return "a reading scenario runs in a read-only transaction BlobBench opens and ends, and this statement opened "
           "one of its own, which is rolled back: the next scenarios would have run in it, their writes allowed";
}

// How a statement's words are read: PostgreSQL's (and Firebird's, SQLite's) quoting, or MariaDB's
// (# comments, backslash escapes, `names`, executable comments whose text is code).
enum class SqlDialect { Postgres, Mariadb };

// Why `sql` may not run as a reading statement, in one line for the user, or "" when it may. A read-only
// transaction stops most writes; it cannot stop a statement that ends it from inside (a procedure that
// commits, a DO block, MariaDB's compound statements) or runs SQL that no check can read before (MariaDB's
// PREPARE and EXECUTE). So a reading statement is a query, a write the server refuses in the read-only
// transaction itself, or a transaction statement the session rolls back and refuses after it; every other
// statement is refused before it runs.
std::string refusedReadingStatement(std::string_view sql, SqlDialect dialect);

// The setup SQL (or any statement outside the session's begin()) left a transaction of its own open: the
// measured statement would run in it, outside the read-only transaction the session opens and ends, and a
// later COMMIT would keep what it wrote. It is rolled back and refused.
inline std::string refusedOpenTransaction() {
    return "the setup SQL left a transaction of its own open (BEGIN, START TRANSACTION): the measured statement "
           "would run in it, outside the read-only transaction BlobBench opens and ends, and a later COMMIT would "
           "keep its writes; it is rolled back";
}

// Some calls write although the transaction is read-only: PostgreSQL's large-object functions
// (lo_create, lo_from_bytea, lo_unlink, ...) and Firebird's generators (GEN_ID, NEXT VALUE FOR,
// outside every transaction). The name of the first such call in `sql` (outside comments, string
// literals and quoted names; case-insensitive; a multi-word name is its words in a row), else "".
std::string writingCallIn(std::string_view sql, std::initializer_list<std::string_view> calls,
                          SqlDialect dialect = SqlDialect::Postgres);

// The first call of `sql` that writes where the engine's read-only transaction does not stop it (large
// objects, SQL held in a string, replication slots, files on the server, generators, session-level
// locks), as the one line refusing it; "" when there is none.
std::string refusedPostgresCall(std::string_view sql);
std::string refusedMariadbCall(std::string_view sql);
std::string refusedFirebirdCall(std::string_view sql);

// The words for refusing such a call before it runs: why it would write, and where it belongs.
inline std::string refusedWritingCall(const std::string& call, const std::string& why) {
    return "a reading scenario must not write, and " + call + " can write even in a read-only transaction (" + why +
           "); a statement that changes data belongs in the scenario's setup SQL, which is not measured";
}

}  // namespace blobbench
