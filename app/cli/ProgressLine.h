#pragma once

#include <chrono>
#include <iosfwd>
#include <string>

namespace blobbench::cli {

// The one progress line of every command: on stderr, only when it is a terminal (and not -q), one
// line rewritten in place, at most ten times a second unless a step says it must be seen (a phase).
// Cleared before anything else is printed and when it goes.
class ProgressLine {
public:
    // `enabled` is the command's wish (not -q); the line shows only when stderr is a terminal too.
    explicit ProgressLine(bool enabled);
    ProgressLine(std::ostream& err, bool enabled, bool terminal);  // for a stream of one's own
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    bool enabled() const { return m_enabled; }
    // Shows `text` (made printable) unless the last one is under 100 ms old; `phase` shows it anyway.
    void show(const std::string& text, bool phase = false);
    void clear();

private:
    std::ostream& m_err;
    bool m_enabled;
    bool m_shown = false;
    std::chrono::steady_clock::time_point m_last{};
};

}  // namespace blobbench::cli
