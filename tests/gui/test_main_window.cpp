#include <gtest/gtest.h>

#include <QAction>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTimer>
#include <QXmlStreamReader>

#include "GuiTestSupport.h"
#include "engine/drivers/Registry.h"
#include "support/TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/ParameterPanel.h"
#include "ui/ResultsModel.h"
#include "ui/ScenarioListModel.h"
#include "ui/SqlEditor.h"

using namespace blobbench;
using blobbench::test::TempDir;
using blobbench::test::waitUntil;

namespace {

constexpr int kRunTimeoutMs = 120000;

// Minimal RFC 4180 reader: quoted fields may hold commas, quotes and newlines.
std::vector<QStringList> parseCsv(const QString& text) {
    std::vector<QStringList> rows(1);
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
                field += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            rows.back() << field;
            field.clear();
        } else if (c == QLatin1Char('\n')) {
            rows.back() << field;
            field.clear();
            rows.emplace_back();
        } else if (c != QLatin1Char('\r')) {
            field += c;
        }
    }
    if (!field.isEmpty() || !rows.back().isEmpty())
        rows.back() << field;
    if (rows.back().isEmpty())
        rows.pop_back();
    return rows;
}

class MainWindowTest : public ::testing::Test {
protected:
    void SetUp() override {
        databasePath = QString::fromStdString(dir.file("reference.sqlite"));
        document = new ProjectDocument;
        document->reset(defaultProject(databasePath));
        window = std::make_unique<MainWindow>(document);
        document->setParent(window.get());
        window->setDefaultDataset(databasePath, 300);
        window->resize(1280, 860);
        window->show();
    }
    void TearDown() override { window.reset(); }

    bool runAllAndWait(int timeoutMs = kRunTimeoutMs) {
        QSignalSpy finished(window.get(), &MainWindow::runFinished);
        window->runAll();
        return finished.count() > 0 || finished.wait(timeoutMs);
    }
    int enabledScenarios() const {
        int n = 0;
        for (const ScenarioDef& s : document->project().scenarios)
            n += s.enabled ? 1 : 0;
        return n;
    }

    TempDir dir;
    QString databasePath;
    ProjectDocument* document = nullptr;
    std::unique_ptr<MainWindow> window;
};

}  // namespace

TEST_F(MainWindowTest, OpensOnTheDefaultProjectReadyToRun) {
    EXPECT_EQ(window->scenarios()->count(), static_cast<int>(document->project().scenarios.size()));
    EXPECT_GE(window->scenarios()->count(), 5);
    EXPECT_EQ(window->scenarios()->currentIndex(), 0);
    EXPECT_FALSE(window->scenarios()->sqlEditor()->toPlainText().isEmpty());
    EXPECT_EQ(window->parameterPanel()->count(), static_cast<int>(driverById("sqlite").parameters().size()));
    EXPECT_FALSE(window->isRunning());
    EXPECT_TRUE(window->errorText().isEmpty());
}

