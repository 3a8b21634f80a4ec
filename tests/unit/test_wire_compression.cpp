// The wire tap's compression estimate: zlib-6 / zstd-3 streams flushed per relayed chunk, counted
// exactly (the same chunks compressed directly with zlib and zstd give the same sizes), absent when
// not asked for, consistent across snapshot diffs. Behaviour only, no timing.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/Error.h"
#include "engine/wire/CompressionEstimate.h"
#include "engine/wire/WireTap.h"
#include "support/SocketSupport.h"

using namespace blobbench;
using namespace blobbench::test;

namespace {

// Text that compresses well but not trivially: SQL-ish rows with varying numbers.
std::string compressibleText(std::size_t size, unsigned seed) {
    std::string out;
    std::uint32_t x = seed + 7;
    while (out.size() < size) {
        x = x * 1664525u + 1013904223u;
        out += "INSERT INTO blobs (id, name, payload) VALUES (" + std::to_string(x % 100000) + ", 'document-" +
               std::to_string(x % 977) + ".pdf', 'the quick brown fox');\n";
    }
    out.resize(size);
    return out;
}

std::string randomBytes(std::size_t size, unsigned seed) {
    std::mt19937_64 generator(seed);
    std::string out(size, '\0');
    for (char& c : out) {
        c = static_cast<char>(generator() >> 56);
    }
    return out;
}

// Reference: what zlib (deflate level 6, Z_SYNC_FLUSH after each chunk) puts out per chunk, written
// here against zlib's API directly rather than through the code under test.
std::vector<std::uint64_t> zlibPerChunk(const std::vector<std::string>& chunks) {
    z_stream z{};
    EXPECT_EQ(deflateInit(&z, 6), Z_OK);
    std::vector<std::uint64_t> sizes;
    std::vector<unsigned char> out(1 << 20);
    for (const std::string& chunk : chunks) {
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
        z.avail_in = static_cast<uInt>(chunk.size());
        std::uint64_t produced = 0;
        do {
            z.next_out = out.data();
            z.avail_out = static_cast<uInt>(out.size());
            deflate(&z, Z_SYNC_FLUSH);
            produced += out.size() - z.avail_out;
        } while (z.avail_out == 0);
        sizes.push_back(produced);
    }
    deflateEnd(&z);
    return sizes;
}

std::vector<std::uint64_t> zstdPerChunk(const std::vector<std::string>& chunks) {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
    std::vector<std::uint64_t> sizes;
    std::vector<char> out(ZSTD_CStreamOutSize() * 8);
    for (const std::string& chunk : chunks) {
        ZSTD_inBuffer in{chunk.data(), chunk.size(), 0};
        std::uint64_t produced = 0;
        std::size_t remaining = 0;
        do {
            ZSTD_outBuffer o{out.data(), out.size(), 0};
            remaining = ZSTD_compressStream2(cctx, &o, &in, ZSTD_e_flush);
            EXPECT_FALSE(ZSTD_isError(remaining));
            produced += o.pos;
        } while (remaining != 0);
        sizes.push_back(produced);
    }
    ZSTD_freeCCtx(cctx);
    return sizes;
}

std::uint64_t sum(const std::vector<std::uint64_t>& values, std::size_t from = 0, std::size_t to = SIZE_MAX) {
    std::uint64_t total = 0;
    for (std::size_t i = from; i < std::min(to, values.size()); ++i) {
        total += values[i];
    }
    return total;
}

// Messages of distinct sizes, sent one at a time and echoed whole: each is one read of the relay
// in each direction (the test checks the segment counts), so the tap compresses the same chunks.
std::vector<std::string> messages(bool compressible) {
    std::vector<std::string> out;
    const std::size_t sizes[] = {100, 1000, 3000, 700, 5000, 1448, 2500, 40, 4000, 900};
    for (unsigned i = 0; i < std::size(sizes); ++i) {
        out.push_back(compressible ? compressibleText(sizes[i], i) : randomBytes(sizes[i], i));
    }
    return out;
}

// Echoes each message of the agreed sizes back in one write.
void echoThese(int fd, const std::vector<std::string>& expected) {
    for (const std::string& message : expected) {
        const std::string got = readUpTo(fd, message.size());
        if (got.size() != message.size() || !writeAll(fd, got)) {
            return;
        }
    }
}

WireCounters exchange(WireTap& tap, const std::vector<std::string>& list, std::size_t from, std::size_t to, int fd) {
    for (std::size_t i = from; i < to; ++i) {
        EXPECT_TRUE(writeAll(fd, list[i]));
        EXPECT_EQ(readUpTo(fd, list[i].size()), list[i]);
    }
    return tap.snapshot();
}

}  // namespace

