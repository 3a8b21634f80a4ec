// verify_content (issue #28): the chunk-independent hash, the verifying sink, the expectation a
// synthetic data set gives, and the CLI on a SQLite data set with one row corrupted on purpose.
// Also the version rule of the Firebird #9060 check (the check itself needs the real servers:
// tests/integration/test_verify_content.cpp).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "engine/core/Error.h"
#include "engine/data/ExpectedContent.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/firebird/Fb9060Check.h"
#include "engine/run/ContentCheck.h"
#include "engine/run/MeasuringSink.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

TEST(ContentHash, DoesNotDependOnHowTheValueIsSplit) {
    std::string value;
    for (int i = 0; i < 1000; ++i) {
        value += static_cast<char>('a' + i % 26);
        value += static_cast<char>(i & 0xff);
    }
    const std::uint64_t whole = contentHash(value);
    for (std::size_t piece : {1u, 3u, 7u, 8u, 9u, 64u, 1999u}) {
        ContentHash h;
        for (std::size_t at = 0; at < value.size(); at += piece) {
            h.add(std::string_view(value).substr(at, piece));
        }
        EXPECT_EQ(h.value(), whole) << "pieces of " << piece;
        EXPECT_EQ(h.length(), value.size());
    }
}

TEST(ContentHash, OneChangedByteOrOneMoreByteChangesIt) {
    std::string value(5000, 'x');
    const std::uint64_t original = contentHash(value);
    std::set<std::uint64_t> seen{original};
    for (std::size_t at : {0u, 1u, 7u, 8u, 4095u, 4999u}) {
        std::string changed = value;
        changed[at] = 'y';
        EXPECT_TRUE(seen.insert(contentHash(changed)).second) << "byte " << at;
    }
    EXPECT_NE(contentHash(value + '\0'), original);
    EXPECT_NE(contentHash(""), contentHash(std::string(1, '\0')));
    EXPECT_EQ(hashText(0x1aULL), "000000000000001a");
}

ContentExpectation twoRows() {
    ContentExpectation e;
    e.rows = {{5, contentHash("first")}, {6, contentHash("second")}};
    return e;
}

// One row through the sink: an ID, then value columns as given (nullopt: NULL), in chunks of 2.
void feed(RowSink& sink, std::int64_t id, const std::vector<std::optional<std::string>>& values) {
    sink.integer(0, id);
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!values[i]) {
            sink.null(i + 1);
            continue;
        }
        for (std::size_t at = 0; at < values[i]->size(); at += 2) {
            sink.chunk(i + 1, std::string_view(*values[i]).substr(at, 2));
        }
        sink.valueEnd(i + 1);
    }
    sink.endRow();
}

std::vector<ColumnInfo> idAndTwoValues() {
    return {{"ID", ColumnKind::Integer, false},
            {"SHORT_CONTENT", ColumnKind::Text, false},
            {"CONTENT", ColumnKind::Text, true}};
}

TEST(VerifyingSink, MatchingRowsPassAndTheInnerSinkCountsAsBefore) {
    const ContentExpectation e = twoRows();
    MeasuringSink measured;
    VerifyingSink sink(measured, e);
    sink.columns(idAndTwoValues());
    feed(sink, 2, {std::nullopt, "second"});
    feed(sink, 1, {"first", std::nullopt});
    EXPECT_EQ(sink.verdict().mismatches, 0u) << sink.verdict().firstMismatch;
    EXPECT_EQ(sink.verdict().values, 2u);
    EXPECT_EQ(measured.rows(), 2u);
    EXPECT_EQ(measured.contentBytes(), 11u);
    EXPECT_EQ(measured.valuesRead(), 2u);
    EXPECT_EQ(measured.maxId(), 2);
}

TEST(VerifyingSink, AWrongValueNamesItsRowWithBothLengthsAndHashes) {
    const ContentExpectation e = twoRows();
    MeasuringSink measured;
    VerifyingSink sink(measured, e);
    sink.columns(idAndTwoValues());
    feed(sink, 1, {std::nullopt, "first"});
    feed(sink, 2, {std::nullopt, "SECOND!"});
    ASSERT_EQ(sink.verdict().mismatches, 1u);
    EXPECT_EQ(sink.verdict().firstMismatch, "row 2: expected 6 bytes (hash " + hashText(contentHash("second")) +
                                                "), got 7 bytes (hash " + hashText(contentHash("SECOND!")) + ")");
}

