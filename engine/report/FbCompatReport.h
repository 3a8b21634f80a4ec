#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/drivers/Driver.h"

namespace blobbench {

// The report of Firebird's fb-blob-test, line for line (../shared/REFERENCE-REPORT.md): same
// headers, labels, units and spacing, so its users can diff old and new output. What the original
// cannot say (counters a 3.0 client lacks, an inline size that is not in effect) gets lines of its
// own instead of invented figures.
class FbCompatReport {
public:
    explicit FbCompatReport(std::ostream& out) : m_out(out) {}

    void header(const SessionInfo& session);
    // One test; with several repetitions the figures are those of the median sample.
    // `readsLobs`: the statement returns BLOBs, so the inline size matters and is shown.
    // `readsContent`: false for the BLOB-ids-only test, whose report has no content size (an empty
    // table read nothing to skip, and the line came: hostile round 5o X18).
    void section(const std::vector<Sample>& repetitions, bool readsLobs, bool readsContent = true);

    static constexpr const char* kTitle = "===== Test of BLOBs transmission over the network =====";

private:
    std::ostream& m_out;
};

}  // namespace blobbench
