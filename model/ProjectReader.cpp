#include "model/ProjectFile.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "model/LoadJson.h"
#include "model/ProjectJsonInternal.h"
#include "model/SampleJson.h"

namespace blobbench {
using namespace projectjson;
namespace {

constexpr qint64 kMaxLatencyMs = 3600 * 1000;      // an hour each way
constexpr qint64 kMaxBandwidth = qint64(1) << 50;  // bit/s: far above any link

LinkSettings linkFromJson(const QJsonValue& v, const QString& path) {
    const QJsonObject o = object(v, path);
    Fields f(o, path, {"latencyUpMs", "latencyDownMs", "bandwidthUpBits", "bandwidthDownBits"});
    LinkSettings l;
    l.latencyUpMs = static_cast<int>(f.whole("latencyUpMs", 0, kMaxLatencyMs, 0));
    l.latencyDownMs = static_cast<int>(f.whole("latencyDownMs", 0, kMaxLatencyMs, 0));
    l.bandwidthUpBits = f.whole("bandwidthUpBits", 0, kMaxBandwidth, 0);
    l.bandwidthDownBits = f.whole("bandwidthDownBits", 0, kMaxBandwidth, 0);
    return l;
}

WhatIfSettings whatIfFromJson(const QJsonValue& v, const QString& path) {
    const QJsonObject o = object(v, path);
    Fields f(o, path, {"enabled", "link", "axis"});
    WhatIfSettings w;
    w.enabled = f.boolean("enabled", false);
    if (f.has("link")) {
        w.link = linkFromJson(f["link"], f.path("link"));
    }
    if (f.has("axis")) {
        w.axis = oneOf(f["axis"], f.path("axis"), {"latency", "bandwidth"});
    }
    return w;
}

ConnectionProfile connectionFromJson(const QJsonValue& v, const QString& path) {
    const QJsonObject o = object(v, path);
    Fields f(o, path, {"name", "engine", "target", "user", "role", "charset", "clientLibrary", "useWireTap", "link"},
             {"name", "engine", "target"});
    ConnectionProfile c;
    c.name = f.text("name");
    c.engine = f.text("engine");
    if (c.engine.isEmpty()) {
        refuse(f.path("engine"), L("empty (name the engine: sqlite, firebird, postgres, ...)"));
    }
    c.target = f.text("target");
    if (holdsPassword(c.target)) {
        refuse(f.path("target"), kPasswordAdvice);
    }
    c.user = f.text("user");
    c.role = f.text("role");
    c.charset = f.text("charset");
    c.clientLibrary = f.text("clientLibrary");
    c.useWireTap = f.boolean("useWireTap", true);
    if (f.has("link")) {
        c.link = linkFromJson(f["link"], f.path("link"));
    }
    return c;
}

// A string, or an array of lines (as textOrLines() writes multi-line SQL).
QString textFromLines(const QJsonValue& v, const QString& path) {
    if (v.isString()) {
        return text(v, path, kMaxTextLength);
    }
    if (!v.isArray()) {
        expected(path, "a string or an array of lines", v);
    }
    const QJsonArray a = v.toArray();
    QStringList lines;
    qsizetype total = 0;
    for (qsizetype i = 0; i < a.size(); ++i) {
        lines << text(a.at(i), item(path, i), kMaxTextLength);
        total += lines.back().size() + 1;
        if (total > kMaxTextLength) {
            refuse(path, L("text longer than the limit of %1 characters").arg(kMaxTextLength));
        }
    }
    return lines.join(QLatin1Char('\n'));
}

ScenarioDef scenarioFromJson(const QJsonValue& v, const QString& path) {
    const QJsonObject o = object(v, path);
    Fields f(o, path, {"id", "title", "kind", "fetch", "setupSql", "sql", "scalarLabel", "enabled", "options"}, {"id"});
    ScenarioDef s;
    s.id = f.text("id");
    if (s.id.isEmpty()) {
        refuse(f.path("id"), L("empty (a scenario needs an id)"));
    }
    s.title = f.text("title");
    if (f.has("kind")) {
        s.kind = oneOf(f["kind"], f.path("kind"), {"query", "scalar", "keyed-read", "footprint", "insert"});
    }
    if (s.isStudy()) {
        for (const char* k : {"fetch", "setupSql", "sql", "scalarLabel"}) {
            if (f.has(k)) {
                refuse(f.path(k),
                       L("a storage study (kind %1) has no %2: its options say what it runs").arg(s.kind, L(k)));
            }
        }
        storage::StudyOptions options;
        if (f.has("options")) {
            const QJsonObject oo = object(f["options"], f.path("options"));
            for (auto it = oo.begin(); it != oo.end(); ++it) {
                const QString at = child(f.path("options"), it.key().left(64));
                const QJsonValue value = it.value();
                QString textValue;
                if (value.isBool()) {
                    textValue = value.toBool() ? L("true") : L("false");
                } else if (value.isDouble()) {
                    textValue = QString::number(whole(value, at, 0, std::numeric_limits<qint64>::max()));
                } else {
                    textValue = text(value, at, kMaxShortText);
                }
                s.options[it.key()] = textValue;
                options[it.key().toStdString()] = textValue.toStdString();
            }
        }
        if (options.count("directory") == 0) {
            options["directory"] = "${DATA}";  // the default, checked when the study runs
        }
        try {
            storage::parseStudy(s.kind.toStdString(), options);
        } catch (const storage::StudyOptionError& e) {
            refuse(child(f.path("options"), QString::fromStdString(e.option()).left(64)),
                   QString::fromStdString(e.why()));
        }
        s.enabled = f.boolean("enabled", true);
        return s;
    }
    if (f.has("options")) {
        refuse(f.path("options"), L("only storage studies (keyed-read, footprint, insert) take options"));
    }
    if (!f.has("sql")) {
        refuse(f.path("sql"), L("missing"));
    }
    if (f.has("fetch")) {
        s.fetch = oneOf(f["fetch"], f.path("fetch"), {"content", "ids-only"});
    }
    s.setupSql = f.has("setupSql") ? textFromLines(f["setupSql"], f.path("setupSql")) : QString();
    s.sql = textFromLines(f["sql"], f.path("sql"));
    s.scalarLabel = f.text("scalarLabel");
    s.enabled = f.boolean("enabled", true);
    return s;
}

SweepDef sweepFromJson(const QJsonValue& v, const QString& path) {
    const QJsonObject o = object(v, path);
    Fields f(o, path, {"name", "axes", "repetitions", "warmups", "randomOrder", "seed"}, {"name", "axes"});
    SweepDef s;
    s.name = f.text("name");
    if (s.name.isEmpty()) {
        refuse(f.path("name"), L("empty (a sweep needs a name)"));
    }
    const QJsonArray axes = array(f["axes"], f.path("axes"), 2);
    if (axes.isEmpty()) {
        refuse(f.path("axes"), L("no axis (a sweep needs one tunable, or two for a grid)"));
    }
    for (qsizetype i = 0; i < axes.size(); ++i) {
        const QString at = item(f.path("axes"), i);
        const QJsonObject ao = object(axes.at(i), at);
        Fields a(ao, at, {"parameter", "values", "range"}, {"parameter"});
        SweepAxis axis;
        axis.parameter = a.text("parameter");
        if (a.has("values") == a.has("range")) {
            refuse(at, L("give either values or range"));
        }
        if (a.has("values")) {
            const QJsonArray values = array(a["values"], a.path("values"), static_cast<qsizetype>(kMaxSweepPoints));
            for (qsizetype j = 0; j < values.size(); ++j) {
                const QJsonValue value = values.at(j);
                // Numbers are accepted for convenience and kept as text: tunables are text-valued.
                if (value.isDouble()) {
                    axis.values << QString::number(whole(value, item(a.path("values"), j),
                                                         std::numeric_limits<qint64>::min() + 1,
                                                         std::numeric_limits<qint64>::max()));
                } else if (value.isBool()) {
                    axis.values << (value.toBool() ? L("true") : L("false"));
                } else {
                    axis.values << text(value, item(a.path("values"), j), kMaxShortText);
                }
            }
        } else {
            const QString rp = a.path("range");
            const QJsonObject ro = object(a["range"], rp);
            Fields r(ro, rp, {"from", "to", "points", "spacing"}, {"from", "to", "points"});
            SweepRangeDef range;
            constexpr qint64 big = qint64(1) << 62;
            range.from = r.whole("from", -big, big, 0);
            range.to = r.whole("to", -big, big, 0);
            range.points = static_cast<int>(r.whole("points", 0, static_cast<qint64>(kMaxSweepPoints), 0));
            if (r.has("spacing")) {
                range.logarithmic = oneOf(r["spacing"], r.path("spacing"), {"linear", "log"}) == QLatin1String("log");
            }
            axis.range = range;
        }
        s.axes.push_back(axis);
    }
    s.repetitions = static_cast<int>(f.whole("repetitions", 1, kMaxCount, 1));
    s.warmups = static_cast<int>(f.whole("warmups", 0, kMaxCount, 0));
    s.randomOrder = f.boolean("randomOrder", false);
    s.seed = static_cast<quint64>(f.whole("seed", 0, std::numeric_limits<qint64>::max(), 0));
    try {
        expandSweep(s.toSpec());  // zero points, inverted ranges, the same tunable twice
    } catch (const Error& e) {
        refuse(path, QString::fromStdString(e.what()));
    }
    return s;
}

}  // namespace

namespace projectjson {

RunRecord runFromJson(QJsonObject o, const QString& path) {
    Fields f(o, path,
             {"runId", "startedAt", "finishedAt", "outcome", "machine", "connection", "sweep", "toolVersion",
              "orderSeed", "link", "loads", "sampleDefaults", "samples"},
             {"runId"});
    RunRecord r;
    r.runId = f.text("runId");
    if (r.runId.isEmpty()) {
        refuse(f.path("runId"), L("empty (a run needs an id)"));
    }
    r.startedAt = f.text("startedAt");
    r.finishedAt = f.text("finishedAt");
    r.outcome = f.text("outcome", kMaxTextLength);
    r.machine = f.text("machine");
    r.connectionName = f.text("connection");
    r.sweepName = f.text("sweep");
    r.toolVersion = f.text("toolVersion");
    r.orderSeed = static_cast<quint64>(f.whole("orderSeed", 0, std::numeric_limits<qint64>::max(), 0));
    if (f.has("link")) {
        r.link = linkFromJson(f["link"], f.path("link"));
    }
    if (f.has("loads")) {
        const QString lp = f.path("loads");
        const QJsonArray loads = array(f["loads"], lp, static_cast<qsizetype>(kMaxCount));
        for (qsizetype i = 0; i < loads.size(); ++i) {
            const QString at = item(lp, i);
            r.loads.push_back(loadPointFromJson(object(loads.at(i), at), at));
            r.loads.back().runId = r.runId.toStdString();
        }
    }
    // (scenario, point) -> the group's sample and which keys it sets
    struct Group {
        Sample base;  // without its trace: a copy for each sample would pass the load's budget unseen
        QStringList keys;
        std::optional<ExchangeTrace> trace;
        Shared<std::string> traceText;
    };
    std::map<std::pair<std::string, std::map<std::string, std::string>>, Group> groups;
    if (f.has("sampleDefaults")) {
        const QString dp = f.path("sampleDefaults");
        const QJsonArray defaults = array(f["sampleDefaults"], dp, static_cast<qsizetype>(kMaxCount));
        for (qsizetype i = 0; i < defaults.size(); ++i) {
            const QString at = item(dp, i);
            const QJsonObject go = object(defaults.at(i), at);
            Fields g(go, at, {"scenario", "point", "values"}, {"scenario", "values"});
            const QString scenario = g.text("scenario");
            std::map<std::string, std::string> point;
            if (g.has("point")) {
                stringMap(g["point"], g.path("point"));
                point = sampleFromJson(QJsonObject{{L("point"), g["point"]}}).point;
            }
            const QJsonObject values = object(g["values"], g.path("values"));
            if (values.contains(L("scenario")) || values.contains(L("point"))) {
                refuse(g.path("values"), L("scenario and point belong beside values, not in them"));
            }
            sampleCheck(values, g.path("values"), false);
            Group group;
            group.base.scenarioId = scenario.toStdString();
            group.base.point = point;
            applySampleJson(group.base, values);
            if (group.base.trace) {
                group.trace = std::move(group.base.trace);
                group.base.trace.reset();
                group.traceText = values.value(L("wire")).toObject().value(L("trace")).toString().toStdString();
            }
            group.keys = values.keys();
            if (!groups.emplace(std::make_pair(group.base.scenarioId, point), std::move(group)).second) {
                refuse(at, L("a second group for scenario '%1' at the same point").arg(scenario.left(64)));
            }
        }
    }
    if (!f.has("samples")) {
        return r;
    }
    const QString samplesPath = f.path("samples");
    QJsonArray samples = array(f["samples"], samplesPath, std::numeric_limits<int>::max());
    o = QJsonObject();  // the samples array now holds the only reference: each sample is freed once read
    r.samples.reserve(static_cast<std::size_t>(samples.size()));
    const Group none;
    const Group* group = nullptr;
    SampleContextSharing context;
    QJsonValue lastScenario;
    QJsonValue lastPoint;
    for (qsizetype i = 0; i < samples.size(); ++i) {
        const QString at = item(samplesPath, i);
        const QJsonObject s = object(samples.at(i), at);
        samples[i] = QJsonValue();
        sampleCheck(s, at, false);
        if (!s.contains(L("scenario"))) {
            refuse(child(at, L("scenario")), L("missing"));
        }
        // Consecutive samples mostly share their group: look it up only when scenario or point change.
        const QJsonValue scenarioValue = s.value(L("scenario"));
        const QJsonValue pointValue = s.value(L("point"));
        if (group == nullptr || scenarioValue != lastScenario || pointValue != lastPoint) {
            std::map<std::string, std::string> point;
            if (pointValue.isObject()) {
                const QJsonObject po = pointValue.toObject();
                for (auto it = po.begin(); it != po.end(); ++it) {
                    point[it.key().toStdString()] = it.value().toString().toStdString();
                }
            }
            auto g = groups.find({scenarioValue.toString().toStdString(), point});
            group = g == groups.end() ? &none : &g->second;
            lastScenario = scenarioValue;
            lastPoint = pointValue;
        }
        for (const char* required : {"repetition", "phases", "status"}) {
            if (!s.contains(L(required)) && !group->keys.contains(L(required))) {
                refuse(child(at, L(required)), L("missing"));
            }
        }
        Sample sample = group->base;
        if (group->trace && !s.contains(L("wire"))) {
            // A copy counts as a decode does (twice: see TraceLoadScope) and past a Keep budget
            // stays the group's text, shared: 60 samples of one maximal group trace took 6 GB.
            try {
                if (takeTraceBudget(2 * group->trace->exchanges.size())) {
                    sample.trace = group->trace;
                } else {
                    sample.unreadTrace = group->traceText;
                }
            } catch (const Error& e) {
                refuse(child(at, L("wire.trace")), QString::fromStdString(e.what()));
            }
        }
        applySampleJson(sample, s);
        context.share(sample);
        r.samples.push_back(std::move(sample));
    }
    return r;
}

}  // namespace projectjson

namespace {

void parametersCheck(const QJsonValue& v, const QString& path, std::map<QString, ParameterValues>& out) {
    const QJsonObject o = object(v, path);
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString engine = it.key();
        const QString at = child(path, engine.left(64));
        const QJsonObject values = object(it.value(), at);
        ParameterValues given;
        for (auto jt = values.begin(); jt != values.end(); ++jt) {
            given[jt.key().toStdString()] = text(jt.value(), child(at, jt.key().left(64)), kMaxShortText).toStdString();
        }
        // Checked against the engine's declarations when this build has the engine.
        for (const Driver* driver : allDrivers()) {
            if (QString::fromStdString(driver->id()) == engine) {
                try {
                    resolveParameters(driver->parameters(), given);
                } catch (const Error& e) {
                    refuse(at, QString::fromStdString(e.what()));
                }
            }
        }
        out[engine] = given;
    }
}

const Driver* registeredDriver(const QString& engine) {
    for (const Driver* driver : allDrivers()) {
        if (QString::fromStdString(driver->id()) == engine) {
            return driver;
        }
    }
    return nullptr;
}

// Older formats are brought up to date one version at a time; version 1 is the first, so the
// chain is empty today. A migration takes the root object of version N and returns version N + 1.
using Migration = QJsonObject (*)(QJsonObject);
const std::vector<Migration>& migrations() {
    static const std::vector<Migration> chain;  // chain[i]: version i + 1 -> i + 2
    return chain;
}

}  // namespace

