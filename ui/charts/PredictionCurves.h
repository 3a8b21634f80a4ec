#pragma once

#include <memory>

#include "ui/Charts.h"

namespace blobbench::charts {

// The what-if advisor's predicted time against the link, one line per parameter set (CurveChart in
// ui/Charts.h).
std::unique_ptr<CurveChart> makePredictionCurves(QWidget* parent);

}  // namespace blobbench::charts
