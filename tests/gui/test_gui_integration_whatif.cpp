// The What-if dock against the real PostgreSQL server (label integration): a sweep of the fetch
// mode measured unshaped, the advisor's order at 20 ms one-way, and "Measure at this link" running
// one parameter set through the relay's link emulation, its error against the prediction within 5%;
// with PostgreSQL and Firebird 3 runs in one project, each set is one connection's and the check
// measures exactly the set it predicted.
#include <gtest/gtest.h>

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTreeWidget>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "engine/data/Dataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "support/TestSupport.h"
#include "ui/AdviceModel.h"
#include "ui/MainWindow.h"
#include "ui/WhatIfPanel.h"

using namespace blobbench;
using blobbench::test::TempDir;

TEST(GuiIntegrationWhatIf, PostgresAdviceAndMeasureAtThisLinkWithinFivePercent) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    test::ensurePostgresDataset(conninfo);
    TempDir dir;
    Project project = defaultProject(QString::fromStdString(dir.file("unused.sqlite")));
    ConnectionProfile pg;
    pg.name = QStringLiteral("PostgreSQL under test");
    pg.engine = QStringLiteral("postgres");
    pg.target = QString::fromStdString(conninfo);
    project.connections = {pg};
    project.currentConnection = 0;
    project.scenarios.clear();
    for (const Scenario& s : referenceSuite(Dialect::PostgreSQL)) {
        ScenarioDef def = ScenarioDef::fromScenario(s);
        def.enabled = s.id == "short-blobs";
        if (def.enabled)
            project.scenarios.push_back(def);
    }
    SweepDef sweep;
    sweep.name = QStringLiteral("fetch mode");
    sweep.axes = {
        SweepAxis{QStringLiteral("fetch_mode"), {QStringLiteral("single_row"), QStringLiteral("cursor")}, {}}};
    sweep.repetitions = 3;
    sweep.warmups = 1;
    project.sweeps = {sweep};
    auto* document = new ProjectDocument;
    document->reset(project);
    MainWindow window(document);
    test::adoptAndShow(window, document);
    window.showWhatIf();
    WhatIfPanel* panel = window.whatIfPanel();
    ASSERT_TRUE(panel->measureButton()->isEnabled()) << panel->measureButton()->toolTip().toStdString();

    ASSERT_TRUE(test::runAndWait(window, [&] { window.runSweep(0); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    ASSERT_TRUE(panel->predictableText().startsWith(QStringLiteral("6 sample(s) predictable")))
        << panel->predictableText().toStdString();

    // 20 ms each way (a reference link of the issue): one exchange beats a cursor's several.
    panel->setLatency(20);
    panel->flushAdvice();
    ASSERT_EQ(panel->advice().size(), 1u);
    const auto& ranked = panel->advice().front().ranked;
    ASSERT_EQ(ranked.size(), 2u);
    EXPECT_EQ(ranked[0].point.at("fetch_mode"), "single_row");
    EXPECT_EQ(ranked[1].point.at("fetch_mode"), "cursor");
    EXPECT_GT(ranked[1].predicted, ranked[0].predicted + std::chrono::milliseconds(80))
        << "the cursor's extra round trips cost 40 ms each";

    // Measure the cursor set at this link, through the relay.
    const AdviceModel* advice = panel->adviceModel();
    const QModelIndex cursorRow = advice->index(1, 0, advice->index(0, 0));
    ASSERT_TRUE(cursorRow.isValid());
    ASSERT_TRUE(cursorRow.data().toString().startsWith(QStringLiteral("cursor")));
    panel->adviceTree()->setCurrentIndex(cursorRow);
    window.setRepetitions(3);
    ASSERT_TRUE(test::runAndWait(window, [&] { panel->measureButton()->click(); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    const RunRecord& check = document->project().history.back();
    EXPECT_EQ(check.link, (LinkSettings{20, 20, 0, 0})) << "measured over the what-if link";
    EXPECT_EQ(document->project().current()->link, LinkSettings{}) << "the connection's own link is left as it was";
    ASSERT_FALSE(check.samples.empty());
    for (const Sample& s : check.samples) {
        EXPECT_EQ(s.parameters->at("fetch_mode"), "cursor") << "the set's own settings";
        EXPECT_TRUE(s.point.empty()) << "not a point of the sweep, which was measured unshaped";
        EXPECT_EQ(s.tap.method, "relay");
    }
    const QString text = panel->checkLabel()->text();
    const QVariant error = panel->checkLabel()->property("errorPercent");
    ASSERT_TRUE(error.isValid()) << text.toStdString();
    std::printf("measure at this link: %s\n", qPrintable(text));
    EXPECT_LT(std::abs(error.toDouble()), 5.0) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("measured"))) << text.toStdString();
}

// Issue #30 item 1: a project with runs of two engines. The advisor's sets are one connection's
// each, named by it; a set of another connection than the current one is not measured (it would be
// another experiment); on its own connection the check runs the set's own settings and agrees with
// the prediction within 10% at 20 ms one-way.
TEST(GuiIntegrationWhatIf, TwoEnginesAreTwoSetsAndTheCheckMeasuresTheSetItPredicted) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    test::ensurePostgresDataset(conninfo);
    test::ensureFirebirdData(database, user, password);
    qputenv("ISC_PASSWORD", QByteArray::fromStdString(password));
    TempDir dir;
    Project project = defaultProject(QString::fromStdString(dir.file("unused.sqlite")));
    ConnectionProfile pg;
    pg.name = QStringLiteral("PostgreSQL under test");
    pg.engine = QStringLiteral("postgres");
    pg.target = QString::fromStdString(conninfo);
    ConnectionProfile fb3;
    fb3.name = QStringLiteral("Firebird 3 under test");
    fb3.engine = QStringLiteral("firebird");
    fb3.target = QString::fromStdString(database);
    fb3.user = QString::fromStdString(user);
    project.connections = {pg, fb3};
    project.currentConnection = 0;
    project.scenarios.clear();
    for (const Scenario& s : referenceSuite(Dialect::PostgreSQL)) {
        if (s.id == "varchar")
            project.scenarios.push_back(ScenarioDef::fromScenario(s));
    }
    auto* document = new ProjectDocument;
    document->reset(project);
    MainWindow window(document);
    test::adoptAndShow(window, document);
    window.showWhatIf();
    WhatIfPanel* panel = window.whatIfPanel();
    window.setRepetitions(3);
    ASSERT_TRUE(test::runAndWait(window, [&] { window.runAll(); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    document->setCurrentConnection(1);
    ASSERT_TRUE(test::runAndWait(window, [&] { window.runAll(); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    const std::string pgLabel = document->project().connections[0].toSpec().label();
    const std::string fbLabel = document->project().connections[1].toSpec().label();

    panel->setLatency(20);
    panel->flushAdvice();
    ASSERT_EQ(panel->advice().size(), 1u);
    const auto& ranked = panel->advice().front().ranked;
    ASSERT_EQ(ranked.size(), 2u) << "one set per connection, never one of both";
    for (const ParameterSetAdvice& set : ranked) {
        EXPECT_EQ(set.samples, 3u);
        EXPECT_EQ(set.differing.at("connection"), set.connection);
        EXPECT_EQ(set.current, set.connection == fbLabel) << "the current connection's set";
    }
    // The rows name their connection.
    const AdviceModel* advice = panel->adviceModel();
    QModelIndex top = advice->index(0, 0);
    ASSERT_EQ(advice->rowCount(top), 2);
    QModelIndex pgRow, fbRow;
    for (int i = 0; i < 2; ++i) {
        const bool isPg = ranked[static_cast<std::size_t>(i)].connection == pgLabel;
        (isPg ? pgRow : fbRow) = advice->index(i, 0, top);
    }
    ASSERT_TRUE(pgRow.isValid() && fbRow.isValid());
    EXPECT_TRUE(pgRow.data().toString().contains(QStringLiteral("postgresql://")))
        << pgRow.data().toString().toStdString();
    EXPECT_TRUE(fbRow.data().toString().contains(QStringLiteral("firebird"))) << fbRow.data().toString().toStdString();

    // PostgreSQL's set while Firebird is current: refused, nothing run.
    const std::size_t runs = document->project().history.size();
    panel->adviceTree()->setCurrentIndex(pgRow);
    panel->measureButton()->click();
    EXPECT_FALSE(window.isRunning());
    EXPECT_EQ(document->project().history.size(), runs);
    EXPECT_TRUE(
        panel->checkLabel()->text().startsWith(QStringLiteral("Not measured: this parameter set was measured on")))
        << panel->checkLabel()->text().toStdString();

    // Firebird's own set: measured on Firebird with its settings, within 10% of the prediction.
    std::map<std::string, std::string> fbSettings;
    for (const ParameterSetAdvice& a : ranked) {
        if (a.connection == fbLabel)
            fbSettings = a.settings;
    }
    ASSERT_FALSE(fbSettings.empty());
    // A machine shared with other jobs (CI compiles the sanitizer builds beside these tests) can lengthen
    // one measurement by scheduling delays the prediction has no term for: a miss is measured again, up
    // to three times (each check is a run of its own in the history). A wrong prediction misses each time.
    QVariant error;
    const QVariant fbKey = fbRow.data(AdviceModel::kSetKeyRole);
    for (int attempt = 1; attempt <= 3 && (!error.isValid() || std::abs(error.toDouble()) >= 10.0); ++attempt) {
        panel->adviceTree()->setCurrentIndex(fbRow);
        ASSERT_TRUE(test::runAndWait(window, [&] { panel->measureButton()->click(); }));
        ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
        const RunRecord& check = document->project().history.back();
        ASSERT_EQ(check.samples.size(), 3u);
        for (const Sample& s : check.samples) {
            EXPECT_EQ(s.connection, fbLabel);
            EXPECT_EQ(s.scenarioId, "varchar");
            EXPECT_EQ(parameterSetKey(s).settings, fbSettings) << "the set's own settings, every one";
            EXPECT_EQ(s.tap.method, "relay");
        }
        error = panel->checkLabel()->property("errorPercent");
        ASSERT_TRUE(error.isValid()) << panel->checkLabel()->text().toStdString();
        std::printf("two engines, measure at this link (attempt %d): %s\n", attempt,
                    qPrintable(panel->checkLabel()->text()));
        // The same set's row, as the ranking after the check shows it (the tree is filled anew).
        fbRow = QModelIndex();
        top = advice->index(0, 0);
        for (int i = 0; top.isValid() && i < advice->rowCount(top); ++i) {
            if (advice->index(i, 0, top).data(AdviceModel::kSetKeyRole) == fbKey)
                fbRow = advice->index(i, 0, top);
        }
        ASSERT_TRUE(fbRow.isValid());
    }
    EXPECT_LT(std::abs(error.toDouble()), 10.0) << panel->checkLabel()->text().toStdString();
    qunsetenv("ISC_PASSWORD");
}
