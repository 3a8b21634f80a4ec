#include "model/SampleJson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStringList>
#include <algorithm>
#include <cmath>

#include "engine/core/Error.h"
#include "model/AtomicFile.h"
#include "model/ProjectFile.h"

namespace blobbench {
namespace {

constexpr qint64 kMaxSamplesFileBytes = qint64(512) * 1024 * 1024;  // as a project file

QJsonValue number(std::uint64_t n) {
    return QJsonValue(static_cast<qint64>(n));
}
qint64 nanos(Nanos n) {
    return static_cast<qint64>(n.count());
}

}  // namespace

QByteArray traceToBase64(const ExchangeTrace& trace) {
    if (trace.exchanges.size() > kMaxTraceExchanges) {
        return {};
    }
    const std::string bytes = encodeExchangeTrace(trace);
    QByteArray text = QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())).toBase64();
    return text.size() <= kMaxTraceChars ? text : QByteArray();
}

namespace {

QByteArray fromBase64(const QString& text) {
    auto decoded = QByteArray::fromBase64Encoding(text.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded) {
        throw Error(ErrorKind::Data, "exchange trace: not base64");
    }
    return std::move(*decoded);
}

std::string_view view(const QByteArray& bytes) {
    return {bytes.constData(), static_cast<std::size_t>(bytes.size())};
}

}  // namespace

ExchangeTrace traceFromBase64(const QString& text) {
    return decodeExchangeTrace(view(fromBase64(text)));
}

std::optional<ExchangeTrace> traceFromBase64OrKeep(const QString& text) {
    return decodeExchangeTraceOrKeep(view(fromBase64(text)));
}

QByteArray savedTrace(const Sample& s) {
    if (s.trace) {
        return traceToBase64(*s.trace);
    }
    return QByteArray::fromStdString(s.unreadTrace.get());
}

TraceLoadScope::TraceLoadScope(unsigned decodesOfEachTrace) {
    if (!TraceDecodeBudget::active()) {
        m_budget.emplace(decodesOfEachTrace * kMaxFileTraceExchanges, PastBudget::Keep);
    }
}

std::size_t unreadTraces(const std::vector<Sample>& samples) {
    return static_cast<std::size_t>(
        std::count_if(samples.begin(), samples.end(), [](const Sample& s) { return !s.unreadTrace.empty(); }));
}

std::string unreadTracesNote(std::size_t count) {
    if (count == 0) {
        return {};
    }
    return std::to_string(count) + (count == 1 ? " sample keeps its" : " samples keep their") +
           " exchange trace unread: the file's traces pass " + std::to_string(kMaxFileTraceExchanges) +
           " exchanges, the most one load decodes (about " +
           std::to_string(kMaxFileTraceExchanges * sizeof(Exchange) >> 20) +
           " MB in memory). They are saved unchanged, but not predicted";
}

