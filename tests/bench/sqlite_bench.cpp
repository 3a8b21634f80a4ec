// SQLite figures for the foundation issue, each against a bare sqlite3 loop in the same run:
//  - fetch of "all BLOBs" (target: within 1.10x of prepare/step/column_blob),
//  - prepare of the data set (target: within 1.5x of a bare batched-insert loop),
//  - peak RSS of `blobbench-cli run` (target: under 100 MB).
// Usage: sqlite_bench [ROWS] (default 10000, the reference data set).
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/data/Dataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "engine/run/MeasuringSink.h"

using namespace blobbench;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void check(int rc, sqlite3* db) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        std::fprintf(stderr, "sqlite: %s\n", sqlite3_errmsg(db));
        std::exit(1);
    }
}

// The bare batched-insert loop: same rows, same rule, one transaction a 1000 rows.
double bareInsert(const std::string& path, const SyntheticProfile& profile) {
    std::filesystem::remove(path);
    const auto t0 = Clock::now();
    SyntheticSource source(profile);
    sqlite3* db = nullptr;
    check(sqlite3_open(path.c_str(), &db), db);
    for (const auto& sql : referenceSchema(Dialect::SQLite).createStatements) {
        check(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), db);
    }
    sqlite3_stmt* stmt = nullptr;
    check(sqlite3_prepare_v2(db, referenceSchema(Dialect::SQLite).insertTest.c_str(), -1, &stmt, nullptr), db);
    std::string content;
    check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), db);
    for (std::uint64_t row = 0; row < source.rows(); ++row) {
        source.contentOf(row, content);
        const bool isShort = utf8Length(content) < kShortBlobLimit;
        sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(row + 1));
        if (isShort) {
            sqlite3_bind_text64(stmt, 2, content.data(), content.size(), SQLITE_STATIC, SQLITE_UTF8);
        } else {
            sqlite3_bind_null(stmt, 2);
        }
        sqlite3_bind_text64(stmt, 3, content.data(), content.size(), SQLITE_STATIC, SQLITE_UTF8);
        sqlite3_bind_int(stmt, 4, isShort);
        check(sqlite3_step(stmt), db);
        sqlite3_reset(stmt);
        if ((row + 1) % 1000 == 0) {
            check(sqlite3_exec(db, "COMMIT; BEGIN", nullptr, nullptr, nullptr), db);
        }
    }
    check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return seconds(Clock::now() - t0);
}

double ourPrepare(const std::string& path, const SyntheticProfile& profile) {
    std::filesystem::remove(path);
    const auto t0 = Clock::now();
    const Driver& d = driverById("sqlite");
    ConnectionSpec spec{"sqlite", path};
    spec.create = true;
    auto session = d.connect(spec, resolveParameters(d.parameters(), {}));
    SyntheticRowSource source(profile);
    prepareReferenceTables(*session, source, PrepareOptions{});
    return seconds(Clock::now() - t0);
}

struct FetchResult {
    double seconds;
    std::uint64_t rows;
    std::uint64_t bytes;
};

FetchResult bareFetch(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    check(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), db);
    const auto t0 = Clock::now();
    sqlite3_stmt* stmt = nullptr;
    check(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), db);
    std::uint64_t rows = 0, bytes = 0;
    std::int64_t maxId = 0;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        maxId = std::max<std::int64_t>(maxId, sqlite3_column_int64(stmt, 0));
        const void* blob = sqlite3_column_blob(stmt, 1);
        bytes += static_cast<std::uint64_t>(sqlite3_column_bytes(stmt, 1));
        (void)blob;
        ++rows;
    }
    sqlite3_finalize(stmt);
    const double took = seconds(Clock::now() - t0);
    sqlite3_close(db);
    return {took, rows, bytes + static_cast<std::uint64_t>(maxId == 0)};
}