Project projectFromJson(QByteArray bytes) {
    const TraceLoadScope traces(2);  // each trace is decoded twice: sampleCheck(), then applySampleJson()
    if (bytes.trimmed().isEmpty()) {
        refuse({}, L("empty file: not a BlobBench project"));
    }
    if (bytes.size() > kMaxProjectFileBytes) {
        refuse({}, L("%1 bytes exceed the limit of %2 for a project file").arg(bytes.size()).arg(kMaxProjectFileBytes));
    }
    hostileShapeCheck(bytes);
    QJsonParseError error;
    QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError) {
        const QByteArray before = bytes.left(error.offset);
        const qsizetype line = before.count('\n') + 1;
        const qsizetype column = error.offset - (before.lastIndexOf('\n') + 1) + 1;
        refuse(L("line %1, column %2").arg(line).arg(column), L("not valid JSON: ") + error.errorString());
    }
    keysAndTextCheck(bytes);
    bytes = QByteArray();  // the document holds everything now: the text need not outlive it (loadProject moves it in)
    if (!doc.isObject()) {
        refuse(L("(root)"), L("expected an object, found %1").arg(L(doc.isArray() ? "an array" : "nothing")));
    }
    QJsonObject root = doc.object();
    doc = QJsonDocument();  // `root` holds the only reference, so history can be freed as it is read
    if (!root.contains(L("formatVersion"))) {
        refuse(L("formatVersion"), L("missing: not a BlobBench project file"));
    }
    const QJsonValue versionValue = root.value(L("formatVersion"));
    if (!versionValue.isDouble() || versionValue.toInteger(-1) < 1) {
        refuse(L("formatVersion"), L("expected a whole number >= 1"));
    }
    const qint64 version = versionValue.toInteger();
    if (version > kProjectFormatVersion) {
        refuse(L("formatVersion"), L("this file was written by a newer BlobBench (format %1; this version reads up to "
                                     "%2): please update BlobBench to open it")
                                       .arg(version)
                                       .arg(kProjectFormatVersion));
    }
    for (qint64 v = version; v < kProjectFormatVersion; ++v) {
        root = migrations()[static_cast<std::size_t>(v - 1)](root);
    }

    Fields f(root, {},
             {"formatVersion", "name", "connections", "currentConnection", "parameters", "scenarios", "sweeps",
              "chartSettings", "whatIf", "history"});
    Project p;
    p.name = f.text("name");
    if (f.has("connections")) {
        const QJsonArray a = array(f["connections"], f.path("connections"), 10000);
        for (qsizetype i = 0; i < a.size(); ++i) {
            p.connections.push_back(connectionFromJson(a.at(i), item(f.path("connections"), i)));
        }
    }
    p.currentConnection = static_cast<int>(
        f.whole("currentConnection", 0, std::max<qint64>(0, static_cast<qint64>(p.connections.size()) - 1), 0));
    if (f.has("parameters")) {
        parametersCheck(f["parameters"], f.path("parameters"), p.parameters);
    }
    if (f.has("scenarios")) {
        const QJsonArray a = array(f["scenarios"], f.path("scenarios"), 10000);
        std::set<QString> ids;
        for (qsizetype i = 0; i < a.size(); ++i) {
            ScenarioDef s = scenarioFromJson(a.at(i), item(f.path("scenarios"), i));
            if (!ids.insert(s.id).second) {
                refuse(item(f.path("scenarios"), i) + L(".id"), L("'%1' is used by an earlier scenario").arg(s.id));
            }
            p.scenarios.push_back(std::move(s));
        }
    }
    if (f.has("sweeps")) {
        const QJsonArray a = array(f["sweeps"], f.path("sweeps"), 10000);
        std::set<QString> names;
        const ConnectionProfile* current = p.current();
        const Driver* driver = current ? registeredDriver(current->engine) : nullptr;
        for (qsizetype i = 0; i < a.size(); ++i) {
            const QString at = item(f.path("sweeps"), i);
            SweepDef s = sweepFromJson(a.at(i), at);
            if (!names.insert(s.name).second) {
                refuse(at + L(".name"), L("'%1' is used by an earlier sweep").arg(s.name));
            }
            // Checked against the current connection's engine when this build has it.
            if (driver != nullptr) {
                try {
                    validatedPoints(s.toSpec(), driver->parameters());
                } catch (const Error& e) {
                    refuse(at, QString::fromStdString(e.what()));
                }
            }
            p.sweeps.push_back(std::move(s));
        }
    }
    if (f.has("chartSettings")) {
        p.chartSettings = object(f["chartSettings"], f.path("chartSettings"));
    }
    if (f.has("whatIf")) {
        p.whatIf = whatIfFromJson(f["whatIf"], f.path("whatIf"));
    }
    if (f.has("history")) {
        QJsonArray history = array(f["history"], f.path("history"), 100000);
        root = QJsonObject();
        for (qsizetype i = 0; i < history.size(); ++i) {
            const QString at = item(L("history"), i);
            QJsonObject run = object(history.at(i), at);
            history[i] = QJsonValue();
            p.history.push_back(runFromJson(std::move(run), at));
        }
    }
    return p;
}

}  // namespace blobbench
