#include "ui/ChartSettings.h"

#include <array>
#include <utility>

namespace blobbench {
namespace {

const std::array<std::pair<BytesAxis, QLatin1StringView>, 3> kAxisNames{{
    {BytesAxis::WireReceived, QLatin1StringView("wireReceived")},
    {BytesAxis::WireSent, QLatin1StringView("wireSent")},
    {BytesAxis::Content, QLatin1StringView("content")},
}};

bool validSide(int side) {
    return side >= kMinExportSide && side <= kMaxExportSide;
}

}  // namespace

ChartSettings readChartSettings(const QJsonObject& json) {
    ChartSettings settings;
    const QString axis = json.value(QLatin1StringView("timeVsBytesAxis")).toString();
    for (const auto& [value, name] : kAxisNames) {
        if (axis == name)
            settings.bytesAxis = value;
    }
    const QJsonObject size = json.value(QLatin1StringView("exportSize")).toObject();
    const int width = size.value(QLatin1StringView("width")).toInt(-1);
    const int height = size.value(QLatin1StringView("height")).toInt(-1);
    if (validSide(width) && validSide(height))
        settings.exportSize = QSize(width, height);
    return settings;
}

QJsonObject writeChartSettings(QJsonObject json, const ChartSettings& settings) {
    for (const auto& [value, name] : kAxisNames) {
        if (settings.bytesAxis == value)
            json[QLatin1StringView("timeVsBytesAxis")] = name;
    }
    json[QLatin1StringView("exportSize")] = QJsonObject{{QStringLiteral("width"), settings.exportSize.width()},
                                                        {QStringLiteral("height"), settings.exportSize.height()}};
    return json;
}

}  // namespace blobbench
