// blobbench-cli run PROJECT.blobbench.json: exit codes, the history appended after every point,
// --no-save, --compare, the exported CSV / JSON / Markdown, and `run CONNECTION` left as it was.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <fstream>

#include "engine/data/ReferenceSuite.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

int lineCount(const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

class ProjectCli : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir = new TempDir;
        db = dir->file("ref.sqlite");
        const auto r = runCli({"prepare", "sqlite:" + db, "--rows", "200"});
        ASSERT_EQ(r.exitCode, 0) << r.err;
    }
    static void TearDownTestSuite() { delete dir; }

    // A project on the prepared database: two of the reference scenarios (one disabled) and a
    // sweep over blob_api.
    std::string writeProject(const std::string& name) {
        Project p = defaultProject(q(db));
        p.name = QStringLiteral("CLI test");
        for (auto& s : p.scenarios) {
            s.enabled = s.id == QStringLiteral("all-blobs") || s.id == QStringLiteral("short-blobs");
        }
        SweepDef sweep;
        sweep.name = QStringLiteral("api");
        SweepAxis axis;
        axis.parameter = QStringLiteral("blob_api");
        axis.values = {QStringLiteral("false"), QStringLiteral("true")};
        sweep.axes = {axis};
        sweep.repetitions = 3;
        sweep.randomOrder = true;
        p.sweeps = {sweep};
        const std::string path = dir->file(name);
        saveProject(q(path), p);
        return path;
    }

    static TempDir* dir;
    static std::string db;
};
TempDir* ProjectCli::dir = nullptr;
std::string ProjectCli::db;

}  // namespace