TEST(VerifyingSink, ANullRowAnUnknownRowAndAStaleValueAreMismatches) {
    const ContentExpectation e = twoRows();
    MeasuringSink measured;
    VerifyingSink sink(measured, e);
    sink.columns(idAndTwoValues());
    feed(sink, 1, {std::nullopt, std::nullopt});
    EXPECT_EQ(sink.verdict().firstMismatch,
              "row 1: expected 5 bytes (hash " + hashText(contentHash("first")) + "), got NULL");
    feed(sink, 3, {std::nullopt, "third"});
    feed(sink, 2, {std::nullopt, "first"});  // another row's content: what #9060 returns
    EXPECT_EQ(sink.verdict().mismatches, 3u);
    // Both value columns are compared: a right CONTENT does not hide a wrong SHORT_CONTENT.
    feed(sink, 1, {"frist", "first"});
    EXPECT_EQ(sink.verdict().mismatches, 4u);
}

// Hostile round 5c B3: a row deleted after the prepare passed ("verified: 299 values"). A statement
// that reads every row finds the rows it did not read; one that reads a part does not.
TEST(VerifyingSink, ARowNotReadByAStatementOfEveryRowIsAMismatch) {
    const ContentExpectation e = twoRows();
    MeasuringSink measured;
    VerifyingSink every(measured, e, true);
    every.columns(idAndTwoValues());
    feed(every, 1, {std::nullopt, "first"});
    every.finishEveryRow();
    ASSERT_EQ(every.verdict().mismatches, 1u);
    EXPECT_EQ(every.verdict().firstMismatch, "row 2: in the data set, not read (1 of its 2 rows missing)");
    MeasuringSink other;
    VerifyingSink part(other, e);
    part.columns(idAndTwoValues());
    feed(part, 1, {std::nullopt, "first"});
    part.finishEveryRow();
    EXPECT_EQ(part.verdict().mismatches, 0u);
}

TEST(VerifyingSink, WithoutAColumnNamedIdTheFirstIntegerNamesTheRow) {
    const ContentExpectation e = twoRows();
    MeasuringSink measured;
    VerifyingSink sink(measured, e);
    sink.columns({{"N", ColumnKind::Integer, false}, {"V", ColumnKind::Text, false}});
    feed(sink, 2, {"second"});
    EXPECT_EQ(sink.verdict().mismatches, 0u) << sink.verdict().firstMismatch;
}

TEST(VerifyContentParameter, IsTakenOutOfTheParametersAndABadValueIsRefused) {
    ParameterValues values{{"verify_content", "on"}, {"page_size", "4096"}};
    EXPECT_TRUE(takeVerifyContent(values, false));
    EXPECT_EQ(values.count("verify_content"), 0u);
    EXPECT_EQ(values.count("page_size"), 1u);
    EXPECT_TRUE(takeVerifyContent(values, true));  // absent: the fallback
    values["verify_content"] = "off";
    EXPECT_FALSE(takeVerifyContent(values, true));
    values["verify_content"] = "maybe";
    EXPECT_THROW(takeVerifyContent(values, false), Error);
}

