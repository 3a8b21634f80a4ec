#include "ui/Units.h"

#include <QLocale>

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
