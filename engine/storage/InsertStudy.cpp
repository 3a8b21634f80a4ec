#include "engine/storage/InsertStudy.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>

#include <firebird/Interface.h>

#include "engine/core/ClientPause.h"
#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "engine/drivers/firebird/FirebirdClient.h"
#include "engine/storage/KeyedStudy.h"
#include "engine/storage/SqliteStore.h"
#include "engine/storage/StorageValues.h"

namespace blobbench::storage {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kMaxRows = 100'000'000;
constexpr std::uint64_t kMaxValueBytes = 256ULL << 20;
constexpr std::uint64_t kPool = 256;  // distinct values, reused round-robin: generated before the clock starts
constexpr const char* kTable = "bb_storage_insert";

std::vector<std::string> valuePool(const InsertOptions& o) {
    ValueShape shape;
    shape.meanBytes = o.valueBytes;
    shape.spreadBytes = 0;
    shape.text = o.text;
    shape.compressible = o.text && o.compressible;
    shape.seed = o.seed;
    std::vector<std::string> pool(std::min<std::uint64_t>(kPool, o.rows));
    for (std::size_t i = 0; i < pool.size(); ++i) {
        valueFor(shape, i + 1, pool[i]);
    }
    return pool;
}

const std::string& valueOfRow(const std::vector<std::string>& pool, std::uint64_t id) {
    return pool[(id - 1) % pool.size()];
}

// Left in the directory of the SQLite variants, a variant's name a line: a later run may replace the
// insert-<variant>.sqlite* of the variants it lists.
constexpr const char* kSqliteInsertMark = ".blobbench-insert-study";

std::vector<std::string> variantsWrittenIn(const std::filesystem::path& directory) {
    std::vector<std::string> names;
    std::ifstream mark(directory / kSqliteInsertMark);
    for (std::string line; std::getline(mark, line);) {
        names.push_back(line);
    }
    return names;
}

void markWritten(const std::filesystem::path& directory, const std::string& variant) {
    const std::vector<std::string> written = variantsWrittenIn(directory);
    if (std::find(written.begin(), written.end(), variant) == written.end()) {
        std::ofstream(directory / kSqliteInsertMark, std::ios::app) << variant << '\n';
    }
}

bool wanted(const InsertOptions& o, const std::string& variant) {
    return o.variants.empty() || std::find(o.variants.begin(), o.variants.end(), variant) != o.variants.end();
}

void checkVariants(const InsertOptions& o, const std::string& engine) {
    const auto known = insertVariants(engine);
    for (const auto& v : o.variants) {
        if (std::find(known.begin(), known.end(), v) == known.end()) {
            // A name of another engine is fine when several engines run; unknown everywhere is not.
            bool elsewhere = false;
            for (const char* other : {"sqlite", "postgres", "firebird", "mariadb"}) {
                const auto names = insertVariants(other);
                elsewhere = elsewhere || std::find(names.begin(), names.end(), v) != names.end();
            }
            if (!elsewhere) {
                std::string list;
                for (const auto& k : known) {
                    list += (list.empty() ? "" : ", ") + k;
                }
                throw Error(ErrorKind::Usage, "variant '" + v + "' is unknown (" + engine + ": " + list + ")");
            }
        }
    }
}

// Times N inserts with a commit every K rows; `insert(id)` does one row, `commit()` / `begin()` the rest.
template <typename Insert, typename Commit, typename Begin>
void timedInserts(InsertResult& r, const InsertOptions& o, const std::vector<std::string>& pool, Insert&& insert,
                  Commit&& commit, Begin&& begin) {
    const std::uint64_t every = o.commitEvery == 0 ? o.rows : o.commitEvery;
    // A stopped or suspended client's pause is in the elapsed time: said with the result (round 5l S5).
    const clientpause::Watch pauses;
    const clientpause::Pauses pausedBefore = clientpause::pausesSoFar();
    const auto t0 = Clock::now();
    try {
        begin();
        for (std::uint64_t id = 1; id <= o.rows; ++id) {
            if (o.cancel.cancelled()) {
                throw Error(ErrorKind::Cancelled, "cancelled");
            }
            insert(id);
            r.bytes += valueOfRow(pool, id).size();
            if (id % every == 0 || id == o.rows) {
                const auto c0 = Clock::now();
                commit();
                r.commitTime += Clock::now() - c0;
                ++r.commits;
                r.rows = id;  // committed rows only
                if (id != o.rows) {
                    begin();
                }
            }
        }
    } catch (...) {
        r.elapsed = Clock::now() - t0;
        r.disturbed = clientpause::disturbanceSince(pausedBefore, "the timed inserts");
        r.bytes = 0;  // counted again over the committed rows only
        for (std::uint64_t id = 1; id <= r.rows; ++id) {
            r.bytes += valueOfRow(pool, id).size();
        }
        throw;
    }
    r.elapsed = Clock::now() - t0;
    r.disturbed = clientpause::disturbanceSince(pausedBefore, "the timed inserts");
}

// Cells of a result as strings; BLOB chunks are concatenated.
class CollectSink final : public RowSink {
public:
    std::vector<std::vector<std::string>> rows;
    void integer(std::size_t column, std::int64_t value) override { cell(column) = std::to_string(value); }
    void null(std::size_t column) override { cell(column).clear(); }
    void chunk(std::size_t column, std::string_view bytes) override { cell(column).append(bytes); }
    void endRow() override {
        rows.push_back(std::move(m_row));
        m_row.clear();
    }

private:
    std::string& cell(std::size_t column) {
        if (m_row.size() <= column) {
            m_row.resize(column + 1);
        }
        return m_row[column];
    }
    std::vector<std::string> m_row;
};

// Reads (id, value) rows and compares each with what was written, without holding the result.
class VerifySink final : public RowSink {
public:
    explicit VerifySink(const std::vector<std::string>& pool) : m_pool(pool) {}
    void integer(std::size_t column, std::int64_t value) override {
        if (column == 0) {
            m_id = static_cast<std::uint64_t>(value);
        }
    }
    void null(std::size_t) override {}
    void chunk(std::size_t column, std::string_view bytes) override {
        if (column == 1) {
            m_value.append(bytes);
        }
    }
    void endRow() override {
        ++count;
        if (difference.empty() && m_id >= 1) {
            difference = compareValue(m_id, valueOfRow(m_pool, m_id), m_value);
        }
        if (difference.empty() && m_id != count) {
            difference = "row " + std::to_string(count) + " has id " + std::to_string(m_id);
        }
        m_value.clear();
    }
    std::uint64_t count = 0;
    std::string difference;

private:
    const std::vector<std::string>& m_pool;
    std::uint64_t m_id = 0;
    std::string m_value;
};

std::string queryOne(Session& s, const std::string& sql, const ParameterValues& statement = {}) {
    CollectSink sink;
    QuerySpec spec;
    spec.sql = sql;
    spec.statementParameters = statement;
    s.query(spec, sink, CancelToken());
    return sink.rows.empty() || sink.rows[0].empty() ? std::string() : sink.rows[0][0];
}

std::string checkWords(std::uint64_t count, std::uint64_t expected, const std::string& difference) {
    if (!difference.empty()) {
        return difference;
    }
    if (count != expected) {
        return std::to_string(count) + " rows read back, " + std::to_string(expected) + " committed";
    }
    return "byte-exact";
}

// ------------------------------------------------------------------------------------------ SQLite

InsertResult sqliteVariant(const std::filesystem::path& dir, const InsertOptions& o,
                           const std::vector<std::string>& pool, const std::string& variant) {
    InsertResult r;
    r.engine = "sqlite";
    r.variant = variant;
    const bool zero = variant == "zeroblob";
    r.how = std::string(zero ? "INSERT zeroblob(n) + sqlite3_blob_write" : "INSERT, value bound") +
            ", prepared once, journal_mode=" + o.journalMode + ", synchronous=" + o.synchronous +
            ", page_size=" + std::to_string(o.pageSize);
    const auto path = dir / ("insert-" + variant + ".sqlite");
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
        std::filesystem::remove(path.string() + suffix);
    }
    SqliteStoreOptions so;
    so.path = path.string();
    so.journalMode = o.journalMode;
    so.synchronous = o.synchronous;
    so.pageSize = o.pageSize;
    try {
        SqliteStore db(so);
        for (const auto& e : db.effects()) {
            if (e.name != "mmap_size" && e.actual != e.requested) {
                r.how += "; " + e.name + " is " + e.actual + " (asked " + e.requested + ": not in effect)";
            }
        }
        try {
            timedInserts(
                r, o, pool,
                [&](std::uint64_t id) {
                    zero ? db.insertZeroblob(id, valueOfRow(pool, id)) : db.insert(id, valueOfRow(pool, id));
                },
                [&] { db.commit(); }, [&] { db.begin(); });
        } catch (...) {
            db.rollback();
            throw;
        }
        r.storageBytes = db.footprint();
        r.storageHow = "page_count x page_size";
        if (o.verify) {
            std::string value, difference;
            std::uint64_t count = 0;
            for (std::uint64_t id = 1; id <= r.rows && difference.empty(); ++id, ++count) {
                db.readSql(id, value);
                difference = compareValue(id, valueOfRow(pool, id), value);
            }
            r.check = checkWords(count, r.rows, difference);
        }
    } catch (const Error& e) {
        r.error = oneLine(e.what());
        r.partial = true;
        r.cancelled = e.kind() == ErrorKind::Cancelled || o.cancel.cancelled();
    }
    return r;
}

