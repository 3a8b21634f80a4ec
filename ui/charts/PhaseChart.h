#pragma once

#include <memory>

#include "ui/Charts.h"

namespace blobbench::charts {

// Stacked bars: the mean prepare / execute / fetch time per scenario (and parameter set and connection).
std::unique_ptr<SampleChart> makePhaseChart(QWidget* parent);

}  // namespace blobbench::charts
