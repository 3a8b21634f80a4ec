#include "engine/data/PrepareDataset.h"

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"

namespace blobbench {

std::unique_ptr<RowSource> makeRowSource(const DatasetChoice& choice) {
    if (!choice.folder.empty()) {
        return std::make_unique<FolderRowSource>(choice.folder, choice.rows.value_or(10000));
    }
    SyntheticProfile profile;
    profile.rows = choice.rows.value_or(profile.rows);
    profile.seed = choice.seed.value_or(profile.seed);
    profile.binary = choice.binary;
    return std::make_unique<SyntheticRowSource>(profile);
}

DatasetSummary prepareDataset(ConnectionSpec spec, const ParameterValues& requested, const RowSource& source,
                              const PrepareOptions& options) {
    const Driver& driver = driverById(spec.engine);
    spec.create = true;
    auto session = driver.connect(spec, resolveParameters(driver.parameters(), requested));
    const auto rollback = [&session] {
        try {
            session->rollback();
        } catch (const Error&) {
        }
    };
    try {
        DatasetSummary summary = prepareReferenceTables(*session, source, options);
        for (const ParameterEffect& e : session->info().effects) {
            if (!e.inEffect && requested.contains(e.id)) {
                summary.notInEffect.push_back(e);
            }
        }
        return summary;
    } catch (const Error& e) {
        rollback();
        // A driver's word for a failed write ("database or disk is full", a BLOB write) names no
        // connection: the line does.
        const std::string label = spec.label();
        if (std::string_view(e.what()).starts_with(label + ": ")) {
            throw;
        }
        throw Error(e.kind(), label + ": prepare: " + e.what());
    } catch (...) {
        rollback();
        throw;
    }
}

}  // namespace blobbench
