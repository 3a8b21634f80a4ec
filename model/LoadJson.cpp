#include "model/LoadJson.h"

#include <QJsonArray>
#include <QJsonDocument>

#include "engine/core/LoadParameters.h"
#include "model/AtomicFile.h"
#include "model/ProjectJsonInternal.h"
#include "model/SessionsJson.h"

namespace blobbench {

using namespace projectjson;

namespace {

constexpr qint64 kMaxNumber = qint64{1} << 53;  // exact in a JSON number
constexpr qsizetype kMaxBuckets = 64 * 128 + 256;

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QJsonObject mapJson(const ParameterValues& map) {
    QJsonObject o;
    for (const auto& [k, v] : map) {
        o[qs(k)] = qs(v);
    }
    return o;
}

ParameterValues mapFrom(const QJsonValue& v, const QString& path) {
    stringMap(v, path);
    ParameterValues out;
    const QJsonObject o = v.toObject();
    for (auto it = o.begin(); it != o.end(); ++it) {
        out[it.key().toStdString()] = it.value().toString().toStdString();
    }
    return out;
}

std::uint64_t count(const Fields& f, const char* key) {
    return static_cast<std::uint64_t>(f.whole(key, 0, kMaxNumber, 0));
}

LatencyHistogram histogramFrom(const QJsonValue& v, const QString& path) {
    const QJsonObject o = object(v, path);
    const Fields f(
        o, path,
        {"count", "minNs", "maxNs", "meanNs", "p50Ns", "p90Ns", "p99Ns", "p999Ns", "maxRelativeError", "buckets"},
        {"count", "minNs", "maxNs", "meanNs", "buckets"});
    const QJsonArray raw = array(f["buckets"], f.path("buckets"), kMaxBuckets);
    std::vector<LatencyHistogram::Bucket> buckets;
    buckets.reserve(static_cast<std::size_t>(raw.size()));
    for (qsizetype i = 0; i < raw.size(); ++i) {
        const QString at = item(f.path("buckets"), i);
        const QJsonArray b = array(raw[i], at, 3);
        if (b.size() != 3) {
            refuse(at, L("expected [low ns, high ns, count]"));
        }
        buckets.push_back({static_cast<std::uint64_t>(whole(b[0], item(at, 0), 0, kMaxNumber)),
                           static_cast<std::uint64_t>(whole(b[1], item(at, 1), 0, kMaxNumber)),
                           static_cast<std::uint64_t>(whole(b[2], item(at, 2), 1, kMaxNumber))});
    }
    const QJsonValue mean = f["meanNs"];
    if (!mean.isDouble()) {
        expected(f.path("meanNs"), "a number", mean);
    }
    LatencyHistogram h;
    if (!LatencyHistogram::restore(buckets, count(f, "minNs"), count(f, "maxNs"), mean.toDouble(), h) ||
        h.count() != count(f, "count")) {
        refuse(path, L("the buckets, count, minimum, maximum and mean do not add up to a latency histogram"));
    }
    return h;
}

StatementTally tallyFrom(const QJsonValue& v, const QString& path) {
    const QJsonObject o = object(v, path);
    const Fields f(o, path,
                   {"session", "statements", "failed", "cancelled", "rows", "contentBytes", "wireBytes", "latency",
                    "scheduleLag", "late", "disturbed", "rates"},
                   {"statements", "failed", "cancelled", "rows", "contentBytes", "latency"});
    StatementTally t;
    t.statements = count(f, "statements");
    t.failed = count(f, "failed");
    t.cancelled = count(f, "cancelled");
    t.rows = count(f, "rows");
    t.contentBytes = count(f, "contentBytes");
    if (f["wireBytes"].isNull() || !f.has("wireBytes")) {
        t.wireUncounted = t.statements;  // the wire was not counted: wireCounted() is false again
    } else {
        t.wireBytes = count(f, "wireBytes");
    }
    t.latency = histogramFrom(f["latency"], f.path("latency"));
    if (t.latency.count() != t.statements) {
        refuse(f.path("latency"), L("holds %1 latencies for %2 statements").arg(t.latency.count()).arg(t.statements));
    }
    if (f.has("scheduleLag")) {
        t.scheduleLag = histogramFrom(f["scheduleLag"], f.path("scheduleLag"));
    }
    t.late = count(f, "late");
    t.disturbed = count(f, "disturbed");
    return t;
}

}  // namespace

QJsonObject loadPointToJson(const LoadPoint& p) {
    QJsonObject o;
    o[L("scenario")] = qs(p.scenarioId);
    o[L("title")] = qs(p.scenarioTitle);
    if (!p.point.empty()) {
        o[L("point")] = mapJson(p.point);
    }
    o[L("parameters")] = mapJson(p.parameters);
    o[L("startedAt")] = qs(p.startedAt);
    o[L("engine")] = qs(p.engine);
    o[L("connection")] = qs(p.connection);
    o[L("serverVersion")] = qs(p.serverVersion);
    o[L("clientVersion")] = qs(p.clientVersion);
    o[L("wireMethod")] = qs(p.wireMethod);
    if (!p.link.empty()) {
        o[L("link")] = qs(p.link);
    }
    if (!p.sql.empty()) {
        o[L("sql")] = qs(p.sql);
    }
    o[L("sessions")] = p.sessions;
    o[L("mode")] = p.openLoop ? L("open") : L("closed");
    if (p.openLoop) {
        o[L("rate")] = p.rate;
        o[L("slotsDue")] = static_cast<double>(p.slotsDue);
        o[L("slotsMissed")] = static_cast<double>(p.slotsMissed);
    }
    o[L("windowNs")] = static_cast<double>(p.window.count());
    o[L("rampUpNs")] = static_cast<double>(p.rampUp.count());
    o[L("excluded")] = static_cast<double>(p.excluded);
    if (!p.error.empty()) {
        o[L("error")] = qs(p.error);
    }
    o[L("combined")] = tallyToJson(p.combined, p.openLoop);
    QJsonArray per;
    for (std::size_t i = 0; i < p.perSession.size(); ++i) {
        QJsonObject s = tallyToJson(p.perSession[i], p.openLoop);
        s[L("session")] = static_cast<int>(i + 1);
        per.append(s);
    }
    o[L("perSession")] = per;
    return o;
}

LoadPoint loadPointFromJson(const QJsonObject& o, const QString& path) {
    const Fields f(o, path, {"scenario",   "title",         "point",         "parameters", "startedAt",   "engine",
                             "connection", "serverVersion", "clientVersion", "wireMethod", "link",        "sql",
                             "sessions",   "mode",          "rate",          "slotsDue",   "slotsMissed", "windowNs",
                             "rampUpNs",   "excluded",      "error",         "combined",   "perSession"},
                   {"scenario", "sessions", "mode", "windowNs", "combined", "perSession"});
    LoadPoint p;
    p.scenarioId = f.text("scenario").toStdString();
    p.scenarioTitle = f.text("title").toStdString();
    if (f.has("point")) {
        p.point = mapFrom(f["point"], f.path("point"));
    }
    if (f.has("parameters")) {
        p.parameters = mapFrom(f["parameters"], f.path("parameters"));
    }
    p.startedAt = f.text("startedAt").toStdString();
    p.engine = f.text("engine").toStdString();
    p.connection = f.text("connection").toStdString();
    p.serverVersion = f.text("serverVersion").toStdString();
    p.clientVersion = f.text("clientVersion").toStdString();
    p.wireMethod = f.text("wireMethod").toStdString();
    p.link = f.text("link").toStdString();
    p.sql = f.text("sql", kMaxTextLength).toStdString();
    p.error = f.text("error", kMaxTextLength).toStdString();
    p.sessions = static_cast<int>(f.whole("sessions", 1, kMaxSessions, 1));
    p.openLoop = oneOf(f["mode"], f.path("mode"), {"closed", "open"}) == L("open");
    if (p.openLoop) {
        const QJsonValue rate = f["rate"];
        if (!rate.isDouble() || !(rate.toDouble() > 0)) {
            expected(f.path("rate"), "a rate above 0", rate);
        }
        p.rate = rate.toDouble();
        p.slotsDue = count(f, "slotsDue");
        p.slotsMissed = count(f, "slotsMissed");
    }
    p.window = Nanos(f.whole("windowNs", 0, kMaxNumber, 0));
    p.rampUp = Nanos(f.whole("rampUpNs", 0, kMaxNumber, 0));
    p.excluded = count(f, "excluded");
    p.combined = tallyFrom(f["combined"], f.path("combined"));
    const QJsonArray per = array(f["perSession"], f.path("perSession"), kMaxSessions);
    if (per.size() != p.sessions) {
        refuse(f.path("perSession"), L("holds %1 sessions, the point %2").arg(per.size()).arg(p.sessions));
    }
    for (qsizetype i = 0; i < per.size(); ++i) {
        p.perSession.push_back(tallyFrom(per[i], item(f.path("perSession"), i)));
    }
    return p;
}

QByteArray loadPointsCsv(const std::vector<LoadPoint>& points) {
    QByteArray csv =
        "run_id,connection,scenario,point,sessions,mode,session,statements,failed,cancelled,rows,content_bytes,"
        "wire_bytes,statements_per_s,rows_per_s,content_mb_per_s,wire_mb_per_s,p50_ns,p90_ns,p99_ns,p999_ns,"
        "max_ns,disturbed\n";
    auto field = [](const std::string& text) -> QByteArray {
        QByteArray out = QByteArray::fromStdString(text);
        if (out.contains(',') || out.contains('"') || out.contains('\n') || out.contains('\r')) {
            out.replace("\"", "\"\"");
            out = '"' + out + '"';
        }
        return out;
    };
    for (const LoadPoint& p : points) {
        std::string point;
        for (const auto& [k, v] : p.point) {
            point += (point.empty() ? "" : " ") + k + "=" + v;
        }
        const QByteArray prefix = field(p.runId) + ',' + field(p.connection) + ',' + field(p.scenarioId) + ',' +
                                  field(point) + ',' + QByteArray::number(p.sessions) + ',' +
                                  (p.openLoop ? "open" : "closed") + ',';
        auto row = [&](const QByteArray& session, const StatementTally& t) -> QByteArray {
            const Rates r = ratesOf(t, p.window);
            QByteArray line = prefix + session;
            for (const std::uint64_t v : {t.statements, t.failed, t.cancelled, t.rows, t.contentBytes}) {
                line += ',' + QByteArray::number(static_cast<qulonglong>(v));
            }
            line += ',' + (t.wireCounted() ? QByteArray::number(static_cast<qulonglong>(t.wireBytes)) : QByteArray());
            for (const double v : {r.statementsPerS, r.rowsPerS, r.contentMBPerS}) {
                line += ',' + QByteArray::number(v, 'g', 10);
            }
            line += ',' + (t.wireCounted() ? QByteArray::number(r.wireMBPerS, 'g', 10) : QByteArray());
            for (const double q : {0.5, 0.9, 0.99, 0.999, 1.0}) {
                line += ',' + QByteArray::number(static_cast<qulonglong>(t.latency.percentile(q)));
            }
            line += ',' + QByteArray::number(static_cast<qulonglong>(t.disturbed));
            return line + '\n';
        };
        for (std::size_t i = 0; i < p.perSession.size(); ++i) {
            csv += row(QByteArray::number(static_cast<qulonglong>(i) + 1), p.perSession[i]);
        }
        csv += row("all", p.combined);
    }
    return csv;
}

void writeLoadsJson(const QString& path, const std::vector<LoadPoint>& points) {
    QJsonArray loads;
    for (const LoadPoint& p : points) {
        loads.append(loadPointToJson(p));
    }
    QJsonObject o;
    o[L("formatVersion")] = 1;
    o[L("tool")] = QStringLiteral("blobbench " BLOBBENCH_VERSION);
    o[L("kind")] = L("load");
    o[L("runId")] = points.empty() ? QString() : qs(points.front().runId);
    o[L("loads")] = loads;
    writeFileAtomically(path, QJsonDocument(o).toJson(QJsonDocument::Indented));
}

void writeLoadsCsv(const QString& path, const std::vector<LoadPoint>& points) {
    writeFileAtomically(path, loadPointsCsv(points));
}

}  // namespace blobbench
