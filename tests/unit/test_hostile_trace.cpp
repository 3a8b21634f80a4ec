// Hostile round 3 (issue #21): exchange traces and samples that a hand-made or damaged file can
// hold, through the decoder and `blobbench-cli predict`. Each case printed a wrapped figure
// (times of 292 years summed past int64, 2^64 bytes summed past uint64, negative phases) or, for
// a 500 kB file of hundreds of 2 Mi-exchange traces, took tens of GB; now each is refused or left
// out in one line.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/core/Error.h"
#include "engine/core/ExchangeTrace.h"
#include "engine/wire/LinkModel.h"
#include "model/Project.h"
#include "model/ProjectFile.h"
#include "model/SampleJson.h"
#include "support/TestSupport.h"

namespace blobbench {
namespace {

using namespace std::chrono_literals;

ExchangeTrace equalExchanges(std::size_t count, Exchange e) {
    ExchangeTrace t;
    t.exchanges.assign(count, e);
    return t;
}

Sample tracedSample(ExchangeTrace trace, int repetition) {
    Sample s;
    s.runId = "r1";
    s.scenarioId = "short-blobs";
    s.scenarioTitle = "Test read short BLOBs";
    s.engine = "postgres";
    s.repetition = repetition;
    s.phases.fetch = 20ms;
    s.trace = std::move(trace);
    return s;
}

std::string decodeError(const ExchangeTrace& trace) {
    try {
        decodeExchangeTrace(encodeExchangeTrace(trace));
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Data) << e.what();
        return e.what();
    }
    return "";
}

void expectOneLine(const test::ProcessResult& r, int exitCode, const std::string& says) {
    EXPECT_EQ(r.exitCode, exitCode) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Writes a project on `db` whose history is one run of `count` samples (repetitions 0...), sample i
// holding trace(i) as its trace's base64 text. It edits the saved JSON, so that no more than one
// decoded trace is held at a time. Returns the texts.
std::vector<QString> writeTracedProject(const QString& path, const std::string& db, int count,
                                        const std::function<QString(int)>& trace) {
    Project project = defaultProject(QString::fromStdString(db));
    RunRecord run;
    run.runId = run.startedAt = QStringLiteral("2026-12-01T19:00:00.000Z");
    run.connectionName = project.connections.at(0).name;
    run.samples.push_back(tracedSample(equalExchanges(3, Exchange{}), 0));
    project.history.push_back(std::move(run));
    saveProject(path, project);
    QFile file(path);
    EXPECT_TRUE(file.open(QIODevice::ReadOnly));
    QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    file.close();
    QJsonArray history = root[QStringLiteral("history")].toArray();
    QJsonObject first = history.at(0).toObject();
    const QJsonObject one = first[QStringLiteral("samples")].toArray().at(0).toObject();
    QJsonArray samples;
    std::vector<QString> traces;
    for (int i = 0; i < count; ++i) {
        QJsonObject copy = one;
        copy[QStringLiteral("repetition")] = i;
        QJsonObject wire = copy[QStringLiteral("wire")].toObject();
        traces.push_back(trace(i));
        EXPECT_FALSE(traces.back().isEmpty());
        wire[QStringLiteral("trace")] = traces.back();
        copy[QStringLiteral("wire")] = wire;
        samples.append(copy);
    }
    first[QStringLiteral("samples")] = samples;
    history[0] = first;
    root[QStringLiteral("history")] = history;
    EXPECT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(QJsonDocument(root).toJson(QJsonDocument::Compact));
    return traces;
}

QString maxTrace(unsigned sendBytes) {
    return QString::fromLatin1(
        traceToBase64(equalExchanges(kMaxTraceExchanges, Exchange{sendBytes, 300, 0us, 0us, 50us, 0us})));
}

}  // namespace

TEST(HostileTrace, SumsBeyondTheirTypesAreRefused) {
    Exchange longest;  // each time is the most a file can write: 2^63 - 1 ns, in whole microseconds
    longest.serverTime = std::chrono::microseconds(std::numeric_limits<std::int64_t>::max() / 1000);
    EXPECT_EQ(decodeError(equalExchanges(1, longest)), "");
    EXPECT_NE(decodeError(equalExchanges(3, longest)).find("times sum beyond 292 years"), std::string::npos);
    Exchange heaviest;
    heaviest.recvBytes = std::numeric_limits<std::uint64_t>::max();
    EXPECT_NE(decodeError(equalExchanges(2, heaviest)).find("more bytes one way than 2^63"), std::string::npos);
    ExchangeTrace leading;
    leading.leadingRecvBytes = std::uint64_t{1} << 63;
    EXPECT_NE(decodeError(leading).find("2^63"), std::string::npos);
}

TEST(HostileTrace, BytesAfterTheCompressedStreamAreRefused) {
    // zlib's uncompress() stops at the end of the stream: 7 kB of anything after it were accepted.
    const std::string good = encodeExchangeTrace(equalExchanges(3, Exchange{40, 300, 0us, 0us, 50us, 0us}));
    try {
        decodeExchangeTrace(good + std::string(7000, 'G'));
        ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Data);
        EXPECT_NE(std::string(e.what()).find("bytes after the compressed data"), std::string::npos) << e.what();
    }
}

