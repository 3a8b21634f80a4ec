// The window with a saved project (#30): a reopened project's chart, the status line after a run,
// the unsaved-changes question. On SQLite, offscreen.
#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTimer>

#include "GuiTestSupport.h"
#include "support/TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/ResultsModel.h"

using namespace blobbench;
using blobbench::test::TempDir;
using blobbench::test::waitUntil;

namespace {

constexpr int kRunTimeoutMs = 120000;

class ProjectWindowTest : public ::testing::Test {
protected:
    void SetUp() override {
        databasePath = QString::fromStdString(dir.file("reference.sqlite"));
        test::prepareSmallDataset(databasePath, 300);
        window = makeWindow(defaultProject(databasePath));
    }

    static std::unique_ptr<MainWindow> makeWindow(Project project) {
        auto* document = new ProjectDocument;
        document->reset(std::move(project));
        auto made = std::make_unique<MainWindow>(document);
        document->setParent(made.get());
        made->files()->setSuppressUnsavedPrompt(true);
        made->resize(1280, 860);
        made->show();
        return made;
    }

    bool runOneAndWait(MainWindow& w) {
        w.setRepetitions(1);
        w.scenarios()->setCurrentIndex(0);
        QSignalSpy finished(&w, &MainWindow::runFinished);
        w.runCurrent();
        return (finished.count() > 0 || finished.wait(kRunTimeoutMs)) && finished.at(0).at(0).toBool();
    }

    TempDir dir;
    QString databasePath;
    std::unique_ptr<MainWindow> window;
};

// The axis titles the chart's scene draws now (Qt Charts draws each as a text item).
QStringList drawnAxisTitles(SampleChart* chart) {
    auto* view = chart->widget()->findChild<QChartView*>();
    if (view == nullptr)
        return {QStringLiteral("(no chart view)")};
    QStringList out;
    for (QGraphicsItem* item : view->scene()->items()) {
        auto* text = dynamic_cast<QGraphicsTextItem*>(item);
        if (text == nullptr || !text->isVisible())
            continue;
        const QString t = text->toPlainText();
        if (t.startsWith(QStringLiteral("Elapsed time (")) || t.startsWith(QStringLiteral("Content bytes")) ||
            t.startsWith(QStringLiteral("Bytes ")))
            out << t;
    }
    return out;
}

}  // namespace

// #30 item 6: after reopening a saved project with runs, the chart drew a second axis set over its
// own: reproduced when the project is opened with another chart tab in front.
TEST_F(ProjectWindowTest, AReopenedProjectsChartDrawsOneAxisSet) {
    ASSERT_TRUE(runOneAndWait(*window));
    const QString path = QString::fromStdString(dir.file("study.blobbench.json"));
    ASSERT_TRUE(window->files()->saveProjectTo(path));

    auto other = makeWindow(defaultProject(databasePath));
    ASSERT_TRUE(other->files()->openProjectFile(path));
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QCoreApplication::processEvents();
    SampleChart* chart = other->chart(ChartKind::TimeVsBytes);
    ASSERT_GT(chart->pointCount(), 0);
    const QStringList titles = drawnAxisTitles(chart);
    EXPECT_EQ(titles.size(), 2) << titles.join(QStringLiteral(" | ")).toStdString();
    auto* view = chart->widget()->findChild<QChartView*>();
    EXPECT_EQ(view->chart()->axes().size(), 2);

    // Reopened in the window that saved it, with another chart tab in front, then this one again.
    window->showChart(ChartKind::Phases);
    ASSERT_TRUE(window->files()->openProjectFile(path));
    window->showChart(ChartKind::TimeVsBytes);
    // One pass of the event loop, not the deferred deletes: the axes removed by a rebuild left their
    // titles and labels drawn until Qt Charts deleted them (a second set over the new one).
    QCoreApplication::processEvents();
    const QStringList again = drawnAxisTitles(window->chart(ChartKind::TimeVsBytes));
    EXPECT_EQ(again.size(), 2) << again.join(QStringLiteral(" | ")).toStdString();
}