TEST_F(MainWindowTest, FullRunOfTheSqlitePresetFillsTableChartsAndDocument) {
    test::prepareSmallDataset(databasePath, 300);
    window->setRepetitions(3);
    // The window's first layout and paint happen before the run, as for a user who presses Run.
    waitUntil([] { return false; }, 500);

    // The heartbeat: a 10 ms timer on the UI thread; its worst lateness tells whether the UI stalled.
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0;
    qint64 worstLate = 0;
    int beats = 0;
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        if (beats++ > 0) {
            worstLate = std::max(worstLate, now - last - 10);
            if (now - last - 10 > 50)
                std::printf("heartbeat: %lld ms late at %lld ms\n", now - last - 10, now);
        }
        last = now;
    });
    heartbeat.start(10);
    ASSERT_TRUE(runAllAndWait());
    heartbeat.stop();
    std::printf("heartbeat: %d beats in %lld ms, worst lateness %lld ms\n", beats,
                static_cast<long long>(clock.elapsed()), static_cast<long long>(worstLate));
    // A stall detector, asserted generously: the target is 50 ms, but on the shared 2-core machine
    // under a parallel ctest a repaint alone can take 100-200 ms of wall-clock time.
    EXPECT_LT(worstLate, 500) << "the UI thread stalled for " << worstLate << " ms during a run";

    EXPECT_TRUE(window->errorText().isEmpty()) << window->errorText().toStdString();
    const int scenarios = enabledScenarios();
    EXPECT_EQ(window->resultsModel()->rowCount(), scenarios * 3);
    ASSERT_EQ(document->project().history.size(), 1U);
    EXPECT_EQ(static_cast<int>(document->project().history[0].samples.size()), scenarios * 3);
    bool anyContent = false;
    for (const Sample& s : window->resultsModel()->samples()) {
        EXPECT_EQ(s.status, SampleStatus::Complete) << s.scenarioTitle << ": " << s.error;
        anyContent = anyContent || s.contentBytes > 0;
        EXPECT_EQ(s.engine, "sqlite");
    }
    EXPECT_TRUE(anyContent);
    window->flushCharts();
    EXPECT_EQ(window->chart(ChartKind::TimeVsBytes)->pointCount(), scenarios * 3);
    EXPECT_EQ(window->chart(ChartKind::TimeVsBytes)->seriesNames().size(), scenarios);
    EXPECT_GT(window->chart(ChartKind::Phases)->pointCount(), 0);
    // SQLite has no wire: the round-trip chart draws nothing and says why.
    EXPECT_EQ(window->chart(ChartKind::TimeVsRoundTrips)->pointCount(), 0);
    EXPECT_TRUE(window->chart(ChartKind::TimeVsRoundTrips)->notice().contains(QStringLiteral("embedded")));
    EXPECT_TRUE(window->logView()->toPlainText().contains(QStringLiteral("SELECT")));
    EXPECT_EQ(window->progressBar()->value(), 1000);
}

TEST_F(MainWindowTest, PreparesTheMissingDefaultDataSetOnTheWorkerThenRuns) {
    ASSERT_FALSE(QFile::exists(databasePath));
    QSignalSpy preparing(window->controller(), &RunController::preparing);
    window->scenarios()->setCurrentIndex(1);
    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    window->runCurrent();
    ASSERT_TRUE(finished.wait(kRunTimeoutMs));
    EXPECT_TRUE(finished.at(0).at(0).toBool()) << window->errorText().toStdString();
    EXPECT_TRUE(QFile::exists(databasePath));
    EXPECT_GE(preparing.count(), 1);
    ASSERT_EQ(window->resultsModel()->rowCount(), 1);
    EXPECT_GT(window->resultsModel()->samples()[0].rows, 0U);
    EXPECT_TRUE(window->logView()->toPlainText().contains(QStringLiteral("Prepared")));
}

TEST_F(MainWindowTest, StopEndsARunPromptlyAndKeepsWhatWasMeasured) {
    test::prepareSmallDataset(databasePath, 300);
    window->setRepetitions(100000);  // far longer than the test waits
    QSignalSpy appended(document, &ProjectDocument::sampleAppended);
    QSignalSpy idle(window->controller(), &RunController::workerIdle);
    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    window->runAll();
    ASSERT_TRUE(waitUntil([&] { return appended.count() >= 3; }, kRunTimeoutMs));
    ASSERT_TRUE(window->isRunning());

    QElapsedTimer stopClock;
    stopClock.start();
    window->stop();
    EXPECT_FALSE(window->isRunning());  // the window is usable at once
    EXPECT_EQ(finished.count(), 1);
    ASSERT_TRUE(waitUntil([&] { return idle.count() >= 1; }, 5000));
    const qint64 stopMs = stopClock.elapsed();
    std::printf("stop: the worker was free %lld ms after Stop\n", static_cast<long long>(stopMs));
    EXPECT_LT(stopMs, 2000);  // target 200 ms; generous for a shared machine

    const int kept = window->resultsModel()->rowCount();
    EXPECT_GE(kept, 3);
    // Late signals of the stopped run are dropped: nothing more arrives.
    waitUntil([] { return false; }, 300);
    EXPECT_EQ(window->resultsModel()->rowCount(), kept);
    EXPECT_TRUE(window->errorText().isEmpty());

    // And the next run works.
    window->setRepetitions(1);
    window->scenarios()->setCurrentIndex(1);
    QSignalSpy again(window.get(), &MainWindow::runFinished);
    window->runCurrent();
    ASSERT_TRUE(again.wait(kRunTimeoutMs));
    EXPECT_TRUE(again.at(0).at(0).toBool());
    EXPECT_EQ(window->resultsModel()->rowCount(), kept + 1);
}

