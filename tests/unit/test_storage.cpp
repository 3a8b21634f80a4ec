// The storage experiments' engine side: the files store on a temp dir, footprint arithmetic against
// stat(), the SQLite paths read back byte-exact, and bad input (missing key, zero or absurd sizes,
// a read-only directory, a size-limited file standing in for a full disk).
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <map>

#include "engine/core/Error.h"
#include "engine/storage/FileStore.h"
#include "engine/storage/InsertStudy.h"
#include "engine/storage/KeyedStudy.h"
#include "engine/storage/SqliteStore.h"
#include "engine/storage/StorageValues.h"
#include "support/TestSupport.h"

using namespace blobbench;
using namespace blobbench::storage;
using blobbench::test::TempDir;

namespace {

ValueShape smallShape() {
    ValueShape s;
    s.meanBytes = 3000;
    s.spreadBytes = 1000;
    return s;
}

std::uint64_t statAllocated(const std::filesystem::path& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return static_cast<std::uint64_t>(st.st_blocks) * 512;
}

// Limits the size of any file this process writes (RLIMIT_FSIZE): writes past it fail with EFBIG,
// the way a full disk makes them fail. SIGXFSZ is ignored so that the failure is an error code.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &m_old);
        m_handler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit = m_old;
        limit.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &limit);
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &m_old);
        std::signal(SIGXFSZ, m_handler);
    }

private:
    rlimit m_old{};
    void (*m_handler)(int) = nullptr;
};

}  // namespace

TEST(StorageValues, DeterministicLengthsWithinSpreadAndIncompressible) {
    const ValueShape shape;  // 10,000 +- 2,000 bytes, the article's
    std::string a, b;
    std::uint64_t shortest = UINT64_MAX, longest = 0;
    for (std::uint64_t key = 1; key <= 2000; ++key) {
        valueFor(shape, key, a);
        valueFor(shape, key, b);
        ASSERT_EQ(a, b);
        ASSERT_EQ(a.size(), valueLength(shape, key));
        shortest = std::min<std::uint64_t>(shortest, a.size());
        longest = std::max<std::uint64_t>(longest, a.size());
    }
    EXPECT_GE(shortest, 10000u - 2000u);
    EXPECT_LE(longest, 10000u + 2000u);
    EXPECT_LT(shortest, 10000u - 1500u);  // the spread is used, not just the mean
    EXPECT_GT(longest, 10000u + 1500u);
    valueFor(shape, 1, a);
    valueFor(shape, 2, b);
    EXPECT_NE(a, b);
}

TEST(StorageValues, KeyOrderIsAPermutationSeeded) {
    const auto asc = keyOrder(1000, false, 7);
    for (std::uint64_t i = 0; i < asc.size(); ++i) {
        ASSERT_EQ(asc[i], i + 1);
    }
    auto random = keyOrder(1000, true, 7);
    EXPECT_NE(random, asc);
    EXPECT_EQ(random, keyOrder(1000, true, 7));
    EXPECT_NE(random, keyOrder(1000, true, 8));
    std::sort(random.begin(), random.end());
    EXPECT_EQ(random, asc);
}

TEST(FileStore, FlatAndTreeReadBackByteExact) {
    for (const auto layout : {FileLayout::Flat, FileLayout::Tree}) {
        TempDir dir;
        FileStore store({dir.path() / "files", layout, layout == FileLayout::Tree});
        const auto shape = smallShape();
        std::string value, read;
        for (std::uint64_t key = 1; key <= 600; ++key) {
            valueFor(shape, key, value);
            store.write(key, value);
        }
        for (std::uint64_t key = 600; key >= 1; --key) {
            valueFor(shape, key, value);
            store.read(key, read);
            ASSERT_EQ(read, value) << key;
        }
        if (layout == FileLayout::Tree) {
            EXPECT_EQ(store.pathOf(0x51234), dir.path() / "files" / "05" / "12" / std::to_string(0x51234));
        } else {
            EXPECT_EQ(store.pathOf(77), dir.path() / "files" / "77");
        }
        EXPECT_TRUE(std::filesystem::exists(store.pathOf(600)));
        // A shorter value replaces a longer one completely.
        store.write(5, "short");
        store.read(5, read);
        EXPECT_EQ(read, "short");
        store.write(6, "");
        store.read(6, read);
        EXPECT_EQ(read, "");
    }
}

