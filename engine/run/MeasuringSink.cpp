#include "engine/run/MeasuringSink.h"

#include <algorithm>
#include <cctype>

namespace blobbench {

void MeasuringSink::columns(const std::vector<ColumnInfo>& columns) {
    m_idColumn.reset();
    for (std::size_t i = 0; i < columns.size(); ++i) {
        std::string name = columns[i].name;
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
        if (name == "ID") {
            m_idColumn = i;
            return;
        }
    }
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (columns[i].kind == ColumnKind::Integer) {
            m_idColumn = i;
            return;
        }
    }
}

void MeasuringSink::integer(std::size_t column, std::int64_t value) {
    if (capturing(column)) {
        m_first = std::to_string(value);
    }
    if (m_idColumn == column || (!m_idColumn && column == 0)) {
        m_maxId = m_maxId ? std::max(*m_maxId, value) : value;
    }
}

void MeasuringSink::real(std::size_t column, double value) {
    if (capturing(column)) {
        m_first = std::to_string(value);
    }
}

void MeasuringSink::null(std::size_t column) {
    if (capturing(column)) {
        m_first = "NULL";
    }
}

void MeasuringSink::chunk(std::size_t column, std::string_view bytes) {
    m_bytes += bytes.size();
    if (capturing(column)) {
        if (!m_first) {
            m_first.emplace();
        }
        if (m_first->size() < 256) {
            m_first->append(bytes.substr(0, 256 - m_first->size()));
        }
    }
}

void MeasuringSink::valueEnd(std::size_t) {
    ++m_values;
}

void MeasuringSink::lobSkipped(std::size_t) {
    ++m_skipped;
}

void MeasuringSink::endRow() {
    ++m_rows;
    if (m_progress && m_rows % m_every == 0) {
        m_progress(m_rows, m_bytes);
    }
}

}  // namespace blobbench
