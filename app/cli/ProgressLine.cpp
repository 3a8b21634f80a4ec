#include "app/cli/ProgressLine.h"

#include <unistd.h>

#include <iostream>

#include "engine/core/Printable.h"

namespace blobbench::cli {

ProgressLine::ProgressLine(bool enabled) : ProgressLine(std::cerr, enabled, isatty(STDERR_FILENO) != 0) {}

ProgressLine::ProgressLine(std::ostream& err, bool enabled, bool terminal)
    : m_err(err), m_enabled(enabled && terminal) {}

ProgressLine::~ProgressLine() {
    clear();
}

void ProgressLine::show(const std::string& text, bool phase) {
    if (!m_enabled) {
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!phase && now - m_last < std::chrono::milliseconds(100)) {
        return;
    }
    m_last = now;
    m_err << '\r' << printable(text) << "\033[K" << std::flush;
    m_shown = true;
}

void ProgressLine::clear() {
    if (m_shown) {
        m_err << "\r\033[K" << std::flush;
        m_shown = false;
    }
}

}  // namespace blobbench::cli