FetchResult ourFetch(const std::string& path, const std::string& sql, bool blobApi) {
    const Driver& d = driverById("sqlite");
    auto values = resolveParameters(d.parameters(), {{"mode", "read-only"}, {"blob_api", blobApi ? "true" : "false"}});
    auto session = d.connect(ConnectionSpec{"sqlite", path}, values);
    MeasuringSink sink;
    const QueryStats stats = session->query(QuerySpec{sql}, sink, CancelToken());
    return {seconds(stats.prepare + stats.execute + stats.fetch), sink.rows(), sink.contentBytes()};
}

long peakRssKiB(const std::vector<std::string>& args) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        std::vector<char*> argv;
        for (const auto& a : args) {
            argv.push_back(const_cast<char*>(a.c_str()));
        }
        argv.push_back(nullptr);
        if (freopen("/dev/null", "w", stdout) == nullptr) {
            _exit(127);
        }
        execv(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "blobbench-cli run failed\n");
        return -1;
    }
    return usage.ru_maxrss;
}

const char* verdict(bool ok) {
    return ok ? "ok" : "MISSED";
}

}  // namespace

int main(int argc, char** argv) {
    SyntheticProfile profile;
    if (argc > 1) {
        profile.rows = std::stoull(argv[1]);
    }
    const auto dir = std::filesystem::temp_directory_path() / ("blobbench-bench-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string ours = (dir / "ours.sqlite").string();
    const std::string bare = (dir / "bare.sqlite").string();
    std::printf("SQLite %s, %llu rows (synthetic reference profile)\n\n", sqlite3_libversion(),
                static_cast<unsigned long long>(profile.rows));

    std::vector<double> prepOurs, prepBare;
    for (int i = 0; i < 2; ++i) {
        prepBare.push_back(bareInsert(bare, profile));
        prepOurs.push_back(ourPrepare(ours, profile));
    }
    const double prepRatio =
        *std::min_element(prepOurs.begin(), prepOurs.end()) / *std::min_element(prepBare.begin(), prepBare.end());
    std::printf("prepare:   blobbench %.3f s   bare batched insert %.3f s   ratio %.3f (target <= 1.50: %s)\n",
                *std::min_element(prepOurs.begin(), prepOurs.end()),
                *std::min_element(prepBare.begin(), prepBare.end()), prepRatio, verdict(prepRatio <= 1.5));

    const std::string sql = referenceSuite(Dialect::SQLite)[3].sql;  // all BLOBs
    std::vector<double> fOurs, fBare, fApi;
    FetchResult a{}, b{}, c{};
    for (int i = 0; i < 7; ++i) {
        b = bareFetch(ours, sql);
        a = ourFetch(ours, sql, false);
        c = ourFetch(ours, sql, true);
        fBare.push_back(b.seconds);
        fOurs.push_back(a.seconds);
        fApi.push_back(c.seconds);
    }
    if (a.rows != b.rows || a.bytes != c.bytes) {
        std::printf("MISMATCH: rows %llu vs %llu, bytes %llu vs %llu\n", static_cast<unsigned long long>(a.rows),
                    static_cast<unsigned long long>(b.rows), static_cast<unsigned long long>(a.bytes),
                    static_cast<unsigned long long>(c.bytes));
        return 1;
    }
    const double fetchRatio = median(fOurs) / median(fBare);
    std::printf(
        "all BLOBs: blobbench %.1f ms   bare sqlite3 loop %.1f ms   ratio %.3f (target <= 1.10: %s)   "
        "[%llu rows, %llu bytes, median of 7]\n",
        median(fOurs) * 1e3, median(fBare) * 1e3, fetchRatio, verdict(fetchRatio <= 1.10),
        static_cast<unsigned long long>(a.rows), static_cast<unsigned long long>(a.bytes));
    std::printf("all BLOBs, incremental blob API (blob_api=true): %.1f ms   ratio to bare %.3f\n", median(fApi) * 1e3,
                median(fApi) / median(fBare));

    const long rss = peakRssKiB({BLOBBENCH_CLI_PATH, "run", "-q", "sqlite:" + ours});
    std::printf("peak RSS of blobbench-cli run: %.1f MB (target < 100 MB: %s)\n", static_cast<double>(rss) / 1024.0,
                verdict(rss > 0 && rss < 100 * 1024));
    std::filesystem::remove_all(dir);
    return 0;
}
