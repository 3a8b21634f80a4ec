// blobbench-cli predict on samples files: a table row per sample with the model's figure, the
// advice marks the parameter set that is fastest at the link with its saving, JSON and Markdown
// outputs say the same; a file without traces, a missing link or a bad rate is one line, exit 2
// (an unreadable file: exit 1).
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

#include "engine/wire/LinkModel.h"
#include "model/SampleJson.h"
#include "support/TestSupport.h"

namespace blobbench {
namespace {

using namespace std::chrono_literals;

// Inline BLOBs off: many round trips, few bytes more; on: one round trip a batch.
Sample sample(const std::string& inlineSize, std::size_t exchanges, std::uint64_t recvEach, int repetition) {
    Sample s;
    s.runId = "r1";
    s.scenarioId = "short-blobs";
    s.scenarioTitle = "Test read short BLOBs";
    s.engine = "firebird";
    s.repetition = repetition;
    s.point["max_inline_blob_size"] = inlineSize;
    s.phases.fetch = 20ms;
    ExchangeTrace t;
    for (std::size_t i = 0; i < exchanges; ++i) {
        Exchange e;
        e.sendBytes = 40;
        e.recvBytes = recvEach;
        e.serverTime = 50us;
        t.exchanges.push_back(e);
    }
    s.trace = t;
    return s;
}

std::string read(const std::string& path) {
    QFile f(QString::fromStdString(path));
    EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << path;
    return f.readAll().toStdString();
}

}  // namespace

TEST(PredictCli, TablesAdviceAndFiles) {
    test::TempDir dir;
    const std::string samples = dir.file("samples.json");
    std::vector<Sample> all;
    for (int rep = 0; rep < 3; ++rep) {
        all.push_back(sample("0", 200, 300, rep));
        all.push_back(sample("65535", 10, 6'000, rep));
    }
    Sample untraced = sample("0", 1, 1, 3);
    untraced.trace.reset();
    all.push_back(untraced);
    writeSamplesJson(QString::fromStdString(samples), SessionInfo{}, all);

    const auto r = test::runCli({"predict", samples, "--latency", "20", "--bandwidth", "10M", "--advise", "--json",
                                 dir.file("p.json"), "--markdown", dir.file("p.md")});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("up 10 Mbit/s + 20 ms, down 10 Mbit/s + 20 ms"), std::string::npos) << r.out;
    const auto expected = predictElapsed(*all[0].trace, 20ms, LinkProfile::symmetric(20ms, 10'000'000));
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.1f ms",
                  std::chrono::duration<double, std::milli>(expected.predicted).count());
    EXPECT_NE(r.out.find(figure), std::string::npos) << figure << "\n" << r.out;
    EXPECT_NE(r.out.find("max_inline_blob_size=65535"), std::string::npos);
    EXPECT_NE(r.out.find("best (-"), std::string::npos) << r.out;  // inline on, faster than the current (off)
    EXPECT_NE(r.out.find("1 sample(s) without an exchange trace"), std::string::npos);

    const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(read(dir.file("p.json")))).object();
    EXPECT_EQ(json[QStringLiteral("samples")].toArray().size(), 6);
    const QJsonArray ranked =
        json[QStringLiteral("advice")].toArray().at(0).toObject()[QStringLiteral("ranked")].toArray();
    ASSERT_EQ(ranked.size(), 2);
    EXPECT_EQ(ranked.at(0).toObject()[QStringLiteral("point")].toString(),
              QStringLiteral("max_inline_blob_size=65535"));
    EXPECT_TRUE(ranked.at(0).toObject()[QStringLiteral("best")].toBool());
    EXPECT_TRUE(ranked.at(1).toObject()[QStringLiteral("current")].toBool());
    EXPECT_GT(ranked.at(0).toObject()[QStringLiteral("savingVsCurrent")].toDouble(), 0.5);
    EXPECT_NE(read(dir.file("p.md")).find("| max_inline_blob_size=65535 | 3 |"), std::string::npos);
}

