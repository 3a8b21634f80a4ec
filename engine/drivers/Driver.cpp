#include "engine/drivers/Driver.h"

#include "engine/core/Error.h"
#include "engine/core/Printable.h"

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

// A value that is already a mask: a line that holds a masked label ("db?password=***: connect: ...") is
// masked again as a whole, and the value must not run on over the reason after it.
bool alreadyMasked(std::string_view text, std::size_t begin) {
    if (text.substr(begin, 3) != "***") {
        return false;
    }
    const std::size_t after = begin + 3;
    return after >= text.size() || text[after] == '&' || text[after] == ':' || text[after] == '\'' ||
           text[after] == '"' || isSpace(text[after]);
}

// conninfo: password=secret, password = 'se cret' (backslash escapes). An unterminated quote
// hides the rest of the text: libpq refuses it, and what follows may still be the password. A URI's
// query (?password=, &password=) is querySecrets' to mask.
void conninfoSecrets(std::string_view text, std::vector<SecretRange>& out, bool wordsAfter = false) {
    for (std::size_t at = 0; at < text.size();) {
        if (!startsWithNoCase(text, at, "password") || (at > 0 && (text[at - 1] == '?' || text[at - 1] == '&'))) {
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
        if (alreadyMasked(text, begin)) {
            at = begin + 3;
            continue;
        }
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
            while (wordsAfter && i > begin) {  // the words after it that are no keyword=value
                std::size_t word = i;
                while (word < text.size() && isSpace(text[word])) {
                    ++word;
                }
                std::size_t end = word;
                while (end < text.size() && !isSpace(text[end]) && text[end] != '=') {
                    ++end;
                }
                std::size_t next = end;
                while (next < text.size() && isSpace(text[next])) {
                    ++next;
                }
                if (end == word || (next < text.size() && text[next] == '=')) {
                    break;
                }
                i = end;
            }
        }
        if (i > begin) {
            out.push_back({begin, i});
        }
        at = i;
    }
}

// URI user info: scheme://user:secret@host, the secret up to the last '@' before the host: a space,
// '/' or '@' in it is still the password (libpq misreads such a URI, yet the text is the user's
// secret all the same). The search for '@' stops at the end of the line.
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
        // An unencoded '@' in the password: the user info ends at the last '@' before the host, as
        // libmariadb and our MariaDB parser read it ("u:p@ss/w%rd:x@h": the password is "p@ss/w%rd:x"),
        // a '/' in it included. libpq ends it at the first '@' or '/' instead ("u:p@ss@h" is host "ss@h"),
        // yet that text is the user's secret as well. A query ("?user=me@server") is no user info.
        for (std::size_t j = end + 1; j < text.size() && text[j] != '?' && !isSpace(text[j]); ++j) {
            if (text[j] == '@') {
                end = j;
            }
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

// URI query: ?password=secret&... ; the value runs to the next '&' or the end of the line. The key
// counts with its '=' percent-encoded as well ("?password%3Dsecret": libpq and libmariadb refuse such a
// parameter, and quote it in their message, but its value is the user's password all the same), and
// quoted as a driver's message quotes it ("parameter: \"password%3Dsecret\"": the value ends at the quote).
void querySecrets(std::string_view text, std::vector<SecretRange>& out) {
    for (std::size_t at = 0; at < text.size(); ++at) {
        const char lead = text[at];
        if (lead != '?' && lead != '&' && lead != '"' && lead != '\'') {
            continue;
        }
        std::size_t begin = 0;
        if (startsWithNoCase(text, at + 1, "password=")) {
            begin = at + 10;
        } else if (startsWithNoCase(text, at + 1, "password%3d")) {
            begin = at + 12;
        } else if (startsWithNoCase(text, at + 1, "passwd=")) {  // ODBC's and MySQL tools' spellings: a
            begin = at + 8;                                      // user who writes them means the password
        } else if (startsWithNoCase(text, at + 1, "pwd=")) {     // (refused as unknown, never echoed: 5i M3)
            begin = at + 5;
        } else if (const std::size_t eq = text.find('=', at + 1);
                   eq != std::string_view::npos && eq - at - 1 <= 16 &&
                   text.substr(at + 1, eq - at - 1).find_first_of("&?'\" ") == std::string_view::npos &&
                   (startsWithNoCase(text, at + 1, "pas") || startsWithNoCase(text, at + 1, "pw"))) {
            begin = eq + 1;  // a misspelt password key (pasword=, passwrd=, pw=): its value may well be one (5k K4)
        } else {
            continue;
        }
        if (alreadyMasked(text, begin)) {
            at = begin + 2;
            continue;
        }
        const bool quoted = lead == '"' || lead == '\'';
        std::size_t end = begin;
        while (end < text.size() && text[end] != '&' && !isLineEnd(text[end]) && !(quoted && text[end] == lead)) {
            ++end;
        }
        if (end > begin) {
            out.push_back({begin, end});
        }
        at = end - 1;
    }
}

}  // namespace

namespace {

std::vector<SecretRange> rangesOf(std::string_view text, bool wordsAfter) {
    std::vector<SecretRange> ranges;
    conninfoSecrets(text, ranges, wordsAfter);  // also next to a "://": "password=x application_name=a://b"
    if (text.find("://") != std::string_view::npos) {
        uriSecrets(text, ranges);
    }
    querySecrets(text, ranges);  // also in a driver's words alone: "parameter: \"password%3Dsecret\""
    std::sort(ranges.begin(), ranges.end(),
              [](const SecretRange& a, const SecretRange& b) { return a.begin < b.begin; });
    return ranges;
}

std::string masked(std::string_view text, const std::vector<SecretRange>& ranges) {
    std::string out;
    out.reserve(text.size());
    std::size_t copied = 0;
    for (const SecretRange& r : ranges) {
        if (r.begin < copied) {
            copied = std::max(copied, r.end);  // overlaps a range already masked: hide its end too
            continue;
        }
        out.append(text.substr(copied, r.begin - copied));
        out.append("***");
        copied = r.end;
    }
    out.append(text.substr(copied));
    return out;
}

}  // namespace

std::vector<SecretRange> secretRanges(std::string_view text) {
    return rangesOf(text, false);
}

std::vector<SecretRange> targetSecretRanges(std::string_view target) {
    return rangesOf(target, true);
}

std::string maskSecrets(std::string_view text) {
    return masked(text, secretRanges(text));
}

std::string terminalLine(std::string_view message) {
    return printable(maskSecrets(oneLine(std::string(message))));
}

std::string maskTarget(std::string_view target) {
    return masked(target, targetSecretRanges(target));
}

std::string ConnectionSpec::label() const {
    // "sqlite:/x.db" already names its engine; "inet://h/db" and "/x.fdb" do not.
    const bool named = target.starts_with(engine + ":");
    return (named ? "" : engine + ":") + maskTarget(target);
}

}  // namespace blobbench
