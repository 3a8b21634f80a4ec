#include "app/cli/AggregateLogFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/core/Error.h"

namespace blobbench::cli {

AggregateLogFile::AggregateLogFile(std::string path, int intervalS) : m_path(std::move(path)), m_intervalS(intervalS) {}

void AggregateLogFile::begin(std::optional<std::size_t> point) {
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
