#include "model/ProjectFile.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "engine/core/Error.h"
#include "model/LoadJson.h"
#include "model/ProjectJsonInternal.h"
#include "model/SampleJson.h"

namespace blobbench {
using namespace projectjson;
namespace {

// ---------------------------------------------------------------------------------------------
// Writing: a small pretty printer, because QJsonDocument sorts the root like any other object and
// indents the samples of a long history over dozens of lines each.

void appendNumber(QByteArray& out, const QJsonValue& v) {
    constexpr qint64 none = std::numeric_limits<qint64>::min();
    const qint64 whole = v.toInteger(none);
    if (whole != none) {
        out += QByteArray::number(whole);
    } else {
        appendJsonNumber(out, v.toDouble());
    }
}

class JsonWriter {
public:
    QByteArray take() { return std::move(m_out); }
    QByteArray& raw() { return m_out; }
    void indent(int depth) { m_out.append(2 * depth, ' '); }

    void pretty(const QJsonValue& v, int depth, const QStringList* order = nullptr) {
        if (v.isObject()) {
            const QJsonObject o = v.toObject();
            if (o.isEmpty()) {
                m_out += "{}";
                return;
            }
            QStringList keys = o.keys();  // sorted
            if (order) {
                QStringList ordered;
                for (const auto& k : *order) {
                    if (o.contains(k)) {
                        ordered << k;
                    }
                }
                for (const auto& k : keys) {
                    if (!ordered.contains(k)) {
                        ordered << k;
                    }
                }
                keys = ordered;
            }
            m_out += "{\n";
            for (qsizetype i = 0; i < keys.size(); ++i) {
                indent(depth + 1);
                appendJsonString(m_out, keys[i]);
                m_out += ": ";
                const QJsonValue child = o.value(keys[i]);
                if (auto raw = m_raw.find({depth, keys[i]}); raw != m_raw.end()) {
                    raw->second(depth + 1);
                } else if (child.isArray() && keys[i] != QLatin1String("sql") && keys[i] != QLatin1String("setupSql") &&
                           inlineArray(child.toArray(), depth + 1)) {
                    // short lists of values on one line: ["0", "1024", "4096"]
                } else {
                    pretty(child, depth + 1);
                }
                m_out += i + 1 < keys.size() ? ",\n" : "\n";
            }
            indent(depth);
            m_out += '}';
        } else if (v.isArray()) {
            const QJsonArray a = v.toArray();
            if (a.isEmpty()) {
                m_out += "[]";
                return;
            }
            m_out += "[\n";
            for (qsizetype i = 0; i < a.size(); ++i) {
                indent(depth + 1);
                pretty(a.at(i), depth + 1);
                m_out += i + 1 < a.size() ? ",\n" : "\n";
            }
            indent(depth);
            m_out += ']';
        } else {
            scalar(v);
        }
    }

    // The value of `key` in the objects at `objectDepth` is written by `writer` instead (the
    // history, too long to go through QJsonObject); the object holds a placeholder for it.
    void setRaw(int objectDepth, const QString& key, std::function<void(int depth)> writer) {
        m_raw[{objectDepth, key}] = std::move(writer);
    }

