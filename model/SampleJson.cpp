#include "model/SampleJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStringList>

#include "engine/core/Error.h"

namespace blobbench {
namespace {

QJsonValue number(std::uint64_t n) { return QJsonValue(static_cast<qint64>(n)); }
qint64 nanos(Nanos n) { return static_cast<qint64>(n.count()); }

QJsonObject wireToJson(const WireStats& w) {
    QJsonObject o;
    o[QStringLiteral("available")] = w.available;
    if (!w.available) {
        o[QStringLiteral("reason")] = qs(w.unavailableReason);
        return o;
    }
    o[QStringLiteral("sendPackets")] = number(w.counters.sendPackets);
    o[QStringLiteral("recvPackets")] = number(w.counters.recvPackets);
    o[QStringLiteral("sendBytes")] = number(w.counters.sendBytes);
    o[QStringLiteral("recvBytes")] = number(w.counters.recvBytes);
    if (w.counters.roundTrips) {
        o[QStringLiteral("roundTrips")] = number(*w.counters.roundTrips);
    }
    return o;
}

WireStats wireFromJson(const QJsonObject& o) {
    WireStats w;
    w.available = o[QStringLiteral("available")].toBool();
    w.unavailableReason = o[QStringLiteral("reason")].toString().toStdString();
    auto u = [&](const char* key) { return static_cast<std::uint64_t>(o[QLatin1String(key)].toInteger()); };
    w.counters.sendPackets = u("sendPackets");
    w.counters.recvPackets = u("recvPackets");
    w.counters.sendBytes = u("sendBytes");
    w.counters.recvBytes = u("recvBytes");
    if (o.contains(QStringLiteral("roundTrips"))) {
        w.counters.roundTrips = u("roundTrips");
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
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size() || !file.commit()) {
        throw Error(ErrorKind::Io, "cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
    }
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
    o[QStringLiteral("wire")] = wire;
    o[QStringLiteral("status")] = QLatin1String(toString(s.status));
    if (!s.error.empty()) {
        o[QStringLiteral("error")] = qs(s.error);
    }
    return o;
}

Sample sampleFromJson(const QJsonObject& o) {
    Sample s;
    auto str = [&](const char* key) { return o[QLatin1String(key)].toString().toStdString(); };
    s.runId = str("runId");
    s.scenarioId = str("scenario");
    s.scenarioTitle = str("title");
    s.sql = str("sql");
    s.repetition = o[QStringLiteral("repetition")].toInt();
    s.point = mapFromJson(o[QStringLiteral("point")].toObject());
    s.startedAt = str("startedAt");
    s.engine = str("engine");
    s.connection = str("connection");
    s.serverVersion = str("serverVersion");
    s.clientVersion = str("clientVersion");
    s.negotiated = mapFromJson(o[QStringLiteral("negotiated")].toObject());
    s.parameters = mapFromJson(o[QStringLiteral("parameters")].toObject());
    for (const auto& v : o[QStringLiteral("effects")].toArray()) {
        const QJsonObject e = v.toObject();
        s.effects.push_back({e[QStringLiteral("id")].toString().toStdString(),
                             e[QStringLiteral("requested")].toString().toStdString(),
                             e[QStringLiteral("actual")].toString().toStdString(), e[QStringLiteral("inEffect")].toBool(),
                             e[QStringLiteral("reason")].toString().toStdString()});
    }
    const QJsonObject phases = o[QStringLiteral("phases")].toObject();
    s.phases.connect = Nanos(phases[QStringLiteral("connectNs")].toInteger());
    s.phases.prepare = Nanos(phases[QStringLiteral("prepareNs")].toInteger());
    s.phases.execute = Nanos(phases[QStringLiteral("executeNs")].toInteger());
    s.phases.fetch = Nanos(phases[QStringLiteral("fetchNs")].toInteger());
    s.rows = static_cast<std::uint64_t>(o[QStringLiteral("rows")].toInteger());
    s.contentBytes = static_cast<std::uint64_t>(o[QStringLiteral("contentBytes")].toInteger());
    s.valuesRead = static_cast<std::uint64_t>(o[QStringLiteral("valuesRead")].toInteger());
    s.valuesSkipped = static_cast<std::uint64_t>(o[QStringLiteral("valuesSkipped")].toInteger());
    if (o.contains(QStringLiteral("maxId"))) {
        s.maxId = o[QStringLiteral("maxId")].toInteger();
    }
    if (o.contains(QStringLiteral("scalar"))) {
        s.scalarLabel = str("scalarLabel");
        s.scalar = str("scalar");
    }
    const QJsonObject wire = o[QStringLiteral("wire")].toObject();
    s.tap = wireFromJson(wire[QStringLiteral("tap")].toObject());
    s.nativeLogical = wireFromJson(wire[QStringLiteral("nativeLogical")].toObject());
    s.nativePhysical = wireFromJson(wire[QStringLiteral("nativePhysical")].toObject());
    const QString status = o[QStringLiteral("status")].toString();
    s.status = status == QLatin1String("failed")      ? SampleStatus::Failed
               : status == QLatin1String("cancelled") ? SampleStatus::Cancelled
                                                      : SampleStatus::Complete;
    s.error = str("error");
    return s;
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
        "run_id,scenario,repetition,engine,connection,server_version,client_version,status,elapsed_ms,connect_ms,"
        "prepare_ms,execute_ms,fetch_ms,rows,content_bytes,max_id,tap_send_bytes,tap_recv_bytes,tap_roundtrips,"
        "native_recv_bytes,native_roundtrips,parameters,error,point");
    auto ms = [](Nanos n) { return QString::number(static_cast<double>(n.count()) / 1e6, 'f', 3); };
    for (const auto& s : samples) {
        QStringList params;
        for (const auto& [k, v] : s.parameters) {
            params << qs(k) + QLatin1Char('=') + qs(v);
        }
        const auto opt = [](bool has, std::uint64_t v) { return has ? QString::number(v) : QString(); };
        QStringList f;
        f << qs(s.runId) << qs(s.scenarioId) << QString::number(s.repetition) << qs(s.engine) << qs(s.connection)
          << qs(s.serverVersion) << qs(s.clientVersion) << QLatin1String(toString(s.status)) << ms(s.phases.elapsed())
          << ms(s.phases.connect) << ms(s.phases.prepare) << ms(s.phases.execute) << ms(s.phases.fetch)
          << QString::number(s.rows) << QString::number(s.contentBytes)
          << (s.maxId ? QString::number(*s.maxId) : QString()) << opt(s.tap.available, s.tap.counters.sendBytes)
          << opt(s.tap.available, s.tap.counters.recvBytes)
          << opt(s.tap.available && s.tap.counters.roundTrips.has_value(), s.tap.counters.roundTrips.value_or(0))
          << opt(s.nativeLogical.available, s.nativeLogical.counters.recvBytes)
          << opt(s.nativePhysical.available && s.nativePhysical.counters.roundTrips.has_value(),
                 s.nativePhysical.counters.roundTrips.value_or(0))
          << params.join(QLatin1Char(';')) << qs(s.error) << pointLabel(s.point);
        QStringList quoted;
        for (const auto& field : f) {
            quoted << csvField(field);
        }
        lines << quoted.join(QLatin1Char(','));
    }
    saveAtomically(path, (lines.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
}

}  // namespace blobbench