// #30 item 8: "Stopped", "Failed", "Done: ..." speak of the last run, not of another project or
// connection.
TEST_F(ProjectWindowTest, TheStatusLineForgetsTheLastRunOnAnotherConnectionOrProject) {
    ASSERT_TRUE(runOneAndWait(*window));
    auto* status = window->findChild<QLabel*>(QStringLiteral("runStatus"));
    ASSERT_NE(status, nullptr);
    EXPECT_TRUE(status->text().startsWith(QStringLiteral("Done"))) << status->text().toStdString();
    ConnectionProfile second = window->document()->project().connections.front();
    second.name = QStringLiteral("Another file");
    second.target = QString::fromStdString(dir.file("other.sqlite"));
    const int index = window->document()->addConnection(second);
    window->document()->setCurrentConnection(index);
    EXPECT_EQ(status->text(), QStringLiteral("Ready"));

    window->document()->setCurrentConnection(0);
    ASSERT_TRUE(runOneAndWait(*window));
    EXPECT_TRUE(status->text().startsWith(QStringLiteral("Done"))) << status->text().toStdString();
    window->files()->newProject();
    EXPECT_EQ(status->text(), QStringLiteral("Ready"));
}

// #30 item 8: the unsaved-changes question said "measured runs included" with none measured.
TEST_F(ProjectWindowTest, TheUnsavedChangesQuestionNamesRunsOnlyWhenThereAreSome) {
    window->files()->setSuppressUnsavedPrompt(false);
    window->document()->setParameter(QStringLiteral("sqlite"), QStringLiteral("cache_size"), QStringLiteral("4000"));
    ASSERT_TRUE(window->document()->isDirty());
    QString asked;
    const auto ask = [&] {
        asked.clear();
        QTimer poll;
        QObject::connect(&poll, &QTimer::timeout, [&] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                asked = box->text();
                box->button(QMessageBox::Cancel)->click();
            }
        });
        poll.start(10);
        EXPECT_FALSE(window->files()->maybeKeepChanges());  // cancelled: the project stays
    };
    ask();
    EXPECT_FALSE(asked.isEmpty());
    EXPECT_TRUE(asked.contains(QStringLiteral("no new measured runs"))) << asked.toStdString();
    EXPECT_FALSE(asked.contains(QStringLiteral("included"))) << asked.toStdString();

    ASSERT_TRUE(runOneAndWait(*window));
    ask();
    EXPECT_TRUE(asked.contains(QStringLiteral("1 measured run"))) << asked.toStdString();

    // Saved: the run is no longer unsaved.
    const QString path = QString::fromStdString(dir.file("saved.blobbench.json"));
    ASSERT_TRUE(window->files()->saveProjectTo(path));
    window->document()->setParameter(QStringLiteral("sqlite"), QStringLiteral("cache_size"), QStringLiteral("8000"));
    ask();
    EXPECT_TRUE(asked.contains(QStringLiteral("no new measured runs"))) << asked.toStdString();
    window->files()->setSuppressUnsavedPrompt(true);
}

// #30 item 2: "Test read only BLOB IDs" shares its statement with "Test read all BLOBs"; an engine
// switch took the all-BLOBs counterpart and the scenario read the content on the other engine. No
// server is needed: the switch translates the scenarios before anything connects (to port 1 here).
TEST_F(ProjectWindowTest, AScenariosFetchModeSurvivesEngineSwitches) {
    const auto idsScenario = [&]() -> const ScenarioDef* {
        for (const ScenarioDef& s : window->document()->project().scenarios) {
            if (s.title == QStringLiteral("Test read only BLOB IDs"))
                return &s;
        }
        return nullptr;
    };
    ASSERT_NE(idsScenario(), nullptr);
    ASSERT_EQ(idsScenario()->fetch, QStringLiteral("ids-only"));
    ConnectionProfile firebird;
    firebird.name = QStringLiteral("Firebird nowhere");
    firebird.engine = QStringLiteral("firebird");
    firebird.target = QStringLiteral("inet://127.0.0.1:1//nowhere.fdb");
    firebird.useWireTap = false;
    ConnectionProfile postgres;
    postgres.name = QStringLiteral("PostgreSQL nowhere");
    postgres.engine = QStringLiteral("postgres");
    postgres.target = QStringLiteral("host=127.0.0.1 port=1 dbname=x");
    postgres.useWireTap = false;
    ProjectDocument* document = window->document();
    const int fb = document->addConnection(firebird);
    const int pg = document->addConnection(postgres);
    for (int index : {fb, pg, 0, pg, fb}) {
        document->setCurrentConnection(index);
        const ScenarioDef* ids = idsScenario();
        ASSERT_NE(ids, nullptr);
        EXPECT_EQ(ids->fetch, QStringLiteral("ids-only"))
            << "on " << document->project().connections[index].engine.toStdString();
        EXPECT_EQ(ids->toScenario().fetch, FetchMode::IdsOnly);
    }
    // The all-BLOBs scenario of the same statement keeps reading the content.
    for (const ScenarioDef& s : document->project().scenarios) {
        if (s.title == QStringLiteral("Test read all BLOBs")) {
            EXPECT_EQ(s.fetch, QStringLiteral("content"));
        }
    }
}

