// The scenario list's model (ui/ScenarioListModel) checked by QAbstractItemModelTester through what the
// document does to the scenarios (add, move, remove, a reset), what its rows say, and what a check or a
// rename in the list does to the project; and the panel keeping its current row through those changes.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QListView>

#include "model/Project.h"
#include "ui/ScenarioListModel.h"
#include "ui/ScenarioPanel.h"
#include "ui/SqlEditor.h"

using namespace blobbench;

namespace {

ScenarioDef scenario(const QString& id, const QString& title, const QString& sql = QStringLiteral("SELECT 1")) {
    ScenarioDef s;
    s.id = id;
    s.title = title;
    s.sql = sql;
    return s;
}

QString text(const QAbstractItemModel& m, int row, int role = Qt::DisplayRole) {
    return m.data(m.index(row, 0), role).toString();
}

TEST(ScenarioListModel, PassesTheModelTesterThroughTheDocumentsChanges) {
    ProjectDocument document;
    Project project;
    project.scenarios = {scenario(QStringLiteral("a"), QStringLiteral("Alpha")),
                         scenario(QStringLiteral("b"), QStringLiteral("Beta"), QString())};
    document.reset(project);
    ScenarioListModel model(&document);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(text(model, 0), QStringLiteral("Alpha"));
    EXPECT_EQ(model.data(model.index(0, 0), Qt::CheckStateRole).toInt(), Qt::Checked);
    EXPECT_EQ(text(model, 0, Qt::ToolTipRole), QStringLiteral("SELECT 1"));
    EXPECT_EQ(text(model, 1, Qt::ToolTipRole), QStringLiteral("No measured statement yet"));

    document.addScenario(scenario(QStringLiteral("c"), QString()), 1);  // in the middle, untitled
    ASSERT_EQ(model.rowCount(), 3);
    EXPECT_EQ(text(model, 1), QStringLiteral("(untitled)"));
    EXPECT_EQ(text(model, 1, Qt::EditRole), QString());
    EXPECT_EQ(text(model, 2), QStringLiteral("Beta"));
    document.moveScenario(0, 2);
    EXPECT_EQ(text(model, 2), QStringLiteral("Alpha"));
    document.removeScenario(0);
    document.removeScenario(0);
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(text(model, 0), QStringLiteral("Alpha"));
    document.reset(Project{});
    EXPECT_EQ(model.rowCount(), 0);
    EXPECT_FALSE(model.index(0, 0).isValid());
    EXPECT_EQ(model.flags(model.index(0, 0)), Qt::NoItemFlags);
}

TEST(ScenarioListModel, ACheckOrARenameGoesToTheProject) {
    ProjectDocument document;
    ScenarioListModel model(&document);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    document.addScenario(scenario(QStringLiteral("a"), QStringLiteral("Alpha")));
    EXPECT_TRUE(model.flags(model.index(0, 0)).testFlag(Qt::ItemIsUserCheckable));

    EXPECT_TRUE(model.setData(model.index(0, 0), Qt::Unchecked, Qt::CheckStateRole));
    EXPECT_FALSE(document.project().scenarios[0].enabled);
    EXPECT_EQ(model.data(model.index(0, 0), Qt::CheckStateRole).toInt(), Qt::Unchecked);

    EXPECT_TRUE(model.setData(model.index(0, 0), QStringLiteral("  Renamed  "), Qt::EditRole));
    EXPECT_EQ(document.project().scenarios[0].title, QStringLiteral("Renamed"));
    EXPECT_FALSE(model.setData(model.index(0, 0), QStringLiteral("   "), Qt::EditRole)) << "a scenario keeps a title";
    EXPECT_EQ(document.project().scenarios[0].title, QStringLiteral("Renamed"));
    EXPECT_FALSE(model.setData(model.index(0, 0), QStringLiteral("x"), Qt::DecorationRole));
}

TEST(ScenarioListModel, AScenarioWrittenForAnotherEngineSaysSoUntilThatEngineIsBack) {
    ProjectDocument document;
    ScenarioListModel model(&document);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    document.addScenario(
        scenario(QStringLiteral("mine"), QStringLiteral("Lengths"), QStringLiteral("SELECT LENGTH(x)")));
    model.setDialect(Dialect::Firebird);
    model.markWrittenFor(QStringLiteral("mine"), Dialect::SQLite);
    model.reload();
    EXPECT_EQ(text(model, 0), QStringLiteral("Lengths (written for SQLite)"));
    EXPECT_TRUE(text(model, 0, Qt::ToolTipRole).startsWith(QStringLiteral("Written for SQLite: not run on Firebird")));
    EXPECT_TRUE(model.data(model.index(0, 0), Qt::ForegroundRole).isValid());
    ASSERT_TRUE(model.writtenForOtherEngine(document.project().scenarios[0]));

    model.setDialect(Dialect::SQLite);  // the engine it was written for: no mark shown
    model.reload();
    EXPECT_EQ(text(model, 0), QStringLiteral("Lengths"));
    EXPECT_FALSE(model.data(model.index(0, 0), Qt::ForegroundRole).isValid());
    model.setDialect(Dialect::Firebird);
    model.unmark(QStringLiteral("mine"));
    model.reload();
    EXPECT_EQ(text(model, 0), QStringLiteral("Lengths"));
}

TEST(ScenarioPanel, KeepsTheCurrentRowThroughTheDocumentsChanges) {
    ProjectDocument document;
    Project project;
    for (const char* id : {"a", "b", "c", "d"})
        project.scenarios.push_back(scenario(QString::fromLatin1(id), QString::fromLatin1(id).toUpper()));
    document.reset(project);
    ScenarioPanel panel(&document);
    panel.refresh();
    EXPECT_EQ(panel.count(), 4);
    EXPECT_EQ(panel.currentIndex(), 0);
    panel.setCurrentIndex(2);
    EXPECT_EQ(panel.sqlEditor()->toPlainText(), QStringLiteral("SELECT 1"));
    document.removeScenario(0);  // C moves up to row 1; the row stays, as with the list before
    EXPECT_EQ(panel.currentIndex(), 2);
    panel.setCurrentIndex(2);
    document.removeScenario(2);  // the last row goes: the one above becomes current
    EXPECT_EQ(panel.count(), 2);
    EXPECT_EQ(panel.currentIndex(), 1);
    panel.duplicateScenario();
    EXPECT_EQ(panel.count(), 3);
    EXPECT_EQ(panel.currentIndex(), 2);
    EXPECT_EQ(document.project().scenarios[2].title, QStringLiteral("C (copy)"));
    panel.moveScenarioUp();
    EXPECT_EQ(panel.currentIndex(), 1);
    EXPECT_EQ(document.project().scenarios[1].title, QStringLiteral("C (copy)"));
    document.reset(Project{});
    panel.refresh();
    EXPECT_EQ(panel.count(), 0);
    EXPECT_EQ(panel.currentIndex(), -1);
    EXPECT_FALSE(panel.sqlEditor()->isEnabled());
}

}  // namespace
