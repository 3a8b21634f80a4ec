#include "model/Presets.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <map>

#include "engine/core/Error.h"
#include "model/Project.h"

namespace blobbench {

QStringList presetDirectories() {
    QStringList candidates = QStandardPaths::locateAll(
        QStandardPaths::GenericDataLocation, QStringLiteral("blobbench/presets"), QStandardPaths::LocateDirectory);
    if (QCoreApplication::instance() != nullptr) {
        candidates
            << QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/blobbench/presets"));
    }
#ifdef BLOBBENCH_SOURCE_PRESETS_DIR
    candidates << QStringLiteral(BLOBBENCH_SOURCE_PRESETS_DIR);
#endif
    QStringList out;
    for (const QString& dir : candidates) {
        const QFileInfo info(dir);
        const QString canonical = info.canonicalFilePath();
        if (info.isDir() && !out.contains(canonical)) {
            out << canonical;
        }
    }
    return out;
}

QStringList presetFiles() {
    std::map<QString, QString> byName;  // sorted by file name; the first directory wins
    for (const QString& dir : presetDirectories()) {
        const QFileInfoList files =
            QDir(dir).entryInfoList({QStringLiteral("*.blobbench.json")}, QDir::Files | QDir::Readable, QDir::Name);
        for (const QFileInfo& f : files) {
            byName.emplace(f.fileName(), f.absoluteFilePath());
        }
    }
    QStringList out;
    for (const auto& [name, path] : byName) {
        out << path;
    }
    return out;
}

bool isPresetFile(const QString& path) {
    const QFileInfo info(path);
    return info.isFile() && presetDirectories().contains(info.canonicalPath());
}

QString userCopyOfPreset(const QString& presetPath) {
    const QString dir = QFileInfo(defaultSqlitePath()).dir().filePath(QStringLiteral("projects"));
    QString copy = QDir(dir).filePath(QFileInfo(presetPath).fileName());
    if (QFileInfo::exists(copy)) {
        return copy;
    }
    if (!QDir().mkpath(dir)) {
        throw Error(ErrorKind::Io, "cannot create the folder " + dir.toStdString() + " for the copy of the preset");
    }
    QFile::remove(copy + QStringLiteral(".part"));
    if (!QFile::copy(presetPath, copy + QStringLiteral(".part")) ||
        !QFile(copy + QStringLiteral(".part"))
             .setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther) ||
        !QFile::rename(copy + QStringLiteral(".part"), copy)) {
        QFile::remove(copy + QStringLiteral(".part"));
        throw Error(ErrorKind::Io, "cannot copy the preset " + presetPath.toStdString() + " to " + copy.toStdString());
    }
    return copy;
}

}  // namespace blobbench
