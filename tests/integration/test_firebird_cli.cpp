// blobbench-cli on the real Firebird server: prepare (creating a database of its own), the generic
// run, and the fb-blob-test compatible command line and report.
#include <firebird/Interface.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>
#include <sstream>

#include "support/FirebirdSupport.h"
#include "support/TestSupport.h"

using blobbench::test::dropFirebirdDatabase;
using blobbench::test::runCli;

namespace {

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

bool hasLine(const std::string& text, const std::string& line) {
    const auto all = lines(text);
    return std::find(all.begin(), all.end(), line) != all.end();
}

bool hasLineMatching(const std::string& text, const std::string& pattern) {
    const std::regex re(pattern);
    for (const auto& line : lines(text)) {
        if (std::regex_match(line, re)) {
            return true;
        }
    }
    return false;
}

// One database per test process, prepared once: prepare is what the first test checks.
class FirebirdCliTest : public ::testing::Test {
protected:
    static void TearDownTestSuite() {
        if (!s_target.empty()) {
            dropFirebirdDatabase(s_target, s_user, s_password);
        }
    }
    void SetUp() override {
        BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
        BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
        BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
        s_user = user;
        s_password = password;
        if (s_target.empty()) {
            // Next to the test database, so the server may create it there.
            s_target = std::regex_replace(database, std::regex(R"([^/]+$)"),
                                          "blobbench_cli_" + std::to_string(getpid()) + ".fdb");
            const auto r = runCli({"prepare", "-d", s_target, "-u", user, "-p", password, "-P", "create_database=true",
                                   "--rows", "300", "-q"});
            ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
            s_prepareOut = r.out;
        }
    }
    std::vector<std::string> credentials() const { return {"-u", s_user, "-p", s_password}; }

    static inline std::string s_target, s_user, s_password, s_prepareOut;
};

TEST_F(FirebirdCliTest, PrepareCreatesAndFillsTheReferenceTables) {
    EXPECT_NE(s_prepareOut.find("Prepared firebird:"), std::string::npos) << s_prepareOut;
    EXPECT_NE(s_prepareOut.find(": 300 rows"), std::string::npos) << s_prepareOut;
}

TEST_F(FirebirdCliTest, GenericRunReportsEveryScenario) {
    auto args = std::vector<std::string>{"run", "-d", s_target, "-q"};
    const auto c = credentials();
    args.insert(args.end(), c.begin(), c.end());
    const auto r = runCli(args);
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    for (const char* title : {"** Warming up the cache **", "** Test read short BLOBs **", "** Test read all BLOBs **",
                              "** Test read only BLOB IDs **"}) {
        EXPECT_TRUE(hasLine(r.out, title)) << title << "\n" << r.out;
    }
    EXPECT_TRUE(hasLine(r.out, "Record count: 300")) << r.out;
}

TEST_F(FirebirdCliTest, FbBlobTestCommandLineGivesTheReferenceReport) {
    for (const bool compress : {false, true}) {
        auto args = std::vector<std::string>{"-d", s_target};
        const auto c = credentials();
        args.insert(args.end(), c.begin(), c.end());
        if (compress) {
            args.push_back("-z");
        }
        const auto r = runCli(args);
        ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
        const auto out = lines(r.out);
        ASSERT_GT(out.size(), 10u) << r.out;
        EXPECT_EQ(out[0], "===== Test of BLOBs transmission over the network =====");
        EXPECT_EQ(out[1], "");
        EXPECT_EQ(out[2], "Firebird server version");
        EXPECT_TRUE(hasLineMatching(r.out, R"(Firebird/.* \(remote interface\), version ".*/P\d+:C?)" +
                                               std::string(compress ? "Z" : "") + "\""))
            << r.out;
        EXPECT_TRUE(hasLineMatching(r.out, R"(on disk structure version \d+\.\d+)")) << r.out;
        int sections = 0;
        for (const char* title :
             {"** Warming up the cache **", "** Test read short BLOBs **", "** Test read VARCHAR(8191) **",
              "** Test read all BLOBs **", "** Test read mixed BLOBs and VARCHARs **",
              "** Test read mixed BLOBs and VARCHARs with optimize **", "** Test read only BLOB IDs **"}) {
            sections += hasLine(r.out, title);
        }
        EXPECT_EQ(sections, 7) << r.out;
        EXPECT_TRUE(hasLineMatching(r.out, R"(Elapsed time: \d+ms)"));
        EXPECT_TRUE(hasLineMatching(r.out, R"(Max char length: \d+)"));
        EXPECT_TRUE(hasLine(r.out, "Max id: 300"));
        EXPECT_TRUE(hasLine(r.out, "Record count: 300"));
        EXPECT_TRUE(hasLineMatching(r.out, R"(Content size: \d+ bytes)"));
        // Firebird 3: said so, never faked.
        EXPECT_TRUE(hasLineMatching(r.out, R"(MaxInlineBlobSize = 65535, not in effect \(needs client and server >= )"
                                           R"(5\.0\.3: client 3\.0\.\d+ and server 3\.0\.\d+ are older\))"))
            << r.out;
        EXPECT_TRUE(
            hasLineMatching(r.out, R"(Wire statistics: not available \(client 3\.0\.\d+ has no wire counters\))"))
            << r.out;
    }
}