namespace {

QJsonObject wireToJson(const WireStats& w) {
    QJsonObject o;
    o[QStringLiteral("available")] = w.available;
    if (!w.available) {
        o[QStringLiteral("reason")] = qs(w.unavailableReason);
        return o;
    }
    if (!w.method.empty()) {
        o[QStringLiteral("method")] = qs(w.method);
    }
    o[QStringLiteral("sendPackets")] = number(w.counters.sendPackets);
    o[QStringLiteral("recvPackets")] = number(w.counters.recvPackets);
    o[QStringLiteral("sendBytes")] = number(w.counters.sendBytes);
    o[QStringLiteral("recvBytes")] = number(w.counters.recvBytes);
    if (w.counters.roundTrips) {
        o[QStringLiteral("roundTrips")] = number(*w.counters.roundTrips);
    }
    if (const auto& c = w.counters.compressed) {
        // What zlib-6 / zstd-3 would have sent: an estimate, never a measured count.
        QJsonObject e;
        e[QStringLiteral("estimate")] = true;
        e[QStringLiteral("zlibSendBytes")] = number(c->zlibSendBytes);
        e[QStringLiteral("zlibRecvBytes")] = number(c->zlibRecvBytes);
        e[QStringLiteral("zstdSendBytes")] = number(c->zstdSendBytes);
        e[QStringLiteral("zstdRecvBytes")] = number(c->zstdRecvBytes);
        o[QStringLiteral("compressed")] = e;
    }
    return o;
}

WireStats wireFromJson(const QJsonObject& o) {
    WireStats w;
    w.available = o[QStringLiteral("available")].toBool();
    w.unavailableReason = o[QStringLiteral("reason")].toString().toStdString();
    w.method = o[QStringLiteral("method")].toString().toStdString();
    auto u = [&](const char* key) { return static_cast<std::uint64_t>(o[QLatin1String(key)].toInteger()); };
    w.counters.sendPackets = u("sendPackets");
    w.counters.recvPackets = u("recvPackets");
    w.counters.sendBytes = u("sendBytes");
    w.counters.recvBytes = u("recvBytes");
    if (o.contains(QStringLiteral("roundTrips"))) {
        w.counters.roundTrips = u("roundTrips");
    }
    if (o.contains(QStringLiteral("compressed"))) {
        const QJsonObject e = o[QStringLiteral("compressed")].toObject();
        auto c = [&](const char* key) { return static_cast<std::uint64_t>(e[QLatin1String(key)].toInteger()); };
        w.counters.compressed =
            CompressionEstimate{c("zlibSendBytes"), c("zlibRecvBytes"), c("zstdSendBytes"), c("zstdRecvBytes")};
    }
    return w;
}

QJsonObject mapToJson(const std::map<std::string, std::string>& map) {
    QJsonObject o;
    for (const auto& [k, v] : map) {
        o[qs(k)] = qs(v);
    }
    return o;
}

std::map<std::string, std::string> mapFromJson(const QJsonObject& o) {
    std::map<std::string, std::string> map;
    for (auto it = o.begin(); it != o.end(); ++it) {
        map[it.key().toStdString()] = it.value().toString().toStdString();
    }
    return map;
}

QJsonArray effectsToJson(const std::vector<ParameterEffect>& effects) {
    QJsonArray a;
    for (const auto& e : effects) {
        QJsonObject o;
        o[QStringLiteral("id")] = qs(e.id);
        o[QStringLiteral("requested")] = qs(e.requested);
        o[QStringLiteral("actual")] = qs(e.actual);
        o[QStringLiteral("inEffect")] = e.inEffect;
        if (!e.reason.empty()) {
            o[QStringLiteral("reason")] = qs(e.reason);
        }
        a.append(o);
    }
    return a;
}

void saveAtomically(const QString& path, const QByteArray& data) {
    writeFileAtomically(path, data);
}

}  // namespace

QJsonObject sampleToJson(const Sample& s) {
    QJsonObject o;
    o[QStringLiteral("runId")] = qs(s.runId);
    o[QStringLiteral("scenario")] = qs(s.scenarioId);
    o[QStringLiteral("title")] = qs(s.scenarioTitle);
    o[QStringLiteral("sql")] = qs(s.sql);
    o[QStringLiteral("repetition")] = s.repetition;
    if (!s.point.empty()) {
        o[QStringLiteral("point")] = mapToJson(s.point);
    }
    o[QStringLiteral("startedAt")] = qs(s.startedAt);
    o[QStringLiteral("engine")] = qs(s.engine);
    o[QStringLiteral("connection")] = qs(s.connection);
    o[QStringLiteral("serverVersion")] = qs(s.serverVersion);
    o[QStringLiteral("clientVersion")] = qs(s.clientVersion);
    o[QStringLiteral("negotiated")] = mapToJson(s.negotiated);
    o[QStringLiteral("parameters")] = mapToJson(s.parameters);
    o[QStringLiteral("effects")] = effectsToJson(s.effects);
    QJsonObject phases;
    phases[QStringLiteral("connectNs")] = nanos(s.phases.connect);
    phases[QStringLiteral("prepareNs")] = nanos(s.phases.prepare);
    phases[QStringLiteral("executeNs")] = nanos(s.phases.execute);
    phases[QStringLiteral("fetchNs")] = nanos(s.phases.fetch);
    phases[QStringLiteral("elapsedNs")] = nanos(s.phases.elapsed());
    phases[QStringLiteral("elapsedMs")] = static_cast<double>(s.phases.elapsed().count()) / 1e6;
    o[QStringLiteral("phases")] = phases;
    o[QStringLiteral("rows")] = number(s.rows);
    o[QStringLiteral("contentBytes")] = number(s.contentBytes);
    o[QStringLiteral("valuesRead")] = number(s.valuesRead);
    o[QStringLiteral("valuesSkipped")] = number(s.valuesSkipped);
    if (s.maxId) {
        o[QStringLiteral("maxId")] = static_cast<qint64>(*s.maxId);
    }
    if (s.scalar) {
        o[QStringLiteral("scalarLabel")] = qs(s.scalarLabel);
        o[QStringLiteral("scalar")] = qs(*s.scalar);
    }
    QJsonObject wire;
    wire[QStringLiteral("tap")] = wireToJson(s.tap);
    wire[QStringLiteral("nativeLogical")] = wireToJson(s.nativeLogical);
    wire[QStringLiteral("nativePhysical")] = wireToJson(s.nativePhysical);
    if (!s.tapPhases.empty()) {
        QJsonObject phases;
        for (const auto& [name, counters] : s.tapPhases) {
            phases[qs(name)] = wireToJson(WireStats::of(counters));
        }
        wire[QStringLiteral("tapPhases")] = phases;
    }
    if (const QByteArray trace = savedTrace(s); !trace.isEmpty()) {
        wire[QStringLiteral("trace")] = QString::fromLatin1(trace);
    }
    o[QStringLiteral("wire")] = wire;
    o[QStringLiteral("status")] = QLatin1String(toString(s.status));
    if (!s.error.empty()) {
        o[QStringLiteral("error")] = qs(s.error);
    }
    // Written only when set: files without them read as a whole, undisturbed sample.
    if (s.partial) {
        o[QStringLiteral("partial")] = true;
    }
    if (!s.disturbed.empty()) {
        o[QStringLiteral("disturbed")] = qs(s.disturbed);
    }
    if (!s.contentCheck.empty()) {  // verify_content=on only
        o[QStringLiteral("contentCheck")] = qs(s.contentCheck);
    }
    return o;
}

