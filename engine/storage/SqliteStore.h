#pragma once

// The SQLite side of the storage study: one table kv(id INTEGER PRIMARY KEY, v BLOB) in a file, read
// by key through SQL (prepared once, bind, step, column_blob) or the incremental blob API
// (sqlite3_blob_open once, then sqlite3_blob_reopen; or open and close per value), with a configurable
// mmap_size and cache_size. Plain sqlite3. Every connection goes through a VFS shim over the default
// one that counts the lock calls on the database file (xLock, xUnlock, xShmLock): the study reports
// them per pass, which is how it shows what its transactions were.

#include <cstdint>
#include <optional>
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
    std::string journalMode = "wal";        // delete | truncate | persist | memory | wal | off
    std::string synchronous = "normal";     // off | normal | full | extra
    std::int64_t pageSize = 4096;           // applies to a new file only
    std::int64_t mmapSize = 0;              // bytes; 0: no mmap
    std::optional<std::int64_t> cacheSize;  // PRAGMA cache_size (pages; negative: KiB); empty: SQLite's default
};

// Lock calls on one connection's database file, counted by the VFS shim since the connection opened.
struct LockCounts {
    std::uint64_t lock = 0;         // xLock
    std::uint64_t unlock = 0;       // xUnlock
    std::uint64_t shmLock = 0;      // xShmLock (WAL: read marks, writer, checkpointer)
    std::uint64_t sharedTaken = 0;  // xLock(SHARED) + xShmLock(LOCK|SHARED): a read transaction begins with one
    std::uint64_t calls() const { return lock + unlock + shmLock; }
    LockCounts operator-(const LockCounts& before) const {
        return {lock - before.lock, unlock - before.unlock, shmLock - before.shmLock, sharedTaken - before.sharedTaken};
    }
    bool operator==(const LockCounts&) const = default;
};

// How the blob API path moves between rows: one handle reopened on every key (one read transaction
// for as long as the handle is open), or a handle opened and closed for every value.
enum class BlobHandle { Reopen, OpenPerRead };

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

    // Copying reads: the value into `out`. readSql resets its statement before returning; readBlob
    // keeps its handle open (and with it a read transaction) until endReads().
    // Error(Data) naming the key when it does not exist.
    void readSql(std::uint64_t key, std::string& out);
    void readBlob(std::uint64_t key, std::string& out);
    // Reads in place. SQL: the column's own pointer, valid until the next read or endReads() (the
    // statement stays stepped, holding its read transaction, until then). Blob API: sqlite3_blob_read
    // into one buffer of the store's, reused (grown, never shrunk).
    std::string_view readSqlInPlace(std::uint64_t key);
    std::string_view readBlobInPlace(std::uint64_t key, BlobHandle handle = BlobHandle::Reopen);
    // Resets the SELECT and closes the read blob handle: no read transaction of this store's reads
    // stays open (in autocommit mode).
    void endReads() noexcept;

    // page_count * page_size: what the file holds (the WAL is checkpointed first).
    std::uint64_t footprint();
    std::int64_t mmapSizeInEffect();
    std::int64_t cacheSizeInEffect();
    LockCounts lockCounts() const;
    // No statement of this connection is mid-step and no transaction is open.
    bool idle() const;

    sqlite3* handle() const { return m_db; }

private:
    void close() noexcept;
    sqlite3_stmt* prepare(const char* sql);
    [[noreturn]] void fail(const std::string& what) const;
    [[noreturn]] void failBlobOpen(std::uint64_t key) const;
    std::string pragma(const std::string& name, const std::string& value);

    std::string m_path;
    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_insert = nullptr;
    sqlite3_stmt* m_insertZero = nullptr;
    sqlite3_stmt* m_update = nullptr;
    sqlite3_stmt* m_select = nullptr;
    bool m_selectStepped = false;
    sqlite3_blob* m_readBlob = nullptr;
    sqlite3_blob* m_writeBlob = nullptr;
    std::vector<char> m_buffer;
    std::vector<Effect> m_effects;
};

// The compile options of the linked SQLite that change what the study measures, as "NAME=value" or
// "NAME not set": DIRECT_OVERFLOW_READ, THREADSAFE, MAX_MMAP_SIZE, DEFAULT_MMAP_SIZE,
// DEFAULT_CACHE_SIZE, DEFAULT_PAGE_SIZE, DEFAULT_WAL_SYNCHRONOUS. DIRECT_OVERFLOW_READ is on by default
// in SQLite's own sources, so sqlite3_compileoption_used (which lists what the build was given) does
// not tell; the first item also says what directOverflowReadsProbe() saw.
std::vector<std::string> sqliteCompileOptionsThatMatter();
// Whether overflow pages reach the caller's buffer without the page cache (SQLITE_DIRECT_OVERFLOW_READ):
// sqlite3_blob_read of a 6-page value from a fresh temporary file, with the VFS shim counting the reads
// that land in the caller's buffer. > 0: in effect (that many pages); 0: not; -1: could not tell.
// Runs once a process.
int directOverflowReadsProbe();
std::string sqliteVersion();

}  // namespace blobbench::storage
