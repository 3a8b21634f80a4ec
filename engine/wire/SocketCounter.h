#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/wire/ExchangeRecorder.h"

namespace blobbench {

// Counts a session's wire traffic at the client library's own socket calls, in the calling thread,
// without a relay: the "in-process" way (docs/wire.md). The client libraries' imports of connect,
// close, send, recv, read, write (and the other socket I/O calls they import) are redirected
// (ImportHook.h) to counting wrappers that forward to what the library would have called; a call
// on a descriptor no SocketCounter registered costs one table lookup.
//
// Same figures and API as WireTap: send* = client->server, recv* = server->client, one packet per
// successful send()/recv() (or read/write) result, roundTrips = per connection, each change from
// client->server data to server->client data (a greeting the server sends first is not one).
// All members are thread-safe; counters are exact and monotonic. Each round trip is also recorded
// with its bytes and times (exchanges()), for the link model.
class SocketCounter {
public:
    SocketCounter();
    ~SocketCounter();  // unregisters its descriptors
    SocketCounter(const SocketCounter&) = delete;
    SocketCounter& operator=(const SocketCounter&) = delete;

    // Redirects the imports of the client libraries that are loaded now (libpq, libfbclient).
    // Returns false when the platform cannot (then nothing is counted). Call again after a client
    // library was dlopen()ed; cheap when nothing changed.
    static bool hookClientLibraries();

    // While alive, a TCP connect() the client library makes on this thread to `port` (any address;
    // libpq tries every address of a host name) registers its descriptor with `counter`. Put it
    // around the driver's connect. Without a port, its TCP connections to any port are taken: a
    // connection string may name several servers (libpq's "host=a,b port=5432,5433" goes on to the
    // next when one fails), and the one connected to is not known beforehand.
    class Adopting {
    public:
        Adopting(SocketCounter& counter, std::uint16_t port);
        explicit Adopting(SocketCounter& counter);
        ~Adopting();
        Adopting(const Adopting&) = delete;
        Adopting& operator=(const Adopting&) = delete;
    };

    // True while an Adopting is alive on this thread: a client library loaded now needs its hooks.
    static bool adoptingOnThisThread();

    // Registers a descriptor the caller knows (PQsocket()). False when another counter has it or
    // the number is beyond the table (65,536 descriptors).
    bool registerSocket(int fd);

    std::uint64_t socketsAdopted() const;  // connections registered so far, for tests and logs

    // `trace`, when given, gets the same instant's mark for exchanges() (ExchangeRecorder.h).
    WireCounters snapshot(ExchangeRecorder::Mark* trace = nullptr) const;
    WireCounters since(const WireCounters& earlier) const { return snapshot() - earlier; }
    // The round trips between two marks of snapshot(); forgetTraceBefore() frees what is before one.
    ExchangeTrace exchanges(const ExchangeRecorder::Mark& from, const ExchangeRecorder::Mark& to) const;
    void forgetTraceBefore(const ExchangeRecorder::Mark& mark);

    // The relay's stall timeout, enforced in the calling thread instead (docs/wire.md): while
    // watching (a driver call is outstanding), a receive or poll() of the client library on a
    // registered descriptor that gets no data for `timeout` shuts that socket down, so the call
    // returns end-of-file and the client library fails; lastError() then says "in-process
    // counting: no data for N s (stall timeout)". 0 = off.
    void setStallTimeout(std::chrono::nanoseconds timeout);
    void watchStalls(bool on);
    // After a cancel, from any thread: a call still waiting `grace` after now (or after it began,
    // when later) is cut the same way, watching or not; and from `grace` after now on, every receive
    // on the counter's sockets returns end-of-file whatever still arrives (a server that ignores the
    // cancel and keeps sending, or trickles). Sticky: the counter's session is done.
    // A silence that overlaps a pause of the client itself (ClientPause.h) restarts after it.
    void cutCallsAfter(std::chrono::nanoseconds grace);
    std::uint64_t stallTimeouts() const;  // sockets cut by the stall timeout or the cancel grace
    std::string lastError() const;        // why the last one was cut; empty when none was

    // What the wrappers need to time a wait out; one per counter, shared by its connections.
    struct Watch {
        std::atomic<std::int64_t> timeoutNs{0};
        std::atomic<bool> watching{false};
        std::atomic<std::int64_t> graceNs{0};
        std::atomic<std::int64_t> cancelledAtNs{0};  // steady clock; 0 = not cancelled
        std::atomic<bool> ended{false};              // the hard deadline after the cancel has passed
        std::atomic<std::uint64_t> cuts{0};
        mutable std::mutex mutex;
        std::string lastError;  // guarded by mutex
        // Shuts `fd` down when a wait that began at `since` has outlasted the timeout or the grace.
        void cutIfExpired(int fd, std::int64_t since, std::int64_t now);
        // True once `grace` has passed since the cancel: `fd` is shut down and reads end-of-file.
        bool endedAfterCancel(int fd);
    };

    // One registered connection; public for the wrappers in SocketCounter.cpp.
    struct Connection {
        ExchangeRecorder::Log* log = nullptr;  // its counts and runs, in the owning counter's recorder
        Watch* watch = nullptr;                // the owning counter's, set before the descriptor is published
        void count(int direction, std::uint64_t size);
    };

private:
    Watch m_watch;
    ExchangeRecorder m_recorder;
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<Connection>> m_connections;  // guarded; kept after close for the totals
    std::vector<int> m_fds;                                  // guarded; descriptors registered, for the destructor
};

}  // namespace blobbench
