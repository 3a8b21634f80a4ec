#include "engine/drivers/firebird/FirebirdDriver.h"

#include "engine/core/LoadParameters.h"
#include "engine/drivers/firebird/FirebirdClient.h"
#include "engine/drivers/firebird/FirebirdConnectionString.h"
#include "engine/drivers/firebird/FirebirdConstants.h"
#include "engine/drivers/firebird/FirebirdSession.h"
#include "engine/wire/WireParameters.h"

namespace blobbench {

using namespace firebird;

namespace {

// Built once: the specs are the same for every call, and a run asks for them at every statement.
std::vector<ParameterSpec> buildFirebirdParameters() {
    std::vector<ParameterSpec> specs;
    {
        ParameterSpec p;
        p.id = "wire_compression";
        p.label = "Wire compression";
        p.type = ParameterType::Boolean;
        p.defaultValue = "false";
        p.help =
            "zlib compression of the wire protocol (DPB config WireCompression=true); read back from "
            "fb_info_conn_flags";
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = "wire_crypt";
        p.label = "Wire encryption";
        p.type = ParameterType::Enum;
        p.choices = {"Required", "Enabled", "Disabled"};
        p.defaultValue = "Enabled";
        p.help = "Client WireCrypt setting (DPB config); the server's setting decides together with it";
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = "max_inline_blob_size";
        p.label = "Max inline BLOB size";
        p.type = ParameterType::Integer;
        p.defaultValue = std::to_string(kDefaultMaxInlineBlobSize);
        p.minimum = 0;
        p.maximum = 65535;
        p.unit = "B";
        p.help = "BLOBs up to this size travel with the row (0: off); DPB 104 and IStatement::setMaxInlineBlobSize";
        p.needs = "client and server >= 5.0.3";
        p.perStatement = true;
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = "max_blob_cache_size";
        p.label = "Max BLOB cache size";
        p.type = ParameterType::Integer;
        p.defaultValue = std::to_string(kDefaultMaxBlobCacheSize);
        p.minimum = 0;
        p.maximum = 1024LL * 1024 * 1024;
        p.unit = "B";
        p.scale = ParameterScale::Log;
        p.help = "Client memory for inline BLOBs per attachment (DPB 103)";
        p.needs = "client and server >= 5.0.3";
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = "blob_buffer_size";
        p.label = "BLOB read buffer";
        p.type = ParameterType::Integer;
        p.defaultValue = "65535";
        p.minimum = 1;
        p.maximum = 65535;
        p.unit = "B";
        p.help = "Buffer handed to IBlob::getSegment; a segment larger than it takes several calls";
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = "empty_bpb";
        p.label = "Empty BPB";
        p.type = ParameterType::Boolean;
        p.defaultValue = "true";
        p.help =
            "Open BLOBs with an empty BLOB parameter block; inline BLOBs are served from the client "
            "cache only then";
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = "isolation";
        p.label = "Transaction isolation";
        p.type = ParameterType::Enum;
        p.choices = {"read_committed", "snapshot", "snapshot_table_stability"};
        p.defaultValue = "snapshot";
        p.help = "Isolation of the transactions the session starts";
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = "create_database";
        p.label = "Create the database";
        p.type = ParameterType::Boolean;
        p.defaultValue = "false";
        p.help = "When the database file does not exist, create it (UTF8, page_size) instead of failing; for prepare";
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = "page_size";
        p.label = "Page size of a new database";
        p.type = ParameterType::Integer;
        p.defaultValue = "16384";
        p.minimum = 4096;
        p.maximum = 32768;
        p.unit = "B";
        p.scale = ParameterScale::PowerOfTwo;
        p.help = "Used only when create_database creates the database";
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = "connect_timeout";
        p.label = "Connect timeout";
        p.type = ParameterType::Integer;
        p.defaultValue = "15";
        p.minimum = 0;
        p.maximum = 3600;
        p.unit = "s";
        p.help =
            "Seconds the client waits for the server to accept the attachment (isc_dpb_connect_timeout); 0 "
            "leaves it to the client (firebird.conf ConnectionTimeout, 180 s by default)";
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = "statement_timeout";
        p.label = "Statement timeout";
        p.type = ParameterType::Integer;
        p.defaultValue = "0";
        p.minimum = 0;
        p.maximum = 24 * 3600 * 1000;
        p.unit = "ms";
        p.help =
            "SET STATEMENT TIMEOUT for the attachment; 0 = none. Firebird 4 and later: on a 3.0 server it is "
            "reported not in effect";
        p.needs = "server >= 4.0";
        specs.push_back(p);
    }
    {
        ParameterSpec p;
        p.id = "insert_method";
        p.label = "Insert method";
        p.type = ParameterType::Enum;
        p.choices = {"execute", "ibatch"};
        p.defaultValue = "execute";
        p.help =
            "How prepared INSERTs send their rows: one IStatement::execute each, or IBatch messages (BLOBs in "
            "the batch) executed when the transaction commits";
        p.needs = "client and server >= 4.0 for ibatch";
        specs.push_back(p);
    }
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

const std::vector<ParameterSpec>& FirebirdDriver::parameters() const {
    static const std::vector<ParameterSpec> specs = buildFirebirdParameters();
    return specs;
}

bool FirebirdDriver::accepts(std::string_view target) const {
    return looksLikeFirebirdTarget(target);
}

std::unique_ptr<Session> FirebirdDriver::connect(const ConnectionSpec& spec, const ParameterValues& values) const {
    const ParameterValues resolved = resolveParameters(parameters(), values);
    auto client = FirebirdClient::load(spec.clientLibrary);
    return std::make_unique<FirebirdSession>(std::move(client), spec, resolved);
}

std::optional<Endpoint> FirebirdDriver::endpoint(const ConnectionSpec& spec) const {
    const FirebirdTarget target = parseFirebirdTarget(spec.target);
    const auto port = target.tcpPort();
    if (!target.networked() || !port) {
        return std::nullopt;
    }
    Endpoint e;
    e.host = target.host.empty() ? "localhost" : target.host;
    e.port = *port;
    return e;
}

ConnectionSpec FirebirdDriver::redirected(const ConnectionSpec& spec, const Endpoint& to) const {
    FirebirdTarget target = parseFirebirdTarget(spec.target);
    if (!target.networked()) {
        return spec;  // embedded: nothing travels over TCP
    }
    target.host = to.host;
    target.port = std::to_string(to.port);
    if (target.scheme == "inet6" && to.host.find(':') == std::string::npos) {
        target.scheme = "inet";  // the relay listens on IPv4 loopback; it dials the server over IPv6
    }
    ConnectionSpec out = spec;
    out.target = target.toString();
    return out;
}

}  // namespace blobbench
