#include <gtest/gtest.h>

#include "engine/core/Error.h"
#include "engine/data/Dataset.h"
#include "engine/data/PrepareDataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "engine/run/MeasuringSink.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::TempDir;
using blobbench::test::writeFile;

namespace {

std::unique_ptr<Session> open(const std::string& path) {
    const Driver& d = driverById("sqlite");
    ConnectionSpec spec{"sqlite", path};
    spec.create = true;
    return d.connect(spec, resolveParameters(d.parameters(), {}));
}

struct Row {
    std::int64_t id;
    std::string shortContent;
    bool shortNull;
    std::string content;
    std::int64_t shortBlob;
};

class RowsSink final : public RowSink {
public:
    std::vector<Row> rows;
    Row current{};
    void integer(std::size_t c, std::int64_t v) override { (c == 0 ? current.id : current.shortBlob) = v; }
    void null(std::size_t c) override {
        if (c == 1) {
            current.shortNull = true;
        }
    }
    void chunk(std::size_t c, std::string_view b) override {
        (c == 1 ? current.shortContent : current.content).append(b);
    }
    void endRow() override {
        rows.push_back(current);
        current = Row{};
    }
};

}  // namespace

// The reference rule: BLOB_TEST cycles through BLOB_SAMPLE in FILE_NAME order;
// SHORT_BLOB = character length < 8191; SHORT_CONTENT = CONTENT when short.
TEST(FolderLoader, FillsBlobTestByTheReferenceRule) {
    TempDir dir;
    writeFile(dir.path() / "src/b.cpp", "int b;\n");
    writeFile(dir.path() / "a.txt", std::string(8190, 'a'));              // short: 8190 characters
    writeFile(dir.path() / "c/long.txt", std::string(8191, 'c'));         // not short
    writeFile(dir.path() / "d.bin", std::string("\xFF\xFE\x00\x01", 4));  // not UTF-8: bytes
    // 8190 characters but more bytes: still short (characters count, not bytes)
    std::string accented;
    for (int i = 0; i < 4095; ++i) {
        accented += "\xC3\xA9";
    }
    writeFile(dir.path() / "e.txt", accented);
    FolderRowSource source(dir.path(), 12);
    ASSERT_EQ(source.sampleCount(), 5u);
    EXPECT_EQ(source.sampleName(0), "a.txt");
    EXPECT_EQ(source.sampleName(1), "c/long.txt");
    EXPECT_EQ(source.sampleName(2), "d.bin");
    EXPECT_EQ(source.sampleName(3), "e.txt");
    EXPECT_EQ(source.sampleName(4), "src/b.cpp");

    const std::string db = dir.file("ref.sqlite");
    auto s = open(db);
    std::vector<std::uint64_t> progress;
    PrepareOptions options;
    options.batchRows = 4;
    options.progress = [&](std::uint64_t done, std::uint64_t) { progress.push_back(done); };
    const DatasetSummary summary = prepareReferenceTables(*s, source, options);
    EXPECT_EQ(summary.rows, 12u);
    EXPECT_EQ(summary.samples, 5u);
    EXPECT_EQ(summary.nonUtf8Samples, 1u);
    EXPECT_FALSE(progress.empty());
    EXPECT_EQ(progress.back(), 17u);

    RowsSink sink;
    s->query(QuerySpec{"SELECT ID, SHORT_CONTENT, CONTENT, SHORT_BLOB FROM BLOB_TEST ORDER BY ID"}, sink,
             CancelToken());
    ASSERT_EQ(sink.rows.size(), 12u);
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < sink.rows.size(); ++i) {
        const Row& r = sink.rows[i];
        std::string expected;
        source.sampleContent(i % 5, expected);
        EXPECT_EQ(r.id, static_cast<std::int64_t>(i + 1));
        EXPECT_EQ(r.content, expected) << "row " << i;
        const bool isShort = (i % 5) != 1;
        EXPECT_EQ(r.shortBlob, isShort ? 1 : 0) << "row " << i;
        EXPECT_EQ(r.shortNull, !isShort) << "row " << i;
        if (isShort) {
            EXPECT_EQ(r.shortContent, expected);
        }
        bytes += expected.size();
    }
    EXPECT_EQ(summary.contentBytes, bytes);
    const auto read = readDatasetSummary(*s);
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->rows, 12u);
    EXPECT_EQ(read->contentBytes, bytes);
}

