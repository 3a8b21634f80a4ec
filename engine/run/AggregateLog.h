#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>

namespace blobbench {

// One measured statement of a sessions run as it ended (SessionsObserver::statementEnded).
struct StatementEnd {
    bool complete = false;                      // false: failed or cancelled
    std::chrono::system_clock::time_point end;  // wall clock, for the log's epoch seconds
    std::uint64_t latencyNs = 0;                // as the run's histogram has it
    std::optional<std::uint64_t> lagNs;         // open loop: slot to start
};

// The log pgbench writes with --aggregate-interval, for people who already plot those: one line per
// interval, in PostgreSQL 15's column order, every column always present (0 where it means nothing
// here):
//   interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency
//   sum_lag sum_lag_2 min_lag max_lag skipped retried retries failures serialization_failures
//   deadlock_failures
// interval_start is Unix epoch seconds (intervals are whole multiples of the interval since the
// epoch); latencies and lags are microseconds, of complete statements; failures counts the failed
// and cancelled ones. BlobBench neither skips (--latency-limit) nor retries, so skipped, retried,
// retries and the two kinds of serialization failures are 0. Empty intervals between the first
// statement and the last are written as zeros, as pgbench writes them. Thread-safe: sessions record
// at once; an interval is written once a statement ends two intervals later, the rest by finish().
class AggregateLog {
public:
    AggregateLog(std::ostream& out, std::chrono::seconds interval);
    void record(const StatementEnd& statement);
    void finish();  // writes what is left and flushes; record() after it starts a new interval run

    std::uint64_t linesWritten() const;

private:
    struct Interval {
        std::uint64_t count = 0;
        double sumLatency = 0, sumLatency2 = 0;
        std::uint64_t minLatency = 0, maxLatency = 0;
        std::uint64_t lagged = 0;
        double sumLag = 0, sumLag2 = 0;
        std::uint64_t minLag = 0, maxLag = 0;
        std::uint64_t failures = 0;
    };
    void writeUpTo(std::int64_t index);  // every interval before `index`; guarded by m_mutex

    mutable std::mutex m_mutex;
    std::ostream& m_out;
    std::int64_t m_interval;                  // seconds
    std::map<std::int64_t, Interval> m_open;  // by interval index (epoch seconds / interval)
    std::optional<std::int64_t> m_next;       // the next interval to write
    std::uint64_t m_lines = 0;
};

}  // namespace blobbench
