#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/CancelToken.h"
#include "engine/data/SyntheticSource.h"
#include "engine/drivers/Driver.h"
#include "engine/run/Scenario.h"

namespace blobbench {

// Where the reference tables' content comes from. BLOB_SAMPLE holds the distinct values (files);
// BLOB_TEST's rows copy them by the reference rule.
class RowSource {
public:
    virtual ~RowSource() = default;
    virtual std::string describe() const = 0;
    virtual std::uint64_t sampleCount() const = 0;
    virtual bool fillsSampleTable() const = 0;  // synthetic data has no files to keep
    virtual std::string sampleName(std::uint64_t sample) const = 0;
    virtual void sampleContent(std::uint64_t sample, std::string& out) const = 0;
    virtual std::uint64_t testRows() const = 0;
    virtual std::uint64_t sampleOfTestRow(std::uint64_t row) const = 0;
    // What the source left out and why ("p (a FIFO), z (a character device)"), for the user to be told.
    virtual std::string leftOut() const { return {}; }
};

class SyntheticRowSource final : public RowSource {
public:
    explicit SyntheticRowSource(const SyntheticProfile& profile) : m_profile(profile), m_source(profile) {}
    std::string describe() const override;
    std::uint64_t sampleCount() const override { return m_source.rows(); }
    bool fillsSampleTable() const override { return false; }
    std::string sampleName(std::uint64_t sample) const override { return m_source.fileNameOf(sample); }
    void sampleContent(std::uint64_t sample, std::string& out) const override { m_source.contentOf(sample, out); }
    std::uint64_t testRows() const override { return m_source.rows(); }
    std::uint64_t sampleOfTestRow(std::uint64_t row) const override { return row; }

private:
    SyntheticProfile m_profile;
    SyntheticSource m_source;
};

// The largest value a data set holds: PostgreSQL's limit for one bytea value.
inline constexpr std::uint64_t kMaxValueBytes = std::uint64_t{1} << 30;

// Every regular file below a folder is a BLOB_SAMPLE row named by its relative path; BLOB_TEST
// gets `rows` rows cycling through them in FILE_NAME order. Files are read as bytes: text that is
// not UTF-8 is kept as it is and counted. A file above kMaxValueBytes is refused, naming it, before
// anything is read (each value is read whole: a 20 GB file took 20 GB of memory).
class FolderRowSource final : public RowSource {
public:
    FolderRowSource(const std::filesystem::path& folder, std::uint64_t rows);
    std::string describe() const override;
    std::uint64_t sampleCount() const override { return m_files.size(); }
    bool fillsSampleTable() const override { return true; }
    std::string sampleName(std::uint64_t sample) const override { return m_files[sample]; }
    void sampleContent(std::uint64_t sample, std::string& out) const override;
    std::uint64_t testRows() const override { return m_rows; }
    std::uint64_t sampleOfTestRow(std::uint64_t row) const override { return row % m_files.size(); }
    std::string leftOut() const override { return m_leftOut; }

private:
    std::filesystem::path m_folder;
    std::string m_leftOut;             // entries that are no regular file (a FIFO, a device, a broken link)
    std::vector<std::string> m_files;  // relative, generic format, sorted
    std::uint64_t m_rows;
};

// What a prepared data set holds, as written in its BLOBBENCH_DATASET table.
struct DatasetSummary {
    std::string source;
    std::uint64_t rows = 0;
    std::uint64_t contentBytes = 0;
    std::uint64_t shortRows = 0;
    std::uint64_t shortBytes = 0;
    std::uint64_t maxLength = 0;  // characters
    std::uint64_t samples = 0;
    std::uint64_t nonUtf8Samples = 0;
    std::string preparedAt;
    // False for a BLOB_TEST that BlobBench did not prepare (the reference article's own EXECUTE
    // BLOCK, a copy made by hand): rows and bytes were counted from the table, the rest is unknown.
    bool preparedByBlobBench = true;
    // Not stored with the data set: the tunables the prepare was asked for that its session could
    // not apply (prepareDataset fills it; insert_method=ibatch on a Firebird 3 server).
    std::vector<ParameterEffect> notInEffect;
};

struct PrepareOptions {
    std::uint64_t batchRows = 1000;  // rows per transaction
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
    CancelToken cancel;
    std::function<void()> connected;  // prepareDataset(): the session is open, nothing written yet
    // BLOB_TEST or BLOB_SAMPLE with rows and no BLOBBENCH_DATASET beside them were made by someone
    // else: without this, prepare refuses to drop them (Error(Usage) naming them and their rows).
    bool replaceForeignTables = false;
};

// Drops and creates the reference tables and fills them in batches, one transaction per batch
// (reference tables with rows that BlobBench did not make are refused: replaceForeignTables).
// The summary row that marks the set complete is written last, so an interrupted prepare never
// looks complete. SHORT_BLOB = character length < 8191; SHORT_CONTENT = CONTENT when short.
DatasetSummary prepareReferenceTables(Session& session, const RowSource& source, const PrepareOptions& options);

// What a session's reference tables can be run on. `summary` is set for a complete BlobBench data
// set, and for a BLOB_TEST made elsewhere that has the reference columns (counted here with one
// aggregate query on the server); otherwise `problem` says why not in one line: no BLOB_TEST, a
// preparation BlobBench knows to be incomplete, or a BLOB_TEST without the reference columns.
struct DatasetCheck {
    std::optional<DatasetSummary> summary;
    std::string problem;
};
DatasetCheck checkDataset(Session& session);

// The check before a run (blobbench-cli run, a project run, the window): the line that says what
// the data set holds ("Data set: ..."), or Error(Data) with checkDataset's problem and `hint`.
std::string requireDataset(Session& session, const std::string& hint);

// Whether any scenario reads the reference table (its statement or setup names BLOB_TEST): only
// those runs are checked, so custom SQL over other tables runs where no data set is prepared.
bool readsReferenceTable(const std::vector<Scenario>& scenarios);

// checkDataset's summary.
std::optional<DatasetSummary> readDatasetSummary(Session& session);

// The line a report prints for a data set: where it came from and what it holds.
std::string describeDataset(const DatasetSummary& summary);

constexpr std::uint64_t kShortBlobLimit = 8191;

}  // namespace blobbench
