// The window's own layout on the offscreen screen: the run controls never fall into the toolbar's
// overflow, and the default size follows the screen.
#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QSettings>
#include <QTabWidget>
#include <QTest>
#include <QTextBrowser>
#include <QToolBar>

#include "GuiTestSupport.h"
#include "support/TestSupport.h"
#include "ui/LinkPanel.h"
#include "ui/MainWindow.h"
#include "ui/SweepEditor.h"
#include "ui/UserGuide.h"

using namespace blobbench;
using blobbench::test::TempDir;

namespace {

std::unique_ptr<MainWindow> freshWindow(const TempDir& dir) {
    QSettings().remove(QStringLiteral("window"));  // no size saved by an earlier window
    auto* document = new ProjectDocument;
    document->reset(defaultProject(QString::fromStdString(dir.file("unused.sqlite"))));
    auto window = std::make_unique<MainWindow>(document);
    document->setParent(window.get());
    window->files()->setSuppressUnsavedPrompt(true);
    return window;
}

QAction* actionNamed(QToolBar* bar, const QString& text) {
    for (QAction* a : bar->actions()) {
        if (a->text().remove(QLatin1Char('&')) == text)
            return a;
    }
    return nullptr;
}

}  // namespace

TEST(WindowLayout, DefaultSizeFollowsTheScreensAvailableArea) {
    TempDir dir;
    auto window = freshWindow(dir);
    const QSize available = QGuiApplication::primaryScreen()->availableGeometry().size();
    EXPECT_EQ(window->width(), std::min(1700, available.width() * 94 / 100));
    EXPECT_EQ(window->height(), std::min(1050, available.height() * 92 / 100));
}

TEST(WindowLayout, RunAllAndStopStayOnTheToolbarWithALongServerLabel) {
    TempDir dir;
    auto window = freshWindow(dir);
    window->show();
    auto* server = window->findChild<QLabel*>(QStringLiteral("connectionInfo"));
    ASSERT_NE(server, nullptr);
    server->setText(QString(60, QLatin1Char('x')) + QStringLiteral(" server 5.0.4, client 5.0.4 · negotiated: …"));
    auto* bar = window->findChild<QToolBar*>(QStringLiteral("runToolbar"));
    ASSERT_NE(bar, nullptr);
    for (const QString& name : {QStringLiteral("Run"), QStringLiteral("Run all"), QStringLiteral("Stop")}) {
        for (int width : {window->width(), 900, 640}) {
            window->resize(width, window->height());
            QCoreApplication::processEvents();
            QAction* action = actionNamed(bar, name);
            ASSERT_NE(action, nullptr) << name.toStdString();
            QWidget* button = bar->widgetForAction(action);
            ASSERT_NE(button, nullptr);
            EXPECT_TRUE(button->isVisible()) << name.toStdString() << " at width " << width;
            EXPECT_LE(button->geometry().right(), bar->width()) << name.toStdString() << " at width " << width;
        }
    }
}

// F1 shows docs/user-guide.md inside the application, from the resources compiled in (no other
// program, no path into the source tree): the guide's headings are in the help window.
TEST(WindowLayout, F1ShowsTheUserGuideInsideTheApplication) {
    TempDir dir;
    auto window = freshWindow(dir);
    window->show();
    auto* guide = window->findChild<QAction*>(QStringLiteral("userGuide"));
    ASSERT_NE(guide, nullptr);
    EXPECT_EQ(guide->shortcut(), QKeySequence(Qt::Key_F1));
    window->activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(window.get()));
    QTest::keyClick(window.get(), Qt::Key_F1);
    auto* help = window->findChild<UserGuideWindow*>(QStringLiteral("userGuideWindow"));
    ASSERT_NE(help, nullptr) << "F1 opened no help window";
    EXPECT_TRUE(help->isVisible());
    const QStringList headings = help->headings();
    ASSERT_FALSE(headings.isEmpty());
    EXPECT_EQ(headings.front(), QStringLiteral("BlobBench user guide"));
    EXPECT_TRUE(headings.contains(QStringLiteral("First run on SQLite")))
        << headings.join(QLatin1Char('|')).toStdString();
    // The table of contents jumps within the page; a screenshot is loaded from the resources too.
    EXPECT_TRUE(help->showAnchor(QStringLiteral("the-command-line")));
    EXPECT_GT(help->browser()->verticalScrollBar()->value(), 0);
    EXPECT_FALSE(help->browser()
                     ->loadResource(QTextDocument::ImageResource, QUrl(QStringLiteral("screenshot-run.png")))
                     .isNull());
    // Pressed again, F1 raises the same window.
    help->hide();
    QTest::keyClick(window.get(), Qt::Key_F1);
    EXPECT_EQ(window->findChildren<UserGuideWindow*>().size(), 1);
    EXPECT_TRUE(help->isVisible());
}

