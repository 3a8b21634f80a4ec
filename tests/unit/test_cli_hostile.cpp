// Issue #21 (part B), on SQLite (no server): a real blobbench-cli against a broken journal, four
// runs of one project at once, a run whose journal another process holds, SIGINT / SIGTERM in the
// middle of a run, a closed stdout pipe, a full disk behind stdout, and options that cannot work.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "model/ProjectFile.h"
#include "support/TestSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// A prepared SQLite data set and a project on it with the short-blobs scenario only.
struct SqliteProject {
    TempDir dir;
    std::string db = dir.file("ref.sqlite");
    std::string path = dir.file("p.blobbench.json");

    SqliteProject() {
        const auto r = runCli({"prepare", "sqlite:" + db, "--rows", "20"});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        Project p = defaultProject(q(db));
        for (auto& s : p.scenarios) {
            s.enabled = s.id == QStringLiteral("short-blobs");
        }
        saveProject(q(path), p);
    }
    // A scenario that fetches for ever (rows made up by SQLite, polled for cancel between rows):
    // a signal after it starts always lands in a sample in progress.
    void addEndlessScenario() {
        Project p = loadProject(q(path));
        for (auto& s : p.scenarios) {
            s.enabled = false;
        }
        ScenarioDef endless;
        endless.id = QStringLiteral("endless");
        endless.title = QStringLiteral("Endless rows");
        endless.sql = QStringLiteral(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4000000000) "
            "SELECT x AS ID, randomblob(200) AS CONTENT FROM c");
        p.scenarios.push_back(endless);
        saveProject(q(path), p);
    }
};

}  // namespace

// Issue #21.7: a torn or garbage journal used to block its project for ever (every run exit 1,
// "the run journal cannot be read"). It is set aside, named in full on stderr, and the run goes on.
TEST(HostileCli, BrokenJournalIsSetAsideAndTheProjectRunsOn) {
    SqliteProject p;
    const std::string journal = journalPathFor(q(p.path)).toStdString();
    for (const std::string& garbage :
         {std::string("{\"runId\":\"2026-11-30T01:0"), std::string("\x01\x02 garbage\n")}) {
        test::writeFile(journal, garbage);
        const auto r = runCli({"run", p.path, "-r", "1", "-q"});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        const auto at = r.err.find("set aside as ");
        ASSERT_NE(at, std::string::npos) << r.err;
        const std::string aside = r.err.substr(at + 13, r.err.find_first_of(" \n;", at + 13) - at - 13);
        EXPECT_TRUE(aside.starts_with(p.dir.path().string() + "/")) << "named in full: " << r.err;
        EXPECT_EQ(blobbench::test::readFile(aside), garbage) << aside;
        EXPECT_FALSE(std::filesystem::exists(journal));
        std::filesystem::remove(aside);
    }
    EXPECT_EQ(loadProject(q(p.path)).history.size(), 2u);
}

// Issue #21.2: four runs of one project at once used to keep one run in the history. Each run
// holds the project's lock from loading it to its last save; the others wait for it (one line
// each), so every run lands, with its own id and samples.
TEST(HostileCli, FourRunsOfOneProjectAtOnceAllLandWithUniqueIds) {
    SqliteProject p;
    std::vector<std::unique_ptr<CliProcess>> runs;
    for (int i = 0; i < 4; ++i) {
        runs.push_back(std::make_unique<CliProcess>(std::vector<std::string>{"run", p.path, "-r", "2", "-q"}));
    }
    int waited = 0;
    for (auto& run : runs) {
        const auto r = run->wait(300s);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        EXPECT_NE(r.err.find("Saved run"), std::string::npos) << r.err;
        waited += r.err.find("waiting for it to finish") != std::string::npos;
    }
    const Project after = loadProject(q(p.path));
    ASSERT_EQ(after.history.size(), 4u);
    std::set<QString> ids;
    for (const auto& run : after.history) {
        ids.insert(run.runId);
        EXPECT_EQ(run.samples.size(), 2u) << run.runId.toStdString();
        EXPECT_EQ(run.outcome, QStringLiteral("complete")) << run.runId.toStdString();
        for (const auto& s : run.samples) {
            EXPECT_EQ(q(s.runId), run.runId) << "a sample in another run's record";
        }
    }
    EXPECT_EQ(ids.size(), 4u) << "two runs got the same id";
    EXPECT_FALSE(std::filesystem::exists(journalPathFor(q(p.path)).toStdString()));
    std::cout << waited << " of 4 runs waited for another\n";
}

