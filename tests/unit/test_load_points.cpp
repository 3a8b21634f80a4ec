// Sessions as a tunable (issue #25): the load tunables every driver declares, a plan or sweep of many
// sessions run by LoadRun on SQLite (a load point a scenario and point), and those points kept in a
// project's history, its run journal and the CLI's exports.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <filesystem>

#include "engine/core/Error.h"
#include "engine/core/LoadParameters.h"
#include "engine/data/Dataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/data/SyntheticSource.h"
#include "engine/drivers/Registry.h"
#include "engine/run/LoadRun.h"
#include "model/LoadJson.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

class LoadPoints : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir = new TempDir;
        target = "sqlite:" + dir->file("load.sqlite");
        const Driver& driver = driverById("sqlite");
        ConnectionSpec spec{"sqlite", target};
        spec.create = true;
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
        SyntheticProfile profile;
        profile.rows = 200;
        prepareReferenceTables(*session, SyntheticRowSource(profile), PrepareOptions{});
    }
    static void TearDownTestSuite() { delete dir; }

    static RunPlan plan(const ParameterValues& parameters) {
        RunPlan p;
        p.runId = "load-run";
        p.connection = ConnectionSpec{"sqlite", target};
        p.parameters = parameters;
        for (const auto& s : referenceSuite(Dialect::SQLite)) {
            if (s.id == "short-blobs" || s.id == "varchar") {
                p.scenarios.push_back(s);
            }
        }
        p.repetitions = 3;
        return p;
    }

    static TempDir* dir;
    static std::string target;
};
TempDir* LoadPoints::dir = nullptr;
std::string LoadPoints::target;

class Collecting final : public LoadRunObserver {
public:
    void loadReady(const SweepPoint&, const std::vector<LoadPoint>& l, const SessionsOutcome&) override {
        loads.insert(loads.end(), l.begin(), l.end());
        ++points;
    }
    void sampleReady(const Sample&) override { ++samples; }
    std::vector<LoadPoint> loads;
    int points = 0;
    int samples = 0;
};

