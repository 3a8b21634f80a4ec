// The run journal: the samples of a run in progress appended after every point, so a crash loses
// nothing measured without rewriting a long history each time; recovery into the project, a torn
// last line, and a real blobbench-cli killed with SIGKILL in the middle of a sweep.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/Error.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"

extern char** environ;

using namespace blobbench;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

Sample sampleOf(const std::string& scenario, int repetition) {
    Sample s;
    s.runId = "2026-11-30T01:00:00.000Z";
    s.scenarioId = scenario;
    s.scenarioTitle = "Test read " + scenario;
    s.sql = "SELECT ID, CONTENT FROM BLOB_TEST";
    s.repetition = repetition;
    s.engine = "sqlite";
    s.connection = "sqlite:/tmp/ref.sqlite";
    s.phases.fetch = Nanos(1'000'000 + repetition);
    s.rows = 10;
    s.contentBytes = 1000;
    return s;
}

RunRecord runHeader() {
    RunRecord r;
    r.runId = QStringLiteral("2026-11-30T01:00:00.000Z");
    r.startedAt = r.runId;
    r.machine = QStringLiteral("test");
    r.connectionName = QStringLiteral("Reference (SQLite)");
    return r;
}

std::size_t lines(const std::string& path) {
    std::ifstream in(path);
    return static_cast<std::size_t>(std::count(std::istreambuf_iterator<char>(in), {}, '\n'));
}

}  // namespace

TEST(RunJournal, RecoversSamplesTheProjectFileDoesNotHold) {
    TempDir dir;
    const QString path = q(dir.file("p.blobbench.json"));
    EXPECT_TRUE(recoverJournal(path, *std::make_unique<Project>()).isEmpty()) << "no journal, nothing to do";

    {
        RunJournal journal(path, runHeader());
        journal.append({sampleOf("all-blobs", 0), sampleOf("all-blobs", 1)});
        journal.append({});
        journal.append({sampleOf("varchar", 0)});
    }  // closed: the run died (a journal still open is another process's live one)

    // The project file as saved when the run started: the run, no samples yet.
    Project p;
    p.history.push_back(runHeader());
    const QString said = recoverJournal(path, p);
    EXPECT_NE(said.indexOf(QStringLiteral("recovered 3 samples")), -1) << said.toStdString();
    ASSERT_EQ(p.history.size(), 1u);
    ASSERT_EQ(p.history[0].samples.size(), 3u);
    EXPECT_EQ(p.history[0].samples[1].repetition, 1);
    EXPECT_EQ(p.history[0].samples[2].scenarioId, "varchar");
    EXPECT_EQ(p.history[0].samples[2].phases.fetch, Nanos(1'000'000));
    EXPECT_EQ(p.history[0].outcome, QStringLiteral("interrupted (recovered from its journal)"));

    // Recovering twice adds nothing; removeJournal() removes the file.
    EXPECT_NE(recoverJournal(path, p).indexOf(QStringLiteral("already holds its 3 samples")), -1);
    EXPECT_EQ(p.history[0].samples.size(), 3u);
    removeJournal(path);
    EXPECT_FALSE(QFile::exists(journalPathFor(path)));
}

TEST(RunJournal, RunMissingFromTheProjectIsAddedAndATornLineIgnored) {
    TempDir dir;
    const QString path = q(dir.file("p.blobbench.json"));
    {
        RunJournal journal(path, runHeader());
        journal.append({sampleOf("all-blobs", 0), sampleOf("all-blobs", 1)});
    }
    {
        std::ofstream torn(journalPathFor(path).toStdString(), std::ios::app);
        torn << R"({"scenario":"all-blobs","repetition":2,"pha)";
    }
    Project p;
    const QString said = recoverJournal(path, p);
    ASSERT_EQ(p.history.size(), 1u);
    EXPECT_EQ(p.history[0].runId, runHeader().runId);
    EXPECT_EQ(p.history[0].samples.size(), 2u);
    EXPECT_NE(said.indexOf(QStringLiteral("torn")), -1) << said.toStdString();
}

