#pragma once
// dumpcap on lo and tshark's reading of it, for tests that compare wire counts with a packet
// capture (Debian's tshark package). Header-only; the same helpers as test_wire_capture.cpp's.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace blobbench::test {

inline bool captureToolsInstalled() {
    return std::system("command -v dumpcap >/dev/null 2>&1 && command -v tshark >/dev/null 2>&1") == 0;
}

// A running dumpcap on lo for one TCP port, writing to a file; stopped (SIGINT, which flushes the
// file) on destruction.
class LoopbackCapture {
public:
    LoopbackCapture(std::uint16_t port, const std::string& file) : m_log(file + ".log") {
        using namespace std::chrono_literals;
        const std::string filter = "tcp port " + std::to_string(port);
        std::vector<std::string> args = {"dumpcap", "-q",  "-i", "lo",           "-f", filter,
                                         "-s",      "128", "-a", "duration:120", "-w", file};
        std::vector<char*> argv;
        for (std::string& arg : args) {
            argv.push_back(arg.data());
        }
        argv.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, m_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        if (::posix_spawnp(&m_pid, "dumpcap", &actions, nullptr, argv.data(), environ) != 0) {
            m_pid = -1;
        }
        posix_spawn_file_actions_destroy(&actions);
        for (int i = 0; i < 150 && m_pid > 0 && !m_running; ++i) {
            std::this_thread::sleep_for(100ms);
            m_running = output().find("Capturing on") != std::string::npos;
        }
    }
    ~LoopbackCapture() {
        stop();
        std::filesystem::remove(m_log);
    }
    LoopbackCapture(const LoopbackCapture&) = delete;
    LoopbackCapture& operator=(const LoopbackCapture&) = delete;

    bool running() const { return m_running; }
    std::string output() const {
        std::ifstream log(m_log);
        return std::string((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    }
    void stop() {
        if (m_pid > 0) {
            ::kill(m_pid, SIGINT);
            int status = 0;
            ::waitpid(m_pid, &status, 0);
            m_pid = -1;
        }
    }

private:
    std::string m_log;
    pid_t m_pid = -1;
    bool m_running = false;
};

struct CapturedCounts {
    std::uint64_t upBytes = 0, downBytes = 0, upSegments = 0, downSegments = 0, roundTrips = 0;
    // Segments that carried no byte not seen before: TCP retransmissions. On a loaded machine lo
    // drops segments at the receiver's backlog after the capture has seen them, and the sender
    // sends them again; the socket delivers those bytes once, so they are not counted twice.
    std::uint64_t retransmitted = 0;
    std::uint64_t foreign = 0;  // segments of another connection that shared the filtered port
};

// Payload-carrying segments of the capture; a segment to `serverPort` is up. Bytes are counted by
// sequence number (each byte of the stream once, whatever was sent again), and a round trip is a
// change from up to down between segments that carry new bytes.
inline CapturedCounts analyseCapture(const std::string& file, std::uint16_t serverPort) {
    const std::string command = "tshark -r '" + file +
                                "' -o tcp.relative_sequence_numbers:TRUE -Y 'tcp.len > 0' -T fields -e tcp.srcport "
                                "-e tcp.dstport -e tcp.seq -e tcp.len 2>/dev/null";
    CapturedCounts counts;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        return counts;
    }
    char line[256];
    int last = -1;
    // The stream bytes seen so far per direction, as disjoint [begin, end) ranges: a segment sent
    // again (seen twice) or filling a gap (its first sending dropped before the capture saw it)
    // adds only what is not in them yet.
    std::map<std::uint64_t, std::uint64_t> seen[2];
    while (std::fgets(line, sizeof line, pipe) != nullptr) {
        std::istringstream fields(line);
        unsigned source = 0, port = 0;
        std::uint64_t begin = 0, length = 0;
        if (!(fields >> source >> port >> begin >> length)) {
            ADD_FAILURE() << "tshark: " << line;
            continue;
        }
        // The capture filter names one port; Linux may reuse an ephemeral port towards another
        // server at the same time, and that connection is not this one.
        if (source != serverPort && port != serverPort) {
            ++counts.foreign;
            continue;
        }
        const int direction = port == serverPort ? 0 : 1;
        std::map<std::uint64_t, std::uint64_t>& ranges = seen[direction];
        const std::uint64_t segmentBegin = begin, segmentEnd = begin + length;
        std::uint64_t end = segmentEnd, covered = 0;
        auto it = ranges.upper_bound(begin);
        if (it != ranges.begin() && std::prev(it)->second >= begin) {
            --it;
        }
        while (it != ranges.end() && it->first <= end) {
            const std::uint64_t from = std::max(segmentBegin, it->first), to = std::min(segmentEnd, it->second);
            covered += to > from ? to - from : 0;
            begin = std::min(begin, it->first);
            end = std::max(end, it->second);
            it = ranges.erase(it);
        }
        ranges.emplace(begin, end);
        const std::uint64_t added = length - covered;
        if (added == 0) {
            ++counts.retransmitted;
            continue;
        }
        (direction == 0 ? counts.upBytes : counts.downBytes) += added;
        ++(direction == 0 ? counts.upSegments : counts.downSegments);
        if (direction == 1 && last == 0) {
            ++counts.roundTrips;
        }
        last = direction;
    }
    ::pclose(pipe);
    return counts;
}

}  // namespace blobbench::test
