#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>

#include "ui/ResultsModel.h"

using namespace blobbench;

namespace {

Sample sample(const std::string& scenario, std::uint64_t rows, std::uint64_t bytes, int elapsedMs) {
    Sample s;
    s.runId = "run-1";
    s.scenarioId = scenario;
    s.scenarioTitle = "Title of " + scenario;
    s.sql = "SELECT ID,\n CONTENT FROM BLOB_TEST";
    s.engine = "sqlite";
    s.connection = "sqlite:/tmp/x.sqlite";
    s.serverVersion = "3.40.1";
    s.clientVersion = "3.40.1";
    s.parameters = {{"blob_api", "false"}, {"mmap_size", "0"}};
    s.effects = {{"page_size", "8192", "4096", false, "takes effect on a new file"}};
    s.rows = rows;
    s.contentBytes = bytes;
    s.maxId = static_cast<std::int64_t>(rows);
    s.valuesRead = rows;
    s.nativeLogical = WireStats::unavailable("client 3.0 has no wire counters");
    s.phases.execute = std::chrono::milliseconds(1);
    s.phases.fetch = std::chrono::milliseconds(elapsedMs - 1);
    s.tap = WireStats::unavailable("not applicable (embedded)");
    return s;
}

QString cell(const QAbstractItemModel& m, int row, int column, int role = Qt::DisplayRole) {
    return m.data(m.index(row, column), role).toString();
}

}  // namespace

TEST(ResultsModel, PassesTheModelTesterThroughInsertsAndResets) {
    ResultsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(ResultsModel::SortRole);
    proxy.sort(ResultsModel::ElapsedMs);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    EXPECT_EQ(model.columnCount(), ResultsModel::ColumnCount);
    EXPECT_EQ(model.rowCount(), 0);
    model.addSample(sample("a", 10, 1000, 5));
    model.addSample(sample("b", 20, 2000, 3));
    EXPECT_EQ(model.rowCount(), 2);
    model.setSamples({sample("c", 1, 1, 2)});
    EXPECT_EQ(model.rowCount(), 1);
    model.clear();
    EXPECT_EQ(model.rowCount(), 0);
}

TEST(ResultsModel, EveryFigureAndItsContextHasAColumn) {
    ResultsModel model;
    Sample s = sample("all", 10000, 126548330, 142);
    s.negotiated = {{"compression", "on"}};
    model.addSample(s);
    for (int c = 0; c < ResultsModel::ColumnCount; ++c) {
        EXPECT_FALSE(model.headerData(c, Qt::Horizontal).toString().isEmpty()) << "column " << c;
    }
    EXPECT_EQ(cell(model, 0, ResultsModel::Scenario), QStringLiteral("Title of all"));
    EXPECT_EQ(cell(model, 0, ResultsModel::Rows), QStringLiteral("10,000"));
    EXPECT_EQ(cell(model, 0, ResultsModel::ContentBytes), QStringLiteral("126.5 MB"));
    EXPECT_EQ(cell(model, 0, ResultsModel::ElapsedMs), QStringLiteral("142.0 ms"));
    EXPECT_EQ(model.data(model.index(0, ResultsModel::ElapsedMs), ResultsModel::SortRole).toDouble(), 142.0);
    EXPECT_EQ(model.data(model.index(0, ResultsModel::ContentBytes), ResultsModel::SortRole).toULongLong(),
              126548330ULL);
    EXPECT_EQ(cell(model, 0, ResultsModel::Status), QStringLiteral("complete"));
    EXPECT_EQ(cell(model, 0, ResultsModel::ValuesRead), QStringLiteral("10,000"));
    EXPECT_EQ(cell(model, 0, ResultsModel::ClientLogical), QStringLiteral("client 3.0 has no wire counters"));
    EXPECT_EQ(cell(model, 0, ResultsModel::Negotiated), QStringLiteral("compression=on"));
    EXPECT_EQ(cell(model, 0, ResultsModel::Parameters), QStringLiteral("blob_api=false, mmap_size=0"));
    EXPECT_TRUE(cell(model, 0, ResultsModel::NotInEffect).contains(QStringLiteral("takes effect on a new file")));
    EXPECT_EQ(cell(model, 0, ResultsModel::Sql), QStringLiteral("SELECT ID, CONTENT FROM BLOB_TEST"));
    const Sample back = model.data(model.index(0, 0), ResultsModel::SampleRole).value<Sample>();
    EXPECT_EQ(back.contentBytes, 126548330ULL);
    EXPECT_EQ(model.data(model.index(0, 0), ResultsModel::ScenarioIdRole).toString(), QStringLiteral("all"));
}

