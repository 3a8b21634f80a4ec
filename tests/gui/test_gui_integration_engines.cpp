// The window against the real Firebird 3 server (label integration): scenarios follow the engine.
// A SQLite project switched to Firebird runs Firebird's reference statements, never SQLite's, and a
// scenario the user wrote for SQLite is marked and left out instead of failing on the server.
#include <gtest/gtest.h>

#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <set>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "engine/data/ReferenceSuite.h"
#include "support/TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/ParameterPanel.h"
#include "ui/RunController.h"
#include "ui/ScenarioListModel.h"
#include "ui/SweepEditor.h"

using namespace blobbench;
using blobbench::test::TempDir;

namespace {

constexpr int kRunTimeoutMs = 300000;

bool runAndWait(MainWindow& window, const std::function<void()>& start) {
    QSignalSpy finished(&window, &MainWindow::runFinished);
    start();
    return finished.count() > 0 || finished.wait(kRunTimeoutMs);
}

QString referenceSql(Dialect dialect, const std::string& id) {
    for (const Scenario& s : referenceSuite(dialect)) {
        if (s.id == id)
            return QString::fromStdString(s.sql);
    }
    return {};
}

}  // namespace

TEST(GuiIntegrationEngines, SwitchingSqliteToFirebirdRunsFirebirdsOwnSql) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    qputenv("ISC_PASSWORD", QByteArray::fromStdString(password));
    const std::vector<std::string> env = {"ISC_PASSWORD=" + password};
    if (test::runCli({"run", database, "-u", user, "-s", "warm-up", "-q"}, env).exitCode != 0) {
        ASSERT_EQ(test::runCli({"prepare", database, "-u", user, "--rows", "300", "-q"}, env).exitCode, 0);
    }
    TempDir dir;
    const QString sqlitePath = QString::fromStdString(dir.file("reference.sqlite"));
    auto* document = new ProjectDocument;
    Project project = defaultProject(sqlitePath);
    for (ScenarioDef& s : project.scenarios)
        s.enabled = s.id == QLatin1String("short-blobs") || s.id == QLatin1String("blob-ids");
    ScenarioDef custom;
    custom.id = QStringLiteral("lengths");
    custom.title = QStringLiteral("Lengths");
    custom.sql = QStringLiteral("SELECT LENGTH(CONTENT) FROM BLOB_TEST");  // SQLite's LENGTH: Firebird has none
    project.scenarios.push_back(custom);
    ConnectionProfile fb3;
    fb3.name = QStringLiteral("Firebird 3 under test");
    fb3.engine = QStringLiteral("firebird");
    fb3.target = QString::fromStdString(database);
    fb3.user = QString::fromStdString(user);
    project.connections.push_back(fb3);
    document->reset(project);
    MainWindow window(document);
    test::adoptAndShow(window, document);
    window.setDefaultDataset(sqlitePath, 200);
    window.setRepetitions(1);

    // SQLite first: its own statements, the custom one included.
    ASSERT_TRUE(runAndWait(window, [&] { window.runAll(); }));
    ASSERT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    std::set<std::string> sqliteRan;
    for (const Sample& s : document->project().history.back().samples) {
        EXPECT_EQ(s.engine, "sqlite");
        EXPECT_EQ(s.status, SampleStatus::Complete) << s.error;
        if (s.scenarioId == "blob-ids") {
            EXPECT_EQ(s.contentBytes, 0u) << "the ids only";
        }
        sqliteRan.insert(s.scenarioId);
    }
    EXPECT_EQ(sqliteRan, (std::set<std::string>{"short-blobs", "blob-ids", "lengths"}));

    // Switch to Firebird 3: the reference scenarios now hold Firebird's statements.
    document->setCurrentConnection(1);
    for (const ScenarioDef& s : document->project().scenarios) {
        if (s.id == QLatin1String("lengths"))
            continue;
        EXPECT_EQ(s.sql, referenceSql(Dialect::Firebird, s.id.toStdString())) << s.id.toStdString();
    }
    const QString marked =
        window.scenarios()->model()->index(static_cast<int>(project.scenarios.size()) - 1).data().toString();
    EXPECT_TRUE(marked.contains(QStringLiteral("written for SQLite"))) << marked.toStdString();

    ASSERT_TRUE(runAndWait(window, [&] { window.runAll(); }));
    const QString log = window.logView()->toPlainText();
    EXPECT_FALSE(log.contains(QStringLiteral("Token unknown"))) << log.toStdString();
    EXPECT_TRUE(log.contains(QStringLiteral("“Lengths” was written for SQLite: not run on Firebird")));
    const RunRecord& run = document->project().history.back();
    std::set<std::string> firebirdRan;
    for (const Sample& s : run.samples) {
        EXPECT_EQ(s.engine, "firebird");
        EXPECT_EQ(s.status, SampleStatus::Complete) << s.error;
        // The ids-only fetch mode came along (#30: it read the whole content after the switch).
        if (s.scenarioId == "blob-ids") {
            EXPECT_EQ(s.contentBytes, 0u) << "the ids only, on Firebird too";
        } else {
            EXPECT_GT(s.contentBytes, 0u);
        }
        firebirdRan.insert(s.scenarioId);
    }
    EXPECT_EQ(firebirdRan, (std::set<std::string>{"short-blobs", "blob-ids"}));

    // Run on the marked scenario alone: refused with one clear line, nothing sent.
    const std::size_t runs = document->project().history.size();
    window.scenarios()->setCurrentIndex(window.scenarios()->count() - 1);
    window.runCurrent();
    EXPECT_FALSE(window.isRunning());
    EXPECT_TRUE(window.errorText().contains(QStringLiteral("written for SQLite"))) << window.errorText().toStdString();
    EXPECT_EQ(document->project().history.size(), runs);

    // Back on SQLite the mark goes and SQLite's own statements return.
    document->setCurrentConnection(0);
    EXPECT_EQ(window.scenarios()->model()->index(window.scenarios()->count() - 1).data().toString(),
              QStringLiteral("Lengths"));
    EXPECT_EQ(document->project().scenarios.front().sql,
              referenceSql(Dialect::SQLite, document->project().scenarios.front().id.toStdString()));
    qunsetenv("ISC_PASSWORD");
}

