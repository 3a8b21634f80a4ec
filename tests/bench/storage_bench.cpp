// storage_bench: are BlobBench's storage paths as fast as the bare client loops they stand for?
// Same run, same data, same key order, interleaved repetitions, median of each:
//   SQLite keyed read by SQL (prepare once, bind, step, column_blob), by the blob API
//   (blob_open / blob_reopen / blob_read), both again with mmap; files open/fstat/read/close;
//   SQLite inserts in one transaction (bind).
// Prints ours / bare for each (target: within 1.10) and SQLite / files for the reads, plus the
// footprint ratio (page_count x page_size against st_blocks x 512 of the files and directories).
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/storage/FileStore.h"
#include "engine/storage/SqliteStore.h"
#include "engine/storage/StorageValues.h"

using namespace blobbench::storage;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::uint64_t sink = 0;  // keeps the reads from being optimised away

// Bare: prepare once, bind, step, column_blob, copy out.
void bareSql(sqlite3* db, const std::vector<std::uint64_t>& keys) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v3(db, "SELECT v FROM kv WHERE id = ?1", -1, SQLITE_PREPARE_PERSISTENT, &st, nullptr);
    std::string out;
    for (const auto key : keys) {
        sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(key));
        if (sqlite3_step(st) == SQLITE_ROW) {
            out.assign(static_cast<const char*>(sqlite3_column_blob(st, 0)),
                       static_cast<std::size_t>(sqlite3_column_bytes(st, 0)));
            sink += out.size();
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
}

// Bare: blob_open once, blob_reopen per key, blob_read.
void bareBlob(sqlite3* db, const std::vector<std::uint64_t>& keys) {
    sqlite3_blob* blob = nullptr;
    std::string out;
    for (const auto key : keys) {
        const int rc = blob ? sqlite3_blob_reopen(blob, static_cast<sqlite3_int64>(key))
                            : sqlite3_blob_open(db, "main", "kv", "v", static_cast<sqlite3_int64>(key), 0, &blob);
        if (rc == SQLITE_OK) {
            out.resize(static_cast<std::size_t>(sqlite3_blob_bytes(blob)));
            sqlite3_blob_read(blob, out.data(), static_cast<int>(out.size()), 0);
            sink += out.size();
        }
    }
    sqlite3_blob_close(blob);
}

// Bare: open, fstat, read, close.
void bareFiles(const FileStore& store, const std::vector<std::uint64_t>& keys) {
    std::string out;
    for (const auto key : keys) {
        const std::string path = store.pathOf(key).string();
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        struct stat st {};
        ::fstat(fd, &st);
        out.resize(static_cast<std::size_t>(st.st_size));
        std::size_t have = 0;
        while (have < out.size()) {
            const ssize_t n = ::read(fd, out.data() + have, out.size() - have);
            if (n <= 0) {
                break;
            }
            have += static_cast<std::size_t>(n);
        }
        ::close(fd);
        sink += have;
    }
}

