#include "model/Presets.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <map>

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

}  // namespace blobbench
