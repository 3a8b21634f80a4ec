#pragma once

// The "LOB insert throughput" study: N rows (default 100,000) of one S-byte value (default 4,402,
// the CLOB of the BasicFile/SecureFile study), text or incompressible bytes, committed once or every
// K rows, on SQLite, PostgreSQL and Firebird with each engine's storage variants. Reports inserts/s,
// MB/s, time per commit and the storage used afterwards; variants an engine or client cannot run
// are listed as not in effect with the reason, never measured as something else.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/CancelToken.h"
#include "engine/core/Sample.h"
#include "engine/drivers/Driver.h"

namespace blobbench::storage {

struct InsertOptions {
    std::uint64_t rows = 100000;
    std::uint64_t valueBytes = 4402;
    bool text = true;               // printable text (a CLOB); false: incompressible bytes
    bool compressible = false;      // with text: prose-like words that pglz/lz4 shrink (else random letters)
    std::uint64_t commitEvery = 0;  // 0: one transaction for all rows
    std::uint64_t seed = 20261130;
    bool verify = true;                 // read every row back (untimed) and compare byte-exact
    std::vector<std::string> variants;  // empty: every variant of the engine; else names to run
    // SQLite only
    std::string journalMode = "wal";
    std::string synchronous = "normal";
    std::int64_t pageSize = 4096;
    // Firebird only: each variant runs in a database of its own created beside the target's file
    // (bb_storage_<variant>.fdb, dropped afterwards) with this page size; 0: the driver's default.
    std::int64_t firebirdPageSize = 0;
    std::function<void(const std::string&)> progress;
    // Polled between rows: a cancel ends the variant in progress (its result says so), removes what it
    // made where it can, and runs no further variant.
    CancelToken cancel;
};

struct InsertResult {
    std::string engine;   // sqlite | postgres | firebird
    std::string variant;  // short name, e.g. "bytea-lz4"
    std::string how;      // what was run, in words
    bool inEffect = true;
    std::string reason;  // why not in effect
    std::uint64_t rows = 0;
    std::uint64_t bytes = 0;
    Nanos elapsed{0};  // all inserts and commits
    std::uint64_t commits = 0;
    Nanos commitTime{0};  // inside commit calls
    std::optional<std::uint64_t> storageBytes;
    std::string storageHow;
    std::string check = "not checked";
    bool partial = false;
    std::string error;
    bool cancelled = false;  // a cancel ended it (error is "cancelled")
    std::string left;        // after a cancel or a failure: what it made and could not remove, and how to; or empty
    std::string disturbed;   // the client was stopped or suspended during the timed inserts (ClientPause.h); or empty

    double insertsPerSecond() const;
    double megabytesPerSecond() const;
    double millisPerCommit() const;  // elapsed / commits: K rows and their commit
};

// Variant names per engine, in run order.
std::vector<std::string> insertVariants(const std::string& engine);

// SQLite: one fresh file per variant in `directory`. Usage errors throw; run errors are kept in the
// result (error, partial) and the next variant runs. An insert-<variant>.sqlite already there is
// replaced only when an earlier run of the study wrote it (the directory's mark lists the variant);
// else it is refused.
std::vector<InsertResult> runSqliteInserts(const std::filesystem::path& directory, const InsertOptions& options,
                                           const std::function<void(const InsertResult&)>& done = {});

// PostgreSQL or Firebird through the engine's driver (spec.engine), a table BB_STORAGE_INSERT that
// is dropped and created per variant and dropped afterwards (on Firebird in a database of each
// variant's own, see firebirdPageSize). Connection failures throw. The study marks what it creates
// (the table's comment on PostgreSQL, the database's description on Firebird) and replaces only what
// bears its mark: a table bb_storage_insert or a database bb_storage_<variant>.fdb of someone else's
// is refused with Error(Usage) naming it, before any variant runs.
std::vector<InsertResult> runServerInserts(const ConnectionSpec& spec, const ParameterValues& parameters,
                                           const InsertOptions& options,
                                           const std::function<void(const InsertResult&)>& done = {});

void checkInsertOptions(const InsertOptions& options);
// Error(Usage) when `directory` holds an insert-<variant>.sqlite* of a variant to run that no run of
// the study wrote (the directory's mark does not list the variant); runSqliteInserts() checks it too.
void checkSqliteInsertDirectory(const std::filesystem::path& directory, const InsertOptions& options);

// The files runSqliteInserts() writes or replaces in `directory` (each variant's database with its
// -wal, -shm and -journal, and the mark), for a caller that must not put a file of its own there.
std::vector<std::filesystem::path> sqliteInsertFiles(const std::filesystem::path& directory,
                                                     const InsertOptions& options);

}  // namespace blobbench::storage
