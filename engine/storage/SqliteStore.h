#pragma once

// The SQLite side of the storage study: one table kv(id INTEGER PRIMARY KEY, v BLOB) in a file, read
// by key through SQL (prepared once, bind, step, column_blob) or the incremental blob API
// (sqlite3_blob_open once, then sqlite3_blob_reopen), with a configurable mmap_size. Plain sqlite3.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;
struct sqlite3_blob;

namespace blobbench::storage {

struct SqliteStoreOptions {
    std::string path;
    std::string journalMode = "wal";     // delete | truncate | persist | memory | wal | off
    std::string synchronous = "normal";  // off | normal | full | extra
    std::int64_t pageSize = 4096;        // applies to a new file only
    std::int64_t mmapSize = 0;           // bytes; 0: no mmap
};

class SqliteStore {
public:
    // Opens (creating) the file and the table; applies and reads back the pragmas.
    explicit SqliteStore(const SqliteStoreOptions& options);
    ~SqliteStore();
    SqliteStore(const SqliteStore&) = delete;
    SqliteStore& operator=(const SqliteStore&) = delete;

    // The pragmas as SQLite reports them after being set: (name, requested, actual).
    struct Effect {
        std::string name, requested, actual;
    };
    const std::vector<Effect>& effects() const { return m_effects; }

    void begin();
    void commit();
    void rollback() noexcept;

    void insert(std::uint64_t key, std::string_view bytes);          // bind the value
    void insertZeroblob(std::uint64_t key, std::string_view bytes);  // zeroblob(n), then sqlite3_blob_write
    // Rewrites an existing value; Error(Data) when the key does not exist.
    void update(std::uint64_t key, std::string_view bytes);

    // Error(Data) naming the key when it does not exist.
    void readSql(std::uint64_t key, std::string& out);
    void readBlob(std::uint64_t key, std::string& out);

    // page_count * page_size: what the file holds (the WAL is checkpointed first).
    std::uint64_t footprint();
    std::int64_t mmapSizeInEffect();

    sqlite3* handle() const { return m_db; }

private:
    void close() noexcept;
    sqlite3_stmt* prepare(const char* sql);
    [[noreturn]] void fail(const std::string& what) const;
    std::string pragma(const std::string& name, const std::string& value);

    std::string m_path;
    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_insert = nullptr;
    sqlite3_stmt* m_insertZero = nullptr;
    sqlite3_stmt* m_update = nullptr;
    sqlite3_stmt* m_select = nullptr;
    sqlite3_blob* m_readBlob = nullptr;
    sqlite3_blob* m_writeBlob = nullptr;
    std::vector<Effect> m_effects;
};

}  // namespace blobbench::storage
