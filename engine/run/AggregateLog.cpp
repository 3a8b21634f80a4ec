#include "engine/run/AggregateLog.h"

#include <algorithm>
#include <cstdio>

namespace blobbench {
namespace {

std::uint64_t micros(std::uint64_t ns) {
    return (ns + 500) / 1000;
}

}  // namespace

AggregateLog::AggregateLog(std::ostream& out, std::chrono::seconds interval)
    : m_out(out), m_interval(std::max<std::int64_t>(1, interval.count())) {}

void AggregateLog::record(const StatementEnd& statement) {
    const std::int64_t epoch =
        std::chrono::duration_cast<std::chrono::seconds>(statement.end.time_since_epoch()).count();
    const std::int64_t index = epoch >= 0 ? epoch / m_interval : (epoch - m_interval + 1) / m_interval;
    std::lock_guard lock(m_mutex);
    if (m_next && index < *m_next) {
        return;  // its interval is written already (a clock stepped back by more than an interval)
    }
    Interval& at = m_open[index];
    if (!statement.complete) {
        ++at.failures;
    } else {
        const std::uint64_t us = micros(statement.latencyNs);
        at.minLatency = at.count == 0 ? us : std::min(at.minLatency, us);
        at.maxLatency = std::max(at.maxLatency, us);
        ++at.count;
        at.sumLatency += static_cast<double>(us);
        at.sumLatency2 += static_cast<double>(us) * static_cast<double>(us);
        if (statement.lagNs) {
            const std::uint64_t lag = micros(*statement.lagNs);
            at.minLag = at.lagged == 0 ? lag : std::min(at.minLag, lag);
            at.maxLag = std::max(at.maxLag, lag);
            ++at.lagged;
            at.sumLag += static_cast<double>(lag);
            at.sumLag2 += static_cast<double>(lag) * static_cast<double>(lag);
        }
    }
    if (!m_next) {
        m_next = index;
    }
    // Sessions end their statements nearly in time order: two intervals back is settled.
    writeUpTo(index - 1);
}

void AggregateLog::writeUpTo(std::int64_t index) {
    const std::uint64_t before = m_lines;
    for (; m_next && *m_next < index; ++*m_next) {
        const auto it = m_open.find(*m_next);
        const Interval at = it == m_open.end() ? Interval{} : it->second;
        if (it != m_open.end()) {
            m_open.erase(it);
        }
        char line[320];
        std::snprintf(line, sizeof line, "%lld %llu %.0f %.0f %llu %llu %.0f %.0f %llu %llu 0 0 0 %llu 0 0\n",
                      static_cast<long long>(*m_next) * m_interval, static_cast<unsigned long long>(at.count),
                      at.sumLatency, at.sumLatency2, static_cast<unsigned long long>(at.minLatency),
                      static_cast<unsigned long long>(at.maxLatency), at.sumLag, at.sumLag2,
                      static_cast<unsigned long long>(at.minLag), static_cast<unsigned long long>(at.maxLag),
                      static_cast<unsigned long long>(at.failures));
        m_out << line;
        ++m_lines;
    }
    if (m_lines != before) {
        m_out.flush();  // a line a plotting tool tails is there as soon as its interval is settled
    }
}

void AggregateLog::finish() {
    std::lock_guard lock(m_mutex);
    if (!m_open.empty()) {
        writeUpTo(m_open.rbegin()->first + 1);
    }
    m_out.flush();
    m_open.clear();
    m_next.reset();
}

std::uint64_t AggregateLog::linesWritten() const {
    std::lock_guard lock(m_mutex);
    return m_lines;
}

}  // namespace blobbench