TEST(FileStore, OverwriteInPlaceShrinksAndGrowsAndNeedsTheKey) {
    TempDir dir;
    FileStore store({dir.path(), FileLayout::Tree, false});
    std::string read;
    store.write(9, std::string(5000, 'a'));
    store.overwrite(9, "bcd");
    store.read(9, read);
    EXPECT_EQ(read, "bcd");
    store.overwrite(9, std::string(7000, 'e'));
    store.read(9, read);
    EXPECT_EQ(read, std::string(7000, 'e'));
    EXPECT_THROW(store.overwrite(10, "x"), Error);
    EXPECT_FALSE(store.exists(10));
}

TEST(FileStore, MissingKeyIsADataErrorNamingTheKey) {
    TempDir dir;
    FileStore store({dir.path(), FileLayout::Tree, false});
    std::string out;
    try {
        store.read(424242, out);
        FAIL() << "read of a missing key succeeded";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Data);
        EXPECT_NE(std::string(e.what()).find("key 424242 does not exist"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
    EXPECT_FALSE(store.exists(424242));
}

TEST(FileStore, NotADirectoryIsRefused) {
    TempDir dir;
    blobbench::test::writeFile(dir.path() / "plain", "x");
    EXPECT_THROW(FileStore({dir.path() / "plain", FileLayout::Flat, false}), Error);
}

TEST(FileStore, FootprintMatchesStatOfEveryFileAndDirectory) {
    TempDir dir;
    FileStore store({dir.path() / "f", FileLayout::Tree, false});
    std::string value;
    std::uint64_t valueBytes = 0;
    for (std::uint64_t key = 1; key <= 300; ++key) {
        valueFor(smallShape(), key, value);
        store.write(key, value);
        valueBytes += value.size();
    }
    std::uint64_t files = 0, fileAllocated = 0, dirAllocated = statAllocated(dir.path() / "f");
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path() / "f")) {
        if (entry.is_directory()) {
            dirAllocated += statAllocated(entry.path());
        } else {
            ++files;
            fileAllocated += statAllocated(entry.path());
        }
    }
    const Footprint f = store.footprint();
    EXPECT_EQ(f.files, 300u);
    EXPECT_EQ(f.files, files);
    EXPECT_EQ(f.fileBytes, valueBytes);
    EXPECT_EQ(f.fileAllocated, fileAllocated);
    EXPECT_EQ(f.directoryAllocated, dirAllocated);
    EXPECT_EQ(f.allocated(), fileAllocated + dirAllocated);
    EXPECT_GE(f.fileAllocated, f.fileBytes);  // whole blocks
    EXPECT_EQ(allocatedBytes(store.pathOf(1)), statAllocated(store.pathOf(1)));
}

