#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/CancelToken.h"
#include "engine/core/Parameter.h"
#include "engine/core/Sample.h"

namespace blobbench {

// Where to connect. `target` is what the engine's users write: a file path, a libpq conninfo or
// URI, a Firebird connection string. The password is held only in memory and never serialised.
struct ConnectionSpec {
    std::string engine;  // driver id: "sqlite", "firebird", "postgres", "mariadb", "files"
    std::string target;
    std::string user;
    std::string password;
    std::string role;
    std::string charset;        // empty: the engine's default (Firebird: UTF8)
    std::string clientLibrary;  // Firebird: path of libfbclient to load; empty: the system one
    bool readOnly = false;
    // A write that may create the database (prepare, the storage studies). Only then does SQLite
    // create a file that does not exist; a run, a read or a Test on a mistyped path fails instead.
    bool create = false;

    // Safe to print and save: engine and target, with any password in the target masked.
    std::string label() const;

    friend bool operator==(const ConnectionSpec&, const ConnectionSpec&) = default;
};

struct Endpoint {
    std::string host;
    std::uint16_t port = 0;
};

// Where a text holds a password: the value of password=... in a conninfo string, of user:password@
// in a URI (everything up to the last '@' before the host: a space, '/' or '@' included) and of
// ?password=... in a URI query.
// One pass over the text whatever its length (no std::regex: it recursed per character).
struct SecretRange {
    std::size_t begin = 0;
    std::size_t end = 0;  // one past the last character
};
std::vector<SecretRange> secretRanges(std::string_view text);
// The same for a connection string on its own (not a line of text around one): an unquoted
// password's value also takes the words after it that are no keyword=value ("password=my secret
// dbname=x", which libpq refuses, hides "my secret").
std::vector<SecretRange> targetSecretRanges(std::string_view target);

// The text with each of secretRanges() replaced by ***.
std::string maskSecrets(std::string_view text);
// A message for a terminal line (an error, a note): one line, secrets masked, control characters
// escaped. Every "blobbench-cli: ..." line goes through it: a server's or a library's words may
// quote the connection string (libpq's `missing "=" after "mariadb://u:SECRET@..."`) or a path
// holding escape sequences.
std::string terminalLine(std::string_view message);
// A connection string with each of targetSecretRanges() replaced by *** (what label() shows).
std::string maskTarget(std::string_view target);

// SQL families the reference suite and the data set loader speak.
enum class Dialect { SQLite, Firebird, PostgreSQL, MariaDB, None };

enum class ColumnKind { Integer, Real, Text, Binary, Boolean, Other };

struct ColumnInfo {
    std::string name;
    ColumnKind kind = ColumnKind::Other;
    bool isLob = false;  // BLOB / large object: read through a handle, maybe in segments
};

// Receives rows as they are fetched. A value may arrive in several chunks (a BLOB read in
// segments); the data is valid only during the call, so a sink never holds a whole result.
class RowSink {
public:
    virtual ~RowSink() = default;
    virtual void columns(const std::vector<ColumnInfo>& /*columns*/) {}
    virtual void integer(std::size_t column, std::int64_t value) = 0;
    virtual void real(std::size_t /*column*/, double /*value*/) {}
    virtual void null(std::size_t column) = 0;
    virtual void chunk(std::size_t column, std::string_view bytes) = 0;
    virtual void valueEnd(std::size_t /*column*/) {}
    virtual void lobSkipped(std::size_t /*column*/) {}  // ids-only mode: a LOB left unopened
    virtual void endRow() = 0;
};

enum class FetchMode {
    Content,  // read every value, LOBs included
    IdsOnly,  // fetch rows but do not open LOBs (the reference's "read only BLOB IDs")
};

// Boundaries inside one query, so that the caller can read counters (the wire tap) per phase.
enum class QueryPhase {
    Prepared,  // the statement is prepared; execute comes next
    Executed,  // executed / cursor open; the first fetch comes next
    Fetched,   // the last row is fetched and every value read
};

struct QuerySpec {
    std::string sql;
    FetchMode fetch = FetchMode::Content;
    std::optional<std::uint64_t> rowLimit;  // stop fetching after this many rows
    ParameterValues statementParameters;    // per-statement tunables (perStatement specs)
    // Called by the session at each boundary, on its own thread; may be empty. Drivers call it
    // right where they take their phase times, so timings and counts cover the same span.
    std::function<void(QueryPhase)> phaseMark;
    void mark(QueryPhase phase) const {
        if (phaseMark) {
            phaseMark(phase);
        }
    }
};

// What one query cost, measured by the session around its own calls.
struct QueryStats {
    Nanos prepare{0};
    Nanos execute{0};
    Nanos fetch{0};
    WireStats nativeLogical;
    WireStats nativePhysical;
    std::vector<ParameterEffect> statementEffects;  // per-statement tunables as really applied
};

// A prepared INSERT for loading data: bind the parameters of one row, then execute.
class InsertStatement {
public:
    virtual ~InsertStatement() = default;
    virtual void bindInteger(std::size_t index, std::int64_t value) = 0;
    virtual void bindBoolean(std::size_t index, bool value) = 0;
    virtual void bindNull(std::size_t index) = 0;
    virtual void bindText(std::size_t index, std::string_view utf8) = 0;  // a text column or text BLOB
    virtual void bindBytes(std::size_t index, std::string_view bytes) = 0;
    virtual void execute() = 0;
};

struct SessionInfo {
    std::string engine;
    std::string serverVersion;  // as the server reports it
    std::string clientVersion;
    std::vector<std::string> versionBanner;  // the engine's own version lines, for reports
    bool embedded = false;
    std::map<std::string, std::string> negotiated;
    std::vector<ParameterEffect> effects;
};

// One open connection. Not thread-safe, except cancel(), which another thread may call at any time.
class Session {
public:
    virtual ~Session() = default;
    virtual const SessionInfo& info() const = 0;
    virtual Dialect dialect() const = 0;