TEST(WireCompression, StreamCompressorsMatchZlibAndZstdOnTheSameChunks) {
    const auto chunks = messages(true);
    const auto zlib = zlibPerChunk(chunks);
    const auto zstd = zstdPerChunk(chunks);
    StreamCompressors compressors;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        const auto out = compressors.feed(chunks[i].data(), chunks[i].size());
        EXPECT_EQ(out.zlib, zlib[i]) << "chunk " << i;
        EXPECT_EQ(out.zstd, zstd[i]) << "chunk " << i;
    }
}

TEST(WireCompression, TapEstimateEqualsDirectCompressionOfTheRelayedChunks) {
    const auto list = messages(true);
    ScriptedServer server([&](int fd) { echoThese(fd, list); });
    WireTap tap("127.0.0.1", server.port(), {}, WireTapOptions{true});
    ASSERT_TRUE(tap.estimatingCompression());
    Socket client = connectTo(tap.port());
    const WireCounters counts = exchange(tap, list, 0, list.size(), client.fd());

    // Same chunking as the reference, or the comparison would mean nothing.
    ASSERT_EQ(counts.sendPackets, list.size());
    ASSERT_EQ(counts.recvPackets, list.size());
    ASSERT_TRUE(counts.compressed.has_value());
    const auto zlib = sum(zlibPerChunk(list));
    const auto zstd = sum(zstdPerChunk(list));
    EXPECT_EQ(counts.compressed->zlibSendBytes, zlib);
    EXPECT_EQ(counts.compressed->zlibRecvBytes, zlib);  // the echo: the same bytes the other way
    EXPECT_EQ(counts.compressed->zstdSendBytes, zstd);
    EXPECT_EQ(counts.compressed->zstdRecvBytes, zstd);
    EXPECT_LT(counts.compressed->zlibSendBytes * 3, counts.sendBytes);  // text compresses
    EXPECT_EQ(counts.roundTrips, list.size());
}

TEST(WireCompression, IncompressibleBytesEstimateAtLeastTheirSize) {
    const auto list = messages(false);
    ScriptedServer server([&](int fd) { echoThese(fd, list); });
    WireTap tap("127.0.0.1", server.port(), {}, WireTapOptions{true});
    Socket client = connectTo(tap.port());
    const WireCounters counts = exchange(tap, list, 0, list.size(), client.fd());
    ASSERT_TRUE(counts.compressed.has_value());
    EXPECT_GE(counts.compressed->zlibSendBytes, counts.sendBytes);
    EXPECT_GE(counts.compressed->zlibRecvBytes, counts.recvBytes);
    EXPECT_GE(counts.compressed->zstdSendBytes, counts.sendBytes);
    EXPECT_GE(counts.compressed->zstdRecvBytes, counts.recvBytes);
    EXPECT_EQ(counts.sendPackets, list.size());
    EXPECT_EQ(counts.compressed->zlibSendBytes, sum(zlibPerChunk(list)));
}

