#pragma once

#include <QString>
#include <cstdint>

namespace blobbench {

// Human units for the window: "126.5 MB", "142 ms" / "3.49 s", "1.2 s" ETAs. Decimal megabytes,
// as the reports print them.
QString formatBytes(double bytes);
QString formatMillis(double ms);
QString formatCount(std::uint64_t n);

// A tunable's value, short, for an axis tick: by its ParameterSpec unit, "2 Mbit/s" for "bit/s",
// "64K" / "1M" for sizes that are whole multiples of 1024 ("B", "KiB"), else "1M", "2.5k", "900".
QString formatTunableValue(double value, const QString& unit);

// The unit an axis uses for values up to `max`, and the factor that converts into it.
struct AxisUnit {
    QString name;
    double divisor = 1;
};
AxisUnit byteAxisUnit(double maxBytes);
AxisUnit timeAxisUnit(double maxMillis);

}  // namespace blobbench