// ------------------------------------------------------------------------------ PostgreSQL, Firebird

struct ServerVariant {
    std::string name;
    std::string how;
    std::string columnType;
    ParameterValues parameters;
    std::string reason;  // non-empty: not in effect
    bool largeObject = false;
};

std::vector<ServerVariant> postgresVariants(Session& probe, const InsertOptions& o) {
    const bool lz4 = queryOne(probe,
                              "SELECT CASE WHEN 'lz4' = ANY(enumvals) THEN 1 ELSE 0 END FROM pg_settings "
                              "WHERE name = 'default_toast_compression'") == "1";
    auto bytea = [](std::string storage, std::string compression, std::string method = "prepared",
                    std::string pipeline = "false") {
        return ParameterValues{{"insert_method", std::move(method)},
                               {"pipeline", std::move(pipeline)},
                               {"param_format", "binary"},
                               {"column_storage", std::move(storage)},
                               {"column_compression", std::move(compression)}};
    };
    std::vector<ServerVariant> v;
    v.push_back({"bytea-pglz", "bytea STORAGE EXTENDED COMPRESSION pglz, PQexecPrepared, binary parameters", "bytea",
                 bytea("extended", "pglz"), "", false});
    v.push_back({"bytea-lz4", "bytea STORAGE EXTENDED COMPRESSION lz4, PQexecPrepared, binary parameters", "bytea",
                 bytea("extended", "lz4"),
                 lz4 ? "" : "the server was built without lz4 (default_toast_compression offers no lz4)", false});
    v.push_back({"bytea-external", "bytea STORAGE EXTERNAL (out of line, uncompressed), PQexecPrepared", "bytea",
                 bytea("external", "default"), "", false});
    v.push_back({"bytea-main", "bytea STORAGE MAIN (inline, compressed), PQexecPrepared", "bytea",
                 bytea("main", "default"), "", false});
    v.push_back({"bytea-copy", "bytea STORAGE EXTENDED, COPY ... FROM STDIN (binary)", "bytea",
                 bytea("extended", "default", "copy_binary"), "", false});
    v.push_back({"bytea-pipeline", "bytea STORAGE EXTENDED, PQexecPrepared in pipeline mode (sync every 256)", "bytea",
                 bytea("extended", "default", "prepared", "true"), "", false});
    v.push_back({"text", "text STORAGE EXTENDED, PQexecPrepared", "text", bytea("extended", "default"),
                 o.text ? "" : "text needs text values (the values are incompressible bytes: use --text)", false});
    v.push_back({"large-object", "large object (oid column, lo_create + lo_write), PQexecPrepared", "oid",
                 bytea("default", "default"), "", true});
    return v;
}