Sample sampleFromJson(const QJsonObject& o) {
    Sample s;
    applySampleJson(s, o);
    return s;
}

void applySampleJson(Sample& s, const QJsonObject& o) {
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString key = it.key();
        const QJsonValue v = it.value();
        auto text = [&] { return v.toString().toStdString(); };
        auto count = [&] { return static_cast<std::uint64_t>(v.toInteger()); };
        if (key == QLatin1String("runId")) {
            s.runId = text();
        } else if (key == QLatin1String("scenario")) {
            s.scenarioId = text();
        } else if (key == QLatin1String("title")) {
            s.scenarioTitle = text();
        } else if (key == QLatin1String("sql")) {
            s.sql = text();
        } else if (key == QLatin1String("repetition")) {
            s.repetition = v.toInt();
        } else if (key == QLatin1String("point")) {
            s.point = mapFromJson(v.toObject());
        } else if (key == QLatin1String("startedAt")) {
            s.startedAt = text();
        } else if (key == QLatin1String("engine")) {
            s.engine = text();
        } else if (key == QLatin1String("connection")) {
            s.connection = text();
        } else if (key == QLatin1String("serverVersion")) {
            s.serverVersion = text();
        } else if (key == QLatin1String("clientVersion")) {
            s.clientVersion = text();
        } else if (key == QLatin1String("negotiated")) {
            s.negotiated = mapFromJson(v.toObject());
        } else if (key == QLatin1String("parameters")) {
            s.parameters = mapFromJson(v.toObject());
        } else if (key == QLatin1String("effects")) {
            std::vector<ParameterEffect> effects;
            for (const auto& item : v.toArray()) {
                const QJsonObject e = item.toObject();
                effects.push_back({e[QStringLiteral("id")].toString().toStdString(),
                                   e[QStringLiteral("requested")].toString().toStdString(),
                                   e[QStringLiteral("actual")].toString().toStdString(),
                                   e[QStringLiteral("inEffect")].toBool(),
                                   e[QStringLiteral("reason")].toString().toStdString()});
            }
            s.effects = std::move(effects);
        } else if (key == QLatin1String("phases")) {
            const QJsonObject phases = v.toObject();
            s.phases.connect = Nanos(phases[QStringLiteral("connectNs")].toInteger());
            s.phases.prepare = Nanos(phases[QStringLiteral("prepareNs")].toInteger());
            s.phases.execute = Nanos(phases[QStringLiteral("executeNs")].toInteger());
            s.phases.fetch = Nanos(phases[QStringLiteral("fetchNs")].toInteger());
        } else if (key == QLatin1String("rows")) {
            s.rows = count();
        } else if (key == QLatin1String("contentBytes")) {
            s.contentBytes = count();
        } else if (key == QLatin1String("valuesRead")) {
            s.valuesRead = count();
        } else if (key == QLatin1String("valuesSkipped")) {
            s.valuesSkipped = count();
        } else if (key == QLatin1String("maxId")) {
            s.maxId = v.toInteger();
        } else if (key == QLatin1String("scalarLabel")) {
            s.scalarLabel = text();
        } else if (key == QLatin1String("scalar")) {
            s.scalar = text();
        } else if (key == QLatin1String("wire")) {
            const QJsonObject wire = v.toObject();
            s.tap = wireFromJson(wire[QStringLiteral("tap")].toObject());
            s.nativeLogical = wireFromJson(wire[QStringLiteral("nativeLogical")].toObject());
            s.nativePhysical = wireFromJson(wire[QStringLiteral("nativePhysical")].toObject());
            s.tapPhases.clear();
            const QJsonObject tapPhases = wire[QStringLiteral("tapPhases")].toObject();
            for (auto phase = tapPhases.begin(); phase != tapPhases.end(); ++phase) {
                s.tapPhases[phase.key().toStdString()] = wireFromJson(phase.value().toObject()).counters;
            }
            s.trace.reset();
            s.unreadTrace = Shared<std::string>();
            if (const QJsonValue trace = wire[QStringLiteral("trace")]; trace.isString()) {
                const QString text = trace.toString();
                s.trace = traceFromBase64OrKeep(text);
                if (!s.trace) {
                    s.unreadTrace = text.toStdString();
                }
            }
        } else if (key == QLatin1String("status")) {
            const QString status = v.toString();
            s.status = status == QLatin1String("failed")      ? SampleStatus::Failed
                       : status == QLatin1String("cancelled") ? SampleStatus::Cancelled
                                                              : SampleStatus::Complete;
        } else if (key == QLatin1String("error")) {
            s.error = text();
        } else if (key == QLatin1String("partial")) {
            s.partial = v.toBool();
        } else if (key == QLatin1String("disturbed")) {
            s.disturbed = text();
        } else if (key == QLatin1String("contentCheck")) {
            s.contentCheck = text();
        }
    }
}