namespace {

// Chooses `profile` in a fresh window of the default project and waits for the background test.
struct ChosenConnection {
    TempDir dir;
    ProjectDocument* document = new ProjectDocument;
    MainWindow window{document};

    explicit ChosenConnection(const ConnectionProfile& profile) {
        document->reset(defaultProject(QString::fromStdString(dir.file("unused.sqlite"))));
        test::adoptAndShow(window, document);
        QSignalSpy tested(window.controller(), &RunController::connectionTested);
        document->setCurrentConnection(document->addConnection(profile));
        EXPECT_TRUE(tested.wait(60000)) << "choosing a networked connection tests it in the background";
        EXPECT_TRUE(tested.value(0).value(0).toBool()) << window.errorText().toStdString();
    }
};

ConnectionProfile firebirdProfile(const std::string& database, const std::string& user, const std::string& client) {
    ConnectionProfile p;
    p.name = QStringLiteral("Firebird under test");
    p.engine = QStringLiteral("firebird");
    p.target = QString::fromStdString(database);
    p.user = QString::fromStdString(user);
    p.clientLibrary = QString::fromStdString(client);
    return p;
}

}  // namespace

TEST(GuiIntegrationEngines, OnFirebird3InlineBlobsAreOffBeforeTheFirstRun) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    qputenv("ISC_PASSWORD", QByteArray::fromStdString(password));
    ChosenConnection chosen(firebirdProfile(database, user, {}));
    MainWindow& window = chosen.window;
    EXPECT_TRUE(chosen.document->project().history.empty()) << "nothing was run";
    QWidget* slider = window.parameterPanel()->editor(QStringLiteral("max_inline_blob_size"));
    ASSERT_NE(slider, nullptr);
    EXPECT_FALSE(slider->isEnabled());
    // One short sentence next to the slider, no "not in effect" twice, no DPB numbers.
    auto* note = window.parameterPanel()->findChild<QLabel*>(QStringLiteral("note_max_inline_blob_size"));
    ASSERT_NE(note, nullptr);
    EXPECT_FALSE(note->isHidden());
    const QString sentence = note->text();
    EXPECT_TRUE(sentence.startsWith(QStringLiteral("Not in effect: "))) << sentence.toStdString();
    EXPECT_TRUE(sentence.contains(QStringLiteral("older (needs client and server >= 5.0.3)")))
        << sentence.toStdString();
    EXPECT_EQ(sentence.count(QStringLiteral("not in effect"), Qt::CaseInsensitive), 1) << sentence.toStdString();
    EXPECT_FALSE(slider->toolTip().contains(QStringLiteral("Needs:"))) << slider->toolTip().toStdString();

    // A sweep over it is refused with the reason; over another tunable it may run.
    SweepEditor* editor = window.sweepEditor();
    editor->newSweep();
    SweepDef sweep = chosen.document->project().sweeps.front();
    sweep.axes.front().parameter = QStringLiteral("max_inline_blob_size");
    sweep.axes.front().values = {QStringLiteral("0"), QStringLiteral("65535")};
    sweep.axes.front().range.reset();
    chosen.document->setSweep(0, sweep);
    EXPECT_FALSE(editor->runButton()->isEnabled());
    EXPECT_TRUE(editor->previewText().contains(QStringLiteral("cannot take effect")))
        << editor->previewText().toStdString();
    sweep.axes.front().parameter = QStringLiteral("wire_compression");
    sweep.axes.front().values = {QStringLiteral("false"), QStringLiteral("true")};
    chosen.document->setSweep(0, sweep);
    EXPECT_TRUE(editor->runButton()->isEnabled()) << editor->previewText().toStdString();
    qunsetenv("ISC_PASSWORD");
}

