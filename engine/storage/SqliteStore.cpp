#include "engine/storage/SqliteStore.h"

#include <sqlite3.h>

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "engine/core/Error.h"

namespace blobbench::storage {
namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

Error missingKey(std::uint64_t key) {
    return Error(ErrorKind::Data, "sqlite: key " + std::to_string(key) + " does not exist");
}

// ---- The lock-counting VFS: every call forwarded to the default VFS; the files it opens carry
// their counters, read back through SQLITE_FCNTL_FILE_POINTER.

constexpr const char* kCountingVfs = "blobbench-lock-counting";
sqlite3_vfs* g_real = nullptr;

struct CountingFile {
    sqlite3_file base;
    sqlite3_file* real;  // the default VFS's file, allocated right after this struct
    LockCounts counts;
};

sqlite3_file* realOf(sqlite3_file* f) {
    return reinterpret_cast<CountingFile*>(f)->real;
}

int fClose(sqlite3_file* f) {
    sqlite3_file* r = realOf(f);
    return r->pMethods ? r->pMethods->xClose(r) : SQLITE_OK;
}
// The direct-overflow-read probe: reads whose destination lies in this range (the probe's own
// buffer, never one SQLite allocated) went past the page cache, straight into the caller's memory.
std::atomic<const char*> g_probeBegin{nullptr};
std::atomic<const char*> g_probeEnd{nullptr};
std::atomic<std::uint64_t> g_probeHits{0};

int fRead(sqlite3_file* f, void* p, int n, sqlite3_int64 o) {
    const auto* at = static_cast<const char*>(p);
    const char* begin = g_probeBegin.load(std::memory_order_relaxed);
    if (begin != nullptr && at >= begin && at < g_probeEnd.load(std::memory_order_relaxed)) {
        g_probeHits.fetch_add(1, std::memory_order_relaxed);
    }
    return realOf(f)->pMethods->xRead(realOf(f), p, n, o);
}
int fWrite(sqlite3_file* f, const void* p, int n, sqlite3_int64 o) {
    return realOf(f)->pMethods->xWrite(realOf(f), p, n, o);
}
int fTruncate(sqlite3_file* f, sqlite3_int64 size) {
    return realOf(f)->pMethods->xTruncate(realOf(f), size);
}
int fSync(sqlite3_file* f, int flags) {
    return realOf(f)->pMethods->xSync(realOf(f), flags);
}
int fFileSize(sqlite3_file* f, sqlite3_int64* size) {
    return realOf(f)->pMethods->xFileSize(realOf(f), size);
}
int fLock(sqlite3_file* f, int level) {
    auto* c = reinterpret_cast<CountingFile*>(f);
    ++c->counts.lock;
    c->counts.sharedTaken += level == SQLITE_LOCK_SHARED ? 1 : 0;
    return c->real->pMethods->xLock(c->real, level);
}
int fUnlock(sqlite3_file* f, int level) {
    ++reinterpret_cast<CountingFile*>(f)->counts.unlock;
    return realOf(f)->pMethods->xUnlock(realOf(f), level);
}
int fCheckReservedLock(sqlite3_file* f, int* out) {
    return realOf(f)->pMethods->xCheckReservedLock(realOf(f), out);
}
int fFileControl(sqlite3_file* f, int op, void* arg) {
    return realOf(f)->pMethods->xFileControl(realOf(f), op, arg);
}
int fSectorSize(sqlite3_file* f) {
    return realOf(f)->pMethods->xSectorSize(realOf(f));
}
int fDeviceCharacteristics(sqlite3_file* f) {
    return realOf(f)->pMethods->xDeviceCharacteristics(realOf(f));
}
int fShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** pp) {
    sqlite3_file* r = realOf(f);
    return r->pMethods->iVersion >= 2 ? r->pMethods->xShmMap(r, region, size, extend, pp) : SQLITE_IOERR;
}
int fShmLock(sqlite3_file* f, int offset, int n, int flags) {
    auto* c = reinterpret_cast<CountingFile*>(f);
    ++c->counts.shmLock;
    c->counts.sharedTaken += flags == (SQLITE_SHM_LOCK | SQLITE_SHM_SHARED) ? 1 : 0;
    return c->real->pMethods->iVersion >= 2 ? c->real->pMethods->xShmLock(c->real, offset, n, flags) : SQLITE_IOERR;
}
void fShmBarrier(sqlite3_file* f) {
    sqlite3_file* r = realOf(f);
    if (r->pMethods->iVersion >= 2) {
        r->pMethods->xShmBarrier(r);
    }
}
int fShmUnmap(sqlite3_file* f, int deleteFlag) {
    sqlite3_file* r = realOf(f);
    return r->pMethods->iVersion >= 2 ? r->pMethods->xShmUnmap(r, deleteFlag) : SQLITE_OK;
}
int fFetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** pp) {
    sqlite3_file* r = realOf(f);
    if (r->pMethods->iVersion >= 3) {
        return r->pMethods->xFetch(r, offset, amount, pp);
    }
    *pp = nullptr;
    return SQLITE_OK;
}
int fUnfetch(sqlite3_file* f, sqlite3_int64 offset, void* p) {
    sqlite3_file* r = realOf(f);
    return r->pMethods->iVersion >= 3 ? r->pMethods->xUnfetch(r, offset, p) : SQLITE_OK;
}

