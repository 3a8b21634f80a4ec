#pragma once

#include <sys/types.h>

#include <QByteArray>
#include <QString>
#include <optional>

#include "model/Project.h"

namespace blobbench {

// What a project file was when this process last read or wrote it, so that a save notices that
// another program (an editor, a second workbench, `mv new.json P`) changed it since.
struct ProjectFileStamp {
    bool known = false;
    dev_t device = 0;
    ino_t inode = 0;
    qint64 size = -1;
    qint64 mtimeNs = 0;
    qint64 ctimeNs = 0;  // a write in place that keeps the size and sets the mtime back still changes it
    QByteArray sha256;   // of the bytes read or written: a touch or a copy of the same bytes is no change
};

// loadProject(), stamping what it read (the descriptor's status and the bytes it parsed).
Project loadProjectStamped(const QString& path, ProjectFileStamp& stamp);

// Whether the file at `path` holds other bytes than `stamp` says (a missing file holds nothing to
// lose: false). Reads the file only when its inode, size, mtime or ctime differ.
bool projectFileChanged(const QString& path, const ProjectFileStamp& stamp);

// saveProject() that loses no change made by another program: just before the rename, the file is
// compared with `stamp`. When it changed, the new version is loaded strictly and the run `runId`
// of `project` put into its history (replacing the run of that id, which a version saved during
// the run holds, else appended); that version is saved instead and returned in `merged`, with one
// line in `note`. A new version that does not load, or any change when `runId` is empty, is not
// overwritten: Error(Io) "<path> was changed by another program since this run read it ...: not
// overwritten". On success `stamp` is what was written. Otherwise throws as saveProject() does.
struct GuardedSave {
    QString note;
    std::optional<Project> merged;
};
GuardedSave saveProjectGuarded(const QString& path, const Project& project, const QString& runId,
                               ProjectFileStamp& stamp);

}  // namespace blobbench
