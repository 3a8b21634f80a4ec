// The bytea experiment predicted from an unshaped run on the real PostgreSQL 15: `blobbench-cli
// bytea --predict-at 2M/512k --json` records every insert's and select's exchange trace (summing to
// its counters exactly) and predicts the binary path of the 2 MiB document within 10% of the
// figures published for it in 2007 over a 2 Mbit down / 512 kbit up line (insert 33.5 s, select
// 8.6 s; docs/postgres.md). Unshaped, so the test takes about a second.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "engine/wire/LinkModel.h"
#include "model/SampleJson.h"
#include "support/TestSupport.h"

namespace blobbench {
namespace {

constexpr double kPublishedInsertSeconds = 33.5;
constexpr double kPublishedSelectSeconds = 8.6;

double seconds(std::chrono::nanoseconds t) {
    return std::chrono::duration<double>(t).count();
}

// The median prediction of a path's span, as the command prints it.
double predictedSeconds(const std::vector<Sample>& samples, const std::string& scenario, const std::string& path,
                        const LinkProfile& link) {
    std::vector<double> predicted;
    for (const Sample& s : samples) {
        if (s.scenarioId == scenario && s.point.at("path") == path) {
            const auto p = predictSample(s, link);
            EXPECT_TRUE(p) << scenario << " " << path << ": no trace";
            if (p) {
                predicted.push_back(seconds(p->predicted));
            }
        }
    }
    std::sort(predicted.begin(), predicted.end());
    return predicted.empty() ? 0.0 : predicted[predicted.size() / 2];
}

TEST(ByteaPrediction, AnUnshapedRunPredictsThePublished2007FiguresWithinTenPercent) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    test::TempDir dir;
    const std::string json = dir.file("bytea.json");
    const auto r =
        test::runCli({"bytea", conninfo, "--size", "2M", "--repeat", "1", "--predict-at", "2M/512k", "--json", json});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("Link: direct (counted in process)"), std::string::npos) << r.out;

    const std::vector<Sample> samples = readSamplesJson(QString::fromStdString(json), "test");
    ASSERT_EQ(samples.size(), 8u);  // four paths, an insert and a select each
    for (const Sample& s : samples) {
        SCOPED_TRACE(s.scenarioId + " " + s.point.at("path"));
        ASSERT_TRUE(s.trace);
        EXPECT_EQ(s.tap.method, "in-process");
        EXPECT_EQ(s.trace->sendBytes(), s.tap.counters.sendBytes);
        EXPECT_EQ(s.trace->recvBytes(), s.tap.counters.recvBytes);
        EXPECT_EQ(s.trace->exchanges.size(), s.tap.counters.roundTrips.value_or(0));
        EXPECT_GE(s.scenarioId == "bytea-insert" ? s.tap.counters.sendBytes : s.tap.counters.recvBytes,
                  2u * 1024 * 1024);
    }

    LinkProfile link;
    link.bandwidthDown = 2'000'000;
    link.bandwidthUp = 512'000;
    const double insert = predictedSeconds(samples, "bytea-insert", "binary", link);
    const double select = predictedSeconds(samples, "bytea-select", "binary", link);
    std::printf(
        "binary insert predicted %.2f s (published %.1f s, %+.1f%%), select %.2f s (published %.1f s, %+.1f%%)\n",
        insert, kPublishedInsertSeconds, (insert / kPublishedInsertSeconds - 1) * 100, select, kPublishedSelectSeconds,
        (select / kPublishedSelectSeconds - 1) * 100);
    EXPECT_LT(std::abs(insert / kPublishedInsertSeconds - 1), 0.10);
    EXPECT_LT(std::abs(select / kPublishedSelectSeconds - 1), 0.10);
    // Hex text carries 2 + 2n bytes: twice the binary time on a line that slow.
    EXPECT_NEAR(predictedSeconds(samples, "bytea-insert", "text hex", link) / insert, 2.0, 0.02);

    // What the command printed is that prediction.
    std::smatch row;
    ASSERT_TRUE(std::regex_search(r.out, row, std::regex("\nbinary +([0-9.]+) +([0-9.]+)  1 / 1\n")))
        << "no predicted row for binary in:\n"
        << r.out;
    EXPECT_NEAR(std::stod(row[1]) / 1000, insert, 0.001);
    EXPECT_NEAR(std::stod(row[2]) / 1000, select, 0.001);
}

}  // namespace
}  // namespace blobbench
