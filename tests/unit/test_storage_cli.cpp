// blobbench-cli storage: the studies from the command line at reduced size, their JSON, and bad
// input as one-line errors with partial results kept and labelled.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <csignal>

#include "support/TestSupport.h"

using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

QJsonObject readJson(const std::string& path) {
    QFile file(QString::fromStdString(path));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << path;
    return QJsonDocument::fromJson(file.readAll()).object();
}

int lines(const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST(StorageCli, KeyedReadSmallRunIsByteExactWithRatiosAndJson) {
    TempDir dir;
    const auto r = runCli({"storage", "keyed-read", dir.file("work"), "--count", "200", "--size", "4k", "--spread",
                           "1k", "--json", dir.file("k.json"), "--quiet"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("blob api + mmap"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ratio SQLite / files"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("DIFFER"), std::string::npos);
    const QJsonObject json = readJson(dir.file("k.json"));
    EXPECT_TRUE(json[QStringLiteral("complete")].toBool());
    const QJsonArray results = json[QStringLiteral("results")].toArray();
    EXPECT_EQ(results.size(), 15);
    for (const auto& v : results) {
        const QJsonObject row = v.toObject();
        EXPECT_EQ(row[QStringLiteral("values")].toInt(), 200);
        if (row[QStringLiteral("phase")].toString() != QStringLiteral("write")) {
            EXPECT_EQ(row[QStringLiteral("check")].toString(), QStringLiteral("byte-exact"))
                << row[QStringLiteral("variant")].toString().toStdString();
        }
    }
    const QJsonObject fp = json[QStringLiteral("footprint")].toObject();
    EXPECT_GT(fp[QStringLiteral("ratio")].toDouble(), 0.0);
    EXPECT_NEAR(fp[QStringLiteral("ratio")].toDouble(),
                fp[QStringLiteral("sqliteBytes")].toDouble() / fp[QStringLiteral("filesAllocated")].toDouble(), 1e-9);
}

TEST(StorageCli, KeyedReadStatesItsMethodInTheHeaderAndTheJson) {
    TempDir dir;
    const auto r = runCli({"storage",          "keyed-read", dir.file("work"), "--count",    "60",
                           "--size",           "2Ki",        "--no-update",    "--order",    "random",
                           "--transaction",    "per-read",   "--mapping",      "warm",       "--copy",
                           "--cache-size",     "500",        "--paths",        "blob,files", "--json",
                           dir.file("m.json"), "--quiet"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("Values: 60 x 2048 +- 409 bytes"), std::string::npos) << r.out;  // Ki is 1024
    for (const char* line : {"transaction: per-read", "mapping: warm", "values: copied", "cache_size: 500 pages",
                             "page_size: 4096", "DIRECT_OVERFLOW_READ"}) {
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
    }
    const QJsonObject json = readJson(dir.file("m.json"));
    EXPECT_EQ(json[QStringLiteral("transaction")].toString(), QStringLiteral("per-read"));
    EXPECT_EQ(json[QStringLiteral("mapping")].toString(), QStringLiteral("warm"));
    EXPECT_TRUE(json[QStringLiteral("copyValues")].toBool());
    EXPECT_EQ(json[QStringLiteral("cacheSize")].toInt(), 500);
    EXPECT_EQ(json[QStringLiteral("layout")].toString(), QStringLiteral("flat"));
    EXPECT_TRUE(json[QStringLiteral("method")].toObject().contains(QStringLiteral("compile options")));
    const QJsonArray results = json[QStringLiteral("results")].toArray();
    ASSERT_EQ(results.size(), 2 + 2);
    const QJsonObject blob = results[2].toObject();
    EXPECT_EQ(blob[QStringLiteral("variant")].toString(), QStringLiteral("blob api"));
    EXPECT_EQ(blob[QStringLiteral("readTransactions")].toInt(), 60);  // a handle opened and closed per value
    EXPECT_EQ(blob[QStringLiteral("connection")].toString(), QStringLiteral("warm-up's"));
    EXPECT_EQ(results[3].toObject()[QStringLiteral("store")].toString(), QStringLiteral("files"));
}

TEST(StorageCli, FootprintOnlyWrites) {
    TempDir dir;
    const auto r = runCli({"storage", "footprint", dir.file("w"), "--count", "100", "--layout", "flat", "--quiet",
                           "--json", dir.file("f.json")});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const QJsonObject json = readJson(dir.file("f.json"));
    EXPECT_EQ(json[QStringLiteral("results")].toArray().size(), 2);
    EXPECT_EQ(json[QStringLiteral("footprint")].toObject()[QStringLiteral("files")].toInt(), 100);
}

TEST(StorageCli, InsertOnSqliteDirectory) {
    TempDir dir;
    const auto r = runCli({"storage", "insert", "sqlite:" + dir.file("ins"), "--rows", "300", "--commit-every", "100",
                           "--json", dir.file("i.json"), "--quiet"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    const QJsonObject json = readJson(dir.file("i.json"));
    const QJsonArray results = json[QStringLiteral("results")].toArray();
    ASSERT_EQ(results.size(), 2);
    for (const auto& v : results) {
        const QJsonObject row = v.toObject();
        EXPECT_EQ(row[QStringLiteral("rows")].toInt(), 300);
        EXPECT_EQ(row[QStringLiteral("commits")].toInt(), 3);
        EXPECT_EQ(row[QStringLiteral("bytes")].toInt(), 300 * 4402);
        EXPECT_EQ(row[QStringLiteral("check")].toString(), QStringLiteral("byte-exact"));
        EXPECT_GT(row[QStringLiteral("storageBytes")].toDouble(), 0.0);
    }
}

TEST(StorageCli, BadInputIsOneLineWithUsageExitCode) {
    TempDir dir;
    const std::vector<std::vector<std::string>> bad = {
        {"storage"},
        {"storage", "sideways", dir.file("x")},
        {"storage", "keyed-read"},
        {"storage", "keyed-read", dir.file("x"), "--count", "0"},
        {"storage", "keyed-read", dir.file("x"), "--size", "0"},
        {"storage", "keyed-read", dir.file("x"), "--count", "99999999999999"},
        {"storage", "keyed-read", dir.file("x"), "--count", "ten"},
        {"storage", "insert", dir.file("x"), "--size", "1t"},
        {"storage", "insert", "sqlite:" + dir.file("x"), "--rows", "0"},
        {"storage", "insert", "sqlite:" + dir.file("x"), "--variant", "nonesuch"},
        {"storage", "keyed-read", dir.file("x"), "--layout", "deep"},
        {"storage", "keyed-read", dir.file("x"), "--transaction", "never"},
        {"storage", "keyed-read", dir.file("x"), "--mapping", "tepid"},
        {"storage", "keyed-read", dir.file("x"), "--paths", "sql,tape"},
        {"storage", "keyed-read", dir.file("x"), "--cache-size", "0"},
        {"storage", "keyed-read", dir.file("x"), "--size", "10KiB"},
    };
    for (const auto& args : bad) {
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 2) << args.back() << ": " << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find("blobbench-cli: storage"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("x")));  // refused before anything was written
}

TEST(StorageCli, DiskFullKeepsPartialResultsLabelled) {
    TempDir dir;
    // A size limit on every file the child writes (inherited through exec), with SIGXFSZ ignored:
    // writes past it fail as they would on a full disk.
    rlimit old{};
    getrlimit(RLIMIT_FSIZE, &old);
    auto handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limited = old;
    limited.rlim_cur = 1024 * 1024;
    setrlimit(RLIMIT_FSIZE, &limited);
    const auto r =
        runCli({"storage", "keyed-read", dir.file("w"), "--count", "400", "--quiet", "--json", dir.file("p.json")});
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, handler);
    EXPECT_EQ(r.exitCode, 1) << r.err << r.out;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("partial"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("PARTIAL"), std::string::npos) << r.out;
    const QJsonObject json = readJson(dir.file("p.json"));
    EXPECT_FALSE(json[QStringLiteral("complete")].toBool());
    EXPECT_FALSE(json[QStringLiteral("error")].toString().isEmpty());
    EXPECT_TRUE(json[QStringLiteral("results")].toArray().last().toObject()[QStringLiteral("partial")].toBool());
}

TEST(StorageCli, MissingServerTargetFailsWithOneLine) {
    const auto r = runCli({"storage", "insert", "postgresql://nobody@127.0.0.1:1/none", "--rows", "10", "--quiet"});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
}

TEST(StoragePresets, SqliteVsFilesystemRunsAtReducedSize) {
    TempDir dir;
    const std::string command = "COUNT=120 BLOBBENCH_CLI='" + std::string(BLOBBENCH_CLI_PATH) + "' OUT='" +
                                dir.file("out") + "' bash '" + BLOBBENCH_SOURCE_DIR +
                                "/scripts/studies/sqlite-vs-filesystem.sh' '" + dir.file("work") + "' --quiet > '" +
                                dir.file("log") + "' 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    for (const char* name : {"keyed-wal.json", "keyed-journal-off.json", "footprint.json"}) {
        const QJsonObject json = readJson(dir.file("out") + "/" + name);
        EXPECT_TRUE(json[QStringLiteral("complete")].toBool()) << name;
        EXPECT_EQ(json[QStringLiteral("count")].toInt(), 120) << name;
    }
    const QJsonObject off = readJson(dir.file("out") + "/keyed-journal-off.json");
    bool journalOff = false;
    for (const auto& note : off[QStringLiteral("notes")].toArray()) {
        journalOff = journalOff || note.toString() == QStringLiteral("sqlite journal_mode = off");
    }
    EXPECT_TRUE(journalOff);
}

TEST(StorageCli, CompressibleTextIsSaidAndRecorded) {
    TempDir dir;
    const auto r = runCli({"storage", "insert", "sqlite:" + dir.file("ins"), "--rows", "50", "--compressible",
                           "--quiet", "--json", dir.file("c.json")});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("x 4402 bytes, compressible text, one transaction"), std::string::npos) << r.out;
    const QJsonObject json = readJson(dir.file("c.json"));
    EXPECT_TRUE(json[QStringLiteral("compressible")].toBool());
    EXPECT_TRUE(json[QStringLiteral("text")].toBool());
    EXPECT_TRUE(json[QStringLiteral("complete")].toBool());
}
