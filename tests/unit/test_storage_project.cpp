// The storage studies as project scenarios (issue #8): options and their checks, the project file
// (round trip, JSON-path errors), the samples a study becomes, the shared run function, and the two
// presets run at reduced size on SQLite by `blobbench-cli run`.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <zlib.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <csignal>
#include <filesystem>
#include <functional>
#include <set>

#include "engine/core/Error.h"
#include "engine/storage/StorageScenario.h"
#include "engine/storage/StorageValues.h"
#include "model/Project.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

const QString kPresets = QStringLiteral(BLOBBENCH_SOURCE_DIR "/resources/presets/");

std::string refusal(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(accepted)";
}

QByteArray projectWith(const QByteArray& scenario) {
    return R"({"formatVersion": 1, "connections": [{"name": "S", "engine": "sqlite", "target": "sqlite:/tmp/x"}],
               "scenarios": [)" +
           scenario + "]}";
}

std::size_t deflated(const std::string& data) {
    uLongf size = compressBound(data.size());
    std::string out(size, '\0');
    compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(data.data()), data.size(), 6);
    return size;
}

const Sample* findSample(const std::vector<Sample>& samples, const std::map<std::string, std::string>& point) {
    for (const auto& s : samples) {
        if (s.point == point) {
            return &s;
        }
    }
    return nullptr;
}

}  // namespace

TEST(StudyOptions, DefaultsAreTheStudiesOfTheIssue) {
    const auto keyed = storage::parseStudy("keyed-read", {{"directory", "/tmp/w"}});
    EXPECT_EQ(keyed.keyed.count, 100000u);
    EXPECT_EQ(keyed.keyed.shape.meanBytes, 10000u);  // the article's 10,000 +- 2,000 bytes
    EXPECT_EQ(keyed.keyed.shape.spreadBytes, 2000u);
    EXPECT_EQ(keyed.keyed.layout, storage::FileLayout::Flat);  // the article's one folder
    EXPECT_EQ(keyed.keyed.transaction, storage::TransactionMode::Loop);
    EXPECT_EQ(keyed.keyed.mapping, storage::MappingMode::Cold);
    EXPECT_FALSE(keyed.keyed.copyValues);
    EXPECT_TRUE(keyed.keyed.warmup);
    EXPECT_EQ(keyed.keyed.cacheSize, 1000);  // kvtest's
    EXPECT_EQ(keyed.keyed.paths.size(), 5u);
    EXPECT_FALSE(keyed.keyed.shape.text);
    EXPECT_TRUE(keyed.keyed.reads && keyed.keyed.updates && keyed.keyed.ascending && keyed.keyed.random);
    const auto insert = storage::parseStudy("insert", {});
    EXPECT_EQ(insert.insert.rows, 100000u);
    EXPECT_EQ(insert.insert.valueBytes, 4402u);
    EXPECT_TRUE(insert.insert.text);
    EXPECT_FALSE(insert.insert.compressible);
    EXPECT_EQ(insert.insert.commitEvery, 0u);
    const auto footprint = storage::parseStudy("footprint", {{"directory", "/tmp/w"}});
    EXPECT_FALSE(footprint.keyed.reads);
    EXPECT_FALSE(footprint.keyed.updates);
}

