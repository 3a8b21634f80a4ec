// Descriptive statistics and the Mann-Whitney U test against values computed by hand and
// published examples (SciPy's documentation, R's wilcox.test help page).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/run/Statistics.h"

using namespace blobbench;

TEST(Statistics, SummaryOfAKnownSet) {
    // The classic set: mean 5, population sd 2, sample sd sqrt(32/7).
    const std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
    const Summary s = summarise(v);
    EXPECT_EQ(s.count, 8u);
    EXPECT_DOUBLE_EQ(s.mean, 5.0);
    EXPECT_DOUBLE_EQ(s.median, 4.5);
    EXPECT_DOUBLE_EQ(s.min, 2.0);
    EXPECT_DOUBLE_EQ(s.max, 9.0);
    EXPECT_NEAR(s.stddev, std::sqrt(32.0 / 7.0), 1e-12);
    EXPECT_NEAR(s.cv, std::sqrt(32.0 / 7.0) / 5.0, 1e-12);
    // type 7: h = 7 * 0.95 = 6.65 -> 7 + 0.65 * (9 - 7)
    EXPECT_NEAR(s.p95, 8.3, 1e-12);
    EXPECT_DOUBLE_EQ(s.q1, 4.0);
    EXPECT_DOUBLE_EQ(s.q3, 5.5);
    // Tukey fences 1.75 .. 7.75: only the 9 is out.
    EXPECT_EQ(s.outlierCount(), 1u);
    EXPECT_TRUE(s.outlier[7]);
    EXPECT_FALSE(s.outlier[0]);
}

TEST(Statistics, QuantilesMatchR) {
    // R: quantile(1:10, c(.25, .5, .95)) -> 3.25 5.50 9.55
    std::vector<double> v;
    for (int i = 1; i <= 10; ++i) {
        v.push_back(i);
    }
    EXPECT_NEAR(quantileSorted(v, 0.25), 3.25, 1e-12);
    EXPECT_NEAR(quantileSorted(v, 0.5), 5.5, 1e-12);
    EXPECT_NEAR(quantileSorted(v, 0.95), 9.55, 1e-12);
}

TEST(Statistics, EdgeCases) {
    const Summary none = summarise({});
    EXPECT_EQ(none.count, 0u);
    EXPECT_EQ(none.median, 0);
    const Summary one = summarise({42});
    EXPECT_EQ(one.median, 42);
    EXPECT_EQ(one.p95, 42);
    EXPECT_EQ(one.stddev, 0);
    EXPECT_EQ(one.cv, 0);
    EXPECT_EQ(one.outlierCount(), 0u);
    const Summary flat = summarise({3, 3, 3, 3, 3});
    EXPECT_EQ(flat.stddev, 0);
    EXPECT_EQ(flat.outlierCount(), 0u);
    // Three values: too few for quartiles to flag anything.
    EXPECT_EQ(summarise({1, 2, 1000}).outlierCount(), 0u);
    // Unsorted input: outliers reported in the input's order.
    const Summary s = summarise({10, 11, 10, 500, 12, 11});
    EXPECT_TRUE(s.outlier[3]);
    EXPECT_EQ(s.outlierCount(), 1u);
}

TEST(MannWhitney, ScipyDocumentationExample) {
    // scipy.stats.mannwhitneyu docs: males vs females, U1 = 17, exact p = 0.1111..., asymptotic
    // (continuity-corrected) p = 0.11134688653314041.
    const std::vector<double> males = {19, 22, 16, 29, 24};
    const std::vector<double> females = {20, 11, 17, 12};
    const MannWhitney exact = mannWhitneyU(males, females);
    EXPECT_TRUE(exact.valid);
    EXPECT_TRUE(exact.exact);
    EXPECT_DOUBLE_EQ(exact.u1, 17);
    EXPECT_DOUBLE_EQ(exact.u2, 3);
    EXPECT_NEAR(exact.pValue, 14.0 / 126.0, 1e-12);
    EXPECT_FALSE(exact.significant());
    // The same data just beyond the exact limit's reach: the normal approximation.
    // (Computed directly: z = (|17 - 10| - 0.5) / sqrt(5 * 4 * 10 / 12).)
    const double z = 6.5 / std::sqrt(200.0 / 12.0);
    EXPECT_NEAR(std::erfc(z / std::sqrt(2.0)), 0.11134688653314041, 1e-12);
}