TEST(GuiIntegrationEngines, OnFirebird5InlineBlobsStayAvailable) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    qputenv("ISC_PASSWORD", QByteArray::fromStdString(password));
    ChosenConnection chosen(firebirdProfile(database, user, client));
    QWidget* slider = chosen.window.parameterPanel()->editor(QStringLiteral("max_inline_blob_size"));
    ASSERT_NE(slider, nullptr);
    EXPECT_TRUE(slider->isEnabled())
        << chosen.window.parameterPanel()->disabledReason(QStringLiteral("max_inline_blob_size")).toStdString();
    auto* note = chosen.window.parameterPanel()->findChild<QLabel*>(QStringLiteral("note_max_inline_blob_size"));
    ASSERT_NE(note, nullptr);
    EXPECT_TRUE(note->isHidden());
    qunsetenv("ISC_PASSWORD");
}

// A password the server refused is not reused silently: the next connect asks again.
TEST(GuiIntegrationEngines, ARefusedPasswordIsAskedAgainAtTheNextRun) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    qunsetenv("ISC_PASSWORD");
    TempDir dir;
    auto* document = new ProjectDocument;
    Project project = defaultProject(QString::fromStdString(dir.file("unused.sqlite")));
    project.scenarios.clear();
    for (const Scenario& s : referenceSuite(Dialect::Firebird)) {
        if (s.id == "blob-ids")
            project.scenarios.push_back(ScenarioDef::fromScenario(s));
    }
    project.connections.push_back(firebirdProfile(database, user, {}));
    document->reset(project);
    MainWindow window(document);
    test::adoptAndShow(window, document);
    window.setRepetitions(1);
    QStringList answers = {QStringLiteral("not-the-password"), QString::fromStdString(password)};
    int asked = 0;
    window.connections()->setPasswordPrompt(
        [&](const ConnectionProfile&) -> std::optional<ConnectionController::PasswordAnswer> {
            ++asked;
            return ConnectionController::PasswordAnswer{answers.value(asked - 1), false};
        });
    QSignalSpy tested(window.controller(), &RunController::connectionTested);
    document->setCurrentConnection(1);  // the background test asks, and is refused
    ASSERT_TRUE(tested.wait(60000));
    EXPECT_FALSE(tested.value(0).value(0).toBool());
    EXPECT_EQ(asked, 1);

    ASSERT_TRUE(runAndWait(window, [&] { window.runAll(); }));
    EXPECT_EQ(asked, 2) << "the refused password is asked again";
    EXPECT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    ASSERT_FALSE(document->project().history.empty());
    EXPECT_EQ(document->project().history.back().samples.front().status, SampleStatus::Complete);
    ASSERT_TRUE(runAndWait(window, [&] { window.runAll(); }));
    EXPECT_EQ(asked, 2) << "an accepted password stays for the session";
    EXPECT_FALSE(window.logView()->toPlainText().contains(QString::fromStdString(password)));
}
