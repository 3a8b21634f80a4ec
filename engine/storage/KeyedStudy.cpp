#include "engine/storage/KeyedStudy.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <optional>

#include "engine/core/ClientPause.h"
#include "engine/core/Error.h"

namespace blobbench::storage {
namespace {

using Clock = std::chrono::steady_clock;

// Sets the result's elapsed time when the scope ends, also when a write fails half-way.
class Stopwatch {
public:
    explicit Stopwatch(KeyedResult& r) : m_r(r), m_t0(Clock::now()), m_paused(clientpause::pausesSoFar()) {}
    ~Stopwatch() {
        m_r.elapsed = Clock::now() - m_t0;
        m_r.disturbed = clientpause::disturbanceSince(m_paused, "this step");
    }
    Stopwatch(const Stopwatch&) = delete;
    Stopwatch& operator=(const Stopwatch&) = delete;

private:
    KeyedResult& m_r;
    Clock::time_point m_t0;
    clientpause::Pauses m_paused;
};

constexpr std::uint64_t kMaxCount = 100'000'000;
constexpr std::uint64_t kMaxValueBytes = 1ULL << 30;

// Left in the work directory: a later run may replace what it holds (store.sqlite*, files/).
constexpr const char* kStudyMark = ".blobbench-keyed-study";

// The work directory is new, empty, or one this study wrote (its mark): the study removes
// DIR/files and DIR/store.sqlite* before it writes, and removed a folder's own files/ and database
// without a word (hostile round 5d H7).
void refuseAForeignDirectory(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec) || fs::exists(dir / kStudyMark, ec)) {
        return;  // new (or not a directory: creating it says why), or the study's own
    }
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
        throw Error(ErrorKind::Usage, "the work directory " + dir.string() + " holds " +
                                          entry.path().filename().string() +
                                          " and no earlier run of the study wrote it: name a new or empty directory "
                                          "(the study replaces store.sqlite and files/ in it)");
    }
}

std::string orderName(bool random) {
    return random ? "random" : "ascending";
}

class Study {
public:
    Study(const KeyedOptions& o, KeyedReport& report) : m_o(o), m_report(report) {}

    void run() {
        std::filesystem::create_directories(m_o.directory);
        if (FILE* mark = std::fopen((m_o.directory / kStudyMark).c_str(), "w")) {
            std::fclose(mark);
        }
        const auto dbPath = m_o.directory / "store.sqlite";
        for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
            std::filesystem::remove(dbPath.string() + suffix);
        }
        std::filesystem::remove_all(m_o.directory / "files");
        m_so.path = dbPath.string();
        m_so.journalMode = m_o.journalMode;
        m_so.synchronous = m_o.synchronous;
        m_so.pageSize = m_o.pageSize;
        m_so.mmapSize = 0;
        FileStore files({m_o.directory / "files", m_o.layout, m_o.fsync});
        {
            SqliteStore db(m_so);
            for (const auto& e : db.effects()) {
                m_report.notes.push_back(
                    "sqlite " + e.name + (e.name == "cache_size" ? " of the writes" : "") + " = " + e.actual +
                    (e.actual == e.requested ? "" : " (asked " + e.requested + ": not in effect)"));
            }
            m_report.notes.push_back(std::string("files: ") +
                                     (m_o.layout == FileLayout::Tree ? "two-level tree" : "one flat directory") +
                                     (m_o.fsync ? ", fsync every write" : ", no fsync"));
            writePhase(db, files);
            // Untimed: the writes' dirty pages reach the disk now, not while the first read phase runs,
            // and the allocated sizes are final.
            ::sync();
            footprintPhase(db, files);
        }
        if (m_o.reads) {
            describeMethod();
            for (bool random : orders()) {
                for (const ReadPath path : m_o.paths) {
                    if (path == ReadPath::Files) {
                        readFiles(files, random);
                    } else {
                        readSqlite(path, random);
                    }
                }
            }
        }
        if (m_o.updates) {
            SqliteStore db(m_so);
            updatePhase(db, files);
        }
    }

