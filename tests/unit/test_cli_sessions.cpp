// blobbench-cli run --sessions N (issue #25) on SQLite: bad values get one line and exit 2, a run
// writes the sessions' report, JSON (per-session figures, histograms as buckets) and CSV.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

#include "support/TestSupport.h"

using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

class CliSessions : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir = new TempDir;
        db = "sqlite:" + dir->file("ref.sqlite");
        const auto r = runCli({"prepare", db, "--rows", "100"});
        ASSERT_EQ(r.exitCode, 0) << r.err;
    }
    static void TearDownTestSuite() { delete dir; }
    static TempDir* dir;
    static std::string db;
};
TempDir* CliSessions::dir = nullptr;
std::string CliSessions::db;

QJsonObject readJson(const std::string& path) {
    QFile file(QString::fromStdString(path));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << path;
    return QJsonDocument::fromJson(file.readAll()).object();
}

}  // namespace

TEST_F(CliSessions, BadValuesAreOneLineAndExitTwo) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--sessions", "0"}, "--sessions: '0' is not a whole number >= 1"},
        {{"--sessions", "5000"}, "--sessions: 5000 exceeds the limit of 1024"},
        {{"--sessions", "2", "--rate", "10"}, "--rate needs --duration"},
        {{"--sessions", "2", "--duration", "-1"}, "--duration: '-1' is not a number > 0"},
        {{"--sessions", "2", "--duration", "0"}, "--duration: '0' is not a number > 0"},
        {{"--sessions", "2", "--duration", "1", "--rate", "0"}, "--rate: '0' is not a number > 0"},
        {{"--sessions", "2", "--duration", "1", "--rate", "nan"}, "--rate: 'nan' is not a number"},
        {{"--ramp-up", "1"}, "--ramp-up needs --sessions"},
        {{"--sessions", "2", "--duration", "1", "--repeat", "3"}, "--duration and --repeat"},
        {{"--sessions", "2", "--duration", "1", "--warmup", "1"}, "--warmup counts repetitions"},
        {{"--sessions", "2", "--verify-content"}, "--verify-content (-P verify_content) is not available"},
        {{"--sessions", "2", "--sessions", "3"}, "--sessions is given twice"},
        {{"--shared-link"}, "--shared-link is for a run of many sessions"},
        {{"--aggregate-log", "a.log"}, "--aggregate-log is for a run of many sessions"},
        {{"--sessions", "2", "--aggregate-interval", "5"}, "--aggregate-interval needs --aggregate-log"},
        {{"--sessions", "2", "--aggregate-log", "a.log", "--aggregate-interval", "0"}, "--aggregate-interval: '0'"},
        {{"--sessions", "2", "--aggregate-log", "a.log", "--aggregate-interval", "90000"}, "is over 86400 s"},
        {{"--sessions", "2", "--aggregate-log", "/nonexistent-dir/a.log"}, "cannot write the aggregate log"},
        {{"--sessions", "2", "--shared-link"}, "'load_shared_link'"},
        // Hostile round 5i D6: said after the whole duration was measured, the histograms in no file.
        {{"--sessions", "2", "--duration", "30", "--json", "/nonexistent-dir/x.json"},
         "cannot write /nonexistent-dir/x.json (--json): No such file or directory; nothing was measured"},
        {{"--sessions", "2", "--duration", "30", "--csv", "/nonexistent-dir/x.csv"},
         "cannot write /nonexistent-dir/x.csv"},
    };
    for (const auto& [options, expected] : cases) {
        std::vector<std::string> args = {"run", db};
        args.insert(args.end(), options.begin(), options.end());
        const auto r = runCli(args);
        const int code = expected.starts_with("cannot write") ? 1 : 2;
        EXPECT_EQ(r.exitCode, code) << expected << ": " << r.err;
        EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.out, "");
    }
    // A project's run takes --sessions as its load tunable (test_load_points), in whole numbers.
}

TEST_F(CliSessions, ARunWritesTheReportJsonAndCsv) {
    const std::string json = dir->file("s.json");
    const std::string csv = dir->file("s.csv");
    const auto r = runCli({"run", db, "-s", "short-blobs", "-s", "varchar", "--sessions", "3", "--repeat", "2",
                           "--json", json, "--csv", csv, "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("Sessions: 3 (closed loop"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Test read short BLOBs"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  session 3"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Fairness (statements/s per session)"), std::string::npos) << r.out;
    const QJsonObject o = readJson(json);
    EXPECT_EQ(o[QStringLiteral("kind")].toString(), QStringLiteral("sessions"));
    EXPECT_EQ(o[QStringLiteral("sessions")].toInt(), 3);
    const QJsonObject all = o[QStringLiteral("all")].toObject();
    EXPECT_EQ(all[QStringLiteral("combined")].toObject()[QStringLiteral("statements")].toInt(), 3 * 2 * 2);
    const QJsonArray scenarios = o[QStringLiteral("scenarios")].toArray();
    ASSERT_EQ(scenarios.size(), 2);
    const QJsonArray perSession = scenarios[0].toObject()[QStringLiteral("perSession")].toArray();
    ASSERT_EQ(perSession.size(), 3);
    for (const auto& s : perSession) {
        const QJsonObject latency = s.toObject()[QStringLiteral("latency")].toObject();
        EXPECT_EQ(latency[QStringLiteral("count")].toInt(), 2);
        int inBuckets = 0;
        for (const auto& b : latency[QStringLiteral("buckets")].toArray()) {
            inBuckets += b.toArray()[2].toInt();
            EXPECT_LT(b.toArray()[0].toDouble(), b.toArray()[1].toDouble());
        }
        EXPECT_EQ(inBuckets, 2);
        EXPECT_GT(s.toObject()[QStringLiteral("rows")].toInt(), 0);
    }
    EXPECT_EQ(o[QStringLiteral("perSession")].toArray().size(), 3);
    QFile file(QString::fromStdString(csv));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    ASSERT_EQ(lines.size(), 1 + 3 * 3);  // header, then per session: 2 scenarios and "all"
    EXPECT_TRUE(lines[0].startsWith("session,scenario,statements,"));
    EXPECT_TRUE(lines[3].startsWith("1,all,4,")) << lines[3].toStdString();
}

TEST_F(CliSessions, ClosedAndOpenLoopsRunForTheirDuration) {
    const std::string json = dir->file("open.json");
    const auto closed =
        runCli({"run", db, "-s", "short-blobs", "--sessions", "2", "--duration", "0.3", "--ramp-up", "0.1", "-q"});
    ASSERT_EQ(closed.exitCode, 0) << closed.err;
    EXPECT_NE(closed.out.find("0.1 s ramp-up"), std::string::npos) << closed.out;
    const auto open = runCli(
        {"run", db, "-s", "short-blobs", "--sessions", "2", "--duration", "0.5", "--rate", "40", "--json", json, "-q"});
    ASSERT_EQ(open.exitCode, 0) << open.err;
    EXPECT_NE(open.out.find("Schedule: 20 slots due"), std::string::npos) << open.out;
    const QJsonObject o = readJson(json);
    EXPECT_EQ(o[QStringLiteral("mode")].toString(), QStringLiteral("open"));
    EXPECT_EQ(o[QStringLiteral("slotsDue")].toInt(), 20);
    const QJsonObject combined = o[QStringLiteral("all")].toObject()[QStringLiteral("combined")].toObject();
    EXPECT_EQ(combined[QStringLiteral("statements")].toInt() + o[QStringLiteral("slotsMissed")].toInt(), 20);
    EXPECT_TRUE(combined.contains(QStringLiteral("scheduleLag")));
}