std::vector<ServerVariant> firebirdVariants(Session& probe, const InsertOptions& o) {
    std::vector<ServerVariant> v;
    v.push_back({"blob",
                 std::string("BLOB SUB_TYPE ") + (o.text ? "TEXT CHARACTER SET OCTETS" : "BINARY") +
                     ", prepared execute, putSegment",
                 o.text ? "BLOB SUB_TYPE TEXT CHARACTER SET OCTETS" : "BLOB SUB_TYPE BINARY",
                 {},
                 "",
                 false});
    v.push_back({"varchar",
                 "VARCHAR(" + std::to_string(o.valueBytes) + ") CHARACTER SET OCTETS, prepared execute",
                 "VARCHAR(" + std::to_string(std::min<std::uint64_t>(o.valueBytes, 32765)) + ") CHARACTER SET OCTETS",
                 {},
                 o.valueBytes > 32765 ? "VARCHAR holds at most 32,765 bytes" : "",
                 false});
    // IBatch needs a 4.0+ client and server: the probe's versions say whether this pair has it.
    const firebird::FbVersion client = firebird::parseFbVersion(probe.info().clientVersion);
    const firebird::FbVersion server = firebird::parseFbVersion(probe.info().serverVersion);
    constexpr firebird::FbVersion needed{4, 0, 0};
    std::string batchReason;
    if (client < needed || server < needed) {
        batchReason = std::string("IBatch needs client and server >= 4.0 (Firebird 4 introduced it): ") +
                      (client < needed && server < needed
                           ? "client " + client.toString() + " and server " + server.toString() + " are older"
                       : client < needed ? "the client " + client.toString() + " is older"
                                         : "the server " + server.toString() + " is older");
    }
    v.push_back({"ibatch",
                 std::string("IBatch (Firebird 4 API), BLOBs in the batch, executed at each commit, BLOB SUB_TYPE ") +
                     (o.text ? "TEXT CHARACTER SET OCTETS" : "BINARY"),
                 o.text ? "BLOB SUB_TYPE TEXT CHARACTER SET OCTETS" : "BLOB SUB_TYPE BINARY",
                 {{"insert_method", "ibatch"}},
                 batchReason,
                 false});
    return v;
}