// A LoadPoint with every field set, two sessions, an open loop.
LoadPoint fullPoint() {
    LoadPoint p;
    p.runId = "r1";
    p.scenarioId = "short-blobs";
    p.scenarioTitle = "Test read short BLOBs";
    p.point = {{"sessions", "2"}, {"max_inline_blob_size", "0"}};
    p.parameters = {{"sessions", "2"}, {"load_duration_s", "3"}, {"load_rate", "50"}};
    p.startedAt = "2026-12-04T10:00:00.000Z";
    p.engine = "postgres";
    p.connection = "postgres:host=x dbname=y";
    p.serverVersion = "15.8";
    p.clientVersion = "15.8";
    p.wireMethod = "in-process";
    p.sessions = 2;
    p.openLoop = true;
    p.rate = 50;
    p.window = Nanos(3'000'000'000);
    p.rampUp = Nanos(1'000'000'000);
    p.slotsDue = 150;
    p.slotsMissed = 2;
    p.excluded = 40;
    p.error = "session 2: the server closed the connection";
    for (int s = 0; s < 2; ++s) {
        StatementTally t;
        for (std::uint64_t i = 1; i <= 74; ++i) {
            t.latency.record(i * 1'000'000 + static_cast<std::uint64_t>(s) * 7);
            t.scheduleLag.record(i * 1000);
        }
        t.statements = 74;
        t.failed = static_cast<std::uint64_t>(s);
        t.rows = 74 * 5884;
        t.contentBytes = 74 * 19830688ULL;
        t.wireBytes = 74 * 20000000ULL;
        t.late = 3;
        p.perSession.push_back(t);
        p.combined.merge(t);
    }
    return p;
}

}  // namespace

TEST(LoadParameters, EveryDriverDeclaresThemAndBadValuesAreOneLine) {
    for (const char* engine : {"sqlite", "postgres", "firebird", "mariadb"}) {
        const auto specs = driverById(engine).parameters();
        for (const char* id : {loadparam::Sessions, loadparam::DurationS, loadparam::Rate, loadparam::RampUpS}) {
            EXPECT_TRUE(std::any_of(specs.begin(), specs.end(), [&](const ParameterSpec& s) { return s.id == id; }))
                << engine << " lacks " << id;
        }
    }
    const LoadSettings none = resolveLoadSettings({});
    EXPECT_EQ(none.sessions, 1);
    EXPECT_FALSE(none.concurrent());
    const LoadSettings eight = resolveLoadSettings({{"sessions", "8"}, {"load_duration_s", "5"}, {"load_rate", "100"}});
    EXPECT_EQ(eight.sessions, 8);
    EXPECT_EQ(eight.duration, std::chrono::milliseconds(5000));
    EXPECT_EQ(eight.rate, 100.0);
    EXPECT_TRUE(eight.concurrent());
    EXPECT_TRUE(resolveLoadSettings({{"load_duration_s", "1"}}).concurrent());  // one session for a duration
    const std::pair<ParameterValues, const char*> bad[] = {
        {{{"sessions", "0"}}, "sessions"},
        {{{"sessions", "1025"}}, "sessions"},
        {{{"sessions", "two"}}, "sessions"},
        {{{"load_rate", "10"}}, "an open loop needs a duration"},
        {{{"load_ramp_up_s", "2"}}, "a ramp-up needs a duration"},
    };
    for (const auto& [values, words] : bad) {
        try {
            resolveLoadSettings(values);
            ADD_FAILURE() << values.begin()->first << "=" << values.begin()->second << " was taken";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    }
}

TEST(LoadJsonTest, APointReadsBackAsWrittenAndABadHistogramIsNamed) {
    LoadPoint p = fullPoint();
    p.link = "up 4 Mbit/s + 0 ms, down 4 Mbit/s + 0 ms, one link shared by all 2 sessions";
    p.sql = "SELECT ID, CONTENT FROM BLOB_TEST WHERE SHORT_BLOB = 1";
    const QJsonObject json = loadPointToJson(p);
    const LoadPoint back = loadPointFromJson(json, QStringLiteral("history[0].loads[0]"));
    EXPECT_EQ(back.link, p.link);  // the link in effect, read back (an unknown key would refuse the project)
    EXPECT_EQ(back.sql, p.sql);
    EXPECT_EQ(back.scenarioId, p.scenarioId);
    EXPECT_EQ(back.point, p.point);
    EXPECT_EQ(back.parameters, p.parameters);
    EXPECT_EQ(back.sessions, 2);
    EXPECT_TRUE(back.openLoop);
    EXPECT_EQ(back.rate, 50);
    EXPECT_EQ(back.window, p.window);
    EXPECT_EQ(back.slotsMissed, 2u);
    EXPECT_EQ(back.error, p.error);
    ASSERT_EQ(back.perSession.size(), 2u);
    EXPECT_EQ(back.combined.statements, 148u);
    EXPECT_EQ(back.combined.wireBytes, p.combined.wireBytes);
    EXPECT_TRUE(back.combined.wireCounted());
    for (const double q : {0.5, 0.9, 0.99, 0.999, 1.0}) {
        EXPECT_EQ(back.combined.latency.percentile(q), p.combined.latency.percentile(q)) << q;
        EXPECT_EQ(back.perSession[1].latency.percentile(q), p.perSession[1].latency.percentile(q)) << q;
    }
    EXPECT_EQ(back.combined.latency.min(), p.combined.latency.min());
    EXPECT_EQ(back.combined.latency.max(), p.combined.latency.max());
    EXPECT_NEAR(back.combined.latency.mean(), p.combined.latency.mean(), 1e-6 * p.combined.latency.mean());
    EXPECT_EQ(back.rates().statementsPerS, p.rates().statementsPerS);
    EXPECT_EQ(back.fairness().cv, p.fairness().cv);

    // A bucket moved off the histogram's grid, a count that no longer adds up, a session missing.
    QJsonObject moved = json;
    QJsonObject combined = moved[QStringLiteral("combined")].toObject();
    QJsonObject latency = combined[QStringLiteral("latency")].toObject();
    QJsonArray buckets = latency[QStringLiteral("buckets")].toArray();
    QJsonArray first = buckets[0].toArray();
    first[0] = first[0].toDouble() + 1;
    buckets[0] = first;
    latency[QStringLiteral("buckets")] = buckets;
    combined[QStringLiteral("latency")] = latency;
    moved[QStringLiteral("combined")] = combined;
    try {
        loadPointFromJson(moved, QStringLiteral("history[0].loads[0]"));
        ADD_FAILURE() << "a bucket off the grid was taken";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "history[0].loads[0].combined.latency: the buckets, count, minimum, maximum and mean do not add up "
                  "to a latency histogram");
    }
    QJsonObject fewer = json;
    QJsonArray per = fewer[QStringLiteral("perSession")].toArray();
    per.removeLast();
    fewer[QStringLiteral("perSession")] = per;
    try {
        loadPointFromJson(fewer, QStringLiteral("p"));
        ADD_FAILURE() << "a missing session was taken";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("p.perSession: holds 1 sessions, the point 2"), std::string::npos)
            << e.what();
    }
    // CSV: a row a session and one for the point.
    const QList<QByteArray> rows = loadPointsCsv({p}).trimmed().split('\n');
    ASSERT_EQ(rows.size(), 4);
    EXPECT_TRUE(rows[0].startsWith("run_id,connection,scenario,point,sessions,mode,session,statements"));
    EXPECT_TRUE(rows[3].contains(",all,148,1,")) << rows[3].toStdString();
}

