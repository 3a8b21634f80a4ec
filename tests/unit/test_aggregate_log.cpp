// pgbench's aggregate log (--aggregate-interval, PostgreSQL 15's column order) of a sessions run,
// fed known statements: every column is checked against arithmetic on them.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "engine/run/AggregateLog.h"

using namespace blobbench;
using namespace std::chrono_literals;

namespace {

std::chrono::system_clock::time_point at(std::int64_t epochSeconds, std::chrono::milliseconds plus = 0ms) {
    return std::chrono::system_clock::time_point(std::chrono::seconds(epochSeconds)) + plus;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

}  // namespace

TEST(AggregateLog, ColumnsInPgbenchOrder) {
    std::ostringstream out;
    AggregateLog log(out, 1s);
    // Closed loop: 2 ms and 4 ms in second 1000, a failure in it too; 10 ms in second 1001.
    log.record({true, at(1000, 100ms), 2'000'000, std::nullopt});
    log.record({true, at(1000, 900ms), 4'000'000, std::nullopt});
    log.record({false, at(1000, 950ms), 0, std::nullopt});
    log.record({true, at(1001, 10ms), 10'000'000, std::nullopt});
    log.finish();
    const auto l = lines(out.str());
    ASSERT_EQ(l.size(), 2u);
    // interval_start num sum_lat sum_lat2 min max sum_lag sum_lag2 min_lag max_lag skipped retried retries
    // failures serialization deadlock
    EXPECT_EQ(l[0], "1000 2 6000 20000000 2000 4000 0 0 0 0 0 0 0 1 0 0");
    EXPECT_EQ(l[1], "1001 1 10000 100000000 10000 10000 0 0 0 0 0 0 0 0 0 0");
    EXPECT_EQ(log.linesWritten(), 2u);
}

TEST(AggregateLog, OpenLoopLagAndEmptyIntervals) {
    std::ostringstream out;
    AggregateLog log(out, 2s);
    log.record({true, at(1000, 500ms), 3'000'000, 1'000'000});
    log.record({true, at(1001, 500ms), 5'000'000, 3'000'000});
    // Nothing in 1002-1005: written as zeros, as pgbench does.
    log.record({true, at(1006, 1ms), 1'000'000, 0});
    log.finish();
    const auto l = lines(out.str());
    ASSERT_EQ(l.size(), 4u);
    EXPECT_EQ(l[0], "1000 2 8000 34000000 3000 5000 4000 10000000 1000 3000 0 0 0 0 0 0");
    EXPECT_EQ(l[1], "1002 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0");
    EXPECT_EQ(l[2], "1004 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0");
    EXPECT_EQ(l[3], "1006 1 1000 1000000 1000 1000 0 0 0 0 0 0 0 0 0 0");
}

TEST(AggregateLog, AnIntervalIsWrittenOnceSettled) {
    std::ostringstream out;
    AggregateLog log(out, 1s);
    log.record({true, at(1000), 1'000'000, std::nullopt});
    log.record({true, at(1001), 1'000'000, std::nullopt});
    EXPECT_TRUE(out.str().empty());  // a session may still end a statement in second 1000
    log.record({true, at(1002), 1'000'000, std::nullopt});
    EXPECT_EQ(lines(out.str()).size(), 1u);
    // A statement of a written interval (a clock stepped back) is not counted twice or out of order.
    log.record({true, at(1000), 1'000'000, std::nullopt});
    log.finish();
    const auto l = lines(out.str());
    ASSERT_EQ(l.size(), 3u);
    EXPECT_EQ(l[0].substr(0, 7), "1000 1 ");
    EXPECT_EQ(l[2].substr(0, 7), "1002 1 ");
}

TEST(AggregateLog, RoundsNanosecondsToMicroseconds) {
    std::ostringstream out;
    AggregateLog log(out, 1s);
    log.record({true, at(5), 1'499, std::nullopt});
    log.record({true, at(5), 1'500, std::nullopt});
    log.finish();
    EXPECT_EQ(lines(out.str()).at(0), "5 2 3 5 1 2 0 0 0 0 0 0 0 0 0 0");
}
