// The fb-blob-test compatible mode records each query's exchange trace (the same recorder and
// definitions as the Runner) and saves it in its --json, so `predict FBCOMPAT.json` works on it:
// against the real Firebird 3 (in-process and relay counting) and Firebird 5 servers, every traced
// sample's trace sums to its reported wire counters exactly, and predict prints a prediction whose
// latency is one round trip per exchange.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "model/SampleJson.h"
#include "support/TestSupport.h"

namespace blobbench {
namespace {

struct Server {
    std::string database, user, password, clientLibrary;
};

std::vector<std::string> compatArgs(const Server& s, const std::string& counting, const std::string& json) {
    std::vector<std::string> args = {"-d", s.database, "-u",     s.user,   "-p", s.password,
                                     "-n", "20",       counting, "--json", json};
    if (!s.clientLibrary.empty()) {
        args.insert(args.end(), {"--client-library", s.clientLibrary});
    }
    return args;
}

// Runs the compatible mode, checks every trace against its counters; returns how many were traced.
std::size_t expectTracesEqualCounters(const Server& s, const std::string& counting, const std::string& json) {
    const auto r = test::runCli(compatArgs(s, counting, json));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    std::size_t traced = 0;
    for (const Sample& sample : readSamplesJson(QString::fromStdString(json), "test")) {
        SCOPED_TRACE(sample.scenarioId);
        if (sample.status != SampleStatus::Complete) {
            ADD_FAILURE() << sample.error;
            continue;
        }
        EXPECT_TRUE(sample.tap.available) << sample.tap.unavailableReason;
        EXPECT_EQ(sample.tap.method, counting == "--relay" ? "relay" : "in-process");
        if (!sample.trace) {
            ADD_FAILURE() << "no exchange trace";
            continue;
        }
        ++traced;
        EXPECT_EQ(sample.trace->sendBytes(), sample.tap.counters.sendBytes);
        EXPECT_EQ(sample.trace->recvBytes(), sample.tap.counters.recvBytes);
        EXPECT_EQ(sample.trace->exchanges.size(), sample.tap.counters.roundTrips.value_or(0));
    }
    return traced;
}

void expectPredictWorksOn(const std::string& json, std::size_t traced, const test::TempDir& dir) {
    const std::string out = dir.file("predicted.json");
    const auto r = test::runCli({"predict", json, "--latency", "20", "--json", out});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("Predicted at "), std::string::npos) << r.out;
    QFile file(QString::fromStdString(out));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonArray rows = QJsonDocument::fromJson(file.readAll()).object()[QStringLiteral("samples")].toArray();
    EXPECT_EQ(static_cast<std::size_t>(rows.size()), traced);
    bool anyExchange = false;
    for (const QJsonValue& v : rows) {
        const QJsonObject o = v.toObject();
        const qint64 exchanges = o[QStringLiteral("exchanges")].toInteger();
        anyExchange = anyExchange || exchanges > 0;
        // 20 ms each way: every exchange pays 40 ms more than on the loopback
        EXPECT_EQ(o[QStringLiteral("latencyNs")].toInteger(), exchanges * 40'000'000);
        EXPECT_EQ(o[QStringLiteral("predictedNs")].toInteger(),
                  o[QStringLiteral("measuredNs")].toInteger() - o[QStringLiteral("loopbackNs")].toInteger() +
                      exchanges * 40'000'000 + o[QStringLiteral("transferNs")].toInteger());
    }
    EXPECT_TRUE(anyExchange);
}

TEST(FbCompatTrace, Firebird3InProcessAndRelayTracesEqualTheCountersAndPredict) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    const Server s{database, test::envOrEmpty("BLOBBENCH_FB_USER"), test::envOrEmpty("BLOBBENCH_FB_PASSWORD"), {}};
    ASSERT_EQ(test::ensureFirebirdData(s.database, s.user, s.password), "");
    test::TempDir dir;
    for (const std::string counting : {"--tap", "--relay"}) {
        SCOPED_TRACE(counting);
        const std::string json = dir.file("fbcompat" + counting + ".json");
        const std::size_t traced = expectTracesEqualCounters(s, counting, json);
        EXPECT_GE(traced, 6u);  // every test of the suite but none
        expectPredictWorksOn(json, traced, dir);
    }
}

TEST(FbCompatTrace, Firebird5TracesEqualTheCountersAndPredict) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    const Server s{database, test::envOrEmpty("BLOBBENCH_FB5_USER"), test::envOrEmpty("BLOBBENCH_FB5_PASSWORD"),
                   client};
    ASSERT_EQ(test::ensureFirebirdData(s.database, s.user, s.password, s.clientLibrary), "");
    test::TempDir dir;
    const std::string json = dir.file("fbcompat5.json");
    const std::size_t traced = expectTracesEqualCounters(s, "--tap", json);
    EXPECT_GE(traced, 6u);
    expectPredictWorksOn(json, traced, dir);
}

}  // namespace
}  // namespace blobbench
