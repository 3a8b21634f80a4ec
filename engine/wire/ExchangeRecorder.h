#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/core/ExchangeTrace.h"
#include "engine/core/Sample.h"

namespace blobbench {

// Counts a connection's bytes, packets and round trips (a change from client->server to
// server->client data; a greeting the server sends first is none) and records the runs of bytes in
// one direction, so that the span between two marks becomes an ExchangeTrace whose bytes and
// exchanges equal the counters' over that span: snapshot() takes counters and mark together. Used
// by SocketCounter (on the client library's threads) and the WireTap relay (on its own thread);
// thread-safe. A run costs 32 bytes until forgetBefore() drops it.
class ExchangeRecorder {
public:
    class Log;  // one connection's runs

    // A new connection's log; stays valid as long as the recorder.
    Log* open();
    // Counts `size` bytes moving in `direction` (0 = client->server, 1 = server->client) at `nowNs`
    // (steady clock).
    static void record(Log& log, int direction, std::uint64_t size, std::int64_t nowNs);

    struct Mark {
        struct At {
            std::uint64_t runs = 0;       // runs begun so far on the connection
            std::uint64_t lastBytes = 0;  // bytes of the last run so far
            std::int64_t lastNs = 0;      // time of its last byte
        };
        std::vector<At> connections;
        std::int64_t takenNs = 0;
    };
    // Totals over every connection so far; fills `mark` (when given) with the same instant's marks.
    WireCounters snapshot(std::int64_t nowNs, Mark* mark = nullptr) const;
    // The exchanges between two marks of this recorder (`to` taken after `from`).
    ExchangeTrace between(const Mark& from, const Mark& to) const;
    // Drops the runs that ended before `mark`: a long-kept session's memory stays that of one sample.
    void forgetBefore(const Mark& mark);

    ExchangeRecorder();
    ~ExchangeRecorder();
    ExchangeRecorder(const ExchangeRecorder&) = delete;
    ExchangeRecorder& operator=(const ExchangeRecorder&) = delete;

private:
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<Log>> m_logs;  // guarded
};

}  // namespace blobbench