TEST(ResultsModel, WireFiguresComeOnlyFromMeasuredCounters) {
    ResultsModel model;
    model.addSample(sample("embedded", 1, 1, 2));
    Sample tapped = sample("tapped", 1, 1, 2);
    WireCounters c;
    c.sendBytes = 300;
    c.recvBytes = 70000;
    c.sendPackets = 3;
    c.recvPackets = 50;
    c.roundTrips = 4;
    tapped.tap = WireStats::of(c);
    model.addSample(tapped);
    EXPECT_EQ(cell(model, 0, ResultsModel::RoundTrips), QStringLiteral("—"));
    EXPECT_EQ(cell(model, 0, ResultsModel::WireSource), QStringLiteral("not applicable (embedded)"));
    EXPECT_EQ(cell(model, 1, ResultsModel::RoundTrips), QStringLiteral("4"));
    EXPECT_EQ(cell(model, 1, ResultsModel::ReceivedBytes), QStringLiteral("70,000"));
    EXPECT_EQ(cell(model, 1, ResultsModel::WireSource), QStringLiteral("wire tap"));
}

TEST(ResultsModel, SortsNumericallyThroughTheProxy) {
    ResultsModel model;
    model.addSample(sample("a", 9, 900, 100));
    model.addSample(sample("b", 10, 1000, 20));
    model.addSample(sample("c", 100, 100000, 3));
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(ResultsModel::SortRole);
    proxy.sort(ResultsModel::ElapsedMs, Qt::AscendingOrder);
    EXPECT_EQ(cell(proxy, 0, ResultsModel::Scenario), QStringLiteral("Title of c"));
    EXPECT_EQ(cell(proxy, 2, ResultsModel::Scenario), QStringLiteral("Title of a"));
    proxy.sort(ResultsModel::Rows, Qt::DescendingOrder);  // 100 > 10 > 9: not text order
    EXPECT_EQ(cell(proxy, 0, ResultsModel::Scenario), QStringLiteral("Title of c"));
    EXPECT_EQ(cell(proxy, 2, ResultsModel::Scenario), QStringLiteral("Title of a"));
}

TEST(ResultsModel, FailedSamplesKeepTheirError) {
    ResultsModel model;
    Sample failed = sample("bad", 0, 0, 1);
    failed.status = SampleStatus::Failed;
    failed.error = "no such table: NOPE";
    model.addSample(failed);
    EXPECT_EQ(cell(model, 0, ResultsModel::Status), QStringLiteral("failed"));
    EXPECT_EQ(cell(model, 0, ResultsModel::Error), QStringLiteral("no such table: NOPE"));
}

// Issue #29: a failed or cancelled sample whose figures stop at the fault says it is partial, and
// one the client was stopped during says it is disturbed, with the reason in the tooltip.
TEST(ResultsModel, PartialAndDisturbedSamplesSaySo) {
    ResultsModel model;
    Sample partial = sample("cut", 10, 1000, 5);
    partial.status = SampleStatus::Cancelled;
    partial.error = "cancelled";
    partial.partial = true;
    Sample disturbed = sample("paused", 10, 1000, 5);
    disturbed.disturbed = "the client was stopped for 7.0 s (SIGSTOP or a suspend)";
    Sample both = sample("both", 1, 1, 2);
    both.status = SampleStatus::Failed;
    both.partial = true;
    both.disturbed = "the client was stopped for 2.0 s";
    model.addSample(partial);
    model.addSample(disturbed);
    model.addSample(both);
    model.addSample(sample("whole", 10, 1000, 5));

    EXPECT_EQ(cell(model, 0, ResultsModel::Status), QStringLiteral("cancelled, partial"));
    EXPECT_NE(cell(model, 0, ResultsModel::Status, Qt::ToolTipRole).indexOf(QStringLiteral("Partial")), -1);
    EXPECT_EQ(cell(model, 1, ResultsModel::Status), QStringLiteral("complete, disturbed"));
    EXPECT_NE(cell(model, 1, ResultsModel::Status, Qt::ToolTipRole)
                  .indexOf(QStringLiteral("the client was stopped for 7.0 s (SIGSTOP or a suspend)")),
              -1)
        << cell(model, 1, ResultsModel::Status, Qt::ToolTipRole).toStdString();
    EXPECT_EQ(cell(model, 2, ResultsModel::Status), QStringLiteral("failed, partial, disturbed"));
    EXPECT_EQ(cell(model, 3, ResultsModel::Status), QStringLiteral("complete"));
    EXPECT_TRUE(cell(model, 3, ResultsModel::Status, Qt::ToolTipRole).isEmpty());
}
