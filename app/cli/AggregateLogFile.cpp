#include "app/cli/AggregateLogFile.h"

#include <unistd.h>
#include <algorithm>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "app/cli/CliOptions.h"
#include "engine/core/Error.h"
#include "engine/core/FileKind.h"

namespace blobbench::cli {

AggregateLogFile::AggregateLogFile(std::string path, int intervalS) : m_path(std::move(path)), m_intervalS(intervalS) {}

void AggregateLogFile::check(std::size_t points, const std::vector<std::pair<std::string, std::string>>& others) const {
    if (!active()) {
        return;
    }
    for (std::size_t i = 0; i < std::max<std::size_t>(points, 1); ++i) {
        const std::string file = points == 0 ? m_path : m_path + "." + std::to_string(i + 1);
        if (const std::string why = whyNotAFile(file); !why.empty()) {
            throw Error(ErrorKind::Usage, "--aggregate-log: " + file + ": " + why + "; nothing was measured");
        }
        // Writable: the file itself when it is there, else its folder.
        const std::filesystem::path path(file);
        std::error_code ec;
        const bool there = std::filesystem::exists(path, ec);
        const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
        if (::access((there ? path : folder).c_str(), W_OK) != 0) {
            const int error = errno;
            throw Error(ErrorKind::Io, "cannot write the aggregate log " + file + ": " + std::strerror(error) +
                                           "; nothing was measured");
        }
        for (const auto& [what, path] : others) {
            if (!path.empty() && sameFile(file, path)) {
                throw Error(ErrorKind::Usage, "--aggregate-log writes " + file + ", which " + what +
                                                  " names too (each would overwrite the other); nothing was measured");
            }
        }
    }
}

void AggregateLogFile::begin(std::optional<std::size_t> point) {
    if (active()) {
        // A FIFO put in place since the check would block the open: refused again, at once.
        const std::string file = point ? m_path + "." + std::to_string(*point + 1) : m_path;
        if (const std::string why = whyNotAFile(file); !why.empty()) {
            throw Error(ErrorKind::Io, "cannot write the aggregate log " + file + ": " + why);
        }
    }
    if (!active()) {
        return;
    }
    end();
    m_numbered = m_numbered || point.has_value();
    m_current = point ? m_path + "." + std::to_string(*point + 1) : m_path;
    m_out.open(m_current, std::ios::out | std::ios::trunc);
    if (!m_out) {
        const int error = errno;
        throw Error(ErrorKind::Io, "cannot write the aggregate log " + m_current + ": " + std::strerror(error));
    }
    m_files = std::max(m_files, point.value_or(0) + 1);  // the check before the run opens FILE.1 again
    m_log = std::make_unique<AggregateLog>(m_out, std::chrono::seconds(m_intervalS));
}

void AggregateLogFile::record(const StatementEnd& statement) {
    if (m_log) {
        m_log->record(statement);
    }
}

std::string AggregateLogFile::end() {
    if (!m_log) {
        return {};
    }
    m_log->finish();
    m_log.reset();
    m_out.close();
    if (m_out.fail()) {
        m_out.clear();
        return "cannot write the aggregate log " + m_current + " (" + std::strerror(errno) + ")";
    }
    return {};
}

std::string AggregateLogFile::written() const {
    if (m_files == 0) {
        return {};
    }
    return m_numbered ? m_path + ".1" + (m_files > 1 ? " .. " + m_path + "." + std::to_string(m_files) : std::string())
                      : m_path;
}

}  // namespace blobbench::cli
