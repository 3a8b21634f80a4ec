// The window against the real Firebird 5.0.4 server and client (scripts/services/start-firebird5;
// label integration): with a Firebird 5 connection the inline BLOB size slider is in effect, and a
// sweep over it moves real round trips, fewer as the size grows.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <map>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "engine/data/ReferenceSuite.h"
#include "support/TestSupport.h"
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

}  // namespace

TEST(GuiIntegrationFirebird5, InlineSizeSweepMovesRealRoundTrips) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    // The window takes the password where the engine's own client does (ISC_PASSWORD).
    qputenv("ISC_PASSWORD", QByteArray::fromStdString(password));
    const std::vector<std::string> env = {"ISC_PASSWORD=" + password};
    if (test::runCli({"run", database, "-u", user, "--client-library", client, "-s", "warm-up", "-q"}, env).exitCode !=
        0) {
        ASSERT_EQ(
            test::runCli({"prepare", database, "-u", user, "--client-library", client, "--rows", "300", "-q"}, env)
                .exitCode,
            0);
    }
    TempDir dir;
    auto* document = new ProjectDocument;
    document->reset(defaultProject(QString::fromStdString(dir.file("unused.sqlite"))));
    ConnectionProfile five;
    five.name = QStringLiteral("Firebird 5.0.4 under test");
    five.engine = QStringLiteral("firebird");
    five.target = QString::fromStdString(database);
    five.user = QString::fromStdString(user);
    five.clientLibrary = QString::fromStdString(client);
    const int index = document->addConnection(five);
    Project project = document->project();
    project.scenarios.clear();
    for (const Scenario& s : referenceSuite(Dialect::Firebird)) {
        ScenarioDef def = ScenarioDef::fromScenario(s);
        def.enabled = s.id == "short-blobs";
        project.scenarios.push_back(def);
    }
    project.currentConnection = index;
    document->reset(project);
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