TEST(HostileTrace, BudgetRefusesPastItsLimitAndNests) {
    const std::string ten = encodeExchangeTrace(equalExchanges(10, Exchange{}));
    {
        const TraceDecodeBudget file(25);
        decodeExchangeTrace(ten);
        decodeExchangeTrace(ten);
        EXPECT_THROW(decodeExchangeTrace(ten), Error);
        {
            const TraceDecodeBudget inner(10);
            decodeExchangeTrace(ten);  // the innermost counts
            EXPECT_THROW(decodeExchangeTrace(ten), Error);
        }
        EXPECT_THROW(decodeExchangeTrace(ten), Error);  // the outer one is still spent
    }
    for (int i = 0; i < 5; ++i) {
        decodeExchangeTrace(ten);  // without a budget: no limit
    }
}

TEST(HostileTrace, AKeepBudgetChecksWhatItDoesNotDecode) {
    const std::string ten = encodeExchangeTrace(equalExchanges(10, Exchange{1, 2, 0us, 0us, 3us, 0us}));
    const std::string five = encodeExchangeTrace(equalExchanges(5, Exchange{}));
    ExchangeTrace wraps = equalExchanges(2, Exchange{});
    wraps.exchanges[0].recvBytes = wraps.exchanges[1].recvBytes = std::uint64_t{1} << 62;
    const std::string damaged = encodeExchangeTrace(wraps);
    const TraceDecodeBudget load(25, PastBudget::Keep);
    EXPECT_TRUE(TraceDecodeBudget::active());
    ASSERT_TRUE(decodeExchangeTraceOrKeep(ten));
    EXPECT_EQ(decodeExchangeTraceOrKeep(ten)->exchanges.size(), 10u);
    EXPECT_FALSE(decodeExchangeTraceOrKeep(ten));    // past the limit: checked, not decoded
    EXPECT_FALSE(decodeExchangeTraceOrKeep(five));   // once spent, nothing more: the first traces are read
    EXPECT_THROW(decodeExchangeTrace(five), Error);  // a caller that needs the trace is refused
    try {
        decodeExchangeTraceOrKeep(damaged);  // a spent budget still checks every sum
        ADD_FAILURE() << "a trace of 2^63 bytes was kept";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("more bytes one way than 2^63"), std::string::npos) << e.what();
    }
    EXPECT_THROW(decodeExchangeTraceOrKeep(ten.substr(0, ten.size() - 1)), Error);
}

