#include "engine/drivers/mariadb/MariadbConnectionString.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "engine/core/Error.h"
#include "engine/drivers/Driver.h"

namespace blobbench::mariadb {
namespace {

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
    if (text.size() < prefix.size()) {
        return false;
    }
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) {
            return false;
        }
    }
    return true;
}

bool equalsNoCase(std::string_view text, std::string_view word) {
    return text.size() == word.size() && startsWithNoCase(text, word);
}

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

[[noreturn]] void refuse(std::string_view text, const std::string& why) {
    throw Error(ErrorKind::Usage, "mariadb: " + maskTarget(text) + ": " + why);
}

// %XX decoding; a '%' not followed by two hex digits is refused (its place is named, not its text,
// which may be the password's).
std::string decoded(std::string_view part, std::string_view text, const char* what) {
    std::string out;
    out.reserve(part.size());
    for (std::size_t i = 0; i < part.size(); ++i) {
        if (part[i] != '%') {
            out.push_back(part[i]);
            continue;
        }
        if (i + 2 >= part.size()) {
            refuse(text, std::string("a '%' in the ") + what + " is not followed by two hex digits (write %25)");
        }
        const int a = hexDigit(part[i + 1]);
        const int b = hexDigit(part[i + 2]);
        if (a < 0 || b < 0) {
            refuse(text, std::string("a '%' in the ") + what + " is not followed by two hex digits (write %25)");
        }
        if (a == 0 && b == 0) {
            // libmariadb takes C strings: "h5g%00zzz" connected to h5g while every sample named h5g%00zzz.
            refuse(text, std::string("a NUL byte (%00) in the ") + what +
                             " would cut it short there in the client library; no server has such a name");
        }
        out.push_back(static_cast<char>(a * 16 + b));
        i += 2;
    }
    return out;
}

std::string encoded(std::string_view part, std::string_view keep) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (char c : part) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) != 0 || c == '-' || c == '_' || c == '.' || c == '~' || keep.find(c) != keep.npos) {
            out.push_back(c);
        } else {
            out.push_back('%');
            out.push_back(kHex[u >> 4]);
            out.push_back(kHex[u & 15]);
        }
    }
    return out;
}

// A port number written as text (an option file's value, MYSQL_TCP_PORT), or 0 when it is none:
// spaces, a trailing "# comment" and quotes around it as an option file may have them.
std::uint16_t portOf(std::string_view text) {
    if (const auto hash = text.find('#'); hash != std::string_view::npos) {
        text = text.substr(0, hash);
    }
    auto trim = [&text] {
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
            text.remove_prefix(1);
        }
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
            text.remove_suffix(1);
        }
    };
    trim();
    if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front()) {
        text = text.substr(1, text.size() - 2);
        trim();
    }
    if (text.empty() || text.size() > 5 ||
        !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
        return 0;
    }
    const int value = std::stoi(std::string(text));
    return value > 0 && value <= 65535 ? static_cast<std::uint16_t>(value) : 0;
}

// The last `port` of the groups libmariadb reads in an option file and the files it includes
// (!include FILE, !includedir DIR: its *.cnf files in name order), or 0.
void readOptionFilePort(const std::filesystem::path& file, const std::string& group, int depth, std::uint16_t& port) {
    std::ifstream in(file);
    std::string line;
    bool inGroup = false;
    while (depth < 10 && std::getline(in, line)) {
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#' || line[first] == ';') {
            continue;
        }
        line.erase(0, first);
        line.erase(line.find_last_not_of(" \t\r") + 1);
        if (line.starts_with("!include ")) {
            readOptionFilePort(line.substr(9), group, depth + 1, port);
            continue;
        }
        if (line.starts_with("!includedir ")) {
            std::error_code error;
            std::vector<std::filesystem::path> files;
            for (const auto& entry : std::filesystem::directory_iterator(line.substr(12), error)) {
                if (entry.path().extension() == ".cnf") {
                    files.push_back(entry.path());
                }
            }
            std::sort(files.begin(), files.end());
            for (const auto& f : files) {
                readOptionFilePort(f, group, depth + 1, port);
            }
            continue;
        }
        if (line.front() == '[') {
            const std::string name = line.substr(1, line.find(']') - 1);
            inGroup = name == "client" || name == "client-server" || name == "client-mariadb" ||
                      (!group.empty() && name == group);
            continue;
        }
        const auto eq = line.find('=');
        if (inGroup && eq != std::string::npos) {
            std::string key = line.substr(0, eq);
            key.erase(key.find_last_not_of(" \t") + 1);
            if (key == "port") {
                if (const std::uint16_t p = portOf(std::string_view(line).substr(eq + 1)); p != 0) {
                    port = p;
                }
            }
        }
    }
}

