#include "engine/drivers/Driver.h"

#include <algorithm>
#include <cctype>

namespace blobbench {

namespace {

// Hand-written scanners, not std::regex: libstdc++'s regex recurses once per character, so a
// host, a database name or a server's error of ~30,000 characters overflowed the stack. Every
// scanner here visits each character a bounded number of times.

bool isSpace(char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

bool isLineEnd(char c) {
    return c == '\n' || c == '\r';
}

bool startsWithNoCase(std::string_view text, std::size_t at, std::string_view word) {
    if (text.size() - at < word.size()) {
        return false;
    }
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(text[at + i])) != word[i]) {
            return false;
        }
    }
    return true;
}

// conninfo: password=secret, password = 'se cret' (backslash escapes). An unterminated quote
// hides the rest of the text: libpq refuses it, and what follows may still be the password.
void conninfoSecrets(std::string_view text, std::vector<SecretRange>& out) {
    for (std::size_t at = 0; at < text.size();) {
        if (!startsWithNoCase(text, at, "password")) {
            ++at;
            continue;
        }
        std::size_t i = at + 8;
        while (i < text.size() && isSpace(text[i])) {
            ++i;
        }
        if (i >= text.size() || text[i] != '=') {
            at = i;
            continue;
        }
        ++i;
        while (i < text.size() && isSpace(text[i])) {
            ++i;
        }
        const std::size_t begin = i;
        if (i < text.size() && text[i] == '\'') {
            ++i;
            while (i < text.size() && text[i] != '\'') {
                i += text[i] == '\\' ? 2 : 1;
            }
            i = std::min(i + 1, text.size());
        } else {
            while (i < text.size() && !isSpace(text[i])) {
                ++i;
            }
        }
        if (i > begin) {
            out.push_back({begin, i});
        }
        at = i;
    }
}

// URI user info: scheme://user:secret@host. libpq ends the password at the first '@' only, so a
// space or '/' in it is still the password (with '/' libpq misreads the URI, yet the text is the
// user's secret all the same). The search for '@' stops at the end of the line.
void uriSecrets(std::string_view text, std::vector<SecretRange>& out) {
    std::size_t noAtBefore = 0;  // a search for '@' from before here already failed up to here
    for (std::size_t at = text.find("://"); at != std::string_view::npos; at = text.find("://", at)) {
        std::size_t i = at + 3;
        while (i < text.size() && text[i] != ':' && text[i] != '@' && text[i] != '/' && !isSpace(text[i])) {
            ++i;
        }
        if (i >= text.size() || text[i] != ':' || i < noAtBefore) {
            at = i;
            continue;
        }
        const std::size_t begin = i + 1;
        std::size_t end = begin;
        while (end < text.size() && text[end] != '@' && !isLineEnd(text[end])) {
            ++end;
        }
        if (end >= text.size() || text[end] != '@') {
            noAtBefore = end;
            at = begin;
            continue;
        }
        // host:port/db?user=me@server (a user name with '@'): a query after a '/' is no password.
        const std::string_view stretch = text.substr(begin, end - begin);
        const auto slash = stretch.find('/');
        if (slash != std::string_view::npos && stretch.find('?', slash) != std::string_view::npos) {
            at = end + 1;
            continue;
        }
        out.push_back({begin, end});
        at = end + 1;
    }
}

// URI query: ?password=secret&... ; the value runs to the next '&' or the end of the line.
void querySecrets(std::string_view text, std::vector<SecretRange>& out) {
    for (std::size_t at = 0; at < text.size(); ++at) {
        if ((text[at] != '?' && text[at] != '&') || !startsWithNoCase(text, at + 1, "password=")) {
            continue;
        }
        const std::size_t begin = at + 10;
        std::size_t end = begin;
        while (end < text.size() && text[end] != '&' && !isLineEnd(text[end])) {
            ++end;
        }
        if (end > begin) {
            out.push_back({begin, end});
        }
        at = end - 1;
    }
}

}  // namespace

std::vector<SecretRange> secretRanges(std::string_view text) {
    std::vector<SecretRange> ranges;
    if (text.find("://") == std::string_view::npos) {
        conninfoSecrets(text, ranges);
        return ranges;
    }
    uriSecrets(text, ranges);
    querySecrets(text, ranges);
    std::sort(ranges.begin(), ranges.end(),
              [](const SecretRange& a, const SecretRange& b) { return a.begin < b.begin; });
    return ranges;
}

std::string maskSecrets(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t copied = 0;
    for (const SecretRange& r : secretRanges(text)) {
        if (r.begin < copied) {
            continue;  // inside a range already masked (a query within the user info)
        }
        out.append(text.substr(copied, r.begin - copied));
        out.append("***");
        copied = r.end;
    }
    out.append(text.substr(copied));
    return out;
}

std::string ConnectionSpec::label() const {
    // "sqlite:/x.db" already names its engine; "inet://h/db" and "/x.fdb" do not.
    const bool named = target.starts_with(engine + ":");
    return (named ? "" : engine + ":") + maskSecrets(target);
}

}  // namespace blobbench