TEST(StudyOptions, EveryOptionIsReadAndTheRowLimitCaps) {
    const auto p = storage::parseStudy("insert",
                                       {{"rows", "10k"},
                                        {"size", "8000"},
                                        {"values", "compressible-text"},
                                        {"commit-every", "5000"},
                                        {"variants", "bytea-lz4, blob"},
                                        {"journal", "off"},
                                        {"synchronous", "off"},
                                        {"page-size", "8192"},
                                        {"fb-page-size", "16384"},
                                        {"verify", "false"},
                                        {"seed", "7"},
                                        {"connection", "PG"}},
                                       300);
    EXPECT_EQ(p.insert.rows, 300u);  // capped
    EXPECT_EQ(p.insert.commitEvery, 300u);
    EXPECT_EQ(p.options.at("rows"), "300");  // what the samples carry
    EXPECT_EQ(p.insert.valueBytes, 8000u);
    EXPECT_TRUE(p.insert.text && p.insert.compressible);
    EXPECT_EQ(p.insert.variants, (std::vector<std::string>{"bytea-lz4", "blob"}));
    EXPECT_EQ(p.insert.journalMode, "off");
    EXPECT_EQ(p.insert.pageSize, 8192);
    EXPECT_EQ(p.insert.firebirdPageSize, 16384);
    EXPECT_FALSE(p.insert.verify);
    EXPECT_EQ(p.insert.seed, 7u);
    EXPECT_EQ(p.connection, "PG");
    const auto k = storage::parseStudy("keyed-read", {{"directory", "/w"},
                                                      {"count", "2000"},
                                                      {"size", "4k"},
                                                      {"spread", "100"},
                                                      {"layout", "flat"},
                                                      {"order", "random"},
                                                      {"reads", "true"},
                                                      {"update", "false"},
                                                      {"mmap-size", "1Mi"},
                                                      {"cache-size", "2k"},
                                                      {"transaction", "per-read"},
                                                      {"mapping", "warm"},
                                                      {"copy", "true"},
                                                      {"warmup", "false"},
                                                      {"paths", "files, blob-mmap,sql"},
                                                      {"fsync", "true"}});
    EXPECT_EQ(k.keyed.count, 2000u);
    EXPECT_EQ(k.keyed.shape.meanBytes, 4000u);  // k is 1000
    EXPECT_EQ(k.keyed.cacheSize, 2000);
    EXPECT_EQ(k.keyed.transaction, storage::TransactionMode::PerRead);
    EXPECT_EQ(k.keyed.mapping, storage::MappingMode::Warm);
    EXPECT_TRUE(k.keyed.copyValues);
    EXPECT_FALSE(k.keyed.warmup);
    EXPECT_EQ(k.keyed.paths, (std::vector<storage::ReadPath>{storage::ReadPath::Files, storage::ReadPath::BlobMmap,
                                                             storage::ReadPath::Sql}));
    EXPECT_EQ(k.keyed.shape.spreadBytes, 100u);
    EXPECT_EQ(k.keyed.layout, storage::FileLayout::Flat);
    EXPECT_FALSE(k.keyed.ascending);
    EXPECT_TRUE(k.keyed.random);
    EXPECT_FALSE(k.keyed.updates);
    EXPECT_EQ(k.keyed.mmapSize, 1 << 20);  // Mi is 1024 * 1024
    EXPECT_TRUE(k.keyed.fsync);
    EXPECT_EQ(k.directory, "/w");
}

TEST(StudyOptions, BadOptionsNameTheOption) {
    struct Case {
        const char* kind;
        storage::StudyOptions options;
        const char* option;
        const char* why;
    };
    const std::vector<Case> cases = {
        {"insert", {{"rows", "0"}}, "rows", "out of range"},
        {"insert", {{"rows", "many"}}, "rows", "not a whole number"},
        {"insert", {{"rows", "1000000000"}}, "rows", "out of range"},
        {"insert", {{"size", "0"}}, "size", "out of range"},
        {"insert", {{"values", "jpeg"}}, "values", "not one of bytes, text, compressible-text"},
        {"insert", {{"variants", "bytea,nope"}}, "variants", "unknown variant 'bytea'"},
        {"insert", {{"rows", "10"}, {"commit-every", "11"}}, "commit-every", "more than the 10 rows"},
        {"insert", {{"count", "10"}}, "count", "unknown option of insert"},
        {"insert", {{"fb-page-size", "1000"}}, "fb-page-size", "not one of"},
        {"keyed-read", {{"order", "sideways"}}, "order", "not one of ascending, random, both"},
        {"keyed-read", {{"size", "1000"}, {"spread", "1000"}}, "spread", "must be smaller"},
        {"keyed-read", {{"page-size", "1000"}}, "page-size", "power of two"},
        {"keyed-read", {{"journal", "sometimes"}}, "journal", "not one of"},
        {"keyed-read", {{"update", "maybe"}}, "update", "not true or false"},
        {"keyed-read", {{"directory", ""}}, "directory", "empty"},
        {"keyed-read", {{"transaction", "sometimes"}}, "transaction", "not one of loop, per-read"},
        {"keyed-read", {{"mapping", "lukewarm"}}, "mapping", "not one of cold, warm"},
        {"keyed-read", {{"paths", "sql,tape"}}, "paths", "'tape' is not one of"},
        {"keyed-read", {{"cache-size", "0"}}, "cache-size", "not a page count"},
        {"keyed-read", {{"size", "10KiB"}}, "size", "not a whole number"},
        {"footprint", {{"connection", "x"}}, "connection", "unknown option of footprint"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.kind);
        try {
            storage::parseStudy(c.kind, c.options);
            ADD_FAILURE() << c.option << " accepted";
        } catch (const storage::StudyOptionError& e) {
            EXPECT_EQ(e.option(), c.option);
            EXPECT_NE(e.why().find(c.why), std::string::npos) << e.why();
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
        }
    }
}

