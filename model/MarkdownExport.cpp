#include "model/MarkdownExport.h"

#include <algorithm>

#include <QStringList>

#include "engine/core/Error.h"
#include "engine/core/Printable.h"
#include "model/AtomicFile.h"
#include "model/SampleJson.h"
#include "model/SeriesNaming.h"

namespace blobbench {
namespace {

QString ms(double v) {
    return QString::number(v, 'f', v < 10 ? 3 : 1);
}
QString percent(double v) {
    return QString::number(v * 100, 'f', 1) + QLatin1Char('%');
}

// Pipes and line breaks would break a table cell. A pipe becomes its HTML entity rather than "\\|":
// text that already ends in a backslash would turn "\\|" back into a real cell border.
QString cell(QString text) {
    text.replace(QLatin1Char('|'), QLatin1String("&#124;"));
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    text.replace(QLatin1Char('\r'), QLatin1Char(' '));
    return text;
}

// The whole text, once made: control characters from titles, ids, paths or server words (an ESC
// sequence, an OSC title, BEL) become visible escapes, in the file and on the terminal it is printed on.
QString printableMarkdown(const QString& markdown) {
    return QString::fromStdString(printable(markdown.toStdString(), true));
}

QString row(const QStringList& cells) {
    QStringList escaped;
    for (const auto& c : cells) {
        escaped << cell(c);
    }
    return QLatin1String("| ") + escaped.join(QLatin1String(" | ")) + QLatin1String(" |\n");
}

QString separator(int columns) {
    QStringList dashes;
    for (int i = 0; i < columns; ++i) {
        dashes << QStringLiteral("---");
    }
    return QLatin1Char('|') + dashes.join(QLatin1Char('|')) + QLatin1String("|\n");
}

QString optionalNumber(const std::optional<double>& v) {
    return v ? QString::number(*v, 'f', 0) : QStringLiteral("n/a");
}

QString contextLines(const RunRecord& run) {
    QString out;
    auto line = [&](const char* label, const QString& value) {
        if (!value.isEmpty()) {
            // One line per item: a line break in a name would start a heading or a table of its own.
            QString flat = value;
            flat.replace(QLatin1Char('\n'), QLatin1Char(' ')).replace(QLatin1Char('\r'), QLatin1Char(' '));
            out += QLatin1String("- ") + QLatin1String(label) + QLatin1String(": ") + flat + QLatin1Char('\n');
        }
    };
    line("Run", run.runId);
    line("Started", run.startedAt);
    line("Finished", run.finishedAt);
    line("Outcome", run.outcome.isEmpty() ? QStringLiteral("incomplete (no end recorded)") : run.outcome);
    line("Machine", run.machine);
    line("Connection", run.connectionName);
    line("Sweep", run.sweepName);
    line("BlobBench", run.toolVersion);
    if (!run.samples.empty()) {
        const Sample& s = run.samples.front();
        QStringList versions;
        if (!s.serverVersion.empty()) {
            versions << QLatin1String("server ") + qs(s.serverVersion);
        }
        if (!s.clientVersion.empty()) {
            versions << QLatin1String("client ") + qs(s.clientVersion);
        }
        line("Engine", versions.isEmpty() ? qs(s.engine)
                                          : qs(s.engine) + QLatin1String(" (") + versions.join(QLatin1String(", ")) +
                                                QLatin1Char(')'));
        // What holds for the whole run: a value that differs between samples (a storage step's MB/s)
        // is the sample's, not the run's.
        QStringList negotiated;
        for (const auto& entry : s.negotiated) {
            const auto& [k, v] = entry;
            // (the lambda captures `entry`: clang 14 cannot capture structured bindings)
            const bool shared = std::all_of(run.samples.begin(), run.samples.end(), [&entry](const Sample& other) {
                const auto it = other.negotiated.find(entry.first);
                return it != other.negotiated.end() && it->second == entry.second;
            });
            if (shared) {
                negotiated << qs(k) + QLatin1Char('=') + qs(v);
            }
        }
        line("Negotiated", negotiated.join(QLatin1String(", ")));
        QStringList params;
        for (const auto& [k, v] : s.parameters) {
            if (s.point.find(k) == s.point.end()) {
                params << qs(k) + QLatin1Char('=') + qs(v);
            }
        }
        line("Tunables", params.join(QLatin1String(", ")));
    }
    if (run.link != LinkSettings{}) {
        line("Link", QStringLiteral("latency %1/%2 ms, bandwidth %3/%4 bit/s (up/down)")
                         .arg(run.link.latencyUpMs)
                         .arg(run.link.latencyDownMs)
                         .arg(run.link.bandwidthUpBits)
                         .arg(run.link.bandwidthDownBits));
    }
    return out;
}

}  // namespace

// A run of many sessions: its load points, a row a scenario and point, every figure over all sessions.
QString loadTable(const RunRecord& run) {
    QString out;
    const QStringList header{QStringLiteral("Scenario"),     QStringLiteral("Point"),      QStringLiteral("Sessions"),
                             QStringLiteral("Mode"),         QStringLiteral("Statements"), QStringLiteral("Stmt/s"),
                             QStringLiteral("Content MB/s"), QStringLiteral("Wire MB/s"),  QStringLiteral("p50 ms"),
                             QStringLiteral("p99 ms"),       QStringLiteral("p99.9 ms"),   QStringLiteral("Max ms"),
                             QStringLiteral("Errors"),       QStringLiteral("Disturbed")};
    out += row(header);
    out += separator(static_cast<int>(header.size()));
    const auto latency = [](const LatencyHistogram& h, double q) {
        return ms(static_cast<double>(h.percentile(q)) / 1e6);
    };
    for (const LoadPoint& p : run.loads) {
        const Rates r = p.rates();
        const StatementTally& t = p.combined;
        out += row({qs(p.scenarioTitle.empty() ? p.scenarioId : p.scenarioTitle), pointText(p.point),
                    QString::number(p.sessions),
                    p.openLoop ? QStringLiteral("open, %1/s").arg(p.rate) : QStringLiteral("closed"),
                    QString::number(t.statements), QString::number(r.statementsPerS, 'f', 1),
                    QString::number(r.contentMBPerS, 'f', 2),
                    t.wireCounted() ? QString::number(r.wireMBPerS, 'f', 2) : QStringLiteral("n/a"),
                    latency(t.latency, 0.5), latency(t.latency, 0.99), latency(t.latency, 0.999),
                    latency(t.latency, 1.0), QString::number(t.failed + t.cancelled), QString::number(t.disturbed)});
    }
    out += QLatin1String(
        "\nEvery statement of every session after the ramp-up; latency from a histogram of all of them (within "
        "0.4 %): prepare + execute + fetch in a closed loop, from each statement's slot in an open loop. "
        "Disturbed: statements whose latency includes a stop or suspend of the client itself.\n");
    return out;
}

QString markdownRunSummary(const RunRecord& run) {
    QString out = QLatin1String("## BlobBench run ") + cell(run.runId) + QLatin1String("\n\n") + contextLines(run) +
                  QLatin1Char('\n');
    if (run.samples.empty() && !run.loads.empty()) {
        return printableMarkdown(out + loadTable(run));
    }
    const std::vector<PointSummary> points = summariseSamples(run.samples);
    // Single-value scenarios (storage studies, "Max char length") add the column of their figure.
    const bool figures =
        std::any_of(points.begin(), points.end(), [](const PointSummary& p) { return !p.figure.isEmpty(); });
    QStringList header{QStringLiteral("Scenario"),    QStringLiteral("Point"),         QStringLiteral("n"),
                       QStringLiteral("Median ms"),   QStringLiteral("Min ms"),        QStringLiteral("Max ms"),
                       QStringLiteral("Stddev ms"),   QStringLiteral("p95 ms"),        QStringLiteral("CV"),
                       QStringLiteral("Outliers"),    QStringLiteral("Content bytes"), QStringLiteral("Received bytes"),
                       QStringLiteral("Round trips"), QStringLiteral("Failed")};
    if (figures) {
        header << QStringLiteral("Figure");
    }
    out += row(header);
    out += separator(static_cast<int>(header.size()));
    for (const auto& p : points) {
        const Summary& s = p.elapsed;
        auto time = [&](double v) { return p.timed ? ms(v) : QStringLiteral("n/a"); };
        QStringList cells{p.scenarioTitle.isEmpty() ? p.scenarioId : p.scenarioTitle,
                          pointText(p.point),
                          QString::number(s.count),
                          time(s.median),
                          time(s.min),
                          time(s.max),
                          time(s.stddev),
                          time(s.p95),
                          p.timed ? percent(s.cv) : QStringLiteral("n/a"),
                          QString::number(s.outlierCount()),
                          QString::number(p.medianContentBytes, 'f', 0),
                          optionalNumber(p.medianRecvBytes),
                          optionalNumber(p.medianRoundTrips),
                          QString::number(p.failed)};
        if (figures) {
            cells << p.figure;
        }
        out += row(cells);
    }
    out += QLatin1String(
        "\nMedians over the complete repetitions; stddev is the sample standard deviation; CV = stddev / mean; "
        "outliers lie beyond 1.5 IQR from the quartiles (Tukey).\n");
    // A sample the client's own stop or suspend disturbed is in the figures above: said, so that a
    // median of 2 that holds a 4 s SIGSTOP is not read as the server's time.
    bool firstDisturbed = true;
    for (const Sample& s : run.samples) {
        if (s.disturbed.empty()) {
            continue;
        }
        if (firstDisturbed) {
            out += QLatin1String("\nDisturbed samples (counted in the figures above):\n\n");
            firstDisturbed = false;
        }
        const QString title = qs(s.scenarioTitle.empty() ? s.scenarioId : s.scenarioTitle);
        out += QLatin1String("- ") + cell(title) +
               (s.point.empty() ? QString() : QLatin1String(" (") + cell(pointText(s.point)) + QLatin1Char(')')) +
               QLatin1String(", repetition ") + QString::number(s.repetition + 1) + QLatin1String(": ") +
               cell(qs(s.disturbed)) + QLatin1Char('\n');
    }
    return printableMarkdown(out);
}

QString markdownComparison(const RunRecord& base, const RunRecord& candidate, const std::vector<PointComparison>& rows,
                           double alpha) {
    QString out = QLatin1String("## Comparison: ") + cell(candidate.runId) + QLatin1String(" vs base ") +
                  cell(base.runId) + QLatin1String("\n\n");
    // What was changed between the two runs: a ratio means little without it.
    const QStringList differences = settingDifferences(base.samples, candidate.samples);
    if (differences.isEmpty()) {
        out += QLatin1String("Settings: the same in both runs.\n\n");
    } else {
        out += QStringLiteral("Settings that differ (base → new):\n\n");
        for (const QString& d : differences)
            out += QLatin1String("- ") + cell(d) + QLatin1Char('\n');
        out += QLatin1Char('\n');
    }
    out += row({QStringLiteral("Scenario"), QStringLiteral("Point"), QStringLiteral("Base median ms"),
                QStringLiteral("New median ms"), QStringLiteral("Ratio"), QStringLiteral("p (Mann-Whitney)"),
                QStringLiteral("Significant"), QStringLiteral("n base/new"), QStringLiteral("Round trips base/new")});
    out += separator(9);
    QStringList differentData;
    for (const auto& c : rows) {
        auto trips = [](const std::optional<PointSummary>& side) {
            return side && side->medianRoundTrips ? QString::number(*side->medianRoundTrips, 'f', 0)
                                                  : QStringLiteral("-");
        };
        if (c.base && c.candidate && c.base->elapsed.count && c.candidate->elapsed.count &&
            c.base->medianContentBytes != c.candidate->medianContentBytes) {
            differentData << QStringLiteral("%1 (%2 vs %3 content bytes)")
                                 .arg(c.scenarioTitle.isEmpty() ? c.scenarioId : c.scenarioTitle)
                                 .arg(c.base->medianContentBytes, 0, 'f', 0)
                                 .arg(c.candidate->medianContentBytes, 0, 'f', 0);
        }
        const QString baseMs = c.base && c.base->elapsed.count ? ms(c.base->elapsed.median) : QStringLiteral("-");
        const QString newMs =
            c.candidate && c.candidate->elapsed.count ? ms(c.candidate->elapsed.median) : QStringLiteral("-");
        QString verdict = QStringLiteral("-");
        QString p = QStringLiteral("-");
        if (c.base && c.candidate && c.test.valid) {
            p = QString::number(c.test.pValue, 'g', 3) + (c.test.exact ? QString() : QStringLiteral(" (approx.)"));
            verdict = c.significant
                          ? (c.ratio && *c.ratio < 1 ? QStringLiteral("yes: faster") : QStringLiteral("yes: slower"))
                          : QStringLiteral("no");
        } else if (!c.base) {
            verdict = QStringLiteral("new only");
        } else if (!c.candidate) {
            verdict = QStringLiteral("base only");
        }
        out += row({c.scenarioTitle.isEmpty() ? c.scenarioId : c.scenarioTitle, pointText(c.point), baseMs, newMs,
                    c.ratio ? QString::number(*c.ratio, 'f', 3) : QStringLiteral("-"), p, verdict,
                    QString::number(c.base ? c.base->elapsed.count : 0) + QLatin1Char('/') +
                        QString::number(c.candidate ? c.candidate->elapsed.count : 0),
                    trips(c.base) + QLatin1Char('/') + trips(c.candidate)});
    }
    if (!differentData.isEmpty()) {
        // A ratio of two runs over different data measures the data, not the setting: say so.
        out += QStringLiteral("\nThe two runs read different data in: ") + differentData.join(QStringLiteral("; ")) +
               QStringLiteral(
                   ". Their times do not compare the settings alone (prepare both with the same data "
                   "set).\n");
    }
    out += QStringLiteral(
               "\nRatio = new median / base median (below 1: faster now). Significant: two-sided Mann-Whitney U "
               "test over the repetitions, p < %1.\n")
               .arg(alpha);
    return printableMarkdown(out);
}

void writeMarkdown(const QString& path, const QString& markdown) {
    const QByteArray data = markdown.toUtf8();
    writeFileAtomically(path, data);
}

}  // namespace blobbench
