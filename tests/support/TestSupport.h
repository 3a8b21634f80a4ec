#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace blobbench::test {

// A fresh folder under the temp dir, removed with the object.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return m_path; }
    std::string file(const std::string& name) const { return (m_path / name).string(); }

private:
    std::filesystem::path m_path;
};

struct ProcessResult {
    int exitCode = -1;  // 128 + the signal for a process a signal killed
    int killedBy = 0;   // that signal (CliProcess only)
    std::string out;
    std::string err;
};

// A signal sent at a random moment may come before the process has installed its handlers (under
// ASan the start-up alone takes 30 ms and more, seen in CI): it then ends by the default action
// with nothing written, as every program does in its start-up. Tests that signal at random moments
// skip such an attempt; one that printed anything and then died of the signal is no such case.
inline bool killedInItsStartUp(const ProcessResult& r, int sig) {
    return r.killedBy == sig && r.out.empty() && r.err.empty();
}

// Runs blobbench-cli with the arguments (no shell), with extra environment variables.
ProcessResult runCli(const std::vector<std::string>& args, const std::vector<std::string>& env = {});
// The same for any program (its full path).
ProcessResult runProgram(const std::string& program, const std::vector<std::string>& args,
                         const std::vector<std::string>& env = {});

// The reference data set on a Firebird server (`target`: a connection string blobbench-cli takes):
// left alone when `run -s warm-up` can read it, else made by `blobbench-cli prepare --rows ROWS`.
// Tests that read the shared database call it: a fresh database of scripts/services has no
// data set, and ctest may run them before the tests that prepare one. Returns prepare's error
// output, empty when the data set is there.
std::string ensureFirebirdData(const std::string& target, const std::string& user, const std::string& password,
                               const std::string& clientLibrary = {}, int rows = 300);

// blobbench-cli started in the background, for tests that signal it or run several at once:
// stdout and stderr to files (stdout to `stdoutFd` when given: a pipe, /dev/full); `env` adds or
// replaces variables ("NAME=value"), `unset` removes them. Killed and reaped if still running
// when destroyed.
class CliProcess {
public:
    // `program`: another program than blobbench-cli (the window: windowProgram()).
    explicit CliProcess(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                        int stdoutFd = -1, const std::vector<std::string>& unset = {}, const std::string& program = {});
    ~CliProcess();
    CliProcess(const CliProcess&) = delete;
    CliProcess& operator=(const CliProcess&) = delete;
    pid_t pid() const { return m_pid; }
    bool running();  // not exited yet (reaps it when it has)
    void signal(int sig);
    // SIGSTOP, `pause`, SIGCONT: the client stopped as a laptop's suspend or a debugger stops it.
    void stopFor(std::chrono::milliseconds pause);
    // Waits until `path` exists (a study's file: it is under way), the process ends or `timeout` passes.
    bool waitForFile(const std::filesystem::path& path, std::chrono::seconds timeout = std::chrono::seconds(60));
    std::string errSoFar() const;  // what it wrote on stderr until now
    // Waits at most `timeout`: exitCode 128 + signal for a process killed by one; on timeout the
    // process is killed and exitCode is -1.
    ProcessResult wait(std::chrono::seconds timeout);

private:
    std::unique_ptr<TempDir> m_io;
    pid_t m_pid = -1;
    int m_status = 0;
    bool m_reaped = false;
};

std::string envOrEmpty(const char* name);
bool ciMode();
// The workbench window's executable, beside blobbench-cli's (build/<preset>/app/gui/blobbench).
std::string windowProgram();  // CI=true: a missing server fails the test instead of skipping it

// The relay counts a round trip at each turn of the streams it reads, the client at each turn of
// its own calls. A request the client sends without waiting for its answer (Firebird's deferred
// packets, a pipeline) that the server answers before the client's next send is one turn for the
// client and two for the relay: the relay may count a few more, never fewer (at most 2 or 2 %).
bool relayRoundTripsAgree(std::uint64_t inProcess, std::uint64_t relay);
// Counted by both (then as above) or by neither.
bool relayRoundTripsAgree(const std::optional<std::uint64_t>& inProcess, const std::optional<std::uint64_t>& relay);

}  // namespace blobbench::test

// Declares `var` with the value of environment variable `name`; when it is missing the test
// fails under CI=true and is skipped elsewhere.
#define BLOBBENCH_REQUIRE_ENV(var, name)                                                               \
    const std::string var = ::blobbench::test::envOrEmpty(name);                                       \
    if (var.empty()) {                                                                                 \
        if (::blobbench::test::ciMode()) {                                                             \
            FAIL() << name << " is not set: the server this test needs is missing (run scripts/test)"; \
        }                                                                                              \
        GTEST_SKIP() << "set " << name << " (scripts/test does) to run this test";                     \
    }

// Under AddressSanitizer the client's own work is several times slower and uneven: a test that
// compares measured times with a model (a prediction, a fit) is checked by the ci build instead.
#if defined(__SANITIZE_ADDRESS__)
#define BLOBBENCH_TIMES_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BLOBBENCH_TIMES_MEANINGFUL 0
#endif
#endif
#ifndef BLOBBENCH_TIMES_MEANINGFUL
#define BLOBBENCH_TIMES_MEANINGFUL 1
#endif
#define BLOBBENCH_SKIP_UNLESS_TIMES_MEANINGFUL()                                                        \
    if (!BLOBBENCH_TIMES_MEANINGFUL) {                                                                  \
        GTEST_SKIP() << "timings under AddressSanitizer are the sanitizer's; the ci build checks them"; \
    }

namespace blobbench::test {

void writeFile(const std::filesystem::path& path, const std::string& content);
std::string readFile(const std::filesystem::path& path);  // the whole file, or "" when it cannot be read

// Runs each statement on the SQLite file at `path` through the driver, creating the file (a
// BLOB_TEST made by plain SQL, a data set spoiled on purpose).
void sqliteExecute(const std::string& path, const std::vector<std::string>& statements);

}  // namespace blobbench::test