    virtual void execute(std::string_view sql) = 0;  // statements without a result
    virtual QueryStats query(const QuerySpec& spec, RowSink& sink,
                             const CancelToken& cancel) = 0;  // read-only: ReadOnly.h

    virtual void begin() = 0;
    virtual void commit() = 0;
    virtual void rollback() = 0;
    virtual std::unique_ptr<InsertStatement> prepareInsert(std::string_view sql) = 0;
    virtual bool tableExists(std::string_view name) = 0;

    // Interrupts the statement running on another thread; it then throws Error(Cancelled).
    virtual void cancel() {}
    // Why an in-process counter (engine/wire/SocketCounter.h) cannot see this session's bytes (its I/O
    // runs through a library whose socket calls are not the client library's: TLS), "" when it can.
    virtual std::string inProcessCountingBlind() const { return {}; }
};

// An engine: declares its tunables and opens sessions. Stateless; one instance per engine.
class Driver {
public:
    virtual ~Driver() = default;
    virtual std::string id() const = 0;
    virtual std::string displayName() const = 0;
    virtual bool networked() const = 0;
    virtual Dialect dialect() const = 0;
    virtual const std::vector<ParameterSpec>& parameters() const = 0;  // built once: the same for every call

    // Whether this driver takes the given connection string (used to pick an engine when none is named).
    virtual bool accepts(std::string_view target) const = 0;

    // `values` must come from resolveParameters(parameters(), ...). Throws Error(Connect) with the
    // engine's own words on failure.
    virtual std::unique_ptr<Session> connect(const ConnectionSpec& spec, const ParameterValues& values) const = 0;

    // Networked engines: the TCP endpoint the connection would reach, and the same connection
    // redirected to another endpoint (the wire tap's relay on 127.0.0.1). Embedded engines: none.
    virtual std::optional<Endpoint> endpoint(const ConnectionSpec& /*spec*/) const { return std::nullopt; }
    virtual ConnectionSpec redirected(const ConnectionSpec& spec, const Endpoint& /*to*/) const { return spec; }
};

}  // namespace blobbench