void appendJsonString(QByteArray& out, std::string_view utf8) {
    static const char hex[] = "0123456789abcdef";
    out.reserve(out.size() + static_cast<qsizetype>(utf8.size()) + 2);
    out += '"';
    std::size_t run = 0;  // start of the characters that need no escape, appended in one go
    for (std::size_t i = 0; i < utf8.size(); ++i) {
        const auto u = static_cast<unsigned char>(utf8[i]);
        if (u >= 0x20 && u != '"' && u != '\\') {
            continue;
        }
        out.append(utf8.data() + run, static_cast<qsizetype>(i - run));
        run = i + 1;
        switch (u) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                out += "\\u00";
                out += hex[u >> 4];
                out += hex[u & 15];
        }
    }
    out.append(utf8.data() + run, static_cast<qsizetype>(utf8.size() - run));
    out += '"';
}

void appendJsonString(QByteArray& out, const QString& text) {
    const QByteArray utf8 = text.toUtf8();
    appendJsonString(out, std::string_view(utf8.constData(), static_cast<std::size_t>(utf8.size())));
}

void appendJsonNumber(QByteArray& out, double value) {
    // As QJsonDocument writes numbers: whole values as integers, others in the shortest form that
    // reads back to the same double.
    if (!std::isfinite(value)) {
        out += "null";
    } else if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
        out += QByteArray::number(static_cast<qint64>(value));
    } else {
        out += QByteArray::number(value, 'g', QLocale::FloatingPointShortest);
    }
}

