// What an attachment really got: versions, protocol, compression and encryption, inline BLOBs,
// timeouts, the insert method and the client's wire counters, each tunable read back as a
// ParameterEffect (in effect, or not in effect with the reason).
#include <algorithm>
#include <string>
#include <vector>

#include "engine/drivers/firebird/FirebirdConstants.h"
#include "engine/drivers/firebird/FirebirdInfo.h"
#include "engine/drivers/firebird/FirebirdSession.h"

namespace blobbench::firebird {
namespace {

using Firebird::IStatus;
using Firebird::ThrowStatusWrapper;

class VersionLines final : public Firebird::IVersionCallbackImpl<VersionLines, ThrowStatusWrapper> {
public:
    void callback(ThrowStatusWrapper* /*status*/, const char* text) override { lines.emplace_back(text); }
    std::vector<std::string> lines;
};

ParameterEffect requested(const ParameterValues& values, const std::string& id) {
    ParameterEffect e;
    e.id = id;
    e.requested = textValue(values, id);
    return e;
}

// ".../P17:CZ" at the end of a version line: the protocol and its flags. Only the last "/P" can be
// followed by nothing but digits, ':' and capitals, so one look there is the whole search.
bool protocolOf(const std::string& v, std::string& digits, std::string& flags) {
    const auto at = v.rfind("/P");
    if (at == std::string::npos) {
        return false;
    }
    std::size_t i = at + 2;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') {
        ++i;
    }
    digits = v.substr(at + 2, i - at - 2);
    flags.clear();
    if (i < v.size() && v[i] == ':') {
        const std::size_t begin = ++i;
        while (i < v.size() && v[i] >= 'A' && v[i] <= 'Z') {
            ++i;
        }
        flags = v.substr(begin, i - begin);
    }
    return !digits.empty() && i == v.size();
}

std::string tooOld(const char* base, const FbVersion& client, const FbVersion& server, bool oldClient, bool oldServer) {
    if (oldClient && oldServer) {
        return base + ("client " + client.toString() + " and server " + server.toString() + " are older)");
    }
    if (oldClient) {
        return base + ("the client " + client.toString() + " is older)");
    }
    return base + ("the server " + server.toString() + " is older)");
}

}  // namespace

void FirebirdSession::readBackSettings(const ParameterValues& values) {
    const unsigned connFlags = readVersionsAndFlags();
    const bool compressed = connFlags & kConnFlagCompressed;
    const bool encrypted = connFlags & kConnFlagEncrypted;
    m_info.negotiated["compression"] = compressed ? "on" : "off";
    m_info.negotiated["encryption"] = encrypted ? "on" : "off";
    readServerContext();
    linkEffects(values, compressed, encrypted);
    inlineBlobEffects(values);
    timeoutEffects(values);
    insertMethodEffect(values);
    for (const char* id : {"blob_buffer_size", "empty_bpb", "isolation"}) {
        ParameterEffect e = requested(values, id);
        e.actual = e.requested;
        m_info.effects.push_back(e);
    }
    m_info.negotiated["inline_blobs"] = inlineBlobsPossible() ? "on" : "off";
    wireCountersAvailability();
}

unsigned FirebirdSession::readVersionsAndFlags() {
    VersionLines banner;
    m_client->util()->getFbVersion(&m_status, m_attachment, &banner);
    m_info.versionBanner = banner.lines;

    const unsigned char items[] = {isc_info_firebird_version, fb_info_conn_flags};
    unsigned char answer[1024] = {};
    m_attachment->getInfo(&m_status, sizeof items, items, sizeof answer, answer);
    std::vector<std::string> versions;
    unsigned connFlags = 0;
    walkInfo(answer, sizeof answer, [&](unsigned char item, const unsigned char* data, unsigned length) {
        if (item == isc_info_firebird_version && length > 0) {
            const unsigned char* p = data + 1;
            const unsigned char* end = data + length;
            for (unsigned i = 0; i < data[0] && p < end; ++i) {
                const unsigned n = *p++;
                versions.emplace_back(reinterpret_cast<const char*>(p), std::min<std::size_t>(n, end - p));
                p += n;
            }
        } else if (item == fb_info_conn_flags) {
            connFlags = static_cast<unsigned>(vaxInteger(data, length));
        }
    });
    if (!versions.empty()) {
        m_info.serverVersion = versions.front();
        m_serverVersion = parseFbVersion(versions.front());
    }
    for (const auto& v : versions) {
        std::string digits, flags;
        if (protocolOf(v, digits, flags)) {
            m_info.negotiated["protocol"] = digits;
            m_info.negotiated["protocol_flags"] = flags;
        }
    }
    return connFlags;
}