// Hostile round 3's open item: `run` and the workbench decoded every trace of a project's history
// with no budget (6 traces of 2 Mi exchanges, a 160 kB file, took 624 MB; hundreds would take tens
// of GB). Past the budget the traces stay unread text: the run goes on, says so in one line, and
// the save writes every trace back as the file had it.
TEST(HostileTrace, RunKeepsTheTracesPastTheBudgetUnreadAndSavesThemUnchanged) {
    test::TempDir dir;
    const std::string db = dir.file("ref.sqlite");
    ASSERT_EQ(test::runCli({"prepare", "sqlite:" + db, "--rows", "50"}).exitCode, 0);
    const QString path = QString::fromStdString(dir.file("big.blobbench.json"));
    // Six samples, each a different trace of the most exchanges a sample keeps (100 MB decoded).
    std::vector<QString> traces = writeTracedProject(path, db, 6, [](int i) { return maxTrace(40u + unsigned(i)); });
    QFile file(path);
    const auto r = test::runCli({"run", path.toStdString(), "-s", "short-blobs", "-r", "1", "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    // Each trace is decoded twice (checked, then read): four fit the budget of 8 Mi exchanges.
    EXPECT_NE(r.err.find("2 samples keep their exchange trace unread: the file's traces pass 8388608 exchanges"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("(about 384 MB in memory). They are saved unchanged, but not predicted\n"), std::string::npos)
        << r.err;  // one line

    // The saved project holds the new run and all six traces, each as it was written.
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonObject saved = QJsonDocument::fromJson(file.readAll()).object();
    file.close();
    const QJsonArray savedHistory = saved[QStringLiteral("history")].toArray();
    ASSERT_EQ(savedHistory.size(), 2);
    std::vector<QString> savedTraces;
    const QJsonObject savedFirst = savedHistory.at(0).toObject();
    for (const char* key : {"samples", "sampleDefaults"}) {
        for (const QJsonValue& v : savedFirst[QLatin1String(key)].toArray()) {
            QJsonObject o = v.toObject();
            if (o.contains(QStringLiteral("values"))) {
                o = o[QStringLiteral("values")].toObject();
            }
            const QJsonValue trace = o[QStringLiteral("wire")].toObject()[QStringLiteral("trace")];
            if (trace.isString()) {
                savedTraces.push_back(trace.toString());
            }
        }
    }
    std::sort(traces.begin(), traces.end());
    std::sort(savedTraces.begin(), savedTraces.end());
    EXPECT_TRUE(savedTraces == traces) << savedTraces.size() << " traces saved of 6";
}

// Hostile round 4: a save writes equal traces once, in the group's `sampleDefaults`, and each
// sample of the group then took a copy of the decoded trace past the budget (60 samples of one
// maximal trace, a 34 kB file: 6 GB in `run`, 18 GB in the workbench).
TEST(HostileTrace, SamplesSharingTheirGroupsTraceCountAgainstTheBudget) {
    test::TempDir dir;
    const QString path = QString::fromStdString(dir.file("grouped.blobbench.json"));
    const QString trace = maxTrace(40);
    writeTracedProject(path, dir.file("ref.sqlite"), 6, [&](int) { return trace; });
    auto decoded = [](const Project& p) {
        return std::count_if(p.history.at(0).samples.begin(), p.history.at(0).samples.end(),
                             [](const Sample& s) { return s.trace.has_value(); });
    };
    Project project = loadProject(path);  // each sample holds the trace: decoded in turn
    EXPECT_EQ(decoded(project), 4);
    EXPECT_EQ(unreadTraces(project), 2u);
    saveProject(path, project);
    project = Project{};
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray saved = file.readAll();
    file.close();
    ASSERT_EQ(saved.count(trace.toLatin1()), 1) << "the save writes the equal traces once, in the group";
    project = loadProject(path);
    // The group's decoded trace is held too, and counts as one: three samples take a copy of it.
    EXPECT_EQ(decoded(project), 3) << "copies of the group's trace count as decodes";
    EXPECT_EQ(unreadTraces(project), 3u);
    EXPECT_TRUE(
        project.history.at(0).samples.back().unreadTrace.sharesWith(project.history.at(0).samples.at(4).unreadTrace))
        << "the unread samples share the group's text";
    saveProject(path, project);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(file.readAll(), saved) << "and the next save writes the same file";
}

// Hostile round 4: the samples-file reader took phases of 2^64-1 as 0 and an unknown status as
// complete (predict showed 0.0 ms measured, --compare a base median of 0.010 ms); it is now as
// strict as the project loader, in one line naming the sample and the key.
TEST(HostileTrace, ASamplesFileIsCheckedAsStrictlyAsAProject) {
    test::TempDir dir;
    const std::string path = dir.file("s.json");
    writeSamplesJson(QString::fromStdString(path), SessionInfo{},
                     {tracedSample(equalExchanges(3, Exchange{40, 300, 0us, 0us, 50us, 0us}), 0)});
    QFile file(QString::fromStdString(path));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    file.close();
    const auto edited = [&](const std::function<void(QJsonObject&)>& edit) {
        QJsonObject copy = root;
        QJsonArray samples = copy[QStringLiteral("samples")].toArray();
        QJsonObject sample = samples.at(0).toObject();
        edit(sample);
        samples[0] = sample;
        copy[QStringLiteral("samples")] = samples;
        const std::string out = dir.file("edited.json");
        QFile f(QString::fromStdString(out));
        EXPECT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QJsonDocument(copy).toJson());
        return out;
    };
    EXPECT_EQ(test::runCli({"predict", path, "--latency", "20"}).exitCode, 0) << "as written, it reads";
    const std::string wraps = edited([](QJsonObject& s) {
        QJsonObject phases = s[QStringLiteral("phases")].toObject();
        phases[QStringLiteral("fetchNs")] = 18446744073709551615.0;
        s[QStringLiteral("phases")] = phases;
    });
    expectOneLine(test::runCli({"predict", wraps, "--latency", "20"}), 2, "sample 1: phases.fetchNs");
    const std::string weird = edited([](QJsonObject& s) { s[QStringLiteral("status")] = QStringLiteral("weird"); });
    expectOneLine(test::runCli({"predict", weird, "--latency", "20"}), 2, "sample 1: status");
}

TEST(HostileTrace, PredictRefusesAFileWhoseTracesWouldFillTheMemory) {
    // Five traces of the most exchanges a sample keeps: a 130 kB file, 500 MB decoded. Hundreds of
    // them took tens of GB before the budget (the process was killed for memory).
    test::TempDir dir;
    const std::string path = dir.file("bomb.json");
    std::vector<Sample> samples;
    for (int i = 0; i < 5; ++i) {
        samples.push_back(tracedSample(equalExchanges(kMaxTraceExchanges, Exchange{40, 300, 0us, 0us, 50us, 0us}), i));
    }
    writeSamplesJson(QString::fromStdString(path), SessionInfo{}, samples);
    samples.clear();
    const auto r = test::runCli({"predict", path, "--latency", "20"});
    expectOneLine(r, 2, "sample 5: exchange trace: the traces decoded for this file pass 8388608 exchanges");
    EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 300);
}

TEST(HostileTrace, PredictRefusesAProjectWhoseTracesWouldFillTheMemory) {
    test::TempDir dir;
    const QString path = QString::fromStdString(dir.file("bomb.blobbench.json"));
    // Nine copies of the sample (repetitions 0..8): the file takes 300 kB, 900 MB decoded.
    const QString trace = maxTrace(40);
    writeTracedProject(path, dir.file("ref.sqlite"), 9, [&](int) { return trace; });
    const auto r = test::runCli({"predict", path.toStdString(), "--latency", "20"});
    // The loader decodes each trace twice (checked, then read): the fifth sample passes the budget.
    expectOneLine(r, 1, "samples[4].wire.trace: exchange trace: the traces decoded for this file pass 16777216");
}

TEST(HostileTrace, PredictLeavesOutSamplesWhoseTimesWrap) {
    test::TempDir dir;
    const std::string path = dir.file("phases.json");
    const ExchangeTrace three = equalExchanges(3, Exchange{40, 300, 0us, 0us, 50us, 0us});
    Sample negative = tracedSample(three, 0);
    negative.phases.execute = -5s;
    Sample huge = tracedSample(three, 1);
    huge.phases.execute = huge.phases.fetch =
        std::chrono::nanoseconds(std::numeric_limits<std::int64_t>::max() / 2 + 1);
    Sample heavy = tracedSample(equalExchanges(2, Exchange{std::uint64_t{1} << 61, 0, 0us, 0us, 50us, 0us}), 2);
    // A negative phase is refused on reading, as in a project (hostile round 4: the samples reader
    // was laxer than the project loader).
    writeSamplesJson(QString::fromStdString(path), SessionInfo{}, {negative});
    expectOneLine(test::runCli({"predict", path, "--latency", "20"}), 2,
                  "sample 1: phases.executeNs: expected a whole number in 0..9223372036854775807");
    writeSamplesJson(QString::fromStdString(path), SessionInfo{}, {huge, heavy});
    // 2^62 bytes up at 9.6 kbit/s take 10^8 years: the wrapped sum was printed as a negative time.
    const auto none = test::runCli({"predict", path, "--latency", "20", "--bandwidth", "9.6k"});
    expectOneLine(none, 2, "2 sample(s) with negative times, or times at this link beyond 285 years: not predicted");

    Sample good = tracedSample(three, 3);
    writeSamplesJson(QString::fromStdString(path), SessionInfo{}, {huge, good});
    const auto some = test::runCli({"predict", path, "--latency", "20", "--advise"});  // the advice leaves it out too
    EXPECT_EQ(some.exitCode, 0) << some.err;
    EXPECT_NE(some.out.find("1 sample(s) with negative times"), std::string::npos) << some.out;
    for (std::size_t at = some.out.find(" -"); at != std::string::npos; at = some.out.find(" -", at + 1)) {
        EXPECT_FALSE(std::isdigit(static_cast<unsigned char>(some.out[at + 2]))) << "a negative figure:\n" << some.out;
    }
    const auto expected = predictElapsed(three, 20ms, LinkProfile::symmetric(20ms, 0));
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.1f ms",
                  std::chrono::duration<double, std::milli>(expected.predicted).count());
    EXPECT_NE(some.out.find(figure), std::string::npos) << figure << "\n" << some.out;
}

