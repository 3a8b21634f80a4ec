#include "engine/drivers/ReadOnly.h"

#include <cctype>
#include <vector>

namespace blobbench {
namespace {

bool wordChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}

std::string upper(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

// The words of `sql` in upper case, without comments, '...' literals, "..." names (but those called
// as functions) and PostgreSQL's $tag$...$tag$ strings.
std::vector<std::string> words(std::string_view sql) {
    std::vector<std::string> out;
    std::size_t i = 0;
    const std::size_t n = sql.size();
    auto skipQuoted = [&](char quote) {  // a doubled quote stays inside
        for (++i; i < n; ++i) {
            if (sql[i] == quote) {
                if (i + 1 < n && sql[i + 1] == quote) {
                    ++i;
                } else {
                    ++i;
                    return;
                }
            }
        }
    };
    while (i < n) {
        const char c = sql[i];
        if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
            while (i < n && sql[i] != '\n') {
                ++i;
            }
        } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
            const auto end = sql.find("*/", i + 2);
            i = end == std::string_view::npos ? n : end + 2;
        } else if (c == '"') {
            // A quoted name called as a function is that function: "lo_create"(0) writes as
            // lo_create(0) does (hostile round 5c I1); any other quoted name is no word.
            const std::size_t start = i + 1;
            skipQuoted(c);
            std::size_t next = i;
            while (next < n && std::isspace(static_cast<unsigned char>(sql[next])) != 0) {
                ++next;
            }
            if (next < n && sql[next] == '(' && i - start >= 1) {
                out.push_back(upper(sql.substr(start, i - 1 - start)));
            }
        } else if (c == '\'') {
            skipQuoted(c);
        } else if (c == '$') {
            std::size_t j = i + 1;
            while (j < n && (std::isalnum(static_cast<unsigned char>(sql[j])) != 0 || sql[j] == '_')) {
                ++j;
            }
            if (j < n && sql[j] == '$') {
                const std::string_view tag = sql.substr(i, j - i + 1);
                const auto end = sql.find(tag, j + 1);
                i = end == std::string_view::npos ? n : end + tag.size();
            } else {
                i = j;  // $1, a parameter
            }
        } else if (wordChar(c)) {
            const std::size_t start = i;
            while (i < n && wordChar(sql[i])) {
                ++i;
            }
            out.push_back(upper(sql.substr(start, i - start)));
        } else {
            ++i;
        }
    }
    return out;
}

}  // namespace

std::string writingCallIn(std::string_view sql, std::initializer_list<std::string_view> calls) {
    const std::vector<std::string> found = words(sql);
    for (std::size_t at = 0; at < found.size(); ++at) {
        for (const std::string_view call : calls) {
            const std::vector<std::string> wanted = words(call);
            bool match = !wanted.empty() && at + wanted.size() <= found.size();
            for (std::size_t k = 0; match && k < wanted.size(); ++k) {
                match = found[at + k] == wanted[k];
            }
            if (match) {
                return std::string(call);
            }
        }
    }
    return {};
}

}  // namespace blobbench
