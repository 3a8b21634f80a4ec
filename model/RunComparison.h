#pragma once

#include <QString>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/run/Statistics.h"
#include "model/Project.h"

namespace blobbench {

using PointValues = std::map<std::string, std::string>;

// The repetitions of one scenario at one sweep point, summarised. Only complete samples count;
// failed and cancelled ones are counted apart.
struct PointSummary {
    QString scenarioId;
    QString scenarioTitle;
    PointValues point;
    std::vector<double> elapsedMs;  // the complete repetitions, in the order measured
    Summary elapsed;                // of elapsedMs
    double medianContentBytes = 0;
    std::optional<double> medianRecvBytes;   // wire tap, else the client's own counters
    std::optional<double> medianRoundTrips;  // idem
    std::size_t failed = 0;
    // A single-value scenario's figure ("0.887 footprint SQLite / files"), of its last complete
    // repetition; empty for others. `timed` is false where no complete repetition took any time
    // (a footprint ratio is computed, not timed): its time columns say n/a, not 0.
    QString figure;
    bool timed = true;
};

// Scenarios in the order they first ran, points in natural order (numbers compared as numbers).
std::vector<PointSummary> summariseSamples(const std::vector<Sample>& samples);

// Base vs new at one scenario and point. ratio = new median / base median (< 1: faster now).
// The Mann-Whitney test runs over the two sets of repetitions; `significant` at alpha.
struct PointComparison {
    QString scenarioId;
    QString scenarioTitle;
    PointValues point;
    std::optional<PointSummary> base;
    std::optional<PointSummary> candidate;
    std::optional<double> ratio;  // absent when a side is missing or its median is 0
    MannWhitney test;
    bool significant = false;
};

std::vector<PointComparison> compareRuns(const std::vector<Sample>& base, const std::vector<Sample>& candidate,
                                         double alpha = 0.05);

// "blob_api=true, mmap_size=0", or "-" outside a sweep.
QString pointText(const PointValues& point);

// The run of `project` named by `idOrIndex`: a run id, "last", "previous" (the one before last),
// or a negative index from the end ("-1" = last). nullptr when there is none.
const RunRecord* findRun(const Project& project, const QString& idOrIndex);

}  // namespace blobbench
