// The run history's model (ui/HistoryModel) and a comparison's (ui/ComparisonModel): checked by
// QAbstractItemModelTester through everything the document does to them (a reset, runs started,
// samples appended, runs finished), and what their cells say.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>

#include "model/Project.h"
#include "ui/ComparisonModel.h"
#include "ui/HistoryModel.h"

using namespace blobbench;

namespace {

Sample sqliteSample(const std::string& runId, const std::string& scenario, const std::string& blobApi) {
    Sample s;
    s.runId = runId;
    s.scenarioId = scenario;
    s.scenarioTitle = "Title of " + scenario;
    s.engine = "sqlite";
    s.connection = "sqlite:/tmp/x.sqlite";
    s.parameters = {{"blob_api", blobApi}};
    s.rows = 3;
    return s;
}

RunRecord run(const QString& id, const QString& connection) {
    RunRecord r;
    r.runId = id;
    r.startedAt = QStringLiteral("2026-12-06T10:00:00.000Z");
    r.connectionName = connection;
    return r;
}

QString cell(const QAbstractItemModel& m, int row, int column, int role = Qt::DisplayRole) {
    return m.data(m.index(row, column), role).toString();
}

TEST(HistoryModel, PassesTheModelTesterThroughTheDocumentsChanges) {
    ProjectDocument document;
    HistoryModel model(&document);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    EXPECT_EQ(model.rowCount(), 0);
    EXPECT_EQ(model.columnCount(), HistoryModel::ColumnCount);

    document.beginRun(run(QStringLiteral("r1"), QStringLiteral("local")));
    document.appendSample(QStringLiteral("r1"), sqliteSample("r1", "warm-up", "false"));
    document.finishRun(QStringLiteral("r1"), QStringLiteral("complete"));
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(cell(model, 0, HistoryModel::Status), QStringLiteral("complete"));
    EXPECT_EQ(cell(model, 0, HistoryModel::Samples), QStringLiteral("1"));
    EXPECT_EQ(cell(model, 0, HistoryModel::Settings), QStringLiteral("-")) << "one run differs from none";

    document.beginRun(run(QStringLiteral("r2"), QStringLiteral("local")));
    EXPECT_EQ(model.rowCount(), 2);
    EXPECT_EQ(cell(model, 1, HistoryModel::Status), QStringLiteral("running (or cut short)"));
    document.appendSample(QStringLiteral("r2"), sqliteSample("r2", "warm-up", "true"));
    document.appendSample(QStringLiteral("r2"), sqliteSample("r2", "short-blobs", "true"));
    document.finishRun(QStringLiteral("r2"), QStringLiteral("cancelled"));
    EXPECT_EQ(cell(model, 1, HistoryModel::Status), QStringLiteral("cancelled"));
    EXPECT_EQ(cell(model, 1, HistoryModel::Scenarios), QStringLiteral("Title of warm-up, Title of short-blobs"));
    EXPECT_EQ(cell(model, 1, HistoryModel::Scenarios, Qt::ToolTipRole),
              QStringLiteral("Title of warm-up\nTitle of short-blobs"));
    // The settings column of every run changes when a run that differs finishes.
    EXPECT_EQ(cell(model, 0, HistoryModel::Settings), QStringLiteral("blob api off"));
    EXPECT_EQ(cell(model, 1, HistoryModel::Settings), QStringLiteral("blob api on"));

    Project p = document.project();
    p.history.erase(p.history.begin());
    document.reset(p);
    EXPECT_EQ(model.rowCount(), 1);
    EXPECT_EQ(cell(model, 0, HistoryModel::Started, Qt::ToolTipRole), QStringLiteral("r2"));
    EXPECT_EQ(model.data(model.index(0, HistoryModel::Link), Qt::UserRole).toInt(), 0) << "the history index";
}

TEST(HistoryModel, AnEmbeddedRunHasNoLinkAndANetworkedOneShowsItsLink) {
    ProjectDocument document;
    Project p;
    RunRecord embedded = run(QStringLiteral("e"), QStringLiteral("local"));
    embedded.samples.push_back(sqliteSample("e", "warm-up", "false"));
    RunRecord shaped = run(QStringLiteral("s"), QStringLiteral("pg"));
    Sample pg = sqliteSample("s", "warm-up", "false");
    pg.engine = "postgres";
    shaped.samples.push_back(pg);
    shaped.link.latencyUpMs = 20;
    shaped.link.latencyDownMs = 20;
    p.history = {embedded, shaped};
    document.reset(p);
    HistoryModel model(&document);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    EXPECT_EQ(cell(model, 0, HistoryModel::Link), QStringLiteral("n/a (embedded)"));
    EXPECT_TRUE(cell(model, 0, HistoryModel::Link, Qt::ToolTipRole).contains(QStringLiteral("embedded")));
    EXPECT_EQ(cell(model, 1, HistoryModel::Link), QStringLiteral("up unlimited + 20 ms, down unlimited + 20 ms"));
    EXPECT_EQ(model.headerData(HistoryModel::Settings, Qt::Horizontal).toString(), QStringLiteral("Settings"));
    EXPECT_FALSE(model.index(0, 0).parent().isValid());
    EXPECT_EQ(model.rowCount(model.index(0, 0)), 0) << "a table: no children";
}

Sample timed(const std::string& runId, const std::string& scenario, int ms) {
    Sample s = sqliteSample(runId, scenario, "false");
    s.phases.fetch = std::chrono::milliseconds(ms);
    return s;
}

TEST(ComparisonModel, PassesTheModelTesterAndSaysEachVerdict) {
    std::vector<Sample> base, candidate;
    for (int ms : {100, 101, 102, 103, 104}) {
        base.push_back(timed("b", "warm-up", ms));
        candidate.push_back(timed("n", "warm-up", ms / 2));  // faster, significantly
        base.push_back(timed("b", "short-blobs", ms));
    }
    candidate.push_back(timed("n", "varchar", 5));  // only in the new run
    ComparisonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    EXPECT_EQ(model.rowCount(), 0);
    model.setRows(compareRuns(base, candidate));
    ASSERT_EQ(model.rowCount(), 3);
    QStringList verdicts;
    for (int r = 0; r < model.rowCount(); ++r) {
        verdicts << cell(model, r, ComparisonModel::Scenario) + QStringLiteral(": ") +
                        cell(model, r, ComparisonModel::Verdict);
    }
    EXPECT_TRUE(verdicts.contains(QStringLiteral("Title of warm-up: faster (significant)")))
        << verdicts.join(QStringLiteral(" | ")).toStdString();
    EXPECT_TRUE(verdicts.contains(QStringLiteral("Title of short-blobs: only in base")));
    EXPECT_TRUE(verdicts.contains(QStringLiteral("Title of varchar: only in new")));
    const int warm = static_cast<int>(verdicts.indexOf(QStringLiteral("Title of warm-up: faster (significant)")));
    EXPECT_EQ(cell(model, warm, ComparisonModel::Ratio), QStringLiteral("0.500"));  // 51 ms against 102 ms
    EXPECT_TRUE(cell(model, warm, ComparisonModel::Delta).startsWith(QStringLiteral("−")));
    EXPECT_EQ(model.data(model.index(warm, ComparisonModel::Ratio), Qt::TextAlignmentRole).toInt(),
              int(Qt::AlignRight | Qt::AlignVCenter));
    EXPECT_EQ(model.headerData(ComparisonModel::PValue, Qt::Horizontal).toString(), QStringLiteral("p (Mann-Whitney)"));
    model.setRows({});
    EXPECT_EQ(model.rowCount(), 0);
}

}  // namespace
