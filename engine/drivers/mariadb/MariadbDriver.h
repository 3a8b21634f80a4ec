#pragma once

#include "engine/drivers/Driver.h"

namespace blobbench {

// MariaDB and MySQL through MariaDB Connector/C (libmariadb). Connection strings are URIs,
// mariadb://user:password@host:port/database or mysql://... (MariadbConnectionString.h); TCP unless
// ?socket= names a Unix-domain socket.
class MariadbDriver final : public Driver {
public:
    std::string id() const override { return "mariadb"; }
    std::string displayName() const override { return "MariaDB / MySQL (Connector/C)"; }
    bool networked() const override { return true; }
    Dialect dialect() const override { return Dialect::MariaDB; }
    const std::vector<ParameterSpec>& parameters() const override;
    bool accepts(std::string_view target) const override;
    std::unique_ptr<Session> connect(const ConnectionSpec& spec, const ParameterValues& values) const override;
    std::optional<Endpoint> endpoint(const ConnectionSpec& spec) const override;
    ConnectionSpec redirected(const ConnectionSpec& spec, const Endpoint& to) const override;
};

// Tunable ids, declared in MariadbDriver::parameters().
namespace mariadbparam {
inline constexpr const char* Protocol = "protocol";           // text | binary
inline constexpr const char* Compression = "compression";     // off | zlib
inline constexpr const char* ResultMode = "result_mode";      // buffered | streamed | cursor
inline constexpr const char* PrefetchRows = "prefetch_rows";  // cursor: rows per COM_STMT_FETCH
inline constexpr const char* ReadPiece = "read_piece";        // binary: bytes of a value per fetch call
inline constexpr const char* ConnectTimeout = "connect_timeout";
inline constexpr const char* InsertMethod = "insert_method";           // binary | text-hex | long-data
inline constexpr const char* LongDataChunk = "long_data_chunk";        // bytes per COM_STMT_SEND_LONG_DATA
inline constexpr const char* MaxAllowedPacket = "max_allowed_packet";  // the client's (MYSQL_OPT_MAX_ALLOWED_PACKET)
inline constexpr const char* NetBufferLength = "net_buffer_length";    // the client's (MYSQL_OPT_NET_BUFFER_LENGTH)
}  // namespace mariadbparam

}  // namespace blobbench
