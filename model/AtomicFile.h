#pragma once

#include <QByteArray>
#include <QString>

namespace blobbench {

// Writes `data` to a temporary file beside `path`, syncs it and renames it over `path`: a reader,
// or a full disk half-way, leaves the previous file or the new one, never a part of it (the
// temporary file is removed on failure). A path that exists and is not a regular file (/dev/stdout,
// a FIFO, /dev/full) is written in place. Throws Error(Io) "cannot write <path>: <strerror>"
// (QSaveFile said "Unknown error" for a full disk).
void writeFileAtomically(const QString& path, const QByteArray& data);

}  // namespace blobbench