// Hostile round 3: predict printed with stdio, which the check of std::cout did not see:
// `predict ... > /dev/full` and a closed pipe ended 0 with nothing said.
TEST(HostileTrace, PredictSaysAFullOrClosedStdout) {
    test::TempDir dir;
    const std::string path = dir.file("s.json");
    std::vector<Sample> samples;
    for (int i = 0; i < 2000; ++i) {  // 200 kB of table: more than a pipe holds
        samples.push_back(tracedSample(equalExchanges(3, Exchange{40, 300, 0us, 0us, 50us, 0us}), i));
    }
    writeSamplesJson(QString::fromStdString(path), SessionInfo{}, samples);
    const std::string json = dir.file("p.json");
    const int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    ASSERT_GE(full, 0) << "no /dev/full";
    test::CliProcess toFull({"predict", path, "--latency", "20", "--json", json}, {}, full);
    close(full);
    auto r = toFull.wait(std::chrono::seconds(120));
    expectOneLine(r, 1, "cannot write to standard output: No space left on device");
    EXPECT_TRUE(QFile::exists(QString::fromStdString(json))) << "--json not written";
    int pipeFds[2];
    ASSERT_EQ(pipe2(pipeFds, O_CLOEXEC), 0);
    test::CliProcess closed({"predict", path, "--latency", "20"}, {}, pipeFds[1]);
    close(pipeFds[0]);
    close(pipeFds[1]);
    r = closed.wait(std::chrono::seconds(120));
    expectOneLine(r, 1, "cannot write to standard output: Broken pipe");
}