std::uint16_t optionFilePort(const std::string& file, const std::string& group) {
    std::uint16_t port = 0;
    readOptionFilePort(file, group, 0, port);
    return port;
}

}  // namespace

bool looksLikeMariadbTarget(std::string_view text) {
    return startsWithNoCase(text, "mariadb://") || startsWithNoCase(text, "mysql://");
}

std::optional<bool> optionBoolean(std::string_view value) {
    for (const char* yes : {"true", "1", "on", "yes"}) {
        if (equalsNoCase(value, yes)) {
            return true;
        }
    }
    for (const char* no : {"false", "0", "off", "no"}) {
        if (equalsNoCase(value, no)) {
            return false;
        }
    }
    return std::nullopt;
}

namespace {

// One query key's value, checked: refused with one line naming the key.
void checkOption(std::string_view text, const std::string& key, const std::string& value) {
    if (key == "connect_timeout" &&
        (value.empty() || value.size() > 6 ||
         !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))) {
        refuse(text, "connect_timeout '" + value + "' is not a number of seconds");
    }
    if ((key == "ssl" || key == "ssl_verify_server_cert") && !optionBoolean(value)) {
        refuse(text, key + " '" + value + "' is not true or false");
    }
}

// "host=127.0.0.1 port=3307 user=me password='a b' database=db socket=... connect_timeout=5": the
// keyword form of the other engines' conninfo (values in single quotes may hold spaces; a backslash
// escapes the next character). dbname and db are database's other names.
MariadbTarget parseKeywords(std::string_view text) {
    MariadbTarget t;
    std::size_t i = 0;
    const auto space = [&] {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) {
            ++i;
        }
    };
    for (space(); i < text.size(); space()) {
        const std::size_t keyStart = i;
        while (i < text.size() && text[i] != '=' && std::isspace(static_cast<unsigned char>(text[i])) == 0) {
            ++i;
        }
        const std::string key(text.substr(keyStart, i - keyStart));
        space();
        if (i >= text.size() || text[i] != '=') {
            refuse(text, "'" + key + "' has no value (write " + key + "=...)");
        }
        ++i;
        space();
        std::string value;
        if (i < text.size() && text[i] == '\'') {
            ++i;
            bool closed = false;
            for (; i < text.size(); ++i) {
                if (text[i] == '\\' && i + 1 < text.size()) {
                    value += text[++i];
                } else if (text[i] == '\'') {
                    closed = true;
                    ++i;
                    break;
                } else {
                    value += text[i];
                }
            }
            if (!closed) {
                refuse(text, "a quoted value of '" + key + "' has no closing quote");
            }
        } else {
            while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) == 0) {
                value += text[i++];
            }
        }
        if (value.find('\0') != std::string::npos) {
            refuse(text, "a NUL byte in '" + key + "' would cut it short in the client library");
        }
        if (key == "host") {
            t.host = value;
        } else if (key == "port") {
            const bool digits = !value.empty() && value.size() <= 5 &&
                                std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
            if (!digits || std::stoul(value) == 0 || std::stoul(value) > 65535) {
                refuse(text, "port '" + value + "' is not a TCP port (1..65535)");
            }
            t.port = static_cast<std::uint16_t>(std::stoul(value));
        } else if (key == "user") {
            t.user = value;
        } else if (key == "password") {
            t.password = value;
            t.hasPassword = true;
        } else if (key == "database" || key == "dbname" || key == "db") {
            t.database = value;
        } else if (std::find(std::begin(kQueryKeys), std::end(kQueryKeys), key) != std::end(kQueryKeys)) {
            checkOption(text, key, value);
            t.options[key] = value;
        } else {
            refuse(text, "unknown keyword '" + key +
                             "' (known: host, port, user, password, database (dbname, db), socket, connect_timeout, "
                             "read_default_file, read_default_group, ssl, ssl_ca, ssl_cert, ssl_key, "
                             "ssl_verify_server_cert, tls_version)");
        }
    }
    return t;
}

}  // namespace

bool looksLikeMariadbKeywords(std::string_view text) {
    return !looksLikeMariadbTarget(text) && text.find('=') != std::string_view::npos &&
           text.find("://") == std::string_view::npos;
}