// The server's own view of the same link.
void FirebirdSession::readServerContext() {
    const auto context = firstRow(
        "SELECT RDB$GET_CONTEXT('SYSTEM', 'WIRE_COMPRESSED'), RDB$GET_CONTEXT('SYSTEM', 'WIRE_ENCRYPTED'), "
        "RDB$GET_CONTEXT('SYSTEM', 'NETWORK_PROTOCOL') FROM RDB$DATABASE");
    if (context.size() == 3) {
        m_info.negotiated["wire_compressed"] = context[0].value_or("");
        m_info.negotiated["wire_encrypted"] = context[1].value_or("");
        m_info.negotiated["network_protocol"] = context[2].value_or("");
    }
    if (m_info.embedded && m_info.negotiated["network_protocol"].empty()) {
        m_info.negotiated["compression"] = "not applicable (embedded)";
    } else {
        m_info.embedded = false;  // a local path may still reach the server through the loopback provider
    }
}

void FirebirdSession::linkEffects(const ParameterValues& values, bool compressed, bool encrypted) {
    ParameterEffect c = requested(values, "wire_compression");
    c.actual = compressed ? "true" : "false";
    if (m_info.embedded) {
        c.inEffect = false;
        c.reason = "not applicable (embedded)";
    } else if (c.actual != c.requested) {
        c.inEffect = false;
        c.reason = c.requested == "true" ? "the server did not accept compression (WireCompression, zlib)"
                                         : "compression is on although not requested (server or client firebird.conf)";
    }
    m_info.effects.push_back(c);

    ParameterEffect w = requested(values, "wire_crypt");
    w.actual = encrypted ? "encrypted" : "not encrypted";
    if (m_info.embedded) {
        w.inEffect = false;
        w.reason = "not applicable (embedded)";
    } else if ((w.requested == "Required" && !encrypted) || (w.requested == "Disabled" && encrypted)) {
        w.inEffect = false;
        w.reason = "the server's WireCrypt setting decided otherwise";
    }
    m_info.effects.push_back(w);
}

void FirebirdSession::inlineBlobEffects(const ParameterValues& values) {
    const bool inlinePossible = inlineBlobsPossible();
    std::uint64_t inlineSize = 0;
    std::uint64_t cacheSize = 0;
    if (inlinePossible) {
        const unsigned char more[] = {kInfoMaxBlobCacheSize, kInfoMaxInlineBlobSize};
        unsigned char reply[64] = {};
        m_attachment->getInfo(&m_status, sizeof more, more, sizeof reply, reply);
        walkInfo(reply, sizeof reply, [&](unsigned char item, const unsigned char* data, unsigned length) {
            if (item == kInfoMaxBlobCacheSize) {
                cacheSize = vaxInteger(data, length);
            } else if (item == kInfoMaxInlineBlobSize) {
                inlineSize = vaxInteger(data, length);
            }
        });
    }
    for (const char* id : {"max_inline_blob_size", "max_blob_cache_size"}) {
        ParameterEffect e = requested(values, id);
        if (inlinePossible) {
            e.actual = std::to_string(std::string(id) == "max_inline_blob_size" ? inlineSize : cacheSize);
        } else {
            e.inEffect = false;
            e.reason = inlineReason();
        }
        m_info.effects.push_back(e);
    }
}

void FirebirdSession::timeoutEffects(const ParameterValues& values) {
    ParameterEffect connect = requested(values, "connect_timeout");
    if (m_info.embedded && connect.requested != "0") {
        connect.inEffect = false;
        connect.reason = "not applicable (embedded)";
    } else {
        connect.actual = connect.requested;  // the client applies it; nothing to read back
    }
    m_info.effects.push_back(connect);

    // Statement timeouts exist from Firebird 4; a 3.0 server has no means, so it is never faked.
    ParameterEffect e = requested(values, "statement_timeout");
    if (e.requested == "0") {
        e.actual = "0";
    } else if (m_serverVersion < FbVersion{4, 0, 0}) {
        e.inEffect = false;
        e.reason = "not in effect (statement timeouts need a Firebird 4 server; the server is " +
                   m_serverVersion.toString() + ")";
    } else {
        const std::string set = "SET STATEMENT TIMEOUT " + e.requested + " MILLISECOND";
        m_attachment->execute(&m_status, nullptr, static_cast<unsigned>(set.size()), set.c_str(), kSqlDialect, nullptr,
                              nullptr, nullptr, nullptr);
        const auto back = firstRow("SELECT RDB$GET_CONTEXT('SYSTEM', 'STATEMENT_TIMEOUT') FROM RDB$DATABASE");
        e.actual = back.empty() ? "" : back[0].value_or("");
        if (e.actual != e.requested) {
            e.inEffect = false;
            e.reason = "the server reports a statement timeout of " + e.actual + " ms";
        }
    }
    m_info.effects.push_back(e);
}

