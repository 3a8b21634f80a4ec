#pragma once

#include <filesystem>
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
    int exitCode = -1;
    std::string out;
    std::string err;
};

// Runs blobbench-cli with the arguments (no shell), with extra environment variables.
ProcessResult runCli(const std::vector<std::string>& args, const std::vector<std::string>& env = {});
// The same for any program (its full path).
ProcessResult runProgram(const std::string& program, const std::vector<std::string>& args,
                         const std::vector<std::string>& env = {});

std::string envOrEmpty(const char* name);
bool ciMode();  // CI=true: a missing server fails the test instead of skipping it

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

namespace blobbench::test {

void writeFile(const std::filesystem::path& path, const std::string& content);

}  // namespace blobbench::test
