#pragma once

#include <QJsonObject>
#include <QString>

#include "engine/run/LoadPoint.h"

namespace blobbench {

// A load point (engine/run/LoadPoint.h) in a project's history and its run journal: the figures
// with every histogram as buckets [low ns, high ns, count], as blobbench-cli run --sessions --json
// writes them.
QJsonObject loadPointToJson(const LoadPoint& point);

// Reads what loadPointToJson wrote; throws Error(Data) naming the JSON path under `path` of a value
// that is missing, of the wrong type, out of range, or a histogram whose buckets do not add up.
LoadPoint loadPointFromJson(const QJsonObject& o, const QString& path);

// One row per session of the point, then the point's combined row (session "all"), a header first:
// what the window's load chart exports as CSV.
QByteArray loadPointsCsv(const std::vector<LoadPoint>& points);

// A run's load points as a file of their own ({"kind": "load", "loads": [...]}) and as CSV (above),
// written atomically; Error(Io) naming the file on failure.
void writeLoadsJson(const QString& path, const std::vector<LoadPoint>& points);
void writeLoadsCsv(const QString& path, const std::vector<LoadPoint>& points);

}  // namespace blobbench