TEST_F(LoadPoints, ASweepOfSessionsIsALoadPointAPointAndScenario) {
    ParameterValues parameters;
    SweepSpec sweep;
    sweep.name = "sessions";
    sweep.axes = {SweepAxisSpec{"sessions", {"1", "2", "3"}, std::nullopt}};
    const auto points = validatedPoints(sweep, driverById("sqlite").parameters());
    ASSERT_EQ(points.size(), 3u);
    EXPECT_TRUE(isLoadRun(parameters, points));
    EXPECT_FALSE(isLoadRun(parameters, {}));
    Collecting observer;
    LoadRun run;
    LoadContext context;
    context.runId = "load-run";
    context.connection = target;
    const RunOutcome outcome = run.run(plan(parameters), points, observer, context);
    EXPECT_TRUE(outcome.ok) << outcome.error;
    EXPECT_EQ(observer.points, 3);
    EXPECT_EQ(observer.samples, 0) << "a run of many sessions keeps load points, not a sample a statement";
    ASSERT_EQ(observer.loads.size(), 9u);  // 3 points x (2 scenarios + all)
    for (const LoadPoint& p : observer.loads) {
        ASSERT_EQ(p.point.count("sessions"), 1u);
        EXPECT_EQ(std::to_string(p.sessions), p.point.at("sessions"));
        EXPECT_EQ(static_cast<int>(p.perSession.size()), p.sessions);
        EXPECT_EQ(p.runId, "load-run");
        EXPECT_EQ(p.engine, "sqlite");
        EXPECT_TRUE(p.error.empty()) << p.error;
        const std::uint64_t each = p.scenarioId == LoadPoint::kAllScenarios ? 6 : 3;  // repetitions a session
        EXPECT_EQ(p.combined.statements, each * static_cast<std::uint64_t>(p.sessions)) << p.scenarioId;
        EXPECT_EQ(p.combined.latency.count(), p.combined.statements);
        EXPECT_GT(p.rates().statementsPerS, 0);
        EXPECT_EQ(p.parameters.at("sessions"), p.point.at("sessions"));
    }
}

TEST_F(LoadPoints, ACancelEndsThePointAndNoOtherStarts) {
    Collecting observer;
    LoadRun run;
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        run.cancel();
    });
    SweepSpec sweep;
    sweep.name = "long";
    sweep.axes = {SweepAxisSpec{"sessions", {"2", "3"}, std::nullopt}};
    const auto points = validatedPoints(sweep, driverById("sqlite").parameters());
    const auto started = std::chrono::steady_clock::now();
    const RunOutcome outcome = run.run(plan({{"load_duration_s", "30"}}), points, observer, LoadContext{});
    stopper.join();
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
    EXPECT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.errorKind, ErrorKind::Cancelled) << outcome.error;
    EXPECT_EQ(observer.points, 1) << "the second point never started";
    ASSERT_FALSE(observer.loads.empty()) << "what the cancelled point measured is kept";
    EXPECT_GT(observer.loads.front().combined.statements, 0u);
}

