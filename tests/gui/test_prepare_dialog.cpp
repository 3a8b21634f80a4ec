// Connection > Prepare data set against SQLite files of the test's own (label gui): a mistyped file
// is never created by a Test or a Run, the error offers Prepare, the dialog fills the tables (the
// rows counted in the file afterwards) and the next Run works at once; Stop mid-prepare says what
// is left; a folder's files; a BLOB_TEST made by plain SQL runs with a note.
#include <gtest/gtest.h>

#include <QAction>
#include <QCheckBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <filesystem>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "engine/data/Dataset.h"
#include "engine/drivers/Registry.h"
#include "support/TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/PrepareDialog.h"
#include "ui/ResultsModel.h"

using namespace blobbench;
using blobbench::test::TempDir;
using blobbench::test::waitUntil;

namespace {

constexpr int kTimeoutMs = 120000;

class PrepareDialogTest : public ::testing::Test {
protected:
    void SetUp() override {
        file = dir.file("mine.sqlite");
        document = new ProjectDocument;
        Project project = defaultProject(QString::fromStdString(file));
        for (ScenarioDef& s : project.scenarios)
            s.enabled = s.id == QLatin1String("short-blobs");
        document->reset(project);
        window = std::make_unique<MainWindow>(document);
        // The window's own default data set is elsewhere: nothing prepares mine.sqlite on demand.
        window->setDefaultDataset(QString::fromStdString(dir.file("default.sqlite")), 100);
        test::adoptAndShow(*window, document);
    }
    void TearDown() override { window.reset(); }

    ConnectionSpec spec() const { return ConnectionSpec{"sqlite", "sqlite:" + file}; }

    PrepareDialog* openFromMenu() {
        auto* action = window->findChild<QAction*>(QStringLiteral("prepareDatasetAction"));
        EXPECT_NE(action, nullptr);
        if (action == nullptr)
            return nullptr;
        action->trigger();
        return window->findChild<PrepareDialog*>();
    }

    // Clicks Prepare and waits for the end; returns the signal's (ok, cancelled, line).
    QList<QVariant> prepareAndWait(PrepareDialog* dialog) {
        QSignalSpy done(dialog, &PrepareDialog::preparedDataset);
        dialog->prepareButton()->click();
        EXPECT_TRUE(dialog->isPreparing());
        EXPECT_TRUE(done.wait(kTimeoutMs));
        return done.isEmpty() ? QList<QVariant>{} : done.takeFirst();
    }

    bool runAllAndWait() {
        QSignalSpy finished(window.get(), &MainWindow::runFinished);
        window->runAll();
        return finished.count() > 0 || finished.wait(kTimeoutMs);
    }

    TempDir dir;
    std::string file;
    ProjectDocument* document = nullptr;
    std::unique_ptr<MainWindow> window;
};

}  // namespace