TEST(FileStore, SizeLimitedFileGivesOneLineIoErrorAndNoShortFile) {
    TempDir dir;
    FileStore store({dir.path(), FileLayout::Flat, false});
    const std::string big(256 * 1024, 'x');
    try {
        FileSizeLimit limit(64 * 1024);
        store.write(1, big);
        FAIL() << "a write past the file size limit succeeded";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Io);
        EXPECT_NE(std::string(e.what()).find("cannot write"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
    EXPECT_FALSE(store.exists(1));  // a short file is never left looking like a value
}

TEST(FileStore, ReadOnlyDirectoryGivesIoError) {
    TempDir dir;
    const auto ro = dir.path() / "ro";
    std::filesystem::create_directories(ro);
    bool mounted = false;
    if (geteuid() == 0) {  // root writes through permission bits: use a read-only tmpfs instead
        mounted = ::mount("tmpfs", ro.c_str(), "tmpfs", MS_RDONLY, "size=64k") == 0;
        if (!mounted) {
            GTEST_SKIP() << "running as root without permission to mount a read-only tmpfs";
        }
    } else {
        std::filesystem::permissions(ro, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    }
    FileStore store({ro, FileLayout::Flat, false});
    EXPECT_THROW(
        {
            try {
                store.write(1, "value");
            } catch (const Error& e) {
                EXPECT_EQ(e.kind(), ErrorKind::Io);
                EXPECT_NE(std::string(e.what()).find("cannot create"), std::string::npos) << e.what();
                throw;
            }
        },
        Error);
    if (mounted) {
        ::umount(ro.c_str());
    } else {
        std::filesystem::permissions(ro, std::filesystem::perms::owner_all);
    }
}

TEST(SqliteStore, SqlAndBlobApiReadBackByteExactWithAndWithoutMmap) {
    TempDir dir;
    const auto shape = smallShape();
    for (const std::int64_t mmap : {std::int64_t{0}, std::int64_t{64} << 20}) {
        SqliteStoreOptions o;
        o.path = dir.file("s" + std::to_string(mmap) + ".sqlite");
        o.mmapSize = mmap;
        SqliteStore db(o);
        EXPECT_EQ(db.mmapSizeInEffect(), mmap);
        std::string value, read;
        db.begin();
        for (std::uint64_t key = 1; key <= 400; ++key) {
            valueFor(shape, key, value);
            key % 2 ? db.insert(key, value) : db.insertZeroblob(key, value);
        }
        db.commit();
        for (const auto key : keyOrder(400, true, 3)) {
            valueFor(shape, key, value);
            db.readSql(key, read);
            ASSERT_EQ(read, value) << key;
            db.readBlob(key, read);
            ASSERT_EQ(read, value) << key;
        }
        ValueShape next = shape;
        next.seed += 1;
        db.begin();
        for (const auto key : keyOrder(400, true, 4)) {
            valueFor(next, key, value);
            db.update(key, value);
        }
        db.commit();
        for (std::uint64_t key = 1; key <= 400; ++key) {
            valueFor(next, key, value);
            db.readBlob(key, read);
            ASSERT_EQ(read, value) << key;
        }
    }
}

TEST(SqliteStore, ReadsInPlaceAndEndReadsLeavesNoTransactionOpen) {
    TempDir dir;
    SqliteStoreOptions o;
    o.path = dir.file("p.sqlite");
    o.cacheSize = 1000;
    SqliteStore db(o);
    EXPECT_EQ(db.cacheSizeInEffect(), 1000);
    std::string value;
    db.begin();
    for (std::uint64_t key = 1; key <= 50; ++key) {
        valueFor(smallShape(), key, value);
        db.insert(key, value);
    }
    db.commit();
    ASSERT_TRUE(db.idle());
    const char* buffer = nullptr;
    for (std::uint64_t key = 1; key <= 50; ++key) {
        valueFor(smallShape(), key, value);
        const std::string_view blob = db.readBlobInPlace(key);
        ASSERT_EQ(blob, value) << key;
        if (buffer == nullptr) {
            buffer = blob.data();
        }
        EXPECT_FALSE(db.idle());  // the reopened handle holds its read transaction
        ASSERT_EQ(db.readSqlInPlace(key), value) << key;
    }
    db.endReads();
    EXPECT_TRUE(db.idle());
    // One buffer, grown to the largest value and reused: the values here shrink and grow.
    EXPECT_EQ(db.readBlobInPlace(1).data(), db.readBlobInPlace(2).data());
    db.endReads();
    EXPECT_EQ(db.readBlobInPlace(3, BlobHandle::OpenPerRead).size(), valueLength(smallShape(), 3));
    EXPECT_TRUE(db.idle());  // opened and closed with the value
}

TEST(SqliteStore, LockCountsShowOneReadTransactionPerValueOrPerLoop) {
    for (const char* journal : {"wal", "delete"}) {
        TempDir dir;
        SqliteStoreOptions o;
        o.path = dir.file("l.sqlite");
        o.journalMode = journal;
        SqliteStore db(o);
        db.begin();
        for (std::uint64_t key = 1; key <= 20; ++key) {
            db.insert(key, "value " + std::to_string(key));
        }
        db.commit();
        std::string out;
        auto before = db.lockCounts();
        for (std::uint64_t key = 1; key <= 20; ++key) {  // autocommit: each read its own transaction
            db.readSql(key, out);
        }
        EXPECT_EQ((db.lockCounts() - before).sharedTaken, 20u) << journal;
        before = db.lockCounts();
        for (std::uint64_t key = 1; key <= 20; ++key) {
            db.readBlobInPlace(key, BlobHandle::OpenPerRead);
        }
        EXPECT_EQ((db.lockCounts() - before).sharedTaken, 20u) << journal;
        before = db.lockCounts();
        db.begin();
        for (std::uint64_t key = 1; key <= 20; ++key) {
            db.readSqlInPlace(key);
            db.readBlobInPlace(key);
        }
        db.endReads();
        db.commit();
        const auto loop = db.lockCounts() - before;
        EXPECT_EQ(loop.sharedTaken, 1u) << journal;
        EXPECT_GT(loop.calls(), 0u) << journal;
        // The bug of issue #20: a blob handle left open made later autocommit reads share its
        // transaction. Closed by endReads(), the next reads take their own again.
        db.readBlobInPlace(1);
        db.endReads();
        before = db.lockCounts();
        for (std::uint64_t key = 1; key <= 5; ++key) {
            db.readSql(key, out);
        }
        EXPECT_EQ((db.lockCounts() - before).sharedTaken, 5u) << journal;
    }
}

TEST(SqliteStore, CompileOptionsThatMatterAreNamed) {
    const auto options = sqliteCompileOptionsThatMatter();
    ASSERT_FALSE(options.empty());
    EXPECT_EQ(options[0].rfind("DIRECT_OVERFLOW_READ ", 0), 0u) << options[0];
    // The probe tells whether overflow pages bypass the page cache, whatever the option list says.
    const int direct = directOverflowReadsProbe();
    EXPECT_GE(direct, 0);
    EXPECT_NE(options[0].find(direct > 0 ? "; in effect" : "; not in effect"), std::string::npos) << options[0];
    EXPECT_NE(std::find_if(options.begin(), options.end(),
                           [](const std::string& o) { return o.rfind("THREADSAFE", 0) == 0; }),
              options.end());
}

TEST(SqliteStore, MissingKeyIsADataErrorOnEveryPath) {
    TempDir dir;
    SqliteStoreOptions o;
    o.path = dir.file("m.sqlite");
    SqliteStore db(o);
    db.insert(1, "one");
    std::string out;
    for (int path = 0; path < 3; ++path) {
        try {
            path == 0 ? db.readSql(99, out) : path == 1 ? db.readBlob(99, out) : db.update(99, "x");
            FAIL() << "path " << path << " accepted a missing key";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Data) << e.what();
            EXPECT_NE(std::string(e.what()).find("key 99 does not exist"), std::string::npos) << e.what();
        }
    }
    db.readBlob(1, out);  // the blob handle is usable again after a failed reopen
    EXPECT_EQ(out, "one");
}

TEST(SqliteStore, FootprintIsPageCountTimesPageSizeAndTheFileSize) {
    TempDir dir;
    SqliteStoreOptions o;
    o.path = dir.file("f.sqlite");
    o.pageSize = 8192;
    SqliteStore db(o);
    std::string value;
    db.begin();
    for (std::uint64_t key = 1; key <= 200; ++key) {
        valueFor(smallShape(), key, value);
        db.insert(key, value);
    }
    db.commit();
    const auto bytes = db.footprint();
    EXPECT_EQ(bytes % 8192, 0u);
    EXPECT_EQ(bytes, std::filesystem::file_size(o.path));  // the WAL is checkpointed into the file first
    EXPECT_GT(bytes, 200u * 2000u);
}

TEST(SqliteStore, BadPragmasAreUsageErrors) {
    TempDir dir;
    SqliteStoreOptions o;
    o.path = dir.file("p.sqlite");
    o.journalMode = "sideways";
    EXPECT_THROW(SqliteStore{o}, Error);
    o.journalMode = "wal";
    o.pageSize = 3000;
    EXPECT_THROW(SqliteStore{o}, Error);
    o.pageSize = 4096;
    o.synchronous = "maybe";
    EXPECT_THROW(SqliteStore{o}, Error);
}

TEST(KeyedStudy, SmallRunReadsEveryPathByteExactAndCountsRight) {
    TempDir dir;
    KeyedOptions o;
    o.directory = dir.path();
    o.count = 300;
    o.shape = smallShape();
    const KeyedReport report = runKeyedStudy(o);
    ASSERT_TRUE(report.complete()) << report.error;
    // write x2, read: (sql, blob, sql mmap, blob mmap, files) x 2 orders,
    // update: sqlite, files O_TRUNC, files in place
    ASSERT_EQ(report.results.size(), 2u + 4u + 6u + 3u);
    for (const auto& r : report.results) {
        EXPECT_EQ(r.values, 300u) << r.phase << " " << r.store << " " << r.variant;
        EXPECT_GT(r.bytes, 300u * 2000u);
        if (r.phase != "write") {
            EXPECT_EQ(r.check, "byte-exact") << r.phase << " " << r.store << " " << r.variant << " " << r.order;
        }
        EXPECT_FALSE(r.partial);
    }
    ASSERT_TRUE(report.footprint);
    EXPECT_EQ(report.footprint->files.files, 300u);
    EXPECT_EQ(report.footprint->sqliteBytes % 4096, 0u);
    // Measured after the writes; the random-order rewrites that follow may only grow the file.
    EXPECT_LE(report.footprint->sqliteBytes, std::filesystem::file_size(dir.path() / "store.sqlite"));
    EXPECT_GT(report.footprint->sqliteBytes, report.footprint->valueBytes);
    EXPECT_EQ(report.footprint->files.allocated(), footprintOf(dir.path() / "files").allocated());
    EXPECT_NEAR(report.footprint->ratio(),
                static_cast<double>(report.footprint->sqliteBytes) / report.footprint->files.allocated(), 1e-12);
}

// Issue #20: every path and order on its own connections, closing what it opened; the counts of one
// (path, order) are the same whichever phases ran before it. Counts, not times.
TEST(KeyedStudy, PhaseOrderDoesNotChangeTransactionsOrLocks) {
    for (const auto mode : {TransactionMode::Loop, TransactionMode::PerRead}) {
        for (const auto mapping : {MappingMode::Cold, MappingMode::Warm}) {
            std::map<std::string, LockCounts> first;
            for (const bool reversed : {false, true}) {
                TempDir dir;
                KeyedOptions o;
                o.directory = dir.path();
                o.count = 120;
                o.shape = smallShape();
                o.updates = false;
                o.transaction = mode;
                o.mapping = mapping;
                o.mmapSize = 64 << 20;
                if (reversed) {
                    o.paths = {ReadPath::Files, ReadPath::BlobMmap, ReadPath::SqlMmap, ReadPath::Blob, ReadPath::Sql};
                    o.randomFirst = true;
                }
                const KeyedReport report = runKeyedStudy(o);
                ASSERT_TRUE(report.complete()) << report.error;
                std::vector<std::string> seen;
                for (const auto& r : report.results) {
                    if (r.phase != "read" || r.store != "sqlite") {
                        continue;
                    }
                    const std::string what =
                        r.variant + " " + r.order + " " + transactionName(mode) + " " + mappingName(mapping);
                    seen.push_back(what);
                    EXPECT_EQ(r.check, "byte-exact") << what;
                    EXPECT_EQ(r.locks.sharedTaken, mode == TransactionMode::Loop ? 1u : 120u) << what;
                    EXPECT_EQ(r.connection, mapping == MappingMode::Cold ? "fresh" : "warm-up's") << what;
                    if (!reversed) {
                        first[what] = r.locks;
                    } else {
                        ASSERT_TRUE(first.count(what)) << what;
                        EXPECT_EQ(r.locks, first[what]) << what;
                    }
                }
                EXPECT_EQ(seen.size(), 8u);
                if (reversed) {  // the phases really ran in the other order
                    EXPECT_EQ(seen.front().rfind("blob api + mmap random", 0), 0u) << seen.front();
                }
            }
        }
    }
}

TEST(KeyedStudy, TheMethodIsInTheReport) {
    TempDir dir;
    KeyedOptions o;
    o.directory = dir.path();
    o.count = 30;
    o.shape = smallShape();
    o.updates = false;
    o.paths = {ReadPath::Sql, ReadPath::Files};
    o.copyValues = true;
    const KeyedReport report = runKeyedStudy(o);
    ASSERT_TRUE(report.complete()) << report.error;
    std::map<std::string, std::string> method(report.method.begin(), report.method.end());
    EXPECT_EQ(method["transaction"].rfind("loop", 0), 0u) << method["transaction"];
    EXPECT_EQ(method["mapping"].rfind("cold", 0), 0u) << method["mapping"];
    EXPECT_EQ(method["values"].rfind("copied", 0), 0u) << method["values"];
    EXPECT_EQ(method["cache_size"].rfind("1000 pages", 0), 0u) << method["cache_size"];
    EXPECT_EQ(method["page_size"], "4096");
    EXPECT_NE(method["compile options"].find("DIRECT_OVERFLOW_READ"), std::string::npos);
    ASSERT_EQ(report.results.size(), 2u + 4u);
    for (const auto& r : report.results) {
        if (r.phase == "read") {
            EXPECT_EQ(r.check, "byte-exact") << r.variant;  // copied values read back byte-exact too
        }
    }
}

TEST(KeyedStudy, ZeroOrAbsurdSizesAreRefusedBeforeWriting) {
    TempDir dir;
    KeyedOptions o;
    o.directory = dir.path() / "never";
    o.count = 0;
    EXPECT_THROW(runKeyedStudy(o), Error);
    o.count = 10;
    o.shape.meanBytes = 0;
    EXPECT_THROW(runKeyedStudy(o), Error);
    o.shape.meanBytes = 1ULL << 40;
    EXPECT_THROW(runKeyedStudy(o), Error);
    EXPECT_FALSE(std::filesystem::exists(o.directory));
}

TEST(KeyedStudy, FullDiskKeepsPartialResultsAndOneLineError) {
    TempDir dir;
    KeyedOptions o;
    o.directory = dir.path();
    o.count = 400;
    o.shape = smallShape();
    KeyedReport report;
    {
        FileSizeLimit limit(512 * 1024);  // the SQLite file outgrows it part way through
        report = runKeyedStudy(o);
    }
    ASSERT_FALSE(report.complete());
    EXPECT_EQ(report.error.find('\n'), std::string::npos);
    ASSERT_FALSE(report.results.empty());
    EXPECT_TRUE(report.results.back().partial);
}

TEST(InsertStudy, SqliteVariantsInsertAndReadBackByteExact) {
    TempDir dir;
    for (const bool text : {true, false}) {
        InsertOptions o;
        o.rows = 500;
        o.valueBytes = 4402;
        o.text = text;
        o.commitEvery = 100;
        const auto results = runSqliteInserts(dir.path(), o);
        ASSERT_EQ(results.size(), 2u);
        for (const auto& r : results) {
            EXPECT_TRUE(r.error.empty()) << r.error;
            EXPECT_EQ(r.rows, 500u);
            EXPECT_EQ(r.bytes, 500u * 4402u);
            EXPECT_EQ(r.commits, 5u);
            EXPECT_EQ(r.check, "byte-exact");
            ASSERT_TRUE(r.storageBytes);
            EXPECT_GT(*r.storageBytes, 500u * 4402u * (text ? 0 : 1));
            EXPECT_GT(r.insertsPerSecond(), 0.0);
        }
    }
}

TEST(InsertStudy, BadInputIsRefused) {
    TempDir dir;
    InsertOptions o;
    o.rows = 0;
    EXPECT_THROW(runSqliteInserts(dir.path(), o), Error);
    o.rows = 10;
    o.valueBytes = 0;
    EXPECT_THROW(runSqliteInserts(dir.path(), o), Error);
    o.valueBytes = 1ULL << 40;
    EXPECT_THROW(runSqliteInserts(dir.path(), o), Error);
    o.valueBytes = 100;
    o.commitEvery = 11;
    EXPECT_THROW(runSqliteInserts(dir.path(), o), Error);
    o.commitEvery = 0;
    o.variants = {"no-such-variant"};
    EXPECT_THROW(runSqliteInserts(dir.path(), o), Error);
    o.variants.clear();
    o.journalMode = "sideways";
    EXPECT_THROW(runSqliteInserts(dir.path(), o), Error);
}

TEST(InsertStudy, FullDiskKeepsCommittedRowsAndLabelsThePartialResult) {
    TempDir dir;
    InsertOptions o;
    o.rows = 2000;
    o.valueBytes = 4402;
    o.commitEvery = 50;
    o.variants = {"bind"};
    std::vector<InsertResult> results;
    {
        FileSizeLimit limit(1024 * 1024);
        results = runSqliteInserts(dir.path(), o);
    }
    ASSERT_EQ(results.size(), 1u);
    const auto& r = results[0];
    EXPECT_TRUE(r.partial);
    EXPECT_FALSE(r.error.empty());
    EXPECT_EQ(r.error.find('\n'), std::string::npos);
    EXPECT_GT(r.rows, 0u);
    EXPECT_LT(r.rows, 2000u);
    EXPECT_EQ(r.rows % 50, 0u);  // committed rows only
}
