// The What-if dock against the real PostgreSQL server (label integration): a sweep of the fetch
// mode measured unshaped, the advisor's order at 20 ms one-way, and "Measure at this link" running
// one parameter set through the relay's link emulation, its error against the prediction within 5%.
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
    QTreeWidgetItem* cursorRow = panel->adviceTree()->topLevelItem(0)->child(1);
    ASSERT_NE(cursorRow, nullptr);
    ASSERT_TRUE(cursorRow->text(0).startsWith(QStringLiteral("cursor")));
    panel->adviceTree()->setCurrentItem(cursorRow);
    window.setRepetitions(3);
    ASSERT_TRUE(test::runAndWait(window, [&] { panel->measureButton()->click(); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    const RunRecord& check = document->project().history.back();
    EXPECT_EQ(check.link, (LinkSettings{20, 20, 0, 0})) << "measured over the what-if link";
    EXPECT_EQ(document->project().current()->link, LinkSettings{}) << "the connection's own link is left as it was";
    ASSERT_FALSE(check.samples.empty());
    for (const Sample& s : check.samples) {
        EXPECT_EQ(s.point.at("fetch_mode"), "cursor");
        EXPECT_EQ(s.tap.method, "relay");
    }
    const QString text = panel->checkLabel()->text();
    const QVariant error = panel->checkLabel()->property("errorPercent");
    ASSERT_TRUE(error.isValid()) << text.toStdString();
    std::printf("measure at this link: %s\n", qPrintable(text));
    EXPECT_LT(std::abs(error.toDouble()), 5.0) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("measured"))) << text.toStdString();
}
