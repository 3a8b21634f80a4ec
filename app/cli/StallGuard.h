#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "engine/core/Error.h"
#include "engine/core/Parameter.h"
#include "engine/drivers/Driver.h"
#include "engine/wire/SocketCounter.h"

namespace blobbench {
class WireTap;
}  // namespace blobbench

namespace blobbench::cli {

// The wire stall timeout for a command that talks to a server outside the Runner (prepare, bytea,
// storage insert, reproduce postgres-bytea-2007, the fb-blob-test mode): a call blocked on a server
// that stopped answering fails `timeout` after the last byte, as in `run`, instead of holding the
// command for good (hostile round 5d A4, B1: all still running at 80 s behind a silent proxy).
//
// Through the command's own relay or in-process counter when it has one; else, while the guard is
// alive, the TCP connections the client library opens on this thread are watched in process
// (SocketCounter, the Runner's in-process counting: nothing of them is counted or reported), to
// whichever host and port of the connection string it reaches: libpq goes on to the next of
// "host=a,b port=5432,5433" when the first fails. A connection without a TCP endpoint (embedded, a
// Unix socket) has no guard. 0 s: off.
class StallGuard {
public:
    StallGuard(const Driver& driver, const ConnectionSpec& spec, std::chrono::seconds timeout, WireTap* tap = nullptr,
               SocketCounter* counter = nullptr);
    ~StallGuard();
    StallGuard(const StallGuard&) = delete;
    StallGuard& operator=(const StallGuard&) = delete;

    // "" or why a connection was cut: "in-process counting: no data for 30 s (stall timeout)".
    std::string cut() const;
    // `words` with the cut's reason after them when there was one (the client library's own words
    // for a shut socket, "server closed the connection unexpectedly", are not the cause).
    std::string explained(const std::string& words) const;
    Error explained(const Error& e) const { return Error(e.kind(), explained(std::string(e.what()))); }

private:
    WireTap* m_tap = nullptr;
    SocketCounter* m_counter = nullptr;
    std::unique_ptr<SocketCounter> m_own;
    std::optional<SocketCounter::Adopting> m_adopting;
};

// The stall timeout -P wire_stall_timeout_s gives (default 30 s, 0 = off); Error(Usage) for a bad value.
std::chrono::seconds stallTimeoutOf(const ParameterValues& given);

}  // namespace blobbench::cli
