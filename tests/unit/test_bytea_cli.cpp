// `blobbench-cli bytea --predict-at`: a bad or contradictory link is one clear line (exit 2), refused
// before anything connects or is measured. The prediction itself: tests/integration/test_bytea_prediction.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/TestSupport.h"

namespace blobbench {
namespace {

TEST(ByteaCli, BadOrContradictoryPredictAtIsOneClearLine) {
    const std::string conninfo = "postgresql://postgres@127.0.0.1:1/nowhere";  // never reached
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"bytea", conninfo, "--predict-at", "2M/fast"}, "--predict-at: invalid bit rate 'fast'"},
        {{"bytea", conninfo, "--predict-at", "2M//"}, "is not DOWN/UP[/LATENCY]"},
        {{"bytea", conninfo, "--predict-at", "2M/512k/20ms/1"}, "is not DOWN/UP[/LATENCY]"},
        {{"bytea", conninfo, "--predict-at", "2M/512k/forever"}, "--predict-at: "},
        {{"bytea", conninfo, "--predict-at", "2M/512k", "--down", "2M"}, "predicts from an unshaped run"},
        {{"bytea", conninfo, "--predict-at", "2M/512k", "--no-tap"}, "drop --no-tap"},
        {{"bytea", conninfo, "--json", "/tmp/x.json", "--no-tap"}, "drop --no-tap"},
        {{"run", conninfo, "--predict-at", "2M/512k"}, "--predict-at is an option of bytea"},
    };
    for (const auto& [args, message] : cases) {
        const auto r = test::runCli(args);
        EXPECT_EQ(r.exitCode, 2) << args[2] << " " << args[3];
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.out.find("text vs binary"), std::string::npos) << r.out;  // refused before measuring
    }
}

}  // namespace
}  // namespace blobbench
