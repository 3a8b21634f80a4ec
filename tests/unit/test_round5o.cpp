// Hostile round 5o (docs/hostile-round-5o-2026-12-06.md) without a server: the repetitions measured whole
// before a cancelled one printed (X11), --json on a descriptor of the process (O1), an output over a
// Firebird database's file on this machine (O2), a value changed in place to one of the same length (D1),
// a scalar's value taken for a max id (X25), --tap with --relay (X16), the ids-only test's content line
// on an empty table (X18).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "engine/report/FbCompatReport.h"
#include "engine/report/TextReport.h"
#include "support/TestSupport.h"

using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

blobbench::Sample repetition(int rep, blobbench::SampleStatus status, std::chrono::milliseconds fetch) {
    blobbench::Sample s;
    s.scenarioId = "short-blobs";
    s.scenarioTitle = "Test read short BLOBs";
    s.sql = "SELECT ID, CONTENT FROM BLOB_TEST";
    s.repetition = rep;
    s.status = status;
    s.phases.fetch = fetch;
    s.rows = status == blobbench::SampleStatus::Complete ? 177 : 69;
    s.contentBytes = status == blobbench::SampleStatus::Complete ? 597305 : 1000;
    s.maxId = 300;
    if (status != blobbench::SampleStatus::Complete) {
        s.error = "cancelled after 69 rows";
        s.partial = true;
    }
    return s;
}

TEST(Round5o, TheRepetitionsBeforeACancelledOneArePrinted) {
    std::ostringstream text;
    blobbench::TextReport report(text);
    report.section({repetition(0, blobbench::SampleStatus::Complete, 3655ms),
                    repetition(1, blobbench::SampleStatus::Cancelled, 623ms)});
    const std::string out = text.str();
    EXPECT_NE(out.find("Complete repetitions: 1 of 2\nElapsed time: 3655 ms\n"), std::string::npos) << out;
    EXPECT_NE(out.find("Record count: 177"), std::string::npos) << out;
    EXPECT_NE(out.find("Then cancelled: cancelled after 69 rows\nMeasured until then: 623 ms, 69 rows"),
              std::string::npos)
        << out;
    std::ostringstream alone;
    blobbench::TextReport(alone).section({repetition(0, blobbench::SampleStatus::Failed, 5ms)});
    EXPECT_EQ(alone.str().find("Complete repetitions"), std::string::npos) << alone.str();
    EXPECT_NE(alone.str().find("Failed: cancelled after 69 rows"), std::string::npos) << alone.str();
    // fb-blob-test's layout: a section of the whole ones, then the failing one's.
    std::ostringstream compat;
    blobbench::FbCompatReport fb(compat);
    fb.section({repetition(0, blobbench::SampleStatus::Complete, 3655ms),
                repetition(1, blobbench::SampleStatus::Complete, 3600ms)},
               true);
    EXPECT_NE(compat.str().find("Elapsed time: 3600ms (median of 2)"), std::string::npos) << compat.str();
}

TEST(Round5o, AJsonOnADescriptorOfTheProcessIsAppendedNotRenamedOver) {
    TempDir dir;
    const std::string db = "sqlite:" + dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", db, "--rows", "20", "-q"}).exitCode, 0);
    const std::string link = dir.file("myout");
    std::filesystem::create_symlink("/proc/self/fd/1", link);
    for (const std::string& json : {link, std::string("/dev/stdout")}) {
        SCOPED_TRACE(json);
        const std::string captured = dir.file("out.txt");
        const int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ASSERT_GE(fd, 0);
        CliProcess run({"run", db, "-s", "short-blobs", "-s", "varchar", "-r", "1", "--json", json}, {}, fd);
        ::close(fd);
        const auto r = run.wait(60s);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        const std::string out = blobbench::test::readFile(captured);
        EXPECT_NE(out.find("** Test read VARCHAR"), std::string::npos) << "the report is kept: " << out;
        const std::size_t json0 = out.find("{\n");
        ASSERT_NE(json0, std::string::npos) << out;
        EXPECT_GT(json0, out.find("Record count")) << "the JSON after the report, once";
        EXPECT_EQ(out.find("\"formatVersion\"", out.find("\"formatVersion\"") + 1), std::string::npos)
            << "one JSON document: " << out;
        EXPECT_TRUE(std::filesystem::is_symlink(json)) << json << " is still a link";
    }
}

