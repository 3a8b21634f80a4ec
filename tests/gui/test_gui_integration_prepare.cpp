// Connection > Prepare data set against the real PostgreSQL server (label integration), in a
// database of the test's own: the password is asked once through the window's prompt (as for a
// Run) and kept for the session; the rows are counted on the server afterwards; the run that
// follows works at once; Stop mid-prepare leaves what the dialog says it leaves. The same on a
// Firebird 3 database of its own, created by the prepare.
#include <gtest/gtest.h>
#include <unistd.h>

#include <QAction>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <filesystem>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "engine/data/ReferenceSuite.h"
#include "support/PgSupport.h"
#include "support/TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/PrepareDialog.h"
#include "ui/ResultsModel.h"

using namespace blobbench;
using blobbench::test::TempDir;

namespace {

constexpr int kTimeoutMs = 300000;

struct Prepared {
    PrepareDialog* dialog = nullptr;
    bool ok = false;
    QString line;
    QString testDetail;  // what the window's Test after the prepare said
};

// Connection > Prepare data set with `rows` rows, `batch` a transaction; waits for the end and
// for the Test the window starts after it.
Prepared prepareFromMenu(MainWindow& window, int rows, int batch) {
    Prepared p;
    window.findChild<QAction*>(QStringLiteral("prepareDatasetAction"))->trigger();
    p.dialog = window.findChild<PrepareDialog*>();
    if (p.dialog == nullptr) {
        ADD_FAILURE() << "no dialog: " << window.errorText().toStdString();
        return p;
    }
    p.dialog->rowsBox()->setValue(rows);
    p.dialog->batchBox()->setValue(batch);
    QSignalSpy done(p.dialog, &PrepareDialog::preparedDataset);
    QSignalSpy tested(window.controller(), &RunController::connectionTested);
    p.dialog->prepareButton()->click();
    if (!done.wait(kTimeoutMs) || !(tested.count() > 0 || tested.wait(kTimeoutMs))) {
        ADD_FAILURE() << "the prepare or the Test after it did not end";
        return p;
    }
    p.ok = done.at(0).at(0).toBool();
    p.line = done.at(0).at(2).toString();
    p.testDetail = tested.at(0).at(2).toString();
    return p;
}

}  // namespace

TEST(GuiIntegrationPrepare, AFreshPostgresDatabaseIsPreparedFromTheWindowAndRuns) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    const test::PgOwnDatabase mine =
        test::createOwnPgDatabase(conninfo, "blobbench_prepwin_" + std::to_string(getpid()));
    const std::string& own = mine.conninfo;
    // Only the window's prompt knows the password: no PGPASSWORD, no password file.
    TempDir dir;
    qunsetenv("PGPASSWORD");
    qputenv("PGPASSFILE", QByteArray::fromStdString(dir.file("no-pgpass")));

    auto* document = new ProjectDocument;
    Project project = defaultProject(QString::fromStdString(dir.file("unused.sqlite")));
    ConnectionProfile profile;
    profile.name = QStringLiteral("fresh PostgreSQL");
    profile.engine = QStringLiteral("postgres");
    profile.target = QString::fromStdString(mine.target);
    project.connections.push_back(profile);
    project.currentConnection = static_cast<int>(project.connections.size()) - 1;
    project.scenarios.clear();
    for (const Scenario& s : referenceSuite(Dialect::PostgreSQL)) {
        ScenarioDef def = ScenarioDef::fromScenario(s);
        def.enabled = s.id == "short-blobs";
        project.scenarios.push_back(def);
    }
    document->reset(project);
    MainWindow window(document);
    int asked = 0;
    window.connections()->setPasswordPrompt(
        [&](const ConnectionProfile&) -> std::optional<ConnectionController::PasswordAnswer> {
            ++asked;
            return ConnectionController::PasswordAnswer{QString::fromStdString(pg.password), false};
        });
    test::adoptAndShow(window, document);

    const Prepared first = prepareFromMenu(window, 150, 50);
    ASSERT_NE(first.dialog, nullptr);
    EXPECT_EQ(asked, 1);
    ASSERT_TRUE(first.ok) << first.line.toStdString();
    PrepareDialog* dialog = first.dialog;
    EXPECT_TRUE(dialog->resultText().contains(QStringLiteral(": 150 rows, "))) << dialog->resultText().toStdString();
    {
        test::PgConn check(own);
        ASSERT_TRUE(check.ok()) << check.errorMessage();
        EXPECT_EQ(check.value("SELECT COUNT(*) FROM BLOB_TEST"), "150");
        EXPECT_EQ(check.value("SELECT VAL FROM BLOBBENCH_DATASET WHERE NAME = 'complete'"), "true");
    }
    EXPECT_TRUE(first.testDetail.contains(QStringLiteral("data set: 150 rows"))) << first.testDetail.toStdString();
    dialog->close();

    QSignalSpy finished(&window, &MainWindow::runFinished);
    window.runAll();
    ASSERT_TRUE(finished.wait(kTimeoutMs));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    ASSERT_EQ(window.resultsModel()->rowCount(), 1);
    test::PgConn check(own);
    EXPECT_EQ(std::to_string(window.resultsModel()->samples()[0].rows),
              check.value("SELECT COUNT(*) FROM BLOB_TEST WHERE SHORT_BLOB"));
    EXPECT_EQ(asked, 1) << "the session keeps the password it was given";

    // Stop mid-prepare: the rows the dialog names are the rows on the server.
    window.findChild<QAction*>(QStringLiteral("prepareDatasetAction"))->trigger();
    dialog = window.findChild<PrepareDialog*>();
    ASSERT_NE(dialog, nullptr);
    dialog->rowsBox()->setValue(100000);
    dialog->batchBox()->setValue(10);
    QSignalSpy progress(window.controller(), &RunController::datasetProgress);
    QSignalSpy stopped(dialog, &PrepareDialog::preparedDataset);
    dialog->prepareButton()->click();
    ASSERT_TRUE(progress.wait(kTimeoutMs));
    dialog->stopButton()->click();
    ASSERT_TRUE(stopped.count() > 0 || stopped.wait(kTimeoutMs));
    EXPECT_TRUE(stopped.at(0).at(1).toBool()) << stopped.at(0).at(2).toString().toStdString();
    const std::string left = check.value("SELECT COUNT(*) FROM BLOB_TEST");
    EXPECT_LT(std::stoull(left), 100000U);
    EXPECT_TRUE(dialog->resultText().contains(QString::fromStdString(" holds " + left + " rows of BLOB_TEST")))
        << dialog->resultText().toStdString() << " / " << left;
    EXPECT_EQ(check.value("SELECT COUNT(*) FROM BLOBBENCH_DATASET WHERE NAME = 'complete'"), "0");
    dialog->close();

    test::PgConn(conninfo).value("DROP DATABASE IF EXISTS " + mine.name + " WITH (FORCE)");
}