private:
    std::vector<bool> orders() const {
        std::vector<bool> out;
        if (m_o.ascending) {
            out.push_back(false);
        }
        if (m_o.random) {
            out.insert(m_o.randomFirst ? out.begin() : out.end(), true);
        }
        return out;
    }

    SqliteStoreOptions readOptions(bool mapped) const {
        SqliteStoreOptions so = m_so;
        so.mmapSize = mapped ? m_o.mmapSize : 0;
        so.cacheSize = m_o.cacheSize;
        return so;
    }

    void describeMethod() {
        auto& m = m_report.method;
        const bool loop = m_o.transaction == TransactionMode::Loop;
        m.emplace_back("transaction", std::string(transactionName(m_o.transaction)) +
                                          (loop ? ": one BEGIN...COMMIT around each pass (as kvtest)"
                                                : ": one per value (kvtest --multitrans; blob API: a handle "
                                                  "opened and closed per value)"));
        m.emplace_back("mapping", std::string(mappingName(m_o.mapping)) +
                                      (m_o.mapping == MappingMode::Cold
                                           ? ": each timed pass on a connection opened for it (mmap afresh, as "
                                             "kvtest's new process)"
                                           : ": the timed pass on the warm-up's connection (mapping already "
                                             "faulted in)"));
        m.emplace_back("values", m_o.copyValues
                                     ? "copied into a std::string"
                                     : "in place (SQL: the column's pointer; blob API and files: one reused buffer)");
        m.emplace_back("warm-up", m_o.warmup ? "one untimed pass over the same keys before each timed pass"
                                             : "none: the timed pass is the first");
        m.emplace_back("connections",
                       "each read path and order on its own, every statement and handle "
                       "closed after it");
        m.emplace_back("files",
                       "open, fstat, read into one reused buffer, close (kvtest: stat, fopen, malloc, "
                       "fread, fclose, free: ours is one path lookup and one allocation fewer)");
        std::int64_t cache = m_o.cacheSize;
        std::int64_t mmap = 0;
        {
            SqliteStore probe(readOptions(true));
            cache = probe.cacheSizeInEffect();
            mmap = probe.mmapSizeInEffect();
        }
        m.emplace_back("cache_size", std::to_string(cache) + (cache > 0 ? " pages" : " KiB") +
                                         (cache == 1000 ? " (kvtest's default)" : ""));
        m.emplace_back("page_size", std::to_string(m_o.pageSize));
        m.emplace_back("mmap_size",
                       std::to_string(mmap) + (mmap == m_o.mmapSize ? ""
                                                                    : " (asked " + std::to_string(m_o.mmapSize) +
                                                                          ": capped by SQLITE_MAX_MMAP_SIZE)"));
        m.emplace_back("sqlite", sqliteVersion());
        std::string options;
        for (const auto& o : sqliteCompileOptionsThatMatter()) {
            options += (options.empty() ? "" : ", ") + o;
        }
        m.emplace_back("compile options", options);
    }

    void announce(const std::string& what) {
        if (m_o.progress) {
            m_o.progress(what);
        }
    }

    KeyedResult& add(std::string phase, std::string store, std::string variant, std::string order) {
        KeyedResult r;
        r.phase = std::move(phase);
        r.store = std::move(store);
        r.variant = std::move(variant);
        r.order = std::move(order);
        r.check = "not checked";
        m_report.results.push_back(std::move(r));
        return m_report.results.back();
    }

    // Checks every value through `read` (returning a view), untimed; returns the check's words.
    template <typename Read>
    std::string verify(const ValueShape& shape, Read&& read) {
        if (!m_o.verify) {
            return "not checked";
        }
        std::string expected;
        for (std::uint64_t key = 1; key <= m_o.count; ++key) {
            valueFor(shape, key, expected);
            std::string diff = compareValue(key, expected, read(key));
            if (!diff.empty()) {
                return diff;
            }
        }
        return "byte-exact";
    }

    void writePhase(SqliteStore& db, FileStore& files) {
        std::string value;
        announce("write sqlite");
        {
            auto& r = add("write", "sqlite", "insert, bind, one transaction", "ascending");
            const auto t0 = Clock::now();
            const clientpause::Pauses paused0 = clientpause::pausesSoFar();
            db.begin();
            try {
                for (std::uint64_t key = 1; key <= m_o.count; ++key) {
                    valueFor(m_o.shape, key, value);
                    db.insert(key, value);
                    r.bytes += value.size();
                }
                db.commit();
            } catch (...) {
                db.rollback();
                throw;
            }
            r.elapsed = Clock::now() - t0;
            r.disturbed = clientpause::disturbanceSince(paused0, "this step");
            r.values = m_o.count;
        }
        announce("write files");
        {
            auto& r = add("write", "files", m_o.fsync ? "open/write/fsync/close" : "open/write/close", "ascending");
            Stopwatch watch(r);
            for (std::uint64_t key = 1; key <= m_o.count; ++key) {
                valueFor(m_o.shape, key, value);
                files.write(key, value);
                r.bytes += value.size();
                r.values = key;
            }
        }
        m_report.notes.emplace_back("write times include generating the values; sync(2) after the writes, untimed");
    }

    void footprintPhase(SqliteStore& db, FileStore& files) {
        announce("footprint");
        FootprintResult f;
        f.sqliteBytes = db.footprint();
        f.sqlitePageSize = static_cast<std::uint64_t>(m_o.pageSize);
        f.files = files.footprint();
        f.valueBytes = f.files.fileBytes;
        m_report.footprint = f;
    }

    // One pass over `keys` on `db` in the study's transaction mode; the bytes read.
    std::uint64_t sqlitePass(SqliteStore& db, bool blob, const std::vector<std::uint64_t>& keys) {
        const bool loop = m_o.transaction == TransactionMode::Loop;
        const BlobHandle handle = loop ? BlobHandle::Reopen : BlobHandle::OpenPerRead;
        std::uint64_t bytes = 0;
        if (loop) {
            db.begin();
        }
        try {
            if (m_o.copyValues) {
                std::string& value = m_copy;
                for (const auto key : keys) {
                    blob ? db.readBlob(key, value) : db.readSql(key, value);
                    bytes += value.size();
                    if (!loop && blob) {
                        db.endReads();
                    }
                }
            } else {
                for (const auto key : keys) {
                    bytes += (blob ? db.readBlobInPlace(key, handle) : db.readSqlInPlace(key)).size();
                    if (!loop && !blob) {
                        db.endReads();  // the statement reset: its read transaction ends with the value
                    }
                }
            }
            db.endReads();
            if (loop) {
                db.commit();
            }
        } catch (...) {
            db.endReads();
            db.rollback();
            throw;
        }
        return bytes;
    }

    void readSqlite(ReadPath path, bool random) {
        const bool mapped = path == ReadPath::SqlMmap || path == ReadPath::BlobMmap;
        const bool blob = path == ReadPath::Blob || path == ReadPath::BlobMmap;
        const std::string variant = pathName(path);
        announce("read sqlite " + variant + " " + orderName(random));
        auto& r = add("read", "sqlite", variant, orderName(random));
        const auto keys = keyOrder(m_o.count, random, m_o.orderSeed);
        const SqliteStoreOptions so = readOptions(mapped);
        std::optional<SqliteStore> db;
        if (m_o.warmup) {
            db.emplace(so);
            sqlitePass(*db, blob, keys);
            if (m_o.mapping == MappingMode::Cold) {
                db.reset();
            }
        }
        r.connection = db ? "warm-up's" : "fresh";
        if (!db) {
            db.emplace(so);
        }
        const LockCounts before = db->lockCounts();
        const auto t0 = Clock::now();
        const clientpause::Pauses paused0 = clientpause::pausesSoFar();
        r.bytes = sqlitePass(*db, blob, keys);
        r.elapsed = Clock::now() - t0;
        r.disturbed = clientpause::disturbanceSince(paused0, "this step");
        r.locks = db->lockCounts() - before;
        r.values = keys.size();
        r.check =
            verify(m_o.shape, [&](std::uint64_t k) { return blob ? db->readBlobInPlace(k) : db->readSqlInPlace(k); });
        db->endReads();
        if (!db->idle()) {
            throw Error(ErrorKind::Sql, "sqlite: " + variant + " left a statement or transaction open");
        }
    }

    void readFiles(FileStore& files, bool random) {
        announce("read files " + orderName(random));
        auto& r = add("read", "files", "open/read/close", orderName(random));
        r.connection = "-";
        const auto keys = keyOrder(m_o.count, random, m_o.orderSeed);
        auto pass = [&] {
            std::uint64_t bytes = 0;
            if (m_o.copyValues) {
                for (const auto key : keys) {
                    files.read(key, m_copy);
                    bytes += m_copy.size();
                }
            } else {
                for (const auto key : keys) {
                    bytes += files.readInto(key, m_buffer).size();
                }
            }
            return bytes;
        };
        if (m_o.warmup) {
            pass();
        }
        const auto t0 = Clock::now();
        const clientpause::Pauses paused0 = clientpause::pausesSoFar();
        r.bytes = pass();
        r.elapsed = Clock::now() - t0;
        r.disturbed = clientpause::disturbanceSince(paused0, "this step");
        r.values = keys.size();
        r.check = verify(m_o.shape, [&](std::uint64_t k) { return files.readInto(k, m_buffer); });
    }

    void updatePhase(SqliteStore& db, FileStore& files) {
        ValueShape next = m_o.shape;
        next.seed += 1;
        const auto keys = keyOrder(m_o.count, true, m_o.orderSeed + 1);
        std::vector<std::string> values(keys.size());  // generated before the clock starts
        for (std::size_t i = 0; i < keys.size(); ++i) {
            valueFor(next, keys[i], values[i]);
        }
        announce("update sqlite");
        {
            auto& r = add("update", "sqlite", "update, bind, one transaction", "random");
            const auto t0 = Clock::now();
            const clientpause::Pauses paused0 = clientpause::pausesSoFar();
            db.begin();
            try {
                for (std::size_t i = 0; i < keys.size(); ++i) {
                    db.update(keys[i], values[i]);
                    r.bytes += values[i].size();
                }
                db.commit();
            } catch (...) {
                db.rollback();
                throw;
            }
            r.elapsed = Clock::now() - t0;
            r.disturbed = clientpause::disturbanceSince(paused0, "this step");
            r.values = keys.size();
            r.check = verify(next, [&](std::uint64_t k) { return db.readSqlInPlace(k); });
            db.endReads();
        }
        announce("update files");
        {
            auto& r = add("update", "files", m_o.fsync ? "rewrite (O_TRUNC), fsync" : "rewrite (O_TRUNC)", "random");
            {
                Stopwatch watch(r);
                for (std::size_t i = 0; i < keys.size(); ++i) {
                    files.write(keys[i], values[i]);
                    r.bytes += values[i].size();
                    r.values = i + 1;
                }
            }
            r.check = verify(next, [&](std::uint64_t k) { return files.readInto(k, m_buffer); });
        }
        announce("update files in place");
        {
            for (std::size_t i = 0; i < keys.size(); ++i) {  // the original values back, generated untimed
                valueFor(m_o.shape, keys[i], values[i]);
            }
            auto& r = add("update", "files", m_o.fsync ? "overwrite in place, fsync" : "overwrite in place", "random");
            {
                Stopwatch watch(r);
                for (std::size_t i = 0; i < keys.size(); ++i) {
                    files.overwrite(keys[i], values[i]);
                    r.bytes += values[i].size();
                    r.values = i + 1;
                }
            }
            r.check = verify(m_o.shape, [&](std::uint64_t k) { return files.readInto(k, m_buffer); });
        }
    }

    const KeyedOptions& m_o;
    KeyedReport& m_report;
    SqliteStoreOptions m_so;
    std::string m_copy;
    std::vector<char> m_buffer;
};

}  // namespace

