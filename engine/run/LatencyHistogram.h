#pragma once

#include <cstdint>
#include <vector>

namespace blobbench {

// A latency distribution kept whole, not sampled: HDR-style log-linear buckets over nanoseconds.
// Values below 256 ns each have a bucket of their own; above, every power of two is split into 128
// equal buckets, so a bucket is at most 1/128 of its lower bound wide. percentile() answers with
// the middle of the bucket that holds the nearest-rank value, clamped to [min, max]: within 1/256
// (0.4 %) of the exact nearest-rank percentile of the recorded values. min, max, count and the mean
// are exact. Buckets grow on demand (a few kB for latencies up to seconds); merge() adds the counts
// of another histogram (another session's), which gives the histogram of both sets of values.
class LatencyHistogram {
public:
    static constexpr int kSubBucketBits = 7;  // 128 buckets per power of two above 256 ns
    static constexpr double kMaxRelativeError = 1.0 / 256;

    void record(std::uint64_t nanoseconds);
    void merge(const LatencyHistogram& other);

    std::uint64_t count() const { return m_count; }
    std::uint64_t min() const { return m_count == 0 ? 0 : m_min; }
    std::uint64_t max() const { return m_max; }
    double mean() const;
    // q in [0, 1]: the value at rank max(1, ceil(q * count)) of the sorted values; 0 when empty.
    std::uint64_t percentile(double q) const;

    struct Bucket {
        std::uint64_t low = 0;   // first value of the bucket
        std::uint64_t high = 0;  // one past its last value
        std::uint64_t count = 0;
    };
    std::vector<Bucket> buckets() const;  // the non-empty ones, in order

    // A histogram saved as its buckets (a project's history): each bucket must be one of this class's
    // (low and high as bounds() gives them), in order, its count above 0; min, max and the mean within
    // them. Returns false, leaving `out` alone, when they are not.
    static bool restore(const std::vector<Bucket>& buckets, std::uint64_t min, std::uint64_t max, double mean,
                        LatencyHistogram& out);

    static std::size_t indexOf(std::uint64_t value);
    static Bucket bounds(std::size_t index);  // count 0

private:
    std::vector<std::uint64_t> m_counts;
    std::uint64_t m_count = 0;
    std::uint64_t m_min = 0;
    std::uint64_t m_max = 0;
    long double m_sum = 0;
};

}  // namespace blobbench
