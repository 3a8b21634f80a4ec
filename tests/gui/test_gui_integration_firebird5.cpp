// The window against the real Firebird 5.0.4 server and client (scripts/services/start-firebird5;
// label integration): with a Firebird 5 connection the inline BLOB size slider is in effect, and a
// sweep over it moves real round trips, fewer as the size grows.
#include <gtest/gtest.h>

#include <QChartView>
#include <QSignalSpy>
#include <QXYSeries>
#include <map>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "engine/data/ReferenceSuite.h"
#include "support/TestSupport.h"
#include "ui/Charts.h"
#include "ui/MainWindow.h"
#include "ui/ParameterPanel.h"
#include "ui/SweepEditor.h"

using namespace blobbench;
using blobbench::test::TempDir;

namespace {

constexpr int kRunTimeoutMs = 300000;

bool runAndWait(MainWindow& window, const std::function<void()>& start) {
    QSignalSpy finished(&window, &MainWindow::runFinished);
    start();
    return finished.count() > 0 || finished.wait(kRunTimeoutMs);
}

// The server's reference data (prepared when missing) and a project with a Firebird 5 connection
// and only `scenario` enabled. The password goes where the engine's own client takes it.
struct Firebird5Env {
    std::string database, user, password, client;
};

ProjectDocument* firebird5Project(const Firebird5Env& fb, const TempDir& dir, const std::string& scenario) {
    qputenv("ISC_PASSWORD", QByteArray::fromStdString(fb.password));
    const std::vector<std::string> env = {"ISC_PASSWORD=" + fb.password};
    if (test::runCli({"run", fb.database, "-u", fb.user, "--client-library", fb.client, "-s", "warm-up", "-q"}, env)
            .exitCode != 0) {
        EXPECT_EQ(
            test::runCli({"prepare", fb.database, "-u", fb.user, "--client-library", fb.client, "--rows", "300", "-q"},
                         env)
                .exitCode,
            0);
    }
    auto* document = new ProjectDocument;
    document->reset(defaultProject(QString::fromStdString(dir.file("unused.sqlite"))));
    ConnectionProfile five;
    five.name = QStringLiteral("Firebird 5.0.4 under test");
    five.engine = QStringLiteral("firebird");
    five.target = QString::fromStdString(fb.database);
    five.user = QString::fromStdString(fb.user);
    five.clientLibrary = QString::fromStdString(fb.client);
    const int index = document->addConnection(five);
    Project project = document->project();
    project.scenarios.clear();
    for (const Scenario& s : referenceSuite(Dialect::Firebird)) {
        ScenarioDef def = ScenarioDef::fromScenario(s);
        def.enabled = s.id == scenario;
        project.scenarios.push_back(def);
    }
    project.currentConnection = index;
    document->reset(project);
    return document;
}

}  // namespace