const char* transactionName(TransactionMode mode) {
    return mode == TransactionMode::Loop ? "loop" : "per-read";
}

const char* mappingName(MappingMode mode) {
    return mode == MappingMode::Cold ? "cold" : "warm";
}

namespace {
constexpr ReadPath kPaths[] = {ReadPath::Sql, ReadPath::Blob, ReadPath::SqlMmap, ReadPath::BlobMmap, ReadPath::Files};
}

const char* pathName(ReadPath path) {
    switch (path) {
        case ReadPath::Sql:
            return "sql";
        case ReadPath::Blob:
            return "blob api";
        case ReadPath::SqlMmap:
            return "sql + mmap";
        case ReadPath::BlobMmap:
            return "blob api + mmap";
        case ReadPath::Files:
            break;
    }
    return "files";
}

const char* pathOption(ReadPath path) {
    switch (path) {
        case ReadPath::Sql:
            return "sql";
        case ReadPath::Blob:
            return "blob";
        case ReadPath::SqlMmap:
            return "sql-mmap";
        case ReadPath::BlobMmap:
            return "blob-mmap";
        case ReadPath::Files:
            break;
    }
    return "files";
}

std::vector<ReadPath> parsePaths(const std::string& list) {
    std::vector<ReadPath> out;
    for (const std::string& name : splitOptionList(list)) {
        const auto* found =
            std::find_if(std::begin(kPaths), std::end(kPaths), [&](ReadPath p) { return name == pathOption(p); });
        if (found == std::end(kPaths)) {
            throw Error(ErrorKind::Usage, "paths: '" + name + "' is not one of sql, blob, sql-mmap, blob-mmap, files");
        }
        if (std::find(out.begin(), out.end(), *found) == out.end()) {
            out.push_back(*found);
        }
    }
    if (out.empty()) {
        throw Error(ErrorKind::Usage, "paths: name at least one of sql, blob, sql-mmap, blob-mmap, files");
    }
    return out;
}