TEST_F(PrepareDialogTest, AMistypedFileIsNotCreatedThenPreparedFromTheErrorAndRunAtOnce) {
    QSignalSpy tested(window->controller(), &RunController::connectionTested);
    window->testConnection();
    ASSERT_TRUE(tested.wait(kTimeoutMs));
    EXPECT_FALSE(tested.takeFirst().at(0).toBool());
    ASSERT_TRUE(runAllAndWait());
    const QString error = window->errorText();
    EXPECT_TRUE(error.contains(QString::fromStdString("sqlite:" + file + ": connect: no such database file")))
        << error.toStdString();
    EXPECT_FALSE(error.contains(QLatin1Char('\n'))) << error.toStdString();
    EXPECT_FALSE(std::filesystem::exists(file)) << "a Test or a Run created the file";
    auto* offer = window->findChild<QPushButton*>(QStringLiteral("prepareOffer"));
    ASSERT_NE(offer, nullptr);
    ASSERT_TRUE(offer->isVisible()) << "the error offers Prepare";

    offer->click();
    auto* dialog = window->findChild<PrepareDialog*>();
    ASSERT_NE(dialog, nullptr);
    ASSERT_TRUE(dialog->isVisible());
    dialog->rowsBox()->setValue(240);
    dialog->seedBox()->setValue(7);
    dialog->batchBox()->setValue(100);
    const PrepareRequest request = dialog->request();
    EXPECT_EQ(request.choice.rows, 240U);
    EXPECT_EQ(request.choice.seed, 7U);
    EXPECT_TRUE(request.choice.folder.empty());
    const QList<QVariant> end = prepareAndWait(dialog);
    ASSERT_EQ(end.size(), 3);
    EXPECT_TRUE(end.at(0).toBool()) << end.at(2).toString().toStdString();
    EXPECT_TRUE(dialog->resultText().startsWith(QString::fromStdString("Prepared sqlite:" + file + ": 240 rows, ")))
        << dialog->resultText().toStdString();
    EXPECT_FALSE(dialog->isPreparing());
    EXPECT_TRUE(dialog->prepareButton()->isEnabled());
    EXPECT_FALSE(dialog->stopButton()->isEnabled());
    // The result's lines take height of their own, never the spin boxes' (#30: the Seed box collapsed).
    QCoreApplication::processEvents();
    for (QSpinBox* box : {dialog->seedBox(), dialog->rowsBox(), dialog->batchBox()})
        EXPECT_GE(box->height(), box->minimumSizeHint().height()) << box->objectName().toStdString();
    EXPECT_EQ(test::queryNumber(spec(), "SELECT COUNT(*) FROM BLOB_TEST"), 240U);
    EXPECT_EQ(
        test::queryNumber(spec(), "SELECT COUNT(*) FROM BLOBBENCH_DATASET WHERE NAME = 'complete' AND VAL = 'true'"),
        1U);

    // The window tests the connection again on its own: the banner goes, the data set is seen.
    ASSERT_TRUE(tested.count() > 0 || tested.wait(kTimeoutMs));
    EXPECT_TRUE(tested.at(0).at(0).toBool());
    EXPECT_TRUE(tested.at(0).at(2).toString().contains(QStringLiteral("data set: 240 rows")))
        << tested.at(0).at(2).toString().toStdString();
    EXPECT_TRUE(window->errorText().isEmpty()) << window->errorText().toStdString();
    EXPECT_FALSE(offer->isVisible());

    dialog->close();
    ASSERT_TRUE(runAllAndWait());
    ASSERT_TRUE(window->errorText().isEmpty()) << window->errorText().toStdString();
    const std::uint64_t shortRows = test::queryNumber(spec(), "SELECT COUNT(*) FROM BLOB_TEST WHERE SHORT_BLOB");
    ASSERT_EQ(window->resultsModel()->rowCount(), 1);
    EXPECT_EQ(window->resultsModel()->samples()[0].status, SampleStatus::Complete);
    EXPECT_EQ(window->resultsModel()->samples()[0].rows, shortRows);
    EXPECT_TRUE(window->logView()->toPlainText().contains(QStringLiteral("Data set: synthetic text, seed 7, 240 rows")))
        << window->logView()->toPlainText().toStdString();
}

TEST_F(PrepareDialogTest, StopMidPrepareSaysWhatIsLeftAndARunRefusesTheIncompleteSet) {
    PrepareDialog* dialog = openFromMenu();
    ASSERT_NE(dialog, nullptr);
    dialog->rowsBox()->setValue(200000);  // far more than the test waits for
    dialog->batchBox()->setValue(20);
    QSignalSpy progress(window->controller(), &RunController::datasetProgress);
    QSignalSpy done(dialog, &PrepareDialog::preparedDataset);
    dialog->prepareButton()->click();
    ASSERT_TRUE(dialog->stopButton()->isEnabled());
    ASSERT_TRUE(progress.wait(kTimeoutMs)) << "no batch committed";
    dialog->stopButton()->click();
    EXPECT_FALSE(dialog->stopButton()->isEnabled());
    ASSERT_TRUE(done.count() > 0 || done.wait(kTimeoutMs));
    EXPECT_FALSE(done.at(0).at(0).toBool());
    EXPECT_TRUE(done.at(0).at(1).toBool()) << "cancelled";
    const std::uint64_t left = test::queryNumber(spec(), "SELECT COUNT(*) FROM BLOB_TEST");
    EXPECT_GE(left, 20U);
    EXPECT_LT(left, 200000U);
    const QString expected = QStringLiteral("Stopped: sqlite:%1 holds %2 rows of BLOB_TEST, marked incomplete")
                                 .arg(QString::fromStdString(file))
                                 .arg(left);
    EXPECT_TRUE(dialog->resultText().startsWith(expected)) << dialog->resultText().toStdString();
    EXPECT_FALSE(dialog->isPreparing());

    dialog->close();
    ASSERT_TRUE(runAllAndWait());
    EXPECT_TRUE(window->errorText().contains(QStringLiteral("the preparation BlobBench started here is incomplete")))
        << window->errorText().toStdString();
    EXPECT_EQ(window->resultsModel()->rowCount(), 0) << "nothing measured on an incomplete set";
    EXPECT_TRUE(window->findChild<QPushButton*>(QStringLiteral("prepareOffer"))->isVisible());
}

