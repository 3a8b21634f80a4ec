// File > Open preset: lists the presets model/Presets finds (here: the source tree's, and one from an
// installed data directory) and opens the chosen one as a new, unsaved project.
#include <gtest/gtest.h>

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <cstdlib>

#include "GuiTestSupport.h"
#include "model/Presets.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"
#include "ui/MainWindow.h"

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
