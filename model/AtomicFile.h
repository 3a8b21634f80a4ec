#pragma once

#include <sys/stat.h>

#include <QByteArray>
#include <QString>
#include <functional>

namespace blobbench {

// Writes `data` to a temporary file beside `path` (<path>.tmp-XXXXXX, or .bb-XXXXXX in its folder
// when that name would be too long), syncs it and renames it over `path`: a reader, or a full disk
// half-way, leaves the previous file or the new one, never a part of it (the temporary file is
// removed on failure). A path that exists and is not a regular file (/dev/stdout, a pipe, a
// device) is written in place; a FIFO that no process reads is refused at once ("cannot write
// <path>: a FIFO no process reads"), a directory or a socket too. Throws Error(Io)
// "cannot write <path>: <strerror>" (QSaveFile said "Unknown error" for a full disk).
//
// A regular file whose mode denies writing (0444) is refused, not replaced: "cannot write <path>:
// the file is read-only (mode 0444): not replaced". The rename would replace it, and root's
// access(2) ignores the mode bits, so the bits themselves decide (for root: any write bit).
void writeFileAtomically(const QString& path, const QByteArray& data);

struct AtomicWriteHooks {
    // Called when the temporary file is whole and synced, just before the rename: it may throw,
    // and then the temporary file is removed and `path` is left as it was.
    std::function<void()> beforeRename;
    // Set to the written file's status (its inode, size and mtime survive the rename).
    struct stat* written = nullptr;
};
void writeFileAtomically(const QString& path, const QByteArray& data, const AtomicWriteHooks& hooks);

// Whether writeFileAtomically replaces `path` whole (a new or a regular file), so that an export
// there may be rewritten after every sample; a pipe or a device (/dev/stdout, a FIFO) would get each
// rewrite appended, and takes the export once, at the end. So does a descriptor of the process
// (/dev/stdout, /dev/fd/N, /proc/self/fd/N, or a link to one) onto a regular file: it is appended to,
// never replaced, since it may hold the report (hostile round 5o O1).
bool replacedWhole(const std::string& path);

// Whether the mode bits of an existing file let this process write it (see above).
bool modeAllowsWriting(const std::string& path, const struct stat& st);

}  // namespace blobbench