TEST(StudyOptions, SizesAreDecimalUnlessWrittenWithI) {
    EXPECT_EQ(storage::parseSize("size", "10000"), 10000u);
    EXPECT_EQ(storage::parseSize("size", "10k"), 10000u);
    EXPECT_EQ(storage::parseSize("size", "10K"), 10000u);
    EXPECT_EQ(storage::parseSize("size", "10Ki"), 10240u);
    EXPECT_EQ(storage::parseSize("size", "10ki"), 10240u);
    EXPECT_EQ(storage::parseSize("count", "100k"), 100000u);
    EXPECT_EQ(storage::parseSize("mmap-size", "2m"), 2000000u);
    EXPECT_EQ(storage::parseSize("mmap-size", "2047Mi"), 2047ULL << 20);
    EXPECT_EQ(storage::parseSize("mmap-size", "1g"), 1000000000u);
    EXPECT_EQ(storage::parseSize("mmap-size", "1Gi"), 1ULL << 30);
    for (const char* bad : {"", "k", "Ki", "i", "10i", "10kb", "1.5k", "-1", "10 k"}) {
        EXPECT_THROW(storage::parseSize("size", bad), storage::StudyOptionError) << bad;
    }
}

TEST(StudyValues, CompressibleTextCompressesAndRandomTextDoesNot) {
    storage::ValueShape shape;
    shape.meanBytes = 4402;
    shape.spreadBytes = 0;
    shape.text = true;
    std::string random;
    storage::valueFor(shape, 1, random);
    shape.compressible = true;
    std::string words;
    storage::valueFor(shape, 1, words);
    std::string again;
    storage::valueFor(shape, 1, again);
    EXPECT_EQ(words, again);  // deterministic
    ASSERT_EQ(words.size(), 4402u);
    EXPECT_TRUE(std::all_of(words.begin(), words.end(),
                            [](char c) { return (c >= 'a' && c <= 'z') || c == ' ' || c == '\n'; }));
    // pglz gives up below 25% saving: the random letters must stay above that, the words well below.
    EXPECT_GT(static_cast<double>(deflated(random)) / random.size(), 0.75);
    EXPECT_LT(static_cast<double>(deflated(words)) / words.size(), 0.45);
}

TEST(StudyProjectFile, StorageScenariosRoundTripWithOptionsAndNoSql) {
    const QByteArray bytes = projectWith(R"({"id": "ins", "kind": "insert", "title": "t",
        "options": {"rows": 5000, "values": "bytes", "verify": false, "connection": "S"}})");
    const Project p = projectFromJson(bytes);
    ASSERT_EQ(p.scenarios.size(), 1u);
    const ScenarioDef& s = p.scenarios.front();
    EXPECT_TRUE(s.isStudy());
    EXPECT_EQ(s.options.at(QStringLiteral("rows")), QStringLiteral("5000"));  // numbers and booleans kept as text
    EXPECT_EQ(s.options.at(QStringLiteral("verify")), QStringLiteral("false"));
    const QByteArray saved = projectToJson(p);
    EXPECT_FALSE(saved.contains("\"sql\""));
    EXPECT_FALSE(saved.contains("\"fetch\""));
    EXPECT_TRUE(saved.contains("\"rows\": \"5000\""));
    EXPECT_EQ(projectFromJson(saved).scenarios.front(), s);
    EXPECT_EQ(projectToJson(projectFromJson(saved)), saved);
}

