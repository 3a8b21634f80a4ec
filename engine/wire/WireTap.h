#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/core/Sample.h"
#include "engine/wire/ExchangeRecorder.h"
#include "engine/wire/LinkProfile.h"
#include "engine/wire/LinkShaper.h"

namespace blobbench {

// Client->server is "up", server->client is "down", as in LinkProfile.
enum class WireDirection { Up, Down };

// Faults a tap injects, for tests of what a driver does when the link fails. Byte thresholds
// count per connection, from when the plan takes effect on it: its start for connections accepted
// later, the setFaults() call for connections already open.
struct FaultPlan {
    // Forward exactly this many bytes in the direction, then cut both legs.
    std::optional<std::uint64_t> cutUpAfter, cutDownAfter;
    bool cutWithReset = false;  // cut with TCP RST (a crashed peer) instead of FIN (a closed one)

    // Forward this many bytes in the direction, then hold the rest for stallFor (once).
    std::optional<std::uint64_t> stallUpAfter, stallDownAfter;
    std::chrono::nanoseconds stallFor = kForever;

    // Accept the client, then reset it before any upstream connection is made.
    bool resetOnConnect = false;

    static constexpr std::chrono::nanoseconds kForever = std::chrono::nanoseconds::max();
    bool any() const { return cutUpAfter || cutDownAfter || stallUpAfter || stallDownAfter || resetOnConnect; }
};

// What the relay itself has been doing, for logs and error messages.
struct WireTapStats {
    std::uint64_t accepted = 0;          // client connections accepted
    std::uint64_t open = 0;              // connections being relayed now
    std::uint64_t upstreamFailures = 0;  // upstream connects refused, timed out, unreachable
    std::uint64_t faultsInjected = 0;    // cuts, stalls and resets performed
    std::uint64_t stallTimeouts = 0;     // connections cut by the stall timeout (setStallTimeout)
    std::string lastError;               // one line, empty when nothing went wrong
};

struct WireTapOptions {
    // Feed every relayed chunk through zlib-6 and zstd-3 streams (CompressionEstimate.h) on a
    // thread of the tap's own and report the compressed sizes in WireCounters::compressed. Costs
    // CPU, turns off splice(), and slows the relay to the compressors' pace when they fall behind.
    bool estimateCompression = false;
    // Every connection's shaped bytes leave on this link's lines instead of a line of their own, so
    // taps that share it (one per session) share its bandwidth (LinkShaper.h). Null: a link per connection.
    std::shared_ptr<SharedLink> sharedLink;
};

// A TCP relay on 127.0.0.1 in front of a real server. A driver connects to port() instead of
// the server; the tap counts what passes in each direction and can emulate a slower, longer link.
// One thread per tap runs an epoll loop over every connection made to it. All public members are
// thread-safe.
class WireTap {
public:
    // Starts listening on an ephemeral port. Throws Error(Connect) when the upstream host cannot
    // be resolved, Error(Io) when no socket or thread can be had, Error(Usage) for a bad profile.
    WireTap(const std::string& upstreamHost, std::uint16_t upstreamPort, LinkProfile profile = {},
            const WireTapOptions& options = {});
    ~WireTap();  // stops the relay thread, closes every socket

    WireTap(const WireTap&) = delete;
    WireTap& operator=(const WireTap&) = delete;

    std::uint16_t port() const;
    std::string upstream() const;  // "host:port", for messages

    // Totals over all connections so far. send* = client->server, recv* = server->client, each
    // read() of the relay one packet; roundTrips counts changes from up to down per connection.
    // A driver call that has returned has had all its bytes counted: the relay counts before it
    // forwards. When estimating compression, waits until the compressors have caught up with what
    // the relay has counted, and returns the counts of exactly the chunks they have compressed.
    // `trace`, when given, gets the same instant's mark for exchanges() (ExchangeRecorder.h).
    WireCounters snapshot(ExchangeRecorder::Mark* trace = nullptr) const;
    bool estimatingCompression() const;
    // The round trips between two marks of snapshot(); forgetTraceBefore() frees what is before one.
    ExchangeTrace exchanges(const ExchangeRecorder::Mark& from, const ExchangeRecorder::Mark& to) const;
    void forgetTraceBefore(const ExchangeRecorder::Mark& mark);

    // Counts since an earlier snapshot(): what one phase of a sample cost.
    WireCounters since(const WireCounters& earlier) const { return snapshot() - earlier; }

    // Applies to bytes the relay reads from now on; bytes already in the emulated line keep their
    // schedule. Throws Error(Usage) for a bad profile.
    void setLinkProfile(const LinkProfile& profile);
    LinkProfile linkProfile() const;

    // Replaces the fault plan (an empty plan clears it).
    void setFaults(const FaultPlan& plan);
    // Cuts every open connection now, as if the server vanished.
    void cutAll(bool withReset = false);

    // The idle stall timeout (0 = off). While watching (a driver call is outstanding, see
    // watchStalls), a connection on which nothing moved to or from the server for this long, and
    // that holds no bytes on the emulated line, is cut on both legs and stats().lastError says
    // "wire tap: no data for N s (stall timeout)". Turning the watch on restarts every clock.
    // A silence that overlaps a pause of the client itself (ClientPause.h) restarts after it.
    void setStallTimeout(std::chrono::nanoseconds timeout);
    void watchStalls(bool on);
    // After a cancel: once `grace` has passed, every connection is cut, whatever is still flowing (a
    // server that ignores the cancel and keeps sending); stats().lastError says so. Sticky.
    void cutAllAfter(std::chrono::nanoseconds grace);

    WireTapStats stats() const;

private:
    class Relay;  // the epoll loop and its thread, in WireTap.cpp
    std::unique_ptr<Relay> m_relay;
};

}  // namespace blobbench
