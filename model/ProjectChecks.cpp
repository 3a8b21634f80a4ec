#include "model/ProjectFile.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <cstring>
#include <limits>
#include <set>
#include <vector>

#include "engine/core/Error.h"
#include "model/ProjectJsonInternal.h"
#include "model/SampleJson.h"

namespace blobbench {
using namespace projectjson;
namespace projectjson {

[[noreturn]] void refuse(const QString& path, const QString& what) {
    throw Error(ErrorKind::Data, (path.isEmpty() ? what : QString(path + QLatin1String(": ") + what)).toStdString());
}

// ---------------------------------------------------------------------------------------------
// Reading: every value checked, with the JSON path of the first one that is wrong.

QString child(const QString& path, const QString& key) {
    return path.isEmpty() ? key : path + QLatin1Char('.') + key;
}
QString item(const QString& path, qsizetype i) {
    return path + QLatin1Char('[') + QString::number(i) + QLatin1Char(']');
}

namespace {

const char* typeName(const QJsonValue& v) {
    switch (v.type()) {
        case QJsonValue::Null:
            return "null";
        case QJsonValue::Bool:
            return "a boolean";
        case QJsonValue::Double:
            return "a number";
        case QJsonValue::String:
            return "a string";
        case QJsonValue::Array:
            return "an array";
        case QJsonValue::Object:
            return "an object";
        case QJsonValue::Undefined:
            break;
    }
    return "nothing";
}

}  // namespace

[[noreturn]] void expected(const QString& path, const char* what, const QJsonValue& v) {
    refuse(path, L("expected %1, found %2").arg(L(what), L(typeName(v))));
}

QString text(const QJsonValue& v, const QString& path, int maxLength) {
    if (!v.isString()) {
        expected(path, "a string", v);
    }
    QString s = v.toString();
    if (s.size() > maxLength) {
        refuse(path, L("string of %1 characters is longer than the limit of %2").arg(s.size()).arg(maxLength));
    }
    return s;
}

qint64 whole(const QJsonValue& v, const QString& path, qint64 minimum, qint64 maximum) {
    if (!v.isDouble()) {
        expected(path, "a whole number", v);
    }
    constexpr qint64 none = std::numeric_limits<qint64>::min();
    const qint64 n = v.toInteger(none);
    if (n == none || n < minimum || n > maximum) {
        refuse(path, L("expected a whole number in %1..%2").arg(minimum).arg(maximum));
    }
    return n;
}

bool boolean(const QJsonValue& v, const QString& path) {
    if (!v.isBool()) {
        expected(path, "true or false", v);
    }
    return v.toBool();
}

QJsonObject object(const QJsonValue& v, const QString& path) {
    if (!v.isObject()) {
        expected(path, "an object", v);
    }
    return v.toObject();
}

QJsonArray array(const QJsonValue& v, const QString& path, qsizetype maxSize) {
    if (!v.isArray()) {
        expected(path, "an array", v);
    }
    QJsonArray a = v.toArray();
    if (a.size() > maxSize) {
        refuse(path, L("%1 entries exceed the limit of %2").arg(a.size()).arg(maxSize));
    }
    return a;
}

QString oneOf(const QJsonValue& v, const QString& path, std::initializer_list<const char*> choices) {
    QString s = text(v, path, kMaxShortText);
    QStringList names;
    for (const char* c : choices) {
        if (s == QLatin1String(c)) {
            return s;
        }
        names << L(c);
    }
    refuse(path, L("'%1' is not one of %2").arg(s.left(64), names.join(QLatin1String(", "))));
}

void stringMap(const QJsonValue& v, const QString& path) {
    const QJsonObject o = object(v, path);
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QJsonValue value = it.value();
        if (!value.isString() || value.toString().size() > kMaxShortText) {
            text(value, child(path, it.key().left(64)), kMaxShortText);
        }
    }
}

namespace {

void wireStatsCheck(const QJsonValue& v, const QString& path) {
    const QJsonObject o = object(v, path);
    Fields f(o, path,
             {"available", "reason", "method", "sendPackets", "recvPackets", "sendBytes", "recvBytes", "roundTrips",
              "compressed"},
             {"available"});
    f.boolean("available", false);
    f.text("reason");
    if (f.has("method")) {  // how the counts were taken (docs/wire.md)
        oneOf(f["method"], f.path("method"), {"relay", "in-process"});
    }
    for (const char* k : {"sendPackets", "recvPackets", "sendBytes", "recvBytes", "roundTrips"}) {
        f.whole(k, 0, std::numeric_limits<qint64>::max(), 0);
    }
    if (f.has("compressed")) {  // the compression estimate (zlib-6 / zstd-3), labelled as one
        const QJsonObject c = object(f["compressed"], f.path("compressed"));
        Fields e(c, f.path("compressed"),
                 {"estimate", "zlibSendBytes", "zlibRecvBytes", "zstdSendBytes", "zstdRecvBytes"}, {"estimate"});
        if (!e.boolean("estimate", false)) {
            refuse(e.path("estimate"), L("must be true: compressed sizes are estimates, never measured counts"));
        }
        for (const char* k : {"zlibSendBytes", "zlibRecvBytes", "zstdSendBytes", "zstdRecvBytes"}) {
            e.whole(k, 0, std::numeric_limits<qint64>::max(), 0);
        }
    }
}

// The common effect, checked without building its JSON path: an object of short strings under
// the known keys, "id" among them, and an optional boolean "inEffect". Anything else goes through
// the full check, which names what is wrong.
bool plainEffect(const QJsonValue& v) {
    if (!v.isObject()) {
        return false;
    }
    const QJsonObject o = v.toObject();
    qsizetype known = 0;
    for (const char* k : {"id", "requested", "actual", "reason"}) {
        const QJsonValue s = o.value(QLatin1String(k));
        if (s.isUndefined()) {
            if (k[0] == 'i') {
                return false;  // "id" is required
            }
            continue;
        }
        if (!s.isString() || s.toString().size() > kMaxShortText) {
            return false;
        }
        ++known;
    }
    const QJsonValue inEffect = o.value(QLatin1String("inEffect"));
    if (!inEffect.isUndefined()) {
        if (!inEffect.isBool()) {
            return false;
        }
        ++known;
    }
    return known == o.size();
}

}  // namespace

// The sample as sampleToJson() writes it, checked before sampleFromJson() reads it.
void sampleCheck(const QJsonObject& o, const QString& path, bool complete) {
    Fields f(o, path,
             {"runId",  "scenario",   "title",         "sql",           "repetition",    "point",      "startedAt",
              "engine", "connection", "serverVersion", "clientVersion", "negotiated",    "parameters", "effects",
              "phases", "rows",       "contentBytes",  "valuesRead",    "valuesSkipped", "maxId",      "scalarLabel",
              "scalar", "wire",       "status",        "error",         "partial",       "disturbed",  "contentCheck"},
             complete ? std::initializer_list<const char*>{"scenario", "repetition", "phases", "status"}
                      : std::initializer_list<const char*>{});
    constexpr qint64 maxCount = std::numeric_limits<qint64>::max();
    for (const char* k : {"runId", "scenario", "title", "startedAt", "engine", "connection", "serverVersion",
                          "clientVersion", "scalarLabel"}) {
        f.text(k);
    }
    f.text("sql", kMaxTextLength);
    f.text("scalar", kMaxTextLength);
    f.text("error", kMaxTextLength);
    f.text("disturbed");
    f.text("contentCheck", kMaxTextLength);
    f.boolean("partial", false);
    f.whole("repetition", 0, kMaxCount, 0);
    for (const char* k : {"negotiated", "parameters", "point"}) {
        if (f.has(k)) {
            stringMap(f[k], f.path(k));
        }
    }
    if (f.has("effects")) {
        const QJsonArray effects = array(f["effects"], f.path("effects"), 1000);
        for (qsizetype i = 0; i < effects.size(); ++i) {
            if (plainEffect(effects.at(i))) {
                continue;
            }
            const QString at = item(f.path("effects"), i);
            const QJsonObject eo = object(effects.at(i), at);
            Fields e(eo, at, {"id", "requested", "actual", "inEffect", "reason"}, {"id"});
            for (const char* k : {"id", "requested", "actual", "reason"}) {
                e.text(k);
            }
            e.boolean("inEffect", true);
        }
    }
    if (f.has("phases")) {
        const QJsonObject phases = object(f["phases"], f.path("phases"));
        Fields p(phases, f.path("phases"),
                 {"connectNs", "prepareNs", "executeNs", "fetchNs", "elapsedNs", "elapsedMs"});
        for (const char* k : {"connectNs", "prepareNs", "executeNs", "fetchNs", "elapsedNs"}) {
            p.whole(k, 0, maxCount, 0);
        }
        if (p.has("elapsedMs") && !p["elapsedMs"].isDouble()) {
            expected(p.path("elapsedMs"), "a number", p["elapsedMs"]);
        }
    }
    for (const char* k : {"rows", "contentBytes", "valuesRead", "valuesSkipped"}) {
        f.whole(k, 0, maxCount, 0);
    }
    f.whole("maxId", std::numeric_limits<qint64>::min() + 1, maxCount, 0);
    if (f.has("wire")) {
        const QJsonObject wire = object(f["wire"], f.path("wire"));
        Fields w(wire, f.path("wire"), {"tap", "nativeLogical", "nativePhysical", "tapPhases", "trace"});
        if (w.has("trace")) {  // the exchange trace, base64 of its compact encoding
            try {
                traceFromBase64OrKeep(text(w["trace"], w.path("trace"), kMaxTraceChars));  // see TraceLoadScope
            } catch (const Error& e) {
                refuse(w.path("trace"), QString::fromStdString(e.what()));
            }
        }
        for (const char* k : {"tap", "nativeLogical", "nativePhysical"}) {
            if (w.has(k)) {
                wireStatsCheck(w[k], w.path(k));
            }
        }
        if (w.has("tapPhases")) {  // phase name -> the tap's counters for it
            const QJsonObject phases = object(w["tapPhases"], w.path("tapPhases"));
            for (auto it = phases.begin(); it != phases.end(); ++it) {
                wireStatsCheck(it.value(), child(w.path("tapPhases"), it.key().left(64)));
            }
        }
    }
    if (f.has("status")) {
        oneOf(f["status"], f.path("status"), {"complete", "failed", "cancelled"});
    }
}

// Deep nesting would cost the parser its stack and huge strings its memory; a project needs neither.
// Checked on the raw bytes before parsing, so a hostile file is refused without being parsed.
constexpr qsizetype kMaxRawString = qsizetype(8) * kMaxTextLength;  // escapes and UTF-8 take room

void hostileShapeCheck(const QByteArray& bytes) {
    int depth = 0;
    bool inString = false;
    bool escaped = false;
    int line = 1;
    qsizetype stringStart = 0;
    const char* data = bytes.constData();
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const char c = data[i];
        if (c == '\n') {
            ++line;
        }
        if (inString) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                inString = false;
            } else if (i - stringStart > kMaxRawString) {
                refuse(L("line %1").arg(line),
                       L("a string longer than %1 bytes (the limit of any text in a project)").arg(kMaxRawString));
            }
            continue;
        }
        if (c == '"') {
            inString = true;
            stringStart = i;
        } else if (c == '{' || c == '[') {
            if (++depth > kMaxProjectNesting) {
                refuse(L("line %1").arg(line), L("nested deeper than %1 levels").arg(kMaxProjectNesting));
            }
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
}

