#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/drivers/Driver.h"

namespace blobbench {

// The report of `blobbench-cli run`, laid out like the reference tool's: a banner, then one
// section a scenario. Sections are written as samples arrive, so a failure keeps what came before.
class TextReport {
public:
    explicit TextReport(std::ostream& out) : m_out(out) {}

    void header(const SessionInfo& session, const std::vector<std::string>& notes);
    // One section; with several repetitions pass them all: the figures are their median.
    void section(const std::vector<Sample>& repetitions);
    void failure(const std::string& oneLineError);

    static constexpr const char* kRule =
        "------------------------------------------------------------------------------------";

private:
    void writeFigures(const std::vector<Sample>& repetitions);  // from "Elapsed time" on, of their median
    std::ostream& m_out;
    std::vector<ParameterEffect> m_sessionEffects;
};

// "512 bytes", "1.2 kB", "3.4 MB" (decimal units, one decimal).
std::string formatByteSize(std::uint64_t bytes);

// Milliseconds as the reference tool prints them (truncated).
long long wholeMilliseconds(Nanos n);

// The median of the samples' elapsed times; for an even count the lower middle (a real sample).
const Sample& medianSample(const std::vector<Sample>& samples);

}  // namespace blobbench
