#pragma once

// The storage studies as scenarios: the options a project stores (the CLI's flags, as text), their
// validation, and the one function that runs a study for both `blobbench-cli storage`, `blobbench-cli
// run PROJECT` and the workbench, turning every result into Sample(s) so that a study lands in the run
// history, the exports and run comparisons like any other scenario.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/core/CancelToken.h"
#include "engine/core/Error.h"
#include "engine/core/Sample.h"
#include "engine/drivers/Driver.h"
#include "engine/storage/InsertStudy.h"
#include "engine/storage/KeyedStudy.h"

namespace blobbench::storage {

// option name -> value as text, e.g. "rows" -> "100000", "order" -> "both".
using StudyOptions = std::map<std::string, std::string>;

// keyed-read | footprint | insert
bool isStudyKind(const std::string& kind);
const std::vector<std::string>& studyKinds();
// The option names a kind takes, in documentation order.
const std::vector<std::string>& studyOptionNames(const std::string& kind);

// A refused option: `option` names it (as in the project file), `why` says what is wrong.
class StudyOptionError : public Error {
public:
    StudyOptionError(std::string option, const std::string& why)
        : Error(ErrorKind::Usage, option + ": " + why), m_option(std::move(option)), m_why(why) {}
    const std::string& option() const { return m_option; }
    const std::string& why() const { return m_why; }

private:
    std::string m_option;
    std::string m_why;
};

// A whole number with an optional suffix: k, m, g are powers of 1000 (10k = 10,000), Ki, Mi, Gi powers
// of 1024 (10Ki = 10,240); case does not matter. Throws StudyOptionError.
std::uint64_t parseSize(const std::string& option, const std::string& text);

struct StudyPlan {
    std::string kind;
    KeyedOptions keyed;      // keyed-read, footprint
    InsertOptions insert;    // insert
    std::string directory;   // keyed: the work directory; insert on SQLite: where the variants' files go
    std::string connection;  // insert: the project connection to run on (empty: the current one)
    StudyOptions options;    // as given, count / rows as in effect (capped); every sample carries them
};

// Options checked one by one and together; unknown names and bad values throw StudyOptionError.
// rowLimit > 0 caps the rows (insert) or values (keyed) at that many: the presets at reduced size.
// Directories must be given resolved (no ${DATA}).
StudyPlan parseStudy(const std::string& kind, const StudyOptions& options, std::uint64_t rowLimit = 0);

// One storage scenario to run.
struct StudyJob {
    std::string runId;
    std::string scenarioId;
    std::string title;
    StudyPlan plan;
    ConnectionSpec connection;  // insert: engine and target (SQLite: only the engine; the plan's directory)
    ParameterValues parameters;
};

struct StudyHooks {
    std::function<void(const Sample&)> sample;            // every sample as soon as it exists
    std::function<void(const std::string&)> progress;     // phase or variant names as they start
    std::function<void(const KeyedReport&)> keyedReport;  // keyed-read / footprint: the whole report
    std::function<void(const InsertResult&)> insertResult;
    CancelToken cancel;  // polled between phases and variants
};

struct StudyOutcome {
    std::vector<Sample> samples;
    std::string error;  // empty: complete; else one line, the samples so far are kept
    bool cancelled = false;
    bool ok() const { return error.empty(); }
};

// Runs the study. Usage errors (bad options, unknown variant) throw before anything is written;
// a failure later ends it with outcome.error and keeps every sample measured so far.
StudyOutcome runStudy(const StudyJob& job, const StudyHooks& hooks);

// The samples of results (exposed for tests and the CLI's own reports).
std::vector<Sample> keyedSamples(const StudyJob& job, const KeyedReport& report, const std::string& startedAt);
Sample insertSample(const StudyJob& job, const InsertResult& result, const std::string& startedAt);

// Sample fields the studies use: point keys, scalar labels and the keys of Sample::negotiated.
inline constexpr const char* kMicrosPerValue = "us/value";
inline constexpr const char* kInsertsPerSecond = "inserts/s";
inline constexpr const char* kFootprintRatio = "footprint SQLite / files";

}  // namespace blobbench::storage
