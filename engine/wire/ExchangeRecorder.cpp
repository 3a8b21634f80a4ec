#include "engine/wire/ExchangeRecorder.h"

#include <algorithm>
#include <optional>

namespace blobbench {
namespace {

constexpr int kUp = 0;

std::chrono::nanoseconds span(std::int64_t from, std::int64_t to) {
    return std::chrono::nanoseconds(std::max<std::int64_t>(0, to - from));
}

}  // namespace

class ExchangeRecorder::Log {
public:
    struct Run {
        int direction = kUp;
        std::uint64_t bytes = 0;
        std::int64_t firstNs = 0;
        std::int64_t lastNs = 0;
    };
    mutable std::mutex mutex;
    std::deque<Run> runs;      // guarded; never emptied once a byte was counted (the last run stays)
    std::uint64_t base = 0;    // guarded: absolute index of runs.front()
    std::uint64_t bytes[2]{};  // guarded, as the counters below
    std::uint64_t packets[2]{};
    std::uint64_t roundTrips = 0;
};

ExchangeRecorder::ExchangeRecorder() = default;
ExchangeRecorder::~ExchangeRecorder() = default;

ExchangeRecorder::Log* ExchangeRecorder::open() {
    std::lock_guard lock(m_mutex);
    m_logs.push_back(std::make_unique<Log>());
    return m_logs.back().get();
}

void ExchangeRecorder::record(Log& log, int direction, std::uint64_t size, std::int64_t nowNs) {
    std::lock_guard lock(log.mutex);
    log.bytes[direction] += size;
    ++log.packets[direction];
    if (log.runs.empty() || log.runs.back().direction != direction) {
        if (direction != kUp && !log.runs.empty()) {
            ++log.roundTrips;
        }
        log.runs.push_back(Log::Run{direction, size, nowNs, nowNs});
    } else {
        log.runs.back().bytes += size;
        log.runs.back().lastNs = nowNs;
    }
}

WireCounters ExchangeRecorder::snapshot(std::int64_t nowNs, Mark* mark) const {
    WireCounters c;
    std::uint64_t roundTrips = 0;
    std::lock_guard lock(m_mutex);
    if (mark != nullptr) {
        mark->takenNs = nowNs;
        mark->connections.clear();
        mark->connections.reserve(m_logs.size());
    }
    for (const auto& log : m_logs) {
        std::lock_guard logLock(log->mutex);
        c.sendBytes += log->bytes[kUp];
        c.recvBytes += log->bytes[1 - kUp];
        c.sendPackets += log->packets[kUp];
        c.recvPackets += log->packets[1 - kUp];
        roundTrips += log->roundTrips;
        if (mark != nullptr) {
            Mark::At at;
            at.runs = log->base + log->runs.size();
            if (!log->runs.empty()) {
                at.lastBytes = log->runs.back().bytes;
                at.lastNs = log->runs.back().lastNs;
            }
            mark->connections.push_back(at);
        }
    }
    c.roundTrips = roundTrips;
    return c;
}

ExchangeTrace ExchangeRecorder::between(const Mark& from, const Mark& to) const {
    ExchangeTrace trace;
    std::vector<std::pair<std::int64_t, Exchange>> begun;  // first byte sent -> exchange, to merge connections
    std::lock_guard lock(m_mutex);
    for (std::size_t c = 0; c < to.connections.size() && c < m_logs.size(); ++c) {
        const Mark::At a = c < from.connections.size() ? from.connections[c] : Mark::At{};
        const Mark::At b = to.connections[c];
        if (b.runs == 0) {
            continue;
        }
        const Log& log = *m_logs[c];
        std::lock_guard logLock(log.mutex);
        const std::uint64_t first = std::max(a.runs == 0 ? 0 : a.runs - 1, log.base);
        std::int64_t lastReceived = from.takenNs;
        std::optional<Log::Run> sent;  // a run of bytes sent, waiting for its answer
        for (std::uint64_t k = first; k < b.runs && k - log.base < log.runs.size(); ++k) {
            Log::Run run = log.runs[k - log.base];
            if (k == b.runs - 1) {
                run.bytes = b.lastBytes;
                run.lastNs = b.lastNs;
            }
            if (a.runs != 0 && k == a.runs - 1) {  // open at `from`: only what came after it
                run.bytes -= a.lastBytes;
                run.firstNs = std::min(run.lastNs, from.takenNs);
            }
            if (run.direction == kUp) {
                sent = run;
                continue;
            }
            if (!sent) {
                trace.leadingRecvBytes += run.bytes;
            } else {
                Exchange e;
                e.sendBytes = sent->bytes;
                e.recvBytes = run.bytes;
                e.clientTime = span(lastReceived, sent->firstNs);
                e.sendTime = span(sent->firstNs, sent->lastNs);
                e.serverTime = span(sent->lastNs, run.firstNs);
                e.recvTime = span(run.firstNs, run.lastNs);
                begun.emplace_back(sent->firstNs, e);
                sent.reset();
            }
            lastReceived = std::max(lastReceived, run.lastNs);
        }
        if (sent) {
            trace.trailingSendBytes += sent->bytes;
        }
    }
    std::stable_sort(begun.begin(), begun.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    trace.exchanges.reserve(begun.size());
    for (const auto& entry : begun) {
        trace.exchanges.push_back(entry.second);
    }
    return trace;
}

void ExchangeRecorder::forgetBefore(const Mark& mark) {
    std::lock_guard lock(m_mutex);
    for (std::size_t c = 0; c < mark.connections.size() && c < m_logs.size(); ++c) {
        const std::uint64_t keepFrom = mark.connections[c].runs == 0 ? 0 : mark.connections[c].runs - 1;
        Log& log = *m_logs[c];
        std::lock_guard logLock(log.mutex);
        while (log.base < keepFrom && log.runs.size() > 1) {
            log.runs.pop_front();
            ++log.base;
        }
    }
}

}  // namespace blobbench
