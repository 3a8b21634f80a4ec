#pragma once
// The shipped presets (resources/presets/*.blobbench.json) as the programs find them at run time.

#include <QStringList>

namespace blobbench {

// Directories that hold presets, in order: <data dir>/blobbench/presets for each XDG data directory
// (the package installs them under /usr/share), ../share/blobbench/presets beside the executable (an
// install under another prefix), then the source tree the program was built from (a development
// build). Only directories that exist; no duplicates.
QStringList presetDirectories();

// The *.blobbench.json files of those directories, sorted by file name; a name found in an earlier
// directory hides the same name in a later one.
QStringList presetFiles();

// Whether `path` is one of the shipped presets (a file in one of presetDirectories()).
bool isPresetFile(const QString& path);

// A preset is a template, not the user's project: a run of one goes to the user's own copy,
// <data dir>/projects/<file name> (BLOBBENCH_DATA_DIR or the user's data folder), made from the
// preset the first time and kept, with its history, after that. Returns the copy's path; throws
// Error(Io) naming the file when the copy cannot be made.
QString userCopyOfPreset(const QString& presetPath);

}  // namespace blobbench
