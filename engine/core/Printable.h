#pragma once

#include <string>
#include <string_view>

namespace blobbench {

// Text from a file, a server or the command line made safe for a terminal or a Markdown file:
// control characters (C0, DEL, and C1 written as UTF-8) and the Unicode bidirectional and line
// separating format characters (U+061C, U+200E, U+200F, U+2028, U+2029, U+202A..U+202E,
// U+2066..U+2069) become visible escapes ("\n", "\t", "\r", "\x1b", "\u009b", "\u202e"), so that a
// title, a path or a message cannot move the cursor, set the window title, ring the bell, split a
// line or show the rest of it reversed. With keepLines, '\n' and '\t' stay (multi-line text: SQL).
// JSON output keeps the real text (JSON escapes it).
std::string printable(std::string_view text, bool keepLines = false);

}  // namespace blobbench
