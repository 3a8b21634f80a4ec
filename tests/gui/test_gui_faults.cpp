// The window under faults, against the real PostgreSQL and Firebird servers (label integration): a
// run that cannot connect and a run with an SQL error in the middle of a suite show the same
// one-line error as blobbench-cli / the Runner in the window's banner; the server ending the run's
// session in the middle of a read (PostgreSQL pg_terminate_backend, Firebird DELETE FROM
// MON$ATTACHMENTS) ends the run with one line naming the connection, the scenario and the server's
// words. Each time the window stays usable (the next run succeeds) and what was measured before
// the fault stays in the results table and in the project's history, marked complete.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QSignalSpy>
#include <functional>
#include <iostream>

#include "GuiTestSupport.h"
#include "WindowSupport.h"
#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "engine/run/Runner.h"
#include "support/PgSupport.h"
#include "support/SocketSupport.h"
#include "support/TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/ResultsModel.h"

using namespace blobbench;
using blobbench::test::closedPort;
using blobbench::test::TempDir;

namespace {

constexpr int kRunTimeoutMs = 60000;

bool runAndWait(MainWindow& window, bool& ok) {
    QSignalSpy finished(&window, &MainWindow::runFinished);
    window.runAll();
    if (finished.count() == 0 && !finished.wait(kRunTimeoutMs)) {
        return false;
    }
    ok = finished.takeFirst().at(0).toBool();
    return true;
}

ScenarioDef scenario(const std::string& id, const std::string& title, const std::string& sql) {
    ScenarioDef def = ScenarioDef::fromScenario(Scenario{id, title, ScenarioKind::Query, "", sql});
    def.enabled = true;
    return def;
}

}  // namespace

