#pragma once

#include <string>

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

}  // namespace blobbench
