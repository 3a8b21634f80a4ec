// The sessions' latency histogram against the exact nearest-rank percentiles of known distributions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/run/LatencyHistogram.h"

using namespace blobbench;

namespace {

// The nearest-rank percentile: the value at rank max(1, ceil(q n)) of the sorted values.
std::uint64_t exactPercentile(std::vector<std::uint64_t> values, double q) {
    std::sort(values.begin(), values.end());
    const auto rank =
        std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size()))));
    return values[rank - 1];
}

void expectWithinBound(const std::vector<std::uint64_t>& values, const LatencyHistogram& h) {
    for (const double q : {0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0}) {
        const auto exact = static_cast<double>(exactPercentile(values, q));
        const auto got = static_cast<double>(h.percentile(q));
        EXPECT_LE(std::abs(got - exact), exact * LatencyHistogram::kMaxRelativeError + 0.5)
            << "q " << q << ": exact " << exact << ", histogram " << got;
    }
    EXPECT_EQ(h.count(), values.size());
    EXPECT_EQ(h.min(), *std::min_element(values.begin(), values.end()));
    EXPECT_EQ(h.max(), *std::max_element(values.begin(), values.end()));
}

TEST(LatencyHistogram, EmptyGivesZeros) {
    const LatencyHistogram h;
    EXPECT_EQ(h.count(), 0u);
    EXPECT_EQ(h.percentile(0.99), 0u);
    EXPECT_EQ(h.max(), 0u);
    EXPECT_EQ(h.mean(), 0.0);
    EXPECT_TRUE(h.buckets().empty());
}

TEST(LatencyHistogram, SmallValuesAreExact) {
    LatencyHistogram h;
    std::vector<std::uint64_t> values;
    for (std::uint64_t v = 0; v < 256; ++v) {
        h.record(v);
        values.push_back(v);
    }
    for (const double q : {0.1, 0.5, 0.9, 0.99}) {
        EXPECT_EQ(h.percentile(q), exactPercentile(values, q)) << q;
    }
    EXPECT_DOUBLE_EQ(h.mean(), 127.5);
}

TEST(LatencyHistogram, BucketsTileTheRangeWithBoundedWidth) {
    for (std::size_t i = 1; i < 7424; ++i) {
        const auto previous = LatencyHistogram::bounds(i - 1);
        const auto b = LatencyHistogram::bounds(i);
        ASSERT_EQ(previous.high, b.low) << i;
        ASSERT_LE(static_cast<double>(b.high - b.low), std::max(1.0, static_cast<double>(b.low) / 128)) << i;
        ASSERT_EQ(LatencyHistogram::indexOf(b.low), i);
        ASSERT_EQ(LatencyHistogram::indexOf(b.high - 1), i);
    }
    EXPECT_EQ(LatencyHistogram::indexOf(UINT64_MAX), 7423u);
}

TEST(LatencyHistogram, UniformMicrosecondsToSeconds) {
    std::mt19937_64 random(25);
    std::uniform_int_distribution<std::uint64_t> uniform(1'000, 2'000'000'000);
    LatencyHistogram h;
    std::vector<std::uint64_t> values;
    for (int i = 0; i < 100'000; ++i) {
        values.push_back(uniform(random));
        h.record(values.back());
    }
    expectWithinBound(values, h);
}

TEST(LatencyHistogram, LogNormalWithALongTail) {
    std::mt19937_64 random(2026);
    std::lognormal_distribution<double> latency(std::log(200'000.0), 1.2);  // about 200 us, tail to seconds
    LatencyHistogram h;
    std::vector<std::uint64_t> values;
    for (int i = 0; i < 50'000; ++i) {
        values.push_back(static_cast<std::uint64_t>(latency(random)));
        h.record(values.back());
    }
    expectWithinBound(values, h);
}

TEST(LatencyHistogram, OneOutlierIsTheMaxAndThePercentileAboveIt) {
    LatencyHistogram h;
    for (int i = 0; i < 999; ++i) {
        h.record(100'000);
    }
    h.record(2'000'000'000);  // a 2 s stall
    EXPECT_EQ(h.max(), 2'000'000'000u);
    EXPECT_EQ(h.percentile(1.0), 2'000'000'000u);
    EXPECT_NEAR(static_cast<double>(h.percentile(0.999)), 100'000.0, 100'000.0 / 256);
    EXPECT_NEAR(static_cast<double>(h.percentile(0.9995)), 2e9, 2e9 / 256);
}

TEST(LatencyHistogram, MergedEqualsTheHistogramOfAllValues) {
    std::mt19937_64 random(7);
    std::exponential_distribution<double> fast(1.0 / 50'000), slow(1.0 / 5'000'000);
    LatencyHistogram a, b, all;
    std::vector<std::uint64_t> values;
    for (int i = 0; i < 20'000; ++i) {
        const auto x = static_cast<std::uint64_t>(fast(random));
        const auto y = static_cast<std::uint64_t>(slow(random));
        a.record(x);
        b.record(y);
        all.record(x);
        all.record(y);
        values.push_back(x);
        values.push_back(y);
    }
    LatencyHistogram merged = a;
    merged.merge(b);
    expectWithinBound(values, merged);
    const auto mb = merged.buckets();
    const auto ab = all.buckets();
    ASSERT_EQ(mb.size(), ab.size());
    for (std::size_t i = 0; i < mb.size(); ++i) {
        EXPECT_EQ(mb[i].low, ab[i].low);
        EXPECT_EQ(mb[i].count, ab[i].count);
    }
    EXPECT_DOUBLE_EQ(merged.mean(), all.mean());
    LatencyHistogram empty;
    empty.merge(a);
    EXPECT_EQ(empty.min(), a.min());
    EXPECT_EQ(empty.percentile(0.5), a.percentile(0.5));
}

}  // namespace