// Hostile round 5c H4: every sample line of a killed run's journal doubled; the next run said
// "recovered 768 samples" of 384 measured. A repeated line is one sample.
TEST(RunJournal, ARepeatedSampleLineIsOneSample) {
    TempDir dir;
    const QString path = q(dir.file("p.blobbench.json"));
    {
        RunJournal journal(path, runHeader());
        journal.append({sampleOf("all-blobs", 0), sampleOf("all-blobs", 1)});
    }
    const std::string file = journalPathFor(path).toStdString();
    std::string text;
    {
        std::ifstream in(file);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::string doubled;
    std::size_t at = 0;
    for (std::size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) {
        const std::string line = text.substr(at, end - at + 1);
        doubled += line;
        if (line.find("\"scenario\"") != std::string::npos)
            doubled += line;
    }
    std::ofstream(file, std::ios::trunc) << doubled;
    Project p;
    const QString said = recoverJournal(path, p);
    ASSERT_EQ(p.history.size(), 1u);
    EXPECT_EQ(p.history[0].samples.size(), 2u) << said.toStdString();
    EXPECT_NE(said.indexOf(QStringLiteral("recovered 2 samples")), -1) << said.toStdString();
    EXPECT_NE(said.indexOf(QStringLiteral("2 repeated sample lines read once")), -1) << said.toStdString();
}

// Hostile round 5c H3: another project's journal copied beside this one was merged into its history
// (2,000 samples of another database, under a connection name this project does not have). It is
// set aside, named in the line, and nothing of it is merged; a connection of the same name but
// another engine is no match either.
TEST(RunJournal, AnotherProjectsJournalIsSetAsideNotMerged) {
    for (const bool sameNameOtherEngine : {false, true}) {
        SCOPED_TRACE(sameNameOtherEngine ? "same name, another engine" : "a name this project lacks");
        TempDir dir;
        const QString path = q(dir.file("p8.blobbench.json"));
        {
            RunJournal journal(path, runHeader());
            journal.append({sampleOf("all-blobs", 0), sampleOf("all-blobs", 1)});
        }
        Project p;
        ConnectionProfile other;
        other.name = sameNameOtherEngine ? QStringLiteral("Reference (SQLite)") : QStringLiteral("other db");
        other.engine = sameNameOtherEngine ? QStringLiteral("postgres") : QStringLiteral("sqlite");
        other.target = QStringLiteral("sqlite:/elsewhere/s2.db");
        p.connections.push_back(other);
        const QString said = recoverJournal(path, p);
        EXPECT_TRUE(p.history.empty()) << said.toStdString();
        EXPECT_NE(said.indexOf(QStringLiteral("is not this project's")), -1) << said.toStdString();
        EXPECT_NE(said.indexOf(QStringLiteral("Reference (SQLite)")), -1) << said.toStdString();
        EXPECT_FALSE(QFileInfo::exists(journalPathFor(path)));
        EXPECT_TRUE(QFileInfo::exists(journalPathFor(path) + QStringLiteral(".broken"))) << said.toStdString();
    }
    // Its own connection: recovered as before.
    TempDir dir;
    const QString path = q(dir.file("p4.blobbench.json"));
    {
        RunJournal journal(path, runHeader());
        journal.append({sampleOf("all-blobs", 0)});
    }
    Project p;
    ConnectionProfile own;
    own.name = QStringLiteral("Reference (SQLite)");
    own.engine = QStringLiteral("sqlite");
    p.connections.push_back(own);
    const QString said = recoverJournal(path, p);
    ASSERT_EQ(p.history.size(), 1u) << said.toStdString();
    EXPECT_NE(said.indexOf(QStringLiteral("recovered 1 samples")), -1) << said.toStdString();
}

// Hostile round 4: a line damaged in the middle stopped the reading there, and the journal was then
// removed with the samples after it (74 lost). The samples before it are recovered, the journal is
// set aside, named in the one line, and a torn last line still needs no setting aside.
TEST(RunJournal, DamageBeforeTheEndSetsTheJournalAsideRatherThanLosingWhatFollows) {
    TempDir dir;
    const QString path = q(dir.file("p.blobbench.json"));
    const std::string journal = journalPathFor(path).toStdString();
    {
        RunJournal writer(path, runHeader());
        writer.append({sampleOf("all-blobs", 0), sampleOf("all-blobs", 1), sampleOf("all-blobs", 2)});
    }
    {
        std::ifstream in(journal);
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);) {
            lines.push_back(line);
        }
        ASSERT_EQ(lines.size(), 4u);  // the header, then a line a sample
        lines[2] = "garbage";         // the second sample
        std::ofstream out(journal, std::ios::trunc);
        for (const std::string& line : lines) {
            out << line << '\n';
        }
    }
    Project p;
    const std::string said = recoverJournal(path, p).toStdString();
    ASSERT_EQ(p.history.size(), 1u);
    EXPECT_EQ(p.history[0].samples.size(), 1u);
    EXPECT_NE(said.find("line 3: not a JSON object"), std::string::npos) << said;
    EXPECT_NE(said.find("set aside as " + journal + ".broken"), std::string::npos) << said;
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 0) << said;
    removeJournal(path);  // what run does after a recovery: the set-aside copy stays
    EXPECT_TRUE(std::filesystem::exists(journal + ".broken"));
    std::ifstream kept(journal + ".broken");
    const std::string text((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("\"repetition\":2"), std::string::npos) << "the samples after the damage are kept";
}

