#pragma once

// The "SQLite vs one file per BLOB" study: write M values (default 100,000 of 10 kB +- 2 kB,
// incompressible) into a SQLite table and into a files store, read them back by key in ascending or
// seeded random order (SQL, blob API, both with mmap, files open/read/close), rewrite them in random
// order, and compare disk footprints. Every read path is checked byte-exact in an untimed pass.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/storage/FileStore.h"
#include "engine/storage/StorageValues.h"

namespace blobbench::storage {

struct KeyedOptions {
    std::filesystem::path directory;  // work directory: store.sqlite and files/ are created in it
    std::uint64_t count = 100000;
    ValueShape shape;
    FileLayout layout = FileLayout::Tree;
    bool fsync = false;               // files: fsync every write
    std::string journalMode = "wal";  // SQLite
    std::string synchronous = "normal";
    std::int64_t pageSize = 4096;
    std::int64_t mmapSize = 0x7fff0000;  // bytes, for the mmap read variants: SQLite's usual cap, ~2 GB
    bool ascending = true;               // read in ascending key order
    bool random = true;                  // read in random key order
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
    std::string error;               // empty when complete; the results so far are kept
    bool complete() const { return error.empty(); }
};

// Usage errors (zero or absurd sizes, bad pragmas) are thrown before anything is written; later
// failures (disk full, read-only directory, a missing key) end the run with report.error set.
KeyedReport runKeyedStudy(const KeyedOptions& options);

// Compares a read value with the expected one; empty when identical, else what differs.
std::string compareValue(std::uint64_t key, const std::string& expected, const std::string& actual);

}  // namespace blobbench::storage
