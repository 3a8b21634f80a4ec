// Exchange traces: the recorder turns runs of bytes into exchanges that sum to the counters it
// keeps beside them (the round-trip definition of the wire counters), marks cut the span exactly,
// forgetBefore() frees memory without changing a later span; the compact encoding round-trips,
// stays under 8 bytes an exchange in base64 for a 20,000-exchange trace, and refuses damage.
#include <gtest/gtest.h>

#include <zlib.h>

#include <QByteArray>
#include <random>

#include "engine/core/Error.h"
#include "engine/wire/ExchangeRecorder.h"
#include "model/SampleJson.h"

using namespace blobbench;
using namespace std::chrono_literals;

namespace {

constexpr int kUp = 0;
constexpr int kDown = 1;

ExchangeTrace typicalTrace(std::size_t count) {
    std::mt19937 random(19);
    std::uniform_int_distribution<int> server(30, 90), client(5, 40), send(0, 3), recv(0, 20), batch(0, 3);
    ExchangeTrace t;
    for (std::size_t i = 0; i < count; ++i) {
        Exchange e;
        e.sendBytes = 36;
        e.recvBytes = 16384 + static_cast<std::uint64_t>(batch(random)) * 120;
        e.clientTime = std::chrono::microseconds(client(random));
        e.sendTime = std::chrono::microseconds(send(random));
        e.serverTime = std::chrono::microseconds(server(random));
        e.recvTime = std::chrono::microseconds(recv(random));
        t.exchanges.push_back(e);
    }
    t.leadingRecvBytes = 7;
    t.trailingSendBytes = 24;
    return t;
}

ErrorKind decodeKind(const std::string& bytes) {
    try {
        decodeExchangeTrace(bytes);
    } catch (const Error& e) {
        return e.kind();
    }
    return ErrorKind::Internal;
}

}  // namespace

