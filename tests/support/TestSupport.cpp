#include "support/TestSupport.h"

#include "engine/drivers/Registry.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <random>
#include <thread>

extern char** environ;

namespace blobbench::test {

TempDir::TempDir() {
    std::random_device rd;
    m_path = std::filesystem::temp_directory_path() /
             ("blobbench-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(m_path);
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

ProcessResult runCli(const std::vector<std::string>& args, const std::vector<std::string>& env) {
    return runProgram(BLOBBENCH_CLI_PATH, args, env);
}

std::string ensureFirebirdData(const std::string& target, const std::string& user, const std::string& password,
                               const std::string& clientLibrary, int rows) {
    std::vector<std::string> args = {target, "-u", user, "-q"};
    if (!clientLibrary.empty()) {
        args.insert(args.end(), {"--client-library", clientLibrary});
    }
    const std::vector<std::string> env = {"ISC_PASSWORD=" + password};
    std::vector<std::string> check = {"run", "-s", "warm-up"};
    check.insert(check.end(), args.begin(), args.end());
    if (runCli(check, env).exitCode == 0) {
        return {};
    }
    std::vector<std::string> prepare = {"prepare", "--rows", std::to_string(rows)};
    prepare.insert(prepare.end(), args.begin(), args.end());
    const ProcessResult prepared = runCli(prepare, env);
    return prepared.exitCode == 0 ? std::string()
                                  : "prepare failed (" + std::to_string(prepared.exitCode) + "): " + prepared.err;
}

ProcessResult runProgram(const std::string& program, const std::vector<std::string>& args,
                         const std::vector<std::string>& env) {
    TempDir io;
    const std::string outPath = io.file("out");
    const std::string errPath = io.file("err");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<std::string> all = {program};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    std::vector<std::string> environment;
    for (char** e = environ; *e; ++e) {
        environment.emplace_back(*e);
    }
    environment.insert(environment.end(), env.begin(), env.end());
    std::vector<char*> envp;
    for (auto& e : environment) {
        envp.push_back(e.data());
    }
    envp.push_back(nullptr);
    pid_t pid = 0;
    ProcessResult result;
    if (posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data()) != 0) {
        posix_spawn_file_actions_destroy(&actions);
        ADD_FAILURE() << "cannot start " << program;
        return result;
    }
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    waitpid(pid, &status, 0);
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = readFile(outPath);
    result.err = readFile(errPath);
    return result;
}

CliProcess::CliProcess(const std::vector<std::string>& args, const std::vector<std::string>& env, int stdoutFd,
                       const std::vector<std::string>& unset, const std::string& program)
    : m_io(std::make_unique<TempDir>()) {
    const std::string outPath = m_io->file("out");
    const std::string errPath = m_io->file("err");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (stdoutFd >= 0) {
        posix_spawn_file_actions_adddup2(&actions, stdoutFd, 1);
    } else {
        posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    }
    posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const std::string path = program.empty() ? std::string(BLOBBENCH_CLI_PATH) : program;
    std::vector<std::string> all = {path};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    // The given variables replace the inherited ones of the same name (getenv finds the first).
    auto named = [](const std::string& entry, const std::vector<std::string>& names) {
        for (const auto& n : names) {
            const std::string name = n.substr(0, n.find('='));
            if (entry.compare(0, name.size() + 1, name + "=") == 0) {
                return true;
            }
        }
        return false;
    };
    std::vector<std::string> environment(env);
    for (char** e = environ; *e; ++e) {
        if (!named(*e, env) && !named(*e, unset)) {
            environment.emplace_back(*e);
        }
    }
    std::vector<char*> envp;
    for (auto& e : environment) {
        envp.push_back(e.data());
    }
    envp.push_back(nullptr);
    if (posix_spawn(&m_pid, path.c_str(), &actions, nullptr, argv.data(), envp.data()) != 0) {
        m_pid = -1;
        ADD_FAILURE() << "cannot start " << path;
    }
    posix_spawn_file_actions_destroy(&actions);
}

CliProcess::~CliProcess() {
    if (m_pid > 0 && !m_reaped) {
        ::kill(m_pid, SIGKILL);
        waitpid(m_pid, &m_status, 0);
    }
}

bool CliProcess::running() {
    if (m_pid <= 0 || m_reaped) {
        return false;
    }
    if (waitpid(m_pid, &m_status, WNOHANG) == m_pid) {
        m_reaped = true;
    }
    return !m_reaped;
}

void CliProcess::signal(int sig) {
    if (running()) {
        ::kill(m_pid, sig);
    }
}

void CliProcess::stopFor(std::chrono::milliseconds pause) {
    signal(SIGSTOP);
    std::this_thread::sleep_for(pause);
    signal(SIGCONT);
}

bool CliProcess::waitForFile(const std::filesystem::path& path, std::chrono::seconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (!std::filesystem::exists(path) && running() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::filesystem::exists(path);
}

std::string CliProcess::errSoFar() const {
    return readFile(m_io->file("err"));
}

ProcessResult CliProcess::wait(std::chrono::seconds timeout) {
    ProcessResult result;
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (running() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (running()) {
        ::kill(m_pid, SIGKILL);
        waitpid(m_pid, &m_status, 0);
        m_reaped = true;
        result.exitCode = -1;
    } else if (m_pid > 0) {
        result.exitCode = WIFEXITED(m_status) ? WEXITSTATUS(m_status) : 128 + WTERMSIG(m_status);
        result.killedBy = WIFSIGNALED(m_status) ? WTERMSIG(m_status) : 0;
    }
    result.out = readFile(m_io->file("out"));
    result.err = readFile(m_io->file("err"));
    return result;
}

bool relayRoundTripsAgree(std::uint64_t inProcess, std::uint64_t relay) {
    return relay >= inProcess && relay - inProcess <= std::max<std::uint64_t>(2, inProcess / 50);
}

bool relayRoundTripsAgree(const std::optional<std::uint64_t>& inProcess, const std::optional<std::uint64_t>& relay) {
    if (!inProcess || !relay) {
        return !inProcess && !relay;
    }
    return relayRoundTripsAgree(*inProcess, *relay);
}

std::string windowProgram() {
    return (std::filesystem::path(BLOBBENCH_CLI_PATH).parent_path() / "gui" / "blobbench").string();
}

std::string envOrEmpty(const char* name) {
    const char* value = std::getenv(name);
    return value == nullptr ? std::string() : std::string(value);
}

bool ciMode() {
    return envOrEmpty("CI") == "true";
}

void writeFile(const std::filesystem::path& path, const std::string& content) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << content;
}

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void sqliteExecute(const std::string& path, const std::vector<std::string>& statements) {
    const Driver& driver = driverById("sqlite");
    ConnectionSpec spec{"sqlite", "sqlite:" + path};
    spec.create = true;
    auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
    for (const std::string& sql : statements) {
        session->execute(sql);
    }
}

}  // namespace blobbench::test
