// The window with a real user's project (#30 "Done means"; label integration): one project holds
// SQLite, PostgreSQL 15 and Firebird 5.0.4 runs at several settings, measured on the real servers.
// The series and History name each run by its connection and then only by what differs among that
// connection's runs, in full; the ids-only scenario reads no content on any engine; What-if's check
// measures the very set it predicted and agrees within 10% at 20 ms; the reopened project's chart
// has one axis set; F1 shows the guide.
#include <gtest/gtest.h>

#include <QChartView>
#include <QFontMetrics>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>
#include <set>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "support/TestSupport.h"
#include "ui/AdviceModel.h"
#include "ui/Charts.h"
#include "ui/HistoryPanel.h"
#include "ui/MainWindow.h"
#include "ui/ParameterPanel.h"
#include "ui/UserGuide.h"
#include "ui/WhatIfPanel.h"

using namespace blobbench;
using blobbench::test::TempDir;

namespace {

// A cell of the history (its model), as the view shows it.
QString historyText(const blobbench::HistoryPanel* panel, int row, int column, int role = Qt::DisplayRole) {
    return panel->model()->index(row, column).data(role).toString();
}

const QString kSqliteName = QStringLiteral("SQLite file");
const QString kPostgresName = QStringLiteral("PostgreSQL 15");
const QString kFirebirdName = QStringLiteral("Firebird 5.0.4");
const QStringList kScenarios = {QStringLiteral("Test read short BLOBs"), QStringLiteral("Test read VARCHAR(8191)"),
                                QStringLiteral("Test read only BLOB IDs")};

// The axis titles the chart's scene draws now (Qt Charts draws each as a text item).
int drawnAxisTitles(SampleChart* chart) {
    auto* view = chart->widget()->findChild<QChartView*>();
    int count = 0;
    for (QGraphicsItem* item : view->scene()->items()) {
        auto* text = dynamic_cast<QGraphicsTextItem*>(item);
        if (text == nullptr || !text->isVisible())
            continue;
        const QString t = text->toPlainText();
        if (t.startsWith(QStringLiteral("Elapsed time (")) || t.startsWith(QStringLiteral("Content bytes")) ||
            t.startsWith(QStringLiteral("Bytes ")))
            ++count;
    }
    return count;
}

// The conninfo without its password, which goes to PGPASSWORD: a project never saves one.
std::string withoutPassword(const std::string& conninfo) {
    const QRegularExpression uri(QStringLiteral("^(postgres(?:ql)?://[^:@/]+):([^@]*)@"));
    const QRegularExpression keyword(QStringLiteral("\\bpassword\\s*=\\s*(\\S+)"));
    QString text = QString::fromStdString(conninfo);
    if (const auto m = uri.match(text); m.hasMatch()) {
        qputenv("PGPASSWORD", m.captured(2).toUtf8());
        text.replace(m.capturedStart(), m.capturedLength(), m.captured(1) + QLatin1Char('@'));
    } else if (const auto k = keyword.match(text); k.hasMatch()) {
        qputenv("PGPASSWORD", k.captured(1).toUtf8());
        text.remove(k.capturedStart(), k.capturedLength());
    }
    return text.toStdString();
}

Project threeEngineProject(const QString& sqlitePath, const std::string& conninfo, const std::string& fbDatabase,
                           const std::string& fbUser, const std::string& fbClient) {
    Project project = defaultProject(sqlitePath);
    project.connections.front().name = kSqliteName;
    for (ScenarioDef& s : project.scenarios)
        s.enabled = kScenarios.contains(s.title);
    ConnectionProfile pg;
    pg.name = kPostgresName;
    pg.engine = QStringLiteral("postgres");
    pg.target = QString::fromStdString(withoutPassword(conninfo));
    ConnectionProfile fb;
    fb.name = kFirebirdName;
    fb.engine = QStringLiteral("firebird");
    fb.target = QString::fromStdString(fbDatabase);
    fb.user = QString::fromStdString(fbUser);
    fb.clientLibrary = QString::fromStdString(fbClient);
    project.connections.push_back(pg);
    project.connections.push_back(fb);
    project.currentConnection = 0;
    return project;
}

}  // namespace

