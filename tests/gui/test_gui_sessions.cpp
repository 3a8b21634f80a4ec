// Many sessions in the window (issue #25): sessions is a tunable in the parameter panel and the
// sweep editor, a run of many sessions fills the Load tab (throughput and p99 against sessions, the
// latency percentiles), shows its live figures, keeps its points in the history and the project file,
// exports them, and Stop ends every session within the cancel grace with what they measured kept.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>

#include "GuiTestSupport.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"
#include "ui/Charts.h"
#include "ui/MainWindow.h"
#include "ui/ParameterPanel.h"
#include "ui/SweepEditor.h"
#include "ui/WhatIfPanel.h"

using namespace blobbench;
using blobbench::test::TempDir;
using blobbench::test::waitUntil;

namespace {

constexpr int kRunTimeoutMs = 180000;

class SessionsWindow : public ::testing::Test {
protected:
    void SetUp() override {
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, QString::fromStdString(dir.file("settings")));
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, QString::fromStdString(dir.file("settings")));
        databasePath = QString::fromStdString(dir.file("reference.sqlite"));
        test::prepareSmallDataset(databasePath, 300);
        document = new ProjectDocument;
        Project p = defaultProject(databasePath);
        for (ScenarioDef& s : p.scenarios)
            s.enabled = s.id == QLatin1String("short-blobs") || s.id == QLatin1String("varchar");
        document->reset(p);
        window = std::make_unique<MainWindow>(document);
        document->setParent(window.get());
        window->setDefaultDataset(databasePath, 300);
        window->files()->setSuppressUnsavedPrompt(true);
        window->resize(1366, 768);
        window->show();
    }
    void TearDown() override { window.reset(); }
    bool waitForRun(const std::function<void()>& start) {
        QSignalSpy finished(window.get(), &MainWindow::runFinished);
        start();
        return finished.count() > 0 || finished.wait(kRunTimeoutMs);
    }
    TempDir dir;
    QString databasePath;
    ProjectDocument* document = nullptr;
    std::unique_ptr<MainWindow> window;
};

}  // namespace

TEST_F(SessionsWindow, ASweepOfSessionsDrawsThroughputAndP99AgainstSessionsAndIsKept) {
    // The load tunables are in the parameter panel like any other.
    EXPECT_NE(window->findChild<QWidget*>(QStringLiteral("param_sessions")), nullptr);
    EXPECT_NE(window->findChild<QWidget*>(QStringLiteral("param_load_duration_s")), nullptr);

    SweepEditor* editor = window->sweepEditor();
    editor->newSweep();
    const int sessions = editor->parameterBox()->findData(QStringLiteral("sessions"));
    ASSERT_GE(sessions, 0) << "sessions is not offered as a sweep axis";
    editor->parameterBox()->setCurrentIndex(sessions);
    emit editor->parameterBox()->activated(sessions);
    editor->listMode()->setChecked(true);
    editor->valuesEdit()->setText(QStringLiteral("1, 2, 4"));
    emit editor->valuesEdit()->textEdited(editor->valuesEdit()->text());
    editor->repetitionsBox()->setValue(2);
    ASSERT_TRUE(waitForRun([&] { editor->runButton()->click(); }));
    EXPECT_TRUE(window->errorText().isEmpty()) << window->errorText().toStdString();

    ASSERT_EQ(document->project().history.size(), 1U);
    const RunRecord& run = document->project().history.front();
    EXPECT_EQ(run.outcome, QStringLiteral("complete"));
    EXPECT_TRUE(run.samples.empty());
    ASSERT_EQ(run.loads.size(), 9U);  // 3 points x (2 scenarios + both together)
    for (const LoadPoint& p : run.loads) {
        EXPECT_EQ(std::to_string(p.sessions), p.point.at("sessions"));
        const std::uint64_t each = p.scenarioId == LoadPoint::kAllScenarios ? 4 : 2;
        EXPECT_EQ(p.combined.statements, each * static_cast<std::uint64_t>(p.sessions)) << p.scenarioId;
    }

    LoadChart* chart = window->loadChart();
    ASSERT_NE(chart, nullptr);
    EXPECT_EQ(window->findChild<QTabWidget*>(QStringLiteral("charts"))->currentWidget(), chart->widget())
        << "a run of many sessions shows the Load tab";
    EXPECT_EQ(chart->pointCount(), 6);  // a point a scenario and number of sessions
    EXPECT_EQ(chart->seriesNames().size(), 2);
    EXPECT_EQ(chart->xAxisTitle(), QStringLiteral("Sessions at once"));
    ASSERT_EQ(chart->yAxisTitles().size(), 2);
    EXPECT_EQ(chart->yAxisTitles()[0], QStringLiteral("Stmt/s"));  // short: it fits a laptop's chart strip
    EXPECT_TRUE(chart->yAxisTitles()[1].startsWith(QStringLiteral("p99 ms")));
    for (const QPointF& p : chart->throughputPoints())
        EXPECT_GT(p.y(), 0);
    for (const QPointF& p : chart->p99Points())
        EXPECT_GT(p.y(), 0);
    chart->setView(LoadView::Percentiles);
    EXPECT_EQ(chart->pointCount(), 6);  // a curve a point
    EXPECT_TRUE(chart->xAxisLabels().contains(QStringLiteral("50%"))) << chart->xAxisLabels().join(u'|').toStdString();
    chart->setView(LoadView::Throughput);
    // The what-if predictor says what it cannot predict.
    EXPECT_TRUE(window->whatIfPanel()->statusText().contains(
        QStringLiteral("load point(s) of runs of many sessions not predicted")))
        << window->whatIfPanel()->statusText().toStdString();

    // Exports: the chart as PNG, the figures as CSV (a row a session and point, one for the point).
    window->showLoadChart();
    const QString png = QString::fromStdString(dir.file("load.png"));
    ASSERT_TRUE(window->exports()->exportChart(png, QSize(1200, 700)));
    EXPECT_FALSE(QImage(png).isNull());
    const QString csv = QString::fromStdString(dir.file("load.csv"));
    ASSERT_TRUE(window->exports()->exportLoadsCsv(csv));
    QFile file(csv);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    // header + for each point and of its 3 load points: its sessions and the combined row
    EXPECT_EQ(file.readAll().trimmed().split('\n').size(), 1 + 3 * (1 + 1) + 3 * (2 + 1) + 3 * (4 + 1));

    // Saved and opened again: the same points, the same chart.
    const QString path = QString::fromStdString(dir.file("sessions.blobbench.json"));
    ASSERT_TRUE(window->files()->saveProjectTo(path));
    const Project reread = loadProject(path);
    ASSERT_EQ(reread.history.size(), 1U);
    EXPECT_EQ(reread.history.front().loads.size(), 9U);
    document->reset(reread, path);
    EXPECT_EQ(window->loadChart()->pointCount(), 6);
}

