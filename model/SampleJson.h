#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/ExchangeTrace.h"
#include "engine/core/Sample.h"
#include "engine/drivers/Driver.h"

namespace blobbench {

// Samples as JSON: every figure and its context. Times are in nanoseconds (integers) with a
// milliseconds copy for people reading the file. Never carries a password: samples hold none.
QJsonObject sampleToJson(const Sample& sample);
Sample sampleFromJson(const QJsonObject& object);

// Sets the fields whose keys `object` holds and leaves the others as they are (a sample of a
// project's history is its group's defaults plus its own keys). sampleFromJson() is this on a
// default Sample.
void applySampleJson(Sample& sample, const QJsonObject& object);

// The fast path of long histories: the same keys and values as sampleToJson(), each value
// already written as compact JSON, keys in sorted order (QJsonObject's order). A test keeps the
// two in step.
using SampleFields = std::vector<std::pair<const char*, QByteArray>>;
SampleFields sampleJsonFields(const Sample& sample);

// JSON text as QJsonDocument writes it: strings escaped (", \, control characters), UTF-8
// kept; whole numbers as integers, others in the shortest form that reads back exactly.
void appendJsonString(QByteArray& out, std::string_view utf8);
void appendJsonString(QByteArray& out, const QString& text);
void appendJsonNumber(QByteArray& out, double value);
QJsonObject sessionToJson(const SessionInfo& session);

// Writes {"formatVersion", "tool", "session", "samples": [...]} atomically (temp file + rename).
// Throws Error(Io) naming the file on failure.
void writeSamplesJson(const QString& path, const SessionInfo& session, const std::vector<Sample>& samples);

// The samples of a file written by writeSamplesJson(). Throws Error(Io) "<context>: cannot read
// <path>", Error(Usage) when it is no samples file or a sample in it is damaged (saying which).
std::vector<Sample> readSamplesJson(const QString& path, const std::string& context);

// One row a sample, a header row first; RFC 4180 quoting. Atomic like the JSON writer.
void writeSamplesCsv(const QString& path, const std::vector<Sample>& samples);
QString csvField(const QString& text);

// "blob_api=true;mmap_size=0": a sweep point as one CSV field / label (ids in order); empty outside a sweep.
QString pointLabel(const std::map<std::string, std::string>& point);

// A sample's exchange trace in files: its compact encoding (ExchangeTrace.h) in base64, empty when
// the trace is too long to keep (more than kMaxTraceExchanges, or kMaxTraceChars of base64: the
// sample is saved without it). The reader throws Error(Data) saying what is wrong.
inline constexpr int kMaxTraceChars = 8 * 1024 * 1024;  // the project loader's raw-string limit
QByteArray traceToBase64(const ExchangeTrace& trace);
ExchangeTrace traceFromBase64(const QString& text);
// As traceFromBase64(), but under a spent PastBudget::Keep budget checks the text and returns none.
std::optional<ExchangeTrace> traceFromBase64OrKeep(const QString& text);
// What a file keeps of a sample's trace: the encoded trace, or the text it was loaded from unread.
QByteArray savedTrace(const Sample& sample);

// Loads of projects and samples files (run, compare, the workbench) decode at most
// kMaxFileTraceExchanges of a file's traces (a loader that decodes each one twice, checked then
// read, says 2); the rest stay unread text (Sample::unreadTrace). Opens no scope of its own inside a
// budget already held (predict's, which refuses instead).
class TraceLoadScope {
public:
    explicit TraceLoadScope(unsigned decodesOfEachTrace);

private:
    std::optional<TraceDecodeBudget> m_budget;
};
// How many samples of these hold their trace unread, and the one line that says so ("" for none).
std::size_t unreadTraces(const std::vector<Sample>& samples);
std::string unreadTracesNote(std::size_t count);

inline QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

}  // namespace blobbench