void FirebirdSession::insertMethodEffect(const ParameterValues& values) {
    ParameterEffect e = requested(values, "insert_method");
    if (e.requested != "ibatch") {
        e.actual = e.requested;
    } else {
        constexpr FbVersion needed{4, 0, 0};
        const bool oldClient = m_client->version() < needed;
        const bool oldServer = m_serverVersion < needed;
        if (oldClient || oldServer) {
            e.inEffect = false;
            e.reason = tooOld("not in effect (IBatch needs client and server >= 4.0: ", m_client->version(),
                              m_serverVersion, oldClient, oldServer);
            e.actual = "execute";
        } else {
            e.actual = "ibatch";
            m_batchInserts = true;
        }
    }
    m_info.effects.push_back(e);
}

// Wire counters: asked only of a client that knows them, since a 3.0 client would forward the
// unknown items to the server and add a round trip to every measurement.
void FirebirdSession::wireCountersAvailability() {
    if (m_info.embedded) {
        m_wireCountersReason = "not applicable (embedded)";
    } else if (m_client->version() < FbVersion{5, 0, 2}) {
        m_wireCountersReason = "client " + m_client->version().toString() + " has no wire counters";
    } else if (readWireCounters()) {
        m_wireCounters = true;
    } else {
        m_wireCountersReason = "client " + m_client->version().toString() + " did not answer the wire counters";
    }
}

// Names the side that is too old (both, when both are), so the user knows which one to upgrade.
std::string FirebirdSession::inlineReason() const {
    constexpr FbVersion needed{5, 0, 3};
    if (m_info.embedded) {
        return "not in effect (needs client and server >= 5.0.3: an embedded attachment has no wire)";
    }
    return tooOld("not in effect (needs client and server >= 5.0.3: ", m_client->version(), m_serverVersion,
                  m_client->version() < needed, m_serverVersion < needed);
}

bool FirebirdSession::inlineBlobsPossible() const {
    return !m_info.embedded && m_client->version() >= FbVersion{5, 0, 3} && m_serverVersion >= FbVersion{5, 0, 3};
}

std::optional<FirebirdSession::Counters> FirebirdSession::readWireCounters() {
    const unsigned char items[] = {kInfoWireOutPackets, kInfoWireInPackets,  kInfoWireOutBytes,
                                   kInfoWireInBytes,    kInfoWireSndPackets, kInfoWireRcvPackets,
                                   kInfoWireSndBytes,   kInfoWireRcvBytes,   kInfoWireRoundtrips};
    unsigned char answer[256] = {};
    IStatus* raw = m_client->master()->getStatus();
    Firebird::CheckStatusWrapper st(raw);
    m_attachment->getInfo(&st, sizeof items, items, sizeof answer, answer);
    const bool failed = st.hasData();
    raw->dispose();
    if (failed) {
        return std::nullopt;
    }
    Counters c;
    int answered = 0;
    walkInfo(answer, sizeof answer, [&](unsigned char item, const unsigned char* data, unsigned length) {
        const std::uint64_t v = vaxInteger(data, length);
        ++answered;
        switch (item) {
            case kInfoWireOutPackets:
                c.logical.sendPackets = v;
                break;
            case kInfoWireInPackets:
                c.logical.recvPackets = v;
                break;
            case kInfoWireOutBytes:
                c.logical.sendBytes = v;
                break;
            case kInfoWireInBytes:
                c.logical.recvBytes = v;
                break;
            case kInfoWireSndPackets:
                c.physical.sendPackets = v;
                break;
            case kInfoWireRcvPackets:
                c.physical.recvPackets = v;
                break;
            case kInfoWireSndBytes:
                c.physical.sendBytes = v;
                break;
            case kInfoWireRcvBytes:
                c.physical.recvBytes = v;
                break;
            case kInfoWireRoundtrips:
                c.physical.roundTrips = v;
                break;
            default:
                --answered;  // isc_info_error and the like
                break;
        }
    });
    if (answered < 9) {
        return std::nullopt;
    }
    return c;
}

}  // namespace blobbench::firebird
