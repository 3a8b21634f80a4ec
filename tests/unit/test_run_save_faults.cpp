// Saving a project run when the disk, the file or another program works against it (issue #29):
// a full disk under the journal (a real tmpfs), a project replaced during the run (a real rename
// by another process's hand), a read-only project file. Real `blobbench-cli run` on SQLite.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
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

// The lines of stderr that start with "blobbench-cli: ".
std::vector<std::string> cliLines(const std::string& err) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < err.size()) {
        const std::size_t end = std::min(err.find('\n', at), err.size());
        if (err.compare(at, 15, "blobbench-cli: ") == 0) {
            out.push_back(err.substr(at, end - at));
        }
        at = end + 1;
    }
    return out;
}

int samplesInJsonFile(const std::string& path) {
    QFile f(q(path));
    if (!f.open(QIODevice::ReadOnly)) {
        return -1;
    }
    return static_cast<int>(QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("samples")].toArray().size());
}

std::size_t lineCount(const std::string& path) {
    const std::string text = blobbench::test::readFile(path);
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Waits (at most 60 s) until the run's journal holds its header and `samples` samples.
bool journalHolds(const std::string& project, std::size_t samples, CliProcess& run) {
    const std::string journal = journalPathFor(q(project)).toStdString();
    for (auto until = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < until;) {
        if (lineCount(journal) >= samples + 1) {
            return true;
        }
        if (!run.running()) {
            return false;
        }
        std::this_thread::sleep_for(20ms);
    }
    return false;
}

// An 8 MiB tmpfs, unmounted (lazily, should a file stay open) with the object.
class Tmpfs {
public:
    explicit Tmpfs(const std::filesystem::path& at) : m_at(at) {
        std::filesystem::create_directories(at);
        m_mounted = ::mount("tmpfs", at.c_str(), "tmpfs", 0, "size=8m") == 0;
        m_error = m_mounted ? 0 : errno;
    }
    ~Tmpfs() {
        if (m_mounted) {
            ::umount2(m_at.c_str(), MNT_DETACH);
        }
    }
    Tmpfs(const Tmpfs&) = delete;
    Tmpfs& operator=(const Tmpfs&) = delete;
    bool mounted() const { return m_mounted; }
    int error() const { return m_error; }

private:
    std::filesystem::path m_at;
    bool m_mounted = false;
    int m_error = 0;
};

void fillLeaving150KiB(const std::filesystem::path& folder) {
    const auto free = std::filesystem::space(folder).available;
    ASSERT_GT(free, 200u * 1024);
    const int fd = ::open((folder / "fill").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::posix_fallocate(fd, 0, static_cast<off_t>(free - 150 * 1024)), 0);
    ::close(fd);
}

class RunSaveFaults : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir = new TempDir;
        db = dir->file("ref.sqlite");
        const auto r = runCli({"prepare", "sqlite:" + db, "--rows", "200"});
        ASSERT_EQ(r.exitCode, 0) << r.err;
    }
    static void TearDownTestSuite() { delete dir; }

    static std::string writeProject(const std::string& path) {
        Project p = defaultProject(q(db));
        p.name = QStringLiteral("Saving under faults");
        saveProject(q(path), p);
        return path;
    }

    static TempDir* dir;
    static std::string db;
};
TempDir* RunSaveFaults::dir = nullptr;
std::string RunSaveFaults::db;

}  // namespace

