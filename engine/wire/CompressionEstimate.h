#pragma once

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/core/Sample.h"

namespace blobbench {

// One direction of one connection compressed as a wire protocol would: a zlib stream (deflate
// level 6) and a zstd stream (level 3), each chunk fed in and flushed at once (Z_SYNC_FLUSH,
// ZSTD_e_flush) so the receiver could decode it without waiting for more. Streams start lazily.
class StreamCompressors {
public:
    static constexpr int kZlibLevel = 6;
    static constexpr int kZstdLevel = 3;

    struct Output {
        std::uint64_t zlib = 0;
        std::uint64_t zstd = 0;
    };

    StreamCompressors();
    ~StreamCompressors();
    StreamCompressors(const StreamCompressors&) = delete;
    StreamCompressors& operator=(const StreamCompressors&) = delete;

    // Compresses and flushes one chunk; returns the bytes each compressor put out for it.
    // Throws Error(Internal) when a compressor fails (out of memory).
    Output feed(const char* data, std::size_t size);

private:
    struct Streams;
    std::unique_ptr<Streams> m_streams;
};

// Runs StreamCompressors over the chunks a WireTap relays, on a thread of its own so the relay
// loop does not pay for compression. Keeps the tap's counters over exactly the chunks it has
// compressed, so a snapshot is consistent: bytes, segments, round trips and compressed sizes of
// the same prefix of the traffic.
class CompressionWorker {
public:
    // The relay blocks in push() while more than maxQueued bytes wait: memory stays bounded and the
    // relay slows to the compressors' pace (estimating costs CPU, hence off by default).
    explicit CompressionWorker(std::size_t maxQueued = 32 * 1024 * 1024);
    ~CompressionWorker();  // stops and joins the thread; chunks still queued are dropped
    CompressionWorker(const CompressionWorker&) = delete;
    CompressionWorker& operator=(const CompressionWorker&) = delete;

    // From the relay thread, in the order the relay counted them. direction 0 = up, 1 = down.
    void push(std::uint64_t connection, int direction, const char* data, std::size_t size, bool roundTrip);
    void closed(std::uint64_t connection);  // frees the connection's compressors

    // Waits until the worker has compressed at least upBytes and downBytes, then returns its
    // counters (compressed included) for the prefix it has done.
    WireCounters waitFor(std::uint64_t upBytes, std::uint64_t downBytes) const;

private:
    struct Chunk {
        std::uint64_t connection = 0;
        int direction = 0;
        bool roundTrip = false;
        bool close = false;
        std::vector<char> data;
    };
    void run();

    const std::size_t m_maxQueued;
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_queueChanged;  // chunks added, room made, stop
    mutable std::condition_variable m_progress;      // m_done advanced
    std::deque<Chunk> m_queue;
    std::size_t m_queuedBytes = 0;
    bool m_stop = false;
    WireCounters m_done;  // guarded by m_mutex; compressed always set

    std::map<std::uint64_t, std::array<std::unique_ptr<StreamCompressors>, 2>> m_streams;  // worker thread only
    std::thread m_thread;
};

}  // namespace blobbench