TEST_F(LoadPoints, AProjectsRunOfManySessionsKeepsItsPointsInTheHistoryAndExports) {
    TempDir work;
    Project p;
    p.name = QStringLiteral("Load");
    ConnectionProfile c;
    c.name = QStringLiteral("file");
    c.engine = QStringLiteral("sqlite");
    c.target = q(target);
    p.connections = {c};
    for (const auto& s : referenceSuite(Dialect::SQLite)) {
        if (s.id == "short-blobs") {
            p.scenarios.push_back(ScenarioDef::fromScenario(s));
        }
    }
    SweepDef sweep;
    sweep.name = QStringLiteral("sessions");
    SweepAxis axis;
    axis.parameter = QStringLiteral("sessions");
    axis.values = {QStringLiteral("1"), QStringLiteral("2")};
    sweep.axes = {axis};
    sweep.repetitions = 2;
    p.sweeps = {sweep};
    const std::string path = work.file("load.blobbench.json");
    saveProject(q(path), p);

    const auto swept =
        runCli({"run", path, "--sweep", "sessions", "--json", work.file("l.json"), "--csv", work.file("l.csv"), "-q"});
    ASSERT_EQ(swept.exitCode, 0) << swept.out << swept.err;
    EXPECT_NE(swept.out.find("sessions=2:"), std::string::npos) << swept.out;
    const Project saved = loadProject(q(path));
    ASSERT_EQ(saved.history.size(), 1u);
    const RunRecord& run = saved.history.front();
    EXPECT_TRUE(run.samples.empty());
    ASSERT_EQ(run.loads.size(), 2u);
    EXPECT_EQ(run.loads[0].sessions, 1);
    EXPECT_EQ(run.loads[1].sessions, 2);
    EXPECT_EQ(run.loads[1].combined.statements, 4u);  // two repetitions on each of two sessions
    // The statement that ran is kept with its figures (hostile round 5i D7: an edit of the project during
    // the run put them under the new SQL).
    EXPECT_NE(run.loads[1].sql.find("FROM BLOB_TEST"), std::string::npos) << run.loads[1].sql;
    EXPECT_EQ(run.outcome, QStringLiteral("complete"));
    QFile json(q(work.file("l.json")));
    ASSERT_TRUE(json.open(QIODevice::ReadOnly));
    const QJsonObject exported = QJsonDocument::fromJson(json.readAll()).object();
    EXPECT_EQ(exported[QStringLiteral("kind")].toString(), QStringLiteral("load"));
    EXPECT_EQ(exported[QStringLiteral("loads")].toArray().size(), 2);
    QFile csv(q(work.file("l.csv")));
    ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
    EXPECT_EQ(csv.readAll().trimmed().split('\n').size(), 1 + (1 + 1) + (2 + 1));  // header, sessions + all rows

    // --sessions on a project's run: its load tunable; and -P sessions=2 the same.
    const auto flagged = runCli({"run", path, "--sessions", "2", "-r", "1", "-q"});
    ASSERT_EQ(flagged.exitCode, 0) << flagged.err;
    const auto tunable = runCli({"run", path, "-P", "sessions=2", "-r", "1", "-q"});
    ASSERT_EQ(tunable.exitCode, 0) << tunable.err;
    const Project again = loadProject(q(path));
    ASSERT_EQ(again.history.size(), 3u);
    for (std::size_t i = 1; i < 3; ++i) {
        ASSERT_EQ(again.history[i].loads.size(), 1u) << i;
        EXPECT_EQ(again.history[i].loads[0].sessions, 2);
    }
    // A whole number only: the tunable takes seconds.
    const auto fraction = runCli({"run", path, "--sessions", "2", "--duration", "0.5", "-q"});
    EXPECT_EQ(fraction.exitCode, 2);
    EXPECT_NE(fraction.err.find("--duration takes whole seconds"), std::string::npos) << fraction.err;

    // pgbench's aggregate log: a file per point of a sweep, its counts those of the point.
    const std::string log = work.file("agg.log");
    const auto logged = runCli({"run", path, "--sweep", "sessions", "--aggregate-log", log, "-q", "--no-save"});
    ASSERT_EQ(logged.exitCode, 0) << logged.err;
    EXPECT_NE(logged.out.find("Aggregate log: " + log + ".1 .. " + log + ".2"), std::string::npos) << logged.out;
    for (const auto& [file, statements] : {std::pair{log + ".1", 2.0}, std::pair{log + ".2", 4.0}}) {
        QFile f(q(file));
        ASSERT_TRUE(f.open(QIODevice::ReadOnly)) << file;
        double counted = 0;
        for (const QByteArray& line : f.readAll().trimmed().split('\n')) {
            const QList<QByteArray> columns = line.split(' ');
            ASSERT_EQ(columns.size(), 16) << line.toStdString();
            counted += columns[1].toDouble();
        }
        EXPECT_EQ(counted, statements) << file;
    }
    // Hostile round 5j A7-A11: each FILE.N is checked before anything is measured: a FIFO (its open
    // blocked for ever), a directory, an export or the project itself (through a link) under that name.
    ASSERT_EQ(::mkfifo(work.file("fifo.log.2").c_str(), 0600), 0);
    std::filesystem::create_directory(work.file("dir.log.1"));
    std::filesystem::create_symlink(path, work.file("link.log.2"));
    const std::string projectBefore = test::readFile(path);
    for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--aggregate-log", work.file("fifo.log")}, "not a regular file (a FIFO)"},
             {{"--aggregate-log", work.file("dir.log")}, "is a directory"},
             {{"--aggregate-log", work.file("j.log"), "--json", work.file("j.log.2")}, "which --json names too"},
             {{"--aggregate-log", work.file("link.log")}, "which the project names too"}}) {
        std::vector<std::string> run = {"run", path, "--sweep", "sessions", "-q"};
        run.insert(run.end(), args.begin(), args.end());
        const auto r = runCli(run);
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("nothing was measured"), std::string::npos) << r.err;
    }
    EXPECT_EQ(test::readFile(path), projectBefore) << "the project was written through the link";
    // Round 5k F1: FILE.2 a hard link to the SQLite database truncated it at point 2.
    const std::string database = p.connections.front().target.toStdString().substr(std::string("sqlite:").size());
    const std::string databaseBefore = test::readFile(database);
    std::filesystem::create_hard_link(database, work.file("db.log.2"));
    const auto intoDatabase =
        runCli({"run", path, "--sweep", "sessions", "-q", "--aggregate-log", work.file("db.log")});
    EXPECT_EQ(intoDatabase.exitCode, 2) << intoDatabase.err;
    EXPECT_NE(intoDatabase.err.find("which the database names too"), std::string::npos) << intoDatabase.err;
    EXPECT_EQ(test::readFile(database), databaseBefore) << "the database was written through the link";
    // A project's run of one point (no sweep) writes FILE itself.
    const auto one =
        runCli({"run", path, "--sessions", "2", "-r", "1", "--aggregate-log", work.file("one.log"), "-q", "--no-save"});
    ASSERT_EQ(one.exitCode, 0) << one.err;
    EXPECT_TRUE(std::filesystem::exists(work.file("one.log")));
    EXPECT_FALSE(std::filesystem::exists(work.file("one.log.1")));
    // A run of one session has nothing to log, and --shared-link nothing to share: said, not ignored.
    const auto single = runCli({"run", path, "--aggregate-log", log, "-q", "--no-save"});
    EXPECT_EQ(single.exitCode, 2);
    EXPECT_NE(single.err.find("--aggregate-log: this run is of one session"), std::string::npos) << single.err;
    // predict says why the load points are not predicted.
    const auto predicted = runCli({"predict", path, "--latency", "20"});
    EXPECT_EQ(predicted.exitCode, 2);
    EXPECT_NE(predicted.err.find("load point(s) of runs of many sessions: not predicted"), std::string::npos)
        << predicted.err;
}

