#include "engine/core/Printable.h"

#include <cstdio>

namespace blobbench {
namespace {

// The code point of a bidirectional or line-separating format character encoded in UTF-8 at `text[i]`,
// or 0. A terminal reorders (U+202E shows the rest of the line reversed) or hides them, so a path or
// a name could read as something it is not.
unsigned formatControlAt(std::string_view text, std::size_t i) {
    if (i + 1 < text.size() && static_cast<unsigned char>(text[i]) == 0xd8 &&
        static_cast<unsigned char>(text[i + 1]) == 0x9c) {
        return 0x061c;  // ARABIC LETTER MARK
    }
    if (i + 2 >= text.size() || static_cast<unsigned char>(text[i]) != 0xe2) {
        return 0;
    }
    const auto second = static_cast<unsigned char>(text[i + 1]);
    const auto third = static_cast<unsigned char>(text[i + 2]);
    if (second < 0x80 || second > 0x81 || third < 0x80 || third > 0xbf) {
        return 0;
    }
    const unsigned code = 0x2000u + ((second & 0x3fu) << 6) + (third & 0x3fu);
    const bool marks = code == 0x200e || code == 0x200f;       // LEFT-TO-RIGHT, RIGHT-TO-LEFT MARK
    const bool separators = code == 0x2028 || code == 0x2029;  // LINE, PARAGRAPH SEPARATOR
    const bool embeddings = code >= 0x202a && code <= 0x202e;  // LRE, RLE, PDF, LRO, RLO
    const bool isolates = code >= 0x2066 && code <= 0x2069;    // LRI, RLI, FSI, PDI
    return marks || separators || embeddings || isolates ? code : 0;
}

}  // namespace

std::string printable(std::string_view text, bool keepLines) {
    std::string out;
    out.reserve(text.size());
    char escape[12];
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {  // U+0080..U+009F: CSI, OSC, ... in UTF-8
            std::snprintf(escape, sizeof escape, "\\u%04x", next);
            out += escape;
            ++i;
        } else if (const unsigned code = formatControlAt(text, i); code != 0) {
            std::snprintf(escape, sizeof escape, "\\u%04x", code);
            out += escape;
            i += code < 0x800 ? 1 : 2;
        } else if ((c == '\n' || c == '\t') && keepLines) {
            out += static_cast<char>(c);
        } else if (c == '\n' || c == '\t' || c == '\r') {
            out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
        } else if (c < 0x20 || c == 0x7f) {
            std::snprintf(escape, sizeof escape, "\\x%02x", c);
            out += escape;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

}  // namespace blobbench