double KeyedResult::microsPerValue() const {
    return values == 0 ? 0.0 : static_cast<double>(elapsed.count()) / 1e3 / static_cast<double>(values);
}

double KeyedResult::megabytesPerSecond() const {
    return elapsed.count() == 0 ? 0.0 : static_cast<double>(bytes) / 1e6 / (static_cast<double>(elapsed.count()) / 1e9);
}

double FootprintResult::ratio() const {
    return files.allocated() == 0 ? 0.0 : static_cast<double>(sqliteBytes) / static_cast<double>(files.allocated());
}

std::string compareValue(std::uint64_t key, std::string_view expected, std::string_view actual) {
    if (expected.size() != actual.size()) {
        return "key " + std::to_string(key) + ": read " + std::to_string(actual.size()) + " bytes, wrote " +
               std::to_string(expected.size());
    }
    if (expected != actual) {
        std::size_t at = 0;
        while (at < expected.size() && expected[at] == actual[at]) {
            ++at;
        }
        return "key " + std::to_string(key) + ": bytes differ from offset " + std::to_string(at);
    }
    return {};
}

KeyedStudyFiles keyedStudyFiles(const std::filesystem::path& directory) {
    KeyedStudyFiles out;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
        out.files.push_back(directory / (std::string("store.sqlite") + suffix));
    }
    out.files.push_back(directory / kStudyMark);
    out.folder = directory / "files";
    return out;
}

