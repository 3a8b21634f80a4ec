#pragma once

// Codes that Debian's 3.0 headers (ibase.h) lack: they come from Firebird 5.0.2/5.0.3. Defined here,
// and only ever sent to a client or server whose version is known to understand them.
namespace blobbench::firebird {

// Attachment info items answered by a 5.0.2+ remote client (client-side counters, remote only).
constexpr unsigned char kInfoWireOutPackets = 150;  // logical: packets handed to the wire layer
constexpr unsigned char kInfoWireInPackets = 151;
constexpr unsigned char kInfoWireOutBytes = 152;
constexpr unsigned char kInfoWireInBytes = 153;
constexpr unsigned char kInfoWireSndPackets = 154;  // physical: socket sends after compression
constexpr unsigned char kInfoWireRcvPackets = 155;
constexpr unsigned char kInfoWireSndBytes = 156;
constexpr unsigned char kInfoWireRcvBytes = 157;
constexpr unsigned char kInfoWireRoundtrips = 158;

// 5.0.3 (protocol 19): inline BLOBs and the client BLOB cache.
constexpr unsigned char kInfoMaxBlobCacheSize = 159;
constexpr unsigned char kInfoMaxInlineBlobSize = 160;
constexpr unsigned char kDpbMaxBlobCacheSize = 103;
constexpr unsigned char kDpbMaxInlineBlobSize = 104;

// fb_info_conn_flags bits.
constexpr unsigned kConnFlagCompressed = 0x01;
constexpr unsigned kConnFlagEncrypted = 0x02;

// IStatement gained get/setMaxInlineBlobSize in interface version 6 (5.0.3).
constexpr unsigned kStatementVersionInlineBlobs = 6;

constexpr unsigned kSqlDialect = 3;

constexpr int kDefaultMaxInlineBlobSize = 65535;
constexpr int kDefaultMaxBlobCacheSize = 10 * 1024 * 1024;

}  // namespace blobbench::firebird