// The journal fills the disk mid-run: the run stops, --json (on a healthy disk) and the report get
// every sample, the one line says where they are, and the next run recovers the journal's.
TEST_F(RunSaveFaults, FullDiskUnderTheJournalKeepsTheSamplesAndSaysWhere) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "mounting a tmpfs needs root";
    }
    TempDir local;
    Tmpfs disk(local.path() / "small");
    ASSERT_TRUE(disk.mounted()) << "mount -t tmpfs: " << std::strerror(disk.error());
    const std::string project = writeProject((local.path() / "small" / "P.blobbench.json").string());
    fillLeaving150KiB(local.path() / "small");
    const std::string json = local.file("d.json");
    const auto r = runCli({"run", project, "-s", "warm-up", "-r", "1000", "-q", "--json", json});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    const std::vector<std::string> lines = cliLines(r.err);
    ASSERT_EQ(lines.size(), 1u) << r.err;
    const std::string& line = lines[0];
    std::cout << "[full disk line] " << line << std::endl;
    std::smatch stopped;
    ASSERT_TRUE(
        std::regex_search(line, stopped,
                          std::regex("^blobbench-cli: cannot write the run journal .*P\\.blobbench\\.json\\.journal: "
                                     "No space left on device: the run stopped after ([0-9]+) samples; ")))
        << line;
    const int measured = std::stoi(stopped[1]);
    EXPECT_GT(measured, 0);
    EXPECT_LT(measured, 1000);
    EXPECT_EQ(samplesInJsonFile(json), measured) << "--json holds every sample measured";
    EXPECT_NE(r.out.find("## BlobBench run "), std::string::npos) << "the report is printed: " << r.out;
    EXPECT_NE(r.out.find("(n=" + std::to_string(measured) + ")"), std::string::npos) << r.out;
    EXPECT_NE(line.find("the run was not saved in the project (cannot write "), std::string::npos) << line;
    EXPECT_NE(line.find("its " + std::to_string(measured) + " samples are in " + json), std::string::npos) << line;
    std::smatch held;
    ASSERT_TRUE(std::regex_search(line, held,
                                  std::regex("the run journal \\S+ holds ([0-9]+) of them: the next run of "
                                             "this project recovers those$")))
        << line;
    const int inJournal = std::stoi(held[1]);
    EXPECT_GT(inJournal, 0);

    // Room again: the next run recovers what the journal said it held.
    std::filesystem::remove(local.path() / "small" / "fill");
    const auto next = runCli({"run", project, "-s", "warm-up", "-r", "1", "-q"});
    ASSERT_EQ(next.exitCode, 0) << next.err;
    EXPECT_NE(next.err.find("recovered " + std::to_string(inJournal) + " samples from its journal"), std::string::npos)
        << next.err;
    const Project after = loadProject(q(project));
    ASSERT_EQ(after.history.size(), 2u);
    EXPECT_EQ(after.history[0].samples.size(), static_cast<std::size_t>(inJournal));
    // Its outcome too, when the full disk had room for that line (a write that fails is cut back).
    const QString& outcome = after.history[0].outcome;
    EXPECT_TRUE(outcome.startsWith(QStringLiteral("failed: cannot write the run journal ")) ||
                outcome == QStringLiteral("interrupted (recovered from its journal)"))
        << outcome.toStdString();
}

// The same without --json: nothing else holds every sample, so a samples file goes to the
// temporary folder, and the line names it.
TEST_F(RunSaveFaults, FullDiskWithoutJsonWritesTheSamplesToTheTemporaryFolder) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "mounting a tmpfs needs root";
    }
    TempDir local;
    Tmpfs disk(local.path() / "small");
    ASSERT_TRUE(disk.mounted()) << "mount -t tmpfs: " << std::strerror(disk.error());
    const std::string project = writeProject((local.path() / "small" / "P.blobbench.json").string());
    fillLeaving150KiB(local.path() / "small");
    std::filesystem::create_directory(local.path() / "tmp");
    const auto r = runCli({"run", project, "-s", "warm-up", "-r", "1000", "-q"}, {"TMPDIR=" + local.file("tmp")});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    const std::vector<std::string> lines = cliLines(r.err);
    ASSERT_EQ(lines.size(), 1u) << r.err;
    std::smatch where;
    ASSERT_TRUE(std::regex_search(lines[0], where,
                                  std::regex("the run stopped after ([0-9]+) samples; .*; its [0-9]+ samples are in "
                                             "(\\S+/tmp/blobbench-run-\\S+\\.samples\\.json); the run journal ")))
        << lines[0];
    EXPECT_EQ(samplesInJsonFile(where[2]), std::stoi(where[1])) << where[2];
}

