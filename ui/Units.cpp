#include "ui/Units.h"

#include <QLocale>
#include <cmath>

#include "engine/wire/LinkProfile.h"

namespace blobbench {

QString formatBytes(double bytes) {
    if (bytes < 1000) {
        return QStringLiteral("%1 B").arg(bytes, 0, 'f', 0);
    }
    if (bytes < 1e6) {
        return QStringLiteral("%1 kB").arg(bytes / 1e3, 0, 'f', 1);
    }
    if (bytes < 1e9) {
        return QStringLiteral("%1 MB").arg(bytes / 1e6, 0, 'f', 1);
    }
    return QStringLiteral("%1 GB").arg(bytes / 1e9, 0, 'f', 2);
}

QString formatMillis(double ms) {
    if (ms < 10) {
        return QStringLiteral("%1 ms").arg(ms, 0, 'f', 2);
    }
    if (ms < 2000) {
        return QStringLiteral("%1 ms").arg(ms, 0, 'f', 1);
    }
    return QStringLiteral("%1 s").arg(ms / 1000, 0, 'f', 2);
}

QString formatCount(std::uint64_t n) {
    QLocale locale = QLocale::c();
    locale.setNumberOptions({});  // the C locale omits group separators by default
    return locale.toString(static_cast<qulonglong>(n));
}

QString formatTunableValue(double value, const QString& unit) {
    if (unit.contains(QStringLiteral("bit/s")) && value >= 0 && value < 1.8e19) {
        return QString::fromStdString(formatBitRate(static_cast<std::uint64_t>(std::llround(value))));
    }
    const double magnitude = std::abs(value);
    if ((unit == QStringLiteral("B") || unit == QStringLiteral("KiB")) && magnitude >= 1024 &&
        value == std::floor(value)) {
        static const char* const binary[] = {"K", "M", "G", "T", "P"};
        double v = value;
        for (const char* suffix : binary) {
            v /= 1024;
            if (v != std::floor(v))
                break;
            if (std::abs(v) < 1024 || std::fmod(v, 1024) != 0)
                return QString::number(v, 'f', 0) + QLatin1String(suffix);
        }
        // One below a binary size (65535, the largest inline BLOB): "64K-1" beside "16K", not "65.5k".
        if (value > 0 && std::fmod(value + 1, 1024) == 0)
            return formatTunableValue(value + 1, unit) + QLatin1String("-1");
    }
    static const struct {
        double factor;
        const char* suffix;
    } decimal[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    for (const auto& d : decimal) {
        if (magnitude >= d.factor)
            return QString::number(value / d.factor, 'g', 3) + QLatin1String(d.suffix);
    }
    return QString::number(value, 'g', 4);
}

AxisUnit byteAxisUnit(double maxBytes) {
    if (maxBytes >= 2e6) {
        return {QStringLiteral("MB"), 1e6};
    }
    if (maxBytes >= 2e3) {
        return {QStringLiteral("kB"), 1e3};
    }
    return {QStringLiteral("B"), 1};
}

AxisUnit timeAxisUnit(double maxMillis) {
    if (maxMillis >= 5000) {
        return {QStringLiteral("s"), 1000};
    }
    return {QStringLiteral("ms"), 1};
}

}  // namespace blobbench
