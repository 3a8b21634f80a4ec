#pragma once

#include <QJsonObject>
#include <QString>

#include "engine/run/SessionFigures.h"

namespace blobbench {

// A sessions run (issue #25) as JSON: the run's mode and window, every scenario's figures
// combined and per session, each with its latency histogram as buckets [low ns, high ns, count],
// and each session's connection, wire totals and failed samples. Times in nanoseconds.
QJsonObject sessionsToJson(const SessionsOutcome& outcome, const SessionsFigures& figures, const std::string& runId,
                           const std::string& connection);
QJsonObject histogramToJson(const LatencyHistogram& histogram);
// A session's (or the sessions' combined) statements: counts, bytes, the latency histogram, and for an
// open loop the schedule lag and the late statements. wireBytes is null when the wire was not counted.
QJsonObject tallyToJson(const StatementTally& tally, bool openLoop);

// Written atomically; Error(Io) naming the file on failure.
void writeSessionsJson(const QString& path, const QJsonObject& sessions);
// One row per session per scenario (and one "all" row per session), a header row first.
void writeSessionsCsv(const QString& path, const SessionsOutcome& outcome, const SessionsFigures& figures);

}  // namespace blobbench