TEST_F(SessionsWindow, StopEndsEverySessionAndKeepsWhatThePointMeasured) {
    // As a user sets them: the panel's Load: sessions and Load: duration.
    window->parameterPanel()->setValue(QStringLiteral("sessions"), QStringLiteral("3"));
    window->parameterPanel()->setValue(QStringLiteral("load_duration_s"), QStringLiteral("60"));
    EXPECT_EQ(document->project().parameters.at(QStringLiteral("sqlite")).at("sessions"), "3");
    QSignalSpy loads(document, &ProjectDocument::loadsAppended);
    window->runAll();
    ASSERT_TRUE(window->isRunning()) << window->errorText().toStdString();
    // Live: the last second's statements/s and p99 over every session.
    auto* status = window->findChild<QLabel*>(QStringLiteral("runStatus"));
    ASSERT_NE(status, nullptr);
    QStringList seen;
    ASSERT_TRUE(waitUntil(
        [&] {
            if (seen.isEmpty() || seen.back() != status->text())
                seen << status->text();
            return status->text().contains(QStringLiteral("statements/s"));
        },
        30000))
        << seen.join(QStringLiteral(" | ")).toStdString() << "\n"
        << window->logView()->toPlainText().toStdString();
    EXPECT_TRUE(status->text().startsWith(QStringLiteral("3 session(s): "))) << status->text().toStdString();
    EXPECT_TRUE(status->text().contains(QStringLiteral("p99"))) << status->text().toStdString();
    QElapsedTimer stopped;
    stopped.start();
    window->stop();
    ASSERT_TRUE(loads.count() > 0 || loads.wait(10000)) << "the stopped point's figures never came";
    EXPECT_LT(stopped.elapsed(), 5000) << "the sessions ended " << stopped.elapsed() << " ms after Stop";
    const RunRecord& run = document->project().history.back();
    EXPECT_EQ(run.outcome, QStringLiteral("cancelled"));
    ASSERT_EQ(run.loads.size(), 3U);
    EXPECT_EQ(run.loads.front().sessions, 3);
    EXPECT_GT(run.loads.front().combined.statements, 0U);
    EXPECT_EQ(window->loadChart()->pointCount(), 2);
}