TEST_F(ProjectCli, SweepRunAppendsToHistoryAndExports) {
    const std::string project = writeProject("sweep.blobbench.json");
    const std::string csv = dir->file("sweep.csv");
    const std::string json = dir->file("sweep.json");
    const std::string md = dir->file("sweep.md");
    const auto r = runCli({"run", project, "--sweep", "api", "--csv", csv, "--json", json, "--markdown", md});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const Project after = loadProject(q(project));
    ASSERT_EQ(after.history.size(), 1u);
    const RunRecord& run = after.history[0];
    EXPECT_EQ(run.sweepName, QStringLiteral("api"));
    EXPECT_EQ(run.outcome, QStringLiteral("complete"));
    EXPECT_FALSE(run.machine.isEmpty());
    EXPECT_NE(run.orderSeed, 0u);                 // random order: the seed drawn is kept
    ASSERT_EQ(run.samples.size(), 2u * 2u * 3u);  // points x enabled scenarios x repetitions
    int withApi = 0;
    for (const auto& s : run.samples) {
        ASSERT_EQ(s.point.count("blob_api"), 1u);
        withApi += s.point.at("blob_api") == "true";
        EXPECT_EQ(s.parameters.at("blob_api"), s.point.at("blob_api"));
        EXPECT_EQ(s.status, SampleStatus::Complete);
        EXPECT_EQ(s.runId, run.runId.toStdString());
    }
    EXPECT_EQ(withApi, 6);
    // stdout: a line a point and scenario, then the Markdown summary.
    EXPECT_NE(r.out.find("blob_api=true: all-blobs median "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("| Test read all BLOBs | blob_api=false | 3 |"), std::string::npos) << r.out;
    EXPECT_NE(blobbench::test::readFile(md).find("| Scenario | Point | n | Median ms |"), std::string::npos);
    // CSV: header + one row a sample, the point in the last column.
    const std::string csvText = blobbench::test::readFile(csv);
    EXPECT_EQ(lineCount(csvText), 13);
    EXPECT_NE(csvText.find(",point\n"), std::string::npos);
    EXPECT_NE(csvText.find(",blob_api=true\n"), std::string::npos);
    QFile jf(q(json));
    ASSERT_TRUE(jf.open(QIODevice::ReadOnly));
    const QJsonArray samples = QJsonDocument::fromJson(jf.readAll()).object()[QStringLiteral("samples")].toArray();
    EXPECT_EQ(samples.size(), 12);
    EXPECT_TRUE(samples[0].toObject()[QStringLiteral("point")].isObject());
}

TEST_F(ProjectCli, PlainRunCompareAndNoSave) {
    const std::string project = writeProject("plain.blobbench.json");
    auto r = runCli({"run", project, "-s", "all-blobs", "--repeat", "3"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto p = loadProject(q(project));
    ASSERT_EQ(p.history.size(), 1u);
    EXPECT_EQ(p.history[0].samples.size(), 3u);
    EXPECT_TRUE(p.history[0].samples[0].point.empty());
    const std::string firstId = p.history[0].runId.toStdString();

    // --compare with the run just saved, by "last" and by id: ratio and p-value, history grows.
    r = runCli({"run", project, "-s", "all-blobs", "-r", "3", "--compare", "last"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("## Comparison: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" vs base " + firstId), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("| Test read all BLOBs | - |"), std::string::npos) << r.out;
    r = runCli({"run", project, "-s", "Test read all BLOBs", "-r", "2", "--compare", firstId});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(loadProject(q(project)).history.size(), 3u);

    // --no-save: the file is untouched, even with --compare against another project file.
    const std::string before = blobbench::test::readFile(project);
    const std::string other = writeProject("other.blobbench.json");
    ASSERT_EQ(runCli({"run", other, "-s", "all-blobs"}).exitCode, 0);
    r = runCli({"run", project, "-s", "all-blobs", "--no-save", "--compare", other});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("## Comparison: "), std::string::npos);
    EXPECT_EQ(blobbench::test::readFile(project), before);

    // A samples file of --json as the base.
    const std::string json = dir->file("base.json");
    ASSERT_EQ(runCli({"run", "sqlite:" + db, "-s", "all-blobs", "-r", "2", "--json", json}).exitCode, 0);
    r = runCli({"run", project, "-s", "all-blobs", "--no-save", "--compare", json});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("| 2/1 |"), std::string::npos) << r.out;
}

TEST_F(ProjectCli, BadUsageIsExitTwoAndChangesNothing) {
    const std::string project = writeProject("usage.blobbench.json");
    const std::string before = blobbench::test::readFile(project);
    struct Case {
        std::vector<std::string> args;
        const char* message;
    };
    const std::vector<Case> cases = {
        {{"run", project, "--sweep", "nope"}, "unknown sweep 'nope' (the project has: api)"},
        {{"run", project, "--scenario", "nope"}, "unknown scenario 'nope'"},
        {{"run", project, "--compare", "nope"}, "--compare: no run 'nope' in the project's history"},
        {{"run", project, "-P", "mmap_size=lots"}, "parameter mmap_size: 'lots' is not valid"},
        {{"run", "sqlite:" + db, "--no-save"}, "--no-save needs a project file"},
        {{"run", "sqlite:" + db, "--sweep", "api"}, "--sweep needs a project file"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(testing::PrintToString(c.args));
        const auto r = runCli(c.args);
        EXPECT_EQ(r.exitCode, 2) << c.message << ": " << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_EQ(lineCount(r.err), 1) << r.err;
    }
    EXPECT_EQ(blobbench::test::readFile(project), before);
}

TEST_F(ProjectCli, BrokenProjectIsExitOneNamingThePath) {
    const std::string project = dir->file("broken.blobbench.json");
    test::writeFile(project, R"({"formatVersion": 1, "scenarios": [{"id": "a", "sql": 42}]})");
    auto r = runCli({"run", project});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find(project + ": scenarios[0].sql: expected a string or an array of lines"), std::string::npos)
        << r.err;
    EXPECT_EQ(lineCount(r.err), 1);
    test::writeFile(project, R"({"formatVersion": 99})");
    r = runCli({"run", project});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("newer BlobBench"), std::string::npos) << r.err;
    r = runCli({"run", dir->file("missing.blobbench.json")});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;
}

TEST_F(ProjectCli, FailingScenarioKeepsWhatWasMeasured) {
    Project p = defaultProject(q(db));
    p.scenarios.resize(1);
    p.scenarios[0].enabled = true;
    ScenarioDef bad;
    bad.id = QStringLiteral("bad");
    bad.title = QStringLiteral("Bad column");
    bad.sql = QStringLiteral("SELECT NO_SUCH_COLUMN FROM BLOB_TEST");
    p.scenarios.push_back(bad);
    const std::string project = dir->file("failing.blobbench.json");
    saveProject(q(project), p);
    const auto r = runCli({"run", project});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("no such column: NO_SUCH_COLUMN"), std::string::npos) << r.err;
    const Project after = loadProject(q(project));
    ASSERT_EQ(after.history.size(), 1u);
    EXPECT_EQ(after.history[0].samples.size(), 2u);
    EXPECT_TRUE(after.history[0].outcome.startsWith(QStringLiteral("failed: ")));
}

TEST_F(ProjectCli, ProjectRecognisedByContentToo) {
    const std::string project = writeProject("study.json");
    const auto r = runCli({"run", project, "-s", "all-blobs", "--no-save"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("## BlobBench run "), std::string::npos);
}

// A project run checks the data set as `run TARGET` does: a BLOB_TEST made by plain SQL runs, with
// the note; an incomplete preparation is refused before anything is measured.
TEST(ProjectCliDataset, ForeignBlobTestRunsWithItsNoteAndAnIncompleteOneIsRefused) {
    TempDir dir;
    const std::string file = dir.file("article.sqlite");
    test::sqliteExecute(
        file, {"CREATE TABLE BLOB_TEST (ID INTEGER PRIMARY KEY, SHORT_CONTENT VARCHAR(8191), CONTENT BLOB, SHORT_BLOB "
               "BOOLEAN)",
               "INSERT INTO BLOB_TEST VALUES (1, 'abc', 'abc', TRUE), (2, NULL, 'defgh', FALSE)"});
    const std::string project = dir.file("article.blobbench.json");
    saveProject(QString::fromStdString(project), defaultProject(QString::fromStdString(file)));
    auto r = runCli({"run", project, "-s", "short-blobs", "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("Data set: BLOB_TEST not prepared by BlobBench: 2 rows, 8 content bytes, 1 short rows"),
              std::string::npos)
        << r.err;

    // The foreign table's rows are dropped only when asked (round 5l D3: test_round5l).
    ASSERT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "30", "-q"}).exitCode, 2);
    ASSERT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "30", "-q", "--replace"}).exitCode, 0);
    test::sqliteExecute(file, {"DELETE FROM BLOBBENCH_DATASET WHERE NAME = 'complete'"});
    r = runCli({"run", project, "-s", "short-blobs", "-q"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("the preparation BlobBench started here is incomplete"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("blobbench-cli prepare sqlite:" + file), std::string::npos) << r.err;
}