TEST(GuiIntegrationProject, SqlitePostgresAndFirebird5RunsAtSeveralSettingsInOneProject) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    test::ensurePostgresDataset(conninfo);
    ASSERT_EQ(test::ensureFirebirdData(database, user, password, client), "");
    qputenv("ISC_PASSWORD", QByteArray::fromStdString(password));
    TempDir dir;
    const QString sqlitePath = QString::fromStdString(dir.file("reference.sqlite"));
    test::prepareSmallDataset(sqlitePath, 300);
    auto* document = new ProjectDocument;
    document->reset(threeEngineProject(sqlitePath, conninfo, database, user, client));
    MainWindow window(document);
    test::adoptAndShow(window, document, QSize(1366, 768));
    window.setRepetitions(2);

    // SQLite once; PostgreSQL in text and binary format; Firebird 5 with inline BLOBs 0 and 65535.
    const auto runAllOn = [&](int connection, const QString& engine, const QString& id, const QString& value) {
        document->setCurrentConnection(connection);
        if (!id.isEmpty()) {
            window.parameterPanel()->setValue(id, value);  // as the user sets it
            EXPECT_EQ(window.parameterPanel()->value(id), value) << engine.toStdString();
        }
        const bool finished = test::runAndWait(window, [&] { window.runAll(); });
        EXPECT_TRUE(finished);
        EXPECT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
        return finished && window.errorText().isEmpty();
    };
    ASSERT_TRUE(runAllOn(0, {}, {}, {}));
    ASSERT_TRUE(runAllOn(1, QStringLiteral("postgres"), QStringLiteral("result_format"), QStringLiteral("text")));
    ASSERT_TRUE(runAllOn(1, QStringLiteral("postgres"), QStringLiteral("result_format"), QStringLiteral("binary")));
    ASSERT_TRUE(runAllOn(2, QStringLiteral("firebird"), QStringLiteral("max_inline_blob_size"), QStringLiteral("0")));
    ASSERT_TRUE(
        runAllOn(2, QStringLiteral("firebird"), QStringLiteral("max_inline_blob_size"), QStringLiteral("65535")));
    const auto& history = document->project().history;
    ASSERT_EQ(history.size(), 5u);

    // Every sample complete; the ids-only scenario read ids, never content, on every engine.
    std::set<std::string> idsEngines;
    for (const RunRecord& run : history) {
        ASSERT_EQ(run.samples.size(), 6u) << "3 scenarios x 2 repetitions on " << run.connectionName.toStdString();
        for (const Sample& s : run.samples) {
            ASSERT_EQ(s.status, SampleStatus::Complete) << s.scenarioTitle << ": " << s.error;
            if (s.scenarioTitle != "Test read only BLOB IDs")
                continue;
            idsEngines.insert(s.engine);
            EXPECT_GT(s.rows, 0u) << s.engine;
            if (s.engine != "postgres") {
                EXPECT_EQ(s.contentBytes, 0u) << "ids only on " << s.engine;
                continue;
            }
            // PostgreSQL sends bytea inside the row: what arrived is counted, and ids-only is said to
            // be not in effect, never faked as 0 bytes.
            EXPECT_GT(s.contentBytes, 0u);
            bool notInEffect = false;
            for (const ParameterEffect& e : s.effects)
                notInEffect = notInEffect || (e.id == "ids_only" && !e.inEffect);
            EXPECT_TRUE(notInEffect) << "PostgreSQL's ids-only reported as not in effect";
        }
    }
    EXPECT_EQ(idsEngines, (std::set<std::string>{"sqlite", "postgres", "firebird"}));

    // The series: the connection by its name, then only the setting that differs on it, in full.
    window.flushCharts();
    const QStringList names = window.chart(ChartKind::TimeVsBytes)->seriesNames();
    const QString all = names.join(QLatin1Char('|'));
    EXPECT_EQ(names.size(), 15) << all.toStdString();
    for (const QString& expected : {QStringLiteral("Test read short BLOBs · SQLite file"),
                                    QStringLiteral("Test read short BLOBs · PostgreSQL 15 · format text"),
                                    QStringLiteral("Test read short BLOBs · PostgreSQL 15 · format binary"),
                                    QStringLiteral("Test read short BLOBs · Firebird 5.0.4 · inline 0"),
                                    QStringLiteral("Test read short BLOBs · Firebird 5.0.4 · inline 65535"),
                                    QStringLiteral("Test read only BLOB IDs · Firebird 5.0.4 · inline 65535")}) {
        EXPECT_TRUE(names.contains(expected)) << expected.toStdString() << " not in " << all.toStdString();
    }

    // History: the connection column by name, the settings column with the differing setting only,
    // wide enough to show it whole.
    window.showHistory();
    const HistoryPanel* historyPanel = window.historyPanel();
    QTreeView* view = historyPanel->view();
    ASSERT_EQ(historyPanel->model()->rowCount(), 5);
    const QStringList settings = {QStringLiteral("-"), QStringLiteral("format text"), QStringLiteral("format binary"),
                                  QStringLiteral("inline 0"), QStringLiteral("inline 65535")};
    const QStringList connections = {kSqliteName, kPostgresName, kPostgresName, kFirebirdName, kFirebirdName};
    const QFontMetrics metrics(view->font());
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(historyText(historyPanel, i, HistoryModel::Connection), connections[i]);
        EXPECT_EQ(historyText(historyPanel, i, HistoryModel::Settings), settings[i]);
        EXPECT_LE(metrics.horizontalAdvance(historyText(historyPanel, i, HistoryModel::Settings)),
                  view->columnWidth(HistoryModel::Settings))
            << "the Settings column cuts " << historyText(historyPanel, i, HistoryModel::Settings).toStdString();
    }

    // What-if at 20 ms one way: VARCHAR's sets are one connection and inline size each; the check of
    // Firebird's current set measures that set, on Firebird, and agrees with its prediction.
    window.showWhatIf();
    WhatIfPanel* panel = window.whatIfPanel();
    panel->setLatency(20);
    panel->flushAdvice();
    int scenarioRow = -1;
    for (std::size_t i = 0; i < panel->advice().size(); ++i) {
        if (panel->advice()[i].scenarioId == "varchar")
            scenarioRow = static_cast<int>(i);
    }
    ASSERT_GE(scenarioRow, 0);
    const auto& ranked = panel->advice()[static_cast<std::size_t>(scenarioRow)].ranked;
    const std::string fbLabel = history.back().samples.front().connection;
    int setRow = -1;
    std::set<std::string> setConnections;
    for (std::size_t j = 0; j < ranked.size(); ++j) {
        setConnections.insert(ranked[j].connection);
        if (ranked[j].current)
            setRow = static_cast<int>(j);
    }
    EXPECT_EQ(ranked.size(), 4u) << "PostgreSQL text and binary, Firebird inline 0 and 65535 (SQLite has no wire)";
    EXPECT_EQ(setConnections.size(), 2u);
    ASSERT_GE(setRow, 0);
    const ParameterSetAdvice set = ranked[static_cast<std::size_t>(setRow)];  // a copy: the measure redoes the advice
    ASSERT_EQ(set.connection, fbLabel);
    ASSERT_EQ(set.settings.at("max_inline_blob_size"), "65535");
    const AdviceModel* advice = panel->adviceModel();
    const QModelIndex row = advice->index(setRow, 0, advice->index(scenarioRow, 0));
    ASSERT_TRUE(row.isValid());
    panel->adviceTree()->setCurrentIndex(row);
    ASSERT_TRUE(test::runAndWait(window, [&] { panel->measureButton()->click(); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    const RunRecord& check = document->project().history.back();
    ASSERT_EQ(check.samples.size(), 2u);
    for (const Sample& s : check.samples) {
        EXPECT_EQ(s.connection, fbLabel);
        EXPECT_EQ(s.scenarioId, "varchar");
        EXPECT_EQ(parameterSetKey(s).settings, set.settings) << "the set's own settings, every one";
    }
    const QVariant error = panel->checkLabel()->property("errorPercent");
    ASSERT_TRUE(error.isValid()) << panel->checkLabel()->text().toStdString();
    std::printf("three engines, measure at this link: %s\n", qPrintable(panel->checkLabel()->text()));
    EXPECT_LT(std::abs(error.toDouble()), 10.0) << panel->checkLabel()->text().toStdString();
    // The check's series: the setting under study first, then how it was measured, in a few words.
    window.flushCharts();
    const QStringList checked = window.chart(ChartKind::TimeVsBytes)->seriesNames();
    EXPECT_TRUE(checked.contains(
        QStringLiteral("Test read VARCHAR(8191) · Firebird 5.0.4 · inline 65535 · link 20 ms · counting relay")))
        << checked.join(QLatin1Char('|')).toStdString();

    // Saved, reopened in a new window: one axis set on the chart; the exported PNG is written.
    const QString path = QString::fromStdString(dir.file("three-engines.blobbench.json"));
    QSignalSpy saveFailed(window.files(), &DocumentController::failed);
    ASSERT_TRUE(window.files()->saveProjectTo(path))
        << (saveFailed.isEmpty() ? std::string() : saveFailed.front().front().toString().toStdString());
    auto* reopenedDocument = new ProjectDocument;
    reopenedDocument->reset(defaultProject(sqlitePath));
    MainWindow reopened(reopenedDocument);
    test::adoptAndShow(reopened, reopenedDocument, QSize(1366, 768));
    ASSERT_TRUE(reopened.files()->openProjectFile(path));
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QCoreApplication::processEvents();
    EXPECT_EQ(reopenedDocument->project().history.size(), 6u);
    SampleChart* chart = reopened.chart(ChartKind::TimeVsBytes);
    ASSERT_GT(chart->pointCount(), 0);
    EXPECT_EQ(drawnAxisTitles(chart), 2);
    EXPECT_EQ(chart->widget()->findChild<QChartView*>()->chart()->axes().size(), 2);
    const QString png = QString::fromStdString(dir.file("chart.png"));
    exportChartPng(chart->widget(), png);
    EXPECT_FALSE(QImage(png).isNull());
    if (const QString keep = qEnvironmentVariable("BLOBBENCH_PROJECT_SHOT"); !keep.isEmpty()) {
        QFile::copy(path, keep);  // the project, to look at in the window, and its exported chart
        QFile::copy(png, keep + QStringLiteral(".png"));
    }

    // F1: the guide, inside the application.
    reopened.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&reopened));
    QTest::keyClick(&reopened, Qt::Key_F1);
    auto* help = reopened.findChild<UserGuideWindow*>(QStringLiteral("userGuideWindow"));
    ASSERT_NE(help, nullptr) << "F1 opened no help window";
    EXPECT_TRUE(help->isVisible());
    EXPECT_EQ(help->headings().value(0), QStringLiteral("BlobBench user guide"));
    qunsetenv("ISC_PASSWORD");
    qunsetenv("PGPASSWORD");
}