namespace {

QByteArray jsonText(const std::string& text) {
    QByteArray out;
    out.reserve(static_cast<qsizetype>(text.size()) + 2);
    appendJsonString(out, text);
    return out;
}

QByteArray jsonMap(const std::map<std::string, std::string>& map) {
    QByteArray out = "{";
    for (const auto& [k, v] : map) {
        if (out.size() > 1) {
            out += ',';
        }
        appendJsonString(out, k);
        out += ':';
        appendJsonString(out, v);
    }
    out += '}';
    return out;
}

void appendWire(QByteArray& out, const WireStats& w) {
    if (!w.available) {
        out += "{\"available\":false,\"reason\":";
        appendJsonString(out, w.unavailableReason);
        out += '}';
        return;
    }
    // Keys in QJsonObject's (sorted) order, so both writers produce the same text.
    out += "{\"available\":true";
    if (const auto& c = w.counters.compressed) {
        const auto n = [](std::uint64_t v) { return QByteArray::number(static_cast<qint64>(v)); };
        out += ",\"compressed\":{\"estimate\":true,\"zlibRecvBytes\":" + n(c->zlibRecvBytes) +
               ",\"zlibSendBytes\":" + n(c->zlibSendBytes) + ",\"zstdRecvBytes\":" + n(c->zstdRecvBytes) +
               ",\"zstdSendBytes\":" + n(c->zstdSendBytes) + '}';
    }
    if (!w.method.empty()) {
        out += ",\"method\":";
        appendJsonString(out, w.method);
    }
    out += ",\"recvBytes\":" + QByteArray::number(static_cast<qint64>(w.counters.recvBytes)) +
           ",\"recvPackets\":" + QByteArray::number(static_cast<qint64>(w.counters.recvPackets));
    if (w.counters.roundTrips) {
        out += ",\"roundTrips\":" + QByteArray::number(static_cast<qint64>(*w.counters.roundTrips));
    }
    out += ",\"sendBytes\":" + QByteArray::number(static_cast<qint64>(w.counters.sendBytes)) +
           ",\"sendPackets\":" + QByteArray::number(static_cast<qint64>(w.counters.sendPackets)) + '}';
}

QByteArray effectsJson(const std::vector<ParameterEffect>& effects) {
    QByteArray e = "[";
    for (const auto& effect : effects) {
        if (e.size() > 1) {
            e += ',';
        }
        e += "{\"actual\":";
        appendJsonString(e, effect.actual);
        e += ",\"id\":";
        appendJsonString(e, effect.id);
        e += effect.inEffect ? ",\"inEffect\":true" : ",\"inEffect\":false";
        if (!effect.reason.empty()) {
            e += ",\"reason\":";
            appendJsonString(e, effect.reason);
        }
        e += ",\"requested\":";
        appendJsonString(e, effect.requested);
        e += '}';
    }
    e += ']';
    return e;
}

// The JSON of a value samples share, written once for the run of samples that share it (the
// cache holds a reference, so an address is never mistaken for a later value's).
template <class T>
struct SharedJson {
    Shared<T> value;
    QByteArray json;
    bool filled = false;
    template <class Write>
    QByteArray of(const Shared<T>& v, Write write) {
        if (!filled || !v.sharesWith(value) || v.identity() == nullptr) {
            value = v;
            json = write(v.get());
            filled = true;
        }
        return json;
    }
};

}  // namespace

