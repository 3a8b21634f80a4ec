// The run history's model (ui/HistoryModel): checked by QAbstractItemModelTester through everything
// the document does to it (a reset, runs started, samples appended, runs finished), and what its
// cells say.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>

#include "model/Project.h"
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

}  // namespace
