#include "engine/run/SessionFigures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace blobbench {
namespace {

double seconds(std::chrono::nanoseconds window) {
    return static_cast<double>(window.count()) / 1e9;
}

ScenarioFigures figuresFor(const SessionsOutcome& outcome, const std::string& id, const std::string& title) {
    ScenarioFigures f;
    f.id = id;
    f.title = title;
    std::vector<double> perSecond;
    for (const SessionResult& s : outcome.sessions) {
        StatementTally tally;
        for (const auto& [scenario, t] : s.byScenario) {
            if (id == "all" || scenario == id) {
                tally.merge(t);
            }
        }
        f.combined.merge(tally);
        f.perSessionRates.push_back(ratesOf(tally, outcome.window));
        perSecond.push_back(f.perSessionRates.back().statementsPerS);
        f.perSession.push_back(std::move(tally));
    }
    f.rates = ratesOf(f.combined, outcome.window);
    f.fairness = spreadOf(perSecond);
    return f;
}

std::string fixed(double value, int decimals) {
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

// 12.5, or 1e-10 for a rate below a tenth (fixed(1e-10, 1) said "0.0 statements/s").
std::string rateText(double rate) {
    if (rate >= 0.1) {
        return fixed(rate, 1);
    }
    char text[48];
    std::snprintf(text, sizeof text, "%.3g", rate);
    return text;
}

std::string ms(std::uint64_t ns) {
    return fixed(static_cast<double>(ns) / 1e6, 3);
}

std::string pad(std::string text, std::size_t width, bool left = false) {
    if (text.size() < width) {
        text.insert(left ? text.end() : text.begin(), width - text.size(), ' ');
    }
    return text;
}

void writeHeader(std::ostream& out) {
    out << pad("", 24, true) << pad("stmts", 9) << pad("stmt/s", 10) << pad("rows/s", 11) << pad("MB/s", 9)
        << pad("wire MB/s", 11) << pad("p50 ms", 10) << pad("p90", 10) << pad("p99", 10) << pad("p99.9", 10)
        << pad("max", 10) << pad("errors", 8) << '\n';
}

void writeLine(std::ostream& out, const std::string& name, const StatementTally& t, const Rates& r) {
    const auto& h = t.latency;
    std::string label = name.size() > 23 ? name.substr(0, 23) : name;
    out << pad(label, 24, true) << pad(std::to_string(t.statements), 9) << pad(fixed(r.statementsPerS, 1), 10)
        << pad(fixed(r.rowsPerS, 0), 11) << pad(fixed(r.contentMBPerS, 2), 9)
        << pad(t.wireCounted() ? fixed(r.wireMBPerS, 2) : "-", 11) << pad(ms(h.percentile(0.5)), 10)
        << pad(ms(h.percentile(0.9)), 10) << pad(ms(h.percentile(0.99)), 10) << pad(ms(h.percentile(0.999)), 10)
        << pad(ms(h.max()), 10) << pad(std::to_string(t.failed + t.cancelled), 8) << '\n';
}

void writeScenario(std::ostream& out, const ScenarioFigures& f, bool perSession) {
    writeLine(out, f.title, f.combined, f.rates);
    if (perSession && f.perSession.size() > 1) {
        for (std::size_t i = 0; i < f.perSession.size(); ++i) {
            writeLine(out, "  session " + std::to_string(i + 1), f.perSession[i], f.perSessionRates[i]);
        }
    }
}

std::string modeLine(const SessionsOutcome& o) {
    const std::string window = fixed(seconds(o.window), 2) + " s measured";
    std::uint64_t excluded = 0;
    for (const SessionResult& s : o.sessions) {
        excluded += s.excluded;
    }
    const std::string ramp = o.rampUp.count() > 0 ? " after a " + fixed(seconds(o.rampUp), 1) + " s ramp-up" : "";
    const std::string left =
        excluded > 0 ? ", " + std::to_string(excluded) + " statements of the ramp-up and warm-ups left out" : "";
    const std::string mode = o.openLoop ? "open loop at " + rateText(o.rate) + " statements/s" : "closed loop";
    return std::to_string(o.sessions.size()) + " (" + mode + ", " + window + ramp + left +
           "), each its own connection and wire counting";
}

}  // namespace

Rates ratesOf(const StatementTally& tally, std::chrono::nanoseconds window) {
    Rates r;
    const double s = seconds(window);
    if (s <= 0) {
        return r;
    }
    r.statementsPerS = static_cast<double>(tally.statements) / s;
    r.rowsPerS = static_cast<double>(tally.rows) / s;
    r.contentMBPerS = static_cast<double>(tally.contentBytes) / 1e6 / s;
    r.wireMBPerS = tally.wireCounted() ? static_cast<double>(tally.wireBytes) / 1e6 / s : 0;
    return r;
}

Spread spreadOf(const std::vector<double>& values) {
    Spread s;
    if (values.empty()) {
        return s;
    }
    s.min = *std::min_element(values.begin(), values.end());
    s.max = *std::max_element(values.begin(), values.end());
    s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    double squares = 0;
    for (const double v : values) {
        squares += (v - s.mean) * (v - s.mean);
    }
    s.cv = s.mean > 0 ? std::sqrt(squares / static_cast<double>(values.size())) / s.mean : 0;
    return s;
}

SessionsFigures figuresOf(const SessionsOutcome& outcome) {
    SessionsFigures f;
    for (const Scenario& s : outcome.scenarios) {
        f.scenarios.push_back(figuresFor(outcome, s.id, s.title));
    }
    f.all = figuresFor(outcome, "all", "All scenarios");
    f.errors = f.all.combined.failed;
    f.connectionWireComplete = !outcome.sessions.empty();
    for (const SessionResult& s : outcome.sessions) {
        f.connectionWireBytes += s.connectionWire ? s.connectionWire->sendBytes + s.connectionWire->recvBytes : 0;
        f.connectionWireComplete = f.connectionWireComplete && s.connectionWire.has_value();
    }
    return f;
}

void writeSessionsReport(std::ostream& out, const SessionsOutcome& outcome, const SessionsFigures& figures) {
    out << "Sessions: " << modeLine(outcome) << '\n';
    out << "Latency: "
        << (outcome.openLoop ? "from each statement's slot to its end (schedule lag included)"
                             : "prepare + execute + fetch of each statement")
        << "; percentiles within 0.4 % (a histogram of every statement)\n";
    if (!outcome.link.empty()) {
        out << "Link: " << outcome.link << '\n';
    }
    out << '\n';
    writeHeader(out);
    for (const ScenarioFigures& f : figures.scenarios) {
        writeScenario(out, f, true);
    }
    if (figures.scenarios.size() > 1) {
        writeScenario(out, figures.all, true);
    }
    const Spread& fair = figures.all.fairness;
    out << "\nFairness (statements/s per session): min " << fixed(fair.min, 1) << ", max " << fixed(fair.max, 1)
        << ", cv " << fixed(fair.cv * 100, 1) << " %\n";
    if (figures.connectionWireComplete) {
        out << "Wire: the sessions' connections carried "
            << fixed(static_cast<double>(figures.connectionWireBytes) / 1e6, 3) << " MB in all ("
            << outcome.sessions.front().wireMethod << ", connects and checks included):";
        for (const SessionResult& s : outcome.sessions) {
            out << ' '
                << fixed(static_cast<double>(s.connectionWire->sendBytes + s.connectionWire->recvBytes) / 1e6, 3);
        }
        out << '\n';
    } else {
        out << "Wire: not counted for every session (embedded, --no-tap, TLS counted in-process, or a session that did "
               "not connect)\n";
    }
    if (outcome.openLoop) {
        const auto& lag = figures.all.combined.scheduleLag;
        out << "Schedule: " << outcome.slotsDue << " slots due, " << outcome.slotsMissed
            << " missed (not started in time), " << figures.all.combined.late
            << " started more than one slot late; lag p50 " << ms(lag.percentile(0.5)) << " ms, p99 "
            << ms(lag.percentile(0.99)) << " ms, max " << ms(lag.max()) << " ms\n";
    }
    if (outcome.clientPauses > 0 || figures.all.combined.disturbed > 0) {
        out << "Disturbed: the client itself was stopped or suspended " << outcome.clientPauses << " time"
            << (outcome.clientPauses == 1 ? "" : "s") << " during the run ("
            << fixed(static_cast<double>(outcome.clientPaused.count()) / 1e9, 1) << " s in all); "
            << figures.all.combined.disturbed
            << " statements' latencies include it: the client's own time, not the server's or the link's\n";
    }
    for (const SessionResult& s : outcome.sessions) {
        if (!s.ok) {
            out << "Session " << s.index << " ended: " << s.error << '\n';
        } else if (!s.firstSampleError.empty()) {
            out << "Session " << s.index << " first error: " << s.firstSampleError << '\n';
        }
    }
}

}  // namespace blobbench