TEST(LoadJournal, APointInTheJournalIsRecoveredIntoItsRun) {
    TempDir work;
    const QString path = q(work.file("j.blobbench.json"));
    Project p;
    p.name = QStringLiteral("J");
    saveProject(path, p);
    RunRecord run;
    run.runId = QStringLiteral("r1");
    {
        RunJournal journal(path, run);
        journal.appendLoads({fullPoint()});
        EXPECT_EQ(journal.samplesHeld(), 1u);
    }  // the process "dies": the journal stays
    Project loaded = loadProject(path);
    const QString said = recoverJournal(path, loaded);
    EXPECT_NE(said.indexOf(QStringLiteral("recovered 0 samples and 1 load points")), -1) << said.toStdString();
    ASSERT_EQ(loaded.history.size(), 1u);
    ASSERT_EQ(loaded.history[0].loads.size(), 1u);
    EXPECT_EQ(loaded.history[0].loads[0].combined.statements, 148u);
    EXPECT_EQ(loaded.history[0].loads[0].runId, "r1");
    // And the project file keeps it.
    saveProject(path, loaded);
    const Project reread = loadProject(path);
    ASSERT_EQ(reread.history[0].loads.size(), 1u);
    EXPECT_EQ(reread.history[0].loads[0].perSession[1].failed, 1u);
}
