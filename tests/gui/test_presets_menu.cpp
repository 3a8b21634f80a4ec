// File > Open preset: lists the presets model/Presets finds (here: the source tree's, and one from an
// installed data directory) and opens the chosen one as a new, unsaved project.
#include <gtest/gtest.h>

#include <QAction>
#include <QCategoryAxis>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <cstdlib>

#include "GuiTestSupport.h"
#include "engine/report/PublishedTable.h"
#include "model/Presets.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/ReproduceWindow.h"

using namespace blobbench;

TEST(PresetsMenu, ListsThePresetsAndOpensOneAsANewProject) {
    blobbench::test::TempDir dir;
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, QString::fromStdString(dir.file("settings")));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, QString::fromStdString(dir.file("settings")));
    // An "installed" preset: a copy of the SQLite one under another name and project name.
    const QString share = QString::fromStdString(dir.file("share"));
    QDir().mkpath(share + QStringLiteral("/blobbench/presets"));
    Project installed =
        loadProject(QStringLiteral(BLOBBENCH_SOURCE_DIR "/resources/presets/sqlite-reference.blobbench.json"));
    installed.name = QStringLiteral("Installed copy");
    const QString installedPath = share + QStringLiteral("/blobbench/presets/aa-installed.blobbench.json");
    saveProject(installedPath, installed);
    setenv("XDG_DATA_DIRS", share.toLocal8Bit().constData(), 1);
    setenv("XDG_DATA_HOME", dir.file("home").c_str(), 1);

    auto* document = new ProjectDocument;
    document->reset(defaultProject(QString::fromStdString(dir.file("reference.sqlite"))));
    MainWindow window(document);
    document->setParent(&window);
    window.files()->setSuppressUnsavedPrompt(true);
    window.show();

    QMenu* menu = window.menuBar()->findChild<QMenu*>(QStringLiteral("presetProjects"));
    ASSERT_NE(menu, nullptr);
    emit menu->aboutToShow();
    QStringList titles;
    for (QAction* a : menu->actions()) {
        titles << a->text();
    }
    QStringList expected;
    for (const QString& f : presetFiles()) {
        expected << QFileInfo(f).fileName();
    }
    EXPECT_EQ(titles, expected);
    EXPECT_TRUE(titles.contains(QStringLiteral("aa-installed.blobbench.json")));
    EXPECT_TRUE(titles.contains(QStringLiteral("firebird-reference.blobbench.json")));

    menu->actions().at(titles.indexOf(QStringLiteral("aa-installed.blobbench.json")))->trigger();
    EXPECT_EQ(window.document()->project().name, QStringLiteral("Installed copy"));
    EXPECT_TRUE(window.document()->filePath().isEmpty());  // a new project: Save asks where
    EXPECT_TRUE(QFile::exists(installedPath));
}

// File > Reproduce a publication (#28): the menu offers every publication; the SQLite one, at a reduced
// size, runs the real blobbench-cli reproduce in the background, and its table and chart hold each
// figure with a verdict. A file that is no result is refused in one line naming it.
TEST(ReproduceWindowTest, RunsTheSqlitePublicationAndJudgesEachFigure) {
    blobbench::test::TempDir dir;
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, QString::fromStdString(dir.file("settings")));
    setenv("BLOBBENCH_CLI", BLOBBENCH_CLI_PATH, 1);
    setenv("TMPDIR", dir.path().c_str(), 1);
    auto* document = new ProjectDocument;
    document->reset(defaultProject(QString::fromStdString(dir.file("reference.sqlite"))));
    MainWindow window(document);
    document->setParent(&window);
    window.files()->setSuppressUnsavedPrompt(true);
    window.show();

    QMenu* menu = window.menuBar()->findChild<QMenu*>(QStringLiteral("reproduceMenu"));
    ASSERT_NE(menu, nullptr);
    EXPECT_EQ(menu->actions().size(), static_cast<qsizetype>(publications().size()));
    EXPECT_EQ(window.openReproduce("no-such-publication"), nullptr);

    ReproduceWindow* reproduce = window.openReproduce("sqlite-35-percent");
    ASSERT_NE(reproduce, nullptr);
    reproduce->rowsBox()->setValue(400);
    EXPECT_TRUE(reproduce->arguments().contains(QStringLiteral("--rows")));
    QSignalSpy finished(reproduce, &ReproduceWindow::finished);
    reproduce->start();
    ASSERT_TRUE(finished.wait(180000)) << reproduce->output().toStdString();
    ASSERT_EQ(finished.size(), 1);
    EXPECT_TRUE(finished.at(0).at(0).toBool()) << reproduce->errorText().toStdString() << "\n"
                                               << reproduce->output().toStdString();
    QTableWidget* table = reproduce->table();
    ASSERT_GT(table->rowCount(), 3);
    int measured = 0;
    for (int row = 0; row < table->rowCount(); ++row) {
        const QString verdict = table->item(row, ReproduceWindow::Verdict)->text();
        EXPECT_TRUE(verdict == QLatin1String("reproduced") || verdict == QLatin1String("differs") ||
                    verdict == QLatin1String("not comparable here"))
            << row << ": " << verdict.toStdString();
        measured += table->item(row, ReproduceWindow::Measured)->text() != QLatin1String("-");
    }
    EXPECT_GT(measured, 0);
    EXPECT_EQ(reproduce->chart()->dotCount(), measured);  // one dot a measured figure, the others listed
    // The y axis names every figure (QCategoryAxis kept only the first of labels appended top down).
    auto* view = reproduce->chart()->widget()->findChild<QChartView*>();
    ASSERT_NE(view, nullptr);
    auto* y = qobject_cast<QCategoryAxis*>(view->chart()->axes(Qt::Vertical).value(0));
    ASSERT_NE(y, nullptr);
    EXPECT_EQ(y->categoriesLabels().size(), table->rowCount()) << y->categoriesLabels().join(u'|').toStdString();
    EXPECT_TRUE(reproduce->errorText().isEmpty());

    const std::string bad = dir.file("bad.json");
    blobbench::test::writeFile(bad, "{\"runs\": []}");
    EXPECT_FALSE(reproduce->loadResult(QString::fromStdString(bad)));
    EXPECT_NE(reproduce->errorText().indexOf(QString::fromStdString(bad)), -1) << reproduce->errorText().toStdString();
    EXPECT_NE(reproduce->errorText().indexOf(QStringLiteral("not a result of blobbench-cli reproduce")), -1);
    EXPECT_GT(table->rowCount(), 3);  // the judged table is kept
    reproduce->close();
}
