#pragma once

#include <memory>

#include "ui/Charts.h"

namespace blobbench::charts {

// A line of the content throughput (MB/s) over the current run, drawn live.
std::unique_ptr<SampleChart> makeThroughputChart(QWidget* parent);

}  // namespace blobbench::charts
