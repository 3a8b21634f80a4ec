#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blobbench {

// One round trip as the wire counters define it: what the client sent, then the answer it received
// (a change of direction from client->server to server->client), with where the time went around it.
struct Exchange {
    std::uint64_t sendBytes = 0;
    std::uint64_t recvBytes = 0;
    std::chrono::nanoseconds clientTime{0};  // last byte of the previous answer received -> first byte sent
    std::chrono::nanoseconds sendTime{0};    // first -> last byte sent
    std::chrono::nanoseconds serverTime{0};  // last byte sent -> first byte of the answer received
    std::chrono::nanoseconds recvTime{0};    // first -> last byte of the answer received

    friend bool operator==(const Exchange&, const Exchange&) = default;
};

// The exchanges of one span (a sample's execute + fetch), in the order they began. Bytes that are
// no round trip of the span are kept beside them, so the trace sums to the span's counters exactly:
// the tail of an answer to an exchange before the span, and bytes sent at its end that nothing
// answered within it (Firebird's deferred frees).
struct ExchangeTrace {
    std::vector<Exchange> exchanges;
    std::uint64_t leadingRecvBytes = 0;
    std::uint64_t trailingSendBytes = 0;

    bool empty() const { return exchanges.empty() && leadingRecvBytes == 0 && trailingSendBytes == 0; }
    std::uint64_t sendBytes() const;  // trailing bytes included
    std::uint64_t recvBytes() const;  // leading bytes included

    friend bool operator==(const ExchangeTrace&, const ExchangeTrace&) = default;
};

// The most exchanges a file keeps of one sample (a longer trace is not saved: the sample loads
// without one), so a hostile file cannot make a load allocate more than ~100 MB for one.
inline constexpr std::uint64_t kMaxTraceExchanges = std::uint64_t{1} << 21;

// The most exchanges one TraceDecodeBudget lets its thread decode (~400 MB in memory): a file of a
// few MB can claim kMaxTraceExchanges for each of hundreds of samples (deflate packs 2 Mi equal
// exchanges into 26 kB), which decoded would take tens of GB.
inline constexpr std::uint64_t kMaxFileTraceExchanges = std::uint64_t{1} << 23;

// What a decode does once its thread's budget is spent.
enum class PastBudget {
    Refuse,  // Error(Data): predict, which needs every trace it reads
    Keep,    // decodeExchangeTraceOrKeep() checks the bytes and returns no trace: a project's loader
             // keeps the text to write back, so a large but real history still opens and saves
};

// While one exists, every decode of this thread counts its exchanges against it; past its limit a
// decode is refused with Error(Data), or (PastBudget::Keep, decodeExchangeTraceOrKeep) checked but
// not decoded. Once spent, a Keep budget decodes nothing more, so the traces read are the first ones
// of the file. A loader of a whole file holds one for the file; scopes nest, the innermost counts.
class TraceDecodeBudget {
public:
    explicit TraceDecodeBudget(std::uint64_t exchanges = kMaxFileTraceExchanges, PastBudget past = PastBudget::Refuse);
    ~TraceDecodeBudget();
    TraceDecodeBudget(const TraceDecodeBudget&) = delete;
    TraceDecodeBudget& operator=(const TraceDecodeBudget&) = delete;

    // Whether this thread decodes under a budget now.
    static bool active();

    // Throws Error(Data) when `count` more exchanges pass the limit, else takes them.
    void take(std::uint64_t count);
    // False (and spent from now on) when `count` more exchanges pass the limit, else takes them.
    bool tryTake(std::uint64_t count);
    PastBudget past() const { return m_past; }
    std::uint64_t limit() const { return m_limit; }

private:
    std::uint64_t m_limit;
    std::uint64_t m_taken = 0;
    PastBudget m_past;
    bool m_spent = false;
    TraceDecodeBudget* m_outer;
};

// Compact binary form for files: per field a column of varints (times in whole microseconds,
// rounded), deflated. A 20,000-exchange trace takes a few bytes per exchange.
std::string encodeExchangeTrace(const ExchangeTrace& trace);

// Throws Error(Data) naming what is wrong with bytes that encodeExchangeTrace() did not write, and
// with a trace whose times sum beyond 292 years or whose bytes in one direction pass 2^63 (sums of
// them are int64 nanoseconds and JSON integers).
ExchangeTrace decodeExchangeTrace(std::string_view bytes);

// Counts `exchanges` that a loader copies from a trace it decoded (a sample taking its group's
// trace) against this thread's budget, as decodes count: true when taken (or no budget is held);
// false under a spent PastBudget::Keep budget (the copy is to stay unread text); Error(Data) under
// a spent PastBudget::Refuse one.
bool takeTraceBudget(std::uint64_t exchanges);

// As decodeExchangeTrace(), except under a spent PastBudget::Keep budget: then the bytes are checked
// as fully (every number and sum) without building the trace, and no trace is returned.
std::optional<ExchangeTrace> decodeExchangeTraceOrKeep(std::string_view bytes);

// What a decoded trace holds: times rounded to the microsecond, as files keep them.
ExchangeTrace roundedToMicroseconds(ExchangeTrace trace);

}  // namespace blobbench
