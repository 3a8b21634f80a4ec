// Hostile round 5j (docs/hostile-round-5j-2026-12-06.md), the cases that need no server: a password glued
// to -p was echoed in the refusal (W1); a Firebird URL with user:password@ passed the password to
// fbclient as part of a host name, which its error quoted (W2).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/TestSupport.h"

using blobbench::test::runCli;

TEST(Round5j, APasswordGluedToAnOptionIsNotEchoed) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"run", "sqlite:/nonexistent.db", "-pS3cretW1"},
          std::vector<std::string>{"run", "sqlite:/nonexistent.db", "--passwordS3cretW1"},
          std::vector<std::string>{"check", "fb9060", "-pS3cretW1"}}) {
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_NE(r.err.find("unknown option"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("S3cretW1"), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("S3cretW1"), std::string::npos) << r.out;
    }
}

TEST(Round5j, AFirebirdUrlWithUserInformationIsRefusedBeforeConnecting) {
    for (const char* target : {"firebird://SYSDBA:S3cretW2@127.0.0.1:3050//var/tmp/x.fdb",
                               "inet://SYSDBA:S3cretW2@127.0.0.1:3050//var/tmp/x.fdb"}) {
        const auto r = runCli({"run", target, "-s", "short-blobs", "-r", "1"}, {"ISC_PASSWORD="});
        EXPECT_NE(r.exitCode, 0);
        EXPECT_NE(r.err.find("user information before the host"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("S3cretW2"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("network request"), std::string::npos) << "it reached fbclient: " << r.err;
    }
}

// Round 5k K4: a misspelt password key (?pasword=) was refused with its value in clear, twice.
TEST(Round5j, AMisspeltPasswordKeyIsNotEchoed) {
    for (const char* target :
         {"mariadb://bb@127.0.0.1:1/h5k?pasword=S3cretK4", "postgresql://u@127.0.0.1:1/db?passwrd=S3cretK4"}) {
        const auto r = runCli({"run", target, "-r", "1"});
        EXPECT_NE(r.exitCode, 0);
        EXPECT_EQ(r.err.find("S3cretK4"), std::string::npos) << r.err;
    }
}