// MariaDB (issue #26): the three ways a value reaches the server, each its own variant.
std::vector<ServerVariant> mariadbVariants(const InsertOptions& o) {
    const std::string column = o.text ? "LONGTEXT" : "LONGBLOB";
    return {
        {"longblob-binary",
         "prepared statement, each value whole in COM_STMT_EXECUTE, " + column,
         column,
         {{"insert_method", "binary"}},
         "",
         false},
        {"longblob-text-hex",
         "COM_QUERY, " + std::string(o.text ? "text escaped (mysql_real_escape_string)" : "BLOBs as X'...' hex") +
             ", " + column,
         column,
         {{"insert_method", "text-hex"}},
         "",
         false},
        {"longblob-long-data",
         "prepared statement, values in COM_STMT_SEND_LONG_DATA chunks, " + column,
         column,
         {{"insert_method", "long-data"}},
         "",
         false},
    };
}

std::string serverStorage(Session& s, const std::string& engine, std::string& how, std::uint64_t loBefore,
                          bool largeObject) {
    if (engine == "postgres") {
        std::uint64_t bytes = std::stoull(queryOne(s, std::string("SELECT pg_total_relation_size('") + kTable + "')"));
        how = "pg_total_relation_size (heap, TOAST, index)";
        if (largeObject) {
            const auto after = std::stoull(queryOne(s, "SELECT pg_total_relation_size('pg_largeobject')"));
            bytes += after > loBefore ? after - loBefore : 0;
            how += " + growth of pg_largeobject";
        }
        return std::to_string(bytes);
    }
    if (engine == "mariadb") {
        // InnoDB's statistics are updated in the background: ANALYZE TABLE makes them the table's now.
        s.execute(std::string("ANALYZE TABLE ") + kTable);
        how =
            "information_schema.TABLES DATA_LENGTH + INDEX_LENGTH after ANALYZE TABLE (InnoDB pages of the table, "
            "its off-page BLOB pages included)";
        return queryOne(s, std::string("SELECT DATA_LENGTH + INDEX_LENGTH FROM information_schema.TABLES WHERE "
                                       "TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '") +
                               kTable + "'");
    }
    how =
        "growth of a fresh database of its own (MON$PAGES x MON$PAGE_SIZE after the inserts, less before "
        "the table was created): data, BLOB and index pages";
    return queryOne(s, "SELECT MON$PAGES * MON$PAGE_SIZE FROM MON$DATABASE");
}

// Firebird: each variant gets a database of its own next to the target's file, so that the storage
// figure is the growth of a fresh file (a shared database reuses the free pages of earlier runs).
std::string firebirdVariantTarget(const std::string& target, const std::string& variant) {
    const auto slash = target.find_last_of("/\\");
    if (slash == std::string::npos || slash + 1 >= target.size()) {
        return {};
    }
    return target.substr(0, slash + 1) + "bb_storage_" + variant + ".fdb";
}

// Drops a Firebird database (there is no SQL for that): attaches with the driver's client library.
// False when it could not (no such database, no connection).
bool dropFirebirdDatabase(const ConnectionSpec& spec) noexcept {
    std::shared_ptr<firebird::FirebirdClient> client;
    try {
        client = firebird::FirebirdClient::load(spec.clientLibrary);
    } catch (const Error&) {
        return false;  // the connect that follows reports it
    }
    Firebird::IMaster* master = client->master();
    Firebird::CheckStatusWrapper status(master->getStatus());
    Firebird::IXpbBuilder* dpb = client->util()->getXpbBuilder(&status, Firebird::IXpbBuilder::DPB, nullptr, 0);
    if (!spec.user.empty()) {
        dpb->insertString(&status, isc_dpb_user_name, spec.user.c_str());
    }
    if (!spec.password.empty()) {
        dpb->insertString(&status, isc_dpb_password, spec.password.c_str());
    }
    Firebird::IProvider* provider = client->dispatcher();
    Firebird::IAttachment* att =
        provider->attachDatabase(&status, spec.target.c_str(), dpb->getBufferLength(&status), dpb->getBuffer(&status));
    bool dropped = false;
    if (att && !(status.getState() & Firebird::IStatus::STATE_ERRORS)) {
        att->dropDatabase(&status);
        dropped = !(status.getState() & Firebird::IStatus::STATE_ERRORS);
        if (!dropped) {
            status.init();
            att->detach(&status);
        }
    }
    provider->release();
    dpb->dispose();
    status.dispose();
    return dropped;
}

