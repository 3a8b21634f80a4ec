#pragma once

#include <memory>

#include "ui/Charts.h"

namespace blobbench::charts {

// Runs of many sessions: throughput against sessions with the p99 latency on a second axis, or each
// point's latency percentiles (LoadChart in ui/Charts.h).
std::unique_ptr<LoadChart> makeLoadCharts(QWidget* parent);

}  // namespace blobbench::charts
