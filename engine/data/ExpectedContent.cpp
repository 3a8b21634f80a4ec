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

// The statements the expectation checks: the reference suite's that read whole rows, and the
// warm-up when the values are text (of bytes that are not text, each engine counts its own way).
void checkedStatements(ContentExpectation& e, Dialect dialect, bool text) {
    for (const Scenario& s : referenceSuite(dialect)) {
        if (s.kind == ScenarioKind::Scalar) {
            e.maxLengthSql = text ? s.sql : std::string();
        } else if (s.fetch == FetchMode::Content) {
            e.rowSql.push_back(s.sql);
            if (s.id == "all-blobs" || s.id == "mixed" || s.id == "mixed-optimised")
                e.everyRowSql.push_back(s.sql);  // no WHERE: every row, each with its value in one column
        }
    }
}

// BLOBBENCH_CONTENT_HASH's rows: ID, LEN, HASH (hex).
class HashRows final : public RowSink {
public:
    std::vector<ExpectedValue> rows;
    std::string problem;
    void integer(std::size_t column, std::int64_t value) override {
        if (column == 0) {
            m_id = value;
        } else if (column == 1) {
            m_length = static_cast<std::uint64_t>(value);
        }
    }
    void null(std::size_t) override {}
    void chunk(std::size_t column, std::string_view bytes) override {
        if (column == 2) {
            m_hash.append(bytes);
        }
    }
    void endRow() override {
        if (m_id != static_cast<std::int64_t>(rows.size()) + 1 && problem.empty()) {
            problem = "row " + std::to_string(rows.size() + 1) + " has no content hash";
        }
        std::uint64_t hash = 0;
        const bool hex = m_hash.size() == 16 && m_hash.find_first_not_of("0123456789abcdef") == std::string::npos;
        if (hex) {
            hash = std::stoull(m_hash, nullptr, 16);
        } else if (problem.empty()) {
            problem = "row " + std::to_string(m_id) + "'s content hash '" + m_hash + "' is not 16 hex digits";
        }
        rows.push_back(ExpectedValue{m_length, hash});
        m_hash.clear();
    }

private:
    std::int64_t m_id = 0;
    std::uint64_t m_length = 0;
    std::string m_hash;
};

// A data set loaded from a folder: the hashes its prepare stored.
ContentExpectation storedContent(Session& session, const DatasetSummary& summary) {
    ContentExpectation e;
    e.source = summary.source;
    const ReferenceSchema schema = referenceSchema(session.dialect());
    if (!session.tableExists(schema.hashTable)) {
        e.notInEffect = "the data set (" + summary.source +
                        ") was loaded from a folder before BlobBench kept content hashes with it: prepare it "
                        "again to verify it";
        return e;
    }
    HashRows hashes;
    session.query(QuerySpec{schema.selectHash}, hashes, CancelToken());
    std::uint64_t bytes = 0;
    for (const ExpectedValue& v : hashes.rows) {
        bytes += v.length;
    }
    if (!hashes.problem.empty() || hashes.rows.size() != summary.rows || bytes != summary.contentBytes) {
        e.notInEffect =
            schema.hashTable + " does not describe the data set (" +
            (hashes.problem.empty()
                 ? std::to_string(hashes.rows.size()) + " rows, " + std::to_string(bytes) + " bytes; the data set " +
                       std::to_string(summary.rows) + " rows, " + std::to_string(summary.contentBytes) + " bytes"
                 : hashes.problem) +
            ")";
        return e;
    }
    e.rows = std::move(hashes.rows);
    e.maxLength = summary.maxLength;
    checkedStatements(e, session.dialect(), summary.nonUtf8Samples == 0);
    return e;
}

bool loadedFromFolder(const DatasetSummary& summary) {
    return summary.preparedByBlobBench && summary.source.starts_with("folder ");
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
                        ") was not generated from a seed, and no content hashes were read for it (a data set "
                        "loaded from a folder keeps them in BLOBBENCH_CONTENT_HASH)";
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
    checkedStatements(e, dialect, !profile->binary);
    return e;
}

ContentExpectation expectedContent(Session& session) {
    const DatasetCheck check = checkDataset(session);
    if (!check.summary) {
        ContentExpectation e;
        e.notInEffect = check.problem;
        return e;
    }
    if (loadedFromFolder(*check.summary)) {
        return storedContent(session, *check.summary);
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
            it =
                cache->byDataSet
                    .emplace(key, loadedFromFolder(*check.summary) ? storedContent(session, *check.summary)
                                                                   : expectedContent(*check.summary, session.dialect()))
                    .first;
        }
        return it->second;
    };
}

}  // namespace blobbench
