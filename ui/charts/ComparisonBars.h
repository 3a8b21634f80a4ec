#pragma once

#include <memory>

#include "ui/Charts.h"

namespace blobbench::charts {

// Base vs new per scenario and point: grouped bars of the median elapsed time, min-max whiskers,
// significant differences marked (ComparisonChart in ui/Charts.h).
std::unique_ptr<ComparisonChart> makeComparisonBars(const std::vector<PointComparison>& rows, QWidget* parent);

}  // namespace blobbench::charts