const sqlite3_io_methods kCountingMethods = {3,
                                             fClose,
                                             fRead,
                                             fWrite,
                                             fTruncate,
                                             fSync,
                                             fFileSize,
                                             fLock,
                                             fUnlock,
                                             fCheckReservedLock,
                                             fFileControl,
                                             fSectorSize,
                                             fDeviceCharacteristics,
                                             fShmMap,
                                             fShmLock,
                                             fShmBarrier,
                                             fShmUnmap,
                                             fFetch,
                                             fUnfetch};

int vOpen(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags, int* outFlags) {
    auto* c = reinterpret_cast<CountingFile*>(f);
    c->real = reinterpret_cast<sqlite3_file*>(c + 1);
    c->counts = {};
    std::memset(c->real, 0, static_cast<std::size_t>(g_real->szOsFile));
    const int rc = g_real->xOpen(g_real, name, c->real, flags, outFlags);
    c->base.pMethods = c->real->pMethods ? &kCountingMethods : nullptr;
    return rc;
}
int vDelete(sqlite3_vfs*, const char* name, int syncDir) {
    return g_real->xDelete(g_real, name, syncDir);
}
int vAccess(sqlite3_vfs*, const char* name, int flags, int* out) {
    return g_real->xAccess(g_real, name, flags, out);
}
int vFullPathname(sqlite3_vfs*, const char* name, int n, char* out) {
    return g_real->xFullPathname(g_real, name, n, out);
}
void* vDlOpen(sqlite3_vfs*, const char* name) {
    return g_real->xDlOpen(g_real, name);
}
void vDlError(sqlite3_vfs*, int n, char* out) {
    g_real->xDlError(g_real, n, out);
}
void (*vDlSym(sqlite3_vfs*, void* handle, const char* symbol))(void) {
    return g_real->xDlSym(g_real, handle, symbol);
}
void vDlClose(sqlite3_vfs*, void* handle) {
    g_real->xDlClose(g_real, handle);
}
int vRandomness(sqlite3_vfs*, int n, char* out) {
    return g_real->xRandomness(g_real, n, out);
}
int vSleep(sqlite3_vfs*, int micros) {
    return g_real->xSleep(g_real, micros);
}
int vCurrentTime(sqlite3_vfs*, double* out) {
    return g_real->xCurrentTime(g_real, out);
}
int vGetLastError(sqlite3_vfs*, int n, char* out) {
    return g_real->xGetLastError ? g_real->xGetLastError(g_real, n, out) : 0;
}
int vCurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* out) {
    return g_real->xCurrentTimeInt64(g_real, out);
}