// A journal whose first run cannot be read would refuse every later run (issue #21.7): it is set
// aside, both names in full in the one line.
TEST(RunJournal, UnreadableHeaderIsSetAsideWithBothFilesNamed) {
    TempDir dir;
    const QString path = q(dir.file("p.blobbench.json"));
    const std::string journal = journalPathFor(path).toStdString();
    blobbench::test::writeFile(journal, "{\"runId\": 12}\n");
    Project p;
    const std::string said = recoverJournal(path, p).toStdString();
    EXPECT_NE(said.find(journal + " cannot be read (p.blobbench.json.journal line 1"), std::string::npos) << said;
    EXPECT_NE(said.find("set aside as " + journal + ".broken"), std::string::npos) << said;
    EXPECT_TRUE(p.history.empty());
    EXPECT_FALSE(std::filesystem::exists(journal));
    EXPECT_TRUE(std::filesystem::exists(journal + ".broken"));
    blobbench::test::writeFile(journal, "garbage");
    EXPECT_NE(recoverJournal(path, p).toStdString().find("set aside as " + journal + ".broken-2"), std::string::npos);
}

// A journal another process holds open is its live run's: neither recovered, removed nor reused.
TEST(RunJournal, JournalOfAnotherLiveProcessIsLeftAlone) {
    TempDir dir;
    const QString path = q(dir.file("p.blobbench.json"));
    int ready[2], go[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(go), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {  // the other process: holds the journal until told
        RunJournal held(path, runHeader());
        held.append({sampleOf("all-blobs", 0)});
        char byte = 'r';
        if (write(ready[1], &byte, 1) == 1 && read(go[0], &byte, 1) == 1) {
            held.discard();
        }
        _exit(0);
    }
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);
    Project p;
    EXPECT_NE(recoverJournal(path, p).indexOf(QStringLiteral("left alone")), -1);
    EXPECT_TRUE(p.history.empty());
    removeJournal(path);
    EXPECT_TRUE(QFile::exists(journalPathFor(path)));
    EXPECT_THROW(RunJournal(path, runHeader()), Error);
    EXPECT_EQ(lines(journalPathFor(path).toStdString()), 2u) << "the live journal was truncated";
    ASSERT_EQ(write(go[1], &byte, 1), 1);
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_FALSE(QFile::exists(journalPathFor(path)));
    for (int fd : {ready[0], ready[1], go[0], go[1]}) {
        close(fd);
    }
}

// The lock belongs to the process: a second window of the same workbench recovers the journal
// of the first one as a crashed run's.
TEST(RunJournal, JournalOfThisProcessIsRecoverable) {
    TempDir dir;
    const QString path = q(dir.file("p.blobbench.json"));
    RunJournal held(path, runHeader());
    held.append({sampleOf("all-blobs", 0)});
    Project p;
    EXPECT_NE(recoverJournal(path, p).indexOf(QStringLiteral("recovered 1 samples")), -1);
    removeJournal(path);
    EXPECT_FALSE(QFile::exists(journalPathFor(path)));
}

