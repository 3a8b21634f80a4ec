#include "engine/core/ExchangeTrace.h"

#include <zlib.h>

#include <limits>

#include "engine/core/Error.h"

namespace blobbench {
namespace {

constexpr unsigned char kFormat = 1;
constexpr std::uint64_t kMaxRaw = std::uint64_t{64} << 20;  // 2 Mi exchanges take ~30 MB of varints

void putVarint(std::string& out, std::uint64_t value) {
    while (value >= 0x80) {
        out += static_cast<char>(static_cast<unsigned char>(value) | 0x80);
        value >>= 7;
    }
    out += static_cast<char>(value);
}

std::uint64_t micros(std::chrono::nanoseconds t) {
    return t.count() <= 0 ? 0 : static_cast<std::uint64_t>((t.count() + 500) / 1000);
}

class Reader {
public:
    explicit Reader(std::string_view bytes) : m_bytes(bytes) {}
    std::uint64_t varint() {
        std::uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_at >= m_bytes.size()) {
                throw Error(ErrorKind::Data, "exchange trace: truncated");
            }
            const auto byte = static_cast<unsigned char>(m_bytes[m_at++]);
            value |= std::uint64_t{byte & 0x7fu} << shift;
            if ((byte & 0x80) == 0) {
                return value;
            }
        }
        throw Error(ErrorKind::Data, "exchange trace: a number longer than 64 bits");
    }
    bool atEnd() const { return m_at == m_bytes.size(); }

private:
    std::string_view m_bytes;
    std::size_t m_at = 0;
};

std::chrono::nanoseconds fromMicros(std::uint64_t us) {
    constexpr std::uint64_t kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / 1000);
    if (us > kMax) {
        throw Error(ErrorKind::Data, "exchange trace: a time beyond 292 years");
    }
    return std::chrono::microseconds(static_cast<std::int64_t>(us));
}

thread_local TraceDecodeBudget* tCurrentBudget = nullptr;

// The sums the link model and the exports take of a trace must fit their types: taken value by
// value as the columns are read (the sums of unsigned values pass a limit iff the totals do).
class SumCheck {
public:
    SumCheck(std::uint64_t leadingRecv, std::uint64_t trailingSend) : m_send(trailingSend), m_recv(leadingRecv) {
        if (m_send > kMaxBytes || m_recv > kMaxBytes) {
            throw tooManyBytes();
        }
    }
    void send(std::uint64_t bytes) { add(m_send, bytes); }
    void recv(std::uint64_t bytes) { add(m_recv, bytes); }
    void time(std::chrono::nanoseconds t) {
        const auto nanos = static_cast<std::uint64_t>(t.count());
        if (nanos > kMaxBytes - m_nanos) {
            throw Error(ErrorKind::Data, "exchange trace: its times sum beyond 292 years");
        }
        m_nanos += nanos;
    }

private:
    static constexpr std::uint64_t kMaxBytes = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    static Error tooManyBytes() { return Error(ErrorKind::Data, "exchange trace: more bytes one way than 2^63"); }
    static void add(std::uint64_t& sum, std::uint64_t value) {
        if (value > kMaxBytes - sum) {
            throw tooManyBytes();
        }
        sum += value;
    }
    std::uint64_t m_send;
    std::uint64_t m_recv;
    std::uint64_t m_nanos = 0;
};

}  // namespace

TraceDecodeBudget::TraceDecodeBudget(std::uint64_t exchanges, PastBudget past)
    : m_limit(exchanges), m_past(past), m_outer(tCurrentBudget) {
    tCurrentBudget = this;
}

TraceDecodeBudget::~TraceDecodeBudget() {
    tCurrentBudget = m_outer;
}

bool TraceDecodeBudget::active() {
    return tCurrentBudget != nullptr;
}

bool TraceDecodeBudget::tryTake(std::uint64_t count) {
    if (m_spent || count > m_limit - m_taken) {
        m_spent = true;
        return false;
    }
    m_taken += count;
    return true;
}

void TraceDecodeBudget::take(std::uint64_t count) {
    if (!tryTake(count)) {
        throw Error(ErrorKind::Data, "exchange trace: the traces decoded for this file pass " +
                                         std::to_string(m_limit) + " exchanges (about " +
                                         std::to_string(m_limit * sizeof(Exchange) >> 20) +
                                         " MB in memory), the most one load may decode");
    }
}

std::uint64_t ExchangeTrace::sendBytes() const {
    std::uint64_t sum = trailingSendBytes;
    for (const Exchange& e : exchanges) {
        sum += e.sendBytes;
    }
    return sum;
}

std::uint64_t ExchangeTrace::recvBytes() const {
    std::uint64_t sum = leadingRecvBytes;
    for (const Exchange& e : exchanges) {
        sum += e.recvBytes;
    }
    return sum;
}