TEST(GuiIntegrationFirebird5, InlineSizeSweepMovesRealRoundTrips) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    TempDir dir;
    ProjectDocument* document = firebird5Project({database, user, password, client}, dir, "short-blobs");
    MainWindow window(document);
    test::adoptAndShow(window, document);

    // One run: the session's effects reach the panel; inline BLOBs are in effect with this pair.
    window.setRepetitions(1);
    ASSERT_TRUE(runAndWait(window, [&] { window.runAll(); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    QWidget* slider = window.parameterPanel()->editor(QStringLiteral("max_inline_blob_size"));
    ASSERT_NE(slider, nullptr);
    EXPECT_TRUE(slider->isEnabled())
        << window.parameterPanel()->disabledReason(QStringLiteral("max_inline_blob_size")).toStdString();
    EXPECT_TRUE(window.parameterPanel()->disabledReason(QStringLiteral("max_inline_blob_size")).isEmpty());

    // The sweep over the slider's tunable: 0, 1024, 65535.
    SweepEditor* editor = window.sweepEditor();
    editor->newSweep();
    SweepDef sweep = document->project().sweeps.front();
    sweep.axes.front().parameter = QStringLiteral("max_inline_blob_size");
    sweep.axes.front().values = {QStringLiteral("0"), QStringLiteral("1024"), QStringLiteral("65535")};
    sweep.axes.front().range.reset();
    document->setSweep(0, sweep);
    ASSERT_TRUE(editor->runButton()->isEnabled()) << editor->previewText().toStdString();
    ASSERT_TRUE(runAndWait(window, [&] { editor->runButton()->click(); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    const RunRecord& swept = document->project().history.back();
    EXPECT_EQ(swept.sweepName, sweep.name);
    std::map<int, std::uint64_t> tripsBySize;  // the tap's round trips, by inline size
    std::map<int, std::uint64_t> clientTripsBySize;
    for (const Sample& s : swept.samples) {
        ASSERT_EQ(s.status, SampleStatus::Complete) << s.error;
        ASSERT_TRUE(s.tap.available) << s.tap.unavailableReason;
        ASSERT_TRUE(s.tap.counters.roundTrips.has_value());
        ASSERT_TRUE(s.nativePhysical.available) << s.nativePhysical.unavailableReason;
        const int size = std::stoi(s.point.at("max_inline_blob_size"));
        tripsBySize[size] = *s.tap.counters.roundTrips;
        clientTripsBySize[size] = s.nativePhysical.counters.roundTrips.value_or(0);
    }
    ASSERT_EQ(tripsBySize.size(), 3u);
    EXPECT_GT(tripsBySize[0], tripsBySize[1024]);
    EXPECT_GE(tripsBySize[1024], tripsBySize[65535]);
    EXPECT_GE(tripsBySize[0], 10 * tripsBySize[65535]);
    EXPECT_GT(clientTripsBySize[0], clientTripsBySize[65535]);
    window.flushCharts();
    EXPECT_TRUE(window.chart(ChartKind::Sweep)->xAxisTitle().startsWith(QStringLiteral("max_inline_blob_size")));
    qunsetenv("ISC_PASSWORD");
}

// Compression does not change the content read, only the bytes on the wire: a real run with it
// off and on gives two series on Time vs bytes whose wire-received x values differ.
TEST(GuiIntegrationFirebird5, CompressionOffAndOnAreTwoSeriesApartOnTheWireAxis) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    TempDir dir;
    ProjectDocument* document = firebird5Project({database, user, password, client}, dir, "short-blobs");
    MainWindow window(document);
    test::adoptAndShow(window, document);
    window.setRepetitions(2);
    SweepEditor* editor = window.sweepEditor();
    editor->newSweep();
    SweepDef sweep = document->project().sweeps.front();
    sweep.axes.front().parameter = QStringLiteral("wire_compression");
    sweep.axes.front().values = {QStringLiteral("false"), QStringLiteral("true")};
    sweep.axes.front().range.reset();
    document->setSweep(0, sweep);
    ASSERT_TRUE(editor->runButton()->isEnabled()) << editor->previewText().toStdString();
    ASSERT_TRUE(runAndWait(window, [&] { editor->runButton()->click(); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    std::map<std::string, std::uint64_t> received, content;
    for (const Sample& s : document->project().history.back().samples) {
        ASSERT_EQ(s.status, SampleStatus::Complete) << s.error;
        ASSERT_TRUE(s.tap.available) << s.tap.unavailableReason;
        received[s.point.at("wire_compression")] = s.tap.counters.recvBytes;
        content[s.point.at("wire_compression")] = s.contentBytes;
    }
    ASSERT_EQ(received.size(), 2u);
    EXPECT_EQ(content["false"], content["true"]);  // the same data read
    EXPECT_LT(received["true"], received["false"]);

    window.flushCharts();
    SampleChart* chart = window.chart(ChartKind::TimeVsBytes);
    EXPECT_EQ(chart->bytesAxis(), BytesAxis::WireReceived);
    EXPECT_TRUE(chart->xAxisTitle().startsWith(QStringLiteral("Bytes received on the wire")))
        << chart->xAxisTitle().toStdString();
    const QStringList names = chart->seriesNames();
    ASSERT_EQ(names.size(), 2) << names.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(names.contains(QStringLiteral("Test read short BLOBs · compression off")))
        << names.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(names.contains(QStringLiteral("Test read short BLOBs · compression on")));
    auto* view = chart->widget()->findChild<QChartView*>();
    ASSERT_NE(view, nullptr);
    std::vector<double> firstX;
    for (QAbstractSeries* series : view->chart()->series()) {
        auto* xy = qobject_cast<QXYSeries*>(series);
        ASSERT_NE(xy, nullptr);
        ASSERT_GT(xy->count(), 0);
        firstX.push_back(xy->at(0).x());
    }
    ASSERT_EQ(firstX.size(), 2u);
    EXPECT_NE(firstX[0], firstX[1]);
    // Content bytes: compression does not move them, the two series sit on one x.
    chart->setBytesAxis(BytesAxis::Content);
    const auto content0 = qobject_cast<QXYSeries*>(view->chart()->series()[0])->at(0).x();
    const auto content1 = qobject_cast<QXYSeries*>(view->chart()->series()[1])->at(0).x();
    EXPECT_DOUBLE_EQ(content0, content1);
    if (const QString shot = qEnvironmentVariable("BLOBBENCH_WIRE_SHOT"); !shot.isEmpty()) {
        chart->setBytesAxis(BytesAxis::WireReceived);
        exportChartPng(chart->widget(), shot);  // to look at
    }
    qunsetenv("ISC_PASSWORD");
}
