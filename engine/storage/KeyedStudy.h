#pragma once

// The "SQLite vs one file per BLOB" study: write M values (default 100,000 of 10,000 +- 2,000 bytes,
// incompressible, the files in one flat directory: the article's) into a SQLite table and into a files
// store, read them back by key in ascending or seeded random order (SQL, blob API, both with mmap,
// files open/fstat/read/close), rewrite them in random order, and compare disk footprints.
// Every read path and order runs on connections of its own, after an untimed warm-up pass, closes
// what it opened, and is checked byte-exact in an untimed pass: the phases' order does not matter.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/storage/FileStore.h"
#include "engine/storage/SqliteStore.h"
#include "engine/storage/StorageValues.h"

namespace blobbench::storage {

// One transaction around each timed pass (as kvtest and the article), or one per value (kvtest's
// --multitrans; for the blob API that means a handle opened and closed per value).
enum class TransactionMode { Loop, PerRead };
// cold: the timed pass on a connection opened for it (mmap set up afresh, SQLite's cache empty), as
// a new process would; warm: on the connection whose warm-up pass already faulted the mapping in.
enum class MappingMode { Cold, Warm };
// The read paths, in the default order of the phases.
enum class ReadPath { Sql, Blob, SqlMmap, BlobMmap, Files };

const char* transactionName(TransactionMode mode);  // "loop" | "per-read"
const char* mappingName(MappingMode mode);          // "cold" | "warm"
const char* pathName(ReadPath path);                // "sql", "blob api", "sql + mmap", "blob api + mmap", "files"
const char* pathOption(ReadPath path);              // "sql", "blob", "sql-mmap", "blob-mmap", "files"
// A comma-separated list of pathOption names; Error(Usage) naming the unknown one.
std::vector<ReadPath> parsePaths(const std::string& list);

struct KeyedOptions {
    std::filesystem::path directory;  // work directory: store.sqlite and files/ are created in it
    std::uint64_t count = 100000;
    ValueShape shape;
    FileLayout layout = FileLayout::Flat;
    bool fsync = false;               // files: fsync every write
    std::string journalMode = "wal";  // SQLite
    std::string synchronous = "normal";
    std::int64_t pageSize = 4096;
    std::int64_t mmapSize = 0x7fff0000;  // bytes, for the mmap read variants: SQLite's usual cap, ~2 GB
    std::int64_t cacheSize = 1000;       // PRAGMA cache_size of the read connections: kvtest's 1,000 pages
    TransactionMode transaction = TransactionMode::Loop;
    MappingMode mapping = MappingMode::Cold;
    bool copyValues = false;  // copy every value into a std::string instead of reading it in place
    bool warmup = true;       // an untimed pass over the same keys before each timed one
    std::vector<ReadPath> paths = {ReadPath::Sql, ReadPath::Blob, ReadPath::SqlMmap, ReadPath::BlobMmap,
                                   ReadPath::Files};
    bool ascending = true;     // read in ascending key order
    bool random = true;        // read in random key order
    bool randomFirst = false;  // with both orders: the random passes first
    bool reads = true;
    bool updates = true;
    bool verify = true;
    std::uint64_t orderSeed = 1;
    std::function<void(const std::string&)> progress;  // phase names as they start; may be empty
};

struct KeyedResult {
    std::string phase;    // write | read | update
    std::string store;    // sqlite | files
    std::string variant;  // how: "sql", "blob api", "sql + mmap", "open/read/close", ...
    std::string order;    // ascending | random
    std::uint64_t values = 0;
    std::uint64_t bytes = 0;
    Nanos elapsed{0};
    std::string check;     // "byte-exact" | "not checked" | what differed
    bool partial = false;  // the run stopped during this step: counts cover what was done
    // SQLite reads: the timed pass's lock calls on the database file (VFS shim) and the read
    // transactions it began (shared locks taken), and its connection ("fresh" or "warm-up's").
    LockCounts locks;
    std::string connection;
    std::string disturbed;  // the client was stopped or suspended during the timed step (ClientPause.h); or empty
    double microsPerValue() const;
    double megabytesPerSecond() const;  // 10^6 bytes
};

struct FootprintResult {
    std::uint64_t valueBytes = 0;   // the payload
    std::uint64_t sqliteBytes = 0;  // page_count * page_size
    std::uint64_t sqlitePageSize = 0;
    Footprint files;       // st_blocks * 512, like du
    double ratio() const;  // sqlite / files allocated
};

struct KeyedReport {
    std::vector<KeyedResult> results;
    std::optional<FootprintResult> footprint;
    std::vector<std::string> notes;  // pragmas in effect, cache state
    // How the reads were measured, (name, value) in the order printed: transaction, mapping, values,
    // warm-up, connections, cache_size, page_size, mmap_size, the SQLite version and compile options.
    std::vector<std::pair<std::string, std::string>> method;
    std::string error;  // empty when complete; the results so far are kept
    bool complete() const { return error.empty(); }
};

// Usage errors (zero or absurd sizes, bad pragmas) are thrown before anything is written; later
// failures (disk full, read-only directory, a missing key) end the run with report.error set.
KeyedReport runKeyedStudy(const KeyedOptions& options);

// What the study writes or replaces in its work directory: the database with its -wal, -shm and
// -journal, the mark, and the folder of files (everything under the last one).
struct KeyedStudyFiles {
    std::vector<std::filesystem::path> files;
    std::filesystem::path folder;
};
KeyedStudyFiles keyedStudyFiles(const std::filesystem::path& directory);

// Compares a read value with the expected one; empty when identical, else what differs.
std::string compareValue(std::uint64_t key, std::string_view expected, std::string_view actual);

}  // namespace blobbench::storage