TEST(StudyProjectFile, BadStorageScenariosAreRefusedWithTheirPath) {
    struct Case {
        QByteArray scenario;
        const char* message;
    };
    const std::vector<Case> cases = {
        {R"({"id": "a", "kind": "insert", "options": {"rows": 0}})", "scenarios[0].options.rows: 0 is out of range"},
        {R"({"id": "a", "kind": "insert", "options": {"rows": -5}})", "scenarios[0].options.rows: expected"},
        {R"({"id": "a", "kind": "keyed-read", "options": {"colour": "red"}})",
         "scenarios[0].options.colour: unknown option of keyed-read"},
        {R"({"id": "a", "kind": "keyed-read", "options": {"order": 3}})",
         "scenarios[0].options.order: '3' is not one of ascending, random, both"},
        {R"({"id": "a", "kind": "keyed-read", "options": []})", "scenarios[0].options: expected an object"},
        {R"({"id": "a", "kind": "footprint", "sql": "SELECT 1"})",
         "scenarios[0].sql: a storage study (kind footprint) has no sql"},
        {R"({"id": "a", "kind": "query", "sql": "SELECT 1", "options": {}})",
         "scenarios[0].options: only storage studies"},
        {R"({"id": "a", "kind": "query"})", "scenarios[0].sql: missing"},
        {R"({"id": "a", "kind": "bulk-load", "sql": "x"})", "scenarios[0].kind"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.scenario.constData());
        const std::string what = refusal([&] { projectFromJson(projectWith(c.scenario)); });
        EXPECT_NE(what.find(c.message), std::string::npos) << c.scenario.toStdString() << " -> " << what;
    }
}

TEST(StudyProjectFile, StudyJobExpandsDataAndFindsTheConnection) {
    qputenv("BLOBBENCH_DATA_DIR", "/tmp/bbdata-study");
    Project p = projectFromJson(R"({"formatVersion": 1, "connections": [
        {"name": "S", "engine": "sqlite", "target": "sqlite:${DATA}/x.sqlite"},
        {"name": "PG", "engine": "postgres", "target": "postgresql://u@127.0.0.1:5432/db"}],
        "parameters": {"postgres": {"result_format": "binary"}},
        "scenarios": [{"id": "k", "kind": "keyed-read"},
                      {"id": "i", "kind": "insert", "options": {"connection": "PG", "rows": "1000"}},
                      {"id": "c", "kind": "insert", "options": {"directory": "${DATA}/ins"}},
                      {"id": "n", "kind": "insert", "options": {"connection": "none"}}]})");
    const auto k = studyJob(p, p.scenarios[0], "run-1", {}, 10);
    EXPECT_EQ(k.plan.directory, "/tmp/bbdata-study/storage-k");
    EXPECT_EQ(k.plan.keyed.count, 10u);
    EXPECT_EQ(k.title, "k");
    const auto i = studyJob(p, p.scenarios[1], "run-1", {{QStringLiteral("PG"), QStringLiteral("pw")}});
    EXPECT_EQ(i.connection.engine, "postgres");
    EXPECT_EQ(i.connection.password, "pw");
    EXPECT_EQ(i.parameters.at("result_format"), "binary");
    EXPECT_EQ(i.plan.insert.rows, 1000u);
    const auto c = studyJob(p, p.scenarios[2], "run-1");
    EXPECT_EQ(c.connection.engine, "sqlite");  // the current connection
    EXPECT_EQ(c.plan.directory, "/tmp/bbdata-study/ins");
    EXPECT_NE(refusal([&] {
                  studyJob(p, p.scenarios[3], "run-1");
              }).find("connection: the project has no connection named 'none'"),
              std::string::npos);
    qunsetenv("BLOBBENCH_DATA_DIR");
}