// Issue #21.2: a journal another process is writing (the workbench's, with unsaved runs) is never
// recovered nor truncated: the run refuses with one line and the journal stays as it was.
TEST(HostileCli, LiveJournalOfAnotherProcessIsLeftAlone) {
    SqliteProject p;
    RunRecord live;
    live.runId = QStringLiteral("2026-11-30T01:00:00.000Z");
    live.startedAt = live.runId;
    const std::string journal = journalPathFor(q(p.path)).toStdString();
    // The other process (a workbench with unsaved runs) holds the journal until told. Forked: the
    // lock is a process's, and this one's would go with any descriptor of the file it closes.
    int ready[2], go[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(go), 0);
    const pid_t holder = fork();
    ASSERT_GE(holder, 0);
    if (holder == 0) {
        RunJournal held(q(p.path), live);
        char byte = 'r';
        if (write(ready[1], &byte, 1) == 1) {
            [[maybe_unused]] const auto n = read(go[0], &byte, 1);
        }
        _exit(0);
    }
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);
    const std::string before = blobbench::test::readFile(journal);
    const auto r = runCli({"run", p.path, "-r", "1", "-q"});
    const std::string after = blobbench::test::readFile(journal);
    ASSERT_EQ(write(go[1], &byte, 1), 1);
    int status = 0;
    waitpid(holder, &status, 0);
    for (int fd : {ready[0], ready[1], go[0], go[1]}) {
        close(fd);
    }
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("in use by another process"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("recovered"), std::string::npos) << r.err;
    // Hostile round 2: "... left alone" and then "... is in use by another process", two lines.
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(after, before);
    for (const auto& run : loadProject(q(p.path)).history) {
        EXPECT_NE(run.runId, live.runId) << "the live run was recovered";
    }
    // Hostile round 2026-12-01: the refused run was saved first, as a run without samples or outcome.
    EXPECT_TRUE(loadProject(q(p.path)).history.empty()) << "the refused run is in the history";
}

// Issue #21.6: SIGINT / SIGTERM (and SIGHUP, a closed terminal: the second hostile round) used to
// kill the run (130 / 143 / 129, no message, nothing written). Now
// the sample in progress is recorded as cancelled, JSON, CSV, Markdown and the history written,
// and the exit code is 128 + the signal. Random moments, a few times.
TEST(HostileCli, SignalCancelsTheRunAndWritesEverything) {
    SqliteProject p;
    p.addEndlessScenario();
    std::mt19937 random(std::random_device{}());
    int cancelledSamples = 0;
    for (int attempt = 0; attempt < 6; ++attempt) {
        const int sig = std::array{SIGINT, SIGTERM, SIGHUP}[attempt % 3];  // SIGHUP: a closed terminal
        const std::string json = p.dir.file("s" + std::to_string(attempt) + ".json");
        const std::string csv = p.dir.file("s" + std::to_string(attempt) + ".csv");
        const std::string md = p.dir.file("s" + std::to_string(attempt) + ".md");
        CliProcess run({"run", p.path, "-r", "3", "-q", "--json", json, "--csv", csv, "--markdown", md});
        // The journal exists once the run has started (the project saved, the signal handled).
        const std::string journal = journalPathFor(q(p.path)).toStdString();
        for (int i = 0; i < 3000 && !std::filesystem::exists(journal) && run.running(); ++i) {
            std::this_thread::sleep_for(10ms);
        }
        ASSERT_TRUE(std::filesystem::exists(journal)) << run.wait(1s).err;
        std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 800)(random)));
        run.signal(sig);
        const auto r = run.wait(120s);
        ASSERT_EQ(r.exitCode, 128 + sig) << r.err;
        EXPECT_NE(r.err.find(sig == SIGINT    ? "SIGINT"
                             : sig == SIGTERM ? "SIGTERM"
                                              : "SIGHUP"),
                  std::string::npos)
            << r.err;
        EXPECT_NE(r.err.find("Saved run"), std::string::npos) << r.err;
        const Project after = loadProject(q(p.path));
        ASSERT_EQ(after.history.size(), static_cast<std::size_t>(attempt + 1));
        const RunRecord& last = after.history.back();
        EXPECT_EQ(last.outcome, QStringLiteral("cancelled"));
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(blobbench::test::readFile(json)));
        ASSERT_TRUE(doc.isObject()) << "no JSON written";
        EXPECT_EQ(doc.object().value(QStringLiteral("samples")).toArray().size(),
                  static_cast<qsizetype>(last.samples.size()));
        EXPECT_NE(blobbench::test::readFile(csv).find("run_id,"), std::string::npos);
        EXPECT_NE(blobbench::test::readFile(md).find(last.runId.toStdString()), std::string::npos)
            << "no Markdown written";
        if (!last.samples.empty()) {
            EXPECT_EQ(last.samples.back().status, SampleStatus::Cancelled);
            cancelledSamples += last.samples.back().status == SampleStatus::Cancelled;
        }
        EXPECT_FALSE(std::filesystem::exists(journal));
    }
    EXPECT_GE(cancelledSamples, 1) << "no signal landed in a sample in progress";
}