TEST(Round5o, OutputsOverAFirebirdDatabaseOnThisMachineAreRefused) {
    TempDir dir;
    const std::string fdb = dir.file("f.fdb");
    blobbench::test::writeFile(fdb, "not really a database");
    const std::string link = dir.file("lnk.json");
    std::filesystem::create_symlink(fdb, link);
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    for (const Case& c :
         {Case{{"run", "inet://127.0.0.1:1/" + fdb, "--json", fdb}, "--json and the database"},
          Case{{"run", "localhost:" + fdb, "--csv", link}, "--csv and the database"},
          Case{{"-d", "inet://127.0.0.1:1/" + fdb, "-u", "SYSDBA", "--json", link},
               "--json and the database name the same file"},
          Case{{"-d", "127.0.0.1:" + fdb, "-u", "SYSDBA", "--csv", fdb}, "--csv and the database name the same file"},
          Case{{"-d", "inet://127.0.0.1:1/" + fdb, "--tap", "--relay"}, "--tap and --relay"}}) {
        SCOPED_TRACE(testing::PrintToString(c.args));
        const auto r = runCli(c.args);
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_EQ(blobbench::test::readFile(fdb), "not really a database");
    }
}

TEST(Round5o, PrepareRefusesAValueChangedInPlaceToOneOfTheSameLength) {
    TempDir dir;
    const std::string file = dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "30", "-q"}).exitCode, 0);
    blobbench::test::sqliteExecute(file, {"UPDATE BLOB_TEST SET CONTENT = upper(CONTENT) WHERE ID = 7"});
    const auto refused = runCli({"prepare", "sqlite:" + file, "--rows", "3", "-q"});
    EXPECT_EQ(refused.exitCode, 2) << refused.err;
    EXPECT_NE(refused.err.find("BLOB_TEST holds 1 value BlobBench did not prepare (row 7: "), std::string::npos)
        << refused.err;
    EXPECT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "3", "-q", "--replace"}).exitCode, 0);
    EXPECT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "3", "-q"}).exitCode, 0) << "its own again";
}

TEST(Round5o, AScalarsValueIsNoMaxIdAndAnEmptyIdsOnlyTestHasNoContentLine) {
    TempDir dir;
    const std::string db = "sqlite:" + dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", db, "--rows", "20", "-q"}).exitCode, 0);
    const std::string csv = dir.file("w.csv");
    ASSERT_EQ(runCli({"run", db, "-s", "warm-up", "-s", "short-blobs", "-r", "1", "-q", "--csv", csv}).exitCode, 0);
    const std::string rows = blobbench::test::readFile(csv);
    const std::size_t warm = rows.find("\n", rows.find("warm-up"));
    const std::string warmRow = rows.substr(rows.rfind('\n', rows.find("warm-up")) + 1, warm);
    EXPECT_EQ(warmRow.find(",77743,"), std::string::npos) << warmRow;
    blobbench::Sample empty;
    empty.scenarioTitle = "Test read only BLOB IDs";
    std::ostringstream text;
    blobbench::FbCompatReport(text).section({empty}, true, false);
    EXPECT_EQ(text.str().find("Content size"), std::string::npos) << text.str();
    std::ostringstream read;
    blobbench::FbCompatReport(read).section({empty}, true);
    EXPECT_NE(read.str().find("Content size: 0 bytes"), std::string::npos) << read.str();
}

// O3: a FIFO and a link to a device in the folder were left out without a word; D7: prepare --latency
// was accepted and ignored.
TEST(Round5o, PrepareSaysWhatItLeftOutOfTheFolderAndRefusesALink) {
    TempDir dir;
    const std::string folder = dir.file("s");
    std::filesystem::create_directory(folder);
    blobbench::test::writeFile(folder + "/a.bin", std::string(3000, 'a'));
    ASSERT_EQ(::mkfifo((folder + "/p").c_str(), 0600), 0);
    std::filesystem::create_symlink("/dev/zero", folder + "/z");
    std::filesystem::create_symlink(folder + "/gone", folder + "/broken");
    const auto r = runCli({"prepare", "sqlite:" + dir.file("x.db"), "--from-folder", folder, "--rows", "5", "-q"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("left out what is no file: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("p (not a regular file (a FIFO))"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("z (not a regular file (a device))"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("broken (a broken link)"), std::string::npos) << r.err;
    // D2: a run of an emptied BLOB_TEST says so beside the marker's figures.
    blobbench::test::sqliteExecute(dir.file("x.db"), {"DELETE FROM BLOB_TEST"});
    const auto emptied = runCli({"run", "sqlite:" + dir.file("x.db"), "-s", "all-blobs", "-r", "1"});
    EXPECT_NE(emptied.out.find("5 rows, "), std::string::npos) << emptied.out;
    EXPECT_NE(emptied.out.find("BLOB_TEST now holds 0 rows: changed since it was prepared"), std::string::npos)
        << emptied.out;
    const auto link = runCli({"prepare", "sqlite:" + dir.file("y.db"), "--rows", "5", "--latency", "50"});
    EXPECT_EQ(link.exitCode, 2) << link.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("y.db")));
}

}  // namespace
