#pragma once

#include <QString>
#include <QStringList>

namespace blobbench {

// Where Help > User guide (F1) looks for docs/user-guide.md: installed beside the binary
// (../share/doc/blobbench, see packaging/Packaging.cmake), then the source tree of a development build.
QStringList userGuideCandidates();
// The first candidate that exists, or empty.
QString userGuidePath();

}  // namespace blobbench
