#include "engine/drivers/postgres/PostgresDriver.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "engine/core/LoadParameters.h"
#include "engine/drivers/postgres/PgCommon.h"
#include "engine/drivers/postgres/PostgresSession.h"
#include "engine/wire/WireParameters.h"

namespace blobbench {
namespace {

ParameterSpec enumSpec(std::string id, std::string label, std::vector<std::string> choices, std::string help,
                       bool perStatement = false) {
    ParameterSpec spec;
    spec.id = std::move(id);
    spec.label = std::move(label);
    spec.type = ParameterType::Enum;
    spec.defaultValue = choices.front();
    spec.choices = std::move(choices);
    spec.help = std::move(help);
    spec.perStatement = perStatement;
    return spec;
}

ParameterSpec booleanSpec(std::string id, std::string label, bool def, std::string help) {
    ParameterSpec spec;
    spec.id = std::move(id);
    spec.label = std::move(label);
    spec.type = ParameterType::Boolean;
    spec.defaultValue = def ? "true" : "false";
    spec.help = std::move(help);
    return spec;
}

struct ConninfoDeleter {
    void operator()(PQconninfoOption* options) const { PQconninfoFree(options); }
};
using Conninfo = std::unique_ptr<PQconninfoOption, ConninfoDeleter>;

// libpq ends a URI's user info at the first '/' as well as '@': with "postgresql://u:pa/ss@h/db" it
// reads "u:pa" as host and port, and its errors would then quote the password's first part as a port.
void refuseSlashInUriPassword(const std::string& target) {
    for (const SecretRange& r : secretRanges(target)) {
        const bool userInfo =
            r.begin > 0 && target[r.begin - 1] == ':' && r.end < target.size() && target[r.end] == '@';
        if (userInfo && target.find('/', r.begin) < r.end) {
            throw Error(ErrorKind::Usage, "postgres:" + maskSecrets(target) +
                                              ": the password in the URI holds a '/', which libpq reads as the end "
                                              "of the host: write it as %2F (or give it with -p or PGPASSWORD)");
        }
        if (userInfo && target.find('@', r.begin) < r.end) {
            throw Error(ErrorKind::Usage, "postgres:" + maskSecrets(target) +
                                              ": the password in the URI holds a '@', which libpq reads as the end "
                                              "of the password: write it as %40 (or give it with -p or PGPASSWORD)");
        }
    }
}

// libpq's own parse of a conninfo string or URI; the keyword -> value pairs that were given.
std::map<std::string, std::string> parseTarget(const std::string& target) {
    std::map<std::string, std::string> out;
    if (target.empty()) {
        return out;
    }
    refuseSlashInUriPassword(target);
    char* error = nullptr;
    Conninfo options(PQconninfoParse(target.c_str(), &error));
    if (!options) {
        std::string message = error ? oneLine(error) : "out of memory";
        PQfreemem(error);
        const auto secrets = targetSecretRanges(target);
        const std::string label = ConnectionSpec{"postgres", target}.label();
        if (secrets.empty()) {
            throw Error(ErrorKind::Usage, label + ": " + message);
        }
        // libpq quotes the word it could not read, which may be the password's second word
        // ("password=my secret"): the label hides it, and so do libpq's words.
        const std::size_t hidden = secrets.front().begin;
        std::string said;
        for (std::size_t at = 0; at < message.size();) {
            const std::size_t open = message.find('"', at);
            const std::size_t close = open == std::string::npos ? open : message.find('"', open + 1);
            if (close == std::string::npos) {
                said += message.substr(at);
                break;
            }
            const std::string word = message.substr(open + 1, close - open - 1);
            const bool secret = word != "=" && (word.size() > 256 || target.find(word, hidden) != std::string::npos);
            said += message.substr(at, open + 1 - at) + (secret ? "***" : word) + '"';
            at = close + 1;
        }
        throw Error(ErrorKind::Usage, label + ": " + said +
                                          " (a password with spaces is written password='...', or given with -p or "
                                          "PGPASSWORD)");
    }
    for (const PQconninfoOption* option = options.get(); option->keyword; ++option) {
        if (option->val) {
            out[option->keyword] = option->val;
        }
    }
    return out;
}

std::string firstOfList(const std::string& list) {
    return list.substr(0, list.find(','));
}

std::string fromEnvironment(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

bool isSocketPath(const std::string& host) {
    return !host.empty() && (host.front() == '/' || host.front() == '@');
}

// conninfo quoting: single quotes around every value, backslash before ' and \.
std::string quoted(const std::string& value) {
    std::string out = "'";
    for (char c : value) {
        if (c == '\'' || c == '\\') {
            out.push_back('\\');
        }
        out.push_back(c);
    }
    out.push_back('\'');
    return out;
}

// What libpq itself makes of a connection before it connects: the service file (service=,
// PGSERVICE, PGSERVICEFILE), the environment, its defaults and the password file (PGPASSFILE,
// ~/.pgpass), looked up for the host and port the user named. The relay's host and port would find
// nothing in the password file, so redirected() passes on what the real ones find. No connection is
// made: an invalid channel_binding, which libpq checks right after the password file, stops it
// there (any other error means the options did not resolve, and the real connect reports it).
struct Resolved {
    std::string host, hostaddr, port, password;
};

// libpq reads a start-up ErrorResponse longer than 30,000 bytes as a pre-3.0 server's message,
// a C string that begins at the length word's zero byte: the reason is lost and the message ends
// in "failed:". Said in our words, since libpq's alone look like a sentence cut off.
std::string withLostStartupReason(std::string text) {
    static constexpr std::string_view kFailed = "failed:";
    static constexpr std::string_view kLost =
        " (no reason: the server's error was too long for libpq to keep, above 30,000 bytes, or empty)";
    for (std::size_t at = text.find(kFailed); at != std::string::npos; at = text.find(kFailed, at + 1)) {
        const std::size_t after = at + kFailed.size();
        if (after == text.size() || text.compare(after, 22, " connection to server ") == 0) {
            text.insert(after, kLost);
        }
    }
    return text;
}

std::optional<Resolved> resolveWithLibpq(const ConnectionSpec& spec);

// endpoint(), redirected() and connect() of one connection: libpq reads the password file (and
// prints its warning about a file others may read) once, not once a call.
struct ResolvedCache {
    std::mutex mutex;
    std::string key;
    std::optional<Resolved> resolved;
    static std::string keyOf(const ConnectionSpec& spec) {
        std::string key = spec.target + '\n' + spec.user + '\n' + spec.password;
        for (char** variable = environ; variable != nullptr && *variable != nullptr; ++variable) {
            if (std::string_view(*variable).starts_with("PG")) {  // libpq's environment is part of it
                key += '\n';
                key += *variable;
            }
        }
        return key;
    }
};
ResolvedCache& resolvedCache() {
    static ResolvedCache cache;
    return cache;
}

std::optional<Resolved> resolvedByLibpq(const ConnectionSpec& spec) {
    ResolvedCache& cache = resolvedCache();
    const std::string key = ResolvedCache::keyOf(spec);
    std::lock_guard lock(cache.mutex);
    if (key != cache.key) {
        cache.resolved = resolveWithLibpq(spec);
        cache.key = key;
    }
    return cache.resolved;
}

// The resolution endpoint() made for this very spec, if any (none is made here).
std::optional<Resolved> alreadyResolved(const ConnectionSpec& spec) {
    ResolvedCache& cache = resolvedCache();
    std::lock_guard lock(cache.mutex);
    return cache.key == ResolvedCache::keyOf(spec) ? cache.resolved : std::nullopt;
}

constexpr const char* kNoPasswordFile = "/nonexistent/blobbench: the password file was read once, before";

bool namesPasswordFile(const std::string& target) {
    try {
        return parseTarget(target).count("passfile") > 0;
    } catch (const Error&) {
        return true;  // libpq reports the syntax: left as it is
    }
}

std::optional<Resolved> resolveWithLibpq(const ConnectionSpec& spec) {
    static constexpr const char* kStop = "blobbench-resolve-only";
    std::vector<const char*> keywords{"dbname"}, values{spec.target.c_str()};
    if (!spec.user.empty()) {
        keywords.push_back("user");
        values.push_back(spec.user.c_str());
    }
    if (!spec.password.empty()) {
        keywords.push_back("password");
        values.push_back(spec.password.c_str());
    }
    keywords.push_back("channel_binding");
    values.push_back(kStop);
    keywords.push_back(nullptr);
    values.push_back(nullptr);
    std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectStartParams(keywords.data(), values.data(), 1),
                                                      &PQfinish);
    const char* message = conn ? PQerrorMessage(conn.get()) : nullptr;
    if (!conn || PQstatus(conn.get()) != CONNECTION_BAD || !message ||
        std::string_view(message).find(kStop) == std::string_view::npos) {
        return std::nullopt;
    }
    Resolved out;
    Conninfo options(PQconninfo(conn.get()));
    for (const PQconninfoOption* option = options.get(); option && option->keyword; ++option) {
        const std::string_view keyword = option->keyword;
        std::string value = option->val ? option->val : "";
        if (keyword == "host") {
            out.host = std::move(value);
        } else if (keyword == "hostaddr") {
            out.hostaddr = std::move(value);
        } else if (keyword == "port") {
            out.port = std::move(value);
        }
    }
    out.password = PQpass(conn.get()) ? PQpass(conn.get()) : "";
    return out;
}

}  // namespace

namespace {

// Built once: the specs are the same for every call, and a run asks for them at every statement.
std::vector<ParameterSpec> buildPostgresParameters() {
    namespace param = pg::param;
    std::vector<ParameterSpec> specs;
    specs.push_back(enumSpec(param::ResultFormat, "Result format", {"text", "binary"},
                             "Format libpq asks the server to send result values in (resultFormat of "
                             "PQsendQueryPrepared / FETCH). Text is what psql and most drivers use.",
                             true));
    specs.push_back(enumSpec(param::ByteaOutput, "bytea_output", {"hex", "escape"},
                             "How the server renders bytea in text format: hex is 2 + 2n characters for n "
                             "bytes, escape keeps printable ASCII as one byte and writes the rest as \\ooo."));
    specs.push_back(booleanSpec(param::StandardStrings, "standard_conforming_strings", true,
                                "SET standard_conforming_strings: off makes backslashes in '...' literals escapes "
                                "(the literal insert methods double them)."));
    specs.push_back(enumSpec(param::FetchMode, "Fetch mode", {"single_row", "cursor", "whole"},
                             "single_row: PQsetSingleRowMode, one row in memory at a time; cursor: DECLARE + "
                             "FETCH n; whole: the complete result in client memory before the first row.",
                             true));
    auto fetchSize = integerSpec(param::FetchSize, "Cursor fetch size", 100, 1, 1'000'000, "rows",
                                 "Rows per FETCH in cursor mode.", ParameterScale::Log);
    fetchSize.perStatement = true;
    specs.push_back(fetchSize);
    specs.push_back(booleanSpec(param::DecodeTextBytea, "Decode text bytea", false,
                                "Hand decoded bytes (PQunescapeBytea) to the reader instead of the hex/escape "
                                "text as received; content bytes then count the decoded length."));
    specs.push_back(enumSpec(param::ParamFormat, "Parameter format", {"binary", "text"},
                             "Format of bound insert parameters: binary sends bytea as is, text sends \\x hex."));
    specs.push_back(enumSpec(param::InsertMethod, "Insert method",
                             {"prepared", "literal", "literal_legacy", "copy_text", "copy_binary"},
                             "prepared: PQexecPrepared; literal: SQL text with PQescapeByteaConn (hex) and "
                             "PQescapeLiteral; literal_legacy: PQescapeBytea (escape form); copy_text / "
                             "copy_binary: COPY ... FROM STDIN. Large-object (oid) columns are written with "
                             "lo_write whatever the method."));
    auto pipeline = booleanSpec(param::Pipeline, "Pipeline inserts", false,
                                "Send prepared inserts in libpq pipeline mode, syncing every 256 rows.");
    pipeline.needs = "libpq >= 14";
    specs.push_back(pipeline);
    specs.push_back(integerSpec(param::LoChunkSize, "Large object chunk", 8192, 1, 64 * 1024 * 1024, "B",
                                "Bytes per lo_write / lo_read call (lo_import uses 8 KiB).", ParameterScale::Log));
    specs.push_back(enumSpec(param::SslMode, "sslmode",
                             {"libpq", "disable", "allow", "prefer", "require", "verify-ca", "verify-full"},
                             "libpq sslmode; 'libpq' leaves it to the connection string, PGSSLMODE or libpq's "
                             "default (prefer)."));
    specs.push_back(integerSpec(param::ConnectTimeout, "Connect timeout", 15, 0, 3600, "s",
                                "libpq connect_timeout: seconds to wait for the connection (per host). A "
                                "connect_timeout in the connection string wins over this value; 0 leaves it to the "
                                "connection string or libpq (PGCONNECT_TIMEOUT, else wait forever)."));
    specs.push_back(integerSpec(param::StatementTimeout, "Statement timeout", 0, 0, 24 * 3600 * 1000, "ms",
                                "SET statement_timeout; 0 = none."));
    specs.push_back(enumSpec(param::ToastCompression, "default_toast_compression", {"server", "pglz", "lz4"},
                             "SET default_toast_compression for values inserted by this session into columns "
                             "without their own COMPRESSION; 'server' keeps the server's setting."));
    specs.push_back(enumSpec(param::ColumnStorage, "Column STORAGE", {"default", "extended", "external", "main"},
                             "ALTER TABLE ... SET STORAGE on the bytea/text columns of a table before rows are "
                             "inserted into it (prepareInsert); 'default' leaves the table alone."));
    specs.push_back(enumSpec(param::ColumnCompression, "Column COMPRESSION", {"default", "pglz", "lz4"},
                             "ALTER TABLE ... SET COMPRESSION on the bytea/text columns of a table before rows "
                             "are inserted into it (prepareInsert); 'default' leaves the table alone."));
    // The tap and the emulated link: applied by the Runner, never by this driver.
    for (const auto& spec : wireParameters()) {
        specs.push_back(spec);
    }
    // Sessions at once: applied by the run (SessionRunner), never by this driver.
    for (auto& spec : loadParameters()) {
        specs.push_back(std::move(spec));
    }
    return specs;
}

}  // namespace

const std::vector<ParameterSpec>& PostgresDriver::parameters() const {
    static const std::vector<ParameterSpec> specs = buildPostgresParameters();
    return specs;
}

bool PostgresDriver::accepts(std::string_view target) const {
    auto startsWith = [&](std::string_view prefix) {
        return target.size() >= prefix.size() &&
               std::equal(prefix.begin(), prefix.end(), target.begin(),
                          [](char p, char t) { return std::tolower(static_cast<unsigned char>(t)) == p; });
    };
    if (startsWith("postgresql://") || startsWith("postgres://")) {
        return true;
    }
    // conninfo: "keyword=value ..." where libpq knows the keyword (so "a=b.db" paths are not taken).
    std::size_t i = 0;
    while (i < target.size() && std::isspace(static_cast<unsigned char>(target[i]))) {
        ++i;
    }
    std::size_t start = i;
    while (i < target.size() && (std::isalnum(static_cast<unsigned char>(target[i])) || target[i] == '_')) {
        ++i;
    }
    std::size_t end = i;
    while (i < target.size() && std::isspace(static_cast<unsigned char>(target[i]))) {
        ++i;
    }
    if (end == start || i >= target.size() || target[i] != '=') {
        return false;
    }
    char* error = nullptr;
    Conninfo options(PQconninfoParse(std::string(target).c_str(), &error));
    PQfreemem(error);
    return options != nullptr;
}

std::unique_ptr<Session> PostgresDriver::connect(const ConnectionSpec& spec, const ParameterValues& values) const {
    namespace param = pg::param;
    // Keywords are processed in order and the last one wins: dbname first (expanded as a conninfo or URI),
    // then what the ConnectionSpec and the tunables set explicitly.
    std::vector<std::pair<std::string, std::string>> pairs;
    // Before dbname: a connect_timeout written in the connection string overrides the tunable.
    if (const auto timeout = integerValue(values, param::ConnectTimeout); timeout > 0) {
        pairs.emplace_back("connect_timeout", std::to_string(timeout));
    }
    if (!spec.target.empty()) {
        pairs.emplace_back("dbname", spec.target);
    }
    if (!spec.user.empty()) {
        pairs.emplace_back("user", spec.user);
    }
    if (!spec.password.empty()) {
        pairs.emplace_back("password", spec.password);
    }
    if (const std::string& sslmode = textValue(values, param::SslMode); sslmode != "libpq") {
        pairs.emplace_back("sslmode", sslmode);
    }
    pairs.emplace_back("fallback_application_name", "blobbench");
    // Connected without a relay after endpoint() (the in-process counter): what the password file
    // gave then is used, not read again.
    std::string filePassword;
    if (const auto resolved = alreadyResolved(spec); resolved && !namesPasswordFile(spec.target)) {
        if (spec.password.empty() && !resolved->password.empty()) {
            filePassword = resolved->password;
            pairs.emplace_back("password", filePassword);
        }
        pairs.emplace_back("passfile", kNoPasswordFile);
    }

    std::vector<const char*> keywords;
    std::vector<const char*> settings;
    for (const auto& [keyword, value] : pairs) {
        keywords.push_back(keyword.c_str());
        settings.push_back(value.c_str());
    }
    keywords.push_back(nullptr);
    settings.push_back(nullptr);

    // Secrets to scrub from any message: the spec's password and one written into the target.
    std::vector<std::string> secrets;
    if (!spec.password.empty()) {
        secrets.push_back(spec.password);
    }
    if (!filePassword.empty()) {
        secrets.push_back(filePassword);
    }
    refuseSlashInUriPassword(spec.target);
    try {
        auto given = parseTarget(spec.target);
        if (auto it = given.find("password"); it != given.end() && !it->second.empty()) {
            secrets.push_back(it->second);
        }
    } catch (const Error&) {
        if (!targetSecretRanges(spec.target).empty()) {
            throw;  // libpq's own words on connect would quote a part of the password
        }
        // Otherwise libpq reports the same syntax error on connect, in its own words.
    }

    PGconn* conn = PQconnectdbParams(keywords.data(), settings.data(), 1);
    auto session = std::make_unique<PostgresSession>(conn, spec.label(), std::move(secrets), values);
    if (!conn || PQstatus(conn) != CONNECTION_OK) {
        throw Error(ErrorKind::Connect,
                    spec.label() + ": connect: " + withLostStartupReason(session->scrub(pg::messageOf(conn, nullptr))));
    }
    session->start();
    return session;
}

std::optional<Endpoint> PostgresDriver::endpoint(const ConnectionSpec& spec) const {
    auto given = parseTarget(spec.target);
    const auto resolved = resolvedByLibpq(spec);
    auto pick = [&](const char* keyword, const char* variable, const std::string& libpqValue) {
        if (resolved) {
            return firstOfList(libpqValue);
        }
        auto it = given.find(keyword);
        std::string value = it != given.end() ? it->second : fromEnvironment(variable);
        return firstOfList(value);
    };
    std::string host = pick("hostaddr", "PGHOSTADDR", resolved ? resolved->hostaddr : "");
    if (host.empty()) {
        host = pick("host", "PGHOST", resolved ? resolved->host : "");
    }
    if (isSocketPath(host)) {
        return std::nullopt;  // a Unix-domain socket: nothing a TCP relay can stand in front of
    }
    if (host.empty()) {
        host = "localhost";  // libpq would use its default socket; the TCP equivalent is localhost
    }
    std::string portText = pick("port", "PGPORT", resolved ? resolved->port : "");
    Endpoint endpoint;
    endpoint.host = host;
    endpoint.port = 5432;
    if (!portText.empty()) {
        char* end = nullptr;
        long port = std::strtol(portText.c_str(), &end, 10);
        if (*end != '\0' || port <= 0 || port > 65535) {
            throw Error(ErrorKind::Usage, spec.label() + ": port '" + portText + "' is not a TCP port");
        }
        endpoint.port = static_cast<std::uint16_t>(port);
    }
    return endpoint;
}

ConnectionSpec PostgresDriver::redirected(const ConnectionSpec& spec, const Endpoint& to) const {
    auto given = parseTarget(spec.target);
    const auto resolved = resolvedByLibpq(spec);
    // Keep a host *name* as host: libpq then still uses it for SSL verify-full and SNI while hostaddr
    // decides where the TCP connection goes. hostaddr also beats a PGHOSTADDR in the environment.
    std::string host = firstOfList(resolved              ? resolved->host
                                   : given.count("host") ? given["host"]
                                                         : fromEnvironment("PGHOST"));
    // The password file is looked up under the real host and port (libpq would ask it for the relay's).
    if (resolved && !resolved->password.empty() && spec.password.empty() &&
        (given.find("password") == given.end() || given["password"].empty())) {
        given["password"] = resolved->password;
    }
    // Nor does the connection through the relay read the file again: it would find nothing the
    // real host and port did not, and libpq would repeat its warning (a path that cannot exist: no file).
    if (resolved && given.find("passfile") == given.end()) {
        given["passfile"] = kNoPasswordFile;
    }
    if (host.empty() || isSocketPath(host)) {
        host = to.host;
    }
    in6_addr address{};
    if (inet_pton(AF_INET, to.host.c_str(), &address) == 1 || inet_pton(AF_INET6, to.host.c_str(), &address) == 1) {
        given["host"] = host;
        given["hostaddr"] = to.host;
    } else {
        given["host"] = to.host;
        given.erase("hostaddr");
    }
    given["port"] = std::to_string(to.port);
    std::string conninfo;
    for (const auto& [keyword, value] : given) {
        conninfo += (conninfo.empty() ? "" : " ") + keyword + "=" + quoted(value);
    }
    ConnectionSpec out = spec;
    out.target = conninfo;
    return out;
}

}  // namespace blobbench