void bareInsert(const std::string& path, std::uint64_t rows, const std::vector<std::string>& pool) {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db,
                 "PRAGMA page_size=4096; PRAGMA journal_mode=wal; PRAGMA synchronous=normal; "
                 "CREATE TABLE kv(id INTEGER PRIMARY KEY, v BLOB NOT NULL)",
                 nullptr, nullptr, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v3(db, "INSERT OR REPLACE INTO kv(id, v) VALUES (?1, ?2)", -1, SQLITE_PREPARE_PERSISTENT, &st,
                       nullptr);
    sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    for (std::uint64_t id = 1; id <= rows; ++id) {
        const std::string& v = pool[(id - 1) % pool.size()];
        sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(id));
        sqlite3_bind_blob64(st, 2, v.data(), v.size(), SQLITE_STATIC);
        sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

void removeDb(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
        std::filesystem::remove(path + suffix);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::uint64_t count = 20000;
    int reps = 5;
    std::filesystem::path dir = std::filesystem::temp_directory_path() / ("storage_bench-" + std::to_string(getpid()));
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--count") {
            count = std::stoull(argv[i + 1]);
        } else if (a == "--reps") {
            reps = std::stoi(argv[i + 1]);
        } else if (a == "--dir") {
            dir = argv[i + 1];
        }
    }
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const ValueShape shape;  // 10 kB +- 2 kB, incompressible
    std::printf("storage_bench: %llu values of 10 kB +- 2 kB (incompressible), %d repetitions, median; in %s\n",
                static_cast<unsigned long long>(count), reps, dir.c_str());

    SqliteStoreOptions so;
    so.path = (dir / "store.sqlite").string();
    FileStore files({dir / "files", FileLayout::Tree, false});
    {
        SqliteStore db(so);
        std::string value;
        db.begin();
        for (std::uint64_t key = 1; key <= count; ++key) {
            valueFor(shape, key, value);
            db.insert(key, value);
            files.write(key, value);
        }
        db.commit();
        const auto sqliteBytes = db.footprint();
        const auto fp = files.footprint();
        std::printf(
            "footprint: SQLite %llu bytes, files %llu bytes allocated (%llu in files), payload %llu: "
            "ratio SQLite/files %.3f\n",
            static_cast<unsigned long long>(sqliteBytes), static_cast<unsigned long long>(fp.allocated()),
            static_cast<unsigned long long>(fp.fileAllocated), static_cast<unsigned long long>(fp.fileBytes),
            static_cast<double>(sqliteBytes) / static_cast<double>(fp.allocated()));
    }

    SqliteStore plain(so);
    so.mmapSize = 1LL << 30;
    SqliteStore mapped(so);
    sqlite3* bareDb = nullptr;
    sqlite3_open_v2(so.path.c_str(), &bareDb, SQLITE_OPEN_READWRITE, nullptr);  // as ours opens it
    sqlite3* bareMapped = nullptr;
    sqlite3_open_v2(so.path.c_str(), &bareMapped, SQLITE_OPEN_READWRITE, nullptr);
    sqlite3_exec(bareMapped, "PRAGMA mmap_size=1073741824", nullptr, nullptr, nullptr);

    struct Pair {
        std::string name;
        std::function<void(const std::vector<std::uint64_t>&)> ours, bare;
        std::vector<double> oursTimes, bareTimes;
    };
    std::string out;
    std::vector<Pair> pairs;
    pairs.push_back({"sqlite sql",
                     [&](const auto& k) {
                         for (auto key : k) {
                             plain.readSql(key, out);
                             sink += out.size();
                         }
                     },
                     [&](const auto& k) { bareSql(bareDb, k); },
                     {},
                     {}});
    pairs.push_back({"sqlite blob api",
                     [&](const auto& k) {
                         for (auto key : k) {
                             plain.readBlob(key, out);
                             sink += out.size();
                         }
                     },
                     [&](const auto& k) { bareBlob(bareDb, k); },
                     {},
                     {}});
    pairs.push_back({"sqlite sql + mmap",
                     [&](const auto& k) {
                         for (auto key : k) {
                             mapped.readSql(key, out);
                             sink += out.size();
                         }
                     },
                     [&](const auto& k) { bareSql(bareMapped, k); },
                     {},
                     {}});
    pairs.push_back({"sqlite blob + mmap",
                     [&](const auto& k) {
                         for (auto key : k) {
                             mapped.readBlob(key, out);
                             sink += out.size();
                         }
                     },
                     [&](const auto& k) { bareBlob(bareMapped, k); },
                     {},
                     {}});
    pairs.push_back({"files",
                     [&](const auto& k) {
                         for (auto key : k) {
                             files.read(key, out);
                             sink += out.size();
                         }
                     },
                     [&](const auto& k) { bareFiles(files, k); },
                     {},
                     {}});

    for (const bool random : {false, true}) {
        const auto keys = keyOrder(count, random, 11);
        for (auto& p : pairs) {
            p.oursTimes.clear();
            p.bareTimes.clear();
            p.ours(keys);  // warm the cache and the code
            p.bare(keys);
        }
        for (int r = 0; r < reps; ++r) {
            for (auto& p : pairs) {
                // Alternate which goes first, so that neither always finds the caches the other warmed.
                for (int turn = 0; turn < 2; ++turn) {
                    const bool bareNow = (turn == 0) == (r % 2 == 0);
                    const auto t0 = Clock::now();
                    bareNow ? p.bare(keys) : p.ours(keys);
                    (bareNow ? p.bareTimes : p.oursTimes).push_back(seconds(Clock::now() - t0));
                }
            }
        }
        std::printf("\nkeyed read, %s order:\n%-20s %12s %12s %10s %14s\n", random ? "random" : "ascending", "path",
                    "ours us/val", "bare us/val", "ours/bare", "vs files (ours)");
        const double filesOurs = median(pairs.back().oursTimes);
        for (auto& p : pairs) {
            const double o = median(p.oursTimes), b = median(p.bareTimes);
            std::printf("%-20s %12.2f %12.2f %10.3f %14.3f\n", p.name.c_str(), o * 1e6 / static_cast<double>(count),
                        b * 1e6 / static_cast<double>(count), o / b, o / filesOurs);
        }
    }
    sqlite3_close(bareDb);
    sqlite3_close(bareMapped);

    // Inserts: SqliteStore::insert against the bare loop, fresh files each time, one transaction.
    const std::uint64_t rows = count;
    std::vector<std::string> pool(256);
    ValueShape clob;
    clob.meanBytes = 4402;
    clob.spreadBytes = 0;
    clob.text = true;
    for (std::size_t i = 0; i < pool.size(); ++i) {
        valueFor(clob, i + 1, pool[i]);
    }
    std::vector<double> oursIns, bareIns;
    for (int r = 0; r < reps; ++r) {
        const std::string bp = (dir / "bare-insert.sqlite").string(), op = (dir / "ours-insert.sqlite").string();
        removeDb(bp);
        removeDb(op);
        auto t0 = Clock::now();
        if (r % 2 == 0) {
            bareInsert(bp, rows, pool);
            bareIns.push_back(seconds(Clock::now() - t0));
        }
        t0 = Clock::now();
        {
            SqliteStoreOptions io;
            io.path = op;
            SqliteStore db(io);
            db.begin();
            for (std::uint64_t id = 1; id <= rows; ++id) {
                db.insert(id, pool[(id - 1) % pool.size()]);
            }
            db.commit();
        }
        oursIns.push_back(seconds(Clock::now() - t0));
        if (r % 2 == 1) {
            t0 = Clock::now();
            bareInsert(bp, rows, pool);
            bareIns.push_back(seconds(Clock::now() - t0));
        }
    }
    const double oi = median(oursIns), bi = median(bareIns);
    std::printf(
        "\ninsert %llu x 4402 bytes, one transaction, WAL, synchronous=normal (open and close included):\n"
        "  ours %.0f inserts/s, bare %.0f inserts/s, ours/bare time %.3f\n",
        static_cast<unsigned long long>(rows), static_cast<double>(rows) / oi, static_cast<double>(rows) / bi, oi / bi);
    std::printf("(checksum %llu)\n", static_cast<unsigned long long>(sink % 1000));
    std::filesystem::remove_all(dir);
    return 0;
}