// A SIGINT the run inherited as ignored (a shell's background job) stays ignored: only SIGTERM
// cancels it then.
TEST(HostileCli, InheritedIgnoredSigintStaysIgnored) {
    SqliteProject p;
    p.addEndlessScenario();
    auto* const before = std::signal(SIGINT, SIG_IGN);  // inherited across exec by the child
    CliProcess run({"run", p.path, "-q"});
    std::signal(SIGINT, before);
    const std::string journal = journalPathFor(q(p.path)).toStdString();
    for (int i = 0; i < 3000 && !std::filesystem::exists(journal) && run.running(); ++i) {
        std::this_thread::sleep_for(10ms);
    }
    ASSERT_TRUE(std::filesystem::exists(journal)) << run.wait(1s).err;
    run.signal(SIGINT);
    std::this_thread::sleep_for(500ms);
    EXPECT_TRUE(run.running()) << "an ignored SIGINT ended the run";
    run.signal(SIGTERM);
    const auto r = run.wait(120s);
    EXPECT_EQ(r.exitCode, 143) << r.err;
    EXPECT_EQ(loadProject(q(p.path)).history.back().outcome, QStringLiteral("cancelled"));
}

// Issue #21.6 with #21.2: a run waiting for another run of its project ends on the first signal
// (nothing measured, nothing written, 128 + the signal).
TEST(HostileCli, SignalWhileWaitingForTheProjectEndsTheWait) {
    SqliteProject p;
    ProjectLock lock(q(p.path));  // the test is the other run
    CliProcess run({"run", p.path, "-q"});
    for (int i = 0; i < 6000 && run.running() && run.errSoFar().find("waiting") == std::string::npos; ++i) {
        std::this_thread::sleep_for(10ms);
    }
    EXPECT_NE(run.errSoFar().find("another run (process " + std::to_string(getpid()) + ")"), std::string::npos)
        << run.errSoFar();
    run.signal(SIGTERM);
    const auto r = run.wait(60s);
    EXPECT_EQ(r.exitCode, 143) << r.err;
    EXPECT_NE(r.err.find("SIGTERM"), std::string::npos) << r.err;
    EXPECT_TRUE(loadProject(q(p.path)).history.empty());
}

// Issue #21.6: a second signal ends the process at once, by the signal, whatever the first one
// started. The first one lands in a connect to a server that accepts and never answers (no tap, a
// long connect_timeout): the cancel cannot reach that call, only the second signal ends it.
TEST(HostileCli, SecondSignalEndsAtOnce) {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(listener, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(listener, 4), 0);
    ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
    const std::string target =
        "postgresql://silent@127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/db?connect_timeout=600";
    CliProcess run({"run", target, "--no-tap", "-q"}, {"PGPASSWORD=x"});
    // Accepted (and never answered): the CLI is in its connect.
    int accepted = -1;
    for (int i = 0; i < 6000 && accepted < 0 && run.running(); ++i) {
        accepted = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (accepted < 0) {
            std::this_thread::sleep_for(10ms);
        }
    }
    ASSERT_GE(accepted, 0) << run.wait(1s).err;
    run.signal(SIGINT);
    std::this_thread::sleep_for(300ms);
    const bool stillRunning = run.running();
    run.signal(SIGINT);
    const auto r = run.wait(60s);
    ::close(accepted);
    ::close(listener);
    if (!stillRunning) {
        EXPECT_EQ(r.exitCode, 130) << r.err;  // the first one was enough
        return;
    }
    EXPECT_EQ(r.killedBy, SIGINT) << "exit " << r.exitCode << ": " << r.err;
}

