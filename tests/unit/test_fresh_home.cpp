// A new account: the README's project command works as written on an empty HOME. The shipped
// SQLite preset names the default data set (${DATA}/reference.sqlite), which is prepared on demand
// the way `blobbench-cli` with no arguments does; the run is saved in the user's own copy of the
// preset, never in the shipped file; any other missing SQLite file is still refused, not created.
#include <gtest/gtest.h>

#include <QString>
#include <filesystem>
#include <fstream>

#include "model/ProjectFile.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

std::string readAll(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// HOME and the XDG data folder of a new account; BLOBBENCH_DATA_DIR unset (empty).
std::vector<std::string> freshAccount(const TempDir& home) {
    return {"HOME=" + home.path().string(), "XDG_DATA_HOME=" + (home.path() / ".local/share").string(),
            "BLOBBENCH_DATA_DIR="};
}

TEST(FreshHome, SqlitePresetPreparesTheDefaultDataSetAndSavesInTheUsersCopy) {
    TempDir home;
    const std::filesystem::path preset =
        std::filesystem::path(BLOBBENCH_SOURCE_DIR) / "resources/presets/sqlite-reference.blobbench.json";
    const std::string presetBefore = readAll(preset);
    const std::filesystem::path data = home.path() / ".local/share/blobbench";

    auto r = runCli({"run", preset.string(), "-s", "short-blobs"}, freshAccount(home));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("Prepared sqlite:" + (data / "reference.sqlite").string() + ": 10000 rows"), std::string::npos)
        << r.out;
    const std::filesystem::path copy = data / "projects/sqlite-reference.blobbench.json";
    EXPECT_NE(r.err.find("is a preset: the run is saved in your copy, " + copy.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Saved run"), std::string::npos) << r.err;
    EXPECT_EQ(readAll(preset), presetBefore) << "the shipped preset was written to";
    ASSERT_TRUE(std::filesystem::exists(copy));
    EXPECT_EQ(loadProject(QString::fromStdString(copy.string())).history.size(), 1u);

    // The second run finds the data set and the copy: nothing prepared again, the history grows.
    r = runCli({"run", preset.string(), "-s", "short-blobs"}, freshAccount(home));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.find("Prepared"), std::string::npos) << r.out;
    EXPECT_EQ(loadProject(QString::fromStdString(copy.string())).history.size(), 2u);
    EXPECT_EQ(readAll(preset), presetBefore);
}

TEST(FreshHome, AMissingSqliteFileOtherThanTheDefaultIsRefusedNotCreated) {
    TempDir home;
    Project p = defaultProject(QString::fromStdString(home.file("typo.sqlite")));
    const std::string project = home.file("mine.blobbench.json");
    saveProject(QString::fromStdString(project), p);
    const auto r = runCli({"run", project, "-s", "short-blobs"}, freshAccount(home));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("typo.sqlite does not exist"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(home.file("typo.sqlite")));
    EXPECT_FALSE(std::filesystem::exists(home.path() / ".local/share/blobbench/reference.sqlite"));
}

}  // namespace
