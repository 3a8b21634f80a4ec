#pragma once

#include <memory>

#include "ui/Charts.h"

namespace blobbench::charts {

// A reproduced publication's figures as measured / published on a log axis (VerdictChart in ui/Charts.h).
std::unique_ptr<VerdictChart> makeVerdictDots(QWidget* parent);

}  // namespace blobbench::charts