// Hostile round 3: a signal while predict wrote --json left its temporary file (p.json.tmp-XXXXXX,
// 35 MB of 230 MB) and no line. Now the write in progress completes, then one line, 128 + signal.
TEST(HostileTrace, SignalWhilePredictWritesLeavesNoTemporaryFile) {
    test::TempDir dir;
    const std::string path = dir.file("s.json");
    std::vector<Sample> samples;
    for (int i = 0; i < 100'000; ++i) {  // --json of 40 MB: its write takes a while
        samples.push_back(tracedSample(equalExchanges(3, Exchange{40, 300, 0us, 0us, 50us, 0us}), i));
    }
    writeSamplesJson(QString::fromStdString(path), SessionInfo{}, samples);
    samples.clear();
    const std::filesystem::path out = dir.file("out");
    std::filesystem::create_directory(out);
    auto temporary = [&] {
        for (const auto& e : std::filesystem::directory_iterator(out)) {
            if (e.path().filename().string().find(".tmp") != std::string::npos) {
                return true;
            }
        }
        return false;
    };
    int signalled = 0;
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGINT}) {
        std::filesystem::remove_all(out);
        std::filesystem::create_directory(out);
        test::CliProcess run({"predict", path, "--latency", "20", "--json", (out / "p.json").string(), "--markdown",
                              (out / "p.md").string()});
        while (run.running() && !temporary()) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        run.signal(sig);
        const auto r = run.wait(std::chrono::seconds(120));
        EXPECT_FALSE(temporary()) << "a temporary file is left after signal " << sig;
        if (r.exitCode == 0) {
            continue;  // it ended before the signal
        }
        ++signalled;
        EXPECT_EQ(r.exitCode, 128 + sig) << r.err;
        EXPECT_NE(r.err.find("predict was cancelled; written: "), std::string::npos) << r.err;
        EXPECT_TRUE(std::filesystem::exists(out / "p.json")) << "the file in progress was not finished";
    }
    EXPECT_GE(signalled, 1) << "no signal landed while a file was written";
}