SampleFields sampleJsonFields(const Sample& s) {
    // Keys in sorted order, as QJsonObject keeps them; the values as sampleToJson() writes them.
    SampleFields f;
    f.reserve(26);
    auto number = [](std::uint64_t n) { return QByteArray::number(static_cast<qint64>(n)); };
    f.emplace_back("clientVersion", jsonText(s.clientVersion));
    f.emplace_back("connection", jsonText(s.connection));
    f.emplace_back("contentBytes", number(s.contentBytes));
    if (!s.contentCheck.empty()) {  // verify_content=on only
        f.emplace_back("contentCheck", jsonText(s.contentCheck));
    }
    if (!s.disturbed.empty()) {
        f.emplace_back("disturbed", jsonText(s.disturbed));
    }
    thread_local SharedJson<std::vector<ParameterEffect>> effects;
    f.emplace_back("effects", effects.of(s.effects, effectsJson));
    f.emplace_back("engine", jsonText(s.engine));
    if (!s.error.empty()) {
        f.emplace_back("error", jsonText(s.error));
    }
    if (s.maxId) {
        f.emplace_back("maxId", QByteArray::number(static_cast<qint64>(*s.maxId)));
    }
    thread_local SharedJson<std::map<std::string, std::string>> negotiated;
    thread_local SharedJson<ParameterValues> parameters;
    f.emplace_back("negotiated", negotiated.of(s.negotiated, jsonMap));
    f.emplace_back("parameters", parameters.of(s.parameters, jsonMap));
    if (s.partial) {
        f.emplace_back("partial", QByteArray("true"));
    }
    {
        QByteArray p =
            "{\"connectNs\":" + QByteArray::number(static_cast<qint64>(s.phases.connect.count())) + ",\"elapsedMs\":";
        appendJsonNumber(p, static_cast<double>(s.phases.elapsed().count()) / 1e6);
        p += ",\"elapsedNs\":" + QByteArray::number(static_cast<qint64>(s.phases.elapsed().count())) +
             ",\"executeNs\":" + QByteArray::number(static_cast<qint64>(s.phases.execute.count())) +
             ",\"fetchNs\":" + QByteArray::number(static_cast<qint64>(s.phases.fetch.count())) +
             ",\"prepareNs\":" + QByteArray::number(static_cast<qint64>(s.phases.prepare.count())) + '}';
        f.emplace_back("phases", std::move(p));
    }
    if (!s.point.empty()) {
        f.emplace_back("point", jsonMap(s.point));
    }
    f.emplace_back("repetition", QByteArray::number(s.repetition));
    f.emplace_back("rows", number(s.rows));
    f.emplace_back("runId", jsonText(s.runId));
    if (s.scalar) {
        f.emplace_back("scalar", jsonText(*s.scalar));
        f.emplace_back("scalarLabel", jsonText(s.scalarLabel));
    }
    f.emplace_back("scenario", jsonText(s.scenarioId));
    f.emplace_back("serverVersion", jsonText(s.serverVersion));
    f.emplace_back("sql", jsonText(s.sql));
    f.emplace_back("startedAt", jsonText(s.startedAt));
    f.emplace_back("status", QByteArray("\"") + toString(s.status) + '"');
    f.emplace_back("title", jsonText(s.scenarioTitle));
    f.emplace_back("valuesRead", number(s.valuesRead));
    f.emplace_back("valuesSkipped", number(s.valuesSkipped));
    {
        QByteArray w = "{\"nativeLogical\":";
        appendWire(w, s.nativeLogical);
        w += ",\"nativePhysical\":";
        appendWire(w, s.nativePhysical);
        w += ",\"tap\":";
        appendWire(w, s.tap);
        if (!s.tapPhases.empty()) {
            w += ",\"tapPhases\":{";
            bool first = true;
            for (const auto& [name, counters] : s.tapPhases) {
                if (!first) {
                    w += ',';
                }
                first = false;
                appendJsonString(w, name);
                w += ':';
                appendWire(w, WireStats::of(counters));
            }
            w += '}';
        }
        if (const QByteArray trace = savedTrace(s); !trace.isEmpty()) {
            w += ",\"trace\":\"" + trace + '"';
        }
        w += '}';
        f.emplace_back("wire", std::move(w));
    }
    return f;
}

QJsonObject sessionToJson(const SessionInfo& session) {
    QJsonObject o;
    o[QStringLiteral("engine")] = qs(session.engine);
    o[QStringLiteral("serverVersion")] = qs(session.serverVersion);
    o[QStringLiteral("clientVersion")] = qs(session.clientVersion);
    QJsonArray banner;
    for (const auto& line : session.versionBanner) {
        banner.append(qs(line));
    }
    o[QStringLiteral("versionBanner")] = banner;
    o[QStringLiteral("embedded")] = session.embedded;
    o[QStringLiteral("negotiated")] = mapToJson(session.negotiated);
    o[QStringLiteral("effects")] = effectsToJson(session.effects);
    return o;
}

void writeSamplesJson(const QString& path, const SessionInfo& session, const std::vector<Sample>& samples) {
    QJsonObject root;
    root[QStringLiteral("formatVersion")] = 1;
    root[QStringLiteral("tool")] = QStringLiteral("blobbench " BLOBBENCH_VERSION);
    root[QStringLiteral("session")] = sessionToJson(session);
    QJsonArray array;
    for (const auto& s : samples) {
        array.append(sampleToJson(s));
    }
    root[QStringLiteral("samples")] = array;
    saveAtomically(path, QJsonDocument(root).toJson(QJsonDocument::Indented));
}