MariadbTarget parseMariadbTarget(std::string_view text) {
    if (looksLikeMariadbKeywords(text)) {
        return parseKeywords(text);
    }
    MariadbTarget t;
    std::string_view rest;
    if (startsWithNoCase(text, "mariadb://")) {
        t.scheme = "mariadb";
        rest = text.substr(10);
    } else if (startsWithNoCase(text, "mysql://")) {
        t.scheme = "mysql";
        rest = text.substr(8);
    } else {
        refuse(text, "not a MariaDB connection string (write mariadb://user@host:port/database)");
    }
    std::string_view query;
    if (const auto q = rest.find('?'); q != std::string_view::npos) {
        query = rest.substr(q + 1);
        rest = rest.substr(0, q);
    }
    // The user info ends at the last '@' before the path: an unencoded '@' in a password stays in it.
    const auto slash = rest.find('/', rest.rfind('@') == std::string_view::npos ? 0 : rest.rfind('@'));
    std::string_view authority = rest.substr(0, slash);
    if (slash != std::string_view::npos) {
        t.database = decoded(rest.substr(slash + 1), text, "database name");
        if (t.database.find('/') != std::string::npos) {
            refuse(text, "the database name holds a '/' (one database, no path)");
        }
    }
    if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
        const std::string_view userInfo = authority.substr(0, at);
        authority = authority.substr(at + 1);
        const auto colon = userInfo.find(':');
        t.user = decoded(userInfo.substr(0, colon), text, "user name");
        if (colon != std::string_view::npos) {
            t.password = decoded(userInfo.substr(colon + 1), text, "password");
            t.hasPassword = true;
        }
    }
    std::string_view portText;
    if (!authority.empty() && authority.front() == '[') {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) {
            refuse(text, "an IPv6 host in '[' has no ']'");
        }
        t.host = std::string(authority.substr(1, close - 1));
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty() && after.front() != ':') {
            refuse(text, "after the ']' of an IPv6 host only ':port' may follow");
        }
        portText = after.empty() ? after : after.substr(1);
        if (!after.empty() && portText.empty()) {
            refuse(text, "a ':' with no port after it");
        }
    } else {
        const auto colon = authority.find(':');
        t.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) {
            portText = authority.substr(colon + 1);
            if (portText.empty()) {
                refuse(text, "a ':' with no port after it");
            }
        }
    }
    if (!portText.empty()) {
        std::uint32_t port = 0;
        for (char c : portText) {
            if (c < '0' || c > '9' || port > 65535) {
                refuse(text, "port '" + std::string(portText) + "' is not a TCP port (1..65535)");
            }
            port = port * 10 + static_cast<std::uint32_t>(c - '0');
        }
        if (port == 0 || port > 65535) {
            refuse(text, "port '" + std::string(portText) + "' is not a TCP port (1..65535)");
        }
        t.port = static_cast<std::uint16_t>(port);
    }
    while (!query.empty()) {
        const auto amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (pair.empty()) {
            continue;
        }
        const auto eq = pair.find('=');
        const std::string key = decoded(pair.substr(0, eq), text, "query");
        if (std::find(std::begin(kQueryKeys), std::end(kQueryKeys), key) == std::end(kQueryKeys)) {
            std::string known;
            for (std::string_view k : kQueryKeys) {
                known += (known.empty() ? "" : ", ") + std::string(k);
            }
            refuse(text, "unknown option '" + key + "' (known: " + known + ")");
        }
        if (eq == std::string_view::npos) {
            refuse(text, "option '" + key + "' has no value (write " + key + "=...)");
        }
        std::string value = decoded(pair.substr(eq + 1), text, key == "password" ? "password" : "query");
        if (key == "password") {
            t.password = std::move(value);
            t.hasPassword = true;
            continue;
        }
        checkOption(text, key, value);
        t.options[key] = std::move(value);
    }
    return t;
}

std::string MariadbTarget::toString() const {
    std::string out = scheme + "://";
    if (!user.empty() || hasPassword) {
        out += encoded(user, "");
        if (hasPassword) {
            out += ":" + encoded(password, "");
        }
        out += "@";
    }
    out += host.find(':') != std::string::npos ? "[" + host + "]" : host;
    if (port != 0) {
        out += ":" + std::to_string(port);
    }
    if (!database.empty()) {
        out += "/" + encoded(database, "");
    }
    char separator = '?';
    for (const auto& [key, value] : options) {
        out += separator + key + "=" + encoded(value, "/");
        separator = '&';
    }
    return out;
}

std::uint16_t MariadbTarget::tcpPort() const {
    if (port != 0) {
        return port;
    }
    if (const auto file = options.find("read_default_file"); file != options.end()) {
        const auto group = options.find("read_default_group");
        if (const std::uint16_t p = optionFilePort(file->second, group != options.end() ? group->second : ""); p != 0) {
            return p;
        }
    }
    if (const char* env = std::getenv("MYSQL_TCP_PORT"); env != nullptr) {
        if (const std::uint16_t p = portOf(env); p != 0) {
            return p;
        }
    }
    return kDefaultPort;
}

}  // namespace blobbench::mariadb
