#include "engine/report/TextReport.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>

#include "engine/core/Error.h"
#include "engine/core/Printable.h"

namespace blobbench {
namespace {

// "1.2 MB (5.1x less)": what a compressor would have sent instead of `original` bytes.
std::string sizeAndRatio(std::uint64_t original, std::uint64_t compressed) {
    std::string text = formatByteSize(compressed);
    if (original == 0 || compressed == 0) {
        return text;
    }
    char ratio[48];
    if (compressed < original) {
        std::snprintf(ratio, sizeof ratio, " (%.1fx less)", static_cast<double>(original) / compressed);
    } else {
        std::snprintf(ratio, sizeof ratio, " (%.1f%% more)",
                      100.0 * static_cast<double>(compressed - original) / original);
    }
    return text + ratio;
}

std::string compressedLine(std::uint64_t original, std::uint64_t zlib, std::uint64_t zstd) {
    return "zlib-6 would send " + sizeAndRatio(original, zlib) + ", zstd-3 " + sizeAndRatio(original, zstd) +
           "; estimate, not measured";
}

void writeWire(std::ostream& out, const char* title, const WireStats& stats) {
    out << title << ":\n";
    out << "  send packets = " << stats.counters.sendPackets << '\n';
    out << "  recv packets = " << stats.counters.recvPackets << '\n';
    out << "  send bytes = " << stats.counters.sendBytes << '\n';
    out << "  recv bytes = " << stats.counters.recvBytes << '\n';
    if (stats.counters.roundTrips) {
        out << "  roundtrips = " << *stats.counters.roundTrips << '\n';
    }
    if (const auto& c = stats.counters.compressed) {
        out << "  send compressed = " << compressedLine(stats.counters.sendBytes, c->zlibSendBytes, c->zstdSendBytes)
            << '\n';
        out << "  recv compressed = " << compressedLine(stats.counters.recvBytes, c->zlibRecvBytes, c->zstdRecvBytes)
            << '\n';
    }
}

// Drivers may phrase a reason as "not in effect (needs ...)"; the line already says so.
std::string reasonOf(const ParameterEffect& effect) {
    const std::string prefix = "not in effect (";
    if (effect.reason.starts_with(prefix) && effect.reason.ends_with(")")) {
        return effect.reason.substr(prefix.size(), effect.reason.size() - prefix.size() - 1);
    }
    return effect.reason;
}

// Names, values and reasons come from the project and the server: escaped for the terminal.
std::string notInEffect(const ParameterEffect& effect) {
    return "Not in effect: " + printable(effect.id) + " = " + printable(effect.requested) + " (" +
           printable(oneLine(reasonOf(effect))) + ")\n";
}

bool sameEffect(const ParameterEffect& a, const ParameterEffect& b) {
    return a.id == b.id && a.inEffect == b.inEffect && a.actual == b.actual && a.reason == b.reason;
}

}  // namespace

std::string formatByteSize(std::uint64_t bytes) {
    if (bytes < 1000) {
        return std::to_string(bytes) + " bytes";
    }
    static const char* const units[] = {"kB", "MB", "GB", "TB"};
    double value = static_cast<double>(bytes) / 1000.0;
    std::size_t unit = 0;
    while (value >= 999.95 && unit + 1 < std::size(units)) {
        value /= 1000.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

long long wholeMilliseconds(Nanos n) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(n).count();
}

const Sample& medianSample(const std::vector<Sample>& samples) {
    if (samples.empty()) {
        throw Error(ErrorKind::Internal, "median of no samples");
    }
    std::vector<const Sample*> sorted;
    sorted.reserve(samples.size());
    for (const auto& s : samples) {
        sorted.push_back(&s);
    }
    std::sort(sorted.begin(), sorted.end(),
              [](const Sample* a, const Sample* b) { return a->phases.elapsed() < b->phases.elapsed(); });
    return *sorted[(sorted.size() - 1) / 2];
}

void TextReport::header(const SessionInfo& session, const std::vector<std::string>& notes) {
    m_sessionEffects = session.effects;
    m_out << "===== Test of BLOBs transmission =====\n\n";
    for (const auto& line : session.versionBanner) {
        m_out << printable(line) << '\n';
    }
    for (const auto& line : notes) {
        m_out << printable(line) << '\n';
    }
    for (const auto& effect : session.effects) {
        if (!effect.inEffect) {
            m_out << notInEffect(effect);
        }
    }
    m_out << '\n';
    m_out.flush();
}

namespace {

// A scenario whose repetitions read different row counts changed what it reads (a DELETE, a
// table another client fills): the median above mixes different work, so the report says so.
void writeRowCountsDiffer(std::ostream& out, const std::vector<Sample>& repetitions) {
    const bool differ = std::any_of(repetitions.begin(), repetitions.end(),
                                    [&](const Sample& r) { return r.rows != repetitions.front().rows; });
    if (!differ) {
        return;
    }
    out << "Record counts differ between repetitions:";
    for (const Sample& r : repetitions) {
        out << ' ' << r.rows;
    }
    out << " (the scenario changes what it reads; the figures mix different work)\n";
}

}  // namespace

void TextReport::section(const std::vector<Sample>& repetitions) {
    // A failed repetition is the one to report (its partial times would skew a median).
    const auto failed = std::find_if(repetitions.begin(), repetitions.end(),
                                     [](const Sample& r) { return r.status != SampleStatus::Complete; });
    const Sample& s = failed != repetitions.end() ? *failed : medianSample(repetitions);
    m_out << "** " << printable(s.scenarioTitle) << " **\n"
          << kRule << "\nSQL:\n\n"
          << printable(s.sql, true) << "\n\n";
    for (const auto& effect : s.effects) {
        const bool known = std::any_of(m_sessionEffects.begin(), m_sessionEffects.end(),
                                       [&](const ParameterEffect& e) { return sameEffect(e, effect); });
        if (!effect.inEffect && !known) {
            m_out << notInEffect(effect);
        }
    }
    for (const Sample& r : repetitions) {
        if (!r.disturbed.empty()) {
            m_out << "Disturbed (repetition " << r.repetition + 1 << "): " << printable(r.disturbed) << '\n';
        }
    }
    for (const Sample& r : repetitions) {
        if (!r.contentCheck.empty()) {
            m_out << "Content";
            if (repetitions.size() > 1) {
                m_out << " (repetition " << r.repetition + 1 << ")";
            }
            m_out << ": " << printable(r.contentCheck) << '\n';
        }
    }
    if (s.status != SampleStatus::Complete) {
        // The repetitions measured whole before it are figures the user has: printed, not only in the
        // --json (hostile round 5o X11: a cancel in repetition 2 of 3 left repetition 1 on no line).
        std::vector<Sample> complete;
        std::copy_if(repetitions.begin(), repetitions.end(), std::back_inserter(complete),
                     [](const Sample& r) { return r.status == SampleStatus::Complete; });
        if (!complete.empty()) {
            m_out << "Complete repetitions: " << complete.size() << " of " << repetitions.size() << '\n';
            writeFigures(complete);
        }
        m_out << (s.status == SampleStatus::Cancelled && !complete.empty() ? "Then cancelled: " : "Failed: ")
              << printable(oneLine(s.error)) << '\n';
        if (s.partial) {
            m_out << "Measured until then: " << wholeMilliseconds(s.phases.elapsed()) << " ms, " << s.rows << " rows, "
                  << s.contentBytes << " content bytes (partial)\n";
        }
        m_out << '\n';
        m_out.flush();
        return;
    }
    writeFigures(repetitions);
    m_out << '\n';
    m_out.flush();
}

// From "Elapsed time" on: the median repetition's figures.
void TextReport::writeFigures(const std::vector<Sample>& repetitions) {
    const Sample& s = medianSample(repetitions);
    m_out << "Elapsed time: " << wholeMilliseconds(s.phases.elapsed()) << " ms";
    if (repetitions.size() > 1) {
        m_out << " (median of " << repetitions.size() << ")";
    }
    m_out << '\n';
    if (s.scalar) {
        m_out << printable(s.scalarLabel) << ": " << printable(*s.scalar) << '\n';
        return;
    }
    m_out << "Max id: " << (s.maxId ? std::to_string(*s.maxId) : std::string("none")) << '\n';
    m_out << "Record count: " << s.rows << '\n';
    writeRowCountsDiffer(m_out, repetitions);
    if (s.valuesSkipped == 0 || s.contentBytes > 0) {
        m_out << "Content size: " << s.contentBytes << " bytes\n";
    }
    if (s.tap.available) {
        writeWire(m_out,
                  s.tap.method == "in-process" ? "Wire statistics (in-process counters)"
                                               : "Wire statistics (measured by the wire tap)",
                  s.tap);
    }
    if (s.nativeLogical.available) {
        writeWire(m_out, "Wire logical statistics", s.nativeLogical);
    }
    if (s.nativePhysical.available) {
        writeWire(m_out, "Wire physical statistics", s.nativePhysical);
    }
    if (!s.tap.available && !s.nativeLogical.available && !s.nativePhysical.available) {
        const std::string& why =
            s.tap.unavailableReason.empty() ? s.nativeLogical.unavailableReason : s.tap.unavailableReason;
        m_out << "Wire statistics: " << (why.empty() ? "not measured" : printable(oneLine(why))) << '\n';
    }
}

void TextReport::failure(const std::string& oneLineError) {
    m_out << "Run failed: " << printable(oneLine(oneLineError)) << '\n';
    m_out.flush();
}

}  // namespace blobbench
