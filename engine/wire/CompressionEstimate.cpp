#include "engine/wire/CompressionEstimate.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <string>

#include "engine/core/Error.h"

namespace blobbench {

struct StreamCompressors::Streams {
    z_stream zlib{};
    bool zlibReady = false;
    ZSTD_CCtx* zstd = nullptr;
    std::vector<unsigned char> out = std::vector<unsigned char>(64 * 1024);

    ~Streams() {
        if (zlibReady) {
            deflateEnd(&zlib);
        }
        ZSTD_freeCCtx(zstd);
    }
};

StreamCompressors::StreamCompressors() : m_streams(std::make_unique<Streams>()) {}
StreamCompressors::~StreamCompressors() = default;

StreamCompressors::Output StreamCompressors::feed(const char* data, std::size_t size) {
    Streams& s = *m_streams;
    Output result;
    if (!s.zlibReady) {
        if (deflateInit(&s.zlib, kZlibLevel) != Z_OK) {
            throw Error(ErrorKind::Internal, "compression estimate: deflateInit failed");
        }
        s.zlibReady = true;
    }
    if (s.zstd == nullptr) {
        s.zstd = ZSTD_createCCtx();
        if (s.zstd == nullptr || ZSTD_isError(ZSTD_CCtx_setParameter(s.zstd, ZSTD_c_compressionLevel, kZstdLevel))) {
            throw Error(ErrorKind::Internal, "compression estimate: cannot create a zstd context");
        }
    }

    // zlib's avail_in is 32-bit: feed a huge chunk in slices, flushing only after the last.
    std::size_t offset = 0;
    do {
        const std::size_t slice = std::min<std::size_t>(size - offset, 1u << 30);
        s.zlib.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data + offset));
        s.zlib.avail_in = static_cast<uInt>(slice);
        offset += slice;
        const int flush = offset == size ? Z_SYNC_FLUSH : Z_NO_FLUSH;
        do {
            s.zlib.next_out = s.out.data();
            s.zlib.avail_out = static_cast<uInt>(s.out.size());
            const int rc = deflate(&s.zlib, flush);
            if (rc != Z_OK && rc != Z_BUF_ERROR) {
                throw Error(ErrorKind::Internal, "compression estimate: deflate failed (" + std::to_string(rc) + ")");
            }
            result.zlib += s.out.size() - s.zlib.avail_out;
        } while (s.zlib.avail_out == 0);
    } while (offset < size);

    ZSTD_inBuffer in{data, size, 0};
    for (;;) {
        ZSTD_outBuffer out{s.out.data(), s.out.size(), 0};
        const std::size_t remaining = ZSTD_compressStream2(s.zstd, &out, &in, ZSTD_e_flush);
        if (ZSTD_isError(remaining)) {
            throw Error(ErrorKind::Internal,
                        std::string("compression estimate: zstd failed: ") + ZSTD_getErrorName(remaining));
        }
        result.zstd += out.pos;
        if (remaining == 0) {
            break;
        }
    }
    return result;
}

// ---------------------------------------------------------------------------------------------

CompressionWorker::CompressionWorker(std::size_t maxQueued) : m_maxQueued(maxQueued) {
    m_done.roundTrips = 0;
    m_done.compressed = CompressionEstimate{};
    m_thread = std::thread([this] { run(); });
}

CompressionWorker::~CompressionWorker() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_queueChanged.notify_all();
    m_thread.join();
}

void CompressionWorker::push(std::uint64_t connection, int direction, const char* data, std::size_t size,
                             bool roundTrip) {
    Chunk chunk;
    chunk.connection = connection;
    chunk.direction = direction;
    chunk.roundTrip = roundTrip;
    chunk.data.assign(data, data + size);
    std::unique_lock lock(m_mutex);
    // A chunk larger than the limit still goes in once the queue is empty.
    m_queueChanged.wait(lock, [&] { return m_stop || m_queuedBytes == 0 || m_queuedBytes + size <= m_maxQueued; });
    m_queuedBytes += size;
    m_queue.push_back(std::move(chunk));
    lock.unlock();
    m_queueChanged.notify_all();
}

void CompressionWorker::closed(std::uint64_t connection) {
    Chunk chunk;
    chunk.connection = connection;
    chunk.close = true;
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(chunk));
    }
    m_queueChanged.notify_all();
}

WireCounters CompressionWorker::waitFor(std::uint64_t upBytes, std::uint64_t downBytes) const {
    std::unique_lock lock(m_mutex);
    m_progress.wait(lock, [&] { return m_stop || (m_done.sendBytes >= upBytes && m_done.recvBytes >= downBytes); });
    return m_done;
}

void CompressionWorker::run() {
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_queueChanged.wait(lock, [&] { return m_stop || !m_queue.empty(); });
        if (m_stop) {
            m_progress.notify_all();
            return;
        }
        Chunk chunk = std::move(m_queue.front());
        m_queue.pop_front();
        m_queuedBytes -= chunk.data.size();
        lock.unlock();
        m_queueChanged.notify_all();  // room for a relay waiting in push()

        StreamCompressors::Output out;
        bool failed = false;
        if (chunk.close) {
            m_streams.erase(chunk.connection);
        } else if (m_done.compressed) {  // only this thread writes it: reading without the lock is safe
            try {
                auto& slot = m_streams[chunk.connection][static_cast<std::size_t>(chunk.direction)];
                if (!slot) {
                    slot = std::make_unique<StreamCompressors>();
                }
                out = slot->feed(chunk.data.data(), chunk.data.size());
            } catch (const std::exception&) {
                failed = true;  // out of memory: no estimate rather than a wrong one; counting goes on
                m_streams.clear();
            }
        }

        lock.lock();
        if (!chunk.close) {
            const bool up = chunk.direction == 0;
            (up ? m_done.sendBytes : m_done.recvBytes) += chunk.data.size();
            ++(up ? m_done.sendPackets : m_done.recvPackets);
            if (chunk.roundTrip) {
                *m_done.roundTrips += 1;
            }
            if (failed) {
                m_done.compressed.reset();
            } else if (m_done.compressed) {
                CompressionEstimate& c = *m_done.compressed;
                (up ? c.zlibSendBytes : c.zlibRecvBytes) += out.zlib;
                (up ? c.zstdSendBytes : c.zstdRecvBytes) += out.zstd;
            }
            m_progress.notify_all();
        }
    }
}

}  // namespace blobbench
