#include "app/cli/ByteaCommandTraces.h"

#include <algorithm>
#include <cstdio>

#include "engine/wire/LinkModel.h"
#include "engine/wire/SocketCounter.h"
#include "engine/wire/WireTap.h"

namespace blobbench::cli {
namespace {

const char* scenarioId(ByteaSpan span) {
    return span == ByteaSpan::Insert ? "bytea-insert" : "bytea-select";
}

std::chrono::nanoseconds medianOf(std::vector<std::chrono::nanoseconds> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? std::chrono::nanoseconds{0} : values[values.size() / 2];
}

double ms(std::chrono::nanoseconds t) {
    return std::chrono::duration<double, std::milli>(t).count();
}

// The experiment's paths in the order it runs them (engine/drivers/postgres/ByteaExperiment.cpp).
constexpr const char* kPaths[] = {"binary", "text hex", "text escape", "large object"};

// What a path sends (and receives) for the document, where that follows from its size alone:
// binary and the large object n, hex 2 + 2n; the escape form depends on the bytes (0: not known).
std::uint64_t contentBytesOf(const std::string& path, std::uint64_t documentBytes) {
    return path == "text hex" ? 2 + 2 * documentBytes : path == "text escape" ? 0 : documentBytes;
}

Sample sampleOf(ByteaSpan span, const std::string& path, int repetition, const std::string& runId,
                const std::string& connection, std::uint64_t documentBytes) {
    const bool insert = span == ByteaSpan::Insert;
    Sample s;
    s.runId = runId;
    s.scenarioId = scenarioId(span);
    s.scenarioTitle =
        std::string(insert ? "bytea insert, " : "bytea select, ") + std::to_string(documentBytes) + " bytes";
    s.sql = insert ? "INSERT INTO blobbench_bytea_experiment (id, content) VALUES ($1, $2)"
                   : "SELECT content FROM blobbench_bytea_experiment";
    s.repetition = repetition;
    s.point = {{"path", path}};
    s.startedAt = runId;
    s.engine = "postgres";
    s.connection = connection;
    s.rows = 1;
    return s;
}

}  // namespace

// The counters and trace of the span a sample measured, and how they were counted.
void ByteaTraces::withWire(Sample& s, const Span& recorded) const {
    s.tap = WireStats::of(recorded.counters);
    s.tap.method = m_tap ? "relay" : "in-process";
    s.trace = recorded.trace;
}

ByteaTraces::ByteaTraces(WireTap* tap, SocketCounter* counter) : m_tap(tap), m_counter(counter) {}

WireCounters ByteaTraces::now(ExchangeRecorder::Mark* mark) const {
    return m_tap ? m_tap->snapshot(mark) : m_counter->snapshot(mark);
}

void ByteaTraces::onSpan(ByteaSpan span, bool begins) {
    if (begins) {
        m_from = now(&m_fromMark);
        m_open = span;
        m_fromTime = std::chrono::steady_clock::now();
        return;
    }
    const Nanos elapsed = std::chrono::duration_cast<Nanos>(std::chrono::steady_clock::now() - m_fromTime);
    m_open.reset();
    ExchangeRecorder::Mark to;
    const WireCounters counters = now(&to) - m_from;
    ExchangeTrace trace = m_tap ? m_tap->exchanges(m_fromMark, to) : m_counter->exchanges(m_fromMark, to);
    m_spans[static_cast<int>(span)].push_back(Span{counters, std::move(trace), elapsed});
    // The experiment runs every path and repetition: keep one span's runs at most.
    if (m_tap) {
        m_tap->forgetTraceBefore(to);
    } else {
        m_counter->forgetTraceBefore(to);
    }
}

std::vector<Sample> ByteaTraces::samples(const std::vector<ByteaTrial>& trials, const std::string& connection,
                                         std::uint64_t documentBytes) const {
    std::size_t expected = 0;
    for (const ByteaTrial& t : trials) {
        expected += t.inserts.size();
    }
    if (m_spans[0].size() != expected || m_spans[1].size() != expected) {
        return {};
    }
    const std::string runId = isoNow();
    std::vector<Sample> out;
    std::size_t at = 0;
    for (const ByteaTrial& t : trials) {
        for (std::size_t r = 0; r < t.inserts.size() && r < t.selects.size(); ++r, ++at) {
            for (ByteaSpan span : {ByteaSpan::Insert, ByteaSpan::Select}) {
                const bool insert = span == ByteaSpan::Insert;
                Sample s = sampleOf(span, t.path, static_cast<int>(r), runId, connection, documentBytes);
                if (insert) {
                    s.phases.execute = t.inserts[r];
                } else {
                    s.phases = t.selects[r];
                }
                s.contentBytes = insert ? t.sentBytes : t.receivedBytes;
                s.disturbed = t.disturbed;
                withWire(s, m_spans[static_cast<int>(span)][at]);
                out.push_back(std::move(s));
            }
        }
    }
    return out;
}

std::vector<Sample> ByteaTraces::partialSamples(const std::string& connection, std::uint64_t documentBytes,
                                                int repetitions, SampleStatus status, const std::string& error) const {
    const std::size_t perPath = static_cast<std::size_t>(std::max(1, repetitions));
    const std::string runId = isoNow();
    std::vector<Sample> out;
    auto sampleAt = [&](ByteaSpan span, std::size_t index) -> std::optional<Sample> {
        if (index / perPath >= std::size(kPaths)) {
            return std::nullopt;  // past the last path: nothing was left to measure
        }
        const char* path = kPaths[index / perPath];
        Sample s = sampleOf(span, path, static_cast<int>(index % perPath), runId, connection, documentBytes);
        s.contentBytes = contentBytesOf(path, documentBytes);
        return s;
    };
    for (std::size_t at = 0; at < m_spans[0].size(); ++at) {
        for (ByteaSpan span : {ByteaSpan::Insert, ByteaSpan::Select}) {
            const auto& recorded = m_spans[static_cast<int>(span)];
            std::optional<Sample> s = at < recorded.size() ? sampleAt(span, at) : std::nullopt;
            if (s) {
                s->phases.execute = recorded[at].elapsed;
                withWire(*s, recorded[at]);
                out.push_back(std::move(*s));
            }
        }
    }
    // The span in progress, else the next: an insert unless one ended without its select.
    const ByteaSpan next = m_open                                  ? *m_open
                           : m_spans[0].size() > m_spans[1].size() ? ByteaSpan::Select
                                                                   : ByteaSpan::Insert;
    if (std::optional<Sample> s = sampleAt(next, m_spans[static_cast<int>(next)].size())) {
        s->status = status;
        s->error = error;
        s->contentBytes = 0;
        s->tap = WireStats::unavailable(m_open ? "the span did not end" : "the span did not begin");
        out.push_back(std::move(*s));
    }
    return out;
}

void printByteaPrediction(const std::vector<ByteaTrial>& trials, const std::vector<Sample>& samples,
                          const LinkProfile& link) {
    std::printf("\nPredicted at %s from this run's exchange traces (the link model of docs/wire.md; median):\n",
                link.describe().c_str());
    std::printf("%-14s %12s %12s  %s\n", "path", "insert ms", "select ms", "exchanges (insert / select)");
    for (const ByteaTrial& t : trials) {
        std::vector<std::chrono::nanoseconds> predicted[2];
        std::uint64_t exchanges[2] = {0, 0};
        for (const Sample& s : samples) {
            const auto p = s.point.at("path") == t.path ? predictSample(s, link) : std::nullopt;
            if (p) {
                const int i = s.scenarioId == scenarioId(ByteaSpan::Insert) ? 0 : 1;
                predicted[i].push_back(p->predicted);
                exchanges[i] = p->exchanges;
            }
        }
        std::printf("%-14s %12.1f %12.1f  %llu / %llu\n", t.path.c_str(), ms(medianOf(predicted[0])),
                    ms(medianOf(predicted[1])), static_cast<unsigned long long>(exchanges[0]),
                    static_cast<unsigned long long>(exchanges[1]));
    }
}

}  // namespace blobbench::cli
