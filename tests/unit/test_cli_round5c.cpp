// Hostile round 5c (docs/hostile-round-5c-2026-12-03.md), the cases that need no server: an export
// named over an SQLite database given as "sqlite:...", an empty output file name, and passwords that
// a library's or a hint's words carried into the error line. The PostgreSQL hint: tests/integration/test_secrets.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::runCli;
using blobbench::test::TempDir;

// J3: `run sqlite:/x/s.db --json /x/s.db` replaced the database with the JSON (the bare path was refused).
TEST(Round5cCli, AnExportOverTheSqliteDatabaseIsRefusedWhateverItsSpelling) {
    TempDir dir;
    const std::string file = dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "20", "-q"}).exitCode, 0);
    const std::string before = blobbench::test::readFile(file);
    for (const char* option : {"--json", "--csv", "--markdown"}) {
        const auto r = runCli({"run", "sqlite:" + file, "-s", "warm-up", "-r", "1", option, file, "-q"});
        EXPECT_EQ(r.exitCode, 2) << option << ": " << r.err;
        EXPECT_NE(r.err.find("name the same file"), std::string::npos) << r.err;
        EXPECT_EQ(blobbench::test::readFile(file), before) << option << " touched the database";
    }
}

// J1: `--json '' --csv ''` wrote nothing, said nothing and exited 0.
TEST(Round5cCli, AnEmptyOutputFileNameIsRefused) {
    TempDir dir;
    const std::string db = "sqlite:" + dir.file("none.sqlite");
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"run", db, "--json", ""}, {"run", db, "--csv="}, {"run", db, "--markdown", ""}}) {
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 2) << args[2] << ": " << r.err;
        EXPECT_NE(r.err.find("needs a file name (it was given an empty one)"), std::string::npos) << r.err;
    }
}

// L3: a URI given to another engine: libpq quoted it in `missing "=" after "..."`, and SQLite's
// "prepare it first" hint quoted it as a path, both with the password in clear.
TEST(Round5cCli, AConnectionStringQuotedInAnErrorLineHasItsPasswordMasked) {
    TempDir dir;
    const std::vector<std::vector<std::string>> cases = {
        {"run", "mariadb://u:Hush5ecret@127.0.0.1:1/db", "-e", "postgres", "-q"},
        {"run", "mysql://u:Hush5ecret@127.0.0.1:1/db", "-e", "sqlite", "-q"},
        {"prepare", "mariadb://u:Hush5ecret@127.0.0.1:1/db", "-e", "postgres", "-q"},
    };
    for (const auto& args : cases) {
        const auto r = runCli(args, {"HOME=" + dir.path().string()});
        EXPECT_NE(r.exitCode, 0) << args[1];
        EXPECT_EQ(r.err.find("Hush5ecret"), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("Hush5ecret"), std::string::npos) << r.out;
        EXPECT_NE(r.err.find("***"), std::string::npos) << "the line still names the connection: " << r.err;
    }
}

// B5: `--verify-content -P verify_content=off` verified nothing and said nothing; M2: --client-library
// on another engine than Firebird was ignored without a word.
TEST(Round5cCli, ContradictingOrIneffectiveOptionsAreSaid) {
    TempDir dir;
    const std::string file = dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "20", "-q"}).exitCode, 0);
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"run", "sqlite:" + file, "--verify-content", "-P", "verify_content=off"},
             {"run", "sqlite:" + file, "-P", "verify_content=off", "--verify-content"}}) {
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_NE(r.err.find("both say whether to verify"), std::string::npos) << r.err;
    }
    const auto r =
        runCli({"run", "sqlite:" + file, "-s", "warm-up", "-r", "1", "--client-library", "/nonexist.so", "-q"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("--client-library /nonexist.so is not in effect on SQLite"), std::string::npos) << r.err;
}