TEST(StudyRun, KeyedStudyBecomesOneSamplePerStepAndTheFootprint) {
    TempDir dir;
    storage::StudyJob job;
    job.runId = "run-k";
    job.scenarioId = "reads";
    job.title = "Reads";
    job.plan = storage::parseStudy("keyed-read", {{"directory", dir.file("w")}, {"count", "150"}, {"size", "2k"}});
    std::vector<Sample> live;
    std::vector<std::string> phases;
    storage::StudyHooks hooks;
    hooks.sample = [&](const Sample& s) { live.push_back(s); };
    hooks.progress = [&](const std::string& p) { phases.push_back(p); };
    const auto outcome = storage::runStudy(job, hooks);
    ASSERT_TRUE(outcome.ok()) << outcome.error;
    EXPECT_EQ(live.size(), outcome.samples.size());
    EXPECT_FALSE(phases.empty());
    // write x2, reads: 4 sqlite paths x 2 orders + files x 2, updates: sqlite + 2 files, footprint
    EXPECT_EQ(outcome.samples.size(), 2u + 10u + 3u + 1u);
    for (const auto& s : outcome.samples) {
        EXPECT_EQ(s.status, SampleStatus::Complete) << s.error;
        EXPECT_EQ(s.runId, "run-k");
        EXPECT_EQ(s.scenarioId, "reads");
        EXPECT_EQ(s.parameters.at("count"), "150");
        ASSERT_TRUE(s.scalar.has_value());
    }
    const Sample* blob = findSample(
        outcome.samples, {{"phase", "read"}, {"store", "sqlite"}, {"path", "blob api"}, {"order", "random"}});
    ASSERT_NE(blob, nullptr);
    EXPECT_EQ(blob->rows, 150u);
    EXPECT_EQ(blob->valuesRead, 150u);
    EXPECT_EQ(blob->scalarLabel, storage::kMicrosPerValue);
    EXPECT_EQ(blob->negotiated.at("check"), "byte-exact");
    EXPECT_GT(blob->phases.elapsed().count(), 0);
    // µs/value is the elapsed time over the values, as printed
    EXPECT_NEAR(std::stod(*blob->scalar), blob->phases.elapsed().count() / 1e3 / 150.0, 0.01);
    const Sample* fp = findSample(outcome.samples, {{"phase", "footprint"}, {"store", "sqlite / files"}});
    ASSERT_NE(fp, nullptr);
    const double ratio = std::stod(fp->negotiated.at("sqliteBytes")) / std::stod(fp->negotiated.at("filesBytes"));
    EXPECT_NEAR(std::stod(*fp->scalar), ratio, 0.001);
    EXPECT_GT(ratio, 0.2);
    EXPECT_LT(ratio, 5);
}

TEST(StudyRun, InsertStudyOnSqliteGivesInsertsPerSecondPerVariant) {
    TempDir dir;
    storage::StudyJob job;
    job.runId = "run-i";
    job.scenarioId = "ins";
    job.connection.engine = "sqlite";
    job.plan = storage::parseStudy(
        "insert",
        {{"directory", dir.file("i")}, {"rows", "200"}, {"commit-every", "50"}, {"values", "compressible-text"}});
    std::vector<storage::InsertResult> raw;
    storage::StudyHooks hooks;
    hooks.insertResult = [&](const storage::InsertResult& r) { raw.push_back(r); };
    const auto outcome = storage::runStudy(job, hooks);
    ASSERT_TRUE(outcome.ok()) << outcome.error;
    ASSERT_EQ(outcome.samples.size(), 2u);
    ASSERT_EQ(raw.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        const Sample& s = outcome.samples[i];
        EXPECT_EQ(s.point.at("engine"), "sqlite");
        EXPECT_EQ(s.point.at("variant"), raw[i].variant);
        EXPECT_EQ(s.rows, 200u);
        EXPECT_EQ(s.contentBytes, 200u * 4402u);
        EXPECT_EQ(s.negotiated.at("commits"), "4");
        EXPECT_EQ(s.negotiated.at("check"), "byte-exact");
        EXPECT_EQ(s.scalarLabel, storage::kInsertsPerSecond);
        EXPECT_EQ(*s.scalar, std::to_string(static_cast<long long>(std::llround(raw[i].insertsPerSecond()))));
        EXPECT_FALSE(s.negotiated.at("storageBytes").empty());
    }
}

TEST(StudyRun, BadOptionsThrowBeforeAnythingIsWritten) {
    TempDir dir;
    storage::StudyJob job;
    job.connection.engine = "sqlite";
    job.plan = storage::parseStudy("insert", {{"directory", dir.file("i")}, {"rows", "10"}});
    job.plan.insert.journalMode = "sometimes";  // past the option check: the store refuses it
    EXPECT_THROW(storage::runStudy(job, {}), Error);
    EXPECT_FALSE(std::filesystem::exists(dir.file("i") + "/bind.sqlite"));
}