// What marks the study's own table (PostgreSQL: its comment) and databases (Firebird: the database's
// description). A table or a database of the study's names without it is someone else's: never dropped.
constexpr const char* kStudyMark = "BlobBench storage insert study: dropped and created again by each run";

// A table or a database of the study's name that the study did not create: refused, never replaced.
class ForeignObject : public Error {
public:
    explicit ForeignObject(const std::string& what) : Error(ErrorKind::Usage, what) {}
};

bool postgresTableIsTheStudys(Session& s) {
    return queryOne(s, std::string("SELECT obj_description('") + kTable + "'::regclass, 'pg_class')") == kStudyMark;
}

bool mariadbTableIsTheStudys(Session& s) {
    return queryOne(s, std::string("SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                                   "DATABASE() AND TABLE_NAME = '") +
                           kTable + "'") == kStudyMark;
}

// The study's table in a database it shares (PostgreSQL, MariaDB): bears the study's mark.
bool tableIsTheStudys(Session& s, const std::string& engine) {
    return engine == "postgres" ? postgresTableIsTheStudys(s) : engine != "mariadb" || mariadbTableIsTheStudys(s);
}

ForeignObject foreignTable(const ConnectionSpec& spec) {
    return ForeignObject(spec.label() + " holds a table " + std::string(kTable) +
                         " that the study did not create (it lacks the study's comment): the study drops and "
                         "creates that table, so rename or drop it yourself, or name another database");
}

ForeignObject foreignDatabase(const ConnectionSpec& target) {
    return ForeignObject("the database " + target.label() +
                         " was not created by the study (it lacks the study's mark): the study drops and creates "
                         "bb_storage_<variant>.fdb beside the target, so move that database, or name a target in "
                         "another folder");
}

enum class Owner { None, Study, Other };

// Firebird: whether a database is there, and whether the study made it. One that cannot be attached
// counts as none: creating it then fails, saying why (Firebird creates no database over a file).
Owner firebirdOwner(const Driver& driver, const ConnectionSpec& target, const ParameterValues& base) {
    ParameterValues requested = base;
    requested["create_database"] = "false";  // a look, never a create
    std::unique_ptr<Session> s;
    try {
        s = driver.connect(target, resolveParameters(driver.parameters(), requested));
    } catch (const Error&) {
        return Owner::None;
    }
    return queryOne(*s, "SELECT RDB$DESCRIPTION FROM RDB$DATABASE") == kStudyMark ? Owner::Study : Owner::Other;
}

// What a cancel or a failure leaves, and how to remove it by hand.
std::string leftTable(const ConnectionSpec& spec, bool largeObjects) {
    return std::string("the table ") + kTable + (largeObjects ? " and its large objects" : "") + " in " + spec.label() +
           " (the next storage insert there removes " + (largeObjects ? "them" : "it") +
           "; by hand: " + (largeObjects ? std::string("SELECT lo_unlink(v) FROM ") + kTable + "; " : std::string()) +
           "DROP TABLE " + kTable + ")";
}

std::string leftDatabase(const ConnectionSpec& target) {
    return "the database " + target.label() +
           " (the next storage insert beside it removes it; by hand: isql, "
           "CONNECT and DROP DATABASE)";
}

// Drops the study's table, its large objects first (they outlive their rows). On PostgreSQL only a
// table bearing the study's mark; on Firebird the table is in the variant's own database.
void dropStudyTable(Session& s, const std::string& engine, const ConnectionSpec& spec) {
    if (!s.tableExists(kTable)) {
        return;
    }
    const bool pg = engine == "postgres";
    if (!tableIsTheStudys(s, engine)) {
        throw foreignTable(spec);
    }
    if (pg && queryOne(s, std::string("SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = '") +
                              kTable + "'::regclass AND attname = 'v'") == "oid") {
        // In batches: each unlink holds a lock to the end of its transaction, and 100,000 in one run
        // out of max_locks_per_transaction.
        const auto last = std::stoull(queryOne(s, std::string("SELECT coalesce(max(id), 0) FROM ") + kTable));
        for (std::uint64_t from = 0; from < last; from += 1000) {
            s.execute(std::string("SELECT lo_unlink(v) FROM ") + kTable + " WHERE id > " + std::to_string(from) +
                      " AND id <= " + std::to_string(from + 1000));
        }
    }
    s.execute(std::string("DROP TABLE ") + kTable);
}

bool createdNow(const Session& s) {
    const auto created = s.info().negotiated.find("created");
    return created != s.info().negotiated.end() && created->second == "true";
}

// Firebird: a database the connect created gets the study's mark; one it attached instead (made
// between the look and the create) must bear it already.
void markFirebirdDatabase(Session& s, const ConnectionSpec& target) {
    if (createdNow(s)) {
        s.execute(std::string("COMMENT ON DATABASE IS '") + kStudyMark + "'");
    } else if (queryOne(s, "SELECT RDB$DESCRIPTION FROM RDB$DATABASE") != kStudyMark) {
        throw foreignDatabase(target);
    }
}

// The timed inserts, the storage figure and the read-back, on a session of the variant's.
void measureVariant(Session& s, const std::string& engine, const ConnectionSpec& spec, const InsertOptions& o,
                    const std::vector<std::string>& pool, const ServerVariant& v, InsertResult& r) {
    for (const auto& effect : s.info().effects) {
        if (effect.id == "insert_method" && effect.requested == "ibatch") {
            if (!effect.inEffect) {
                throw Error(ErrorKind::Usage, effect.reason);  // reported as not in effect
            }
            r.how += "; in effect: IBatch";
        }
    }
    const bool pg = engine == "postgres";
    dropStudyTable(s, engine, spec);
    const std::string idType = pg ? "bigint" : "BIGINT";
    const std::string create =
        std::string("CREATE TABLE ") + kTable + " (id " + idType + " PRIMARY KEY, v " + v.columnType + " NOT NULL)";
    // One statement on PostgreSQL (one transaction): the table never exists without its mark.
    // MariaDB: the mark is the table's comment, in its CREATE.
    s.execute(pg                    ? create + "; COMMENT ON TABLE " + kTable + " IS '" + kStudyMark + "'"
              : engine == "mariadb" ? create + " ENGINE=InnoDB COMMENT='" + kStudyMark + "'"
                                    : create);
    const std::uint64_t loBefore =
        pg && v.largeObject ? std::stoull(queryOne(s, "SELECT pg_total_relation_size('pg_largeobject')")) : 0;
    const std::string insertSql =
        std::string("INSERT INTO ") + kTable + " (id, v) VALUES " + (pg ? "($1, $2)" : "(?, ?)");
    auto insert = s.prepareInsert(insertSql);
    // The column tunables (STORAGE, COMPRESSION) are applied by prepareInsert: read back what is in effect.
    for (const auto& effect : s.info().effects) {
        if ((effect.id == "column_storage" || effect.id == "column_compression") && effect.requested != "default") {
            r.how += "; in effect: " + effect.actual;
            break;
        }
    }
    try {
        timedInserts(
            r, o, pool,
            [&](std::uint64_t id) {
                insert->bindInteger(0, static_cast<std::int64_t>(id));
                const std::string& value = valueOfRow(pool, id);
                o.text ? insert->bindText(1, value) : insert->bindBytes(1, value);
                insert->execute();
            },
            [&] { s.commit(); }, [&] { s.begin(); });
    } catch (...) {
        try {
            s.rollback();
        } catch (const Error&) {
        }
        throw;
    }
    insert.reset();
    r.storageBytes = std::stoull(serverStorage(s, engine, r.storageHow, loBefore, v.largeObject));
    if (o.verify) {
        VerifySink sink(pool);
        QuerySpec q;
        q.sql = std::string("SELECT id, ") + (v.largeObject ? "lo_get(v)" : "v") + " FROM " + kTable + " ORDER BY id";
        if (pg) {
            q.statementParameters = {{"result_format", "binary"}};
        }
        s.query(q, sink, CancelToken());
        r.check = checkWords(sink.count, r.rows, sink.difference);
    }
    dropStudyTable(s, engine, spec);
}

InsertResult serverVariant(const Driver& driver, const ConnectionSpec& spec, const ParameterValues& base,
                           const InsertOptions& o, const std::vector<std::string>& pool, const ServerVariant& v) {
    InsertResult r;
    r.engine = driver.id();
    r.variant = v.name;
    r.how = v.how;
    if (!v.reason.empty()) {
        r.inEffect = false;
        r.reason = v.reason;
        return r;
    }
    const bool pg = driver.id() == "postgres";
    const bool fb = driver.id() == "firebird";  // a database of the variant's own; else a table in the target's
    ParameterValues requested = base;
    for (const auto& [k, value] : v.parameters) {
        requested[k] = value;
    }
    ConnectionSpec target = spec;
    if (fb) {
        target.target = firebirdVariantTarget(spec.target, v.name);
        if (target.target.empty()) {
            r.inEffect = false;
            r.reason = "the target names no database file to put a database of the variant's own beside";
            return r;
        }
        const Owner owner = firebirdOwner(driver, target, requested);
        if (owner == Owner::Other) {
            throw foreignDatabase(target);
        }
        if (owner == Owner::Study) {
            dropFirebirdDatabase(target);  // a leftover of an interrupted run
        }
        requested["create_database"] = "true";
        if (o.firebirdPageSize != 0) {
            requested["page_size"] = std::to_string(o.firebirdPageSize);
        }
    }
    const ParameterValues values = resolveParameters(driver.parameters(), requested);
    if (const auto method = values.find("insert_method");
        driver.id() == "mariadb" && method != values.end() && method->second == "long-data") {
        r.how += "; chunks of " + values.at("long_data_chunk") + " B (long_data_chunk)";  // as resolved: 5k M3
    }
    std::unique_ptr<Session> session;
    bool ownDatabase = false;  // Firebird: the variant's database is the study's, and is dropped after it
    // Firebird: the variant's own database goes with it; false when it could not be dropped.
    auto dropDatabase = [&] {
        session.reset();
        return !ownDatabase || dropFirebirdDatabase(target);
    };
    try {
        session = driver.connect(target, values);
        if (fb) {
            ownDatabase = createdNow(*session);
            markFirebirdDatabase(*session, target);
            ownDatabase = true;  // created now, or an earlier run's (it bears the mark)
            const std::uint64_t before =
                std::stoull(queryOne(*session, "SELECT MON$PAGES * MON$PAGE_SIZE FROM MON$DATABASE"));
            r.how += ", page size " + queryOne(*session, "SELECT MON$PAGE_SIZE FROM MON$DATABASE") + ", database " +
                     target.label();
            measureVariant(*session, driver.id(), spec, o, pool, v, r);
            *r.storageBytes -= std::min(*r.storageBytes, before);
        } else {
            measureVariant(*session, driver.id(), spec, o, pool, v, r);
        }
        dropDatabase();
    } catch (const ForeignObject&) {
        session.reset();
        throw;
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::Usage && r.rows == 0 && fb) {
            r.inEffect = false;
            r.reason = oneLine(e.what());
            dropDatabase();
            return r;
        }
        r.error = oneLine(e.what());
        r.partial = true;
        // A signal's hard deadline cuts a call that does not end (a server stopped): that error is the cancel's too.
        r.cancelled = e.kind() == ErrorKind::Cancelled || o.cancel.cancelled();
        const std::string text = e.what();
        if (pg && v.parameters.count("column_compression") && v.parameters.at("column_compression") == "lz4" &&
            text.find("lz4") != std::string::npos && r.rows == 0) {
            r.inEffect = false;
            r.reason = "the server refused lz4: " + oneLine(text);
            r.error.clear();
            r.partial = false;
        }
        if (fb && !dropDatabase()) {
            r.left = leftDatabase(target);
        }
        if (!fb && r.cancelled && session) {
            // A cancel removes what the study made (committed rows and their large objects) while it
            // can: a signal's hard deadline may cut this short, and the line says what is left.
            try {
                dropStudyTable(*session, driver.id(), spec);
            } catch (const Error&) {
                r.left = leftTable(spec, v.largeObject);
            }
        }
    }
    return r;
}

}  // namespace