// Hostile round 5c F1: the disk under a plain run's --json fills. The run stopped with one line that
// said neither that it stopped nor where the samples were, and the scenario in progress had no
// report. Now the run stops as a project run does: its report, and the one line says where the
// samples are (the --csv beside it, else a samples file in the temporary folder).
TEST_F(RunSaveFaults, FullDiskUnderAPlainRunsJsonKeepsTheReportAndSaysWhere) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "mounting a tmpfs needs root";
    }
    TempDir local;
    Tmpfs disk(local.path() / "small");
    ASSERT_TRUE(disk.mounted()) << "mount -t tmpfs: " << std::strerror(disk.error());
    fillLeaving150KiB(local.path() / "small");
    const std::string json = (local.path() / "small" / "d.json").string();
    const std::string csv = local.file("d.csv");
    std::filesystem::create_directory(local.path() / "tmp");
    for (const bool withCsv : {true, false}) {
        SCOPED_TRACE(withCsv ? "--csv beside it" : "--json alone");
        std::vector<std::string> args{"run", "sqlite:" + db, "-s", "warm-up", "-r", "1000", "-q", "--json", json};
        if (withCsv) {
            args.insert(args.end(), {"--csv", csv});
        }
        const auto r = runCli(args, {"TMPDIR=" + local.file("tmp")});
        EXPECT_EQ(r.exitCode, 1) << r.err;
        const std::vector<std::string> lines = cliLines(r.err);
        ASSERT_EQ(lines.size(), 1u) << r.err;
        std::cout << "[full disk line] " << lines[0] << std::endl;
        std::smatch stopped;
        ASSERT_TRUE(std::regex_search(lines[0], stopped,
                                      std::regex("^blobbench-cli: cannot write \\S+d\\.json: No space left on "
                                                 "device.*: the run stopped after ([0-9]+) samples; its ([0-9]+) "
                                                 "samples are in (\\S+)$")))
            << lines[0];
        const int measured = std::stoi(stopped[1]);
        EXPECT_GT(measured, 0);
        EXPECT_LT(measured, 1000);
        EXPECT_EQ(std::stoi(stopped[2]), measured);
        EXPECT_EQ(lines[0].find("cannot write", 20), std::string::npos) << "the failed write said once: " << lines[0];
        const std::string where = stopped[3];
        if (withCsv) {
            EXPECT_EQ(where, csv);
            EXPECT_EQ(lineCount(csv), static_cast<std::size_t>(measured) + 1) << "a header and every sample";
        } else {
            EXPECT_NE(where.find("/tmp/blobbench-run-"), std::string::npos) << where;
            EXPECT_EQ(samplesInJsonFile(where), measured) << where;
        }
        EXPECT_NE(r.out.find("Elapsed time: "), std::string::npos) << "the report of the scenario: " << r.out;
        EXPECT_NE(r.out.find("(median of " + std::to_string(measured)), std::string::npos) << r.out;
    }
}

// Another program renames a new version of the project into place during the run: the run is
// added to that version, whose edit stays.
TEST_F(RunSaveFaults, ProjectReplacedDuringTheRunGetsTheRunMergedIn) {
    TempDir local;
    const std::string project = writeProject(local.file("P.blobbench.json"));
    CliProcess run({"run", project, "-s", "all-blobs", "-r", "1000", "-q"});
    ASSERT_TRUE(journalHolds(project, 2, run)) << run.errSoFar();
    Project edited = loadProject(q(project));  // the version saved at the start: it holds the run, empty
    ASSERT_EQ(edited.history.size(), 1u);
    edited.name = QStringLiteral("Edited outside the tool");
    saveProject(q(local.file("new.json")), edited);
    std::filesystem::rename(local.file("new.json"), project);
    ASSERT_TRUE(run.running()) << "the run ended before the edit: nothing tested";
    run.signal(SIGINT);
    const auto r = run.wait(60s);
    EXPECT_EQ(r.exitCode, 130) << r.err;
    EXPECT_NE(r.err.find("(the file had been changed by another program during the run: the run was added to its new "
                         "version)"),
              std::string::npos)
        << r.err;
    const Project after = loadProject(q(project));
    EXPECT_EQ(after.name, QStringLiteral("Edited outside the tool")) << "the edit is kept";
    ASSERT_EQ(after.history.size(), 1u);
    EXPECT_GE(after.history[0].samples.size(), 2u);
    EXPECT_EQ(after.history[0].outcome, QStringLiteral("cancelled"));
    EXPECT_FALSE(QFile::exists(journalPathFor(q(project))));
}