// Issue #21.6: a closed stdout pipe used to kill the run with SIGPIPE (141) before the Markdown
// file; a full disk behind stdout went unsaid (exit 0). Both: stderr says so, exit 1, the rest written.
TEST(HostileCli, ClosedStdoutPipeAndFullDiskAreReported) {
    SqliteProject p;
    int pipeFds[2];
    ASSERT_EQ(pipe2(pipeFds, O_CLOEXEC), 0);  // the child holds no read end of its own
    const std::string md = p.dir.file("closed.md");
    CliProcess closed({"run", p.path, "-r", "1", "--markdown", md}, {}, pipeFds[1]);
    close(pipeFds[0]);
    close(pipeFds[1]);
    auto r = closed.wait(120s);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("cannot write to standard output: Broken pipe"), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::exists(md)) << "no Markdown written";
    EXPECT_EQ(loadProject(q(p.path)).history.size(), 1u);

    const int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (full < 0) {
        GTEST_SKIP() << "no /dev/full";
    }
    CliProcess toFull({"run", p.path, "-r", "1"}, {}, full);
    close(full);
    r = toFull.wait(120s);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("cannot write to standard output: No space left on device"), std::string::npos) << r.err;
    EXPECT_EQ(loadProject(q(p.path)).history.size(), 2u);
}

// Issue #21.9: a full disk under --json / --csv said "Unknown error"; now the file and strerror,
// no temporary file left, and what is there is a whole earlier version.
TEST(HostileCli, FullDiskUnderAnExportNamesTheFileAndTheReason) {
    SqliteProject p;
    const auto full = p.dir.path() / "full";
    std::filesystem::create_directories(full);
    if (geteuid() != 0 || ::mount("tmpfs", full.c_str(), "tmpfs", 0, "size=64k") != 0) {
        GTEST_SKIP() << "needs root to mount a 64 KiB tmpfs standing in for a full disk";
    }
    const std::string json = (full / "s.json").string();
    const std::string csv = (full / "s.csv").string();
    const auto r =
        runCli({"run", "sqlite:" + p.db, "-s", "short-blobs", "-r", "300", "-q", "--json", json, "--csv", csv});
    std::vector<std::string> left;
    for (const auto& entry : std::filesystem::directory_iterator(full)) {
        left.push_back(entry.path().filename().string());
    }
    const std::string written = blobbench::test::readFile(json);
    ::umount(full.c_str());
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("cannot write " + json + ": No space left on device"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("Unknown error"), std::string::npos) << r.err;
    for (const auto& name : left) {
        EXPECT_EQ(name.find(".tmp"), std::string::npos) << "left behind: " << name;
    }
    if (!written.empty()) {
        EXPECT_TRUE(QJsonDocument::fromJson(QByteArray::fromStdString(written)).isObject()) << "a torn JSON file";
    }
}

