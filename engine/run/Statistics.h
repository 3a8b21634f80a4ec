#pragma once

#include <cstddef>
#include <vector>

namespace blobbench {

// Descriptive statistics of one point's repetitions (elapsed times, bytes, ...).
//
// Conventions, stated once so that every figure can be checked by hand:
// - quantiles (median, quartiles, p95) interpolate linearly between order statistics: the value at
//   rank h = (n - 1) q of the sorted values (Hyndman & Fan type 7, the default of R, NumPy, Excel);
// - stddev is the sample standard deviation (divides by n - 1; 0 for a single value);
// - cv (coefficient of variation) is stddev / mean (0 when the mean is 0);
// - outliers follow Tukey's rule: values below Q1 - 1.5 IQR or above Q3 + 1.5 IQR (with fewer than
//   four values nothing is flagged: the quartiles mean nothing yet).
struct Summary {
    std::size_t count = 0;
    double median = 0;
    double mean = 0;
    double min = 0;
    double max = 0;
    double stddev = 0;
    double p95 = 0;
    double cv = 0;
    double q1 = 0;
    double q3 = 0;
    std::vector<bool> outlier;  // parallel to the input, in its order
    std::size_t outlierCount() const;
};

// An empty input gives a Summary with count 0 and every figure 0.
Summary summarise(const std::vector<double>& values);

// Quantile q in [0, 1] of already sorted values (type 7); 0 for no values.
double quantileSorted(const std::vector<double>& sorted, double q);

// Mann-Whitney U test (Wilcoxon rank-sum), two-sided: do a and b come from the same distribution?
// Exact p-value (the permutation distribution of U) when there are no ties and both samples have at
// most kExactLimit values; otherwise the normal approximation with the tie correction of the
// variance and a continuity correction of 0.5 (as R's wilcox.test and SciPy's mannwhitneyu).
struct MannWhitney {
    double u1 = 0;  // U of a: pairs (x in a, y in b) with x > y, ties counting one half
    double u2 = 0;  // U of b; u1 + u2 = na * nb
    double z = 0;   // normal approximation (0 when exact)
    double pValue = 1;
    bool exact = false;
    bool valid = false;  // false when either sample is empty: no test, p = 1
    bool significant(double alpha = 0.05) const { return valid && pValue < alpha; }
};
constexpr std::size_t kExactLimit = 50;

MannWhitney mannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace blobbench
