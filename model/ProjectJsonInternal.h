#pragma once

// What the files behind model/ProjectFile.h share (ProjectWriter.cpp, ProjectChecks.cpp,
// ProjectReader.cpp, RunJournal.cpp, ProjectLock.cpp): not for other callers.

#include <unistd.h>
#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <initializer_list>
#include <limits>
#include <utility>

#include "model/ProjectFile.h"

namespace blobbench::projectjson {

constexpr qint64 kMaxCount = 1000000;  // repetitions, warm-ups, points
constexpr int kMaxShortText = 4096;    // names, ids, versions

inline QString L(const char* text) {
    return QString::fromLatin1(text);
}

// "<path>: <what>" as Error(Data); the path alone names the root.
[[noreturn]] void refuse(const QString& path, const QString& what);

// A connection target that holds a password, refused both ways (ProjectWriter.cpp).
bool holdsPassword(const QString& target);
extern const QString kPasswordAdvice;

// A run without its samples: in the project file and as the run journal's header line (ProjectWriter.cpp).
QJsonObject runHeaderJson(const RunRecord& r);

// Reading (ProjectChecks.cpp): each check throws Error(Data) naming the JSON path of a wrong value.
QString child(const QString& path, const QString& key);
QString item(const QString& path, qsizetype i);
[[noreturn]] void expected(const QString& path, const char* what, const QJsonValue& v);
QString text(const QJsonValue& v, const QString& path, int maxLength = kMaxTextLength);
qint64 whole(const QJsonValue& v, const QString& path, qint64 minimum, qint64 maximum);
bool boolean(const QJsonValue& v, const QString& path);
QJsonObject object(const QJsonValue& v, const QString& path);
QJsonArray array(const QJsonValue& v, const QString& path, qsizetype maxSize = kMaxCount);
QString oneOf(const QJsonValue& v, const QString& path, std::initializer_list<const char*> choices);
void stringMap(const QJsonValue& v, const QString& path);

// An object whose keys are all known; `required` ones must be there.
class Fields {
public:
    Fields(const QJsonObject& o, QString path, std::initializer_list<const char*> known,
           std::initializer_list<const char*> required = {})
        : m_o(o), m_path(std::move(path)) {
        // Usually every key is known: counting the known ones present proves it without
        // converting each key to a QString. Only a mismatch walks the keys to name the stranger.
        qsizetype present = 0;
        for (const char* k : known) {
            present += o.contains(QLatin1String(k)) ? 1 : 0;
        }
        for (auto it = o.begin(); present != o.size() && it != o.end(); ++it) {
            const QString key = it.key();  // one conversion per key, not one per comparison
            bool ok = false;
            for (const char* k : known) {
                if (key == QLatin1String(k)) {
                    ok = true;
                    break;
                }
            }
            if (!ok) {
                refuse(child(m_path, key.left(64)), L("unknown key"));
            }
        }
        for (const char* k : required) {
            if (!o.contains(QLatin1String(k))) {
                refuse(child(m_path, L(k)), L("missing"));
            }
        }
    }
    bool has(const char* key) const { return m_o.contains(QLatin1String(key)); }
    QJsonValue operator[](const char* key) const { return m_o.value(QLatin1String(key)); }
    QString path(const char* key) const { return child(m_path, L(key)); }
    // The checks below build the JSON path of a value only when it is wrong: a project's history
    // holds 100,000s of values, and a path per value was most of the time a load took.
    QString text(const char* key, int maxLength = kMaxShortText) const {
        const QJsonValue v = m_o.value(QLatin1String(key));
        if (v.isUndefined()) {
            return {};
        }
        if (v.isString()) {
            QString s = v.toString();
            if (s.size() <= maxLength) {
                return s;
            }
        }
        return projectjson::text(v, path(key), maxLength);
    }
    qint64 whole(const char* key, qint64 minimum, qint64 maximum, qint64 fallback) const {
        const QJsonValue v = m_o.value(QLatin1String(key));
        if (v.isUndefined()) {
            return fallback;
        }
        constexpr qint64 none = std::numeric_limits<qint64>::min();
        const qint64 n = v.isDouble() ? v.toInteger(none) : none;
        if (n != none && n >= minimum && n <= maximum) {
            return n;
        }
        return projectjson::whole(v, path(key), minimum, maximum);
    }
    bool boolean(const char* key, bool fallback) const {
        const QJsonValue v = m_o.value(QLatin1String(key));
        if (v.isUndefined()) {
            return fallback;
        }
        return v.isBool() ? v.toBool() : projectjson::boolean(v, path(key));
    }

private:
    const QJsonObject& m_o;
    QString m_path;
};

// The sample as sampleToJson() writes it; `complete`: the keys a sample needs are there too.
void sampleCheck(const QJsonObject& o, const QString& path, bool complete);

// The raw bytes of a project: before parsing (nesting, huge strings), after it (duplicate keys, NULs).
void hostileShapeCheck(const QByteArray& bytes);
void keysAndTextCheck(const QByteArray& bytes);

// One run of the history (ProjectReader.cpp); `o` is moved in so that its samples are freed as read.
RunRecord runFromJson(QJsonObject o, const QString& path);

// An open file descriptor, closed (and so unlocked) on every way out.
struct OwnedFd {
    int fd = -1;
    explicit OwnedFd(int f) : fd(f) {}
    ~OwnedFd() {
        if (fd >= 0) {
            ::close(fd);
        }
    }
    OwnedFd(const OwnedFd&) = delete;
    OwnedFd& operator=(const OwnedFd&) = delete;
};

}  // namespace blobbench::projectjson