TEST(GuiFaults, ErrorLineLikeTheCliWindowUsableSamplesKept) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const std::string table = "bb_gui_faults_" + std::to_string(::getpid());
    test::PgConn admin(conninfo);
    admin.value("DROP TABLE IF EXISTS " + table);
    admin.value("CREATE TABLE " + table + " (id integer, content text)");
    admin.value("INSERT INTO " + table + " VALUES (1, 'ab'), (2, NULL), (3, '')");

    TempDir dir;
    auto* document = new ProjectDocument;
    document->reset(defaultProject(QString::fromStdString(dir.file("unused.sqlite"))));
    ConnectionProfile good;
    good.name = QStringLiteral("PostgreSQL under test");
    good.engine = QStringLiteral("postgres");
    good.target = QString::fromStdString(conninfo);
    const int goodIndex = document->addConnection(good);
    const std::string port = std::to_string(closedPort());
    const std::string closedTarget = "host=127.0.0.1 port=" + port + " dbname=blob_test user=postgres";
    ConnectionProfile closed;
    closed.name = QStringLiteral("Nobody listens");
    closed.engine = QStringLiteral("postgres");
    closed.target = QString::fromStdString(closedTarget);
    closed.useWireTap = false;  // compared with the CLI run with --no-tap
    const int closedIndex = document->addConnection(closed);
    ConnectionProfile tapped = closed;
    tapped.name = QStringLiteral("Nobody listens, through the tap");
    tapped.useWireTap = true;
    tapped.link.latencyUpMs = 1;  // an emulated link: the relay, not the default in-process counting
    const int tappedIndex = document->addConnection(tapped);

    Project project = document->project();
    project.scenarios = {scenario("good", "Good read", "SELECT id, content FROM " + table + " ORDER BY id"),
                         scenario("missing", "Missing table", "SELECT id, content FROM bb_gui_faults_no_such_table")};
    project.currentConnection = closedIndex;
    document->reset(project);
    MainWindow window(document);
    test::adoptAndShow(window, document);

    // 1. Connection refused: the banner holds the CLI's line (without "blobbench-cli: ").
    bool ok = true;
    ASSERT_TRUE(runAndWait(window, ok)) << "a refused connection ends the run";
    EXPECT_FALSE(ok);
    const QString refused = window.errorText();
    const auto cli = test::runCli({"run", closedTarget, "-s", "warm-up", "-q", "--no-tap"});
    ASSERT_EQ(cli.exitCode, 1) << cli.err;
    ASSERT_TRUE(cli.err.starts_with("blobbench-cli: ")) << cli.err;
    std::string cliLine = cli.err.substr(std::string("blobbench-cli: ").size());
    while (!cliLine.empty() && cliLine.back() == '\n') {
        cliLine.pop_back();
    }
    std::cout << "[gui fault line] " << refused.toStdString() << "\n[cli fault line] " << cliLine << std::endl;
    EXPECT_EQ(refused.toStdString(), cliLine) << "the GUI shows the CLI's line";
    EXPECT_FALSE(refused.contains(QLatin1Char('\n'))) << "one line";
    EXPECT_FALSE(window.isRunning());
    EXPECT_EQ(window.resultsModel()->rowCount(), 0) << "nothing was measured";

    // 1b. The same through the wire tap: libpq sees the relay close, the line adds the relay's reason.
    document->setCurrentConnection(tappedIndex);
    ASSERT_TRUE(runAndWait(window, ok));
    EXPECT_FALSE(ok);
    const QString viaTap = window.errorText();
    std::cout << "[gui fault line] " << viaTap.toStdString() << std::endl;
    EXPECT_TRUE(viaTap.startsWith(QString::fromStdString("postgres:" + closedTarget + ": connect: connection to")))
        << "the connection as given, the phase once: " << viaTap.toStdString();
    EXPECT_TRUE(viaTap.endsWith(
        QString::fromStdString("(wire tap: cannot connect to upstream 127.0.0.1:" + port + ": Connection refused)")))
        << viaTap.toStdString();
    EXPECT_FALSE(viaTap.contains(QLatin1Char('\n')));

    // 2. An SQL error in the middle of the suite: the Runner's line, the sample before kept complete.
    document->setCurrentConnection(goodIndex);
    ASSERT_TRUE(runAndWait(window, ok)) << "the window stays usable after a failed run";
    EXPECT_FALSE(ok);
    const QString sqlError = window.errorText();
    RunPlan plan;
    plan.runId = "gui-faults-reference";
    plan.connection = ConnectionSpec{"postgres", conninfo};
    plan.wireTap = true;
    plan.scenarios = {project.scenarios[0].toScenario(), project.scenarios[1].toScenario()};
    Runner runner;
    RunObserver quiet;
    const RunOutcome reference = runner.run(plan, quiet);
    std::cout << "[gui fault line] " << sqlError.toStdString() << "\n[runner line] " << reference.error << std::endl;
    EXPECT_FALSE(reference.ok);
    EXPECT_TRUE(sqlError.contains(QStringLiteral("Missing table: "))) << sqlError.toStdString();
    EXPECT_TRUE(sqlError.contains(QStringLiteral("does not exist"))) << "the server's words";
    EXPECT_FALSE(sqlError.contains(QLatin1Char('\n'))) << "one line";
    EXPECT_EQ(sqlError.toStdString(), reference.error) << "the same line as the Runner (and so the CLI)";

    auto history = document->project().history;
    ASSERT_GE(history.size(), 1U);
    const RunRecord& failed = history.back();
    EXPECT_TRUE(failed.outcome.startsWith(QStringLiteral("failed: "))) << failed.outcome.toStdString();
    ASSERT_EQ(failed.samples.size(), 2U);
    EXPECT_EQ(failed.samples[0].status, SampleStatus::Complete);
    EXPECT_EQ(failed.samples[0].rows, 3U);
    EXPECT_EQ(failed.samples[0].contentBytes, 2U);
    EXPECT_EQ(failed.samples[1].status, SampleStatus::Failed);
    EXPECT_EQ(window.resultsModel()->rowCount(), 2) << "both samples are in the table, the complete one kept";

    // 3. A good run afterwards succeeds; the earlier record keeps its samples.
    ScenarioDef unchecked = document->project().scenarios[1];
    unchecked.enabled = false;
    document->setScenario(1, unchecked);
    ASSERT_TRUE(runAndWait(window, ok));
    EXPECT_TRUE(ok) << window.errorText().toStdString();
    EXPECT_TRUE(window.errorText().isEmpty()) << window.errorText().toStdString();
    history = document->project().history;
    ASSERT_GE(history.size(), 2U);
    EXPECT_EQ(history.back().outcome, QStringLiteral("complete"));
    ASSERT_EQ(history.back().samples.size(), 1U);
    EXPECT_EQ(history.back().samples[0].status, SampleStatus::Complete);
    const RunRecord& earlier = history[history.size() - 2];
    ASSERT_EQ(earlier.samples.size(), 2U);
    EXPECT_EQ(earlier.samples[0].status, SampleStatus::Complete) << "kept, marked complete";

    admin.value("DROP TABLE " + table);
}