TEST_F(MainWindowTest, AnEmptyStatementIsRefusedWithAClearMessage) {
    window->scenarios()->addScenario();
    const int row = window->scenarios()->currentIndex();
    EXPECT_EQ(document->project().scenarios[static_cast<std::size_t>(row)].title, QStringLiteral("New scenario"));
    window->runCurrent();
    EXPECT_FALSE(window->isRunning());
    EXPECT_TRUE(window->errorText().contains(QStringLiteral("no measured statement")))
        << window->errorText().toStdString();
    EXPECT_TRUE(window->logView()->toPlainText().contains(QStringLiteral("empty statement")));
}

TEST_F(MainWindowTest, AnSqlErrorIsShownAndEarlierResultsStay) {
    test::prepareSmallDataset(databasePath, 300);
    window->scenarios()->setCurrentIndex(1);
    {
        QSignalSpy finished(window.get(), &MainWindow::runFinished);
        window->runCurrent();
        ASSERT_TRUE(finished.wait(kRunTimeoutMs));
    }
    ASSERT_EQ(window->resultsModel()->rowCount(), 1);
    window->scenarios()->addScenario();
    window->scenarios()->sqlEditor()->setPlainText(QStringLiteral("SELECT ID, CONTENT FROM NO_SUCH_TABLE"));
    EXPECT_EQ(document->project().scenarios[static_cast<std::size_t>(window->scenarios()->currentIndex())].sql,
              QStringLiteral("SELECT ID, CONTENT FROM NO_SUCH_TABLE"));
    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    window->runCurrent();
    ASSERT_TRUE(finished.wait(kRunTimeoutMs));
    EXPECT_FALSE(finished.at(0).at(0).toBool());
    EXPECT_TRUE(window->errorText().contains(QStringLiteral("NO_SUCH_TABLE"))) << window->errorText().toStdString();
    EXPECT_TRUE(window->logView()->toPlainText().contains(QStringLiteral("NO_SUCH_TABLE")));
    ASSERT_EQ(window->resultsModel()->rowCount(), 2);  // the earlier sample and the failed one
    EXPECT_EQ(window->resultsModel()->samples()[1].status, SampleStatus::Failed);
    EXPECT_FALSE(window->isRunning());
}

TEST_F(MainWindowTest, AConnectionFailureIsShownAndTheWindowStaysUsable) {
    ConnectionProfile broken;
    broken.name = QStringLiteral("broken");
    broken.engine = QStringLiteral("sqlite");
    broken.target = QStringLiteral("sqlite:") + QString::fromStdString(dir.file("no/such/dir/x.sqlite"));
    document->setCurrentConnection(document->addConnection(broken));
    QSignalSpy tested(window->controller(), &RunController::connectionTested);
    window->testConnection();
    ASSERT_TRUE(tested.wait(10000));
    EXPECT_FALSE(tested.at(0).at(0).toBool());
    EXPECT_TRUE(window->errorText().contains(QStringLiteral("no/such/dir"))) << window->errorText().toStdString();

    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    window->runCurrent();
    ASSERT_TRUE(finished.wait(10000));
    EXPECT_FALSE(finished.at(0).at(0).toBool());
    EXPECT_FALSE(window->errorText().isEmpty());
    EXPECT_FALSE(window->isRunning());
}

