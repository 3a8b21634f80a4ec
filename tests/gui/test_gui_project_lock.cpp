// Issue #21: a project that another process is running (blobbench-cli run holds its lock and its
// run journal) is neither run nor saved over by the workbench: one message naming the file and the
// process, nothing measured, nothing lost. The other process is a real one (a child holding the
// same POSIX locks), since both locks belong to a process and never conflict within one.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>

#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>

#include "GuiTestSupport.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"
#include "ui/DocumentController.h"
#include "ui/MainWindow.h"
#include "ui/ResultsModel.h"
#include "ui/RunController.h"

using namespace blobbench;
using blobbench::test::TempDir;

namespace {

constexpr int kRunTimeoutMs = 120000;

// Another process holding `file` the way a run of blobbench-cli does: the project's lock (flock,
// with its pid in the file, as ProjectLock writes it) or the run journal (an fcntl write lock, as
// RunJournal takes it). Held until release() or destruction.
class OtherProcess {
public:
    enum class Holds { ProjectLock, Journal };
    OtherProcess(const QString& file, Holds holds) {
        const std::string path = file.toStdString();
        if (::pipe(m_ready) != 0 || ::pipe(m_go) != 0) {
            return;
        }
        m_pid = ::fork();
        if (m_pid == 0) {  // only system calls after fork() in a threaded process
            const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
            struct flock whole {};
            whole.l_type = F_WRLCK;
            whole.l_whence = SEEK_SET;
            char digits[24];
            int length = 0;
            for (long n = ::getpid(); n > 0; n /= 10) {  // no stdio after fork(): the digits by hand
                digits[length++] = static_cast<char>('0' + n % 10);
            }
            char pid[24];
            for (int i = 0; i < length; ++i) {
                pid[i] = digits[length - 1 - i];
            }
            pid[length++] = '\n';
            const bool held = fd >= 0 && (holds == Holds::Journal
                                              ? ::fcntl(fd, F_SETLK, &whole) == 0
                                              : ::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::ftruncate(fd, 0) == 0 &&
                                                    ::pwrite(fd, pid, static_cast<std::size_t>(length), 0) == length);
            char byte = held ? 'y' : 'n';
            if (::write(m_ready[1], &byte, 1) == 1) {
                (void)::read(m_go[0], &byte, 1);  // until release() or the parent ends
            }
            ::_exit(0);
        }
        char byte = 0;
        m_held = m_pid > 0 && ::read(m_ready[0], &byte, 1) == 1 && byte == 'y';
    }
    ~OtherProcess() {
        release();
        for (int fd : {m_ready[0], m_ready[1], m_go[0], m_go[1]}) {
            if (fd >= 0) {
                ::close(fd);
            }
        }
    }
    OtherProcess(const OtherProcess&) = delete;
    OtherProcess& operator=(const OtherProcess&) = delete;

    bool held() const { return m_held; }
    pid_t pid() const { return m_pid; }
    void release() {
        if (m_pid > 0) {
            const char byte = 'g';
            (void)::write(m_go[1], &byte, 1);
            ::waitpid(m_pid, nullptr, 0);
            m_pid = -1;
        }
    }

private:
    int m_ready[2] = {-1, -1};
    int m_go[2] = {-1, -1};
    pid_t m_pid = -1;
    bool m_held = false;
};

class ProjectLockGuiTest : public ::testing::Test {
protected:
    void SetUp() override {
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, QString::fromStdString(dir.file("settings")));
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, QString::fromStdString(dir.file("settings")));
        databasePath = QString::fromStdString(dir.file("reference.sqlite"));
        project = QString::fromStdString(dir.file("pconc.blobbench.json"));
        document = new ProjectDocument;
        document->reset(defaultProject(databasePath));
        window = std::make_unique<MainWindow>(document);
        document->setParent(window.get());
        window->setDefaultDataset(databasePath, 300);
        window->files()->setSuppressUnsavedPrompt(true);
        window->setRepetitions(1);
        window->show();
        ASSERT_TRUE(window->files()->saveProjectTo(project));
    }
    void TearDown() override { window.reset(); }

    bool waitForRun(const std::function<void()>& start) {
        QSignalSpy finished(window.get(), &MainWindow::runFinished);
        start();
        return finished.count() > 0 || finished.wait(kRunTimeoutMs);
    }
    // The refusal: one message naming the project and the other process, and nothing run at all
    // (not even the data set prepared), nothing added to the history.
    void expectRefusedRun(const OtherProcess& other) {
        EXPECT_FALSE(window->isRunning());
        const std::string said = window->errorText().toStdString();
        EXPECT_NE(said.find(QFileInfo(project).absoluteFilePath().toStdString()), std::string::npos) << said;
        EXPECT_NE(said.find("in use by another process (process " + std::to_string(other.pid()) + ")"),
                  std::string::npos)
            << said;
        EXPECT_NE(said.find("Nothing was measured"), std::string::npos) << said;
        EXPECT_EQ(said.find('\n'), std::string::npos) << "one line: " << said;
        EXPECT_TRUE(document->project().history.empty());
        EXPECT_EQ(window->resultsModel()->rowCount(), 0);
        EXPECT_FALSE(QFile::exists(databasePath)) << "the run prepared its data set";
    }

    TempDir dir;
    QString databasePath;
    QString project;
    ProjectDocument* document = nullptr;
    std::unique_ptr<MainWindow> window;
};

