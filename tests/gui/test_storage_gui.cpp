// The storage studies in the workbench (issue #8): the "SQLite vs filesystem" preset run reduced
// from the window (the worker runs the studies, their samples join the history), the Storage chart's
// rows and bars, and the LOB insert preset through the RunController on SQLite.
#include <gtest/gtest.h>

#include <QImage>
#include <QSignalSpy>
#include <QTabWidget>
#include <set>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "engine/storage/StorageScenario.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/RunController.h"
#include "ui/StorageChart.h"

using namespace blobbench;
using blobbench::test::TempDir;
using blobbench::test::waitUntil;

namespace {

const QString kPresets = QStringLiteral(BLOBBENCH_SOURCE_DIR "/resources/presets/");

// Pixels of the colour within a small distance (anti-aliased edges aside).
int pixelsOf(const QImage& image, QColor colour) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            n += std::abs(c.red() - colour.red()) + std::abs(c.green() - colour.green()) +
                             std::abs(c.blue() - colour.blue()) <
                         12
                     ? 1
                     : 0;
        }
    }
    return n;
}

Sample insertSample(const std::string& engine, const std::string& variant, std::optional<std::string> perSecond,
                    const std::string& error = {}) {
    Sample s;
    s.scenarioId = "ins";
    s.scalarLabel = storage::kInsertsPerSecond;
    s.point = {{"engine", engine}, {"variant", variant}};
    s.scalar = std::move(perSecond);
    if (!error.empty()) {
        s.status = SampleStatus::Failed;
        s.error = error;
    }
    return s;
}

}  // namespace

TEST(StorageChart, RowsFollowTheSamplesAndMissingFiguresAreNotesNotBars) {
    StorageChart chart;
    EXPECT_TRUE(chart.data().empty());
    EXPECT_TRUE(chart.seriesNames().isEmpty());
    chart.addSample(insertSample("postgres", "bytea-copy", "11544"));
    chart.addSample(insertSample("postgres", "bytea-lz4", std::nullopt, "not in effect: the server has no lz4"));
    chart.addSample(insertSample("firebird", "blob", "607"));
    Sample query;  // not a study: ignored
    query.scenarioId = "q";
    chart.addSample(query);
    ASSERT_EQ(chart.data().inserts.size(), 3u);
    EXPECT_EQ(chart.seriesNames(), QStringList{QStringLiteral("Inserts per second")});
    const auto& bars = chart.data().inserts;
    EXPECT_EQ(bars[0].label, QStringLiteral("postgres bytea-copy"));
    EXPECT_TRUE(bars[0].hasValue);
    EXPECT_DOUBLE_EQ(bars[0].value, 11544);
    EXPECT_FALSE(bars[1].hasValue);
    EXPECT_EQ(bars[1].note, QStringLiteral("not in effect: the server has no lz4"));
    EXPECT_EQ(bars[2].group, QStringLiteral("firebird"));
    chart.resize(800, 300);
    const QImage image = chart.grab().toImage();
    EXPECT_GT(pixelsOf(image, QColor(0x4c, 0xa8, 0x6a)), 500);  // PostgreSQL's bar
    EXPECT_GT(pixelsOf(image, QColor(0xc9, 0x4c, 0x4c)), 10);   // Firebird's, 19 times shorter
    chart.clear();
    EXPECT_TRUE(chart.data().empty());
}