// #30 item 8: the connection box said "postgres:postgresql://..." (and the password as typed in
// the URI); now the masked label, the engine named once.
TEST_F(ProjectWindowTest, APostgresUriConnectionIsShownOnceMaskedInTheConnectionBox) {
    ConnectionProfile postgres;
    postgres.name = QStringLiteral("PostgreSQL by URI");
    postgres.engine = QStringLiteral("postgres");
    postgres.target = QStringLiteral("postgresql://role:Pw7secret@127.0.0.1:1/x");
    postgres.useWireTap = false;
    const int index = window->document()->addConnection(postgres);
    auto* box = window->findChild<QComboBox*>(QStringLiteral("connections"));
    ASSERT_NE(box, nullptr);
    const QString tip = box->itemData(index, Qt::ToolTipRole).toString();
    EXPECT_EQ(tip, QStringLiteral("postgresql://role:***@127.0.0.1:1/x"));
    EXPECT_FALSE(tip.contains(QStringLiteral("Pw7")));
}

// #30 item 3: runs can leave the results and charts by connection, or all at once ("Clear the
// charts"), while the history keeps every one of them; a new run on a hidden connection shows.
TEST_F(ProjectWindowTest, ConnectionsCanBeHiddenFromTheChartsWithoutTouchingTheHistory) {
    const QString otherPath = QString::fromStdString(dir.file("other.sqlite"));
    test::prepareSmallDataset(otherPath, 300);
    ConnectionProfile second = window->document()->project().connections.front();
    second.name = QStringLiteral("Another file");
    second.target = QStringLiteral("sqlite:") + otherPath;
    ASSERT_TRUE(runOneAndWait(*window));
    window->document()->setCurrentConnection(window->document()->addConnection(second));
    ASSERT_TRUE(runOneAndWait(*window));
    ASSERT_EQ(window->document()->project().history.size(), 2u);
    ASSERT_EQ(window->resultsModel()->rowCount(), 2);
    const std::string first = window->document()->project().history.front().samples.front().connection;
    SampleChart* chart = window->chart(ChartKind::TimeVsBytes);
    const auto names = [&] { return chart->seriesNames().join(QLatin1Char('|')); };
    window->flushCharts();
    // A series names its connection by the profile's name ("SQLite (embedded, reference data)").
    const QString firstName = window->document()->project().connections.front().name;
    ASSERT_TRUE(names().contains(firstName)) << names().toStdString();
    EXPECT_FALSE(names().contains(QString::fromStdString(first))) << "not by its connection string";

    auto* menu = window->findChild<QMenu*>(QStringLiteral("chartConnectionsMenu"));
    ASSERT_NE(menu, nullptr);
    emit menu->aboutToShow();
    QAction* hideFirst = nullptr;
    for (QAction* a : menu->actions()) {
        if (a->data().toString() == QString::fromStdString(first))
            hideFirst = a;
    }
    ASSERT_NE(hideFirst, nullptr);
    EXPECT_TRUE(hideFirst->isChecked());
    hideFirst->setChecked(false);
    EXPECT_EQ(window->resultsModel()->rowCount(), 1);
    EXPECT_FALSE(names().contains(firstName)) << names().toStdString();
    EXPECT_EQ(window->document()->project().history.size(), 2u);

    emit menu->aboutToShow();
    auto* clear = menu->findChild<QAction*>(QStringLiteral("clearChartsAction"));
    ASSERT_NE(clear, nullptr);
    clear->trigger();
    EXPECT_EQ(window->resultsModel()->rowCount(), 0);
    EXPECT_TRUE(chart->seriesNames().isEmpty()) << names().toStdString();
    EXPECT_EQ(window->document()->project().history.size(), 2u);

    // A new run shows, on the connection hidden before too.
    window->document()->setCurrentConnection(0);
    ASSERT_TRUE(runOneAndWait(*window));
    EXPECT_EQ(window->resultsModel()->rowCount(), 1);

    emit menu->aboutToShow();
    auto* all = menu->findChild<QAction*>(QStringLiteral("showAllRunsAction"));
    ASSERT_NE(all, nullptr);
    all->trigger();
    EXPECT_EQ(window->resultsModel()->rowCount(), 3);

    // A renamed connection: its series' names follow at once.
    ConnectionProfile renamed = window->document()->project().connections.front();
    renamed.name = QStringLiteral("Reference file");
    window->document()->setConnection(0, renamed);
    window->flushCharts();
    EXPECT_TRUE(names().contains(QStringLiteral("Reference file"))) << names().toStdString();
    EXPECT_FALSE(names().contains(firstName)) << names().toStdString();
}