TEST(ExpectedContent, ASyntheticDataSetIsGeneratedAgainFromItsSeed) {
    SyntheticProfile profile;
    profile.rows = 40;
    profile.seed = 7;
    const SyntheticRowSource rows(profile);
    const SyntheticSource source(profile);
    DatasetSummary summary;
    summary.source = rows.describe();
    summary.rows = profile.rows;
    std::string content;
    for (std::uint64_t r = 0; r < profile.rows; ++r) {
        source.contentOf(r, content);
        summary.contentBytes += content.size();
        summary.maxLength = std::max<std::uint64_t>(summary.maxLength, utf8Length(content));
    }
    const ContentExpectation e = expectedContent(summary, Dialect::SQLite);
    ASSERT_TRUE(e.notInEffect.empty()) << e.notInEffect;
    ASSERT_EQ(e.rows.size(), 40u);
    source.contentOf(16, content);
    EXPECT_EQ(e.rows[16].hash, contentHash(content));
    EXPECT_EQ(e.rows[16].length, content.size());
    EXPECT_EQ(e.maxLength, summary.maxLength);
    // The five reference statements that read whole rows, and the warm-up; not the ids-only one.
    EXPECT_EQ(e.rowSql.size(), 5u);
    for (const Scenario& s : referenceSuite(Dialect::SQLite)) {
        const ContentCheckKind kind = contentCheckKind(e, s.sql, s.setupSql, s.fetch);
        const ContentCheckKind want = s.id == "warm-up"    ? ContentCheckKind::MaxLength
                                      : s.id == "blob-ids" ? ContentCheckKind::None
                                                           : ContentCheckKind::Rows;
        EXPECT_EQ(kind, want) << s.id;
    }
    EXPECT_EQ(contentCheckKind(e, "SELECT ID, SUBSTRING(CONTENT FROM 1 FOR 9) FROM BLOB_TEST", "", FetchMode::Content),
              ContentCheckKind::None);
    EXPECT_EQ(contentCheckKind(e, e.rowSql[0], "DELETE FROM BLOB_TEST", FetchMode::Content), ContentCheckKind::None);

    // Another generator's data set (the summary's bytes differ) is said, not misjudged.
    summary.contentBytes += 1;
    const ContentExpectation other = expectedContent(summary, Dialect::SQLite);
    EXPECT_NE(other.notInEffect.find("prepared by another version of the generator"), std::string::npos)
        << other.notInEffect;
    EXPECT_TRUE(other.rows.empty());
}

TEST(ExpectedContent, AFolderOrAForeignDataSetCannotBeVerified) {
    DatasetSummary folder;
    folder.source = "folder /tmp/x (3 files), 10 rows";
    folder.rows = 10;
    EXPECT_NE(expectedContent(folder, Dialect::SQLite)
                  .notInEffect.find("was not generated from a seed, and no content hashes"),
              std::string::npos);
    DatasetSummary foreign;
    foreign.preparedByBlobBench = false;
    foreign.source = "BLOB_TEST not prepared by BlobBench";
    EXPECT_NE(expectedContent(foreign, Dialect::SQLite).notInEffect.find("not prepared by BlobBench"),
              std::string::npos);
}

QJsonArray samplesOf(const std::string& path) {
    QFile file(QString::fromStdString(path));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << path;
    return QJsonDocument::fromJson(file.readAll()).object()[QStringLiteral("samples")].toArray();
}

std::string textOf(const QJsonObject& sample, const char* key) {
    return sample[QLatin1String(key)].toString().toStdString();
}

void sqliteExec(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    EXPECT_EQ(rc, SQLITE_OK) << (message ? message : "");
    sqlite3_free(message);
    sqlite3_close(db);
}