TEST(FolderLoader, BadFoldersAreRefused) {
    TempDir dir;
    try {
        FolderRowSource(dir.path(), 10);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no files"), std::string::npos);
    }
    EXPECT_THROW(FolderRowSource(dir.path() / "missing", 10), Error);
    writeFile(dir.path() / "f", "x");
    EXPECT_THROW(FolderRowSource(dir.path() / "f", 10), Error);
}

TEST(Dataset, InterruptedPrepareIsNotComplete) {
    TempDir dir;
    auto s = open(dir.file("x.sqlite"));
    SyntheticProfile p;
    p.rows = 300;
    SyntheticRowSource source(p);
    PrepareOptions options;
    options.batchRows = 100;
    options.progress = [&](std::uint64_t, std::uint64_t) { options.cancel.cancel(); };
    EXPECT_THROW(prepareReferenceTables(*s, source, options), Error);
    EXPECT_FALSE(readDatasetSummary(*s).has_value());
}

TEST(Dataset, SyntheticPrepareMatchesTheSource) {
    TempDir dir;
    auto s = open(dir.file("x.sqlite"));
    SyntheticProfile p;
    p.rows = 500;
    SyntheticRowSource source(p);
    const DatasetSummary summary = prepareReferenceTables(*s, source, PrepareOptions{});
    SyntheticSource plain(p);
    std::uint64_t shortRows = 0;
    for (std::uint64_t r = 0; r < p.rows; ++r) {
        shortRows += plain.lengthOf(r) < 8191;
    }
    EXPECT_EQ(summary.shortRows, shortRows);
    for (const Scenario& scenario : referenceSuite(Dialect::SQLite)) {
        MeasuringSink sink;
        s->query(QuerySpec{scenario.sql, scenario.fetch}, sink, CancelToken());
        if (scenario.kind == ScenarioKind::Scalar) {
            EXPECT_EQ(sink.firstValue(), std::to_string(summary.maxLength));
            continue;
        }
        EXPECT_EQ(sink.maxId(), static_cast<std::int64_t>(p.rows)) << scenario.id;
        if (scenario.id == "short-blobs" || scenario.id == "varchar") {
            EXPECT_EQ(sink.rows(), summary.shortRows) << scenario.id;
            EXPECT_EQ(sink.contentBytes(), summary.shortBytes) << scenario.id;
        } else if (scenario.fetch == FetchMode::IdsOnly) {
            EXPECT_EQ(sink.rows(), p.rows);
            EXPECT_EQ(sink.contentBytes(), 0u);
        } else {
            EXPECT_EQ(sink.rows(), p.rows) << scenario.id;
            EXPECT_EQ(sink.contentBytes(), summary.contentBytes) << scenario.id;
        }
    }
}

// Round 5b P2: the second of two prepares at once on Firebird 5 failed with only the server's
// words for the system-table key both CREATE TABLEs raced for.
TEST(PrepareConflict, FirebirdSystemKeyRaceSaysAnotherPrepareHoldsIt) {
    const Error raced(ErrorKind::Sql,
                      "firebird:inet://h/db: prepare: CREATE TABLE BLOB_SAMPLE (...): unsuccessful metadata update "
                      "-CREATE TABLE BLOB_SAMPLE failed -violation of PRIMARY or UNIQUE KEY constraint \"RDB$INDEX_0\" "
                      "on table \"RDB$RELATIONS\"");
    const std::string said = explainedPrepareConflict(raced).what();
    EXPECT_TRUE(said.starts_with(raced.what())) << said;
    EXPECT_NE(said.find("another prepare of this database"), std::string::npos) << said;
    EXPECT_EQ(explainedPrepareConflict(raced).kind(), ErrorKind::Sql);
    const Error other(ErrorKind::Sql, "firebird: prepare: no permission for CREATE access to DATABASE");
    EXPECT_STREQ(explainedPrepareConflict(other).what(), other.what()) << "other errors are left as they are";
}
