// Hostile round 5m (docs/hostile-round-5m-2026-12-06.md) without a server: prepare over BlobBench's
// own BLOB_TEST that someone added rows to (D1), outputs on the SQLite database's -wal, -shm and
// -journal files (X1), a truncated client library (C1, SIGBUS inside dlopen), the keyed-read study
// with the client stopped (S1), a latency finer than a millisecond recorded as 0 (L2) and a bit rate that
// rounds to unlimited (L3). The compatible mode's and reproduce's stopped client: test_round5m_servers.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "engine/core/FileKind.h"
#include "engine/wire/LinkModel.h"
#include "support/TestSupport.h"

using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

void sqliteExec(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
}

TEST(Round5m, PrepareRefusesWhenBlobBenchsOwnTableHoldsRowsItDidNotPrepare) {
    TempDir dir;
    const std::string db = "sqlite:" + dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", db, "--rows", "3", "-q"}).exitCode, 0);
    sqliteExec(dir.file("s.db"), "INSERT INTO BLOB_TEST VALUES (301, 'mine', 'my precious row', 0)");
    const auto refused = runCli({"prepare", db, "--rows", "3", "-q"});
    EXPECT_EQ(refused.exitCode, 2) << refused.err;
    EXPECT_NE(refused.err.find("BLOB_TEST holds 4 rows where BlobBench prepared 3"), std::string::npos) << refused.err;
    const auto replaced = runCli({"prepare", db, "--rows", "3", "-q", "--replace"});
    EXPECT_EQ(replaced.exitCode, 0) << replaced.err;
    EXPECT_EQ(runCli({"prepare", db, "--rows", "5", "-q"}).exitCode, 0) << "its own again: replaced";
}

TEST(Round5m, NoOutputMayBeTheDatabasesWalShmOrJournalFile) {
    TempDir dir;
    const std::string file = dir.file("w.db");
    for (const auto& [option, suffix] : std::vector<std::pair<std::string, std::string>>{
             {"--json", "-wal"}, {"--csv", "-shm"}, {"--json", "-journal"}, {"--markdown", "-wal"}}) {
        SCOPED_TRACE(option + " " + suffix);
        const auto r = runCli({"run", "sqlite:" + file, option, file + suffix});
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_NE(r.err.find("the database's " + suffix + " file"), std::string::npos) << r.err;
    }
    const auto log =
        runCli({"run", "sqlite:" + file, "--sessions", "2", "--duration", "1", "--aggregate-log", file + "-wal"});
    EXPECT_EQ(log.exitCode, 2) << log.err;
    EXPECT_NE(log.err.find("-wal file"), std::string::npos) << log.err;
}

TEST(Round5m, ATruncatedClientLibraryIsOneLineNotASigbus) {
    TempDir dir;
    const std::string truncated = dir.file("trunc.so");
    std::string library;
    for (const char* candidate : {"/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1"}) {
        if (std::filesystem::exists(candidate)) {
            library = candidate;
            break;
        }
    }
    ASSERT_FALSE(library.empty()) << "no libz.so.1 to cut short";
    {
        std::ifstream in(library, std::ios::binary);
        std::string bytes(20000, '\0');
        in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        std::ofstream(truncated, std::ios::binary).write(bytes.data(), in.gcount());
    }
    EXPECT_TRUE(blobbench::whyNotALibraryFile(truncated).starts_with("truncated: not a whole shared library"))
        << blobbench::whyNotALibraryFile(truncated);
    EXPECT_EQ(blobbench::whyNotALibraryFile(library), "") << "a whole library";
    const auto r = runCli({"run", "inet://127.0.0.1:1//x.fdb", "--client-library", truncated, "-s", "warm-up"});
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_EQ(r.killedBy, 0);
    EXPECT_NE(r.err.find("truncated: not a whole shared library"), std::string::npos) << r.err;
}

TEST(Round5m, AFinerLatencyIsRecordedAsRunAndABitRateThatRoundsToUnlimitedIsRefused) {
    // L2: 500us ran at 0.5 ms and its tunables say 0 ms (they hold whole milliseconds); the link the
    // relay emulated is the sample's negotiated "link", which predict reads.
    blobbench::Sample sample;
    sample.parameters = blobbench::ParameterValues{{"link_latency_up_ms", "0"}, {"link_latency_down_ms", "0"}};
    EXPECT_FALSE(blobbench::measuredOnAnEmulatedLink(sample));
    blobbench::LinkProfile link;
    link.latencyUp = link.latencyDown = std::chrono::microseconds(500);
    sample.negotiated = std::map<std::string, std::string>{{"link", link.describe()}};
    EXPECT_TRUE(blobbench::measuredOnAnEmulatedLink(sample)) << link.describe();
    sample.negotiated = std::map<std::string, std::string>{{"link", "unshaped"}};
    EXPECT_FALSE(blobbench::measuredOnAnEmulatedLink(sample));
    // L3
    const auto slow = runCli({"run", "postgresql://nobody@127.0.0.1:1/none", "--bandwidth", "0.4"});
    EXPECT_EQ(slow.exitCode, 2) << slow.err;
    EXPECT_NE(slow.err.find("rounds to 0 bit/s, which means unlimited"), std::string::npos) << slow.err;
}

TEST(Round5m, TheKeyedReadStudySaysWhichStepTheStoppedClientDisturbed) {
    TempDir dir;
    const std::string json = dir.file("kr.json");
    const std::string folder = dir.file("kr");
    CliProcess study(
        {"storage", "keyed-read", folder, "--count", "20000", "--size", "10000", "--no-update", "-q", "--json", json});
    // Its folder of files exists once the study writes.
    study.waitForFile(folder);
    std::this_thread::sleep_for(300ms);
    study.stopFor(1800ms);
    const auto r = study.wait(180s);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    QFile file(QString::fromStdString(json));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    int disturbed = 0;
    for (const auto& row :
         QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("results")).toArray()) {
        disturbed += row.toObject()
                             .value(QStringLiteral("disturbed"))
                             .toString()
                             .startsWith(QStringLiteral("the client was stopped or suspended"))
                         ? 1
                         : 0;
    }
    EXPECT_GE(disturbed, 1) << r.out;
    EXPECT_NE(r.out.find("disturbed: the client was stopped"), std::string::npos) << r.out;
}

}  // namespace