TEST_F(FirebirdCliTest, LimitRowsAndAutoInline) {
    auto args = std::vector<std::string>{s_target, "-n", "10", "-a"};
    const auto c = credentials();
    args.insert(args.end(), c.begin(), c.end());
    const auto r = runCli(args);
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_TRUE(hasLine(r.out, "FETCH FIRST 10 ROWS ONLY")) << r.out;
    EXPECT_TRUE(hasLine(r.out, "Record count: 10")) << r.out;
    // -a picks per statement; the id-only test needs none.
    EXPECT_TRUE(
        hasLineMatching(r.out, R"(MaxInlineBlobSize = 0, not in effect \(needs client and server >= 5\.0\.3: .*\))"))
        << r.out;
}

TEST_F(FirebirdCliTest, RepeatJsonAndCsv) {
    blobbench::test::TempDir dir;
    auto args = std::vector<std::string>{"-d",     s_target,           "--repeat", "3",
                                         "--json", dir.file("s.json"), "--csv",    dir.file("s.csv")};
    const auto c = credentials();
    args.insert(args.end(), c.begin(), c.end());
    const auto r = runCli(args);
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_TRUE(hasLineMatching(r.out, R"(Elapsed time: \d+ms \(median of 3\))")) << r.out;
    EXPECT_TRUE(std::filesystem::file_size(dir.file("s.json")) > 0);
    EXPECT_TRUE(std::filesystem::file_size(dir.file("s.csv")) > 0);
}

// Hostile round 5d C6: a --json the mode could not write stopped the run after its first scenario
// without a word, and the --csv on a healthy disk was not written. Now the CSV holds what was
// measured, and one line says what failed, that the run stopped, and where the samples are.
TEST_F(FirebirdCliTest, AJsonItCannotWriteStopsTheRunSayingSoAndTheCsvIsWritten) {
    blobbench::test::TempDir dir;
    const std::string csv = dir.file("s.csv");
    auto args = std::vector<std::string>{"-d", s_target, "-n", "5", "--json", "/dev/full", "--csv", csv};
    const auto c = credentials();
    args.insert(args.end(), c.begin(), c.end());
    const auto r = runCli(args);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    // A device takes the export once, at the end (hostile round 5p B3), so the whole suite ran.
    EXPECT_NE(r.err.find("cannot write /dev/full: No space left on device; its 7 samples are printed above and saved "
                         "in " +
                         csv),
              std::string::npos)
        << r.err;
    EXPECT_NE(blobbench::test::readFile(csv).find(",warm-up,1,firebird,"), std::string::npos)
        << "the first scenario's sample";
}

TEST_F(FirebirdCliTest, BadInputIsOneLineAndExitOne) {
    const auto help = runCli({"-z", "--help"});
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_EQ(help.out.rfind("Usage fb-blob-test [<database>] <options>", 0), 0u) << help.out;

    const auto wrongPassword = runCli({"-d", s_target, "-u", s_user, "-p", "wrong-password"});
    EXPECT_EQ(wrongPassword.exitCode, 1);
    EXPECT_NE(wrongPassword.err.find("password"), std::string::npos) << wrongPassword.err;
    EXPECT_EQ(lines(wrongPassword.err).size(), 1u) << wrongPassword.err;
    EXPECT_EQ(wrongPassword.err.find("wrong-password"), std::string::npos);

    auto args = std::vector<std::string>{"-d", s_target, "--client-library", "/nonexistent/libfbclient.so"};
    const auto c = credentials();
    args.insert(args.end(), c.begin(), c.end());
    const auto badLibrary = runCli(args);
    EXPECT_EQ(badLibrary.exitCode, 1);
    EXPECT_EQ(lines(badLibrary.err).size(), 1u) << badLibrary.err;
    EXPECT_NE(badLibrary.err.find("/nonexistent/libfbclient.so"), std::string::npos) << badLibrary.err;

    const auto refused = runCli({"-d", "inet://127.0.0.1:1/blob_test", "-u", s_user, "-p", s_password});
    EXPECT_EQ(refused.exitCode, 1);
    EXPECT_EQ(lines(refused.err).size(), 1u) << refused.err;

    const auto badOption = runCli({"-z", "--bogus"});
    EXPECT_EQ(badOption.exitCode, 2);
}

}  // namespace