TEST(WireCompression, CountsSurviveSnapshotDiffs) {
    const auto list = messages(true);
    ScriptedServer server([&](int fd) { echoThese(fd, list); });
    WireTap tap("127.0.0.1", server.port(), {}, WireTapOptions{true});
    Socket client = connectTo(tap.port());
    const WireCounters start = tap.snapshot();
    const WireCounters middle = exchange(tap, list, 0, 4, client.fd());
    const WireCounters end = exchange(tap, list, 4, list.size(), client.fd());
    ASSERT_EQ(end.sendPackets, list.size());

    // The streams carry on across phases, so a phase costs its chunks' share of the one stream.
    const auto zlib = zlibPerChunk(list);
    const auto zstd = zstdPerChunk(list);
    const WireCounters first = middle - start;
    const WireCounters second = end - middle;
    ASSERT_TRUE(first.compressed && second.compressed);
    EXPECT_EQ(first.compressed->zlibSendBytes, sum(zlib, 0, 4));
    EXPECT_EQ(second.compressed->zlibSendBytes, sum(zlib, 4));
    EXPECT_EQ(first.compressed->zstdRecvBytes, sum(zstd, 0, 4));
    EXPECT_EQ(second.compressed->zstdRecvBytes, sum(zstd, 4));
    EXPECT_EQ(tap.since(middle).compressed->zlibSendBytes, second.compressed->zlibSendBytes);
}

TEST(WireCompression, EachConnectionHasStreamsOfItsOwn) {
    const auto list = messages(true);
    ScriptedServer server([&](int fd) { echoThese(fd, list); });
    WireTap tap("127.0.0.1", server.port(), {}, WireTapOptions{true});
    {
        Socket first = connectTo(tap.port());
        exchange(tap, list, 0, list.size(), first.fd());
    }
    Socket second = connectTo(tap.port());
    const WireCounters counts = exchange(tap, list, 0, list.size(), second.fd());
    ASSERT_EQ(counts.sendPackets, 2 * list.size());
    // A shared stream would find the second copy in its window and send far less.
    EXPECT_EQ(counts.compressed->zlibSendBytes, 2 * sum(zlibPerChunk(list)));
    EXPECT_EQ(counts.compressed->zstdSendBytes, 2 * sum(zstdPerChunk(list)));
}

TEST(WireCompression, AbsentUnlessAskedFor) {
    const auto list = messages(true);
    ScriptedServer server([&](int fd) { echoThese(fd, list); });
    WireTap tap("127.0.0.1", server.port());
    EXPECT_FALSE(tap.estimatingCompression());
    Socket client = connectTo(tap.port());
    const WireCounters counts = exchange(tap, list, 0, 3, client.fd());
    EXPECT_FALSE(counts.compressed.has_value());
    EXPECT_GT(counts.sendBytes, 0u);
}

TEST(WireCompression, SubtractionKeepsTheEstimateOnlyWhenBothSidesHaveIt) {
    WireCounters later;
    later.sendBytes = 100;
    later.compressed = CompressionEstimate{40, 50, 30, 20};
    WireCounters earlier;
    earlier.sendBytes = 10;
    earlier.compressed = CompressionEstimate{4, 5, 3, 2};
    const WireCounters d = later - earlier;
    ASSERT_TRUE(d.compressed.has_value());
    EXPECT_EQ(d.compressed->zlibSendBytes, 36u);
    EXPECT_EQ(d.compressed->zlibRecvBytes, 45u);
    EXPECT_EQ(d.compressed->zstdSendBytes, 27u);
    EXPECT_EQ(d.compressed->zstdRecvBytes, 18u);
    EXPECT_FALSE((later - WireCounters{}).compressed.has_value());
}

TEST(WireCompression, BulkTransferThroughASmallQueueIsCountedCompletely) {
    // A queue limit far below the transfer: the relay waits for the worker instead of buffering.
    CompressionWorker worker(64 * 1024);
    const std::string chunk = compressibleText(50'000, 1);
    for (int i = 0; i < 200; ++i) {
        worker.push(1, i % 2, chunk.data(), chunk.size(), i % 2 == 1);
    }
    worker.closed(1);
    const WireCounters done = worker.waitFor(100 * chunk.size(), 100 * chunk.size());
    EXPECT_EQ(done.sendBytes, 100 * chunk.size());
    EXPECT_EQ(done.recvBytes, 100 * chunk.size());
    EXPECT_EQ(done.sendPackets, 100u);
    EXPECT_EQ(done.roundTrips, 100u);
    ASSERT_TRUE(done.compressed.has_value());
    EXPECT_GT(done.compressed->zlibSendBytes, 0u);
    EXPECT_LT(done.compressed->zlibSendBytes, done.sendBytes / 3);
}
