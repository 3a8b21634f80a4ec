#include "app/cli/PredictCommand.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>

#include "app/cli/Signals.h"
#include "engine/core/Error.h"
#include "engine/core/ExchangeTrace.h"
#include "engine/core/FileKind.h"
#include "engine/core/Printable.h"
#include "engine/wire/LinkAdvice.h"
#include "engine/wire/LinkModel.h"
#include "model/AtomicFile.h"
#include "model/Project.h"
#include "model/ProjectFile.h"
#include "model/SampleJson.h"
#include "model/SeriesNaming.h"

namespace blobbench::cli {
namespace {

struct Input {
    std::vector<Sample> samples;
    std::map<std::string, std::string> current;  // a project's tunable values, for the advice
    std::string currentConnection;               // and its current connection's label
    std::size_t loadPoints = 0;                  // of runs of many sessions: never predicted
};

// Load points are figures of many sessions at once: the model replays one session's exchanges and
// cannot tell how sessions share the server, the client or a link (issue #25).
std::string loadPointsNote(std::size_t count) {
    return std::to_string(count) +
           " load point(s) of runs of many sessions: not predicted (the model replays one session's exchanges "
           "and cannot tell how sessions share the server, the client or a link)";
}

Input readInput(const std::string& path) {
    // A FIFO or /dev/zero hung predict (in the open, or reading for ever).
    if (const std::string why = whyNotAFile(path); !why.empty()) {
        throw Error(ErrorKind::Io, "predict: cannot read " + path + ": " + why);
    }
    const QString name = QString::fromStdString(path);
    Input in;
    if (looksLikeProjectFile(name)) {
        // A file of a few MB must not claim tens of GB of traces. The project loader decodes each
        // trace twice (checked, then read), and keeps one.
        const TraceDecodeBudget budget(2 * kMaxFileTraceExchanges);
        const Project project = loadProject(name);
        for (const RunRecord& run : project.history) {
            in.samples.insert(in.samples.end(), run.samples.begin(), run.samples.end());
            in.loadPoints += run.loads.size();
        }
        if (const ConnectionProfile* c = project.current()) {
            in.currentConnection = c->toSpec().label();
            const auto values = project.parameters.find(c->engine);
            if (values != project.parameters.end()) {
                in.current.insert(values->second.begin(), values->second.end());
            }
        }
        return in;
    }
    const TraceDecodeBudget budget;
    in.samples = readSamplesJson(name, "predict");
    return in;
}

// The link model sums int64 nanoseconds. A sample whose sums could pass that (negative or huge
// phases in a file, bytes that would take centuries at this link) is not predicted: a wrapped sum
// would be shown as a figure.
bool fitsTheModel(const Sample& s, const LinkProfile& link) {
    using Seconds = std::chrono::duration<double>;
    const auto execute = s.phases.execute.count();
    const auto fetch = s.phases.fetch.count();
    if (execute < 0 || fetch < 0 || fetch > std::numeric_limits<std::int64_t>::max() - execute) {
        return false;
    }
    const ExchangeTrace& t = *s.trace;
    double seconds = Seconds(s.phases.elapsed()).count() +
                     Seconds(link.latencyUp + link.latencyDown).count() * static_cast<double>(t.exchanges.size());
    for (const auto& [bytes, bandwidth] :
         {std::pair{t.sendBytes(), link.bandwidthUp}, std::pair{t.recvBytes(), link.bandwidthDown}}) {
        if (bandwidth != 0) {
            seconds += static_cast<double>(bytes) * 8 / static_cast<double>(bandwidth);
        }
    }
    return seconds < 9e9;  // int64 nanoseconds end at 9.22e9 s
}

// Through std::cout, whose failed writes main() reports (`> /dev/full`, a closed pipe); stdio's went unsaid.
[[gnu::format(printf, 1, 2)]] void say(const char* format, ...) {
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int size = std::vsnprintf(nullptr, 0, format, args);  // a title may be 100 kB long
    va_end(args);
    std::string line(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
    std::vsnprintf(line.data(), line.size() + 1, format, again);
    va_end(again);
    std::cout << line;
}

// The samples the advice may take (copies: only when a file holds some that do not fit).
std::vector<Sample> fitting(const std::vector<Sample>& samples, const LinkProfile& link) {
    std::vector<Sample> out;
    std::copy_if(samples.begin(), samples.end(), std::back_inserter(out),
                 [&](const Sample& s) { return !s.trace || fitsTheModel(s, link); });
    return out;
}

std::string milliseconds(std::chrono::nanoseconds t) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f ms", std::chrono::duration<double, std::milli>(t).count());
    return text;
}

// Text from the file as one table cell: a newline or a terminal escape in a title broke the
// table and reached the terminal (control characters become visible escapes; '|' is escaped in Markdown).
std::string cell(const std::string& text) {
    return printable(text);
}

std::string markdownCell(const std::string& text) {
    std::string out;
    for (const char c : cell(text)) {
        if (c == '|') {
            out += '\\';
        }
        out += c;
    }
    return out;
}

std::string label(const std::map<std::string, std::string>& point) {
    const QString text = pointLabel(point);
    return text.isEmpty() ? std::string("(as run)") : cell(text.toStdString());
}

// A parameter set by what tells it from its scenario's other sets: the connection first where they
// have several ("postgresql://u@h/db"), then the link and the settings ("link=…, result_format=binary").
std::string setLabel(const ParameterSetAdvice& s) {
    std::map<std::string, std::string> rest = s.differing;
    std::string text;
    if (const auto c = rest.find("connection"); c != rest.end()) {
        text = connectionText(c->second).toStdString();
        rest.erase(c);
    }
    if (!rest.empty()) {
        text += (text.empty() ? "" : " · ") + pointLabel(rest).toStdString();
    }
    return text.empty() ? std::string("(as run)") : cell(text);
}

struct Row {
    const Sample* sample;
    LinkPrediction p;
};

QJsonValue number(std::uint64_t n) {
    return QJsonValue(static_cast<qint64>(n));
}

QJsonObject toJson(const LinkProfile& link, const std::vector<Row>& rows, const std::vector<ScenarioAdvice>& advice) {
    QJsonObject root;
    QJsonObject l;
    l[QStringLiteral("describe")] = qs(link.describe());
    l[QStringLiteral("latencyUpNs")] = static_cast<qint64>(link.latencyUp.count());
    l[QStringLiteral("latencyDownNs")] = static_cast<qint64>(link.latencyDown.count());
    l[QStringLiteral("bandwidthUpBits")] = number(link.bandwidthUp);
    l[QStringLiteral("bandwidthDownBits")] = number(link.bandwidthDown);
    root[QStringLiteral("link")] = l;
    QJsonArray samples;
    for (const Row& r : rows) {
        QJsonObject o;
        o[QStringLiteral("runId")] = qs(r.sample->runId);
        o[QStringLiteral("scenario")] = qs(r.sample->scenarioId);
        o[QStringLiteral("point")] = pointLabel(r.sample->point);
        o[QStringLiteral("repetition")] = r.sample->repetition;
        o[QStringLiteral("measuredNs")] = static_cast<qint64>(r.p.measured.count());
        o[QStringLiteral("predictedNs")] = static_cast<qint64>(r.p.predicted.count());
        o[QStringLiteral("loopbackNs")] = static_cast<qint64>(r.p.loopback.count());
        o[QStringLiteral("latencyNs")] = static_cast<qint64>(r.p.latency.count());
        o[QStringLiteral("transferNs")] = static_cast<qint64>(r.p.transfer.count());
        o[QStringLiteral("exchanges")] = number(r.p.exchanges);
        o[QStringLiteral("sendBytes")] = number(r.p.sendBytes);
        o[QStringLiteral("recvBytes")] = number(r.p.recvBytes);
        samples.append(o);
    }
    root[QStringLiteral("samples")] = samples;
    QJsonArray scenarios;
    for (const ScenarioAdvice& a : advice) {
        QJsonObject o;
        o[QStringLiteral("scenario")] = qs(a.scenarioId);
        o[QStringLiteral("title")] = qs(a.scenarioTitle);
        QJsonArray ranked;
        for (const ParameterSetAdvice& s : a.ranked) {
            QJsonObject r;
            r[QStringLiteral("point")] = pointLabel(s.point);
            r[QStringLiteral("set")] = pointLabel(s.differing);  // what tells it from the scenario's other sets
            r[QStringLiteral("connection")] = qs(s.connection);
            r[QStringLiteral("measuredOver")] = qs(s.measuredOver);
            r[QStringLiteral("samples")] = static_cast<qint64>(s.samples);
            r[QStringLiteral("measuredNs")] = static_cast<qint64>(s.measured.count());
            r[QStringLiteral("predictedNs")] = static_cast<qint64>(s.predicted.count());
            r[QStringLiteral("current")] = s.current;
            r[QStringLiteral("best")] = s.best;
            r[QStringLiteral("savingVsCurrent")] = s.savingVsCurrent;
            ranked.append(r);
        }
        o[QStringLiteral("ranked")] = ranked;
        scenarios.append(o);
    }
    if (!advice.empty()) {
        root[QStringLiteral("advice")] = scenarios;
    }
    return root;
}

std::string adviceMark(const ParameterSetAdvice& s) {
    std::string mark;
    if (s.best) {
        char saving[64];
        std::snprintf(saving, sizeof saving, "best (%+.1f%% vs current)", -s.savingVsCurrent * 100);
        mark = s.current ? "best (current)" : saving;
    } else if (s.current) {
        mark = "current";
    }
    return mark;
}

std::string markdown(const LinkProfile& link, const std::vector<Row>& rows, const std::vector<ScenarioAdvice>& advice) {
    std::string md = "# Predicted at " + link.describe() + "\n\n";
    md += "| Scenario | Parameters | Rep | Measured | Predicted | Exchanges | Sent B | Received B |\n";
    md += "|---|---|---:|---:|---:|---:|---:|---:|\n";
    for (const Row& r : rows) {
        md += "| " + markdownCell(r.sample->scenarioTitle) + " | " + markdownCell(label(r.sample->point)) + " | " +
              std::to_string(r.sample->repetition + 1) + " | " + milliseconds(r.p.measured) + " | " +
              milliseconds(r.p.predicted) + " | " + std::to_string(r.p.exchanges) + " | " +
              std::to_string(r.p.sendBytes) + " | " + std::to_string(r.p.recvBytes) + " |\n";
    }
    for (const ScenarioAdvice& a : advice) {
        md += "\n## " + cell(a.scenarioTitle) + ": parameter sets by predicted time\n\n";
        md += "| Parameters | Samples | Measured | Predicted | |\n|---|---:|---:|---:|---|\n";
        for (const ParameterSetAdvice& s : a.ranked) {
            md += "| " + markdownCell(setLabel(s)) + " | " + std::to_string(s.samples) + " | " +
                  milliseconds(s.measured) + " | " + milliseconds(s.predicted) + " | " + adviceMark(s) + " |\n";
        }
    }
    return md;
}

void printTable(const LinkProfile& link, const std::vector<Row>& rows, const std::vector<ScenarioAdvice>& advice) {
    say("Predicted at %s (the link model of docs/wire.md)\n\n", link.describe().c_str());
    say("%-28s %-28s %4s %12s %12s %9s %12s %12s\n", "Scenario", "Parameters", "Rep", "Measured", "Predicted",
        "Exchanges", "Sent B", "Received B");
    for (const Row& r : rows) {
        say("%-28.28s %-28.28s %4d %12s %12s %9llu %12llu %12llu\n", cell(r.sample->scenarioTitle).c_str(),
            label(r.sample->point).c_str(), r.sample->repetition + 1, milliseconds(r.p.measured).c_str(),
            milliseconds(r.p.predicted).c_str(), static_cast<unsigned long long>(r.p.exchanges),
            static_cast<unsigned long long>(r.p.sendBytes), static_cast<unsigned long long>(r.p.recvBytes));
    }
    for (const ScenarioAdvice& a : advice) {
        say("\n%s: parameter sets by predicted time\n", cell(a.scenarioTitle).c_str());
        // As wide as the longest name (a connection string and its settings), at least 40.
        int width = 40;
        for (const ParameterSetAdvice& s : a.ranked)
            width = std::max(width, static_cast<int>(QString::fromStdString(setLabel(s)).size()));
        for (const ParameterSetAdvice& s : a.ranked) {
            std::string padded = setLabel(s);
            padded.append(
                static_cast<std::size_t>(std::max(0, width - static_cast<int>(QString::fromStdString(padded).size()))),
                ' ');
            say("  %s %3zu samples %12s -> %12s  %s\n", padded.c_str(), s.samples, milliseconds(s.measured).c_str(),
                milliseconds(s.predicted).c_str(), adviceMark(s).c_str());
        }
    }
}

}  // namespace

int commandPredict(const CliOptions& o) {
    if (o.database.empty()) {
        throw Error(ErrorKind::Usage, "predict: name a project or a samples file of --json");
    }
    if (!o.linkSet) {
        throw Error(ErrorKind::Usage, "predict: name the link to predict at (--latency MS and/or --bandwidth RATE)");
    }
    const Input in = readInput(o.database);
    std::vector<Row> rows;
    std::size_t outOfRange = 0;
    std::size_t onALink = 0;
    std::size_t disturbed = 0;
    for (const Sample& s : in.samples) {
        if (s.status != SampleStatus::Complete) {
            continue;
        }
        if (s.trace && !s.disturbed.empty()) {
            ++disturbed;
            continue;
        }
        if (s.trace && measuredOnAnEmulatedLink(s)) {
            ++onALink;
            continue;
        }
        if (s.trace && !fitsTheModel(s, o.link)) {
            ++outOfRange;
            continue;
        }
        if (const auto p = predictSample(s, o.link)) {
            rows.push_back(Row{&s, *p});
        }
    }
    const std::string rangeNote =
        std::to_string(outOfRange) +
        " sample(s) with negative times, or times at this link beyond 285 years: not predicted";
    if (rows.empty() && outOfRange != 0) {
        throw Error(ErrorKind::Usage, "predict: " + o.database + ": " + rangeNote);
    }
    const std::string linkNote = std::to_string(onALink) + " sample(s) " + kEmulatedLinkReason + ": not predicted";
    const std::string disturbedNote = std::to_string(disturbed) + " sample(s) " + kDisturbedReason + ": not predicted";
    if (rows.empty()) {
        throw Error(ErrorKind::Usage,
                    "predict: " + o.database +
                        " has no sample with an exchange trace measured on loopback (they "
                        "come from networked engines measured with the wire tap on and no emulated link, by this "
                        "version or later)" +
                        (onALink != 0 ? "; " + linkNote : std::string()) +
                        (disturbed != 0 ? "; " + disturbedNote : std::string()) +
                        (in.loadPoints != 0 ? "; " + loadPointsNote(in.loadPoints) : std::string()));
    }
    const std::vector<ScenarioAdvice> advice =
        !o.advise         ? std::vector<ScenarioAdvice>{}
        : outOfRange == 0 ? adviseParameterSets(in.samples, o.link, in.current, in.currentConnection)
                          : adviseParameterSets(fitting(in.samples, o.link), o.link, in.current, in.currentConnection);
    printTable(o.link, rows, advice);
    if (onALink != 0) {
        say("\n%s\n", linkNote.c_str());
    }
    if (disturbed != 0) {
        say("\n%s\n", disturbedNote.c_str());
    }
    if (const std::size_t without = in.samples.size() - rows.size() - outOfRange - onALink - disturbed; without != 0) {
        say("\n%zu sample(s) without an exchange trace or not complete: not predicted\n", without);
    }
    if (outOfRange != 0) {
        say("\n%s\n", rangeNote.c_str());
    }
    if (in.loadPoints != 0) {
        say("\n%s\n", loadPointsNote(in.loadPoints).c_str());
    }
    // Until here a signal ends predict by its default action: nothing is written yet. From here a
    // first one waits for the file in progress (a signal inside the write left its temporary file,
    // 35 MB of a 230 MB JSON), then ends predict with one line.
    SignalCancel interrupt;
    std::string written;
    const auto write = [&](const std::string& path, const std::function<QByteArray()>& bytes) {
        if (path.empty() || SignalCancel::received() != 0) {
            return;
        }
        writeFileAtomically(QString::fromStdString(path), bytes());
        written += (written.empty() ? "" : ", ") + path;
    };
    write(o.jsonPath, [&] { return QJsonDocument(toJson(o.link, rows, advice)).toJson(QJsonDocument::Indented); });
    write(o.markdownPath, [&] { return QByteArray::fromStdString(markdown(o.link, rows, advice)); });
    if (SignalCancel::received() != 0) {
        std::cout.flush();
        return SignalCancel::report(std::cerr, "predict",
                                    written.empty() ? "nothing was written" : "written: " + written);
    }
    return 0;
}

}  // namespace blobbench::cli
