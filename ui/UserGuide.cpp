#include "ui/UserGuide.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace blobbench {

QStringList userGuideCandidates() {
    QStringList candidates;
    candidates << QDir(QCoreApplication::applicationDirPath())
                      .filePath(QStringLiteral("../share/doc/blobbench/user-guide.md"));
#ifdef BLOBBENCH_SOURCE_DOCS_DIR
    candidates << QStringLiteral(BLOBBENCH_SOURCE_DOCS_DIR "/user-guide.md");
#endif
    return candidates;
}

QString userGuidePath() {
    for (const QString& path : userGuideCandidates()) {
        if (QFileInfo::exists(path))
            return QFileInfo(path).canonicalFilePath();
    }
    return {};
}

}  // namespace blobbench
