#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/core/Error.h"
#include "engine/data/Dataset.h"

namespace blobbench {

// What `blobbench-cli prepare` and the workbench's Prepare dialog fill the reference tables with:
// synthetic data (the reference profile; rows, seed, text or incompressible bytes) or the files
// below a folder.
struct DatasetChoice {
    std::string folder;                 // empty: synthetic
    std::optional<std::uint64_t> rows;  // rows of BLOB_TEST; default 10,000
    std::optional<std::uint64_t> seed;  // synthetic only
    bool binary = false;                // synthetic only
};

// Throws Error(Io) for a folder that is missing, not a folder or empty, before anything connects.
std::unique_ptr<RowSource> makeRowSource(const DatasetChoice& choice);

// Connects with `requested` (resolved against the driver's tunables) as a write that may create
// the database (a SQLite file that does not exist yet), then prepareReferenceTables. On any
// failure the open transaction is rolled back and the Error's line names the connection once
// ("<label>: prepare: <what the engine said>"); a cancel is ErrorKind::Cancelled. The summary
// names the tunables of `requested` that the session reports not in effect.
// A prepare's error that is another prepare (or writer) of the same database holding it, said so
// after the engine's words; any other error unchanged.
Error explainedPrepareConflict(const Error& e);

DatasetSummary prepareDataset(ConnectionSpec spec, const ParameterValues& requested, const RowSource& source,
                              const PrepareOptions& options);

}  // namespace blobbench
