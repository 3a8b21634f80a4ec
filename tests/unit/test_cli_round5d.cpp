// Hostile round 5d (docs/hostile-round-5d-2026-12-03.md), the cases that need no server: reproduce's
// options, the fb-blob-test mode's exports, a study's work directory, a sessions run's exports.
// The fb-blob-test mode's failed --json on a real server: tests/integration/test_firebird_cli.cpp.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "support/TestSupport.h"

using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

int lines(const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

// H2, H3: `--json ''` wrote nothing; `--repeat 5000` was cut to 1000; `--size` on SQLite, `--rows` on
// PostgreSQL and anything on the stated-only publication were ignored, all without a word.
TEST(Round5dCli, ReproduceRefusesWhatItWouldNotHonour) {
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    const std::vector<Case> cases = {
        {{"reproduce", "oracle-securefiles", "--json", ""}, "--json needs a file name (it was given an empty one)"},
        {{"reproduce", "firebird-wire-blobs", "--repeat", "5000"}, "--repeat 5000 exceeds the limit of 1000"},
        {{"reproduce", "sqlite-35-percent", "--rows", "50", "--size", "5"},
         "reproduce sqlite-35-percent: --size does not apply to it (it takes --rows, --json)"},
        {{"reproduce", "sqlite-35-percent", "--repeat", "3"}, "--repeat does not apply to it"},
        {{"reproduce", "firebird-wire-blobs", "--size", "5"}, "--size does not apply to it"},
        {{"reproduce", "postgres-bytea-2007", "--rows", "5"}, "--rows does not apply to it"},
        {{"reproduce", "postgres-bytea-2007", "--client-library", "/x.so"}, "--client-library does not apply to it"},
        {{"reproduce", "oracle-securefiles", "--repeat", "9"},
         "reproduce oracle-securefiles: --repeat does not apply to it (it takes --json)"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::PrintToString(c.args));
        TempDir dir;
        const auto r = runCli(c.args, {"TMPDIR=" + dir.path().string()});
        EXPECT_EQ(r.exitCode, 2) << c.says << "\n" << r.out << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("Verdicts:"), std::string::npos) << r.out;
        EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << c.says << ": it ran";
    }
    // What each takes is still taken.
    TempDir dir;
    const auto r = runCli({"reproduce", "oracle-securefiles", "--json", dir.file("o.json"), "-q"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
}

// C4: a full disk cut reproduce's JSON mid-write, exit 0; the previous table was gone.
TEST(Round5dCli, ReproduceSaysAJsonItCannotWriteAndKeepsThePreviousOne) {
    TempDir dir;
    const auto full = runCli({"reproduce", "oracle-securefiles", "--json", "/dev/full"});
    EXPECT_EQ(full.exitCode, 1) << full.err;
    EXPECT_NE(full.err.find("reproduce: cannot write /dev/full: No space left on device"), std::string::npos)
        << full.err;
    EXPECT_EQ(lines(full.err), 1) << full.err;
    EXPECT_NE(full.out.find("Verdicts: "), std::string::npos) << "the table is printed whatever the file";
    // A folder it cannot write in: the previous file stays whole, and no part of a new one is left.
    const std::string json = dir.file("o.json");
    ASSERT_EQ(runCli({"reproduce", "oracle-securefiles", "--json", json}).exitCode, 0);
    const std::string before = blobbench::test::readFile(json);
    if (::geteuid() != 0) {  // root writes in a folder of mode 0555
        std::filesystem::permissions(dir.path(),
                                     std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
        const auto r = runCli({"reproduce", "oracle-securefiles", "--json", json});
        std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all);
        EXPECT_EQ(r.exitCode, 1) << r.err;
        EXPECT_EQ(blobbench::test::readFile(json), before);
        EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
    }
}

// J1: the fb-blob-test mode took `--json ''` (nothing written), a second --json (the first dropped)
// and --json equal to --csv (the CSV over the JSON), each with exit 0 and no word. Refused before it
// connects (the database named is a closed port).
TEST(Round5dCli, TheFbBlobTestModeRefusesExportsItWouldDrop) {
    TempDir dir;
    const std::string a = dir.file("a.json");
    const std::vector<std::string> base = {"-d", "inet://127.0.0.1:1//x.fdb", "-u", "SYSDBA", "-p", "x"};
    struct Case {
        std::vector<std::string> extra;
        std::string says;
    };
    const std::vector<Case> cases = {
        {{"--json", ""}, "--json needs a file name (it was given an empty one)"},
        {{"--csv="}, "--csv needs a file name (it was given an empty one)"},
        {{"--json", a, "--json", dir.file("b.json")}, "--json is given twice (give it once)"},
        {{"--json", a, "--csv", a}, "--json and --csv name the same file " + a},
        {{"--json", a, "--csv", dir.path().string() + "/./a.json"}, "name the same file"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::PrintToString(c.extra));
        std::vector<std::string> args = base;
        args.insert(args.end(), c.extra.begin(), c.extra.end());
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 2) << c.says << ": " << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("127.0.0.1"), std::string::npos) << "it tried to connect: " << r.err;
    }
}

// H7: `storage keyed-read DIR` and `reproduce sqlite-35-percent DIR` began with remove_all(DIR/files)
// and removed DIR/store.sqlite*: a folder's own files were gone without a word.
TEST(Round5dCli, AStudyLeavesAFolderItDidNotWriteAlone) {
    TempDir dir;
    const std::filesystem::path mine = dir.path() / "mine";
    std::filesystem::create_directories(mine / "files");
    std::ofstream(mine / "files" / "precious.txt") << "precious\n";
    std::ofstream(mine / "store.sqlite") << "mine\n";
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"storage", "keyed-read", mine.string(), "--count", "20", "--size", "1k"},
             {"reproduce", "sqlite-35-percent", mine.string(), "--rows", "20"}}) {
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 2) << args[0] << ": " << r.out << r.err;
        EXPECT_NE(r.err.find("the work directory " + mine.string() + " holds "), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("name a new or empty directory"), std::string::npos) << r.err;
        EXPECT_EQ(blobbench::test::readFile((mine / "files" / "precious.txt").string()), "precious\n");
        EXPECT_EQ(blobbench::test::readFile((mine / "store.sqlite").string()), "mine\n");
    }
    // A new folder, then the same one again: the study's own, replaced.
    const std::string work = dir.file("work");
    for (int run = 0; run < 2; ++run) {
        const auto r = runCli({"storage", "keyed-read", work, "--count", "20", "--size", "1k"});
        EXPECT_EQ(r.exitCode, 0) << "run " << run << ": " << r.err;
    }
    const auto r = runCli({"reproduce", "sqlite-35-percent", work, "--rows", "20"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
}

// C5: a --sessions run whose --json could not be written left its --csv unwritten, unsaid.
TEST(Round5dCli, ASessionsRunWritesItsCsvWhenItsJsonFails) {
    TempDir dir;
    const std::string db = "sqlite:" + dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", db, "--rows", "20", "-q"}).exitCode, 0);
    const std::string csv = dir.file("s.csv");
    const auto r = runCli(
        {"run", db, "-s", "short-blobs", "--sessions", "2", "-r", "2", "--json", "/dev/full", "--csv", csv, "-q"});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("cannot write /dev/full"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the report is printed above and written to " + csv), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::exists(csv));
    EXPECT_NE(r.out.find("stmt/s"), std::string::npos) << r.out;
}