    void compact(const QJsonValue& v) {
        if (v.isObject()) {
            const QJsonObject o = v.toObject();
            m_out += '{';
            bool first = true;
            for (auto it = o.begin(); it != o.end(); ++it) {
                if (!first) {
                    m_out += ',';
                }
                first = false;
                appendJsonString(m_out, it.key());
                m_out += ':';
                compact(it.value());
            }
            m_out += '}';
        } else if (v.isArray()) {
            const QJsonArray a = v.toArray();
            m_out += '[';
            for (qsizetype i = 0; i < a.size(); ++i) {
                if (i > 0) {
                    m_out += ',';
                }
                compact(a.at(i));
            }
            m_out += ']';
        } else {
            scalar(v);
        }
    }

private:
    bool inlineArray(const QJsonArray& a, int depth) {
        QByteArray line = "[";
        for (qsizetype i = 0; i < a.size(); ++i) {
            if (a.at(i).isArray() || a.at(i).isObject()) {
                return false;
            }
            if (i > 0) {
                line += ", ";
            }
            JsonWriter one;
            one.scalar(a.at(i));
            line += one.m_out;
        }
        line += ']';
        if (a.isEmpty() || line.size() + 2 * depth > 100) {
            return false;
        }
        m_out += line;
        return true;
    }
    void scalar(const QJsonValue& v) {
        if (v.isString()) {
            appendJsonString(m_out, v.toString());
        } else if (v.isBool()) {
            m_out += v.toBool() ? "true" : "false";
        } else if (v.isDouble()) {
            appendNumber(m_out, v);
        } else {
            m_out += "null";
        }
    }
    QByteArray m_out;
    std::map<std::pair<int, QString>, std::function<void(int)>> m_raw;
};

void putText(QJsonObject& o, const char* key, const QString& value) {
    if (!value.isEmpty()) {
        o[L(key)] = value;
    }
}

QJsonObject linkToJson(const LinkSettings& l) {
    QJsonObject o;
    o[L("latencyUpMs")] = l.latencyUpMs;
    o[L("latencyDownMs")] = l.latencyDownMs;
    o[L("bandwidthUpBits")] = l.bandwidthUpBits;
    o[L("bandwidthDownBits")] = l.bandwidthDownBits;
    return o;
}

QJsonObject whatIfToJson(const WhatIfSettings& w) {
    QJsonObject o;
    o[L("enabled")] = w.enabled;
    o[L("link")] = linkToJson(w.link);
    o[L("axis")] = w.axis;
    return o;
}

}  // namespace

namespace projectjson {

bool holdsPassword(const QString& target) {
    const std::string t = target.toStdString();
    return maskSecrets(t) != t;
}

const QString kPasswordAdvice =
    L("holds a password; remove it (passwords come at connect time, from the engine's environment "
      "variables such as PGPASSWORD or ISC_PASSWORD, .pgpass, or the keyring)");

}  // namespace projectjson

namespace {

QJsonObject connectionToJson(const ConnectionProfile& c, int index) {
    if (holdsPassword(c.target)) {
        throw Error(ErrorKind::Usage,
                    QString(L("connections[%1].target: ").arg(index) + kPasswordAdvice).toStdString());
    }
    QJsonObject o;
    o[L("name")] = c.name;
    o[L("engine")] = c.engine;
    o[L("target")] = c.target;
    putText(o, "user", c.user);
    putText(o, "role", c.role);
    putText(o, "charset", c.charset);
    putText(o, "clientLibrary", c.clientLibrary);
    if (!c.useWireTap) {
        o[L("useWireTap")] = false;  // on is the default: only turning it off is written
    }
    if (c.link != LinkSettings{}) {
        o[L("link")] = linkToJson(c.link);
    }
    return o;
}

// SQL of several lines is written as an array of lines, so that a change diffs as a changed line.
QJsonValue textOrLines(const QString& text) {
    if (!text.contains(QLatin1Char('\n'))) {
        return text;
    }
    return QJsonArray::fromStringList(text.split(QLatin1Char('\n')));
}

QJsonObject scenarioToJson(const ScenarioDef& s) {
    QJsonObject o;
    o[L("id")] = s.id;
    putText(o, "title", s.title);
    o[L("kind")] = s.kind;
    if (s.isStudy()) {  // a storage study: its options, no SQL
        QJsonObject options;
        for (const auto& [name, value] : s.options) {
            options[name] = value;
        }
        o[L("options")] = options;
        if (!s.enabled) {
            o[L("enabled")] = false;
        }
        return o;
    }
    o[L("fetch")] = s.fetch;
    if (!s.setupSql.isEmpty()) {
        o[L("setupSql")] = textOrLines(s.setupSql);
    }
    o[L("sql")] = textOrLines(s.sql);
    putText(o, "scalarLabel", s.scalarLabel);
    if (!s.enabled) {
        o[L("enabled")] = false;
    }
    return o;
}

// Seeds are kept below 2^63 so that they read back as the whole numbers they are.
qint64 seedValue(quint64 seed, const QString& what) {
    if (seed > static_cast<quint64>(std::numeric_limits<qint64>::max())) {
        throw Error(ErrorKind::Usage,
                    QString(what + QLatin1String(": a seed above 2^63 - 1 cannot be saved")).toStdString());
    }
    return static_cast<qint64>(seed);
}

QJsonObject sweepToJson(const SweepDef& s) {
    QJsonObject o;
    o[L("name")] = s.name;
    QJsonArray axes;
    for (const auto& a : s.axes) {
        QJsonObject axis;
        axis[L("parameter")] = a.parameter;
        if (a.range) {
            QJsonObject r;
            r[L("from")] = a.range->from;
            r[L("to")] = a.range->to;
            r[L("points")] = a.range->points;
            r[L("spacing")] = a.range->logarithmic ? L("log") : L("linear");
            axis[L("range")] = r;
        } else {
            axis[L("values")] = QJsonArray::fromStringList(a.values);
        }
        axes.append(axis);
    }
    o[L("axes")] = axes;
    o[L("repetitions")] = s.repetitions;
    o[L("warmups")] = s.warmups;
    o[L("randomOrder")] = s.randomOrder;
    if (s.seed != 0) {
        o[L("seed")] = seedValue(s.seed, L("sweeps: seed"));
    }
    return o;
}

}  // namespace

namespace projectjson {

// Samples of one run share most of their context (SQL, versions, tunables and their effects): what
// every sample of a scenario at a sweep point has in common is written once, in sampleDefaults,
// and each sample keeps only the rest (always its scenario and point, which find its group).
// Written from sampleJsonFields() straight to bytes: a history of 100,000 samples is too long to
// go through QJsonObject.
QJsonObject runHeaderJson(const RunRecord& r) {
    QJsonObject header;
    header[L("runId")] = r.runId;
    putText(header, "startedAt", r.startedAt);
    putText(header, "finishedAt", r.finishedAt);
    putText(header, "outcome", r.outcome);
    putText(header, "machine", r.machine);
    putText(header, "connection", r.connectionName);
    putText(header, "sweep", r.sweepName);
    putText(header, "toolVersion", r.toolVersion);
    if (r.orderSeed != 0) {
        header[L("orderSeed")] = seedValue(r.orderSeed, L("history: orderSeed"));
    }
    if (r.link != LinkSettings{}) {
        header[L("link")] = linkToJson(r.link);
    }
    return header;
}

}  // namespace projectjson

namespace {

void writeRun(JsonWriter& w, const RunRecord& r, int depth) {
    QJsonObject header = runHeaderJson(r);
    if (!r.loads.empty()) {
        QJsonArray loads;
        for (const LoadPoint& p : r.loads) {
            loads.append(loadPointToJson(p));
        }
        header[L("loads")] = loads;
    }
    std::vector<SampleFields> samples;
    samples.reserve(r.samples.size());
    // (scenario, point) -> the samples of the group, in order
    std::map<std::pair<QByteArray, QByteArray>, std::vector<std::size_t>> groups;
    for (const auto& s : r.samples) {
        samples.push_back(sampleJsonFields(s));
        QByteArray scenario;
        QByteArray point;
        for (const auto& [key, value] : samples.back()) {
            if (std::strcmp(key, "scenario") == 0) {
                scenario = value;
            } else if (std::strcmp(key, "point") == 0) {
                point = value;
            }
        }
        groups[{scenario, point}].push_back(samples.size() - 1);
    }
    std::vector<std::vector<bool>> elided(samples.size());
    QByteArray defaults;
    for (const auto& [key, members] : groups) {
        if (members.size() < 2) {
            continue;
        }
        const SampleFields& first = samples[members.front()];
        std::vector<bool> common(first.size(), true);
        for (std::size_t k = 0; k < first.size(); ++k) {
            const char* name = first[k].first;
            if (std::strcmp(name, "scenario") == 0 || std::strcmp(name, "point") == 0) {
                common[k] = false;
                continue;
            }
            for (std::size_t m = 1; m < members.size() && common[k]; ++m) {
                const SampleFields& other = samples[members[m]];
                // The keys are the same literals in the same order unless optional ones differ.
                if (k < other.size() && other[k].first == name) {
                    common[k] = other[k].second == first[k].second;
                    continue;
                }
                auto it = std::find_if(other.begin(), other.end(),
                                       [&](const auto& f) { return std::strcmp(f.first, name) == 0; });
                common[k] = it != other.end() && it->second == first[k].second;
            }
        }
        if (std::none_of(common.begin(), common.end(), [](bool c) { return c; })) {
            continue;
        }
        QByteArray values = "{";
        for (std::size_t k = 0; k < first.size(); ++k) {
            if (common[k]) {
                if (values.size() > 1) {
                    values += ',';
                }
                values += '"' + QByteArray(first[k].first) + "\":" + first[k].second;
            }
        }
        values += '}';
        defaults += defaults.isEmpty() ? "[\n" : ",\n";
        defaults.append(2 * (depth + 2), ' ');
        defaults += key.second.isEmpty() ? QByteArray() : "{\"point\":" + key.second + ',';
        defaults +=
            (key.second.isEmpty() ? "{" : "") + QByteArray("\"scenario\":") + key.first + ",\"values\":" + values + '}';
        for (std::size_t m : members) {
            const SampleFields& fields = samples[m];
            std::vector<bool>& skip = elided[m];
            skip.assign(fields.size(), false);
            for (std::size_t k = 0; k < first.size(); ++k) {
                if (!common[k]) {
                    continue;
                }
                if (k < fields.size() && fields[k].first == first[k].first) {
                    skip[k] = true;
                    continue;
                }
                for (std::size_t j = 0; j < fields.size(); ++j) {
                    if (std::strcmp(fields[j].first, first[k].first) == 0) {
                        skip[j] = true;
                    }
                }
            }
        }
    }
    const bool hasDefaults = !defaults.isEmpty();
    if (hasDefaults) {
        defaults += '\n';
        defaults.append(2 * (depth + 1), ' ');
        defaults += ']';
        header[L("sampleDefaults")] = QJsonValue();  // placeholders for the raw writer
    }
    header[L("samples")] = QJsonValue();
    QByteArray samplesText;
    if (samples.empty()) {
        samplesText = "[]";
    } else {
        samplesText.reserve(static_cast<qsizetype>(samples.size()) * 256);
        samplesText += "[\n";
        for (std::size_t m = 0; m < samples.size(); ++m) {
            samplesText.append(2 * (depth + 2), ' ');
            samplesText += '{';
            bool firstKey = true;
            for (std::size_t j = 0; j < samples[m].size(); ++j) {
                if (!elided[m].empty() && elided[m][j]) {
                    continue;
                }
                if (!firstKey) {
                    samplesText += ',';
                }
                firstKey = false;
                samplesText += '"';
                samplesText += samples[m][j].first;
                samplesText += "\":";
                samplesText += samples[m][j].second;
            }
            samplesText += m + 1 < samples.size() ? "},\n" : "}\n";
        }
        samplesText.append(2 * (depth + 1), ' ');
        samplesText += ']';
    }
    JsonWriter out;
    out.setRaw(depth, L("sampleDefaults"), [&](int) { out.raw() += defaults; });
    out.setRaw(depth, L("samples"), [&](int) { out.raw() += samplesText; });
    out.pretty(header, depth);
    w.raw() += out.take();
}

const QStringList kRootOrder = {L("formatVersion"), L("name"),      L("connections"), L("currentConnection"),
                                L("parameters"),    L("scenarios"), L("sweeps"),      L("chartSettings"),
                                L("whatIf"),        L("history")};

}  // namespace

QByteArray projectToJson(const Project& project) {
    QJsonObject root;
    root[L("formatVersion")] = kProjectFormatVersion;
    root[L("name")] = project.name;
    QJsonArray connections;
    for (std::size_t i = 0; i < project.connections.size(); ++i) {
        connections.append(connectionToJson(project.connections[i], static_cast<int>(i)));
    }
    root[L("connections")] = connections;
    root[L("currentConnection")] = project.currentConnection;
    QJsonObject parameters;
    for (const auto& [engine, values] : project.parameters) {
        QJsonObject o;
        for (const auto& [id, value] : values) {
            o[qs(id)] = qs(value);
        }
        parameters[engine] = o;
    }
    root[L("parameters")] = parameters;
    QJsonArray scenarios;
    for (const auto& s : project.scenarios) {
        scenarios.append(scenarioToJson(s));
    }
    root[L("scenarios")] = scenarios;
    QJsonArray sweeps;
    for (const auto& s : project.sweeps) {
        sweeps.append(sweepToJson(s));
    }
    root[L("sweeps")] = sweeps;
    root[L("chartSettings")] = project.chartSettings;
    if (project.whatIf != WhatIfSettings{}) {  // older files have none: the defaults
        root[L("whatIf")] = whatIfToJson(project.whatIf);
    }
    root[L("history")] = QJsonValue();  // written raw, below
    JsonWriter writer;
    writer.setRaw(0, L("history"), [&](int depth) {
        QByteArray& out = writer.raw();
        if (project.history.empty()) {
            out += "[]";
            return;
        }
        out += "[\n";
        for (std::size_t i = 0; i < project.history.size(); ++i) {
            writer.indent(depth + 1);
            writeRun(writer, project.history[i], depth + 1);
            out += i + 1 < project.history.size() ? ",\n" : "\n";
        }
        writer.indent(depth);
        out += ']';
    });
    writer.pretty(root, 0, &kRootOrder);
    QByteArray out = writer.take();
    out += '\n';
    return out;
}

}  // namespace blobbench