TEST(MannWhitney, RWilcoxTestExample) {
    // R ?wilcox.test (Hollander & Wolfe): wilcox.test(x, y, alternative = "g") gives W = 35,
    // p-value = 0.1272; two-sided p = 0.2544.
    const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
    const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
    const MannWhitney r = mannWhitneyU(x, y);
    EXPECT_TRUE(r.exact);
    EXPECT_DOUBLE_EQ(r.u1, 35);
    EXPECT_NEAR(r.pValue, 0.2544, 0.00005);
    EXPECT_FALSE(r.significant());
}

TEST(MannWhitney, TiesUseTheCorrectedNormalApproximation) {
    // a = 1 2 2 3, b = 2 3 4 4 5. Pooled ranks: 1 -> 1; 2 x3 -> 3; 3 x2 -> 5.5; 4 x2 -> 7.5; 5 -> 9.
    // R1 = 1 + 3 + 3 + 5.5 = 12.5, U1 = 12.5 - 10 = 2.5, mean 10, tie term 24 + 6 + 6 = 36,
    // variance = 20 / 12 * (10 - 36 / 72) = 15.8333...
    const MannWhitney r = mannWhitneyU({1, 2, 2, 3}, {2, 3, 4, 4, 5});
    EXPECT_FALSE(r.exact);
    EXPECT_DOUBLE_EQ(r.u1, 2.5);
    EXPECT_DOUBLE_EQ(r.u2, 17.5);
    const double z = (7.5 - 0.5) / std::sqrt(20.0 / 12.0 * 9.5);
    EXPECT_NEAR(r.z, -z, 1e-12);
    EXPECT_NEAR(r.pValue, std::erfc(z / std::sqrt(2.0)), 1e-12);
}

TEST(MannWhitney, ClearDifferencesAreSignificant) {
    // Complete separation with 5 + 5: exact p = 2 / C(10, 5) = 2 / 252.
    const MannWhitney r = mannWhitneyU({10, 11, 12, 13, 14}, {20, 21, 22, 23, 24});
    EXPECT_TRUE(r.exact);
    EXPECT_DOUBLE_EQ(r.u1, 0);
    EXPECT_NEAR(r.pValue, 2.0 / 252.0, 1e-15);
    EXPECT_TRUE(r.significant());
    // Symmetric in its arguments.
    EXPECT_NEAR(mannWhitneyU({20, 21, 22, 23, 24}, {10, 11, 12, 13, 14}).pValue, r.pValue, 1e-15);
}

TEST(MannWhitney, LargeSamplesAndDegenerateInput) {
    std::vector<double> a;
    std::vector<double> b;
    for (int i = 0; i < 60; ++i) {
        a.push_back(i);
        b.push_back(i + 0.5);
    }
    const MannWhitney large = mannWhitneyU(a, b);
    EXPECT_FALSE(large.exact);  // beyond kExactLimit
    EXPECT_GT(large.pValue, 0.5);
    EXPECT_FALSE(mannWhitneyU({}, {1, 2}).valid);
    EXPECT_EQ(mannWhitneyU({}, {1, 2}).pValue, 1);
    const MannWhitney same = mannWhitneyU({5, 5, 5}, {5, 5});
    EXPECT_TRUE(same.valid);
    EXPECT_EQ(same.pValue, 1);
    // The exact distribution at the limit: 50 + 50 values, no overflow, p within (0, 1].
    std::vector<double> c;
    std::vector<double> d;
    for (int i = 0; i < 50; ++i) {
        c.push_back(2 * i);
        d.push_back(2 * i + 1);
    }
    const MannWhitney edge = mannWhitneyU(c, d);
    EXPECT_TRUE(edge.exact);
    EXPECT_GT(edge.pValue, 0.5);
    EXPECT_LE(edge.pValue, 1.0);
}