namespace {

// Runs the window's suite, "Before" (ten rows) then "Long read" (which must last seconds), on
// `profile` through the tap; once "Before" is in, `kill` ends the run's server session from this
// thread while the worker reads. Then checks the banner, the history and that the window runs
// again; returns the banner's line.
std::string killMidRun(ConnectionProfile profile, const std::string& longSql,
                       const std::function<std::string()>& kill) {
    TempDir dir;
    auto* document = new ProjectDocument;
    document->reset(defaultProject(QString::fromStdString(dir.file("unused.sqlite"))));
    profile.useWireTap = true;
    const int index = document->addConnection(profile);
    Project project = document->project();
    project.scenarios = {scenario("before", "Before", "SELECT ID, CONTENT FROM BLOB_TEST WHERE ID <= 10"),
                         scenario("long", "Long read", longSql)};
    project.currentConnection = index;
    document->reset(project);
    MainWindow window(document);
    test::adoptAndShow(window, document);

    QSignalSpy samples(document, &ProjectDocument::sampleAppended);
    QSignalSpy finished(&window, &MainWindow::runFinished);
    window.runAll();
    EXPECT_TRUE(test::waitUntil([&] { return samples.count() >= 1 || finished.count() > 0; }, kRunTimeoutMs));
    EXPECT_EQ(finished.count(), 0) << "the run ended before the kill: " << window.errorText().toStdString();
    if (finished.count() > 0) {
        return {};
    }
    const std::string killed = kill();
    EXPECT_TRUE(finished.count() > 0 || finished.wait(kRunTimeoutMs)) << "the run ends after the kill";
    if (finished.count() == 0) {
        return {};
    }
    EXPECT_FALSE(finished.takeFirst().at(0).toBool());
    const std::string line = window.errorText().toStdString();
    std::cout << "[gui fault line] " << line << " (kill: " << killed << ")" << std::endl;
    const std::string label = profile.toSpec().label();
    EXPECT_TRUE(line.starts_with(label + ": Long read: ")) << "the connection and the scenario: " << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << "one line";
    EXPECT_FALSE(window.isRunning());

    auto history = document->project().history;
    EXPECT_FALSE(history.empty());
    if (history.empty()) {
        return line;
    }
    const RunRecord& failed = history.back();
    EXPECT_TRUE(failed.outcome.startsWith(QStringLiteral("failed: "))) << failed.outcome.toStdString();
    EXPECT_EQ(failed.samples.size(), 2U);
    if (failed.samples.size() == 2U) {
        EXPECT_EQ(failed.samples[0].status, SampleStatus::Complete) << "measured before the fault: kept";
        EXPECT_EQ(failed.samples[0].rows, 10U);
        EXPECT_EQ(failed.samples[1].status, SampleStatus::Failed);
        EXPECT_FALSE(failed.samples[1].error.empty());
    }
    EXPECT_EQ(window.resultsModel()->rowCount(), 2);

    // The window runs again on the same connection (a new session), the long read left out.
    ScenarioDef unchecked = document->project().scenarios[1];
    unchecked.enabled = false;
    document->setScenario(1, unchecked);
    bool ok = false;
    EXPECT_TRUE(runAndWait(window, ok));
    EXPECT_TRUE(ok) << window.errorText().toStdString();
    history = document->project().history;
    EXPECT_EQ(history.back().outcome, QStringLiteral("complete"));
    return line;
}

}  // namespace

TEST(GuiFaults, PostgresBackendKilledMidRead) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    test::ensurePgData(conninfo);
    ConnectionProfile profile;
    profile.name = QStringLiteral("PostgreSQL, backend killed");
    profile.engine = QStringLiteral("postgres");
    profile.target = QString::fromStdString(conninfo);
    // Slow on the server (20 ms a row), so that the backend is still sending when it is killed.
    const std::string line = killMidRun(profile, "SELECT ID, CONTENT, pg_sleep(0.02) FROM BLOB_TEST ORDER BY ID", [&] {
        test::PgConn admin(conninfo);
        return admin.value(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'blobbench' "
            "AND pid <> pg_backend_pid() AND query LIKE '%pg_sleep(0.02)%'");
    });
    EXPECT_NE(line.find("administrator command"), std::string::npos) << "the server's words: " << line;
}

TEST(GuiFaults, FirebirdAttachmentKilledMidRead) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    // The window takes the password where the engine's own client does (ISC_PASSWORD).
    qputenv("ISC_PASSWORD", QByteArray::fromStdString(password));
    const std::vector<std::string> env = {"ISC_PASSWORD=" + password};
    if (test::runCli({"run", database, "-u", user, "-s", "warm-up", "-q"}, env).exitCode != 0) {
        ASSERT_EQ(test::runCli({"prepare", database, "-u", user, "--rows", "200", "-q"}, env).exitCode, 0);
    }
    ConnectionProfile profile;
    profile.name = QStringLiteral("Firebird, attachment killed");
    profile.engine = QStringLiteral("firebird");
    profile.target = QString::fromStdString(database);
    profile.user = QString::fromStdString(user);
    // Slow on the link (2 Mbit/s down, emulated by the tap): Firebird sends a batch of rows or a
    // BLOB segment per request, so little is in flight when the attachment goes.
    profile.link.bandwidthDownBits = 2'000'000;
    const std::string line = killMidRun(
        profile, "SELECT a.ID, a.CONTENT FROM BLOB_TEST a CROSS JOIN (SELECT ID FROM BLOB_TEST ROWS 5) b ROWS 1000",
        [&] {
            // This process's other attachment: the window's run (MON$REMOTE_PID is the client's pid).
            const Driver& driver = driverById("firebird");
            ConnectionSpec spec{"firebird", database};
            spec.user = user;
            spec.password = password;
            try {
                auto admin = driver.connect(spec, resolveParameters(driver.parameters(), {}));
                admin->execute(
                    "DELETE FROM MON$ATTACHMENTS WHERE MON$ATTACHMENT_ID <> CURRENT_CONNECTION AND MON$REMOTE_PID = " +
                    std::to_string(::getpid()));
                admin->commit();
                return std::string("deleted");
            } catch (const Error& e) {
                ADD_FAILURE() << "the kill failed: " << e.what();
                return std::string(e.what());
            }
        });
    EXPECT_EQ(line.find(password), std::string::npos);
    qunsetenv("ISC_PASSWORD");
}