// Hostile round 3: `predict FIFO` blocked in the open and `predict /dev/zero` read for ever (both
// killed after 30 s); a directory and a loop of links said "cannot read X" and no reason.
TEST(HostileTrace, PredictRefusesWhatIsNoFileAtOnce) {
    test::TempDir dir;
    const std::string fifo = dir.file("f.json");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const std::string loop = dir.file("l1.json");
    std::filesystem::create_symlink(dir.file("l2.json"), loop);
    std::filesystem::create_symlink(loop, dir.file("l2.json"));
    const std::vector<std::pair<std::string, std::string>> cases = {
        {fifo, "not a regular file (a FIFO)"},
        {"/dev/zero", "not a regular file (a device)"},
        {dir.path().string(), "is a directory"},
        {loop, "Too many levels of symbolic links"},
    };
    for (const auto& [path, says] : cases) {
        test::CliProcess run({"predict", path, "--latency", "20"});
        const auto r = run.wait(std::chrono::seconds(20));
        expectOneLine(r, 1, "predict: cannot read " + path + ": " + says);
    }
}

// Hostile round 3: a title with a newline and a terminal escape went to the terminal as it was,
// and a '|' split the Markdown table's cell.
TEST(HostileTrace, PredictPrintsTitlesAsOneCell) {
    test::TempDir dir;
    const std::string path = dir.file("s.json");
    Sample s = tracedSample(equalExchanges(3, Exchange{40, 300, 0us, 0us, 50us, 0us}), 0);
    s.scenarioTitle = "A|B\n\x1b[31mred";
    writeSamplesJson(QString::fromStdString(path), SessionInfo{}, {s});
    const std::string md = dir.file("p.md");
    const auto r = test::runCli({"predict", path, "--latency", "20", "--advise", "--markdown", md});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("A|B\\n\\x1b[31mred"), std::string::npos) << r.out;
    QFile file(QString::fromStdString(md));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const std::string text = file.readAll().toStdString();
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_NE(text.find("| A\\|B\\n\\x1b[31mred |"), std::string::npos) << text;
}

}  // namespace blobbench