// Issue #21.9: options that cannot work are refused in one line before anything is allocated,
// prepared or measured.
TEST(HostileCli, OptionsThatCannotWorkAreRefusedInOneLine) {
    SqliteProject p;
    const std::string out = p.dir.file("out.txt");
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    const std::vector<Case> cases = {
        {{"run", p.path, "--json", out, "--csv", out}, "--json and --csv name the same file"},
        {{"run", p.path, "--csv", out, "--markdown", p.dir.file("./out.txt")},
         "--csv and --markdown name the same file"},
        {{"run", p.path, "--json", p.path}, "--json and the database or project name the same file"},
        {{"prepare", "sqlite:" + p.dir.file("huge.sqlite"), "--rows", "100000000"},
         "exceeds the limit of 1000000 rows"},
        {{"prepare", "sqlite:" + p.dir.file("huge.sqlite"), "--rows", "100000000000000"}, "exceeds the limit"},
        {{"bytea", "postgresql://nobody@127.0.0.1:1/none", "--size", "900G"}, "exceed the limit of 1G"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(testing::PrintToString(c.args));
        const auto r = runCli(c.args);
        EXPECT_EQ(r.exitCode, 2) << c.args[0] << " " << c.args.back() << ": " << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(p.dir.file("huge.sqlite")));
    EXPECT_FALSE(std::filesystem::exists(out));
    EXPECT_TRUE(loadProject(q(p.path)).history.empty());
}

// Issue #21.9: without HOME the default database went to "//.local" (126 MB prepared, then a
// failure); now one line before anything is written.
TEST(HostileCli, UnsetHomeIsOneLine) {
    CliProcess run({"run", "-q"}, {}, -1, {"HOME", "XDG_DATA_HOME", "BLOBBENCH_DATA_DIR"});
    const auto r = run.wait(120s);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("HOME is not set"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Issue #21.9: a write the database refuses while the data set is prepared ("database or disk is
// full") was one line that named no connection. The database file is /dev/full (through a link, so
// that SQLite's journal lands in the test's directory): every write fails with ENOSPC.
TEST(HostileCli, FullDiskDuringPrepareNamesTheConnection) {
    TempDir dir;
    const std::string db = dir.file("full.db");
    std::filesystem::create_symlink("/dev/full", db);
    const auto r = runCli({"prepare", "sqlite:" + db, "--rows", "5", "-q"});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(r.err, "blobbench-cli: sqlite:" + db + ": prepare: database or disk is full\n");
}

// Issue #21, the other commands: prepare and the storage studies kept the default action, so a
// SIGINT / SIGTERM killed them with nothing said. Now they end 128 + the signal with one line; the
// study's JSON is written with what was measured, prepare leaves no set marked complete.
TEST(HostileCli, SignalCancelsPrepareAndTheStorageStudies) {
    std::mt19937 random(std::random_device{}());
    int signalled = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
        TempDir dir;
        const int sig = attempt % 2 == 0 ? SIGINT : SIGTERM;
        const bool prepare = attempt < 2;
        const std::string db = dir.file("p.db");
        const std::string work = dir.file("study");
        const std::string json = dir.file("study.json");
        CliProcess run(prepare ? std::vector<std::string>{"prepare", "sqlite:" + db, "--rows", "100000", "-q"}
                               : std::vector<std::string>{"storage", "keyed-read", work, "--count", "100k", "--size",
                                                          "2k", "--json", json, "-q"});
        const std::string started = prepare ? db : work;  // exists once the command is under way
        for (int i = 0; i < 3000 && !std::filesystem::exists(started) && run.running(); ++i) {
            std::this_thread::sleep_for(10ms);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 300)(random)));
        run.signal(sig);
        const auto r = run.wait(120s);
        if (r.exitCode == 0) {
            continue;  // it finished before the signal
        }
        ++signalled;
        ASSERT_EQ(r.exitCode, 128 + sig) << r.err;
        const std::string line = std::string("blobbench-cli: ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ": " +
                                 (prepare ? "prepare sqlite:" + db : std::string("storage keyed-read")) +
                                 " was cancelled; ";
        EXPECT_TRUE(r.err.starts_with(line)) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        if (prepare) {
            EXPECT_NE(r.err.find("not marked complete"), std::string::npos) << r.err;
            const auto again = runCli({"run", "sqlite:" + db, "-q"});
            EXPECT_NE(again.err.find("no complete reference data set"), std::string::npos) << again.err;
        } else {
            const QJsonDocument doc =
                QJsonDocument::fromJson(QByteArray::fromStdString(blobbench::test::readFile(json)));
            ASSERT_TRUE(doc.isObject()) << "no JSON written: " << r.err;
            EXPECT_FALSE(doc.object().value(QStringLiteral("complete")).toBool());
        }
    }
    EXPECT_GE(signalled, 2) << "the commands ended before the signals";
}

// Hostile round 3: `prepare --from-folder` read a 3 GB file whole (3.1 GB of memory, 10 s) before
// SQLite said "string or blob too big", naming no file. Now refused before anything is read.
TEST(HostileCli, PrepareFromAFolderRefusesAFileAboveTheValueLimit) {
    TempDir dir;
    const std::string folder = dir.file("src");
    std::filesystem::create_directory(folder);
    std::ofstream(folder + "/small.txt") << "hello";
    const std::string big = folder + "/big.bin";
    std::ofstream(big).close();
    std::filesystem::resize_file(big, (std::uint64_t{1} << 30) + 1);  // sparse: no disk taken
    const auto r = runCli({"prepare", "sqlite:" + dir.file("f.db"), "--from-folder", folder, "--rows", "10"});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(r.err, "blobbench-cli: " + big + ": 1073741825 bytes, above the limit of 1G for one value " +
                         "(PostgreSQL's largest bytea value)\n");
    EXPECT_FALSE(std::filesystem::exists(dir.file("f.db"))) << "connected before the folder was checked";
}

// Hostile round 3: a signal after the first variant of `storage insert` left its JSON saying
// "complete": true (the variant in progress cut short), since only failures marked it incomplete.
TEST(HostileCli, SignalDuringStorageInsertMarksItsJsonIncomplete) {
    for (const int sig : {SIGINT, SIGHUP}) {
        TempDir dir;
        const std::string work = dir.file("insert");
        std::filesystem::create_directory(work);
        const std::string json = dir.file("insert.json");
        CliProcess run({"storage", "insert", "sqlite:" + work, "--rows", "100k", "--size", "2k", "--json", json, "-q"});
        // The JSON is written after every variant: once it exists, the second one is under way.
        for (int i = 0; i < 6000 && !std::filesystem::exists(json) && run.running(); ++i) {
            std::this_thread::sleep_for(5ms);
        }
        run.signal(sig);
        const auto r = run.wait(120s);
        ASSERT_EQ(r.exitCode, 128 + sig) << "ended before the signal? " << r.err;
        EXPECT_NE(r.err.find("storage insert was cancelled; everything measured is written"), std::string::npos)
            << r.err;
        const QJsonObject doc =
            QJsonDocument::fromJson(QByteArray::fromStdString(blobbench::test::readFile(json))).object();
        EXPECT_GE(doc.value(QStringLiteral("results")).toArray().size(), 1) << blobbench::test::readFile(json);
        EXPECT_FALSE(doc.value(QStringLiteral("complete")).toBool(true)) << blobbench::test::readFile(json);
        EXPECT_EQ(doc.value(QStringLiteral("error")).toString(), QStringLiteral("cancelled"));
    }
}

// Hostile round 2026-12-01: the lock and the journal were named after the path given, so a run
// through a symbolic link took a lock of its own: four runs at once, two through a link, all said
// "Saved run" and the history kept three. While this process holds the file's lock, a run through
// the link waits for it.
TEST(HostileCli, RunsThroughALinkAndTheFileShareOneLock) {
    SqliteProject p;
    const std::string link = p.dir.file("link.blobbench.json");
    std::filesystem::create_symlink(p.path, link);
    std::optional<ProjectLock> held;
    held.emplace(q(p.path));
    CliProcess run({"run", link, "-r", "1", "-q"});
    for (int i = 0; i < 1000 && run.running() && run.errSoFar().find("waiting") == std::string::npos; ++i) {
        std::this_thread::sleep_for(10ms);
    }
    EXPECT_TRUE(run.running()) << "it did not wait for the lock: " << run.errSoFar();
    held.reset();
    const auto r = run.wait(120s);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("waiting for it to finish"), std::string::npos) << r.err;
    EXPECT_EQ(loadProject(q(p.path)).history.size(), 1u);
    EXPECT_TRUE(std::filesystem::is_symlink(link)) << "the link was replaced by a file";
}