// Registers the shim once, over the default VFS as it is then; never made the default.
const char* countingVfs() {
    static std::once_flag once;
    static sqlite3_vfs vfs{};
    std::call_once(once, [] {
        g_real = sqlite3_vfs_find(nullptr);
        vfs.iVersion = 2;
        vfs.szOsFile = static_cast<int>(sizeof(CountingFile)) + g_real->szOsFile;
        vfs.mxPathname = g_real->mxPathname;
        vfs.zName = kCountingVfs;
        vfs.xOpen = vOpen;
        vfs.xDelete = vDelete;
        vfs.xAccess = vAccess;
        vfs.xFullPathname = vFullPathname;
        vfs.xDlOpen = vDlOpen;
        vfs.xDlError = vDlError;
        vfs.xDlSym = vDlSym;
        vfs.xDlClose = vDlClose;
        vfs.xRandomness = vRandomness;
        vfs.xSleep = vSleep;
        vfs.xCurrentTime = vCurrentTime;
        vfs.xGetLastError = vGetLastError;
        vfs.xCurrentTimeInt64 = g_real->iVersion >= 2 && g_real->xCurrentTimeInt64 ? vCurrentTimeInt64 : nullptr;
        sqlite3_vfs_register(&vfs, 0);
    });
    return kCountingVfs;
}

}  // namespace

std::string sqliteVersion() {
    return sqlite3_libversion();
}

int directOverflowReadsProbe() {
    static std::once_flag once;
    static int result = -1;
    std::call_once(once, [] {
        std::error_code ec;
        const auto path = std::filesystem::temp_directory_path(ec) /
                          ("blobbench-overflow-probe-" + std::to_string(::getpid()) + ".sqlite");
        try {
            SqliteStoreOptions o;
            o.path = path.string();
            o.journalMode = "delete";  // a page in the WAL is never read directly
            std::string value(6 * 4096, 'v');
            {
                SqliteStore writer(o);
                writer.insert(1, value);
            }
            SqliteStore reader(o);
            std::vector<char> buffer(value.size() + 64);
            sqlite3_blob* blob = nullptr;
            reader.begin();
            if (sqlite3_blob_open(reader.handle(), "main", "kv", "v", 1, 0, &blob) == SQLITE_OK) {
                g_probeHits = 0;
                g_probeEnd = buffer.data() + buffer.size();
                g_probeBegin = buffer.data();
                const int rc = sqlite3_blob_read(blob, buffer.data() + 16, static_cast<int>(value.size()), 0);
                g_probeBegin = nullptr;
                result = rc == SQLITE_OK ? static_cast<int>(g_probeHits.load()) : -1;
                sqlite3_blob_close(blob);
            }
            reader.commit();
        } catch (const Error&) {
            result = -1;
        }
        for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
            std::filesystem::remove(path.string() + suffix, ec);
        }
    });
    return result;
}

std::vector<std::string> sqliteCompileOptionsThatMatter() {
    std::vector<std::string> out;
    const int direct = directOverflowReadsProbe();
    out.push_back(std::string("DIRECT_OVERFLOW_READ ") +
                  (sqlite3_compileoption_used("DIRECT_OVERFLOW_READ") ? "named" : "not named") +
                  " by sqlite3_compileoption_used; " +
                  (direct < 0   ? "the probe could not tell whether it is in effect"
                   : direct > 0 ? "in effect (probe: a 24 KiB blob_read put " + std::to_string(direct) +
                                      " overflow pages straight into the caller's buffer)"
                                : "not in effect (probe: overflow pages came through the page cache)"));
    static const char* const kNames[] = {"THREADSAFE=",         "MAX_MMAP_SIZE=",     "DEFAULT_MMAP_SIZE=",
                                         "DEFAULT_CACHE_SIZE=", "DEFAULT_PAGE_SIZE=", "DEFAULT_WAL_SYNCHRONOUS="};
    for (const char* name : kNames) {
        std::string found;
        for (int i = 0; const char* option = sqlite3_compileoption_get(i); ++i) {
            if (std::strncmp(option, name, std::strlen(name)) == 0) {
                found = option;
            }
        }
        if (found.empty()) {
            found = std::string(name, std::strlen(name) - 1) + " not set (SQLite's default)";
        }
        out.push_back(found);
    }
    return out;
}

