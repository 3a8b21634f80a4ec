#pragma once

#include <QString>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "engine/drivers/Driver.h"
#include "engine/run/LoadPoint.h"

namespace blobbench::cli {

// Where the samples of a project run ended up, once it is over: for the one line that says so
// when the run could not be kept as usual (the project not saved, an export not written).
struct RunKept {
    std::size_t samples = 0;                // samples and load points (a run of many sessions keeps load points)
    std::size_t loadPoints = 0;             // of them, the load points
    bool saving = false;                    // not --no-save
    bool inProject = false;                 // the project file was saved with the run
    std::string project;                    // its path
    std::string projectError;               // why it was not saved
    std::vector<std::string> exports;       // --json / --csv files written with every sample
    std::vector<std::string> exportErrors;  // those that were not
    std::string journal;                    // the run journal left for the next run, if any
    std::size_t inJournal = 0;              // the samples it holds
    std::string rescue;                     // a samples file written because nothing else holds them
    std::string rescueError;
};

// "" when the run was kept as usual and `always` is false; else where the samples are, e.g. "the
// run was not saved in the project (cannot write P: No space left on device); its 35 samples are
// in d.json; the run journal P.journal holds 34 of them: the next run of this project recovers them".
std::string runKeptLine(const RunKept& kept, bool always);

// "5 samples", "3 load points", "5 samples and 3 load points": what a run measured, named as it is kept.
std::string measuredCount(std::size_t samples, std::size_t loadPoints);

// Where a samples file goes when no other file holds a run's samples (the temporary folder).
std::string rescuePathFor(const std::string& runId);

// At the end of a run: --json and --csv (empty: not asked for) each written once more, on its own,
// into k.exports or k.exportErrors; then, when `lost` says of k that no file holds every sample, a
// samples file at rescuePathFor(runId) (k.rescue, or k.rescueError).
// A run of many sessions writes its load points instead (`loads` not empty): JSON, CSV and the rescue file.
void writeExportsOrRescue(RunKept& k, const std::string& jsonPath, const std::string& csvPath,
                          const SessionInfo& session, const std::vector<Sample>& samples, const std::string& runId,
                          const std::function<bool(const RunKept&)>& lost, const std::vector<LoadPoint>& loads = {});

// Exports written each on its own, whatever became of the others (a failed --json left the --csv
// unwritten). `path` empty: not asked for, skipped. `failed`: the errors' lines, "; "-joined;
// `written`: the paths written, " and "-joined; both empty when nothing was asked for.
struct Export {
    std::string path;
    std::function<void(const QString& path)> write;  // throws Error when it cannot
};
struct ExportsWritten {
    std::string failed;
    std::string written;
};
ExportsWritten writeEachExport(const std::vector<Export>& exports);

}  // namespace blobbench::cli
