#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/Parameter.h"
#include "engine/run/Runner.h"

namespace blobbench {

enum class SweepSpacing { Linear, Log };

// A range of whole numbers: `points` values from `from` to `to`, both included, evenly spaced
// (linear) or in a constant ratio (log, which needs from > 0). Rounded to whole numbers; values
// that rounding makes equal are kept once.
struct SweepRange {
    std::int64_t from = 0;
    std::int64_t to = 0;
    int points = 0;
    SweepSpacing spacing = SweepSpacing::Linear;
};

// One swept tunable: an explicit list of values, or a range.
struct SweepAxisSpec {
    std::string parameter;
    std::vector<std::string> values;
    std::optional<SweepRange> range;
};

struct SweepSpec {
    std::string name;
    std::vector<SweepAxisSpec> axes;  // one, or two for a grid (first axis outer)
    int repetitions = 1;
    int warmups = 0;
    bool randomOrder = false;
    std::uint64_t seed = 0;  // randomOrder: the shuffle's seed (same seed, same order)
};

// One point of a sweep: the swept tunables and their values.
struct SweepPoint {
    std::size_t index = 0;  // position in the grid's natural order (before any shuffle)
    ParameterValues values;
    std::string label() const;  // "blob_api=true, mmap_size=0"
};

constexpr std::size_t kMaxSweepPoints = 10000;

// The values of one axis; throws Error(Usage) naming the sweep's axis for an empty list, an
// inverted or empty range, a log range through 0 or too many points.
std::vector<std::string> expandAxis(const SweepAxisSpec& axis);

// Every point of the grid, in the natural order or shuffled (seeded). Throws Error(Usage) like
// expandAxis, and for no axes, more than two, the same tunable twice, or repetitions < 1.
std::vector<SweepPoint> expandSweep(const SweepSpec& sweep);

// Checks every swept value against the driver's declarations (normalising "on" to "true", ...),
// throwing Error(Usage) naming the sweep, the tunable and the value.
std::vector<SweepPoint> validatedPoints(const SweepSpec& sweep, const std::vector<ParameterSpec>& specs);

// Told of each point as it starts and ends, besides the usual run events (through RunObserver).
class SweepObserver : public RunObserver {
public:
    virtual void pointStarted(const SweepPoint& /*point*/, std::size_t /*ordinal*/, std::size_t /*count*/) {}
    virtual void pointFinished(const SweepPoint& /*point*/, const RunOutcome& /*outcome*/) {}
};

// Runs the plan once per point with the point's values over the plan's parameters, each sample
// tagged with its point. The runner keeps its session between points and reconnects only when a
// tunable that is not perStatement changes. Stops at the first point that fails for another
// reason than an SQL error (lost connection, cancel). The outcome gathers every sample.
RunOutcome runSweep(Runner& runner, const RunPlan& plan, const std::vector<SweepPoint>& points,
                    SweepObserver& observer);

}  // namespace blobbench