// Run on the text once it parsed as JSON, because QJsonDocument keeps the last of two equal keys
// without a word, and takes "\u0000" into a string that later cuts error lines and file names at
// the NUL. One pass with a stack of its own (no recursion), keys compared decoded ("n\u0061me" is
// "name"); each refusal names the JSON path.
void keysAndTextCheck(const QByteArray& bytes) {
    struct Level {
        bool object = false;
        bool expectKey = false;
        int index = 0;
        QString key;  // the member being read (object) -- its path part
        std::set<QString> keys;
    };
    std::vector<Level> stack;
    auto pathOf = [&](const QString* last) {
        QString path;
        auto part = [&](const QString& key) {
            const QString shown = key.size() > 40 ? key.left(40) + L("...") : key;
            path += (path.isEmpty() ? QString() : L(".")) + shown;
        };
        for (const Level& level : stack) {
            if (!level.object) {
                path += L("[%1]").arg(level.index);
            } else if (&level != &stack.back() || last == nullptr) {
                part(level.key);
            }
        }
        if (last) {
            part(*last);
        }
        return path.isEmpty() ? L("(root)") : path;
    };
    const char* data = bytes.constData();
    const qsizetype size = bytes.size();
    for (qsizetype i = 0; i < size; ++i) {
        const char c = data[i];
        if (c == '{' || c == '[') {
            Level level;
            level.object = c == '{';
            level.expectKey = level.object;
            stack.push_back(std::move(level));
        } else if (c == '}' || c == ']') {
            if (!stack.empty()) {
                stack.pop_back();
            }
        } else if (c == ',' && !stack.empty()) {
            if (stack.back().object) {
                stack.back().expectKey = true;
            } else {
                ++stack.back().index;
            }
        } else if (c == '"') {
            Level* level = stack.empty() ? nullptr : &stack.back();
            const bool isKey = level && level->object && level->expectKey;
            QString text;  // decoded for keys only: values need just the NUL check
            bool nul = false;
            qsizetype run = i + 1;  // start of the bytes not yet decoded
            qsizetype j = i + 1;
            for (; j < size && data[j] != '"'; ++j) {
                if (data[j] == '\\' && j + 1 < size) {
                    if (isKey) {
                        text += QString::fromUtf8(data + run, j - run);
                    }
                    const char e = data[j + 1];
                    if (e == 'u' && j + 5 < size) {
                        ushort unit = 0;
                        for (int h = 0; h < 4; ++h) {
                            const char x = data[j + 2 + h];
                            unit = static_cast<ushort>(unit * 16 + (x <= '9' ? x - '0' : (x | 0x20) - 'a' + 10));
                        }
                        nul = nul || unit == 0;
                        if (isKey) {
                            text += QChar(unit);
                        }
                        j += 5;
                    } else {
                        const char* from = "bfnrt";
                        const char* to = "\b\f\n\r\t";
                        const char* k = std::strchr(from, e);
                        if (isKey) {
                            text += QLatin1Char(k && e != '\0' ? to[k - from] : e);
                        }
                        j += 1;
                    }
                    run = j + 1;
                } else if (data[j] == '\0') {
                    nul = true;
                }
            }
            if (isKey) {
                text += QString::fromUtf8(data + run, j - run);
            }
            i = j;
            if (nul && isKey) {
                QString shown = text;
                shown.replace(QChar(0), L("\\u0000"));
                refuse(pathOf(&shown), L("this key holds a NUL character (\\u0000), which no project text may hold"));
            }
            if (nul) {
                refuse(pathOf(nullptr),
                       L("holds a NUL character (\\u0000), which no name, target or SQL text may hold"));
            }
            if (isKey) {
                if (!level->keys.insert(text).second) {
                    refuse(pathOf(&text), L("duplicate key: it appears twice in its object (a project file holds "
                                            "each key once; which one counts would be a guess)"));
                }
                level->key = text;
                level->expectKey = false;
            }
        }
    }
}

}  // namespace projectjson

void checkSampleJson(const QJsonObject& sample, const QString& path) {
    QJsonObject checked = sample;
    if (QJsonObject wire = checked.value(L("wire")).toObject(); wire.contains(L("trace"))) {
        wire.remove(L("trace"));
        checked[L("wire")] = wire;
    }
    sampleCheck(checked, path, true);
}

}  // namespace blobbench
