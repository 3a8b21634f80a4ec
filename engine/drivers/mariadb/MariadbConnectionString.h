#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace blobbench::mariadb {

// A MariaDB / MySQL connection string as the ecosystem writes it (Connector/J, SQLAlchemy, the
// mariadb and mysql command lines' URI form):
//   mariadb://[user[:password]@]host[:port][/database][?key=value&...]   (also mysql://)
// user, password and database may be %-encoded; an IPv6 host is written in brackets. The query
// keys taken are kQueryKeys below; any other is refused, so a typo never goes unnoticed.
struct MariadbTarget {
    std::string scheme = "mariadb";  // "mariadb" or "mysql", as written
    std::string user;
    std::string password;
    bool hasPassword = false;  // "u:@h" is an empty password, "u@h" none (libmariadb then reads MYSQL_PWD)
    std::string host;          // without brackets; empty: localhost
    std::uint16_t port = 0;    // 0: not written (tcpPort() says which)
    std::string database;
    std::map<std::string, std::string> options;  // the query's key=value pairs, decoded

    // The TCP port libmariadb connects to: the one written; else the option file's (read_default_file:
    // `port` in its [client], [client-server] and [client-mariadb] groups and read_default_group's),
    // else MYSQL_TCP_PORT, else 3306. The session and the relay use it, so both reach one server.
    std::uint16_t tcpPort() const;
    // A Unix-domain socket (?socket=/path): no TCP endpoint, nothing a relay can stand in front of.
    bool usesSocket() const { return options.count("socket") > 0; }
    // Back to a connection string this parser reads the same way (%-encoding what needs it).
    std::string toString() const;

    static constexpr std::uint16_t kDefaultPort = 3306;
};

// The query keys a target may carry:
//   socket               a Unix-domain socket path instead of TCP
//   connect_timeout      seconds (MYSQL_OPT_CONNECT_TIMEOUT)
//   read_default_file    an option file (MYSQL_READ_DEFAULT_FILE, e.g. ~/.my.cnf)
//   read_default_group   its group (MYSQL_READ_DEFAULT_GROUP, e.g. client)
//   password             the password, when not in the user info
//   ssl                  true: TLS or no connection (MYSQL_OPT_SSL_ENFORCE); false/absent: as libmariadb does
//   ssl_ca, ssl_cert, ssl_key   PEM files (MYSQL_OPT_SSL_CA / _CERT / _KEY)
//   ssl_verify_server_cert      true: the server's certificate must be valid for the host
//   tls_version          e.g. TLSv1.2,TLSv1.3 (MARIADB_OPT_TLS_VERSION)
inline constexpr std::string_view kQueryKeys[] = {
    "socket", "connect_timeout", "read_default_file", "read_default_group",     "password",   "ssl",
    "ssl_ca", "ssl_cert",        "ssl_key",           "ssl_verify_server_cert", "tls_version"};

// A boolean option's value: true for true/1/on/yes, false for false/0/off/no, nullopt otherwise.
std::optional<bool> optionBoolean(std::string_view value);

// Whether the text starts with mariadb:// or mysql:// (any case).
bool looksLikeMariadbTarget(std::string_view text);

// Keyword form: "host=... port=... user=... password=... database=..." (no scheme, an '='), read when the
// engine is named (--engine mariadb, a project's connection): the URI's query keys are keywords too.
bool looksLikeMariadbKeywords(std::string_view text);

// Splits a target (a URI or the keyword form); throws Error(Usage) with one line naming what is wrong
// and the target with its password masked.
MariadbTarget parseMariadbTarget(std::string_view text);

}  // namespace blobbench::mariadb
