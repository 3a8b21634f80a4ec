#pragma once

#include <string>
#include <string_view>

namespace blobbench {

// Text from a file, a server or the command line made safe for a terminal or a Markdown file:
// control characters (C0, DEL, and C1 written as UTF-8) become visible escapes ("\n", "\t", "\r",
// "\x1b", "\u009b"), so that a title, a path or a message cannot move the cursor, set the window
// title, ring the bell or split a line. With keepLines, '\n' and '\t' stay (multi-line text: SQL).
// JSON output keeps the real text (JSON escapes it).
std::string printable(std::string_view text, bool keepLines = false);

}  // namespace blobbench