SqliteStore::SqliteStore(const SqliteStoreOptions& options) : m_path(options.path) {
    static const std::vector<std::string> journals = {"delete", "truncate", "persist", "memory", "wal", "off"};
    static const std::vector<std::string> syncs = {"off", "normal", "full", "extra"};
    if (std::find(journals.begin(), journals.end(), lower(options.journalMode)) == journals.end()) {
        throw Error(ErrorKind::Usage, "sqlite: journal mode '" + options.journalMode +
                                          "' is not one of delete|truncate|persist|memory|wal|off");
    }
    if (std::find(syncs.begin(), syncs.end(), lower(options.synchronous)) == syncs.end()) {
        throw Error(ErrorKind::Usage,
                    "sqlite: synchronous '" + options.synchronous + "' is not one of off|normal|full|extra");
    }
    const std::int64_t ps = options.pageSize;
    if (ps < 512 || ps > 65536 || (ps & (ps - 1)) != 0) {
        throw Error(ErrorKind::Usage,
                    "sqlite: page size " + std::to_string(ps) + " is not a power of two in 512..65536");
    }
    if (options.mmapSize < 0) {
        throw Error(ErrorKind::Usage, "sqlite: mmap size must not be negative");
    }
    if (options.cacheSize && *options.cacheSize == 0) {
        throw Error(ErrorKind::Usage, "sqlite: cache size must not be 0 (pages, or negative KiB)");
    }
    if (sqlite3_open_v2(m_path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, countingVfs()) !=
        SQLITE_OK) {
        const std::string message = m_db ? sqlite3_errmsg(m_db) : "out of memory";
        sqlite3_close(m_db);
        m_db = nullptr;
        throw Error(ErrorKind::Connect, "sqlite:" + m_path + ": " + message);
    }
    try {
        pragma("page_size", std::to_string(ps));
        m_effects.push_back({"journal_mode", lower(options.journalMode), pragma("journal_mode", options.journalMode)});
        pragma("synchronous", options.synchronous);
        m_effects.push_back({"synchronous", lower(options.synchronous), pragma("synchronous", "")});
        char* error = nullptr;
        if (sqlite3_exec(m_db, "CREATE TABLE IF NOT EXISTS kv(id INTEGER PRIMARY KEY, v BLOB NOT NULL)", nullptr,
                         nullptr, &error) != SQLITE_OK) {
            const std::string message = error ? error : "?";
            sqlite3_free(error);
            throw Error(ErrorKind::Sql, "sqlite:" + m_path + ": create table: " + message);
        }
        m_effects.push_back({"page_size", std::to_string(ps), pragma("page_size", "")});
        pragma("mmap_size", std::to_string(options.mmapSize));
        m_effects.push_back({"mmap_size", std::to_string(options.mmapSize), pragma("mmap_size", "")});
        if (options.cacheSize) {
            pragma("cache_size", std::to_string(*options.cacheSize));
        }
        const std::string cache = pragma("cache_size", "");
        m_effects.push_back({"cache_size", options.cacheSize ? std::to_string(*options.cacheSize) : cache, cache});
        m_insert = prepare("INSERT OR REPLACE INTO kv(id, v) VALUES (?1, ?2)");
        m_insertZero = prepare("INSERT OR REPLACE INTO kv(id, v) VALUES (?1, zeroblob(?2))");
        m_update = prepare("UPDATE kv SET v = ?2 WHERE id = ?1");
        m_select = prepare("SELECT v FROM kv WHERE id = ?1");
    } catch (...) {
        close();
        throw;
    }
}

SqliteStore::~SqliteStore() {
    close();
}

void SqliteStore::close() noexcept {
    endReads();
    if (m_writeBlob) {
        sqlite3_blob_close(m_writeBlob);
        m_writeBlob = nullptr;
    }
    for (sqlite3_stmt** st : {&m_insert, &m_insertZero, &m_update, &m_select}) {
        sqlite3_finalize(*st);
        *st = nullptr;
    }
    if (m_db) {
        sqlite3_close(m_db);
        m_db = nullptr;
    }
}

void SqliteStore::fail(const std::string& what) const {
    const int code = sqlite3_extended_errcode(m_db);
    const int primary = code & 0xff;
    std::string message = sqlite3_errmsg(m_db);
    if (primary == SQLITE_FULL) {
        message += " (disk full)";
    }
    const ErrorKind kind =
        primary == SQLITE_FULL || primary == SQLITE_IOERR || primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN
            ? ErrorKind::Io
            : ErrorKind::Sql;
    throw Error(kind, "sqlite:" + m_path + ": " + what + ": " + message);
}

sqlite3_stmt* SqliteStore::prepare(const char* sql) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v3(m_db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, nullptr) != SQLITE_OK) {
        fail(std::string("prepare ") + sql);
    }
    return st;
}

