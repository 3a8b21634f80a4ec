#pragma once

#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/run/AggregateLog.h"

namespace blobbench::cli {

// --aggregate-log FILE [--aggregate-interval S]: pgbench's aggregate log of a sessions run
// (engine/run/AggregateLog.h), FILE for one run, FILE.1, FILE.2 ... for the points of a sweep.
class AggregateLogFile {
public:
    AggregateLogFile(std::string path, int intervalS);
    bool active() const { return !m_path.empty(); }
    // Before anything is measured, for a run of `points` files (0: one, FILE itself; else FILE.1 ..
    // FILE.points): each must be a file the log may replace, none the same file as one of `others`
    // (flag or role -> path: exports, the project, its journal and lock). Error(Usage) naming the
    // file; a FIFO, a directory or a device is refused (an open of a FIFO blocks until a reader comes).
    void check(std::size_t points, const std::vector<std::pair<std::string, std::string>>& others) const;
    // Opens (truncates) the file of a point (nullopt: the run has one); Error(Io) naming it when it
    // cannot be written, before the point's sessions connect.
    void begin(std::optional<std::size_t> point);
    void record(const StatementEnd& statement);  // thread-safe; nothing when no file is open
    // Writes the last intervals and closes the file; "" or one line saying what failed.
    std::string end();
    const std::string& path() const { return m_path; }
    std::string written() const;  // "FILE" or "FILE.1 .. FILE.4", "" when nothing was opened

private:
    std::string m_path;
    int m_intervalS;
    std::string m_current;
    std::size_t m_files = 0;  // files named so far: FILE.1 .. FILE.<m_files>
    bool m_numbered = false;
    std::ofstream m_out;
    std::unique_ptr<AggregateLog> m_log;
};

}  // namespace blobbench::cli