TEST_F(MainWindowTest, TestConnectionShowsVersionsAndEffects) {
    test::prepareSmallDataset(databasePath, 300);
    QSignalSpy tested(window->controller(), &RunController::connectionTested);
    window->testConnection();
    ASSERT_TRUE(tested.wait(10000));
    ASSERT_TRUE(tested.at(0).at(0).toBool());
    const auto info = tested.at(0).at(1).value<SessionInfo>();
    EXPECT_EQ(info.engine, "sqlite");
    EXPECT_TRUE(window->logView()->toPlainText().contains(QString::fromStdString(info.clientVersion)));
    EXPECT_TRUE(window->logView()->toPlainText().contains(QStringLiteral("300 rows")));
}

TEST_F(MainWindowTest, ScenariosCanBeDuplicatedReorderedAndDeleted) {
    const int n = window->scenarios()->count();
    window->scenarios()->setCurrentIndex(1);
    const QString title = document->project().scenarios[1].title;
    window->scenarios()->duplicateScenario();
    EXPECT_EQ(window->scenarios()->count(), n + 1);
    EXPECT_EQ(document->project().scenarios[2].title, title + QStringLiteral(" (copy)"));
    EXPECT_NE(document->project().scenarios[2].id, document->project().scenarios[1].id);
    window->scenarios()->moveScenarioUp();
    EXPECT_EQ(window->scenarios()->currentIndex(), 1);
    EXPECT_EQ(document->project().scenarios[1].title, title + QStringLiteral(" (copy)"));
    window->scenarios()->moveScenarioDown();
    EXPECT_EQ(document->project().scenarios[2].title, title + QStringLiteral(" (copy)"));
    window->scenarios()->deleteScenario();
    EXPECT_EQ(window->scenarios()->count(), n);
    // Unchecking in the list disables the scenario in the project.
    window->scenarios()->model()->setData(window->scenarios()->model()->index(0), Qt::Unchecked, Qt::CheckStateRole);
    EXPECT_FALSE(document->project().scenarios[0].enabled);
}

TEST_F(MainWindowTest, ParameterChangesGoToTheDocument) {
    window->parameterPanel()->setValue(QStringLiteral("blob_api"), QStringLiteral("true"));
    const auto& values = document->project().parameters.at(QStringLiteral("sqlite"));
    EXPECT_EQ(values.at("blob_api"), "true");
}

