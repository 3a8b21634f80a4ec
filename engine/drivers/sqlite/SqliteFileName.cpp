#include "engine/drivers/sqlite/SqliteFileName.h"

namespace blobbench {
namespace {

int hexDigit(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

// %XX decoded as sqlite3ParseUri() does; a '%' without two hex digits stays as it is.
std::string percentDecoded(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && hexDigit(text[i + 1]) >= 0 && hexDigit(text[i + 2]) >= 0) {
            out.push_back(static_cast<char>(hexDigit(text[i + 1]) * 16 + hexDigit(text[i + 2])));
            i += 2;
        } else {
            out.push_back(text[i]);
        }
    }
    return out;
}

// The value of `key` in a URI query "a=1&mode=ro", or empty.
std::string queryValue(std::string_view query, std::string_view key) {
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        if (const std::size_t eq = pair.find('='); eq != std::string_view::npos && pair.substr(0, eq) == key) {
            return percentDecoded(pair.substr(eq + 1));
        }
        if (amp == std::string_view::npos) {
            break;
        }
        query.remove_prefix(amp + 1);
    }
    return {};
}

}  // namespace

bool isSqliteUri(std::string_view name) {
    return name.starts_with("file:");
}

std::string sqliteUriParameter(std::string_view name, std::string_view key) {
    if (!isSqliteUri(name)) {
        return {};
    }
    const std::size_t question = name.find_first_of("?#");
    if (question == std::string_view::npos || name[question] == '#') {
        return {};
    }
    const std::string_view query = name.substr(question + 1);
    return queryValue(query.substr(0, query.find('#')), key);
}

std::optional<std::string> sqliteFileOf(std::string_view name) {
    if (name == ":memory:") {
        return std::nullopt;
    }
    if (!isSqliteUri(name)) {
        return std::string(name);
    }
    const std::string_view rest = name.substr(5);
    std::string_view path = rest.substr(0, rest.find_first_of("?#"));
    if (path.starts_with("//")) {
        const std::size_t slash = path.find('/', 2);
        const std::string_view authority = path.substr(2, slash == std::string_view::npos ? path.size() : slash - 2);
        if (!authority.empty() && authority != "localhost") {
            return std::string(name);
        }
        path = slash == std::string_view::npos ? std::string_view() : path.substr(slash);
    }
    std::string file = percentDecoded(path);
    if (sqliteUriParameter(name, "mode") == "memory" || file == ":memory:") {
        return std::nullopt;
    }
    return file;
}

}  // namespace blobbench
