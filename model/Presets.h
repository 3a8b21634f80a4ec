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

}  // namespace blobbench