TEST(StorageGui, SqliteVsFilesystemPresetRunsReducedFromTheWindow) {
    TempDir dir;
    qputenv("BLOBBENCH_DATA_DIR", QByteArray::fromStdString(dir.file("data")));
    Project project = loadProject(kPresets + QStringLiteral("sqlite-vs-filesystem.blobbench.json"));
    for (auto& s : project.scenarios) {
        s.options[QStringLiteral("count")] = QStringLiteral("150");  // reduced
    }
    auto* document = new ProjectDocument;
    document->reset(project);
    MainWindow window(document);
    test::adoptAndShow(window, document, QSize(1280, 900));
    auto* chart = window.findChild<StorageChart*>();
    ASSERT_NE(chart, nullptr);
    EXPECT_TRUE(chart->data().empty());

    QSignalSpy finished(&window, &MainWindow::runFinished);
    window.runAll();
    ASSERT_TRUE(window.isRunning()) << window.errorText().toStdString();
    ASSERT_TRUE(finished.count() > 0 || finished.wait(120000));
    EXPECT_TRUE(finished.front().front().toBool()) << window.errorText().toStdString();
    qunsetenv("BLOBBENCH_DATA_DIR");

    ASSERT_EQ(document->project().history.size(), 1u);
    const RunRecord& run = document->project().history.front();
    // reads-wal: 2 writes, 10 reads, 3 rewrites, footprint; journal off: 2 + 3 + 1; footprint: 2 + 1
    ASSERT_EQ(run.samples.size(), 16u + 6u + 3u);
    std::set<std::string> scenarios;
    for (const auto& s : run.samples) {
        scenarios.insert(s.scenarioId);
        EXPECT_EQ(s.status, SampleStatus::Complete) << s.error;
        EXPECT_EQ(s.parameters.at("count"), "150");
    }
    EXPECT_EQ(scenarios.size(), 3u);

    // The chart shows the run: one row per keyed step, one footprint ratio per study, no inserts.
    const StorageChartData& data = chart->data();
    EXPECT_TRUE(data.inserts.empty());
    EXPECT_EQ(data.perValue.size(), 15u + 5u + 2u);
    ASSERT_EQ(data.footprint.size(), 3u);
    // The header says how the reads were measured (issue #20): the preset's one reading study.
    ASSERT_EQ(data.method.size(), 1u) << data.method.join(QStringLiteral(" | ")).toStdString();
    for (const char* words : {"transaction loop", "mapping cold", "values in place", "after a warm-up",
                              "cache_size 1000 pages", "page_size 4096"}) {
        EXPECT_TRUE(data.method.front().contains(QString::fromUtf8(words))) << data.method.front().toStdString();
    }
    EXPECT_EQ(chart->seriesNames(),
              (QStringList{QStringLiteral("Time per value (µs)"), QStringLiteral("Footprint SQLite / files")}));
    int reads = 0;
    for (const StorageBar& b : data.perValue) {
        EXPECT_TRUE(b.hasValue) << b.label.toStdString();
        EXPECT_GT(b.value, 0) << b.label.toStdString();
        reads += b.label.startsWith(QStringLiteral("read ")) ? 1 : 0;
    }
    EXPECT_EQ(reads, 10);
    EXPECT_TRUE(std::any_of(data.perValue.begin(), data.perValue.end(), [](const StorageBar& b) {
        return b.label == QStringLiteral("read blob api + mmap (random)");
    }));
    EXPECT_TRUE(std::any_of(data.perValue.begin(), data.perValue.end(), [](const StorageBar& b) {
        return b.label == QStringLiteral("read files open/read/close (ascending)") &&
               b.group == QStringLiteral("files");
    }));
    for (const StorageBar& b : data.footprint) {
        EXPECT_GT(b.value, 0.2);
        EXPECT_LT(b.value, 5.0);
    }
    // The study brought the chart to the front, and it draws SQLite's and the files' bars.
    auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("bottomTabs"));
    ASSERT_NE(tabs, nullptr);
    EXPECT_TRUE(tabs->currentWidget()->isAncestorOf(chart));
    EXPECT_EQ(tabs->tabText(tabs->currentIndex()), QStringLiteral("Storage"));
    EXPECT_GE(chart->height(), chart->sizeHint().height());  // rows at full height, the panel scrolls
    chart->resize(900, 700);
    const QImage image = chart->grab().toImage();
    EXPECT_GT(pixelsOf(image, QColor(0x3b, 0x82, 0xc4)), 200);
    EXPECT_GT(pixelsOf(image, QColor(0xe0, 0x8a, 0x2c)), 50);
    if (qEnvironmentVariableIsSet("BLOBBENCH_GRAB_STORAGE")) {
        window.grab().save(qEnvironmentVariable("BLOBBENCH_GRAB_STORAGE"));
    }

    // A new chart on the same document shows the latest study run from the history.
    StorageChart again(document);
    EXPECT_EQ(again.data().perValue.size(), data.perValue.size());
}

TEST(StorageGui, LobInsertPresetRunsReducedThroughTheController) {
    TempDir dir;
    qputenv("BLOBBENCH_DATA_DIR", QByteArray::fromStdString(dir.file("data")));
    const Project project = loadProject(kPresets + QStringLiteral("lob-insert-throughput.blobbench.json"));
    RunRequest request;
    request.plan.runId = "gui-insert";
    request.plan.connection = project.current()->toSpec();
    request.studies.push_back(studyJob(project, project.scenarios.front(), request.plan.runId, {}, 120));
    qunsetenv("BLOBBENCH_DATA_DIR");
    ASSERT_EQ(request.studies.front().plan.insert.rows, 120u);

    RunController controller;
    StorageChart chart;
    QSignalSpy finished(&controller, &RunController::finished);
    QObject::connect(&controller, &RunController::sampleReady,
                     [&](const QString&, const Sample& s) { chart.addSample(s); });
    controller.start(std::move(request));
    ASSERT_TRUE(finished.count() > 0 || finished.wait(120000));
    EXPECT_TRUE(finished.front().front().toBool()) << finished.front().at(2).toString().toStdString();
    ASSERT_EQ(chart.data().inserts.size(), 2u);
    EXPECT_EQ(chart.data().inserts[0].label, QStringLiteral("sqlite bind"));
    EXPECT_EQ(chart.data().inserts[1].label, QStringLiteral("sqlite zeroblob"));
    for (const auto& b : chart.data().inserts) {
        EXPECT_TRUE(b.hasValue);
        EXPECT_GT(b.value, 0);
    }
}