TEST_F(PrepareDialogTest, TheFilesOfAFolder) {
    const std::filesystem::path folder = dir.path() / "src";
    std::filesystem::create_directories(folder / "sub");
    test::writeFile(folder / "a.txt", std::string(100, 'a'));
    test::writeFile(folder / "sub/b.txt", std::string(9000, 'b'));
    test::writeFile(folder / "c.bin", std::string("\xff\xfe\x00\x01", 4));
    PrepareDialog* dialog = openFromMenu();
    ASSERT_NE(dialog, nullptr);
    dialog->folderChoice()->setChecked(true);
    EXPECT_FALSE(dialog->seedBox()->isEnabled());
    EXPECT_FALSE(dialog->binaryBox()->isEnabled());
    EXPECT_TRUE(dialog->folderEdit()->isEnabled());
    dialog->prepareButton()->click();  // no folder named yet: refused, nothing started
    EXPECT_FALSE(dialog->isPreparing());
    EXPECT_TRUE(dialog->resultText().contains(QStringLiteral("Name the folder"))) << dialog->resultText().toStdString();
    dialog->folderEdit()->setText(QString::fromStdString(folder.string()));
    dialog->rowsBox()->setValue(7);
    const QList<QVariant> end = prepareAndWait(dialog);
    ASSERT_EQ(end.size(), 3);
    ASSERT_TRUE(end.at(0).toBool()) << end.at(2).toString().toStdString();
    EXPECT_EQ(test::queryNumber(spec(), "SELECT COUNT(*) FROM BLOB_SAMPLE"), 3U);
    EXPECT_EQ(test::queryNumber(spec(), "SELECT COUNT(*) FROM BLOB_TEST"), 7U);
    // Rows cycle through the files in name order: a.txt, c.bin, sub/b.txt, a.txt, ...
    EXPECT_EQ(test::queryNumber(spec(), "SELECT SUM(LENGTH(CAST(CONTENT AS BLOB))) FROM BLOB_TEST"),
              3U * 100 + 2U * 4 + 2U * 9000);

    // A folder that is not there: one line naming it, the previous data set left as it was.
    dialog->folderEdit()->setText(QString::fromStdString((dir.path() / "nothing").string()));
    const QList<QVariant> failed = prepareAndWait(dialog);
    ASSERT_EQ(failed.size(), 3);
    EXPECT_FALSE(failed.at(0).toBool());
    EXPECT_FALSE(failed.at(1).toBool());
    EXPECT_TRUE(dialog->resultText().contains(QStringLiteral("nothing: no such folder")))
        << dialog->resultText().toStdString();
    EXPECT_EQ(test::queryNumber(spec(), "SELECT COUNT(*) FROM BLOB_TEST"), 7U);
}

TEST_F(PrepareDialogTest, ABlobTestMadeByPlainSqlRunsWithANoteAndOneWithoutTheColumnsIsRefused) {
    test::sqliteExecute(
        file, {"CREATE TABLE BLOB_TEST (ID INTEGER PRIMARY KEY, SHORT_CONTENT VARCHAR(8191), CONTENT BLOB, SHORT_BLOB "
               "BOOLEAN)",
               "INSERT INTO BLOB_TEST VALUES (1, 'abc', 'abc', TRUE), (2, NULL, CAST(zeroblob(9000) AS BLOB), FALSE), "
               "(3, 'hello', 'hello', TRUE)"});
    ASSERT_TRUE(runAllAndWait());
    ASSERT_TRUE(window->errorText().isEmpty()) << window->errorText().toStdString();
    ASSERT_EQ(window->resultsModel()->rowCount(), 1);
    EXPECT_EQ(window->resultsModel()->samples()[0].rows, 2U);
    EXPECT_TRUE(window->logView()->toPlainText().contains(
        QStringLiteral("Data set: BLOB_TEST not prepared by BlobBench: 3 rows, 9008 content bytes, 2 short rows")))
        << window->logView()->toPlainText().toStdString();

    test::sqliteExecute(file, {"DROP TABLE BLOB_TEST", "CREATE TABLE BLOB_TEST (ID INTEGER PRIMARY KEY, DATA BLOB)"});
    ASSERT_TRUE(runAllAndWait());
    EXPECT_TRUE(window->errorText().contains(
        QStringLiteral("BLOB_TEST lacks the reference columns ID, SHORT_CONTENT, CONTENT, SHORT_BLOB")))
        << window->errorText().toStdString();
    EXPECT_TRUE(window->findChild<QPushButton*>(QStringLiteral("prepareOffer"))->isVisible());
    EXPECT_EQ(window->resultsModel()->rowCount(), 1) << "the earlier sample only";
}