TEST(ExchangeRecorder, RunsBecomeExchangesThatSumToTheCounters) {
    ExchangeRecorder recorder;
    ExchangeRecorder::Log* log = recorder.open();
    ExchangeRecorder::record(*log, kDown, 10, 100);  // a greeting: no round trip
    ExchangeRecorder::Mark from;
    recorder.snapshot(150, &from);
    ExchangeRecorder::record(*log, kDown, 5, 200);  // the rest of it, inside the span
    ExchangeRecorder::record(*log, kUp, 40, 1'000);
    ExchangeRecorder::record(*log, kUp, 2, 1'100);
    ExchangeRecorder::record(*log, kDown, 300, 5'000);
    ExchangeRecorder::record(*log, kDown, 700, 5'400);
    ExchangeRecorder::record(*log, kUp, 8, 6'000);
    ExchangeRecorder::record(*log, kDown, 9, 9'000);
    ExchangeRecorder::record(*log, kUp, 24, 9'500);  // sent at the end, answered after the span
    ExchangeRecorder::Mark to;
    const WireCounters counters = recorder.snapshot(9'600, &to);
    ExchangeRecorder::record(*log, kDown, 50, 10'000);  // after the span

    const ExchangeTrace trace = recorder.between(from, to);
    ASSERT_EQ(trace.exchanges.size(), 2u);
    EXPECT_EQ(*counters.roundTrips, 2u);
    EXPECT_EQ(trace.leadingRecvBytes, 5u);
    EXPECT_EQ(trace.trailingSendBytes, 24u);
    EXPECT_EQ(trace.sendBytes(), 40u + 2 + 8 + 24);
    EXPECT_EQ(trace.recvBytes(), 5u + 1000 + 9);
    const Exchange& first = trace.exchanges[0];
    EXPECT_EQ(first.sendBytes, 42u);
    EXPECT_EQ(first.recvBytes, 1000u);
    EXPECT_EQ(first.clientTime, 800ns);  // from the last byte received (200) to the first sent (1000)
    EXPECT_EQ(first.sendTime, 100ns);
    EXPECT_EQ(first.serverTime, 3'900ns);
    EXPECT_EQ(first.recvTime, 400ns);
    EXPECT_EQ(trace.exchanges[1].clientTime, 600ns);
    EXPECT_EQ(counters.sendBytes, 74u);
    EXPECT_EQ(counters.recvBytes, 1'024u);
}

TEST(ExchangeRecorder, SpanBetweenMarksEqualsTheCountersDifference) {
    ExchangeRecorder recorder;
    ExchangeRecorder::Log* a = recorder.open();
    std::mt19937 random(7);
    std::int64_t now = 0;
    auto traffic = [&](ExchangeRecorder::Log* log, int n) {
        for (int i = 0; i < n; ++i) {
            ExchangeRecorder::record(*log, static_cast<int>(random() % 3 == 0), 1 + random() % 5000, now += 10);
        }
    };
    traffic(a, 500);
    ExchangeRecorder::Mark from, to;
    const WireCounters c0 = recorder.snapshot(now, &from);
    traffic(a, 300);
    ExchangeRecorder::Log* b = recorder.open();  // a second connection opened in the span
    traffic(b, 300);
    traffic(a, 300);
    const WireCounters c1 = recorder.snapshot(now, &to);
    const WireCounters d = c1 - c0;
    const ExchangeTrace trace = recorder.between(from, to);
    EXPECT_EQ(trace.sendBytes(), d.sendBytes);
    EXPECT_EQ(trace.recvBytes(), d.recvBytes);
    EXPECT_EQ(trace.exchanges.size(), *d.roundTrips);

    // Forgetting what ended before `to` changes neither that span's successor nor memory's bound.
    recorder.forgetBefore(to);
    traffic(a, 50);
    ExchangeRecorder::Mark later;
    const WireCounters c2 = recorder.snapshot(now, &later);
    const ExchangeTrace next = recorder.between(to, later);
    EXPECT_EQ(next.sendBytes(), (c2 - c1).sendBytes);
    EXPECT_EQ(next.recvBytes(), (c2 - c1).recvBytes);
    EXPECT_EQ(next.exchanges.size(), *(c2 - c1).roundTrips);
}

TEST(ExchangeTrace, EncodingRoundTripsToTheMicrosecond) {
    ExchangeTrace t = typicalTrace(100);
    t.exchanges[3].serverTime = 1'234'567ns;
    t.exchanges[4].recvBytes = 5'000'000'000;  // beyond 32 bits
    const ExchangeTrace back = decodeExchangeTrace(encodeExchangeTrace(t));
    EXPECT_EQ(back, roundedToMicroseconds(t));
    EXPECT_EQ(back.exchanges[3].serverTime, 1'235us);
    EXPECT_EQ(decodeExchangeTrace(encodeExchangeTrace(ExchangeTrace{})), ExchangeTrace{});
}

TEST(ExchangeTrace, TwentyThousandExchangesTakeUnderEightBytesEachInAFile) {
    const ExchangeTrace t = typicalTrace(20'000);
    const QByteArray inFile = traceToBase64(t);
    const double perExchange = static_cast<double>(inFile.size()) / 20'000;
    std::printf("20,000 exchanges: %lld bytes of base64, %.2f bytes an exchange\n",
                static_cast<long long>(inFile.size()), perExchange);
    EXPECT_LT(perExchange, 8.0);
    EXPECT_EQ(traceFromBase64(QString::fromLatin1(inFile)), roundedToMicroseconds(t));
}

TEST(ExchangeTrace, DamagedBytesAreRefusedAsData) {
    const std::string good = encodeExchangeTrace(typicalTrace(50));
    EXPECT_EQ(decodeKind(""), ErrorKind::Data);
    EXPECT_EQ(decodeKind(std::string("\x02", 1) + good.substr(1)), ErrorKind::Data);  // a newer format
    EXPECT_EQ(decodeKind(good.substr(0, good.size() / 2)), ErrorKind::Data);
    std::string flipped = good;
    flipped[flipped.size() - 3] = static_cast<char>(flipped[flipped.size() - 3] ^ 0x5a);
    EXPECT_EQ(decodeKind(flipped), ErrorKind::Data);
    EXPECT_EQ(decodeKind("\x01\xff\xff\xff\xff\xff\xff\x7f"), ErrorKind::Data);  // a bomb's claimed size
    try {
        traceFromBase64(QStringLiteral("not*base64"));
        ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Data);
    }
}

TEST(ExchangeTrace, AClaimOfMoreExchangesThanAFileKeepsIsRefused) {
    // Well-formed and deflated, but one exchange over the limit: refused before it is allocated.
    const std::uint64_t count = kMaxTraceExchanges + 1;
    std::string raw;
    for (std::uint64_t v = count;; v >>= 7) {
        raw += static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        if (v < 0x80) {
            break;
        }
    }
    raw.append(2 + count * 6, '\0');
    uLongf size = compressBound(static_cast<uLong>(raw.size()));
    std::string packed(size, '\0');
    ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(packed.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
                        static_cast<uLong>(raw.size()), 9),
              Z_OK);
    packed.resize(size);
    std::string file = "\x01";
    for (std::uint64_t v = raw.size();; v >>= 7) {
        file += static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        if (v < 0x80) {
            break;
        }
    }
    EXPECT_EQ(decodeKind(file + packed), ErrorKind::Data);
}