namespace {

// A database beside the shared one: inet://HOST:PORT/<folder>/prepwin-PID.fdb, created by the
// prepare (the dialog's "Create the database file if it does not exist"), through `clientLibrary`
// (empty: the system's).
void prepareOwnFirebirdDatabase(const std::string& shared, const std::string& user, const std::string& password,
                                const std::string& clientLibrary) {
    const std::string folder = std::filesystem::path(shared.substr(shared.find("//", 6) + 1)).parent_path().string();
    const std::string file = folder + "/prepwin-" + std::to_string(getpid()) + ".fdb";
    std::filesystem::remove(file);
    ConnectionSpec spec{"firebird", shared.substr(0, shared.find("//", 6) + 1) + file};
    spec.user = user;
    spec.password = password;
    spec.clientLibrary = clientLibrary;
    qunsetenv("ISC_PASSWORD");

    TempDir dir;
    auto* document = new ProjectDocument;
    Project project = defaultProject(QString::fromStdString(dir.file("unused.sqlite")));
    ConnectionProfile profile;
    profile.name = QStringLiteral("fresh Firebird 3");
    profile.engine = QStringLiteral("firebird");
    profile.target = QString::fromStdString(spec.target);
    profile.user = QString::fromStdString(spec.user);
    profile.clientLibrary = QString::fromStdString(clientLibrary);
    project.connections.push_back(profile);
    project.currentConnection = static_cast<int>(project.connections.size()) - 1;
    document->reset(project);
    MainWindow window(document);
    int asked = 0;
    window.connections()->setPasswordPrompt(
        [&](const ConnectionProfile&) -> std::optional<ConnectionController::PasswordAnswer> {
            ++asked;
            return ConnectionController::PasswordAnswer{QString::fromStdString(spec.password), false};
        });
    test::adoptAndShow(window, document);

    // Test before the database exists: the I/O error says how to have it created, and the window
    // offers Prepare beside it (#30 item 8: it offered nothing).
    QSignalSpy tested(window.controller(), &RunController::connectionTested);
    window.connections()->testAction()->trigger();
    ASSERT_TRUE(tested.count() > 0 || tested.wait(kTimeoutMs));
    EXPECT_FALSE(tested.at(0).at(0).toBool());
    EXPECT_TRUE(window.errorText().contains(QStringLiteral("prepare it with create_database=true")))
        << window.errorText().toStdString();
    EXPECT_FALSE(window.findChild<QPushButton*>(QStringLiteral("prepareOffer"))->isHidden());
    EXPECT_FALSE(std::filesystem::exists(file)) << "a Test creates nothing";

    // The dialog creates the missing file (its box, checked for an engine that can).
    const Prepared prepared = prepareFromMenu(window, 120, 60);
    ASSERT_NE(prepared.dialog, nullptr);
    EXPECT_FALSE(prepared.dialog->createDatabaseBox()->isHidden());
    EXPECT_EQ(asked, 1);
    ASSERT_TRUE(prepared.ok) << prepared.line.toStdString();
    EXPECT_EQ(test::queryNumber(spec, "SELECT COUNT(*) FROM BLOB_TEST"), 120U);
    EXPECT_TRUE(prepared.testDetail.contains(QStringLiteral("data set: 120 rows")))
        << prepared.testDetail.toStdString();
    prepared.dialog->close();
    std::filesystem::remove(file);
}

}  // namespace

TEST(GuiIntegrationPrepare, AFirebird3DatabaseOfItsOwnIsCreatedAndPreparedFromTheWindow) {
    BLOBBENCH_REQUIRE_ENV(shared, "BLOBBENCH_FB_DATABASE");
    prepareOwnFirebirdDatabase(shared, test::envOrEmpty("BLOBBENCH_FB_USER"), test::envOrEmpty("BLOBBENCH_FB_PASSWORD"),
                               {});
}

// Its own process (ctest runs each test alone): after the 3.0 client of the test above was loaded,
// the 5.0 client's create fails in the same process ("libEngine13.so: undefined symbol
// fb_dsql_set_timeout"), a limit of mixing the two clients, not of the dialog.
TEST(GuiIntegrationPrepare, AFirebird5DatabaseOfItsOwnIsCreatedAndPreparedFromTheWindow) {
    BLOBBENCH_REQUIRE_ENV(shared, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    prepareOwnFirebirdDatabase(shared, test::envOrEmpty("BLOBBENCH_FB5_USER"),
                               test::envOrEmpty("BLOBBENCH_FB5_PASSWORD"), client);
}
