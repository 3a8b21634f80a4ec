#pragma once

#include <memory>

#include "ui/Charts.h"

namespace blobbench::charts {

// Time vs bytes (wire or content, BytesAxis) and Time vs round trips: one point a sample, one series per
// scenario, parameter set and connection (model/SeriesNaming.h); the what-if's predicted times as hollow
// rings beside the measured points.
std::unique_ptr<SampleChart> makeScatterChart(ChartKind kind, QWidget* parent);

}  // namespace blobbench::charts
