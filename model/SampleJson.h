#pragma once

#include <QJsonObject>
#include <QString>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/drivers/Driver.h"

namespace blobbench {

// Samples as JSON: every figure and its context. Times are in nanoseconds (integers) with a
// milliseconds copy for people reading the file. Never carries a password: samples hold none.
QJsonObject sampleToJson(const Sample& sample);
Sample sampleFromJson(const QJsonObject& object);
QJsonObject sessionToJson(const SessionInfo& session);

// Writes {"formatVersion", "tool", "session", "samples": [...]} atomically (temp file + rename).
// Throws Error(Io) naming the file on failure.
void writeSamplesJson(const QString& path, const SessionInfo& session, const std::vector<Sample>& samples);

// One row a sample, a header row first; RFC 4180 quoting. Atomic like the JSON writer.
void writeSamplesCsv(const QString& path, const std::vector<Sample>& samples);
QString csvField(const QString& text);

// "blob_api=true;mmap_size=0": a sweep point as one CSV field / label (ids in order); empty outside a sweep.
QString pointLabel(const std::map<std::string, std::string>& point);

inline QString qs(const std::string& text) { return QString::fromStdString(text); }

}  // namespace blobbench