std::string SqliteStore::pragma(const std::string& name, const std::string& value) {
    const std::string sql = "PRAGMA " + name + (value.empty() ? "" : " = " + value);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        fail(sql);
    }
    std::string result;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const auto* text = sqlite3_column_text(st, 0);
        result = text ? reinterpret_cast<const char*>(text) : "";
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        }
    }
    if (rc != SQLITE_DONE) {
        sqlite3_finalize(st);
        fail(sql);
    }
    sqlite3_finalize(st);
    if (name == "synchronous" && value.empty()) {
        static const char* names[] = {"off", "normal", "full", "extra"};
        const int level = std::atoi(result.c_str());
        if (level >= 0 && level <= 3) {
            result = names[level];
        }
    }
    return lower(result);
}

void SqliteStore::begin() {
    if (sqlite3_exec(m_db, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) {
        fail("begin");
    }
}

void SqliteStore::commit() {
    if (m_writeBlob) {
        sqlite3_blob_close(m_writeBlob);
        m_writeBlob = nullptr;
    }
    if (sqlite3_exec(m_db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
        fail("commit");
    }
}

void SqliteStore::rollback() noexcept {
    if (m_writeBlob) {
        sqlite3_blob_close(m_writeBlob);
        m_writeBlob = nullptr;
    }
    if (!sqlite3_get_autocommit(m_db)) {
        sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
}

void SqliteStore::insert(std::uint64_t key, std::string_view bytes) {
    sqlite3_bind_int64(m_insert, 1, static_cast<sqlite3_int64>(key));
    sqlite3_bind_blob64(m_insert, 2, bytes.data(), bytes.size(), SQLITE_STATIC);
    const int rc = sqlite3_step(m_insert);
    sqlite3_reset(m_insert);
    if (rc != SQLITE_DONE) {
        fail("insert key " + std::to_string(key));
    }
}

void SqliteStore::insertZeroblob(std::uint64_t key, std::string_view bytes) {
    sqlite3_bind_int64(m_insertZero, 1, static_cast<sqlite3_int64>(key));
    sqlite3_bind_int64(m_insertZero, 2, static_cast<sqlite3_int64>(bytes.size()));
    const int rc = sqlite3_step(m_insertZero);
    sqlite3_reset(m_insertZero);
    if (rc != SQLITE_DONE) {
        fail("insert zeroblob key " + std::to_string(key));
    }
    const auto rowid = static_cast<sqlite3_int64>(key);
    const int open = m_writeBlob ? sqlite3_blob_reopen(m_writeBlob, rowid)
                                 : sqlite3_blob_open(m_db, "main", "kv", "v", rowid, 1, &m_writeBlob);
    if (open != SQLITE_OK) {
        fail("blob open key " + std::to_string(key));
    }
    if (sqlite3_blob_write(m_writeBlob, bytes.data(), static_cast<int>(bytes.size()), 0) != SQLITE_OK) {
        fail("blob write key " + std::to_string(key));
    }
}

void SqliteStore::update(std::uint64_t key, std::string_view bytes) {
    sqlite3_bind_int64(m_update, 1, static_cast<sqlite3_int64>(key));
    sqlite3_bind_blob64(m_update, 2, bytes.data(), bytes.size(), SQLITE_STATIC);
    const int rc = sqlite3_step(m_update);
    sqlite3_reset(m_update);
    if (rc != SQLITE_DONE) {
        fail("update key " + std::to_string(key));
    }
    if (sqlite3_changes(m_db) != 1) {
        throw missingKey(key);
    }
}

std::string_view SqliteStore::readSqlInPlace(std::uint64_t key) {
    if (m_selectStepped) {
        sqlite3_reset(m_select);
        m_selectStepped = false;
    }
    sqlite3_bind_int64(m_select, 1, static_cast<sqlite3_int64>(key));
    const int rc = sqlite3_step(m_select);
    if (rc == SQLITE_ROW) {
        m_selectStepped = true;
        const auto* data = static_cast<const char*>(sqlite3_column_blob(m_select, 0));
        const auto size = static_cast<std::size_t>(sqlite3_column_bytes(m_select, 0));
        return data ? std::string_view(data, size) : std::string_view();
    }
    sqlite3_reset(m_select);
    if (rc == SQLITE_DONE) {
        throw missingKey(key);
    }
    fail("select key " + std::to_string(key));
}

void SqliteStore::readSql(std::uint64_t key, std::string& out) {
    const std::string_view value = readSqlInPlace(key);
    out.assign(value.data(), value.size());
    sqlite3_reset(m_select);
    m_selectStepped = false;
}

void SqliteStore::failBlobOpen(std::uint64_t key) const {
    // A failed open leaves the handle null; a failed reopen leaves it aborted (usable for reopen).
    if (sqlite3_errcode(m_db) == SQLITE_ERROR && std::string(sqlite3_errmsg(m_db)).find("no such rowid") == 0) {
        throw missingKey(key);
    }
    fail("blob open key " + std::to_string(key));
}

void SqliteStore::readBlob(std::uint64_t key, std::string& out) {
    const auto rowid = static_cast<sqlite3_int64>(key);
    const int rc = m_readBlob ? sqlite3_blob_reopen(m_readBlob, rowid)
                              : sqlite3_blob_open(m_db, "main", "kv", "v", rowid, 0, &m_readBlob);
    if (rc != SQLITE_OK) {
        failBlobOpen(key);
    }
    out.resize(static_cast<std::size_t>(sqlite3_blob_bytes(m_readBlob)));
    if (sqlite3_blob_read(m_readBlob, out.data(), static_cast<int>(out.size()), 0) != SQLITE_OK) {
        fail("blob read key " + std::to_string(key));
    }
}

std::string_view SqliteStore::readBlobInPlace(std::uint64_t key, BlobHandle handle) {
    const auto rowid = static_cast<sqlite3_int64>(key);
    if (handle == BlobHandle::OpenPerRead && m_readBlob) {
        sqlite3_blob_close(m_readBlob);
        m_readBlob = nullptr;
    }
    const int rc = m_readBlob ? sqlite3_blob_reopen(m_readBlob, rowid)
                              : sqlite3_blob_open(m_db, "main", "kv", "v", rowid, 0, &m_readBlob);
    if (rc != SQLITE_OK) {
        failBlobOpen(key);
    }
    const auto size = static_cast<std::size_t>(sqlite3_blob_bytes(m_readBlob));
    if (m_buffer.size() < size) {
        m_buffer.resize(size);
    }
    if (sqlite3_blob_read(m_readBlob, m_buffer.data(), static_cast<int>(size), 0) != SQLITE_OK) {
        fail("blob read key " + std::to_string(key));
    }
    if (handle == BlobHandle::OpenPerRead) {
        sqlite3_blob_close(m_readBlob);
        m_readBlob = nullptr;
    }
    return {m_buffer.data(), size};
}

void SqliteStore::endReads() noexcept {
    if (m_select && m_selectStepped) {
        sqlite3_reset(m_select);
    }
    m_selectStepped = false;
    if (m_readBlob) {
        sqlite3_blob_close(m_readBlob);
        m_readBlob = nullptr;
    }
}

LockCounts SqliteStore::lockCounts() const {
    sqlite3_file* file = nullptr;
    if (sqlite3_file_control(m_db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || file == nullptr ||
        file->pMethods != &kCountingMethods) {
        return {};
    }
    return reinterpret_cast<const CountingFile*>(file)->counts;
}

bool SqliteStore::idle() const {
    for (sqlite3_stmt* st = sqlite3_next_stmt(m_db, nullptr); st != nullptr; st = sqlite3_next_stmt(m_db, st)) {
        if (sqlite3_stmt_busy(st)) {
            return false;
        }
    }
    return sqlite3_get_autocommit(m_db) != 0 && sqlite3_txn_state(m_db, "main") == SQLITE_TXN_NONE;
}

std::uint64_t SqliteStore::footprint() {
    sqlite3_wal_checkpoint_v2(m_db, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    const auto pages = std::stoull(pragma("page_count", ""));
    const auto size = std::stoull(pragma("page_size", ""));
    return pages * size;
}

std::int64_t SqliteStore::mmapSizeInEffect() {
    return std::stoll(pragma("mmap_size", ""));
}

std::int64_t SqliteStore::cacheSizeInEffect() {
    return std::stoll(pragma("cache_size", ""));
}

}  // namespace blobbench::storage