// Choosing another tunable starts from that tunable's own values; byte tunables take "64k", "1M".
TEST(WindowLayout, SweepEditorResetsValuesPerTunableAndReadsByteSuffixes) {
    TempDir dir;
    auto window = freshWindow(dir);
    SweepEditor* editor = window->sweepEditor();
    editor->newSweep();
    QComboBox* tunable = editor->parameterBox();
    ASSERT_EQ(tunable->currentData().toString(), QStringLiteral("page_size"));
    editor->valuesEdit()->setText(QStringLiteral("1024, 4096"));
    emit editor->valuesEdit()->textEdited(editor->valuesEdit()->text());
    const int mmap = tunable->findData(QStringLiteral("mmap_size"));
    ASSERT_GE(mmap, 0);
    tunable->setCurrentIndex(mmap);
    emit tunable->activated(mmap);
    EXPECT_EQ(editor->valuesEdit()->text(), QStringLiteral("0, %1").arg(1LL << 40));
    const SweepDef& stored = window->document()->project().sweeps.front();
    EXPECT_EQ(stored.axes.front().parameter, QStringLiteral("mmap_size"));

    editor->valuesEdit()->setText(QStringLiteral("0, 64k, 1M, 2 MiB"));
    emit editor->valuesEdit()->textEdited(editor->valuesEdit()->text());
    EXPECT_EQ(window->document()->project().sweeps.front().axes.front().values,
              (QStringList{QStringLiteral("0"), QStringLiteral("65536"), QStringLiteral("1048576"),
                           QStringLiteral("2097152")}))
        << editor->previewText().toStdString();
    EXPECT_TRUE(editor->runButton()->isEnabled()) << editor->previewText().toStdString();
}

// #30: at 1366x768 the tunables showed two rows and a half above the Link emulation group. Where the
// side column is short, the link has a tab of its own whose title says the link; where it is tall,
// the group stays below the tunables. A change of height moves it and keeps the tab the user is on.
TEST(WindowLayout, TheLinkHasATabOfItsOwnWhereTheSideColumnIsShort) {
    TempDir dir;
    auto window = freshWindow(dir);
    ConnectionProfile pg;
    pg.name = QStringLiteral("PostgreSQL nowhere");
    pg.engine = QStringLiteral("postgres");
    pg.target = QStringLiteral("host=127.0.0.1 port=1 dbname=x");
    window->document()->setCurrentConnection(window->document()->addConnection(pg));
    auto* tabs = window->findChild<QTabWidget*>(QStringLiteral("sideTabs"));
    ASSERT_NE(tabs, nullptr);
    const auto tabTitles = [&] {
        QStringList out;
        for (int i = 0; i < tabs->count(); ++i)
            out << tabs->tabText(i);
        return out.join(QLatin1Char('|'));
    };
    window->resize(1366, 768);
    window->show();
    QCoreApplication::processEvents();
    ASSERT_LT(tabs->height(), 270);
    EXPECT_EQ(tabTitles(), QStringLiteral("Parameters|Link: unshaped|Sweep"));
    EXPECT_EQ(window->linkPanel()->parentWidget()->objectName(), QStringLiteral("linkTab"));
    window->linkPanel()->setLatency(true, 20);
    window->linkPanel()->setLatency(false, 20);
    EXPECT_EQ(tabs->tabText(1), QStringLiteral("Link: 20 ms"));
    window->linkPanel()->setLatency(false, 5);
    EXPECT_EQ(tabs->tabText(1), QStringLiteral("Link: shaped"));
    EXPECT_TRUE(tabs->tabToolTip(1).contains(QStringLiteral("up unlimited + 20 ms, down unlimited + 5 ms")))
        << tabs->tabToolTip(1).toStdString();

    // Taller: below the tunables again, the Sweep tab still in front.
    tabs->setCurrentIndex(2);
    window->resize(1366, 1400);
    QCoreApplication::processEvents();
    ASSERT_GE(tabs->height(), 270);
    EXPECT_EQ(tabTitles(), QStringLiteral("Parameters|Sweep"));
    EXPECT_EQ(tabs->currentIndex(), 1);
    EXPECT_NE(window->linkPanel()->parentWidget()->objectName(), QStringLiteral("linkTab"));
    EXPECT_TRUE(window->linkPanel()->isVisibleTo(tabs->widget(0)));

    // Short again, on SQLite: no wire, no Link tab.
    window->resize(1366, 768);
    QCoreApplication::processEvents();
    EXPECT_TRUE(tabs->isTabVisible(1));
    window->document()->setCurrentConnection(0);
    EXPECT_EQ(window->document()->project().current()->engine, QStringLiteral("sqlite"));
    EXPECT_FALSE(tabs->isTabVisible(1)) << tabTitles().toStdString();
}
