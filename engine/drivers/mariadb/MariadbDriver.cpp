#include "engine/drivers/mariadb/MariadbDriver.h"

#include "engine/core/Error.h"
#include "engine/core/LoadParameters.h"
#include "engine/drivers/mariadb/MariadbConnectionString.h"
#include "engine/drivers/mariadb/MariadbSession.h"
#include "engine/wire/WireParameters.h"

namespace blobbench {
namespace {

ParameterSpec enumSpec(std::string id, std::string label, std::vector<std::string> choices, std::string help,
                       bool perStatement) {
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

mariadb::MariadbTarget targetOf(const ConnectionSpec& spec) {
    return mariadb::parseMariadbTarget(spec.target);
}

}  // namespace

namespace {

// Built once: the specs are the same for every call, and a run asks for them at every statement.
std::vector<ParameterSpec> buildMariadbParameters() {
    namespace param = mariadbparam;
    std::vector<ParameterSpec> specs;
    specs.push_back(enumSpec(param::Protocol, "Protocol", {"text", "binary"},
                             "text: COM_QUERY, every value sent as text in the row (mysql_real_query); binary: "
                             "a prepared statement (COM_STMT_PREPARE / COM_STMT_EXECUTE), values in their binary "
                             "form, strings and BLOBs read with mysql_stmt_fetch_column in pieces.",
                             true));
    specs.push_back(enumSpec(param::Compression, "Compression", {"off", "zlib", "zstd"},
                             "Protocol compression (MYSQL_OPT_COMPRESS, zlib). Read back from the server's "
                             "SHOW SESSION STATUS LIKE 'Compression'. zstd is reported not in effect and the "
                             "session runs uncompressed: MariaDB servers compress with zlib only (zstd is "
                             "MySQL 8.0.18+), and Debian 12's libmariadb3 has no zstd.",
                             false));
    specs.push_back(enumSpec(param::ResultMode, "Result mode", {"streamed", "buffered", "cursor"},
                             "streamed: rows read from the socket as they are fetched (mysql_use_result, a "
                             "statement without mysql_stmt_store_result); buffered: the whole result in client "
                             "memory before the first row (mysql_store_result, mysql_stmt_store_result); cursor "
                             "(binary protocol): a read-only server-side cursor, prefetch_rows rows per "
                             "COM_STMT_FETCH round trip (STMT_ATTR_CURSOR_TYPE, STMT_ATTR_PREFETCH_ROWS).",
                             true));
    auto perStatement = [](ParameterSpec spec) {
        spec.perStatement = true;
        return spec;
    };
    specs.push_back(perStatement(
        integerSpec(param::PrefetchRows, "Prefetch rows", 1, 1, 1000000, "rows",
                    "Rows the server sends per COM_STMT_FETCH with result_mode=cursor (one round trip each).",
                    ParameterScale::Log)));
    specs.push_back(perStatement(integerSpec(
        param::ReadPiece, "Read piece", 65536, 1024, 64 * 1024 * 1024, "B",
        "Binary protocol: a string or BLOB value is read into a buffer of at most this size (sized from the "
        "column's length), the rest with mysql_stmt_fetch_column in pieces of this size; a piece as large as "
        "the longest value reads each whole. The text protocol hands each row whole: not in effect there.",
        ParameterScale::PowerOfTwo)));
    specs.push_back(integerSpec(
        param::ConnectTimeout, "Connect timeout", 15, 0, 3600, "s",
        "MYSQL_OPT_CONNECT_TIMEOUT; a connect_timeout in the connection string wins; 0 leaves it to libmariadb."));
    specs.push_back(enumSpec(param::InsertMethod, "Insert method", {"binary", "text-hex", "long-data"},
                             "How inserts send values (the data set's load, the insert study): binary: a prepared "
                             "statement, each value whole in COM_STMT_EXECUTE; text-hex: COM_QUERY with each BLOB "
                             "as an X'...' literal (twice its size on the wire) and text escaped; long-data: a "
                             "prepared statement whose BLOB and text values go first in COM_STMT_SEND_LONG_DATA "
                             "chunks (no reply per chunk), then COM_STMT_EXECUTE without them.",
                             true));
    specs.push_back(perStatement(integerSpec(
        param::LongDataChunk, "Long-data chunk", 65536, 1024, 16 * 1024 * 1024, "B",
        "Bytes per COM_STMT_SEND_LONG_DATA packet with insert_method=long-data.", ParameterScale::PowerOfTwo)));
    for (const auto& [id, label, maximum, help] :
         {std::tuple{param::MaxAllowedPacket, "Client max_allowed_packet", std::int64_t{1} << 30,
                     "The client's largest packet (MYSQL_OPT_MAX_ALLOWED_PACKET): a value received above it fails "
                     "its statement. MariaDB makes the server's session value read-only, so the server keeps its "
                     "own (shown beside it). 0: libmariadb's default."},
          std::tuple{param::NetBufferLength, "Client net_buffer_length", std::int64_t{1} << 20,
                     "The client's network buffer (MYSQL_OPT_NET_BUFFER_LENGTH); the server keeps its own "
                     "(read-only for a session). 0: libmariadb's default."}}) {
        specs.push_back(integerSpec(id, label, 0, 0, maximum, "B", help, ParameterScale::PowerOfTwo));
    }
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

const std::vector<ParameterSpec>& MariadbDriver::parameters() const {
    static const std::vector<ParameterSpec> specs = buildMariadbParameters();
    return specs;
}

bool MariadbDriver::accepts(std::string_view target) const {
    return mariadb::looksLikeMariadbTarget(target);
}

std::unique_ptr<Session> MariadbDriver::connect(const ConnectionSpec& spec, const ParameterValues& values) const {
    MariadbSession::Params params;
    params.target = targetOf(spec);
    params.user = spec.user.empty() ? params.target.user : spec.user;
    params.hasPassword = !spec.password.empty() || params.target.hasPassword;
    params.password = !spec.password.empty() ? spec.password : params.target.password;
    params.compress = textValue(values, mariadbparam::Compression) == "zlib";
    params.connectTimeout = static_cast<unsigned>(integerValue(values, mariadbparam::ConnectTimeout));
    params.maxAllowedPacket = static_cast<unsigned long>(integerValue(values, mariadbparam::MaxAllowedPacket));
    params.netBufferLength = static_cast<unsigned long>(integerValue(values, mariadbparam::NetBufferLength));
    if (const auto it = params.target.options.find("connect_timeout"); it != params.target.options.end()) {
        params.connectTimeout = static_cast<unsigned>(std::stoul(it->second));
    }
    auto session = std::make_unique<MariadbSession>(std::move(params), spec.label(), values);
    session->start();
    return session;
}

std::optional<Endpoint> MariadbDriver::endpoint(const ConnectionSpec& spec) const {
    const auto target = targetOf(spec);
    if (target.usesSocket()) {
        return std::nullopt;
    }
    return Endpoint{target.host.empty() ? "localhost" : target.host, target.tcpPort()};
}

ConnectionSpec MariadbDriver::redirected(const ConnectionSpec& spec, const Endpoint& to) const {
    auto target = targetOf(spec);
    target.host = to.host;
    target.port = to.port;
    ConnectionSpec out = spec;
    out.target = target.toString();
    return out;
}

}  // namespace blobbench