double InsertResult::insertsPerSecond() const {
    return elapsed.count() == 0 ? 0.0 : static_cast<double>(rows) / (static_cast<double>(elapsed.count()) / 1e9);
}

double InsertResult::megabytesPerSecond() const {
    return elapsed.count() == 0 ? 0.0 : static_cast<double>(bytes) / 1e6 / (static_cast<double>(elapsed.count()) / 1e9);
}

double InsertResult::millisPerCommit() const {
    return commits == 0 ? 0.0 : static_cast<double>(elapsed.count()) / 1e6 / static_cast<double>(commits);
}

std::vector<std::string> insertVariants(const std::string& engine) {
    if (engine == "sqlite") {
        return {"bind", "zeroblob"};
    }
    if (engine == "postgres") {
        return {"bytea-pglz", "bytea-lz4",      "bytea-external", "bytea-main",
                "bytea-copy", "bytea-pipeline", "text",           "large-object"};
    }
    if (engine == "firebird") {
        return {"blob", "varchar", "ibatch"};
    }
    if (engine == "mariadb") {
        return {"longblob-binary", "longblob-text-hex", "longblob-long-data"};
    }
    return {};
}

void checkInsertOptions(const InsertOptions& o) {
    checkCount("rows", o.rows, kMaxRows);
    checkCount("size", o.valueBytes, kMaxValueBytes);
    const std::int64_t fps = o.firebirdPageSize;
    if (fps != 0 && (fps < 4096 || fps > 32768 || (fps & (fps - 1)) != 0)) {
        throw Error(ErrorKind::Usage,
                    "firebird page size " + std::to_string(fps) + " is not one of 4096, 8192, 16384, 32768");
    }
    if (o.commitEvery > o.rows) {
        throw Error(ErrorKind::Usage, "commit-every: " + std::to_string(o.commitEvery) + " is more than the " +
                                          std::to_string(o.rows) + " rows");
    }
}

