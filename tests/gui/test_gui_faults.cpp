// The window under faults, against the real PostgreSQL server (label integration): a run that
// cannot connect and a run with an SQL error in the middle of a suite show the same one-line error
// as blobbench-cli / the Runner in the window's banner; the window stays usable (the next run on a
// good connection succeeds) and what was measured before the fault stays in the results table and
// in the project's history, marked complete.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QSignalSpy>

#include "GuiTestSupport.h"
#include "engine/drivers/Registry.h"
#include "engine/run/Runner.h"
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

void execute(const std::string& conninfo, const std::string& sql) {
    const Driver& driver = driverById("postgres");
    auto session = driver.connect(ConnectionSpec{"postgres", conninfo}, resolveParameters(driver.parameters(), {}));
    session->execute(sql);
}

}  // namespace

TEST(GuiFaults, ErrorLineLikeTheCliWindowUsableSamplesKept) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const std::string table = "bb_gui_faults_" + std::to_string(::getpid());
    execute(conninfo, "DROP TABLE IF EXISTS " + table);
    execute(conninfo, "CREATE TABLE " + table + " (id integer, content text)");
    execute(conninfo, "INSERT INTO " + table + " VALUES (1, 'ab'), (2, NULL), (3, '')");

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
    const int tappedIndex = document->addConnection(tapped);

    Project project = document->project();
    project.scenarios = {scenario("good", "Good read", "SELECT id, content FROM " + table + " ORDER BY id"),
                         scenario("missing", "Missing table", "SELECT id, content FROM bb_gui_faults_no_such_table")};
    project.currentConnection = closedIndex;
    document->reset(project);
    MainWindow window(document);
    document->setParent(&window);
    window.setSuppressUnsavedPrompt(true);
    window.resize(1280, 860);
    window.show();

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

    execute(conninfo, "DROP TABLE " + table);
}
