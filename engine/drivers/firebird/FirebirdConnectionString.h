#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blobbench::firebird {

// A Firebird connection string as users write it, split into its parts so the wire tap can point
// the same database at another endpoint.
struct FirebirdTarget {
    enum class Form {
        Url,     // inet://host[:port]/path (also inet4://, inet6://)
        Legacy,  // host[/port]:path
        Local,   // a path or alias with no host: embedded (Engine12), or loopback when the server holds the file
    };
    Form form = Form::Local;
    std::string scheme;  // "inet", "inet4", "inet6" for Url
    std::string host;    // without brackets
    std::string port;    // as written: empty, a number or a service name
    std::string path;    // file name or alias

    bool networked() const { return form != Form::Local; }
    // The TCP port reached: the written number, 3050 for the default and for gds_db.
    std::optional<std::uint16_t> tcpPort() const;
    // Back to a connection string the client library understands.
    std::string toString() const;
};

constexpr std::uint16_t kDefaultFirebirdPort = 3050;

// Strips an optional "firebird:" prefix and splits the rest. Never throws: what is not a URL or
// host:path is a local path.
FirebirdTarget parseFirebirdTarget(std::string_view text);

// Whether a string looks like a Firebird database (used to pick the engine when none is named).
bool looksLikeFirebirdTarget(std::string_view text);

}  // namespace blobbench::firebird