// The reproduction of #21: blobbench-cli runs the project (its journal is live); Run in the
// window used to measure everything into no journal at all.
TEST_F(ProjectLockGuiTest, RunIsRefusedWhileAnotherProcessHoldsTheJournal) {
    OtherProcess other(journalPathFor(project), OtherProcess::Holds::Journal);
    ASSERT_TRUE(other.held());
    window->runAll();
    expectRefusedRun(other);
    EXPECT_NE(window->errorText().indexOf(journalPathFor(project)), -1) << window->errorText().toStdString();
    window->runCurrent();
    expectRefusedRun(other);

    // Once the other run is over, the same window runs and journals as ever.
    other.release();
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    EXPECT_TRUE(window->errorText().isEmpty()) << window->errorText().toStdString();
    ASSERT_EQ(document->project().history.size(), 1u);
    EXPECT_FALSE(document->project().history[0].samples.empty());
    EXPECT_TRUE(QFile::exists(journalPathFor(project)));
}

// Between loading the project and creating its journal (connecting, preparing) and after removing
// it, a CLI run holds only the project's lock.
TEST_F(ProjectLockGuiTest, RunIsRefusedWhileAnotherProcessHoldsTheProjectLock) {
    OtherProcess other(project + QStringLiteral(".lock"), OtherProcess::Holds::ProjectLock);
    ASSERT_TRUE(other.held());
    window->runAll();
    expectRefusedRun(other);
    EXPECT_FALSE(QFile::exists(journalPathFor(project))) << "a journal was made for a refused run";
    other.release();
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    ASSERT_EQ(document->project().history.size(), 1u);
    EXPECT_EQ(document->project().history[0].outcome, QStringLiteral("complete"));
}

