#include "engine/drivers/firebird/FirebirdConnectionString.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "engine/core/Error.h"
#include "engine/drivers/Driver.h"

namespace blobbench::firebird {
namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && lower(text.substr(0, prefix.size())) == prefix;
}

bool isHostChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}

bool isHostName(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), isHostChar);
}

// Splits "host[:port]" or "[v6]:port" of a URL authority.
void splitAuthority(std::string_view authority, FirebirdTarget& target) {
    if (!authority.empty() && authority.front() == '[') {
        const auto close = authority.find(']');
        if (close != std::string_view::npos) {
            target.host = std::string(authority.substr(1, close - 1));
            if (close + 1 < authority.size() && authority[close + 1] == ':') {
                target.port = std::string(authority.substr(close + 2));
            }
            return;
        }
    }
    const auto colon = authority.rfind(':');
    if (colon != std::string_view::npos && authority.find(':') == colon) {
        target.host = std::string(authority.substr(0, colon));
        target.port = std::string(authority.substr(colon + 1));
    } else {
        target.host = std::string(authority);
    }
}

// Schemes of other engines, so that "sqlite:/x.db" is never read as host "sqlite".
bool isOtherScheme(std::string_view name) {
    static const char* const schemes[] = {"sqlite", "postgresql", "postgres", "file",    "files",
                                          "http",   "https",      "mysql",    "mariadb", "odbc"};
    const std::string l = lower(name);
    return std::any_of(std::begin(schemes), std::end(schemes), [&](const char* s) { return l == s; });
}

}  // namespace

std::optional<std::uint16_t> FirebirdTarget::tcpPort() const {
    if (!networked()) {
        return std::nullopt;
    }
    if (port.empty() || lower(port) == "gds_db" || lower(port) == "fb_db") {
        return kDefaultFirebirdPort;
    }
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || ptr != port.data() + port.size() || value == 0 || value > 65535) {
        return std::nullopt;  // a service name we cannot resolve without /etc/services
    }
    return static_cast<std::uint16_t>(value);
}

std::string FirebirdTarget::toString() const {
    switch (form) {
        case Form::Url: {
            // An IPv6 literal goes in brackets; a host that holds a bracket already (malformed, left
            // for the client to refuse) is written as it was read, so that it reads back the same.
            const bool v6 = host.find(':') != std::string::npos && host.find_first_of("[]") == std::string::npos;
            std::string out = scheme + "://" + (v6 ? "[" + host + "]" : host);
            if (!port.empty()) {
                out += ":" + port;
            }
            return out + "/" + path;
        }
        case Form::Legacy:
            return host + (port.empty() ? "" : "/" + port) + ":" + path;
        case Form::Local:
            return path;
    }
    return path;
}

namespace {

// user:password@ before the host is no Firebird form: fbclient took "SYSDBA:masterkey@127.0.0.1:3050"
// for a host name and quoted it, password and all, in its error (hostile round 5j W2).
void refuseUserInfo(std::string_view whole, std::string_view authority) {
    if (authority.find('@') != std::string_view::npos) {
        throw Error(ErrorKind::Usage, "firebird: " + maskTarget(whole) +
                                          ": user information before the host (user:password@) is not a Firebird "
                                          "form: give the user with -u (or ISC_USER) and the password with -p (or "
                                          "ISC_PASSWORD)");
    }
}

}  // namespace

FirebirdTarget parseFirebirdTarget(std::string_view text) {
    const std::string_view whole = text;
    if (startsWith(text, "firebird://")) {
        text.remove_prefix(11);
        FirebirdTarget target;
        target.form = FirebirdTarget::Form::Url;
        target.scheme = "inet";
        const auto slash = text.find('/');
        refuseUserInfo(whole, text.substr(0, slash));
        splitAuthority(text.substr(0, slash), target);
        target.path = slash == std::string_view::npos ? "" : std::string(text.substr(slash + 1));
        return target;
    }
    if (startsWith(text, "firebird:")) {
        text.remove_prefix(9);
    }
    for (const char* scheme : {"inet4", "inet6", "inet"}) {
        const std::string prefix = std::string(scheme) + "://";
        if (startsWith(text, prefix)) {
            text.remove_prefix(prefix.size());
            FirebirdTarget target;
            target.form = FirebirdTarget::Form::Url;
            target.scheme = scheme;
            const auto slash = text.find('/');
            refuseUserInfo(whole, text.substr(0, slash));
            splitAuthority(text.substr(0, slash), target);
            target.path = slash == std::string_view::npos ? "" : std::string(text.substr(slash + 1));
            return target;
        }
    }
    FirebirdTarget target;
    target.form = FirebirdTarget::Form::Local;
    target.path = std::string(text);
    // host[/port]:path. A single letter before ':' is a Windows drive, not a host.
    const auto colon = text.find(':');
    if (colon != std::string_view::npos && colon > 1 && text.find("://") == std::string_view::npos) {
        std::string_view hostPart = text.substr(0, colon);
        std::string_view port;
        const auto slash = hostPart.find('/');
        if (slash != std::string_view::npos) {
            port = hostPart.substr(slash + 1);
            hostPart = hostPart.substr(0, slash);
        }
        if (isHostName(hostPart) && (slash == std::string_view::npos || isHostName(port)) && !isOtherScheme(hostPart)) {
            target.form = FirebirdTarget::Form::Legacy;
            target.host = std::string(hostPart);
            target.port = std::string(port);
            target.path = std::string(text.substr(colon + 1));
        }
    }
    return target;
}

bool looksLikeFirebirdTarget(std::string_view text) {
    if (startsWith(text, "firebird:") || startsWith(text, "inet://") || startsWith(text, "inet4://") ||
        startsWith(text, "inet6://")) {
        return true;
    }
    if (text.find("://") != std::string_view::npos || text.find('=') != std::string_view::npos) {
        return false;  // another engine's URI or a libpq conninfo
    }
    const std::string l = lower(text);
    if (l.size() > 4 && l.compare(l.size() - 4, 4, ".fdb") == 0) {
        return !startsWith(text, "sqlite:");
    }
    return parseFirebirdTarget(text).form == FirebirdTarget::Form::Legacy;
}

}  // namespace blobbench::firebird