// Hostile round 5j X2: a sample measured through an emulated link already holds the link in its time;
// predicted at that very link it read twice the time measured (478.7 ms for 240.7 ms). It is not
// predicted, and said so.
TEST(PredictCli, ASampleMeasuredOnAnEmulatedLinkIsNotPredicted) {
    test::TempDir dir;
    const std::string samples = dir.file("linked.json");
    std::vector<Sample> all;
    for (int rep = 0; rep < 2; ++rep) {
        Sample linked = sample("0", 200, 300, rep);
        linked.parameters = ParameterValues{{"link_bandwidth_down", "20000000"}, {"link_latency_up_ms", "0"}};
        all.push_back(linked);
    }
    Sample loopback = sample("0", 200, 300, 2);
    loopback.parameters = ParameterValues{{"link_bandwidth_down", "0"}};
    all.push_back(loopback);
    writeSamplesJson(QString::fromStdString(samples), SessionInfo{}, all);
    const auto r = test::runCli({"predict", samples, "--bandwidth", "20M"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("2 sample(s) measured through an emulated link: the model predicts from a loopback "
                         "measurement: not predicted"),
              std::string::npos)
        << r.out;
    writeSamplesJson(QString::fromStdString(samples), SessionInfo{}, {all[0], all[1]});
    const auto none = test::runCli({"predict", samples, "--bandwidth", "20M"});
    EXPECT_EQ(none.exitCode, 2);
    EXPECT_NE(none.err.find("measured through an emulated link"), std::string::npos) << none.err;
}

// Hostile round 5n S6: a sample the client's own stop is in was predicted at every link with the pause
// in it (2,013.5 ms among 22 ms), unmarked.
TEST(PredictCli, ADisturbedSampleIsNotPredicted) {
    test::TempDir dir;
    const std::string samples = dir.file("disturbed.json");
    std::vector<Sample> all = {sample("0", 200, 300, 0), sample("0", 200, 300, 1)};
    all[1].phases.fetch = 2000ms;
    all[1].disturbed = "the client was stopped or suspended for 2.0 s during the sample";
    EXPECT_FALSE(predictSample(all[1], LinkProfile{}));
    EXPECT_TRUE(predictSample(all[0], LinkProfile{}));
    writeSamplesJson(QString::fromStdString(samples), SessionInfo{}, all);
    const auto r = test::runCli({"predict", samples, "--latency", "5", "--json", dir.file("p.json")});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("1 sample(s) disturbed (the client was stopped or suspended during them): their times hold "
                         "the pause: not predicted"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("2000.0 ms"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("without an exchange trace"), std::string::npos) << "counted once, as disturbed: " << r.out;
    writeSamplesJson(QString::fromStdString(samples), SessionInfo{}, {all[1]});
    const auto none = test::runCli({"predict", samples, "--latency", "5"});
    EXPECT_EQ(none.exitCode, 2);
    EXPECT_NE(none.err.find("1 sample(s) disturbed"), std::string::npos) << none.err;
}

TEST(PredictCli, BadInputIsOneLineAndExitTwo) {
    test::TempDir dir;
    const std::string samples = dir.file("old.json");
    Sample old = sample("0", 3, 100, 0);
    old.trace.reset();
    writeSamplesJson(QString::fromStdString(samples), SessionInfo{}, {old});
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    const std::vector<Case> cases = {
        {{"predict", samples, "--latency", "40"}, "has no sample with an exchange trace"},
        {{"predict", samples}, "name the link to predict at"},
        {{"predict", samples, "--bandwidth", "2MB"}, "2MB"},
        {{"predict", samples, "--latency", "fast"}, "fast"},
        {{"predict", "--latency", "40"}, "name a project or a samples file"},
        {{"run", samples, "--advise"}, "--advise is an option of predict"},
    };
    for (const Case& c : cases) {
        const auto r = test::runCli(c.args);
        SCOPED_TRACE(c.args.back());
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    const auto missing = test::runCli({"predict", dir.file("missing.json"), "--latency", "40"});
    EXPECT_EQ(missing.exitCode, 1);  // a file that cannot be read, as for --compare
    EXPECT_NE(missing.err.find("predict: cannot read"), std::string::npos) << missing.err;
}

}  // namespace blobbench
