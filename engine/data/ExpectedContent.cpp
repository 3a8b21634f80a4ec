#include "engine/data/ExpectedContent.h"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

#include "engine/data/ReferenceSuite.h"

namespace blobbench {
namespace {

// "synthetic text, seed 20251129, 10000 rows" (SyntheticRowSource::describe) back to its profile.
std::optional<SyntheticProfile> syntheticProfileOf(const std::string& source) {
    char kind[16] = {};
    unsigned long long seed = 0;
    unsigned long long rows = 0;
    int used = 0;
    if (std::sscanf(source.c_str(), "synthetic %15[a-z], seed %llu, %llu rows%n", kind, &seed, &rows, &used) != 3 ||
        static_cast<std::size_t>(used) != source.size()) {
        return std::nullopt;
    }
    const std::string k = kind;
    if (k != "text" && k != "binary") {
        return std::nullopt;
    }
    SyntheticProfile profile;
    profile.seed = seed;
    profile.rows = rows;
    profile.binary = k == "binary";
    return profile;
}

}  // namespace

ContentExpectation expectedContent(const DatasetSummary& summary, Dialect dialect) {
    ContentExpectation e;
    e.source = summary.source;
    if (!summary.preparedByBlobBench) {
        e.notInEffect = "BLOB_TEST was not prepared by BlobBench: there is nothing to compare its content with";
        return e;
    }
    const std::optional<SyntheticProfile> profile = syntheticProfileOf(summary.source);
    if (!profile) {
        e.notInEffect = "the data set (" + summary.source +
                        ") was not generated from a seed: its source files are not kept with it, so its content "
                        "cannot be computed again (verify_content needs a synthetic data set)";
        return e;
    }
    if (profile->rows != summary.rows || profile->rows > 10'000'000) {
        e.notInEffect = "the data set's summary names " + std::to_string(summary.rows) + " rows, its source " +
                        std::to_string(profile->rows);
        return e;
    }
    const SyntheticSource source(*profile);
    e.rows.reserve(profile->rows);
    std::string content;
    std::uint64_t bytes = 0;
    for (std::uint64_t row = 0; row < profile->rows; ++row) {
        source.contentOf(row, content);
        e.rows.push_back(ExpectedValue{content.size(), contentHash(content)});
        bytes += content.size();
        const std::uint64_t length = isValidUtf8(content) ? utf8Length(content) : content.size();
        e.maxLength = std::max(e.maxLength, length);
    }
    if (bytes != summary.contentBytes || e.maxLength != summary.maxLength) {
        e.rows.clear();
        e.notInEffect = "seed " + std::to_string(profile->seed) + " generates " + std::to_string(bytes) +
                        " content bytes here, the data set holds " + std::to_string(summary.contentBytes) +
                        " (prepared by another version of the generator: prepare it again to verify it)";
        return e;
    }
    for (const Scenario& s : referenceSuite(dialect)) {
        if (s.kind == ScenarioKind::Scalar) {
            // The warm-up counts characters: of bytes that are not text, each engine counts its own way.
            e.maxLengthSql = profile->binary ? std::string() : s.sql;
        } else if (s.fetch == FetchMode::Content) {
            e.rowSql.push_back(s.sql);
        }
    }
    return e;
}

ContentExpectation expectedContent(Session& session) {
    const DatasetCheck check = checkDataset(session);
    if (!check.summary) {
        ContentExpectation e;
        e.notInEffect = check.problem;
        return e;
    }
    return expectedContent(*check.summary, session.dialect());
}

std::function<ContentExpectation(Session&)> cachedExpectedContent() {
    struct Cache {
        std::mutex mutex;
        std::map<std::string, ContentExpectation> byDataSet;
    };
    auto cache = std::make_shared<Cache>();
    return [cache](Session& session) {
        const DatasetCheck check = checkDataset(session);
        if (!check.summary) {
            ContentExpectation e;
            e.notInEffect = check.problem;
            return e;
        }
        const std::string key = std::to_string(static_cast<int>(session.dialect())) + '\n' + check.summary->source +
                                '\n' + check.summary->preparedAt + '\n' + std::to_string(check.summary->contentBytes);
        std::lock_guard lock(cache->mutex);
        auto it = cache->byDataSet.find(key);
        if (it == cache->byDataSet.end()) {
            it = cache->byDataSet.emplace(key, expectedContent(*check.summary, session.dialect())).first;
        }
        return it->second;
    };
}

}  // namespace blobbench
