// The fb-blob-test compatible mode's wire extensions against the real Firebird server: off by
// default (the reference tool's report), --tap adds "Wire tap statistics (in-process counters)" to
// each test, --relay the relay's, with the same bytes and the same round trips but for the few a
// request sent without waiting adds to the relay's count (test::relayRoundTripsAgree).
#include <gtest/gtest.h>

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include "support/TestSupport.h"

namespace blobbench {
namespace {

struct Block {
    std::string bytes;  // the send and recv bytes lines
    std::uint64_t roundTrips = 0;
};

std::vector<Block> blocks(const std::string& out, const std::string& title) {
    std::vector<Block> found;
    for (std::size_t at = out.find(title); at != std::string::npos; at = out.find(title, at + 1)) {
        const std::size_t end = out.find("\n\n", at);
        std::string block =
            out.substr(at + title.size(), end == std::string::npos ? std::string::npos : end - at - title.size());
        // packets are the client's calls vs the relay's reads: compared by bytes and round trips only
        block = std::regex_replace(block, std::regex("  (send|recv) packets = \\d+\n"), "");
        Block b;
        std::smatch trips;
        if (std::regex_search(block, trips, std::regex("  roundtrips = (\\d+)"))) {
            b.roundTrips = std::stoull(trips[1].str());
            block = trips.prefix().str() + trips.suffix().str();
        }
        b.bytes = block;
        found.push_back(b);
    }
    return found;
}

TEST(FirebirdCompatTap, OffByDefaultInProcessWithTapEqualToTheRelay) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    const std::vector<std::string> base = {
        "-d", database, "-u", test::envOrEmpty("BLOBBENCH_FB_USER"), "-p", test::envOrEmpty("BLOBBENCH_FB_PASSWORD"),
        "-n", "50"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = base;
        args.insert(args.end(), extra.begin(), extra.end());
        return test::runCli(args);
    };
    const auto plain = with({});
    ASSERT_EQ(plain.exitCode, 0) << plain.err;
    EXPECT_EQ(plain.out.find("Wire tap statistics"), std::string::npos);

    const auto tapped = with({"--tap"});
    ASSERT_EQ(tapped.exitCode, 0) << tapped.err;
    const auto relayed = with({"--relay"});
    ASSERT_EQ(relayed.exitCode, 0) << relayed.err;
    const auto inProcess = blocks(tapped.out, "Wire tap statistics (in-process counters):\n");
    const auto relay = blocks(relayed.out, "Wire tap statistics (relay):\n");
    ASSERT_FALSE(inProcess.empty()) << tapped.out;
    ASSERT_EQ(inProcess.size(), relay.size()) << relayed.out;
    for (std::size_t i = 0; i < inProcess.size(); ++i) {
        SCOPED_TRACE("test " + std::to_string(i + 1));
        EXPECT_EQ(inProcess[i].bytes, relay[i].bytes);
        EXPECT_GT(inProcess[i].roundTrips, 0u) << tapped.out;
        EXPECT_TRUE(test::relayRoundTripsAgree(inProcess[i].roundTrips, relay[i].roundTrips))
            << "in-process " << inProcess[i].roundTrips << ", relay " << relay[i].roundTrips;
    }
}

TEST(FirebirdCompatTap, LinkOptionsGoThroughTheRelay) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    const auto r = test::runCli({"-d", database, "-u", test::envOrEmpty("BLOBBENCH_FB_USER"), "-p",
                                 test::envOrEmpty("BLOBBENCH_FB_PASSWORD"), "-n", "5", "--latency", "1"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("Wire tap statistics (relay):"), std::string::npos) << r.out;
    const auto bad = test::runCli({"-d", database, "--bandwidth", "12"});
    EXPECT_EQ(bad.exitCode, 2) << bad.out << bad.err;
}

}  // namespace
}  // namespace blobbench
