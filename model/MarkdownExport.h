#pragma once

#include <QString>
#include <vector>

#include "model/Project.h"
#include "model/RunComparison.h"

namespace blobbench {

// Markdown summaries for people: a run's context and one table row per scenario and point
// (median, spread, outliers, bytes), and a comparison table of two runs. Times in ms.
QString markdownRunSummary(const RunRecord& run);
QString markdownComparison(const RunRecord& base, const RunRecord& candidate, const std::vector<PointComparison>& rows,
                           double alpha = 0.05);

// Atomic like the CSV and JSON writers; throws Error(Io) naming the file.
void writeMarkdown(const QString& path, const QString& markdown);

}  // namespace blobbench
