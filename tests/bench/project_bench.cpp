// Project files with a long history: save and load a project of 100,000 stored samples (a sweep
// of 7 scenarios x 20 points x ~715 repetitions over 7 SQLite tunables), with the targets of the
// projects issue: load < 2 s and < 300 MB, save < 2 s. The load runs in a fresh process so that
// its peak RSS (VmHWM) is its own; a load of an empty project in the same way gives the baseline.
// Usage: project_bench [SAMPLES] [FILE]   (default 100000, a file in the temp dir)
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>

#include "model/ProjectFile.h"

extern char** environ;

using namespace blobbench;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

// CPU time as well as wall time: on a shared build machine the wall clock includes waiting.
double cpuSeconds() {
    return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}

long peakRssKiB() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::stol(line.substr(6));
        }
    }
    return -1;
}

Sample sampleAt(std::size_t i) {
    static const char* scenarios[] = {"warm-up", "short-blobs",     "varchar", "all-blobs",
                                      "mixed",   "mixed-optimised", "blob-ids"};
    Sample s;
    s.runId = "2026-11-29T10:00:00.000Z";
    s.scenarioId = scenarios[i % 7];
    s.scenarioTitle = std::string("Test read ") + s.scenarioId;
    s.sql = "SELECT\n  ID,\n  CONTENT\nFROM BLOB_TEST\nWHERE SHORT_BLOB IS TRUE";
    s.repetition = static_cast<int>((i / 7) % 715);
    const std::size_t point = i / (7 * 715);
    s.point = {{"mmap_size", std::to_string(point * 1048576)}};
    s.startedAt = "2026-11-29T10:00:00." + std::to_string(100 + i % 900) + "Z";
    s.engine = "sqlite";
    s.connection = "sqlite:/home/user/.local/share/blobbench/reference.sqlite";
    s.serverVersion = "3.40.1";
    s.clientVersion = "3.40.1";
    s.negotiated = {{"journal_mode", "delete"}};
    s.parameters = {{"blob_api", "false"},      {"cache_size", "2000"},
                    {"journal_mode", "delete"}, {"mmap_size", s.point.at("mmap_size")},
                    {"mode", "read-write"},     {"page_size", "4096"},
                    {"synchronous", "full"}};
    for (const auto& [k, v] : s.parameters) {
        s.effects.push_back({k, v, v, true, ""});
    }
    s.phases.connect = Nanos(1'000'000 + static_cast<std::int64_t>(point));
    s.phases.prepare = Nanos(20'000 + static_cast<std::int64_t>(i % 977));
    s.phases.execute = Nanos(50'000 + static_cast<std::int64_t>(i % 10007));
    s.phases.fetch = Nanos(140'000'000 + static_cast<std::int64_t>((i * 7919) % 5'000'000));
    s.rows = 10000;
    s.contentBytes = 126'548'330 - i % 3;
    s.valuesRead = 10000;
    s.maxId = 10000;
    s.tap = WireStats::unavailable("not applicable (embedded)");
    return s;
}

int loadMode(const char* path) {
    QCoreApplication::setApplicationName(QStringLiteral("blobbench"));
    const auto t0 = Clock::now();
    const double c0 = cpuSeconds();
    const Project p = loadProject(QString::fromLocal8Bit(path));
    const double took = seconds(Clock::now() - t0);
    const double cpu = cpuSeconds() - c0;
    std::size_t samples = 0;
    for (const auto& r : p.history) {
        samples += r.samples.size();
    }
    std::printf("%zu %.3f %ld %.3f\n", samples, took, peakRssKiB(), cpu);
    return 0;
}

// Runs this program again as `--load FILE` and reads "samples seconds peakKiB".
bool loadInChild(const char* self, const std::string& mode, const std::string& file, std::size_t& samples, double& took,
                 long& peak, double& cpu) {
    int fds[2];
    if (pipe(fds) != 0) {
        return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    std::string a0 = self;
    std::string a1 = mode;
    std::string a2 = file;
    char* argv[] = {a0.data(), a1.data(), a2.data(), nullptr};
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, self, &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return false;
    }
    char buffer[256] = {};
    const ssize_t n = read(fds[0], buffer, sizeof buffer - 1);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return n > 0 && std::sscanf(buffer, "%zu %lf %ld %lf", &samples, &took, &peak, &cpu) == 4;
}

}  // namespace

// The floor for a naive loader: the same samples built in memory, each with its own copy of its
// context (no sharing), no file involved.
int buildMode(std::size_t count) {
    const auto t0 = Clock::now();
    std::vector<Sample> samples;
    samples.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        samples.push_back(sampleAt(i));
    }
    std::printf("%zu %.3f %ld %.3f\n", samples.size(), seconds(Clock::now() - t0), peakRssKiB(), cpuSeconds());
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "--load") == 0) {
        return loadMode(argv[2]);
    }
    if (argc == 3 && std::strcmp(argv[1], "--build") == 0) {
        return buildMode(std::stoul(argv[2]));
    }
    QCoreApplication app(argc, argv);
    const std::size_t count = argc > 1 ? std::stoul(argv[1]) : 100000;
    const std::string file = argc > 2 ? argv[2] : "/tmp/blobbench-project-bench.blobbench.json";
    const std::string empty = file + ".empty.blobbench.json";

    Project p = defaultProject(QStringLiteral("/tmp/reference.sqlite"));
    saveProject(QString::fromStdString(empty), p);
    RunRecord run;
    run.runId = QStringLiteral("2026-11-29T10:00:00.000Z");
    run.machine = QStringLiteral("bench");
    run.samples.reserve(count);
    SampleContextSharing context;  // as the Runner hands them over
    for (std::size_t i = 0; i < count; ++i) {
        run.samples.push_back(sampleAt(i));
        context.share(run.samples.back());
    }
    p.history.push_back(std::move(run));

    const auto t0 = Clock::now();
    const double c0 = cpuSeconds();
    saveProject(QString::fromStdString(file), p);
    const double saveCpu = cpuSeconds() - c0;
    const double save = seconds(Clock::now() - t0);
    const auto bytes = QFileInfo(QString::fromStdString(file)).size();

    std::size_t loaded = 0;
    double load = 0;
    long peak = 0;
    std::size_t none = 0;
    double baseTook = 0;
    long basePeak = 0;
    double loadCpu = 0;
    double baseCpu = 0;
    std::size_t built = 0;
    double buildTook = 0;
    long buildPeak = 0;
    double buildCpu = 0;
    if (!loadInChild(argv[0], "--load", file, loaded, load, peak, loadCpu) ||
        !loadInChild(argv[0], "--load", empty, none, baseTook, basePeak, baseCpu) ||
        !loadInChild(argv[0], "--build", std::to_string(count), built, buildTook, buildPeak, buildCpu)) {
        std::fprintf(stderr, "project_bench: the load process failed\n");
        return 1;
    }
    std::printf("Project with %zu samples: %.1f MB on disk\n", count, static_cast<double>(bytes) / 1e6);
    std::printf("  save: %.3f s wall, %.3f s CPU (target < 2 s)\n", save, saveCpu);
    std::printf("  load: %.3f s wall, %.3f s CPU (target < 2 s), %zu samples read back\n", load, loadCpu, loaded);
    std::printf("  load peak RSS: %.1f MB (target < 300 MB); an empty project: %.1f MB\n", peak / 1024.0,
                basePeak / 1024.0);
    // The bare loop: the same samples built in memory, no file, no JSON. No loader can go below it.
    std::printf(
        "  bare loop (the same %zu samples built in memory): %.3f s CPU, peak RSS %.1f MB; load = %.2fx "
        "its memory\n",
        built, buildCpu, buildPeak / 1024.0, static_cast<double>(peak) / static_cast<double>(buildPeak));
    if (std::getenv("BLOBBENCH_KEEP_FILE") == nullptr) {
        std::remove(file.c_str());
    }
    std::remove(empty.c_str());
    return loaded == count ? 0 : 1;
}