// Hostile round 2026-12-01: a project that is a FIFO blocked the run in open() until a second
// signal; a project is a regular file, and anything else is one line at once.
TEST(HostileCli, ProjectThatIsAFifoIsRefusedAtOnce) {
    TempDir dir;
    const std::string fifo = dir.file("f.blobbench.json");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    CliProcess run({"run", fifo, "-q"});
    const auto r = run.wait(20s);
    EXPECT_EQ(r.exitCode, 1) << "blocked on the FIFO (-1: killed after 20 s): " << r.err;
    EXPECT_EQ(r.err, "blobbench-cli: cannot open " + fifo + ": not a regular file (a FIFO): a project is a file\n");
}

// Hostile round 2026-12-01: `storage` (and the fb-blob-test mode, and `bytea`) wrote stdout
// without the check `run` has: `> /dev/full` ended 0 with nothing said, a closed pipe killed it
// (141); and its --json on a full disk was an empty file, exit 0.
TEST(HostileCli, StorageSaysAFullStdoutAndAFullDiskUnderItsJson) {
    TempDir dir;
    const int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (full < 0) {
        GTEST_SKIP() << "no /dev/full";
    }
    const std::string json = dir.file("s.json");
    CliProcess toFull(
        {"storage", "footprint", dir.file("work"), "--count", "200", "--size", "1k", "--json", json, "-q"}, {}, full);
    close(full);
    auto r = toFull.wait(120s);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(r.err, "blobbench-cli: cannot write to standard output: No space left on device\n");
    EXPECT_TRUE(QJsonDocument::fromJson(QByteArray::fromStdString(blobbench::test::readFile(json))).isObject())
        << "no JSON written";

    int pipeFds[2];
    ASSERT_EQ(pipe2(pipeFds, O_CLOEXEC), 0);
    CliProcess closed({"storage", "footprint", dir.file("work2"), "--count", "200", "--size", "1k", "-q"}, {},
                      pipeFds[1]);
    close(pipeFds[0]);
    close(pipeFds[1]);
    r = closed.wait(120s);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(r.err, "blobbench-cli: cannot write to standard output: Broken pipe\n");

    const auto disk = dir.path() / "full";
    std::filesystem::create_directories(disk);
    if (geteuid() != 0 || ::mount("tmpfs", disk.c_str(), "tmpfs", 0, "size=8k") != 0) {
        GTEST_SKIP() << "needs root to mount a tmpfs standing in for a full disk";
    }
    test::writeFile((disk / "fill").string(), std::string(8192, 'x'));
    const std::string onFull = (disk / "s.json").string();
    r = runCli({"storage", "footprint", dir.file("work3"), "--count", "200", "--size", "1k", "--json", onFull, "-q"});
    std::vector<std::string> left;
    for (const auto& entry : std::filesystem::directory_iterator(disk)) {
        left.push_back(entry.path().filename().string());
    }
    ::umount(disk.c_str());
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("--json: cannot write " + onFull + ": No space left on device"), std::string::npos) << r.err;
    EXPECT_EQ(left, std::vector<std::string>{"fill"}) << "a torn or temporary file left";
}

