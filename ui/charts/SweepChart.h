#pragma once

#include <memory>

#include "ui/Charts.h"

namespace blobbench::charts {

// The latest sweep: its tunable on x, per scenario (and value of a grid's other axis) the median
// elapsed time with a min-max band, or the median bytes received or round trips (SweepMetric).
std::unique_ptr<SampleChart> makeSweepChart(QWidget* parent);

}  // namespace blobbench::charts
