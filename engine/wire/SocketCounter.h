#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/core/Sample.h"

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
// All members are thread-safe; counters are relaxed atomics, exact and monotonic.
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
    // around the driver's connect.
    class Adopting {
    public:
        Adopting(SocketCounter& counter, std::uint16_t port);
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

    WireCounters snapshot() const;
    WireCounters since(const WireCounters& earlier) const { return snapshot() - earlier; }

    // One registered connection; public for the wrappers in SocketCounter.cpp.
    struct Connection {
        std::atomic<std::uint64_t> bytes[2]{};
        std::atomic<std::uint64_t> packets[2]{};
        std::atomic<std::uint64_t> roundTrips{0};
        std::atomic<int> lastDirection{-1};
        void count(int direction, std::uint64_t size);
    };

private:
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<Connection>> m_connections;  // guarded; kept after close for the totals
    std::vector<int> m_fds;                                  // guarded; descriptors registered, for the destructor
};

}  // namespace blobbench