std::string encodeExchangeTrace(const ExchangeTrace& trace) {
    // Column by column: equal batch sizes and similar times sit together, which deflate likes.
    std::string raw;
    putVarint(raw, trace.exchanges.size());
    putVarint(raw, trace.leadingRecvBytes);
    putVarint(raw, trace.trailingSendBytes);
    for (const Exchange& e : trace.exchanges) {
        putVarint(raw, e.sendBytes);
    }
    for (const Exchange& e : trace.exchanges) {
        putVarint(raw, e.recvBytes);
    }
    for (auto field : {&Exchange::clientTime, &Exchange::sendTime, &Exchange::serverTime, &Exchange::recvTime}) {
        for (const Exchange& e : trace.exchanges) {
            putVarint(raw, micros(e.*field));
        }
    }
    uLongf size = compressBound(static_cast<uLong>(raw.size()));
    std::string out;
    putVarint(out, kFormat);
    putVarint(out, raw.size());
    const std::size_t header = out.size();
    out.resize(header + size);
    if (compress2(reinterpret_cast<Bytef*>(out.data() + header), &size, reinterpret_cast<const Bytef*>(raw.data()),
                  static_cast<uLong>(raw.size()), 9) != Z_OK) {
        throw Error(ErrorKind::Internal, "exchange trace: zlib could not compress");
    }
    out.resize(header + size);
    return out;
}

namespace {

std::optional<ExchangeTrace> decode(std::string_view bytes, bool mayKeep) {
    Reader header(bytes);
    if (header.varint() != kFormat) {
        throw Error(ErrorKind::Data, "exchange trace: unknown format (written by a newer BlobBench?)");
    }
    const std::uint64_t rawSize = header.varint();
    // Deflate expands at most ~1032 times: a larger claim is damage (or a bomb), refused unallocated.
    if (rawSize > kMaxRaw || rawSize > bytes.size() * 1100 + 64) {
        throw Error(ErrorKind::Data,
                    "exchange trace: claims " + std::to_string(rawSize) + " bytes, more than any trace");
    }
    std::size_t headerSize = 0;
    for (std::uint64_t v : {std::uint64_t{kFormat}, rawSize}) {
        do {
            ++headerSize;
            v >>= 7;
        } while (v != 0);
    }
    std::string raw(rawSize, '\0');
    uLongf size = static_cast<uLongf>(rawSize);
    uLong packed = static_cast<uLong>(bytes.size() - headerSize);
    if (uncompress2(reinterpret_cast<Bytef*>(raw.data()), &size,
                    reinterpret_cast<const Bytef*>(bytes.data() + headerSize), &packed) != Z_OK ||
        size != rawSize) {
        throw Error(ErrorKind::Data, "exchange trace: the compressed data is damaged");
    }
    if (packed != bytes.size() - headerSize) {  // uncompress2 stops at the end of the stream
        throw Error(ErrorKind::Data, "exchange trace: bytes after the compressed data");
    }
    Reader r(raw);
    ExchangeTrace trace;
    const std::uint64_t count = r.varint();
    if (count > kMaxTraceExchanges) {
        throw Error(ErrorKind::Data, "exchange trace: claims " + std::to_string(count) +
                                         " exchanges, more than a file keeps of one sample (" +
                                         std::to_string(kMaxTraceExchanges) + ")");
    }
    if (count * 6 > rawSize) {
        throw Error(ErrorKind::Data,
                    "exchange trace: claims " + std::to_string(count) + " exchanges, more than it holds");
    }
    bool build = true;
    if (tCurrentBudget != nullptr) {
        if (mayKeep && tCurrentBudget->past() == PastBudget::Keep) {
            build = tCurrentBudget->tryTake(count);
        } else {
            tCurrentBudget->take(count);
        }
    }
    trace.leadingRecvBytes = r.varint();
    trace.trailingSendBytes = r.varint();
    SumCheck sums(trace.leadingRecvBytes, trace.trailingSendBytes);
    if (build) {
        trace.exchanges.resize(count);
    }
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t v = r.varint();
        sums.send(v);
        if (build) {
            trace.exchanges[i].sendBytes = v;
        }
    }
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t v = r.varint();
        sums.recv(v);
        if (build) {
            trace.exchanges[i].recvBytes = v;
        }
    }
    for (auto field : {&Exchange::clientTime, &Exchange::sendTime, &Exchange::serverTime, &Exchange::recvTime}) {
        for (std::uint64_t i = 0; i < count; ++i) {
            const std::chrono::nanoseconds t = fromMicros(r.varint());
            sums.time(t);
            if (build) {
                trace.exchanges[i].*field = t;
            }
        }
    }
    if (!r.atEnd()) {
        throw Error(ErrorKind::Data, "exchange trace: bytes after the last exchange");
    }
    if (!build) {
        return std::nullopt;
    }
    return trace;
}

}  // namespace

ExchangeTrace decodeExchangeTrace(std::string_view bytes) {
    return *decode(bytes, false);
}

bool takeTraceBudget(std::uint64_t exchanges) {
    if (tCurrentBudget == nullptr) {
        return true;
    }
    if (tCurrentBudget->past() == PastBudget::Keep) {
        return tCurrentBudget->tryTake(exchanges);
    }
    tCurrentBudget->take(exchanges);
    return true;
}

std::optional<ExchangeTrace> decodeExchangeTraceOrKeep(std::string_view bytes) {
    return decode(bytes, true);
}

ExchangeTrace roundedToMicroseconds(ExchangeTrace trace) {
    for (Exchange& e : trace.exchanges) {
        for (auto field : {&Exchange::clientTime, &Exchange::sendTime, &Exchange::serverTime, &Exchange::recvTime}) {
            e.*field = std::chrono::microseconds(static_cast<std::int64_t>(micros(e.*field)));
        }
    }
    return trace;
}

}  // namespace blobbench
