// Hostile round 4: an error of one unbroken word (a server's message quoting 20,000 characters of
// SQL) made the window 141,912 px wide, and 200,000 characters took 8.6 GB. The banner and the log
// now show the start of such a message; the sample keeps it whole.
#include <gtest/gtest.h>

#include <QLabel>
#include <QSignalSpy>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "support/TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/ResultsModel.h"

using namespace blobbench;

TEST(GuiLongError, AnUnbrokenErrorOfAHundredThousandCharactersLeavesTheWindowItsSize) {
    test::TempDir dir;
    const QString db = QString::fromStdString(dir.file("reference.sqlite"));
    test::prepareSmallDataset(db, 50);
    Project project = defaultProject(db);
    project.scenarios.resize(1);
    const QString name(100'000, QLatin1Char('x'));
    project.scenarios[0].kind = QStringLiteral("query");
    project.scenarios[0].sql = QStringLiteral("SELECT %1()").arg(name);  // SQLite: "no such function: xxx..."
    project.scenarios[0].enabled = true;
    auto* document = new ProjectDocument;
    document->reset(std::move(project));
    MainWindow window(document);
    test::adoptAndShow(window, document);
    const QSize before = window.size();
    QSignalSpy finished(&window, &MainWindow::runFinished);
    window.runAll();
    ASSERT_TRUE(finished.count() > 0 || finished.wait(60000));
    QCoreApplication::processEvents();
    ASSERT_FALSE(window.resultsModel()->samples().empty());
    const Sample& failed = window.resultsModel()->samples().back();
    EXPECT_EQ(failed.status, SampleStatus::Failed);
    EXPECT_NE(failed.error.find(name.toStdString()), std::string::npos) << "the sample keeps the error whole";
    EXPECT_LE(window.width(), before.width() + 50) << "the window did not grow to the error's length";
    const auto* banner = window.findChild<QLabel*>(QStringLiteral("errorBanner"));
    ASSERT_NE(banner, nullptr);
    ASSERT_TRUE(banner->isVisible()) << "the failed run's error is shown";
    EXPECT_LE(banner->text().size(), 1000);
    EXPECT_TRUE(window.errorText().contains(name)) << "errorText() is the message in full";
}