TEST(RunJournal, UnwritableFolderIsAnIoError) {
    if (geteuid() == 0) {
        GTEST_SKIP() << "root writes into read-only folders";
    }
    TempDir dir;
    std::filesystem::create_directory(dir.path() / "ro");
    std::filesystem::permissions(dir.path() / "ro",
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    EXPECT_THROW(RunJournal(q(dir.file("ro/p.blobbench.json")), runHeader()), Error);
}

// A real run killed with SIGKILL mid-sweep: the project file holds the run with none of its
// samples, the journal holds every finished point; the next `run` recovers them into the history.
TEST(RunJournal, KilledCliRunIsRecoveredByTheNextRun) {
    TempDir dir;
    const std::string db = dir.file("ref.sqlite");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + db, "--rows", "50"}).exitCode, 0);
    Project p = defaultProject(q(db));
    for (auto& s : p.scenarios) {
        s.enabled = s.id == QStringLiteral("short-blobs");
    }
    SweepDef sweep;
    sweep.name = QStringLiteral("long");
    SweepAxis axis;
    axis.parameter = QStringLiteral("cache_size");
    for (int i = 1; i <= 400; ++i) {
        axis.values.push_back(QString::number(i * 10));
    }
    sweep.axes = {axis};
    sweep.repetitions = 5;
    p.sweeps = {sweep};
    const std::string project = dir.file("study.blobbench.json");
    saveProject(q(project), p);
    const std::string journal = journalPathFor(q(project)).toStdString();

    std::vector<std::string> args = {BLOBBENCH_CLI_PATH, "run", project, "--sweep", "long", "--quiet"};
    std::vector<char*> argv;
    for (auto& a : args) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
    // Wait (bounded) until some points are journaled: the header line and at least ten samples.
    bool ready = false;
    for (int i = 0; i < 3000 && !ready; ++i) {
        ready = lines(journal) >= 11;
        if (!ready) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(ready) << "the run journaled nothing in 30 s";
    ASSERT_TRUE(WIFSIGNALED(status)) << "the sweep finished before it could be killed";

    const std::size_t journaled = lines(journal) - 1;
    const Project killed = loadProject(q(project));
    ASSERT_EQ(killed.history.size(), 1u);
    EXPECT_EQ(killed.history[0].samples.size(), 0u) << "the project file is only saved at start and end";

    const auto r = runCli({"run", project, "-s", "short-blobs", "-r", "1"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("recovered " + std::to_string(journaled) + " samples from its journal"), std::string::npos)
        << r.err;
    const Project after = loadProject(q(project));
    ASSERT_EQ(after.history.size(), 2u);
    EXPECT_EQ(after.history[0].samples.size(), journaled);
    EXPECT_EQ(after.history[0].outcome, QStringLiteral("interrupted (recovered from its journal)"));
    EXPECT_EQ(after.history[1].samples.size(), 1u) << r.out << r.err;
    EXPECT_FALSE(QFile::exists(q(journal))) << "the journal outlived the save that holds its samples";
}

// The workbench keeps one journal while several runs are unsaved, and writes a run's header again
// when it ends: recovery restores each run with its outcome.
TEST(RunJournal, SeveralRunsAndTheirOutcomes) {
    TempDir dir;
    const QString path = q(dir.file("p.blobbench.json"));
    RunRecord first = runHeader();
    RunRecord second = runHeader();
    second.runId = QStringLiteral("2026-11-30T02:00:00.000Z");
    {
        RunJournal journal(path, first);
        journal.append({sampleOf("all-blobs", 0)}, false);
        first.outcome = QStringLiteral("complete");
        first.finishedAt = QStringLiteral("2026-11-30T01:00:09.000Z");
        journal.beginRun(first);
        journal.beginRun(second);
        journal.append({sampleOf("all-blobs", 0), sampleOf("all-blobs", 1)}, false);
    }
    Project p;
    const QString said = recoverJournal(path, p);
    ASSERT_EQ(p.history.size(), 2u) << said.toStdString();
    EXPECT_EQ(p.history[0].samples.size(), 1u);
    EXPECT_EQ(p.history[0].outcome, QStringLiteral("complete"));
    EXPECT_EQ(p.history[0].finishedAt, first.finishedAt);
    EXPECT_EQ(p.history[1].runId, second.runId);
    EXPECT_EQ(p.history[1].samples.size(), 2u);
    EXPECT_EQ(p.history[1].outcome, QStringLiteral("interrupted (recovered from its journal)"));
}
