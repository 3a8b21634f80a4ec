#include "engine/storage/SqliteStore.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>

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

}  // namespace

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
    if (sqlite3_open_v2(m_path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
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
    if (m_readBlob) {
        sqlite3_blob_close(m_readBlob);
        m_readBlob = nullptr;
    }
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

void SqliteStore::readSql(std::uint64_t key, std::string& out) {
    sqlite3_bind_int64(m_select, 1, static_cast<sqlite3_int64>(key));
    const int rc = sqlite3_step(m_select);
    if (rc == SQLITE_ROW) {
        const auto* data = static_cast<const char*>(sqlite3_column_blob(m_select, 0));
        out.assign(data ? data : "", static_cast<std::size_t>(sqlite3_column_bytes(m_select, 0)));
        sqlite3_reset(m_select);
        return;
    }
    sqlite3_reset(m_select);
    if (rc == SQLITE_DONE) {
        throw missingKey(key);
    }
    fail("select key " + std::to_string(key));
}

void SqliteStore::readBlob(std::uint64_t key, std::string& out) {
    const auto rowid = static_cast<sqlite3_int64>(key);
    int rc = m_readBlob ? sqlite3_blob_reopen(m_readBlob, rowid)
                        : sqlite3_blob_open(m_db, "main", "kv", "v", rowid, 0, &m_readBlob);
    if (rc != SQLITE_OK) {
        // A failed open leaves the handle null; a failed reopen leaves it aborted (usable for reopen).
        if (sqlite3_errcode(m_db) == SQLITE_ERROR && std::string(sqlite3_errmsg(m_db)).find("no such rowid") == 0) {
            throw missingKey(key);
        }
        fail("blob open key " + std::to_string(key));
    }
    out.resize(static_cast<std::size_t>(sqlite3_blob_bytes(m_readBlob)));
    if (sqlite3_blob_read(m_readBlob, out.data(), static_cast<int>(out.size()), 0) != SQLITE_OK) {
        fail("blob read key " + std::to_string(key));
    }
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

}  // namespace blobbench::storage
