#include "model/ProjectFile.h"

#include <sys/stat.h>
#include <QFile>
#include <QFileInfo>
#include <string>
#include <utility>

#include "engine/core/Error.h"
#include "model/AtomicFile.h"

// The rest of ProjectFile.h: ProjectWriter.cpp (projectToJson), ProjectReader.cpp (projectFromJson),
// ProjectChecks.cpp (the checks of values and bytes, checkSampleJson), RunJournal.cpp (the run
// journal), ProjectLock.cpp (ProjectLock, projectInUseElsewhere).

namespace blobbench {

Project loadProject(const QString& path) {
    // A FIFO (or a device) would block the open until a writer came, or read for ever.
    if (struct stat st{};
        ::stat(path.toStdString().c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        throw Error(ErrorKind::Io, "cannot open " + path.toStdString() + ": not a regular file (" +
                                       (S_ISFIFO(st.st_mode)   ? "a FIFO"
                                        : S_ISSOCK(st.st_mode) ? "a socket"
                                                               : "a device") +
                                       "): a project is a file");
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        throw Error(ErrorKind::Io, "cannot open " + path.toStdString() + ": " + file.errorString().toStdString());
    }
    if (file.size() > kMaxProjectFileBytes) {
        throw Error(ErrorKind::Data, path.toStdString() + ": " + std::to_string(file.size()) +
                                         " bytes exceed the limit of " + std::to_string(kMaxProjectFileBytes) +
                                         " for a project file");
    }
    QByteArray bytes = file.readAll();
    file.close();
    try {
        return projectFromJson(std::move(bytes));
    } catch (const Error& e) {
        throw e.withContext(path.toStdString());
    }
}

void saveProject(const QString& path, const Project& project) {
    const QByteArray data = projectToJson(project);
    writeFileAtomically(path, data);  // "cannot write <path>: <strerror> (the previous file is unchanged)"
}

bool looksLikeProjectFile(const QString& path) {
    if (path.endsWith(QLatin1String(kProjectSuffix), Qt::CaseInsensitive)) {
        return true;
    }
    QFile file(path);
    if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadOnly)) {
        return false;
    }
    const QByteArray head = file.read(4096);
    return head.trimmed().startsWith('{') && head.contains("\"formatVersion\"") &&
           (head.contains("\"connections\"") || head.contains("\"scenarios\""));
}

}  // namespace blobbench