TEST_F(MainWindowTest, ExportsAreWrittenAndParseable) {
    test::prepareSmallDataset(databasePath, 300);
    ASSERT_TRUE(runAllAndWait());
    const int samples = window->resultsModel()->rowCount();
    ASSERT_GT(samples, 0);

    const QString png = QString::fromStdString(dir.file("chart.png"));
    const QString svg = QString::fromStdString(dir.file("chart.svg"));
    const QString csv = QString::fromStdString(dir.file("results.csv"));
    const QString json = QString::fromStdString(dir.file("results.json"));
    ASSERT_TRUE(window->exports()->exportChart(png));
    ASSERT_TRUE(window->exports()->exportChart(svg));
    ASSERT_TRUE(window->exports()->exportResultsCsv(csv));
    ASSERT_TRUE(window->exports()->exportResultsJson(json));

    const QImage image(png);
    EXPECT_EQ(image.size(), QSize(1600, 900));  // the export size, not the on-screen strip

    QFile svgFile(svg);
    ASSERT_TRUE(svgFile.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svgFile);
    bool sawSvg = false;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("svg"))
            sawSvg = true;
    }
    EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
    EXPECT_TRUE(sawSvg);

    QFile csvFile(csv);
    ASSERT_TRUE(csvFile.open(QIODevice::ReadOnly));
    const auto rows = parseCsv(QString::fromUtf8(csvFile.readAll()));
    ASSERT_EQ(static_cast<int>(rows.size()), samples + 1);
    for (const QStringList& row : rows)
        EXPECT_EQ(row.size(), rows[0].size());
    // The CSV numbers repetitions as the table does: from 1.
    ASSERT_EQ(rows[0].value(2), QStringLiteral("repetition"));
    bool sawFirst = false;
    for (int r = 0; r < samples; ++r) {
        const QString table =
            window->resultsModel()->data(window->resultsModel()->index(r, ResultsModel::Repetition)).toString();
        EXPECT_EQ(rows[static_cast<std::size_t>(r) + 1].value(2), table) << "row " << r;
        sawFirst = sawFirst || table == QStringLiteral("1");
    }
    EXPECT_TRUE(sawFirst);

    QFile jsonFile(json);
    ASSERT_TRUE(jsonFile.open(QIODevice::ReadOnly));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(jsonFile.readAll(), &error);
    ASSERT_EQ(error.error, QJsonParseError::NoError) << error.errorString().toStdString();
    EXPECT_EQ(doc.object().value(QStringLiteral("samples")).toArray().size(), samples);

    // An unwritable path is an error in the window, not a crash.
    EXPECT_FALSE(window->exports()->exportResultsCsv(QString::fromStdString(dir.file("no/such/dir/x.csv"))));
    EXPECT_FALSE(window->errorText().isEmpty());
}

// The figure: UI-thread stalls during a 10,000-row run with live charts. A benchmark, not a
// test (it prints, and asserts only generously); runs when BLOBBENCH_GUI_BENCH=1.
TEST_F(MainWindowTest, HeartbeatDuringATenThousandRowRun) {
    if (qEnvironmentVariableIntValue("BLOBBENCH_GUI_BENCH") != 1) {
        GTEST_SKIP() << "set BLOBBENCH_GUI_BENCH=1 to measure";
    }
    test::prepareSmallDataset(databasePath, 10000);
    window->showChart(ChartKind::LiveThroughput);
    waitUntil([] { return false; }, 500);
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, worstLate = 0;
    int beats = 0, over50 = 0;
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        if (beats++ > 0) {
            worstLate = std::max(worstLate, now - last - 10);
            over50 += now - last - 10 > 50 ? 1 : 0;
        }
        last = now;
    });
    heartbeat.start(10);
    ASSERT_TRUE(runAllAndWait());
    heartbeat.stop();
    std::printf("10,000-row run: %lld ms, %d beats, worst lateness %lld ms, %d beats more than 50 ms late\n",
                static_cast<long long>(clock.elapsed()), beats, static_cast<long long>(worstLate), over50);
    EXPECT_LT(worstLate, 1000);
}

// Projects: saved and opened through the window, dirty marker cleared by a save.
TEST(MainWindowProjects, SaveThenOpenRoundTrips) {
    blobbench::test::TempDir dir;
    blobbench::MainWindow window;
    window.files()->setSuppressUnsavedPrompt(true);
    const QString path = QString::fromStdString(dir.file("study.blobbench.json"));
    ASSERT_TRUE(window.files()->saveProjectTo(path));
    EXPECT_TRUE(QFileInfo::exists(path));
    EXPECT_TRUE(window.windowTitle().startsWith(QStringLiteral("study.blobbench.json - ")));
    blobbench::MainWindow other;
    other.files()->setSuppressUnsavedPrompt(true);
    ASSERT_TRUE(other.files()->openProjectFile(path));
    EXPECT_EQ(other.windowFilePath(), path);
    // A broken file is refused with a message, and the open project stays.
    blobbench::test::writeFile(dir.path() / "broken.blobbench.json", "{\"formatVersion\": ");
    EXPECT_FALSE(other.files()->openProjectFile(QString::fromStdString(dir.file("broken.blobbench.json"))));
    EXPECT_EQ(other.windowFilePath(), path);
}