// Hostile round 5i D4: the project's folder is deleted during the run (journal and project with it).
// The line said "its 2000 samples are in the run journal ...; the next run recovers them" of a file
// that was gone, and no rescue file was written: the samples were in no file.
TEST_F(RunSaveFaults, AJournalDeletedDuringTheRunIsNotNamedAndTheSamplesAreRescued) {
    TempDir local;
    std::filesystem::create_directory(local.path() / "d4");
    std::filesystem::create_directory(local.path() / "tmp");
    const std::string project = writeProject((local.path() / "d4" / "P.blobbench.json").string());
    CliProcess run({"run", project, "-s", "all-blobs", "-r", "1000", "-q"}, {"TMPDIR=" + local.file("tmp")});
    ASSERT_TRUE(journalHolds(project, 2, run)) << run.errSoFar();
    std::filesystem::remove_all(local.path() / "d4");
    ASSERT_TRUE(run.running()) << "the run ended before the folder was deleted: nothing tested";
    run.signal(SIGINT);
    const auto r = run.wait(60s);
    EXPECT_EQ(r.exitCode, 130) << r.err;
    const std::vector<std::string> lines = cliLines(r.err);
    ASSERT_EQ(lines.size(), 1u) << r.err;
    EXPECT_NE(lines[0].find("was deleted or replaced during the run"), std::string::npos) << lines[0];
    EXPECT_EQ(lines[0].find("the next run of this project recovers them"), std::string::npos) << lines[0];
    std::smatch where;
    ASSERT_TRUE(std::regex_search(
        lines[0], where, std::regex("its ([0-9]+) samples are in (\\S+/tmp/blobbench-run-\\S+\\.samples\\.json)")))
        << lines[0];
    EXPECT_EQ(samplesInJsonFile(where[2]), std::stoi(where[1])) << where[2];
    EXPECT_GE(std::stoi(where[1]), 2);
}

