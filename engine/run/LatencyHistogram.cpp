#include "engine/run/LatencyHistogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace blobbench {
namespace {

constexpr std::uint64_t kHalf = std::uint64_t{1} << LatencyHistogram::kSubBucketBits;  // 128
constexpr std::uint64_t kExact = kHalf * 2;                                            // 256 exact buckets

}  // namespace

std::size_t LatencyHistogram::indexOf(std::uint64_t value) {
    if (value < kExact) {
        return static_cast<std::size_t>(value);
    }
    const int shift = std::bit_width(value) - 1 - kSubBucketBits;  // value >> shift is in [128, 256)
    return static_cast<std::size_t>(kExact + static_cast<std::uint64_t>(shift - 1) * kHalf +
                                    ((value >> shift) - kHalf));
}

LatencyHistogram::Bucket LatencyHistogram::bounds(std::size_t index) {
    if (index < kExact) {
        return {index, index + 1, 0};
    }
    const std::uint64_t above = index - kExact;
    const int shift = static_cast<int>(above / kHalf) + 1;
    const std::uint64_t low = (kHalf + above % kHalf) << shift;
    const std::uint64_t width = std::uint64_t{1} << shift;
    return {low, low + width < low ? UINT64_MAX : low + width, 0};  // the last bucket ends at the type's end
}

void LatencyHistogram::record(std::uint64_t nanoseconds) {
    const std::size_t index = indexOf(nanoseconds);
    if (index >= m_counts.size()) {
        m_counts.resize(index + 1, 0);
    }
    ++m_counts[index];
    m_min = m_count == 0 ? nanoseconds : std::min(m_min, nanoseconds);
    m_max = std::max(m_max, nanoseconds);
    ++m_count;
    m_sum += static_cast<long double>(nanoseconds);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
    if (other.m_count == 0) {
        return;
    }
    if (other.m_counts.size() > m_counts.size()) {
        m_counts.resize(other.m_counts.size(), 0);
    }
    for (std::size_t i = 0; i < other.m_counts.size(); ++i) {
        m_counts[i] += other.m_counts[i];
    }
    m_min = m_count == 0 ? other.m_min : std::min(m_min, other.m_min);
    m_max = std::max(m_max, other.m_max);
    m_count += other.m_count;
    m_sum += other.m_sum;
}

bool LatencyHistogram::restore(const std::vector<Bucket>& buckets, std::uint64_t min, std::uint64_t max, double mean,
                               LatencyHistogram& out) {
    LatencyHistogram h;
    std::size_t last = 0;
    for (std::size_t k = 0; k < buckets.size(); ++k) {
        const Bucket& b = buckets[k];
        const std::size_t index = indexOf(b.low);
        const Bucket expected = bounds(index);
        if (b.count == 0 || b.low != expected.low || b.high != expected.high || (k > 0 && index <= last) ||
            h.m_count + b.count < h.m_count) {
            return false;
        }
        if (index >= h.m_counts.size()) {
            h.m_counts.resize(index + 1, 0);
        }
        h.m_counts[index] = b.count;
        h.m_count += b.count;
        last = index;
    }
    if (h.m_count == 0) {
        if (min != 0 || max != 0 || mean != 0) {
            return false;
        }
        out = h;
        return true;
    }
    const Bucket first = bounds(indexOf(buckets.front().low));
    const Bucket end = bounds(last);
    // min in the first bucket, max in the last one (the last bucket's high may be UINT64_MAX, inclusive)
    if (min < first.low || min >= first.high || max < end.low || (max >= end.high && end.high != UINT64_MAX) ||
        min > max ||
        !(mean >= static_cast<double>(min) * (1 - 1e-9) && mean <= static_cast<double>(max) * (1 + 1e-9))) {
        return false;
    }
    h.m_min = min;
    h.m_max = max;
    h.m_sum = static_cast<long double>(mean) * static_cast<long double>(h.m_count);
    out = std::move(h);
    return true;
}

double LatencyHistogram::mean() const {
    return m_count == 0 ? 0.0 : static_cast<double>(m_sum / static_cast<long double>(m_count));
}

std::uint64_t LatencyHistogram::percentile(double q) const {
    if (m_count == 0) {
        return 0;
    }
    if (q >= 1) {
        return m_max;  // the largest value is kept exact
    }
    q = std::clamp(q, 0.0, 1.0);
    const auto rank =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(m_count))));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < m_counts.size(); ++i) {
        seen += m_counts[i];
        if (seen >= rank) {
            const Bucket b = bounds(i);
            const std::uint64_t middle = b.low + (b.high - b.low) / 2;
            return std::clamp(b.high - b.low == 1 ? b.low : middle, min(), m_max);
        }
    }
    return m_max;
}

std::vector<LatencyHistogram::Bucket> LatencyHistogram::buckets() const {
    std::vector<Bucket> out;
    for (std::size_t i = 0; i < m_counts.size(); ++i) {
        if (m_counts[i] != 0) {
            Bucket b = bounds(i);
            b.count = m_counts[i];
            out.push_back(b);
        }
    }
    return out;
}

}  // namespace blobbench
