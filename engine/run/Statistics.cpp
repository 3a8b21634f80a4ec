#include "engine/run/Statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace blobbench {

std::size_t Summary::outlierCount() const {
    return static_cast<std::size_t>(std::count(outlier.begin(), outlier.end(), true));
}

double quantileSorted(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) {
        return 0;
    }
    const double h = static_cast<double>(sorted.size() - 1) * std::clamp(q, 0.0, 1.0);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Summary summarise(const std::vector<double>& values) {
    Summary s;
    s.count = values.size();
    s.outlier.assign(values.size(), false);
    if (values.empty()) {
        return s;
    }
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    s.min = sorted.front();
    s.max = sorted.back();
    s.median = quantileSorted(sorted, 0.5);
    s.p95 = quantileSorted(sorted, 0.95);
    s.q1 = quantileSorted(sorted, 0.25);
    s.q3 = quantileSorted(sorted, 0.75);
    s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
    if (sorted.size() > 1) {
        double squares = 0;
        for (double v : sorted) {
            squares += (v - s.mean) * (v - s.mean);
        }
        s.stddev = std::sqrt(squares / static_cast<double>(sorted.size() - 1));
    }
    s.cv = s.mean != 0 ? s.stddev / std::fabs(s.mean) : 0;
    if (values.size() >= 4) {
        const double iqr = s.q3 - s.q1;
        const double low = s.q1 - 1.5 * iqr;
        const double high = s.q3 + 1.5 * iqr;
        for (std::size_t i = 0; i < values.size(); ++i) {
            s.outlier[i] = values[i] < low || values[i] > high;
        }
    }
    return s;
}

namespace {

// Number of arrangements of m values of a and n of b (no ties) for each U = 0 .. m n, by the
// recurrence f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u). Doubles: C(100, 50) ~ 1e29 fits.
std::vector<double> exactUDistribution(std::size_t m, std::size_t n) {
    // table[j][u] for the current i = number of a values placed
    std::vector<std::vector<double>> prev(n + 1), cur(n + 1);
    for (std::size_t j = 0; j <= n; ++j) {
        prev[j].assign(1, 1.0);  // i = 0: one arrangement, U = 0
    }
    for (std::size_t i = 1; i <= m; ++i) {
        cur[0].assign(1, 1.0);  // j = 0: one arrangement, U = 0
        for (std::size_t j = 1; j <= n; ++j) {
            std::vector<double>& f = cur[j];
            f.assign(i * j + 1, 0.0);
            // largest value from a: it exceeds all j values of b -> U grows by j
            for (std::size_t u = 0; u < prev[j].size(); ++u) {
                f[u + j] += prev[j][u];
            }
            // largest value from b: U unchanged
            for (std::size_t u = 0; u < cur[j - 1].size(); ++u) {
                f[u] += cur[j - 1][u];
            }
        }
        std::swap(prev, cur);
    }
    return prev[n];
}

}  // namespace

MannWhitney mannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
    MannWhitney r;
    const std::size_t na = a.size();
    const std::size_t nb = b.size();
    if (na == 0 || nb == 0) {
        return r;
    }
    r.valid = true;
    // Ranks over the pooled values, ties getting the mean of their ranks.
    struct Item {
        double value;
        bool fromA;
    };
    std::vector<Item> pooled;
    pooled.reserve(na + nb);
    for (double v : a) {
        pooled.push_back({v, true});
    }
    for (double v : b) {
        pooled.push_back({v, false});
    }
    std::sort(pooled.begin(), pooled.end(), [](const Item& x, const Item& y) { return x.value < y.value; });
    const double n = static_cast<double>(na + nb);
    double rankSumA = 0;
    double tieTerm = 0;  // sum of t^3 - t over tie groups
    bool ties = false;
    for (std::size_t i = 0; i < pooled.size();) {
        std::size_t j = i;
        while (j < pooled.size() && pooled[j].value == pooled[i].value) {
            ++j;
        }
        const double t = static_cast<double>(j - i);
        const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
        for (std::size_t k = i; k < j; ++k) {
            if (pooled[k].fromA) {
                rankSumA += rank;
            }
        }
        if (j - i > 1) {
            ties = true;
            tieTerm += t * t * t - t;
        }
        i = j;
    }
    const double dna = static_cast<double>(na);
    const double dnb = static_cast<double>(nb);
    r.u1 = rankSumA - dna * (dna + 1) / 2.0;
    r.u2 = dna * dnb - r.u1;
    const double uMin = std::min(r.u1, r.u2);

    if (!ties && na <= kExactLimit && nb <= kExactLimit) {
        r.exact = true;
        const std::vector<double> counts = exactUDistribution(na, nb);
        const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
        double tail = 0;
        for (std::size_t u = 0; u < counts.size() && static_cast<double>(u) <= uMin; ++u) {
            tail += counts[u];
        }
        r.pValue = std::min(1.0, 2.0 * tail / total);
        return r;
    }
    const double mean = dna * dnb / 2.0;
    const double variance = dna * dnb / 12.0 * ((n + 1) - tieTerm / (n * (n - 1)));
    if (variance <= 0) {  // every value equal: no evidence of a difference
        r.pValue = 1;
        return r;
    }
    const double diff = std::fabs(r.u1 - mean);
    r.z = std::max(0.0, diff - 0.5) / std::sqrt(variance);
    if (r.u1 < mean) {
        r.z = -r.z;
    }
    r.pValue = std::min(1.0, std::erfc(std::fabs(r.z) / std::sqrt(2.0)));
    return r;
}

}  // namespace blobbench