// The new version does not load: it is not overwritten, the run stays in the journal, one line.
TEST_F(RunSaveFaults, ProjectReplacedByAnUnreadableFileIsNotOverwritten) {
    TempDir local;
    const std::string project = writeProject(local.file("P.blobbench.json"));
    CliProcess run({"run", project, "-s", "all-blobs", "-r", "1000", "-q"});
    ASSERT_TRUE(journalHolds(project, 2, run)) << run.errSoFar();
    const std::string foreign = "{\"formatVersion\": 1, \"notes\": \"someone else's file\"}\n";
    test::writeFile(local.file("new.json"), foreign);
    std::filesystem::rename(local.file("new.json"), project);
    ASSERT_TRUE(run.running()) << "the run ended before the edit: nothing tested";
    run.signal(SIGINT);
    const auto r = run.wait(60s);
    EXPECT_EQ(r.exitCode, 130) << r.err;
    const std::vector<std::string> lines = cliLines(r.err);
    ASSERT_EQ(lines.size(), 1u) << r.err;
    std::cout << "[changed line] " << lines[0] << std::endl;
    EXPECT_NE(lines[0].find(" was changed by another program since this run read it, and the new version cannot be "
                            "loaded ("),
              std::string::npos)
        << lines[0];
    EXPECT_NE(lines[0].find("notes: unknown key): not overwritten"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("the next run of this project recovers them from the journal"), std::string::npos)
        << lines[0];
    EXPECT_EQ(r.err.find("Saved run"), std::string::npos) << r.err;
    EXPECT_TRUE(blobbench::test::readFile(project) == foreign) << "not overwritten";
    EXPECT_GE(lineCount(journalPathFor(q(project)).toStdString()), 3u) << "the run's samples stay in the journal";
}

// A 0444 project: refused before anything is measured, the file and its mode untouched; made
// read-only during a run: not replaced at the end, the run kept in the journal for the next run.
TEST_F(RunSaveFaults, ReadOnlyProjectIsRefusedNotReplaced) {
    TempDir local;
    const std::string project = writeProject(local.file("P.blobbench.json"));
    const std::string before = blobbench::test::readFile(project);
    std::filesystem::permissions(project, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                              std::filesystem::perms::others_read);
    struct stat st {};
    ASSERT_EQ(::stat(project.c_str(), &st), 0);
    const ino_t inode = st.st_ino;
    auto r = runCli({"run", project, "-s", "warm-up", "-r", "3", "-q"});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    const std::vector<std::string> lines = cliLines(r.err);
    ASSERT_EQ(lines.size(), 1u) << r.err;
    EXPECT_EQ(lines[0], "blobbench-cli: cannot write " + project + ": the file is read-only (mode 0444): not replaced");
    EXPECT_TRUE(blobbench::test::readFile(project) == before) << "the read-only file was rewritten";
    ASSERT_EQ(::stat(project.c_str(), &st), 0);
    EXPECT_EQ(st.st_ino, inode) << "the file was replaced";
    EXPECT_EQ(st.st_mode & 07777, 0444u);
    EXPECT_FALSE(QFile::exists(journalPathFor(q(project))));

    // Read-only from the middle of a run on.
    std::filesystem::permissions(project, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
    CliProcess run({"run", project, "-s", "all-blobs", "-r", "1000", "-q"});
    ASSERT_TRUE(journalHolds(project, 2, run)) << run.errSoFar();
    const std::string atStart = blobbench::test::readFile(project);
    std::filesystem::permissions(project, std::filesystem::perms::owner_write, std::filesystem::perm_options::remove);
    ASSERT_TRUE(run.running()) << "the run ended before the chmod: nothing tested";
    run.signal(SIGINT);
    r = run.wait(60s);
    EXPECT_EQ(r.exitCode, 130) << r.err;
    const std::vector<std::string> said = cliLines(r.err);
    ASSERT_EQ(said.size(), 1u) << r.err;
    std::cout << "[read-only line] " << said[0] << std::endl;
    EXPECT_NE(said[0].find("the run was not saved in the project (cannot write " + project +
                           ": the file is read-only (mode 0444): not replaced)"),
              std::string::npos)
        << said[0];
    EXPECT_NE(said[0].find("the next run of this project recovers them from the journal"), std::string::npos)
        << said[0];
    EXPECT_TRUE(blobbench::test::readFile(project) == atStart) << "the read-only file was rewritten";
    std::filesystem::permissions(project, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
    const auto next = runCli({"run", project, "-s", "warm-up", "-r", "1", "-q"});
    ASSERT_EQ(next.exitCode, 0) << next.err;
    EXPECT_NE(next.err.find("samples from its journal"), std::string::npos) << next.err;
    const Project after = loadProject(q(project));
    ASSERT_EQ(after.history.size(), 2u);
    EXPECT_GE(after.history[0].samples.size(), 2u);
    EXPECT_EQ(after.history[0].outcome, QStringLiteral("cancelled"));
}

// Hostile round 5b: a lock file that is a link to another file. The lock is truncated and holds the
// pid: through a symbolic link or a second (hard) name it overwrote that file ("precious" became
// the pid, exit 0). Now refused in one line, the other file unchanged.
TEST_F(RunSaveFaults, ALinkedLockFileIsNeverWrittenThrough) {
    TempDir local;
    const std::string project = writeProject(local.file("P.blobbench.json"));
    const std::string victim = local.file("victim.txt");
    test::writeFile(victim, "precious\n");
    const std::string lock = project + ".lock";
    std::filesystem::create_symlink(victim, lock);
    const auto viaSymlink = runCli({"run", project, "-s", "warm-up", "-r", "1", "-q"});
    EXPECT_EQ(viaSymlink.exitCode, 1) << viaSymlink.err;
    EXPECT_EQ(blobbench::test::readFile(victim), "precious\n") << "written through the symbolic link";
    EXPECT_NE(viaSymlink.err.find("lock file " + lock + ": it is a symbolic link"), std::string::npos)
        << viaSymlink.err;
    std::filesystem::remove(lock);

    std::filesystem::create_hard_link(victim, lock);
    const auto viaHardLink = runCli({"run", project, "-s", "warm-up", "-r", "1", "-q"});
    EXPECT_EQ(viaHardLink.exitCode, 1) << viaHardLink.err;
    EXPECT_EQ(blobbench::test::readFile(victim), "precious\n") << "written through the second name";
    EXPECT_NE(viaHardLink.err.find("it is not a file of its own"), std::string::npos) << viaHardLink.err;
    EXPECT_TRUE(loadProject(q(project)).history.empty()) << "nothing was run";
}

// A FIFO in place of the run journal: open(2) for reading waited for a writer for ever (SIGTERM
// did nothing). Now it is set aside like any journal that cannot be read, and the run goes on.
TEST_F(RunSaveFaults, AFifoInPlaceOfTheJournalIsSetAsideNotWaitedOn) {
    TempDir local;
    const std::string project = writeProject(local.file("P.blobbench.json"));
    const std::string journal = journalPathFor(q(project)).toStdString();
    ASSERT_EQ(::mkfifo(journal.c_str(), 0644), 0) << std::strerror(errno);
    CliProcess run({"run", project, "-s", "warm-up", "-r", "1", "-q"});
    const auto r = run.wait(20s);
    ASSERT_NE(r.exitCode, -1) << "still waiting on the FIFO after 20 s: " << r.err;
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("cannot be read (not a regular file (a FIFO)): set aside as " + journal + ".broken"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(loadProject(q(project)).history.size(), 1u);
}

// An export that cannot be written at the start (a full disk, a missing folder): nothing is
// measured, and the run saved a moment before ends as failed. It stayed in the history as a run
// of 0 samples without an outcome, its journal left behind, for ever.
TEST_F(RunSaveFaults, AnExportRefusedAtTheStartLeavesAFailedRunNotAnOpenOne) {
    TempDir local;
    const std::string project = writeProject(local.file("P.blobbench.json"));
    const std::string json = local.file("no-such-folder/d.json");
    const auto r = runCli({"run", project, "-s", "warm-up", "-r", "1", "-q", "--json", json});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("cannot write " + json), std::string::npos) << r.err;
    const Project after = loadProject(q(project));
    ASSERT_EQ(after.history.size(), 1u);
    EXPECT_TRUE(after.history[0].samples.empty());
    EXPECT_TRUE(after.history[0].outcome.startsWith(QStringLiteral("failed: cannot write ")))
        << "outcome '" << after.history[0].outcome.toStdString() << "'";
    EXPECT_FALSE(std::filesystem::exists(journalPathFor(q(project)).toStdString())) << "journal left behind";
}

// An export named as the project's run journal (or lock file): after a save that failed, the
// Markdown replaced the journal that the line said held the run's 2,000 samples. Refused now,
// before anything is measured, as two exports on one file are.
TEST_F(RunSaveFaults, AnExportOverTheProjectsJournalOrLockIsRefused) {
    TempDir local;
    const std::string project = writeProject(local.file("P.blobbench.json"));
    for (const std::string option : {"--markdown", "--json", "--csv"}) {
        for (const std::string& target : {project + ".journal", project + ".lock"}) {
            const auto r = runCli({"run", project, "-s", "warm-up", "-r", "1", "-q", option, target});
            EXPECT_EQ(r.exitCode, 2) << option << ' ' << target << ": " << r.err;
            EXPECT_NE(r.err.find(option + " and the project's "), std::string::npos) << r.err;
            EXPECT_FALSE(std::filesystem::exists(target)) << target;
        }
    }
    EXPECT_TRUE(loadProject(q(project)).history.empty()) << "nothing was run";
}

// Hostile round 5b: an edit in place that keeps the size and sets the mtime back (rsync -t, tar,
// touch -r) kept the inode, size and mtime the save compared, so the file was never read again:
// "Saved run", the edit gone. The ctime, which no program can set back, is compared too.
TEST_F(RunSaveFaults, EditInPlaceWithTheSameSizeAndMtimeIsNoticed) {
    TempDir local;
    const std::string project = writeProject(local.file("P.blobbench.json"));
    CliProcess run({"run", project, "-s", "all-blobs", "-r", "1000", "-q"});
    ASSERT_TRUE(journalHolds(project, 2, run)) << run.errSoFar();
    struct stat before {};
    ASSERT_EQ(::stat(project.c_str(), &before), 0);
    std::string text = blobbench::test::readFile(project);
    const std::string from = "Saving under faults", to = "SAVING under faults";
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, from.size(), to);
    {
        std::fstream f(project, std::ios::in | std::ios::out | std::ios::binary);
        f.write(text.data(), static_cast<std::streamsize>(text.size()));
    }
    const struct timespec times[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(::utimensat(AT_FDCWD, project.c_str(), times, 0), 0);
    ASSERT_TRUE(run.running()) << "the run ended before the edit: nothing tested";
    run.signal(SIGINT);
    const auto r = run.wait(60s);
    EXPECT_EQ(r.exitCode, 130) << r.err;
    EXPECT_NE(r.err.find("the file had been changed by another program during the run"), std::string::npos) << r.err;
    EXPECT_EQ(loadProject(q(project)).name, QStringLiteral("SAVING under faults")) << "the edit is kept";
}