// Hostile round 2026-12-01: a run's samples reached its journal only when a point ended, and a run
// without a sweep is one point: a kill -9 in the middle lost every sample measured (the next run
// said "the project already holds its 0 samples"). Each sample is journaled when it is measured.
TEST(HostileCli, KilledRunWithoutASweepKeepsItsSamplesInTheJournal) {
    SqliteProject p;
    p.addEndlessScenario();  // after 1000 repetitions of short-blobs: the run never ends by itself
    Project project = loadProject(q(p.path));
    for (auto& s : project.scenarios) {
        s.enabled = s.id == QStringLiteral("short-blobs") || s.id == QStringLiteral("endless");
    }
    saveProject(q(p.path), project);
    const std::string journal = journalPathFor(q(p.path)).toStdString();
    CliProcess run({"run", p.path, "-r", "1000", "-q"});
    auto lines = [&] {
        const std::string text = blobbench::test::readFile(journal);
        return std::count(text.begin(), text.end(), '\n');
    };
    for (int i = 0; i < 1000 && run.running() && lines() < 4; ++i) {
        std::this_thread::sleep_for(10ms);
    }
    run.signal(SIGKILL);
    (void)run.wait(60s);
    ASSERT_GE(lines(), 4) << "the journal holds no sample after 10 s of measuring";
    const auto r = runCli({"run", p.path, "-s", "short-blobs", "-r", "1", "-q"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("recovered"), std::string::npos) << r.err;
    const Project after = loadProject(q(p.path));
    ASSERT_EQ(after.history.size(), 2u);
    EXPECT_GE(after.history.front().samples.size(), 3u);
    EXPECT_EQ(after.history.front().outcome, QStringLiteral("interrupted (recovered from its journal)"));
}

// Hostile round 2026-12-01: the default data set that `blobbench-cli` (no database) prepares on its
// first run had no signal handler yet: a SIGINT there killed it with nothing said.
TEST(HostileCli, SignalDuringTheDefaultPrepareEndsWithOneLine) {
    TempDir data;
    const std::string partial = data.file("reference.sqlite.part");
    CliProcess run({"run", "-q"}, {"BLOBBENCH_DATA_DIR=" + data.path().string()});
    for (int i = 0; i < 3000 && run.running() && !std::filesystem::exists(partial); ++i) {
        std::this_thread::sleep_for(10ms);
    }
    std::this_thread::sleep_for(100ms);
    run.signal(SIGINT);
    const auto r = run.wait(120s);
    ASSERT_EQ(r.exitCode, 130) << r.err;
    EXPECT_TRUE(r.err.starts_with("blobbench-cli: SIGINT: the default data set ")) << r.err;
    EXPECT_NE(r.err.find("was being prepared: nothing was measured"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(partial));
    EXPECT_FALSE(std::filesystem::exists(data.file("reference.sqlite")));
}