TEST(StudyPresets, HoldWhatTheyPromise) {
    const Project fs = loadProject(kPresets + QStringLiteral("sqlite-vs-filesystem.blobbench.json"));
    std::vector<QString> kinds;
    for (const auto& s : fs.scenarios) {
        kinds.push_back(s.kind);
        EXPECT_EQ(s.options.at(QStringLiteral("count")), QStringLiteral("100000"));
        EXPECT_EQ(s.options.at(QStringLiteral("size")), QStringLiteral("10000"));
        EXPECT_EQ(s.options.at(QStringLiteral("spread")), QStringLiteral("2000"));
    }
    EXPECT_EQ(kinds, (std::vector<QString>{QStringLiteral("keyed-read"), QStringLiteral("keyed-read"),
                                           QStringLiteral("footprint")}));
    EXPECT_EQ(fs.scenarios[0].options.at(QStringLiteral("journal")), QStringLiteral("wal"));
    EXPECT_EQ(fs.scenarios[1].options.at(QStringLiteral("journal")), QStringLiteral("off"));
    const Project lob = loadProject(kPresets + QStringLiteral("lob-insert-throughput.blobbench.json"));
    std::set<QString> engines;
    for (const auto& s : lob.scenarios) {
        EXPECT_EQ(s.kind, QStringLiteral("insert"));
        EXPECT_EQ(s.options.at(QStringLiteral("rows")), QStringLiteral("100000"));
        EXPECT_EQ(s.options.at(QStringLiteral("size")), QStringLiteral("4402"));
        const auto job = studyJob(lob, s, "r");
        engines.insert(QString::fromStdString(job.connection.engine));
    }
    EXPECT_EQ(engines, (std::set<QString>{QStringLiteral("sqlite"), QStringLiteral("postgres"),
                                          QStringLiteral("firebird"), QStringLiteral("mariadb")}));
}

// Copies a preset into dir (the run is saved into the project's history) and runs it reduced.
static test::ProcessResult runPreset(const TempDir& dir, const char* preset, std::vector<std::string> extra) {
    const std::string path = dir.file(preset);
    std::filesystem::copy_file(kPresets.toStdString() + preset, path);
    std::vector<std::string> args = {
        "run", path, "--limit-rows", "120", "--json", dir.file("samples.json"), "--csv", dir.file("samples.csv")};
    args.insert(args.end(), extra.begin(), extra.end());
    return runCli(args, {"BLOBBENCH_DATA_DIR=" + dir.file("data")});
}

TEST(StudyPresets, SqliteVsFilesystemRunsReducedIntoTheHistoryAndExports) {
    TempDir dir;
    const auto r = runPreset(dir, "sqlite-vs-filesystem.blobbench.json", {});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("footprint SQLite / files"), std::string::npos) << r.out;
    const Project p = loadProject(QString::fromStdString(dir.file("sqlite-vs-filesystem.blobbench.json")));
    ASSERT_EQ(p.history.size(), 1u);
    const RunRecord& run = p.history.front();
    EXPECT_EQ(run.outcome, QStringLiteral("complete"));
    std::set<std::string> scenarios;
    int reads = 0;
    for (const auto& s : run.samples) {
        scenarios.insert(s.scenarioId);
        EXPECT_EQ(s.status, SampleStatus::Complete) << s.error;
        EXPECT_EQ(s.parameters.at("count"), "120");
        reads += s.point.count("phase") && s.point.at("phase") == "read" ? 1 : 0;
    }
    EXPECT_EQ(scenarios, (std::set<std::string>{"reads-wal", "writes-journal-off", "footprint"}));
    EXPECT_EQ(reads, 10);  // only reads-wal reads: 4 SQLite paths x 2 orders + files x 2
    EXPECT_TRUE(std::filesystem::exists(dir.file("data") + "/storage-keyed/store.sqlite"));
    QFile json(QString::fromStdString(dir.file("samples.json")));
    ASSERT_TRUE(json.open(QIODevice::ReadOnly));
    EXPECT_EQ(QJsonDocument::fromJson(json.readAll()).object()[QStringLiteral("samples")].toArray().size(),
              static_cast<qsizetype>(run.samples.size()));
    QFile csv(QString::fromStdString(dir.file("samples.csv")));
    ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
    EXPECT_EQ(csv.readAll().count('\n'), static_cast<qsizetype>(run.samples.size()) + 1);
}