KeyedReport runKeyedStudy(const KeyedOptions& options) {
    const clientpause::Watch pauses;  // a stopped or suspended client is said with the step it disturbed
    checkCount("count", options.count, kMaxCount);
    checkCount("value size", options.shape.meanBytes, kMaxValueBytes);
    if (options.shape.spreadBytes >= options.shape.meanBytes) {
        throw Error(ErrorKind::Usage, "spread: " + std::to_string(options.shape.spreadBytes) +
                                          " must be smaller than the value size " +
                                          std::to_string(options.shape.meanBytes));
    }
    if (options.directory.empty()) {
        throw Error(ErrorKind::Usage, "name a work directory");
    }
    refuseAForeignDirectory(options.directory);
    if (options.reads && options.paths.empty()) {
        throw Error(ErrorKind::Usage, "paths: name at least one read path");
    }
    if (options.cacheSize == 0) {
        throw Error(ErrorKind::Usage, "cache-size: 0 is not a cache (pages, or negative KiB)");
    }
    if (options.reads && !options.ascending && !options.random) {
        throw Error(ErrorKind::Usage, "order: choose ascending, random or both");
    }
    KeyedReport report;
    try {
        Study(options, report).run();
    } catch (const Error& e) {
        report.error = oneLine(e.what());
    } catch (const std::filesystem::filesystem_error& e) {
        report.error = oneLine(std::string("files: ") + e.what());
    }
    if (!report.error.empty() && !report.results.empty()) {
        report.results.back().partial = true;  // the step the run stopped in
    }
    return report;
}

}  // namespace blobbench::storage
