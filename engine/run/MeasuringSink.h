#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "engine/drivers/Driver.h"

namespace blobbench {

// Counts what a fetch delivered without keeping it: rows, content bytes, values, the max id, and
// for single-value scenarios the value itself.
class MeasuringSink final : public RowSink {
public:
    using Progress = std::function<void(std::uint64_t rows, std::uint64_t bytes)>;
    explicit MeasuringSink(Progress progress = {}, std::uint64_t progressEvery = 256)
        : m_progress(std::move(progress)), m_every(progressEvery) {}

    void columns(const std::vector<ColumnInfo>& columns) override;
    void integer(std::size_t column, std::int64_t value) override;
    void real(std::size_t column, double value) override;
    void null(std::size_t column) override;
    void chunk(std::size_t column, std::string_view bytes) override;
    void valueEnd(std::size_t column) override;
    void lobSkipped(std::size_t column) override;
    void endRow() override;

    std::uint64_t rows() const { return m_rows; }
    std::uint64_t contentBytes() const { return m_bytes; }
    std::uint64_t valuesRead() const { return m_values; }
    std::uint64_t valuesSkipped() const { return m_skipped; }
    std::optional<std::int64_t> maxId() const { return m_maxId; }
    const std::optional<std::string>& firstValue() const { return m_first; }

private:
    bool capturing(std::size_t column) const { return m_rows == 0 && column == 0; }
    Progress m_progress;
    std::uint64_t m_every;
    std::optional<std::size_t> m_idColumn;
    std::uint64_t m_rows = 0;
    std::uint64_t m_bytes = 0;
    std::uint64_t m_values = 0;
    std::uint64_t m_skipped = 0;
    std::optional<std::int64_t> m_maxId;
    std::optional<std::string> m_first;
};

}  // namespace blobbench
