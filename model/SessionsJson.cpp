#include "model/SessionsJson.h"

#include <QJsonArray>
#include <QJsonDocument>

#include "model/AtomicFile.h"
#include "model/SampleJson.h"

namespace blobbench {
namespace {

double ns(std::uint64_t value) {
    return static_cast<double>(value);  // exact below 2^53 ns (104 days)
}

QJsonObject ratesToJson(const Rates& r, bool wireCounted) {
    QJsonObject o;
    o[QStringLiteral("statementsPerS")] = r.statementsPerS;
    o[QStringLiteral("rowsPerS")] = r.rowsPerS;
    o[QStringLiteral("contentMBPerS")] = r.contentMBPerS;
    o[QStringLiteral("wireMBPerS")] = wireCounted ? QJsonValue(r.wireMBPerS) : QJsonValue();
    return o;
}

QJsonObject spreadToJson(const Spread& s) {
    QJsonObject o;
    o[QStringLiteral("min")] = s.min;
    o[QStringLiteral("max")] = s.max;
    o[QStringLiteral("mean")] = s.mean;
    o[QStringLiteral("cv")] = s.cv;
    return o;
}

QJsonObject scenarioToJson(const ScenarioFigures& f, bool openLoop) {
    QJsonObject o;
    o[QStringLiteral("id")] = qs(f.id);
    o[QStringLiteral("title")] = qs(f.title);
    o[QStringLiteral("combined")] = tallyToJson(f.combined, openLoop);
    o[QStringLiteral("rates")] = ratesToJson(f.rates, f.combined.wireCounted());
    o[QStringLiteral("fairness")] = spreadToJson(f.fairness);
    QJsonArray per;
    for (std::size_t i = 0; i < f.perSession.size(); ++i) {
        QJsonObject s = tallyToJson(f.perSession[i], openLoop);
        s[QStringLiteral("session")] = static_cast<int>(i + 1);
        s[QStringLiteral("rates")] = ratesToJson(f.perSessionRates[i], f.perSession[i].wireCounted());
        per.append(s);
    }
    o[QStringLiteral("perSession")] = per;
    return o;
}

QJsonObject wireToJson(const WireCounters& w) {
    QJsonObject o;
    o[QStringLiteral("sendBytes")] = ns(w.sendBytes);
    o[QStringLiteral("recvBytes")] = ns(w.recvBytes);
    o[QStringLiteral("sendPackets")] = ns(w.sendPackets);
    o[QStringLiteral("recvPackets")] = ns(w.recvPackets);
    o[QStringLiteral("roundTrips")] = w.roundTrips ? QJsonValue(ns(*w.roundTrips)) : QJsonValue();
    return o;
}

QJsonObject sessionResultToJson(const SessionResult& s) {
    QJsonObject o;
    o[QStringLiteral("session")] = s.index;
    o[QStringLiteral("connected")] = s.connected;
    o[QStringLiteral("ok")] = s.ok;
    o[QStringLiteral("error")] = qs(s.error);
    o[QStringLiteral("firstStatementError")] = qs(s.firstSampleError);
    o[QStringLiteral("excludedStatements")] = ns(s.excluded);
    o[QStringLiteral("wireMethod")] = qs(s.wireMethod);
    o[QStringLiteral("connectionWire")] = s.connectionWire ? QJsonValue(wireToJson(*s.connectionWire)) : QJsonValue();
    QJsonArray failures;
    for (const Sample& f : s.failures) {
        failures.append(sampleToJson(f));
    }
    o[QStringLiteral("failedSamples")] = failures;
    return o;
}

QByteArray csvField(const std::string& text) {
    QByteArray out = QByteArray::fromStdString(text);
    if (out.contains(',') || out.contains('"') || out.contains('\n')) {
        out.replace("\"", "\"\"");
        out = '"' + out + '"';
    }
    return out;
}

QByteArray csvRow(int session, const std::string& scenario, const StatementTally& t, const Rates& r) {
    QByteArray row = QByteArray::number(session) + ',' + csvField(scenario);
    for (const std::uint64_t v : {t.statements, t.failed, t.cancelled, t.rows, t.contentBytes}) {
        row += ',' + QByteArray::number(static_cast<qulonglong>(v));
    }
    row += ',' + (t.wireCounted() ? QByteArray::number(static_cast<qulonglong>(t.wireBytes)) : QByteArray());
    for (const double v : {r.statementsPerS, r.rowsPerS, r.contentMBPerS}) {
        row += ',' + QByteArray::number(v, 'g', 10);
    }
    row += ',' + (t.wireCounted() ? QByteArray::number(r.wireMBPerS, 'g', 10) : QByteArray());
    for (const double q : {0.5, 0.9, 0.99, 0.999, 1.0}) {
        row += ',' + QByteArray::number(static_cast<qulonglong>(t.latency.percentile(q)));
    }
    row += ',' + QByteArray::number(static_cast<qulonglong>(t.disturbed));
    return row + '\n';
}

}  // namespace

QJsonObject histogramToJson(const LatencyHistogram& h) {
    QJsonObject o;
    o[QStringLiteral("count")] = ns(h.count());
    o[QStringLiteral("minNs")] = ns(h.min());
    o[QStringLiteral("maxNs")] = ns(h.max());
    o[QStringLiteral("meanNs")] = h.mean();
    o[QStringLiteral("p50Ns")] = ns(h.percentile(0.5));
    o[QStringLiteral("p90Ns")] = ns(h.percentile(0.9));
    o[QStringLiteral("p99Ns")] = ns(h.percentile(0.99));
    o[QStringLiteral("p999Ns")] = ns(h.percentile(0.999));
    o[QStringLiteral("maxRelativeError")] = LatencyHistogram::kMaxRelativeError;
    QJsonArray buckets;
    for (const auto& b : h.buckets()) {
        buckets.append(QJsonArray{ns(b.low), ns(b.high), ns(b.count)});
    }
    o[QStringLiteral("buckets")] = buckets;
    return o;
}

QJsonObject tallyToJson(const StatementTally& t, bool openLoop) {
    QJsonObject o;
    o[QStringLiteral("statements")] = ns(t.statements);
    o[QStringLiteral("failed")] = ns(t.failed);
    o[QStringLiteral("cancelled")] = ns(t.cancelled);
    o[QStringLiteral("rows")] = ns(t.rows);
    o[QStringLiteral("contentBytes")] = ns(t.contentBytes);
    o[QStringLiteral("wireBytes")] = t.wireCounted() ? QJsonValue(ns(t.wireBytes)) : QJsonValue();
    o[QStringLiteral("latency")] = histogramToJson(t.latency);
    if (openLoop) {
        o[QStringLiteral("scheduleLag")] = histogramToJson(t.scheduleLag);
        o[QStringLiteral("late")] = ns(t.late);
    }
    o[QStringLiteral("disturbed")] = ns(t.disturbed);
    return o;
}

QJsonObject sessionsToJson(const SessionsOutcome& outcome, const SessionsFigures& figures, const std::string& runId,
                           const std::string& connection) {
    QJsonObject o;
    o[QStringLiteral("formatVersion")] = 1;
    o[QStringLiteral("tool")] = QStringLiteral("blobbench " BLOBBENCH_VERSION);
    o[QStringLiteral("kind")] = QStringLiteral("sessions");
    o[QStringLiteral("runId")] = qs(runId);
    o[QStringLiteral("connection")] = qs(connection);
    if (!outcome.sessions.empty() && outcome.sessions.front().connected) {
        o[QStringLiteral("session")] = sessionToJson(outcome.sessions.front().info);
    }
    o[QStringLiteral("sessions")] = static_cast<int>(outcome.sessions.size());
    o[QStringLiteral("mode")] = outcome.openLoop ? QStringLiteral("open") : QStringLiteral("closed");
    o[QStringLiteral("rate")] = outcome.openLoop ? QJsonValue(outcome.rate) : QJsonValue();
    o[QStringLiteral("rampUpNs")] = static_cast<double>(outcome.rampUp.count());
    o[QStringLiteral("windowNs")] = static_cast<double>(outcome.window.count());
    if (outcome.openLoop) {
        o[QStringLiteral("slotsDue")] = ns(outcome.slotsDue);
        o[QStringLiteral("slotsMissed")] = ns(outcome.slotsMissed);
    }
    o[QStringLiteral("link")] = qs(outcome.link);  // as in effect; "" when no link was emulated
    o[QStringLiteral("linkShared")] = outcome.linkShared;
    o[QStringLiteral("clientPauses")] = ns(outcome.clientPauses);
    o[QStringLiteral("clientPausedNs")] = static_cast<double>(outcome.clientPaused.count());
    o[QStringLiteral("ok")] = outcome.ok;
    o[QStringLiteral("error")] = qs(outcome.error);
    QJsonArray scenarios;
    for (const ScenarioFigures& f : figures.scenarios) {
        scenarios.append(scenarioToJson(f, outcome.openLoop));
    }
    o[QStringLiteral("scenarios")] = scenarios;
    o[QStringLiteral("all")] = scenarioToJson(figures.all, outcome.openLoop);
    o[QStringLiteral("connectionWireBytes")] =
        figures.connectionWireComplete ? QJsonValue(ns(figures.connectionWireBytes)) : QJsonValue();
    QJsonArray sessions;
    for (const SessionResult& s : outcome.sessions) {
        sessions.append(sessionResultToJson(s));
    }
    o[QStringLiteral("perSession")] = sessions;
    return o;
}

void writeSessionsJson(const QString& path, const QJsonObject& sessions) {
    writeFileAtomically(path, QJsonDocument(sessions).toJson(QJsonDocument::Indented));
}

void writeSessionsCsv(const QString& path, const SessionsOutcome& outcome, const SessionsFigures& figures) {
    QByteArray csv =
        "session,scenario,statements,failed,cancelled,rows,content_bytes,wire_bytes,statements_per_s,rows_per_s,"
        "content_mb_per_s,wire_mb_per_s,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,disturbed\n";
    for (std::size_t i = 0; i < outcome.sessions.size(); ++i) {
        for (const ScenarioFigures& f : figures.scenarios) {
            csv += csvRow(static_cast<int>(i + 1), f.id, f.perSession[i], f.perSessionRates[i]);
        }
        csv += csvRow(static_cast<int>(i + 1), "all", figures.all.perSession[i], figures.all.perSessionRates[i]);
    }
    writeFileAtomically(path, csv);
}

}  // namespace blobbench
