#include "engine/report/FbCompatReport.h"

#include <algorithm>

#include "engine/report/TextReport.h"

namespace blobbench {
namespace {

void writeCounters(std::ostream& out, const char* title, const WireCounters& c, bool roundTrips) {
    out << title << ":\n";
    out << "  send packets = " << c.sendPackets << '\n';
    out << "  recv packets = " << c.recvPackets << '\n';
    out << "  send bytes = " << c.sendBytes << '\n';
    out << "  recv bytes = " << c.recvBytes << '\n';
    if (roundTrips && c.roundTrips) {
        out << "  roundtrips = " << *c.roundTrips << '\n';
    }
}

const ParameterEffect* effectOf(const Sample& s, const std::string& id) {
    auto it = std::find_if(s.effects.begin(), s.effects.end(), [&](const ParameterEffect& e) { return e.id == id; });
    return it == s.effects.end() ? nullptr : &*it;
}

}  // namespace

void FbCompatReport::header(const SessionInfo& session) {
    m_out << kTitle << "\n\n";
    m_out << "Firebird server version\n";
    for (const auto& line : session.versionBanner) {
        m_out << line << '\n';
    }
    m_out << '\n';
    m_out.flush();
}

void FbCompatReport::section(const std::vector<Sample>& repetitions, bool readsLobs, bool readsContent) {
    const Sample& s = medianSample(repetitions);
    m_out << "** " << s.scenarioTitle << " **\n" << TextReport::kRule << "\nSQL:\n\n" << s.sql << "\n\n";
    if (s.status != SampleStatus::Complete) {
        m_out << "Error: " << s.error << "\n\n";
        m_out.flush();
        return;
    }
    if (readsLobs && !s.scalar) {
        if (const ParameterEffect* inlineSize = effectOf(s, "max_inline_blob_size")) {
            if (inlineSize->inEffect) {
                m_out << "MaxInlineBlobSize = "
                      << (inlineSize->actual.empty() ? inlineSize->requested : inlineSize->actual) << '\n';
            } else {
                m_out << "MaxInlineBlobSize = " << inlineSize->requested << ", " << inlineSize->reason << '\n';
            }
        }
    }
    m_out << "Elapsed time: " << wholeMilliseconds(s.phases.elapsed()) << "ms";
    if (repetitions.size() > 1) {
        m_out << " (median of " << repetitions.size() << ")";
    }
    m_out << '\n';
    if (s.scalar) {
        m_out << s.scalarLabel << ": " << *s.scalar << "\n\n";
        m_out.flush();
        return;
    }
    if (s.maxId) {
        m_out << "Max id: " << *s.maxId << '\n';
    }
    m_out << "Record count: " << s.rows << '\n';
    if (s.valuesSkipped == 0 && readsContent) {
        m_out << "Content size: " << s.contentBytes << " bytes\n";
    }
    if (s.nativeLogical.available) {
        writeCounters(m_out, "Wire logical statistics", s.nativeLogical.counters, false);
    }
    if (s.nativePhysical.available) {
        writeCounters(m_out, "Wire physical statistics", s.nativePhysical.counters, true);
    }
    if (!s.nativeLogical.available && !s.nativePhysical.available) {
        // "not applicable (embedded)" reads on its own; a client's limits need the "not available".
        const std::string& why = s.nativeLogical.unavailableReason;
        if (why.empty()) {
            m_out << "Wire statistics: not measured\n";
        } else if (why.rfind("not ", 0) == 0) {
            m_out << "Wire statistics: " << why << '\n';
        } else {
            m_out << "Wire statistics: not available (" << why << ")\n";
        }
    }
    if (s.tap.available) {
        const char* title = s.tap.method == "in-process" ? "Wire tap statistics (in-process counters)"
                            : s.tap.method == "relay"    ? "Wire tap statistics (relay)"
                                                         : "Wire tap statistics";
        writeCounters(m_out, title, s.tap.counters, true);
    }
    m_out << '\n';
    m_out.flush();
}

}  // namespace blobbench
