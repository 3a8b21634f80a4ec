#include "app/cli/RunKept.h"

#include <QDir>
#include <algorithm>

#include "engine/core/Error.h"
#include "model/LoadJson.h"
#include "model/SampleJson.h"

namespace blobbench::cli {
namespace {

std::string listed(const std::vector<std::string>& places) {
    std::string out;
    for (std::size_t i = 0; i < places.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == places.size() ? " and " : ", ") + places[i];
    }
    return out;
}

}  // namespace

std::string measuredCount(std::size_t samples, std::size_t loadPoints) {
    const auto counted = [](std::size_t n, const char* one, const char* many) {
        return std::to_string(n) + ' ' + (n == 1 ? one : many);
    };
    if (loadPoints == 0) {
        return counted(samples, "sample", "samples");
    }
    const std::string points = counted(loadPoints, "load point", "load points");
    return samples == 0 ? points : counted(samples, "sample", "samples") + " and " + points;
}

std::string runKeptLine(const RunKept& k, bool always) {
    if (!always && (k.inProject || !k.saving) && k.exportErrors.empty()) {
        return {};
    }
    std::vector<std::string> parts;
    if (k.saving && !k.inProject) {
        parts.push_back("the run was not saved in the project (" + k.projectError + ")");
    }
    parts.insert(parts.end(), k.exportErrors.begin(), k.exportErrors.end());
    if (!k.rescueError.empty()) {
        parts.push_back(k.rescueError);
    }
    std::vector<std::string> whole;  // the places holding every sample
    if (k.inProject) {
        whole.push_back(k.project);
    }
    whole.insert(whole.end(), k.exports.begin(), k.exports.end());
    const bool journalWhole = !k.journal.empty() && k.inJournal >= k.samples;
    if (journalWhole) {
        whole.push_back("the run journal " + k.journal);
    }
    if (!k.rescue.empty()) {
        whole.push_back(k.rescue);
    }
    const std::size_t plain = k.samples - std::min(k.loadPoints, k.samples);
    const std::string count = "its " + measuredCount(plain, k.samples - plain);
    if (k.samples == 0) {
        parts.emplace_back("it measured no sample");
    } else if (!whole.empty()) {
        parts.push_back(count + (k.samples == 1 ? " is in " : " are in ") + listed(whole));
    } else {
        parts.push_back(count + (k.samples == 1 ? " is" : " are") + " in no file (only in the report above)");
    }
    if (!k.journal.empty() && k.inJournal > 0) {
        parts.push_back((journalWhole ? std::string("the next run of this project recovers them from the journal")
                                      : "the run journal " + k.journal + " holds " + std::to_string(k.inJournal) +
                                            " of them: the next run of this project recovers those"));
    }
    std::string line;
    for (const std::string& part : parts) {
        line += (line.empty() ? "" : "; ") + part;
    }
    return line;
}

std::string rescuePathFor(const std::string& runId) {
    std::string name = runId;
    std::replace_if(
        name.begin(), name.end(), [](char c) { return c == ':' || c == '/'; }, '-');
    return QDir(QDir::tempPath())
        .filePath(QString::fromStdString("blobbench-run-" + name + ".samples.json"))
        .toStdString();
}

void writeExportsOrRescue(RunKept& k, const std::string& jsonPath, const std::string& csvPath,
                          const SessionInfo& session, const std::vector<Sample>& samples, const std::string& runId,
                          const std::function<bool(const RunKept&)>& lost, const std::vector<LoadPoint>& loads) {
    const auto attempt = [&](const std::string& path, const std::function<void()>& write) {
        try {
            write();
            k.exports.push_back(path);
        } catch (const Error& e) {
            k.exportErrors.push_back(oneLine(e.what()));
        }
    };
    const auto writeJson = [&](const std::string& path) {
        if (loads.empty()) {
            writeSamplesJson(QString::fromStdString(path), session, samples);
        } else {
            writeLoadsJson(QString::fromStdString(path), loads);
        }
    };
    if (!jsonPath.empty()) {
        attempt(jsonPath, [&] { writeJson(jsonPath); });
    }
    if (!csvPath.empty()) {
        attempt(csvPath, [&] {
            if (loads.empty()) {
                writeSamplesCsv(QString::fromStdString(csvPath), samples);
            } else {
                writeLoadsCsv(QString::fromStdString(csvPath), loads);
            }
        });
    }
    if (lost(k)) {
        const std::string rescue = rescuePathFor(runId);
        try {
            writeJson(rescue);
            k.rescue = rescue;
        } catch (const Error& e) {
            k.rescueError = oneLine(e.what());
        }
    }
}

ExportsWritten writeEachExport(const std::vector<Export>& exports) {
    ExportsWritten out;
    for (const Export& e : exports) {
        if (e.path.empty()) {
            continue;
        }
        try {
            e.write(QString::fromStdString(e.path));
            out.written += (out.written.empty() ? "" : " and ") + e.path;
        } catch (const Error& error) {
            out.failed += (out.failed.empty() ? "" : "; ") + oneLine(error.what());
        }
    }
    return out;
}

}  // namespace blobbench::cli