std::vector<Sample> readSamplesJson(const QString& path, const std::string& context) {
    const std::string name = path.toStdString();
    const TraceLoadScope traces(1);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || file.size() > kMaxSamplesFileBytes) {
        throw Error(ErrorKind::Io, context + ": cannot read " + name);
    }
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
    const QJsonArray samples = doc.object().value(QStringLiteral("samples")).toArray();
    if (!doc.isObject() || samples.isEmpty()) {
        throw Error(ErrorKind::Usage, context + ": " + name + " is neither a project nor a samples file of --json");
    }
    std::vector<Sample> out;
    for (const auto& v : samples) {
        try {
            // As strict as the project loader: out-of-range numbers read as 0 and an unknown status
            // as complete (hostile round 4: a --compare base median of 0.010 ms from 2^64-1 phases).
            if (!v.isObject()) {
                throw Error(ErrorKind::Data, "not a JSON object");
            }
            checkSampleJson(v.toObject(), QString());
            out.push_back(sampleFromJson(v.toObject()));
        } catch (const Error& e) {
            throw Error(ErrorKind::Usage,
                        context + ": " + name + ": sample " + std::to_string(out.size() + 1) + ": " + e.what());
        }
    }
    return out;
}

QString pointLabel(const std::map<std::string, std::string>& point) {
    QStringList parts;
    for (const auto& [k, v] : point) {
        parts << qs(k) + QLatin1Char('=') + qs(v);
    }
    return parts.join(QLatin1Char(';'));
}

QString csvField(const QString& text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')) &&
        !text.contains(QLatin1Char('\r'))) {
        return text;
    }
    QString quoted = text;
    quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

void writeSamplesCsv(const QString& path, const std::vector<Sample>& samples) {
    QStringList lines;
    lines << QStringLiteral(
        "run_id,scenario,repetition,engine,connection,server_version,client_version,status,partial,disturbed,elapsed_"
        "ms,"
        "connect_ms,"
        "prepare_ms,execute_ms,fetch_ms,rows,content_bytes,max_id,tap_send_bytes,tap_recv_bytes,tap_roundtrips,"
        "native_recv_bytes,native_roundtrips,tap_zlib6_send_bytes_estimate,tap_zlib6_recv_bytes_estimate,"
        "tap_zstd3_send_bytes_estimate,tap_zstd3_recv_bytes_estimate,parameters,error,point");
    auto ms = [](Nanos n) { return QString::number(static_cast<double>(n.count()) / 1e6, 'f', 3); };
    for (const auto& s : samples) {
        QStringList params;
        for (const auto& [k, v] : s.parameters) {
            params << qs(k) + QLatin1Char('=') + qs(v);
        }
        const auto opt = [](bool has, std::uint64_t v) { return has ? QString::number(v) : QString(); };
        const auto& estimate = s.tap.counters.compressed;
        const bool estimated = s.tap.available && estimate.has_value();
        QStringList f;
        // 1-based, as the results table numbers them (Sample::repetition is 0-based).
        f << qs(s.runId) << qs(s.scenarioId) << QString::number(s.repetition + 1) << qs(s.engine) << qs(s.connection)
          << qs(s.serverVersion) << qs(s.clientVersion)
          << QLatin1String(toString(s.status))
          // A failed or cancelled sample's figures stop where it stopped (partial); a sample the client
          // itself was stopped in (suspend, SIGSTOP) says so (disturbed): no throughput from either.
          << (s.partial ? QStringLiteral("true") : QStringLiteral("false")) << qs(s.disturbed) << ms(s.phases.elapsed())
          << ms(s.phases.connect) << ms(s.phases.prepare) << ms(s.phases.execute) << ms(s.phases.fetch)
          << QString::number(s.rows) << QString::number(s.contentBytes)
          << (s.maxId ? QString::number(*s.maxId) : QString()) << opt(s.tap.available, s.tap.counters.sendBytes)
          << opt(s.tap.available, s.tap.counters.recvBytes)
          << opt(s.tap.available && s.tap.counters.roundTrips.has_value(), s.tap.counters.roundTrips.value_or(0))
          << opt(s.nativeLogical.available, s.nativeLogical.counters.recvBytes)
          << opt(s.nativePhysical.available && s.nativePhysical.counters.roundTrips.has_value(),
                 s.nativePhysical.counters.roundTrips.value_or(0))
          << opt(estimated, estimated ? estimate->zlibSendBytes : 0)
          << opt(estimated, estimated ? estimate->zlibRecvBytes : 0)
          << opt(estimated, estimated ? estimate->zstdSendBytes : 0)
          << opt(estimated, estimated ? estimate->zstdRecvBytes : 0) << params.join(QLatin1Char(';')) << qs(s.error)
          << pointLabel(s.point);
        QStringList quoted;
        for (const auto& field : f) {
            quoted << csvField(field);
        }
        lines << quoted.join(QLatin1Char(','));
    }
    saveAtomically(path, (lines.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
}

}  // namespace blobbench
