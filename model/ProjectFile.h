#pragma once

#include <QByteArray>
#include <QString>

#include "model/Project.h"

namespace blobbench {

// *.blobbench.json: a project on disk. docs/project-format.md describes every key.
//
// Written pretty-printed with a stable key order (the root in a fixed order, every other object
// sorted by key) and each stored sample on one line, so that a file diffs well and load + save
// gives the same bytes. Loading is strict: unknown keys, wrong types, values out of range and
// hostile sizes are refused with one line naming the JSON path of the first error, e.g.
// "scenarios[2].sql: expected a string". Never a password: a connection target that holds one
// (password=..., user:secret@host) is refused both ways.
constexpr int kProjectFormatVersion = 1;
constexpr qint64 kMaxProjectFileBytes = qint64(512) * 1024 * 1024;
constexpr int kMaxProjectNesting = 32;
constexpr int kMaxTextLength = 1024 * 1024;  // SQL and every other string: 1 Mi characters
inline constexpr char kProjectSuffix[] = ".blobbench.json";

// The exact bytes saveProject() writes. Throws Error(Usage) when a target holds a password.
QByteArray projectToJson(const Project& project);

// Throws Error(Data) "<json path>: <what>" (or "line L, column C: <parser's words>").
Project projectFromJson(QByteArray bytes);  // by value: a moved-in text is freed once parsed

// Throws Error(Io) for an unreadable file, Error(Data) "<file>: <json path>: <what>" for a bad one.
Project loadProject(const QString& path);

// Atomic (temporary file + rename): on any failure (disk full, read-only folder) the old file is
// intact. Throws Error(Io) naming the file, Error(Usage) for a password in a target.
void saveProject(const QString& path, const Project& project);

// By name (*.blobbench.json) or, for other names, by content (a JSON object with "formatVersion"
// and "connections" or "scenarios" in its first 4 KiB; a samples file from --json has neither).
bool looksLikeProjectFile(const QString& path);

}  // namespace blobbench
