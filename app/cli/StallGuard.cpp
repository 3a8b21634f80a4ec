#include "app/cli/StallGuard.h"

#include "engine/wire/WireParameters.h"
#include "engine/wire/WireTap.h"

namespace blobbench::cli {

StallGuard::StallGuard(const Driver& driver, const ConnectionSpec& spec, std::chrono::seconds timeout, WireTap* tap,
                       SocketCounter* counter)
    : m_tap(tap), m_counter(counter) {
    if (timeout.count() <= 0) {
        m_tap = nullptr;
        m_counter = nullptr;
        return;
    }
    if (m_tap) {
        m_tap->setStallTimeout(timeout);
        m_tap->watchStalls(true);
        return;
    }
    if (!m_counter) {
        const auto endpoint = driver.endpoint(spec);
        if (!endpoint) {
            return;
        }
        m_own = std::make_unique<SocketCounter>();
        m_counter = m_own.get();
        m_adopting.emplace(*m_own);  // every server of the connection string, not only the first
    }
    m_counter->setStallTimeout(timeout);
    m_counter->watchStalls(true);
}

StallGuard::~StallGuard() {
    m_adopting.reset();
    if (m_tap) {
        m_tap->watchStalls(false);
    }
    if (m_counter) {
        m_counter->watchStalls(false);
    }
}

std::string StallGuard::cut() const {
    if (m_tap) {
        return m_tap->stats().stallTimeouts > 0 ? m_tap->stats().lastError : std::string();
    }
    return m_counter && m_counter->stallTimeouts() > 0 ? m_counter->lastError() : std::string();
}

std::string StallGuard::explained(const std::string& words) const {
    const std::string why = cut();
    if (why.empty() || words.find(why) != std::string::npos) {
        return words;
    }
    return words + " (" + why + ")";
}

std::chrono::seconds stallTimeoutOf(const ParameterValues& given) {
    return resolveWireSettings(false, LinkProfile{}, false, given).stallTimeout;
}

}  // namespace blobbench::cli
