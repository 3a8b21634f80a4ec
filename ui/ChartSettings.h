#pragma once

#include <QJsonObject>
#include <QSize>

#include "ui/Charts.h"

namespace blobbench {

// The chart choices a project keeps in Project::chartSettings (free-form, owned by the GUI):
//   "timeVsBytesAxis": "wireReceived" | "wireSent" | "content"
//   "exportSize": {"width": 1600, "height": 900}
// A key that is missing or holds something else reads as the default, so an older or hand-edited
// project still opens.
struct ChartSettings {
    BytesAxis bytesAxis = BytesAxis::WireReceived;
    QSize exportSize = kChartExportSize;
    bool operator==(const ChartSettings&) const = default;
};

// The range an exported chart may have, per side (pixels, or SVG user units).
inline constexpr int kMinExportSide = 200;
inline constexpr int kMaxExportSide = 8000;

ChartSettings readChartSettings(const QJsonObject& json);
// `json` with the keys above set from `settings`; other keys are kept.
QJsonObject writeChartSettings(QJsonObject json, const ChartSettings& settings);

}  // namespace blobbench
