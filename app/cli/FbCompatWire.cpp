#include "app/cli/FbCompatWire.h"

#include <optional>
#include <stdexcept>

#include "engine/core/Error.h"
#include "engine/wire/SocketCounter.h"
#include "engine/wire/WireTap.h"

namespace blobbench::cli {

bool parseCompatWireOption(const std::string& arg, const std::function<std::string()>& take, CompatWireOptions& o) {
    if (arg == "--tap" || arg == "--wire-tap") {
        o.tap = true;
    } else if (arg == "--relay") {
        o.tap = true;
        o.relay = true;
    } else if (arg == "--latency" || arg == "--latency-up" || arg == "--latency-down") {
        const auto latency = parseLatency(take());
        if (arg != "--latency-down") {
            o.link.latencyUp = latency;
        }
        if (arg != "--latency-up") {
            o.link.latencyDown = latency;
        }
        o.tap = true;
    } else if (arg == "--bandwidth" || arg == "--bandwidth-up" || arg == "--bandwidth-down" || arg == "--up" ||
               arg == "--down") {
        const auto rate = parseBitRate(take());
        if (arg != "--bandwidth-down" && arg != "--down") {
            o.link.bandwidthUp = rate;
        }
        if (arg != "--bandwidth-up" && arg != "--up") {
            o.link.bandwidthDown = rate;
        }
        o.tap = true;
    } else if (arg == "--stall-timeout") {
        const std::string text = take();
        std::size_t used = 0;
        long seconds = -1;
        try {
            seconds = std::stol(text, &used);
        } catch (const std::exception&) {
        }
        if (text.empty() || used != text.size() || seconds < 0 || seconds > 86400) {
            throw Error(ErrorKind::Usage,
                        "--stall-timeout: '" + text + "' is not a whole number of seconds in 0..86400");
        }
        o.stallTimeout = std::chrono::seconds(seconds);
    } else {
        return false;
    }
    o.link.validate();
    return true;
}

bool isCompatWireValueOption(const std::string& arg) {
    return arg == "--latency" || arg == "--latency-up" || arg == "--latency-down" || arg == "--bandwidth" ||
           arg == "--bandwidth-up" || arg == "--bandwidth-down" || arg == "--up" || arg == "--down" ||
           arg == "--stall-timeout";
}

std::string compatWireUsage() {
    return R"(    --tap                                Also count the wire (bytes, packets, round trips) at
                                         fbclient's own socket calls: "Wire tap statistics"
    --relay                              Count through the relay (WireTap) instead
    --latency MS, --bandwidth RATE       Emulate a link through the relay (also -up/-down,
                                         --up, --down; 20, 500us, 2M, 512k)
    --stall-timeout SECONDS              A server that sends nothing for this long while
                                         the mode waits on it fails the call (default 30,
                                         0 = wait for good)
)";
}

CompatWire::CompatWire(const CompatWireOptions& options, const Driver& driver, const ConnectionSpec& spec)
    : m_spec(spec) {
    if (!options.tap) {
        return;
    }
    const auto endpoint = driver.endpoint(spec);
    if (!endpoint) {
        return;  // embedded: the report says "not applicable (embedded)"
    }
    if (options.relay || options.link.emulating()) {
        m_tap = std::make_unique<WireTap>(endpoint->host, endpoint->port, options.link);
        m_spec = driver.redirected(spec, Endpoint{"127.0.0.1", m_tap->port()});
    } else {
        m_counter = std::make_unique<SocketCounter>();
        m_port = endpoint->port;
    }
}

CompatWire::~CompatWire() = default;

std::unique_ptr<Session> CompatWire::connect(const Driver& driver, const ConnectionSpec& spec,
                                             const ParameterValues& values) {
    std::optional<SocketCounter::Adopting> adopting;
    if (m_counter) {
        adopting.emplace(*m_counter, m_port);
    }
    auto session = driver.connect(m_tap ? m_spec : spec, values);
    if (m_tap || m_counter) {
        m_connect = now();
    }
    return session;
}

WireCounters CompatWire::now(ExchangeRecorder::Mark* trace) const {
    return m_tap ? m_tap->snapshot(trace) : m_counter->snapshot(trace);
}

void CompatWire::mark(QuerySpec& query) {
    m_isPrepared = m_isExecuted = m_isFetched = false;
    if (!m_tap && !m_counter) {
        return;
    }
    m_start = now();
    query.phaseMark = [this](QueryPhase phase) {
        switch (phase) {
            case QueryPhase::Prepared:
                m_prepared = now(&m_traceFrom);
                m_isPrepared = true;
                break;
            case QueryPhase::Executed:
                m_executed = now();
                m_isExecuted = true;
                break;
            case QueryPhase::Fetched:
                m_fetched = now(&m_traceTo);
                m_isFetched = true;
                break;
        }
    };
}

void CompatWire::finish(Sample& sample) {
    if (!m_tap && !m_counter) {
        return;
    }
    sample.tapPhases["connect"] = m_connect;
    if (m_isPrepared) {
        sample.tapPhases["prepare"] = m_prepared - m_start;
    }
    if (m_isPrepared && m_isExecuted) {
        sample.tapPhases["execute"] = m_executed - m_prepared;
    }
    if (m_isExecuted && m_isFetched) {
        sample.tapPhases["fetch"] = m_fetched - m_executed;
    }
    if (m_isPrepared && m_isFetched) {
        sample.tap = WireStats::of(m_fetched - m_prepared);
        sample.trace = m_tap ? m_tap->exchanges(m_traceFrom, m_traceTo) : m_counter->exchanges(m_traceFrom, m_traceTo);
    } else {
        sample.tap = WireStats::unavailable("the statement did not complete");
    }
    sample.tap.method = m_tap ? "relay" : "in-process";
    ExchangeRecorder::Mark done;  // the session is kept for the whole suite: hold one query's runs at most
    now(&done);
    if (m_tap) {
        m_tap->forgetTraceBefore(done);
    } else {
        m_counter->forgetTraceBefore(done);
    }
}

}  // namespace blobbench::cli
