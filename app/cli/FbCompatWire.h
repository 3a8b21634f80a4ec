#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "engine/core/Sample.h"
#include "engine/drivers/Driver.h"
#include "engine/wire/ExchangeRecorder.h"
#include "engine/wire/LinkProfile.h"

namespace blobbench {
class WireTap;
class SocketCounter;
}  // namespace blobbench

namespace blobbench::cli {

// The wire extensions of the fb-blob-test compatible mode, all off by default so that its output
// stays the reference tool's: --tap counts the wire (in-process, at fbclient's own socket calls,
// unless a link is emulated or --relay asks for the relay), --latency/--bandwidth (and their -up/
// -down forms, --up, --down) emulate a link through the relay.
struct CompatWireOptions {
    bool tap = false;
    bool relay = false;
    LinkProfile link;
    std::chrono::seconds stallTimeout{30};  // --stall-timeout (StallGuard.h), counted or not
};

// True when `arg` is one of the options above (its value, if any, read through `take`).
bool parseCompatWireOption(const std::string& arg, const std::function<std::string()>& take, CompatWireOptions& o);
bool isCompatWireValueOption(const std::string& arg);  // options that take a value
std::string compatWireUsage();

// One run's counting: the relay or the in-process counter, alive longer than the session.
class CompatWire {
public:
    CompatWire(const CompatWireOptions& options, const Driver& driver, const ConnectionSpec& spec);
    ~CompatWire();
    CompatWire(const CompatWire&) = delete;
    CompatWire& operator=(const CompatWire&) = delete;

    // Connects the driver, through the relay or with the counter adopting the socket.
    std::unique_ptr<Session> connect(const Driver& driver, const ConnectionSpec& spec, const ParameterValues& values);

    // Before a query: takes the counts at its phase marks. After it: fills sample.tap (prepared to
    // fetched, as the Runner does), tapPhases and the measured span's exchange trace (its bytes and
    // round trips are sample.tap's), then frees the recorded runs of the span.
    void mark(QuerySpec& query);
    void finish(Sample& sample);

    WireTap* tap() const { return m_tap.get(); }                // null unless counting through the relay
    SocketCounter* counter() const { return m_counter.get(); }  // null unless counting in process

private:
    WireCounters now(ExchangeRecorder::Mark* trace = nullptr) const;

    std::unique_ptr<WireTap> m_tap;
    std::unique_ptr<SocketCounter> m_counter;
    std::uint16_t m_port = 0;
    ConnectionSpec m_spec;
    WireCounters m_connect, m_start, m_prepared, m_executed, m_fetched;
    ExchangeRecorder::Mark m_traceFrom, m_traceTo;  // at Prepared and Fetched, as the Runner's
    bool m_isPrepared = false, m_isExecuted = false, m_isFetched = false;
};

}  // namespace blobbench::cli
