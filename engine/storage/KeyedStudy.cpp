#include "engine/storage/KeyedStudy.h"

#include <unistd.h>

#include <chrono>

#include "engine/core/Error.h"
#include "engine/storage/SqliteStore.h"

namespace blobbench::storage {
namespace {

using Clock = std::chrono::steady_clock;

// Sets the result's elapsed time when the scope ends, also when a write fails half-way.
class Stopwatch {
public:
    explicit Stopwatch(KeyedResult& r) : m_r(r), m_t0(Clock::now()) {}
    ~Stopwatch() { m_r.elapsed = Clock::now() - m_t0; }
    Stopwatch(const Stopwatch&) = delete;
    Stopwatch& operator=(const Stopwatch&) = delete;

private:
    KeyedResult& m_r;
    Clock::time_point m_t0;
};

constexpr std::uint64_t kMaxCount = 100'000'000;
constexpr std::uint64_t kMaxValueBytes = 1ULL << 30;

std::string orderName(bool random) {
    return random ? "random" : "ascending";
}

class Study {
public:
    Study(const KeyedOptions& o, KeyedReport& report) : m_o(o), m_report(report) {}

    void run() {
        std::filesystem::create_directories(m_o.directory);
        const auto dbPath = m_o.directory / "store.sqlite";
        for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
            std::filesystem::remove(dbPath.string() + suffix);
        }
        std::filesystem::remove_all(m_o.directory / "files");
        SqliteStoreOptions so;
        so.path = dbPath.string();
        so.journalMode = m_o.journalMode;
        so.synchronous = m_o.synchronous;
        so.pageSize = m_o.pageSize;
        so.mmapSize = 0;
        FileStore files({m_o.directory / "files", m_o.layout, m_o.fsync});
        {
            SqliteStore db(so);
            for (const auto& e : db.effects()) {
                m_report.notes.push_back(
                    "sqlite " + e.name + " = " + e.actual +
                    (e.actual == e.requested ? "" : " (asked " + e.requested + ": not in effect)"));
            }
            m_report.notes.push_back(std::string("files: ") +
                                     (m_o.layout == FileLayout::Tree ? "two-level tree" : "flat directory") +
                                     (m_o.fsync ? ", fsync every write" : ", no fsync"));
            writePhase(db, files);
            // Untimed: the writes' dirty pages reach the disk now, not while the first read phase runs,
            // and the allocated sizes are final.
            ::sync();
            footprintPhase(db, files);
            if (m_o.reads) {
                for (bool random : orders()) {
                    readPhase(db, false, "sql", random, [&](std::uint64_t k, std::string& out) { db.readSql(k, out); });
                    readPhase(db, false, "blob api", random,
                              [&](std::uint64_t k, std::string& out) { db.readBlob(k, out); });
                }
            }
        }
        if (m_o.reads) {
            so.mmapSize = m_o.mmapSize;
            SqliteStore mapped(so);
            const auto inEffect = mapped.mmapSizeInEffect();
            m_report.notes.push_back("sqlite mmap_size for the mmap variants = " + std::to_string(inEffect) +
                                     (inEffect == m_o.mmapSize ? ""
                                                               : " (asked " + std::to_string(m_o.mmapSize) +
                                                                     ": capped by SQLITE_MAX_MMAP_SIZE)"));
            for (bool random : orders()) {
                readPhase(mapped, true, "sql + mmap", random,
                          [&](std::uint64_t k, std::string& out) { mapped.readSql(k, out); });
                readPhase(mapped, true, "blob api + mmap", random,
                          [&](std::uint64_t k, std::string& out) { mapped.readBlob(k, out); });
                readFiles(files, random);
            }
        }
        if (m_o.updates) {
            SqliteStore db(so);
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
            out.push_back(true);
        }
        return out;
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

    // Checks every value through `read`, untimed; returns the check's words.
    template <typename Read>
    std::string verify(const ValueShape& shape, Read&& read) {
        if (!m_o.verify) {
            return "not checked";
        }
        std::string expected, actual;
        for (std::uint64_t key = 1; key <= m_o.count; ++key) {
            valueFor(shape, key, expected);
            read(key, actual);
            const std::string diff = compareValue(key, expected, actual);
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
        m_report.notes.push_back("write times include generating the values; sync(2) after the writes, untimed");
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

    template <typename Read>
    void readPhase(SqliteStore&, bool, const std::string& variant, bool random, Read&& read) {
        announce("read sqlite " + variant + " " + orderName(random));
        auto& r = add("read", "sqlite", variant, orderName(random));
        timedReads(r, random, read);
        r.check = verify(m_o.shape, read);
    }

    void readFiles(FileStore& files, bool random) {
        announce("read files " + orderName(random));
        auto& r = add("read", "files", "open/read/close", orderName(random));
        auto read = [&](std::uint64_t k, std::string& out) { files.read(k, out); };
        timedReads(r, random, read);
        r.check = verify(m_o.shape, read);
    }

    template <typename Read>
    void timedReads(KeyedResult& r, bool random, Read& read) {
        const auto keys = keyOrder(m_o.count, random, m_o.orderSeed);
        std::string value;
        value.reserve(m_o.shape.meanBytes + m_o.shape.spreadBytes);
        std::uint64_t bytes = 0;
        const auto t0 = Clock::now();
        for (const auto key : keys) {
            read(key, value);
            bytes += value.size();
        }
        r.elapsed = Clock::now() - t0;
        r.values = keys.size();
        r.bytes = bytes;
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
            r.values = keys.size();
            r.check = verify(next, [&](std::uint64_t k, std::string& out) { db.readSql(k, out); });
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
            r.check = verify(next, [&](std::uint64_t k, std::string& out) { files.read(k, out); });
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
            r.check = verify(m_o.shape, [&](std::uint64_t k, std::string& out) { files.read(k, out); });
        }
    }

    const KeyedOptions& m_o;
    KeyedReport& m_report;
};

}  // namespace

double KeyedResult::microsPerValue() const {
    return values == 0 ? 0.0 : static_cast<double>(elapsed.count()) / 1e3 / static_cast<double>(values);
}

double KeyedResult::megabytesPerSecond() const {
    return elapsed.count() == 0 ? 0.0 : static_cast<double>(bytes) / 1e6 / (static_cast<double>(elapsed.count()) / 1e9);
}

double FootprintResult::ratio() const {
    return files.allocated() == 0 ? 0.0 : static_cast<double>(sqliteBytes) / static_cast<double>(files.allocated());
}

std::string compareValue(std::uint64_t key, const std::string& expected, const std::string& actual) {
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

KeyedReport runKeyedStudy(const KeyedOptions& options) {
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