// Each SQLite variant removes its insert-<variant>.sqlite* before it writes: a file of a variant the
// directory's mark does not list (no run of the study wrote it) is someone else's, and left alone.
void checkSqliteInsertDirectory(const std::filesystem::path& directory, const InsertOptions& o) {
    const std::vector<std::string> written = variantsWrittenIn(directory);
    for (const auto& variant : insertVariants("sqlite")) {
        if (!wanted(o, variant) || std::find(written.begin(), written.end(), variant) != written.end()) {
            continue;
        }
        for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
            const auto file = directory / ("insert-" + variant + ".sqlite" + suffix);
            std::error_code ec;
            if (std::filesystem::exists(std::filesystem::symlink_status(file, ec))) {  // a link too
                throw Error(ErrorKind::Usage, "the directory " + directory.string() + " holds " +
                                                  file.filename().string() +
                                                  " and no earlier run of the study wrote it: name another "
                                                  "directory, or remove the file (the study replaces "
                                                  "insert-<variant>.sqlite there)");
            }
        }
    }
}

std::vector<std::filesystem::path> sqliteInsertFiles(const std::filesystem::path& directory, const InsertOptions& o) {
    std::vector<std::filesystem::path> files;
    for (const auto& variant : insertVariants("sqlite")) {
        if (wanted(o, variant)) {
            for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
                files.push_back(directory / ("insert-" + variant + ".sqlite" + suffix));
            }
        }
    }
    files.push_back(directory / kSqliteInsertMark);
    return files;
}