// The window's own run holds the project's lock: another process sees it while the run goes on,
// and no longer once it ended (the unsaved run then keeps only its journal).
TEST_F(ProjectLockGuiTest, TheWindowsRunHoldsTheProjectLockUntilItEnds) {
    bool seenDuringTheRun = false;
    const QByteArray lock = (project + QStringLiteral(".lock")).toLocal8Bit();
    QObject::connect(window->controller(), &RunController::sampleReady, window.get(), [&] {
        if (seenDuringTheRun) {
            return;
        }
        const pid_t child = ::fork();
        if (child == 0) {  // another process asks: is the lock file held?
            const int fd = ::open(lock.constData(), O_RDONLY);
            ::_exit(fd >= 0 && ::flock(fd, LOCK_SH | LOCK_NB) != 0 ? 1 : 0);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        seenDuringTheRun = seenDuringTheRun || (WIFEXITED(status) && WEXITSTATUS(status) == 1);
    });
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    EXPECT_TRUE(seenDuringTheRun);
    EXPECT_FALSE(QFile::exists(project + QStringLiteral(".lock"))) << "the lock outlived the run";
}

// A Save while another process runs the project would overwrite the runs it saves: refused, the
// file left as the other process wrote it, the window's project kept unsaved.
TEST_F(ProjectLockGuiTest, SaveIsRefusedWhileAnotherProcessHoldsTheProjectLock) {
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    ASSERT_TRUE(document->isDirty());
    QFile file(project);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray before = file.readAll();
    file.close();

    OtherProcess other(project + QStringLiteral(".lock"), OtherProcess::Holds::ProjectLock);
    ASSERT_TRUE(other.held());
    EXPECT_FALSE(window->files()->saveProjectTo(project));
    const std::string said = window->errorText().toStdString();
    EXPECT_NE(said.find("Not saved: " + QFileInfo(project).absoluteFilePath().toStdString() +
                        " is in use by another process (process " + std::to_string(other.pid()) + ")"),
              std::string::npos)
        << said;
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(file.readAll(), before) << "the file was overwritten";
    file.close();
    EXPECT_TRUE(document->isDirty());
    EXPECT_TRUE(QFile::exists(journalPathFor(project))) << "the unsaved run's journal went";

    other.release();
    ASSERT_TRUE(window->files()->saveProjectTo(project));
    EXPECT_EQ(loadProject(project).history.size(), 1u);
}

// The other process has finished: the file now holds its run, which this window never loaded. A
// Save used to write the window's history over it; now the window's run joins that version (#29).
TEST_F(ProjectLockGuiTest, SaveAddsTheWindowsRunToAVersionAnotherProcessSaved) {
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    const QString mine = document->project().history.front().runId;
    Project onDisk = loadProject(project);
    RunRecord theirs = document->project().history.front();
    theirs.runId = QStringLiteral("run-of-another-process");
    onDisk.history.push_back(theirs);
    saveProject(project, onDisk);

    ASSERT_TRUE(window->files()->saveProjectTo(project)) << window->errorText().toStdString();
    const Project saved = loadProject(project);
    ASSERT_EQ(saved.history.size(), 2u) << "a run was lost";
    EXPECT_EQ(saved.history[0].runId, theirs.runId);
    EXPECT_EQ(saved.history[1].runId, mine);
    EXPECT_EQ(document->project().history.size(), 2u) << "the window does not show the file it saved";
    EXPECT_FALSE(document->isDirty());
}

// Issue #29: another program renames a new version of the project into place (an editor, `mv
// new.json P`) while the window holds an unsaved run. Save keeps that version's edit and adds the
// window's run to it, and says so; a second outside edit after that is noticed as well.
TEST_F(ProjectLockGuiTest, SaveMergesTheWindowsRunsIntoAFileChangedByAnotherProgram) {
    ASSERT_TRUE(window->files()->openProjectFile(project));  // the stamp of the file as opened
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    const QString mine = document->project().history.front().runId;
    auto replaceOnDisk = [&](const QString& name) {
        Project edited = loadProject(project);
        edited.name = name;
        const QString next = project + QStringLiteral(".new");
        saveProject(next, edited);
        return ::rename(QFile::encodeName(next).constData(), QFile::encodeName(project).constData()) == 0;
    };
    ASSERT_TRUE(replaceOnDisk(QStringLiteral("edited by another program")));

    QSignalSpy said(window->files(), &DocumentController::message);
    ASSERT_TRUE(window->files()->saveProjectTo(project)) << window->errorText().toStdString();
    const Project saved = loadProject(project);
    EXPECT_EQ(saved.name, QStringLiteral("edited by another program")) << "the outside edit was lost";
    ASSERT_EQ(saved.history.size(), 1u) << "the window's run is not in the file";
    EXPECT_EQ(saved.history[0].runId, mine);
    EXPECT_FALSE(saved.history[0].samples.empty());
    EXPECT_EQ(document->project().name, QStringLiteral("edited by another program"));
    EXPECT_FALSE(document->isDirty());
    ASSERT_FALSE(said.isEmpty());
    EXPECT_NE(said.last().at(0).toString().indexOf(QStringLiteral("changed by another program")), -1)
        << said.last().at(0).toString().toStdString();
    EXPECT_FALSE(QFile::exists(journalPathFor(project)));

    // The stamp follows the save: another edit, another run, another merge.
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    ASSERT_TRUE(replaceOnDisk(QStringLiteral("edited again")));
    ASSERT_TRUE(window->files()->saveProjectTo(project)) << window->errorText().toStdString();
    EXPECT_EQ(loadProject(project).name, QStringLiteral("edited again"));
    EXPECT_EQ(loadProject(project).history.size(), 2u);
}

// When the window changed more than runs (here a scenario's title), no merge is safe: refused with
// one message, the outside version kept on disk, the window's project unsaved; Save as works.
TEST_F(ProjectLockGuiTest, SaveOverAFileChangedByAnotherProgramIsRefusedWhenTheWindowChangedMore) {
    ASSERT_TRUE(waitForRun([&] { window->runAll(); }));
    ScenarioDef retitled = document->project().scenarios.at(0);
    retitled.title = QStringLiteral("retitled in the window");
    document->setScenario(0, retitled);
    Project edited = loadProject(project);
    edited.name = QStringLiteral("edited by another program");
    const QString next = project + QStringLiteral(".new");
    saveProject(next, edited);
    ASSERT_EQ(::rename(QFile::encodeName(next).constData(), QFile::encodeName(project).constData()), 0);

    EXPECT_FALSE(window->files()->saveProjectTo(project));
    const std::string said = window->errorText().toStdString();
    EXPECT_NE(said.find("Not saved: " + QFileInfo(project).absoluteFilePath().toStdString() +
                        " was changed by another program since this window read it"),
              std::string::npos)
        << said;
    EXPECT_EQ(said.find('\n'), std::string::npos) << "one line: " << said;
    EXPECT_EQ(loadProject(project).name, QStringLiteral("edited by another program")) << "the outside edit was lost";
    EXPECT_TRUE(document->isDirty());
    EXPECT_TRUE(QFile::exists(journalPathFor(project))) << "the unsaved run's journal went";

    const QString elsewhere = project + QStringLiteral(".mine.blobbench.json");
    ASSERT_TRUE(window->files()->saveProjectTo(elsewhere));
    EXPECT_EQ(loadProject(elsewhere).scenarios.at(0).title, QStringLiteral("retitled in the window"));
    EXPECT_EQ(loadProject(elsewhere).history.size(), 1u);
}

}  // namespace