TEST(VerifyContentCli, SqliteVerifiesEveryScenarioAndOffLeavesTheOutputAsBefore) {
    TempDir dir;
    const std::string db = "sqlite:" + dir.file("ref.sqlite");
    auto r = runCli({"prepare", db, "--rows", "300", "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    r = runCli({"run", db, "--verify-content", "--json", dir.file("on.json"), "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Content: every value read is compared"), std::string::npos) << r.out;
    const QJsonArray on = samplesOf(dir.file("on.json"));
    ASSERT_EQ(on.size(), 7);
    for (const auto& v : on) {
        const QJsonObject s = v.toObject();
        const std::string id = textOf(s, "scenario");
        const std::string check = textOf(s, "contentCheck");
        EXPECT_EQ(textOf(s, "status"), "complete") << id;
        EXPECT_EQ(s[QStringLiteral("parameters")].toObject()[QStringLiteral("verify_content")].toString(),
                  QStringLiteral("on"));
        if (id == "blob-ids") {
            EXPECT_EQ(check, "not verified: BLOB ids only (the scenario asks for no content)");
        } else if (id == "warm-up") {
            EXPECT_TRUE(check.starts_with("verified: the max char length equals the data set's")) << check;
        } else {
            const std::string values = std::to_string(s[QStringLiteral("rows")].toInteger()) + " values";
            EXPECT_TRUE(check.starts_with("verified: " + values + " equal the data set's")) << id << ": " << check;
        }
    }
    // Off (the default): no trace of the check in the samples or the report.
    r = runCli({"run", db, "--json", dir.file("off.json"), "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.find("Content:"), std::string::npos) << r.out;
    for (const auto& v : samplesOf(dir.file("off.json"))) {
        EXPECT_FALSE(v.toObject().contains(QStringLiteral("contentCheck")));
        EXPECT_FALSE(v.toObject()[QStringLiteral("parameters")].toObject().contains(QStringLiteral("verify_content")));
    }
    r = runCli({"run", db, "-P", "verify_content=perhaps", "-q"});
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("parameter 'verify_content': 'perhaps' is not on or off"), std::string::npos) << r.err;
}

TEST(VerifyContentCli, ACorruptedRowFailsItsSampleNamingTheRowAndTheRunGoesOn) {
    TempDir dir;
    const std::string file = dir.file("ref.sqlite");
    auto r = runCli({"prepare", "sqlite:" + file, "--rows", "200", "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    sqliteExec(file, "UPDATE BLOB_TEST SET CONTENT = 'not what was prepared' WHERE ID = 17");
    r = runCli({"run", "sqlite:" + file, "-P", "verify_content=on", "-s", "all-blobs", "-s", "blob-ids", "--json",
                dir.file("bad.json"), "-q"});
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    // One line: the connection, the scenario, the row, expected against got.
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(std::regex_search(r.err, std::regex("Test read all BLOBs: content differs from the prepared data "
                                                    "set: row 17: expected [0-9]+ bytes \\(hash [0-9a-f]{16}\\), "
                                                    "got 21 bytes \\(hash [0-9a-f]{16}\\)")))
        << r.err;
    const QJsonArray samples = samplesOf(dir.file("bad.json"));
    ASSERT_EQ(samples.size(), 2);
    EXPECT_EQ(textOf(samples[0].toObject(), "status"), "failed");
    EXPECT_NE(textOf(samples[0].toObject(), "error").find("row 17:"), std::string::npos);
    EXPECT_EQ(samples[0].toObject()[QStringLiteral("rows")].toInteger(), 200);  // measured to the end
    // The run went on with the next scenario.
    EXPECT_EQ(textOf(samples[1].toObject(), "status"), "complete");
    EXPECT_EQ(textOf(samples[1].toObject(), "contentCheck"),
              "not verified: BLOB ids only (the scenario asks for no content)");
    // Without verification the same data set runs as a fast, complete sample.
    r = runCli({"run", "sqlite:" + file, "-s", "all-blobs", "-q"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
}

TEST(VerifyContentCli, ARowDeletedSinceThePrepareFailsTheStatementsThatReadEveryRow) {
    TempDir dir;
    const std::string file = dir.file("ref.sqlite");
    auto r = runCli({"prepare", "sqlite:" + file, "--rows", "200", "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    sqliteExec(file, "DELETE FROM BLOB_TEST WHERE ID = 150");
    r = runCli({"run", "sqlite:" + file, "-P", "verify_content=on", "-s", "all-blobs", "-q"});
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("row 150: in the data set, not read (1 of its 200 rows missing)"), std::string::npos) << r.err;
    // Within a row limit nothing is expected of the rows after it.
    r = runCli({"run", "sqlite:" + file, "-P", "verify_content=on", "-s", "all-blobs", "-n", "10", "-q"});
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
}

TEST(VerifyContentCli, AProjectRunSaysPerScenarioWhatWasVerified) {
    TempDir dir;
    auto r = runCli({"prepare", "sqlite:" + dir.file("reference.sqlite"), "--rows", "150", "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    // The SQLite preset reads ${DATA}/reference.sqlite: the data directory is the test's own.
    const std::string project = dir.file("p.blobbench.json");
    std::filesystem::copy_file(std::string(BLOBBENCH_SOURCE_DIR) + "/resources/presets/sqlite-reference.blobbench.json",
                               project);
    const std::vector<std::string> env = {"BLOBBENCH_DATA_DIR=" + dir.file("")};
    r = runCli({"run", project, "--verify-content", "-s", "all-blobs", "-s", "blob-ids", "--no-save", "-q"}, env);
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("all-blobs median [0-9.]+ ms \\(n=1\\), content verified\n")))
        << r.out;
    EXPECT_NE(r.out.find("(n=1), content not verified\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("verify_content=on"), std::string::npos) << r.out;  // the Markdown's tunables
    sqliteExec(dir.file("reference.sqlite"), "UPDATE BLOB_TEST SET CONTENT = 'x' WHERE ID = 3");
    r = runCli({"run", project, "--verify-content", "-s", "all-blobs", "--no-save", "-q"}, env);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("all-blobs failed, content differs from the prepared data set: row 3: expected"),
              std::string::npos)
        << r.out;
}

TEST(VerifyContentCli, AFolderDataSetIsVerifiedByTheHashesItsPrepareKept) {
    TempDir dir;
    std::filesystem::create_directories(dir.file("src"));
    for (int i = 1; i <= 3; ++i) {
        std::ofstream(dir.file("src/f" + std::to_string(i) + ".txt"))
            << std::string(static_cast<std::size_t>(i) * 5000, 'a' + i);
    }
    std::ofstream(dir.file("src/z.bin"), std::ios::binary) << std::string("\xff\xfe\x00bytes", 8);
    const std::string file = dir.file("folder.sqlite");
    auto r = runCli({"prepare", "sqlite:" + file, "--from-folder", dir.file("src"), "--rows", "20", "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    r = runCli({"run", "sqlite:" + file, "--verify-content", "--json", dir.file("f.json"), "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    for (const auto& v : samplesOf(dir.file("f.json"))) {
        const QJsonObject s = v.toObject();
        const std::string id = textOf(s, "scenario");
        const std::string check = textOf(s, "contentCheck");
        if (id == "warm-up") {  // a file that is not UTF-8: no character count to compare
            EXPECT_TRUE(check.starts_with("not verified: the data set holds values that are not text")) << check;
        } else if (id != "blob-ids") {
            EXPECT_TRUE(check.starts_with("verified: ")) << id << ": " << check;
        }
    }
    sqliteExec(file, "UPDATE BLOB_TEST SET CONTENT = 'bbbbb' WHERE ID = 6");
    r = runCli({"run", "sqlite:" + file, "--verify-content", "-s", "all-blobs", "-q"});
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("content differs from the prepared data set: row 6: expected 10000 bytes"), std::string::npos)
        << r.err;
    // A folder data set without its hashes (prepared before they were kept) is not in effect, said.
    sqliteExec(file, "DROP TABLE BLOBBENCH_CONTENT_HASH");
    r = runCli({"run", "sqlite:" + file, "--verify-content", "-s", "all-blobs", "--json", dir.file("n.json"), "-q"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("Not in effect: verify_content = on (the data set (folder "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("Content: every value read is compared"), std::string::npos) << r.out;
    const QJsonArray none = samplesOf(dir.file("n.json"));
    ASSERT_EQ(none.size(), 1);
    EXPECT_TRUE(textOf(none[0].toObject(), "contentCheck").starts_with("not in effect: the data set (folder "));
}

TEST(Fb9060Versions, TheIssuesVersionsAreNamedAffectedAndOthersNot) {
    const std::string v504 = "LI-V5.0.4.1812 Firebird 5.0";
    const std::string v503 = "WI-V5.0.3.1683 Firebird 5.0";
    EXPECT_EQ(fb9060Expectation(v504, v504), Fb9060Expectation::Affected);
    EXPECT_EQ(fb9060Expectation(v504, v503), Fb9060Expectation::Affected);
    EXPECT_EQ(fb9060Expectation("LI-V3.0.11.33637 Firebird 3.0", v504), Fb9060Expectation::NoInline);
    EXPECT_EQ(fb9060Expectation(v504, "LI-V5.0.2.1613 Firebird 5.0"), Fb9060Expectation::NoInline);
    EXPECT_EQ(fb9060Expectation("LI-V5.0.5.1900 Firebird 5.0", "LI-V5.0.5.1900 Firebird 5.0"),
              Fb9060Expectation::Fixed);
    EXPECT_EQ(fb9060Expectation("LI-V5.0.5.1900 Firebird 5.0", v504), Fb9060Expectation::NotCovered);
    EXPECT_EQ(fb9060Expectation("LI-T6.0.0.100 Firebird 6.0", v504), Fb9060Expectation::NotCovered);
    EXPECT_EQ(fb9060Expectation("", v504), Fb9060Expectation::NoInline);
}

TEST(Fb9060Cli, BadInputIsOneLineAndExitTwo) {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"check"},
             {"check", "fb1234", "inet://h/db"},
             {"check", "fb9060"},
             {"check", "fb9060", "sqlite:/x.db"},
             {"check", "fb9060", "inet://h/db", "-P", "max_inline_blob_size=70000"}}) {
        const auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 2) << args.back() << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    const auto help = runCli({"check", "--help"});
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_NE(help.out.find("Exit codes: 0 not seen, 4 defect seen"), std::string::npos) << help.out;
}

}  // namespace