std::vector<InsertResult> runSqliteInserts(const std::filesystem::path& directory, const InsertOptions& o,
                                           const std::function<void(const InsertResult&)>& done) {
    checkInsertOptions(o);
    checkVariants(o, "sqlite");
    checkSqliteInsertDirectory(directory, o);
    {
        SqliteStoreOptions probe;  // refuses bad pragmas before anything runs
        probe.path = ":memory:";
        probe.journalMode = o.journalMode == "wal" ? "memory" : o.journalMode;
        probe.synchronous = o.synchronous;
        probe.pageSize = o.pageSize;
        SqliteStore check(probe);
    }
    std::error_code ec;
    std::filesystem::create_directories(directory, ec);
    const auto pool = valuePool(o);
    std::vector<InsertResult> results;
    for (const auto& variant : insertVariants("sqlite")) {
        if (!wanted(o, variant)) {
            continue;
        }
        if (o.cancel.cancelled()) {
            throw Error(ErrorKind::Cancelled, "cancelled");
        }
        if (o.progress) {
            o.progress("sqlite " + variant);
        }
        markWritten(directory, variant);  // before its file: a run cut short still owns what it left
        results.push_back(sqliteVariant(directory, o, pool, variant));
        if (done) {
            done(results.back());
        }
    }
    return results;
}

std::vector<InsertResult> runServerInserts(const ConnectionSpec& spec, const ParameterValues& parameters,
                                           const InsertOptions& o,
                                           const std::function<void(const InsertResult&)>& done) {
    checkInsertOptions(o);
    const Driver& driver = driverById(spec.engine);
    if (driver.id() != "postgres" && driver.id() != "firebird" && driver.id() != "mariadb") {
        throw Error(ErrorKind::Usage, "insert: " + driver.displayName() + " has no server insert study");
    }
    checkVariants(o, driver.id());
    std::vector<ServerVariant> variants;
    {
        auto probe = driver.connect(spec, resolveParameters(driver.parameters(), parameters));
        variants = driver.id() == "postgres"  ? postgresVariants(*probe, o)
                   : driver.id() == "mariadb" ? mariadbVariants(o)
                                              : firebirdVariants(*probe, o);
        if (driver.id() != "firebird" && probe->tableExists(kTable) && !tableIsTheStudys(*probe, driver.id())) {
            throw foreignTable(spec);  // before any variant: nothing of someone else's is dropped
        }
    }
    for (const auto& v : variants) {
        if (driver.id() != "firebird" || !wanted(o, v.name) || !v.reason.empty()) {
            continue;
        }
        ConnectionSpec target = spec;
        target.target = firebirdVariantTarget(spec.target, v.name);
        if (!target.target.empty() && firebirdOwner(driver, target, parameters) == Owner::Other) {
            throw foreignDatabase(target);
        }
    }
    const auto pool = valuePool(o);
    std::vector<InsertResult> results;
    for (const auto& v : variants) {
        if (!wanted(o, v.name)) {
            continue;
        }
        if (o.cancel.cancelled()) {
            throw Error(ErrorKind::Cancelled, "cancelled");
        }
        if (o.progress) {
            o.progress(driver.id() + " " + v.name);
        }
        results.push_back(serverVariant(driver, spec, parameters, o, pool, v));
        if (done) {
            done(results.back());
        }
    }
    return results;
}

}  // namespace blobbench::storage