TEST(StudyPresets, LobInsertRunsReducedOnSqlite) {
    TempDir dir;
    const auto r = runPreset(dir, "lob-insert-throughput.blobbench.json", {"--scenario", "insert-sqlite"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    const Project p = loadProject(QString::fromStdString(dir.file("lob-insert-throughput.blobbench.json")));
    ASSERT_EQ(p.history.size(), 1u);
    const auto& samples = p.history.front().samples;
    ASSERT_EQ(samples.size(), 2u);
    EXPECT_EQ(samples[0].point.at("variant"), "bind");
    EXPECT_EQ(samples[1].point.at("variant"), "zeroblob");
    for (const auto& s : samples) {
        EXPECT_EQ(s.rows, 120u);
        EXPECT_EQ(s.negotiated.at("check"), "byte-exact");
    }
}

TEST(StudyPresets, BadOptionInAProjectIsOneUsageLine) {
    TempDir dir;
    const std::string path = dir.file("p.blobbench.json");
    Project p = loadProject(kPresets + QStringLiteral("lob-insert-throughput.blobbench.json"));
    p.scenarios[0].options[QStringLiteral("connection")] = QStringLiteral("nowhere");
    saveProject(QString::fromStdString(path), p);
    const auto r = runCli({"run", path, "--scenario", "insert-sqlite"});
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("scenario 'insert-sqlite': options.connection: the project has no connection named"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(loadProject(QString::fromStdString(path)).history.empty());
}

TEST(StudyPresets, DiskFullKeepsTheSamplesSoFarLabelledAndTheRunFailed) {
    TempDir dir;
    const std::string path = dir.file("p.blobbench.json");
    std::filesystem::copy_file(kPresets.toStdString() + "sqlite-vs-filesystem.blobbench.json", path);
    // A size limit on every file the child writes (RLIMIT_FSIZE, the full disk's stand-in): the
    // 2 MB project and journal fit, the 300 x 10 kB stores do not.
    rlimit old{};
    getrlimit(RLIMIT_FSIZE, &old);
    auto handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limited = old;
    limited.rlim_cur = 2 * 1024 * 1024;
    setrlimit(RLIMIT_FSIZE, &limited);
    const auto r = runCli({"run", path, "--scenario", "reads-wal", "--limit-rows", "300"},
                          {"BLOBBENCH_DATA_DIR=" + dir.file("data")});
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, handler);
    EXPECT_EQ(r.exitCode, 1) << r.err << r.out;
    EXPECT_NE(r.err.find("reads-wal: "), std::string::npos) << r.err;
    const Project p = loadProject(QString::fromStdString(path));
    ASSERT_EQ(p.history.size(), 1u);
    EXPECT_TRUE(p.history.front().outcome.startsWith(QStringLiteral("failed: reads-wal: ")))
        << p.history.front().outcome.toStdString();
    ASSERT_FALSE(p.history.front().samples.empty());
    const Sample& last = p.history.front().samples.back();
    EXPECT_EQ(last.status, SampleStatus::Failed);
    EXPECT_NE(last.error.find("partial"), std::string::npos) << last.error;
}

TEST(StudyRun, CancelStopsBetweenPhasesAndVariantsKeepingWhatWasMeasured) {
    TempDir dir;
    storage::StudyJob keyed;
    keyed.scenarioId = "k";
    keyed.plan = storage::parseStudy("keyed-read", {{"directory", dir.file("k")}, {"count", "100"}, {"size", "1k"}});
    CancelToken token;
    int phases = 0;
    storage::StudyHooks hooks;
    hooks.cancel = token;
    hooks.progress = [&](const std::string&) {
        if (++phases == 3) {
            token.cancel();  // the Stop button: the next phase does not start
        }
    };
    const auto k = storage::runStudy(keyed, hooks);
    EXPECT_TRUE(k.cancelled);
    EXPECT_FALSE(k.ok());
    EXPECT_EQ(phases, 3);
    EXPECT_FALSE(k.samples.empty());
    EXPECT_LT(k.samples.size(), 16u);  // a full run has 16

    storage::StudyJob insert;
    insert.scenarioId = "i";
    insert.connection.engine = "sqlite";
    insert.plan = storage::parseStudy("insert", {{"directory", dir.file("i")}, {"rows", "50"}});
    CancelToken stop;
    storage::StudyHooks insertHooks;
    insertHooks.cancel = stop;
    insertHooks.insertResult = [&](const storage::InsertResult&) { stop.cancel(); };
    const auto i = storage::runStudy(insert, insertHooks);
    EXPECT_TRUE(i.cancelled);
    ASSERT_EQ(i.samples.size(), 1u);  // bind ran, zeroblob did not
    EXPECT_EQ(i.samples[0].point.at("variant"), "bind");
    EXPECT_EQ(i.samples[0].status, SampleStatus::Complete);
}
