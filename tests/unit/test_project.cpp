// Project files: byte-identical round trips (every preset included), a corpus of broken and hostile
// files each refused with one line naming the JSON path, no password ever written, run history,
// comparison of runs, the Markdown summary and the CSV read back.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/core/Error.h"
#include "model/MarkdownExport.h"
#include "model/ProjectFile.h"
#include "model/RunComparison.h"
#include "model/SampleJson.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::TempDir;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

Sample makeSample(const std::string& scenario, int repetition, double elapsedMs, PointValues point = {}) {
    Sample s;
    s.runId = "2026-11-29T10:00:00.000Z";
    s.scenarioId = scenario;
    s.scenarioTitle = "Test read " + scenario;
    s.sql = "SELECT ID,\n  CONTENT\nFROM BLOB_TEST";
    s.repetition = repetition;
    s.point = std::move(point);
    s.startedAt = "2026-11-29T10:00:0" + std::to_string(repetition) + ".000Z";
    s.engine = "sqlite";
    s.connection = "sqlite:/tmp/ref.sqlite";
    s.serverVersion = "3.40.1";
    s.clientVersion = "3.40.1";
    s.negotiated = {{"protocol", "embedded"}};
    s.parameters = {{"blob_api", "false"}, {"mmap_size", "0"}};
    for (const auto& [k, v] : s.point) {
        s.parameters[k] = v;
    }
    s.effects = {{"mmap_size", "0", "0", true, ""}, {"page_size", "4096", "", false, "needs a new file"}};
    s.phases.connect = Nanos(1'234'567);
    s.phases.prepare = Nanos(20'000);
    s.phases.execute = Nanos(static_cast<std::int64_t>(elapsedMs * 1e6 / 2));
    s.phases.fetch = Nanos(static_cast<std::int64_t>(elapsedMs * 1e6) - s.phases.execute.count());
    s.rows = 300;
    s.contentBytes = 3'141'592;
    s.valuesRead = 300;
    s.maxId = 300;
    s.tap = WireStats::unavailable("not applicable (embedded)");
    WireCounters c;
    c.recvBytes = 3'200'000;
    c.sendBytes = 1'000;
    c.recvPackets = 50;
    c.sendPackets = 10;
    c.roundTrips = 7;
    s.nativePhysical = WireStats::of(c);
    return s;
}

Project richProject() {
    Project p = defaultProject(QStringLiteral("/tmp/ref.sqlite"));
    p.name = QStringLiteral("Round trip: \"quotes\", back\\slash, tab\t, unicode \u00e9\u4e2d");
    ConnectionProfile pg;
    pg.name = QStringLiteral("PostgreSQL");
    pg.engine = QStringLiteral("postgres");
    pg.target = QStringLiteral("postgresql://postgres@127.0.0.1:5432/blob_test");
    pg.user = QStringLiteral("postgres");
    pg.useWireTap = true;
    pg.link = LinkSettings{20, 20, 2'000'000, 10'000'000'000};
    p.connections.push_back(pg);
    p.scenarios[1].enabled = false;
    p.scenarios[2].setupSql = QStringLiteral("PRAGMA cache_size = -2000");
    p.parameters[QStringLiteral("sqlite")] = {{"mmap_size", "268435456"}};
    p.parameters[QStringLiteral("postgres")] = {{"result_format", "binary"}};
    SweepDef grid;
    grid.name = QStringLiteral("grid");
    SweepAxis a;
    a.parameter = QStringLiteral("blob_api");
    a.values = {QStringLiteral("false"), QStringLiteral("true")};
    SweepAxis r;
    r.parameter = QStringLiteral("mmap_size");
    r.range = SweepRangeDef{1024, 1048576, 4, true};
    grid.axes = {a, r};
    grid.repetitions = 3;
    grid.warmups = 1;
    grid.randomOrder = true;
    grid.seed = 42;
    p.sweeps.push_back(grid);
    p.chartSettings = QJsonObject{{QStringLiteral("x"), QStringLiteral("mmap_size")},
                                  {QStringLiteral("series"), QJsonArray{1, 2.5, QStringLiteral("three")}},
                                  // keys the writer treats specially elsewhere: ordinary here
                                  {QStringLiteral("history"), QJsonObject{{QStringLiteral("samples"), 3}}},
                                  {QStringLiteral("samples"), QJsonArray{QJsonObject{{QStringLiteral("a"), 1}}}}};
    RunRecord run;
    run.runId = QStringLiteral("2026-11-29T10:00:00.000Z");
    run.startedAt = run.runId;
    run.finishedAt = QStringLiteral("2026-11-29T10:01:00.000Z");
    run.outcome = QStringLiteral("complete");
    run.machine = QStringLiteral("build-host");
    run.connectionName = QStringLiteral("SQLite");
    run.sweepName = QStringLiteral("grid");
    run.toolVersion = QStringLiteral("0.1.0");
    run.orderSeed = 42;
    for (int point = 0; point < 2; ++point) {
        for (int rep = 0; rep < 3; ++rep) {
            run.samples.push_back(
                makeSample("all-blobs", rep, 10.0 + rep + point, {{"blob_api", point ? "true" : "false"}}));
        }
    }
    Sample scalar = makeSample("warm-up", 0, 3.25);
    scalar.scalarLabel = "Max char length";
    scalar.scalar = "77743";
    scalar.maxId.reset();
    run.samples.push_back(scalar);
    Sample failed = makeSample("varchar", 0, 0.5);
    failed.status = SampleStatus::Failed;
    failed.error = "no such column: SHORT_CONTENT, \"quoted\"";
    // Measured through the wire tap: counters of the span and of each phase (a networked run).
    WireCounters fetch;
    fetch.sendBytes = 120;
    fetch.recvBytes = 65536;
    fetch.sendPackets = 2;
    fetch.recvPackets = 9;
    fetch.roundTrips = 2;
    fetch.compressed = CompressionEstimate{60, 9000, 58, 9500};
    failed.tap = WireStats::of(fetch);
    failed.tap.method = "in-process";
    failed.tapPhases = {{"connect", fetch}, {"fetch", fetch}};
    run.samples.push_back(failed);
    p.history.push_back(run);
    RunRecord crashed;  // cut short: no end, no samples
    crashed.runId = QStringLiteral("2026-11-30T08:00:00.000Z");
    p.history.push_back(crashed);
    return p;
}

std::string refusal(const QByteArray& bytes) {
    try {
        projectFromJson(bytes);
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Data);
        return e.what();
    }
    return "accepted";
}

QByteArray minimal(const char* extra = "") {
    return QByteArray(R"({"formatVersion": 1, "name": "x", "connections": [{"name": "c", "engine": "sqlite",
        "target": "sqlite:/tmp/x.sqlite"}], "scenarios": [{"id": "a", "sql": "SELECT 1"}])") +
           extra + "}";
}

// RFC 4180: quoted fields may hold commas, doubled quotes and line breaks.
std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
    std::vector<std::vector<std::string>> rows(1);
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rows.back().push_back(field);
            field.clear();
        } else if (c == '\n') {
            rows.back().push_back(field);
            field.clear();
            rows.emplace_back();
        } else {
            field += c;
        }
    }
    if (rows.back().empty()) {
        rows.pop_back();
    }
    return rows;
}

}  // namespace

TEST(ProjectFile, RoundTripIsByteIdentical) {
    const Project p = richProject();
    const QByteArray first = projectToJson(p);
    const Project loaded = projectFromJson(first);
    EXPECT_EQ(projectToJson(loaded), first);
    EXPECT_EQ(loaded.name, p.name);
    EXPECT_EQ(loaded.connections, p.connections);
    EXPECT_EQ(loaded.scenarios, p.scenarios);
    EXPECT_EQ(loaded.sweeps, p.sweeps);
    EXPECT_EQ(loaded.parameters, p.parameters);
    EXPECT_EQ(loaded.chartSettings, p.chartSettings);
    ASSERT_EQ(loaded.history.size(), 2u);
    const RunRecord& run = loaded.history[0];
    EXPECT_EQ(run.machine, QStringLiteral("build-host"));
    EXPECT_EQ(run.orderSeed, 42u);
    ASSERT_EQ(run.samples.size(), p.history[0].samples.size());
    for (std::size_t i = 0; i < run.samples.size(); ++i) {
        EXPECT_EQ(sampleToJson(run.samples[i]), sampleToJson(p.history[0].samples[i])) << i;
    }
    EXPECT_EQ(run.samples[3].point.at("blob_api"), "true");
    EXPECT_EQ(*run.samples[6].scalar, "77743");
    EXPECT_EQ(run.samples[7].status, SampleStatus::Failed);
    EXPECT_EQ(run.samples[7].tapPhases.at("fetch").recvBytes, 65536u);
    ASSERT_TRUE(run.samples[7].tap.counters.compressed.has_value());
    EXPECT_EQ(run.samples[7].tap.counters.compressed->zstdRecvBytes, 9500u);
    EXPECT_EQ(run.samples[7].tap.method, "in-process");
    EXPECT_TRUE(loaded.history[1].finishedAt.isEmpty());
    // Human-diffable: the root in a fixed order, multi-line SQL as lines, one sample a line, what
    // samples of a scenario share written once.
    const QString text = QString::fromUtf8(first);
    EXPECT_TRUE(text.startsWith(QStringLiteral("{\n  \"formatVersion\": 1,\n  \"name\": ")));
    EXPECT_TRUE(text.contains(QStringLiteral("\"sql\": [\n")));
    EXPECT_TRUE(text.contains(QStringLiteral("\"values\": [\"false\", \"true\"]")));
    EXPECT_TRUE(text.contains(QStringLiteral("\"sampleDefaults\"")));
    // Defaults of all-blobs at its two points, and the single samples of warm-up and varchar.
    EXPECT_EQ(text.count(QStringLiteral("\"serverVersion\"")), 4);
    EXPECT_TRUE(text.endsWith(QLatin1Char('\n')));
}

TEST(ProjectFile, EveryPresetRoundTripsByteForByte) {
    const QDir dir(QStringLiteral(BLOBBENCH_SOURCE_DIR "/resources/presets"));
    const QStringList presets = dir.entryList({QStringLiteral("*.blobbench.json")}, QDir::Files, QDir::Name);
    ASSERT_GE(presets.size(), 3) << dir.path().toStdString();
    for (const QString& name : presets) {
        QFile file(dir.filePath(name));
        ASSERT_TRUE(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        Project p;
        try {
            p = projectFromJson(bytes);
        } catch (const Error& e) {
            FAIL() << name.toStdString() << ": " << e.what();
        }
        const QByteArray again = projectToJson(p);
        if (again != bytes && qEnvironmentVariableIsSet("BLOBBENCH_UPDATE_PRESETS")) {
            saveProject(dir.filePath(name), p);  // rewrites a hand-edited preset in canonical form
            continue;
        }
        EXPECT_EQ(again, bytes) << name.toStdString() << " is not in canonical form (rerun with "
                                << "BLOBBENCH_UPDATE_PRESETS=1 to rewrite it)";
        EXPECT_TRUE(looksLikeProjectFile(dir.filePath(name)));
        EXPECT_FALSE(p.scenarios.empty()) << name.toStdString();
        ASSERT_NE(p.current(), nullptr);
        for (const auto& sweep : p.sweeps) {
            EXPECT_FALSE(expandSweep(sweep.toSpec()).empty()) << sweep.name.toStdString();
        }
    }
}

TEST(ProjectFile, PresetsHoldWhatTheyPromise) {
    const QString dir = QStringLiteral(BLOBBENCH_SOURCE_DIR "/resources/presets/");
    const Project fb = loadProject(dir + QStringLiteral("firebird-reference.blobbench.json"));
    EXPECT_EQ(fb.current()->target, QStringLiteral("inet://127.0.0.1:3050//var/tmp/blobbench-fb/blob_test.fdb"));
    EXPECT_EQ(fb.current()->user, QStringLiteral("SYSDBA"));
    const auto grid = std::find_if(fb.sweeps.begin(), fb.sweeps.end(), [](const SweepDef& s) {
        return s.name == QStringLiteral("inline size x compression");
    });
    ASSERT_NE(grid, fb.sweeps.end());
    EXPECT_EQ(expandSweep(grid->toSpec()).size(), 14u);
    // Firebird 5.0.4 beside 3.0 (scripts/services/start-firebird5): its own client, by full path.
    ASSERT_EQ(fb.connections.size(), 2u);
    EXPECT_EQ(fb.connections[1].target,
              QStringLiteral("inet://127.0.0.1:3051//var/tmp/blobbench-fb5/db/blob_test.fdb"));
    EXPECT_TRUE(fb.connections[1].clientLibrary.endsWith(QStringLiteral("/lib/libfbclient.so.5.0.4")));
    EXPECT_TRUE(fb.connections[0].clientLibrary.isEmpty());
    const Project versus = loadProject(dir + QStringLiteral("firebird-3-vs-5.blobbench.json"));
    ASSERT_EQ(versus.connections.size(), 2u);
    EXPECT_EQ(versus.connections[0].name, QStringLiteral("Firebird 3.0"));
    EXPECT_EQ(versus.connections[1].name, QStringLiteral("Firebird 5.0.4"));
    EXPECT_EQ(versus.connections[1].clientLibrary, fb.connections[1].clientLibrary);
    ASSERT_EQ(versus.scenarios.size(), fb.scenarios.size());
    for (std::size_t i = 0; i < fb.scenarios.size(); ++i) {
        EXPECT_EQ(versus.scenarios[i].sql, fb.scenarios[i].sql);
    }
    const Project pg = loadProject(dir + QStringLiteral("postgres-bytea-text-vs-binary.blobbench.json"));
    EXPECT_EQ(pg.current()->target, QStringLiteral("postgresql://postgres@127.0.0.1:5432/blob_test"));
    EXPECT_EQ(pg.sweeps.front().axes.front().parameter, QStringLiteral("result_format"));
    const Project my = loadProject(dir + QStringLiteral("mariadb-text-vs-binary.blobbench.json"));
    EXPECT_EQ(my.current()->target, QStringLiteral("mariadb://blobbench@127.0.0.1:3307/blob_test"));
    ASSERT_EQ(my.connections.size(), 2u);
    EXPECT_EQ(my.connections[1].link.bandwidthDownBits, 2000000);
    ASSERT_EQ(my.sweeps.size(), 3u);
    EXPECT_EQ(my.sweeps.front().axes.front().parameter, QStringLiteral("protocol"));
    const Project sq = loadProject(dir + QStringLiteral("sqlite-reference.blobbench.json"));
    EXPECT_EQ(sq.sweeps.front().axes.size(), 2u);
    // ${DATA} expands to the data directory at connect time.
    qputenv("BLOBBENCH_DATA_DIR", "/tmp/bbdata");
    EXPECT_EQ(sq.current()->toSpec().target, "sqlite:/tmp/bbdata/reference.sqlite");
    qunsetenv("BLOBBENCH_DATA_DIR");
}

TEST(ProjectFile, BrokenFilesAreRefusedWithTheirPath) {
    struct Case {
        const char* what;
        QByteArray bytes;
        const char* message;
    };
    const std::vector<Case> corpus = {
        {"empty", "", "empty file"},
        {"blank", "  \n ", "empty file"},
        {"truncated", minimal().left(60), "line 1, column"},
        {"truncated inside a string", R"({"formatVersion": 1, "name": "abc)", "not valid JSON"},
        {"binary garbage", QByteArray("\x00\x01\x02\xff\xfe", 5), "not valid JSON"},
        {"an array", "[1, 2]", "(root): expected an object, found an array"},
        {"no version", R"({"name": "x"})", "formatVersion: missing"},
        {"version as text", R"({"formatVersion": "1"})", "formatVersion: expected a whole number"},
        {"version 0", R"({"formatVersion": 0})", "formatVersion: expected a whole number >= 1"},
        {"newer", R"({"formatVersion": 7})", "written by a newer BlobBench (format 7"},
        {"unknown root key", minimal(R"(, "colour": "blue")"), "colour: unknown key"},
        {"unknown scenario key",
         R"({"formatVersion": 1, "scenarios": [{"id": "a", "sql": "x"}, {"id": "b", "sql": "y", "colour": 1}]})",
         "scenarios[1].colour: unknown key"},
        {"sql as a number",
         R"({"formatVersion": 1, "scenarios": [{"id": "a", "sql": "x"}, {"id": "b", "sql": "y"}, {"id": "c", "sql": 3}]})",
         "scenarios[2].sql: expected a string or an array of lines, found a number"},
        {"sql line as a number", R"({"formatVersion": 1, "scenarios": [{"id": "a", "sql": ["SELECT", 1]}]})",
         "scenarios[0].sql[1]: expected a string, found a number"},
        {"missing sql", R"({"formatVersion": 1, "scenarios": [{"id": "a"}]})", "scenarios[0].sql: missing"},
        {"duplicate id", R"({"formatVersion": 1, "scenarios": [{"id": "a", "sql": "x"}, {"id": "a", "sql": "y"}]})",
         "scenarios[1].id: 'a' is used by an earlier scenario"},
        {"bad kind", R"({"formatVersion": 1, "scenarios": [{"id": "a", "sql": "x", "kind": "bulk-load"}]})",
         "scenarios[0].kind: 'bulk-load' is not one of query, scalar, keyed-read, footprint, insert"},
        {"scenarios not an array", R"({"formatVersion": 1, "scenarios": {}})",
         "scenarios: expected an array, found an object"},
        {"enabled as a string", R"({"formatVersion": 1, "scenarios": [{"id": "a", "sql": "x", "enabled": "yes"}]})",
         "scenarios[0].enabled: expected true or false, found a string"},
        {"huge number", minimal(R"(, "currentConnection": 1e300)"),
         "currentConnection: expected a whole number in 0..0"},
        {"huge integer literal", minimal(R"(, "currentConnection": 123456789012345678901234567890)"),
         "currentConnection: expected a whole number"},
        {"fractional", minimal(R"(, "currentConnection": 0.5)"), "currentConnection: expected a whole number"},
        {"negative repetitions",
         R"({"formatVersion": 1, "sweeps": [{"name": "s", "axes": [{"parameter": "x", "values": ["1"]}], "repetitions": -3}]})",
         "sweeps[0].repetitions: expected a whole number in 1..1000000"},
        {"zero points",
         R"({"formatVersion": 1, "sweeps": [{"name": "s", "axes": [{"parameter": "x", "range": {"from": 0, "to": 10, "points": 0}}]}]})",
         "sweeps[0]: sweep 's': sweep axis 'x': range has 0 points"},
        {"inverted range",
         R"({"formatVersion": 1, "sweeps": [{"name": "s", "axes": [{"parameter": "x", "range": {"from": 9, "to": 1, "points": 3}}]}]})",
         "range from 9 to 1 is inverted"},
        {"empty values",
         R"({"formatVersion": 1, "sweeps": [{"name": "s", "axes": [{"parameter": "x", "values": []}]}]})",
         "sweeps[0]: sweep 's': sweep axis 'x': has no values"},
        {"values and range",
         R"({"formatVersion": 1, "sweeps": [{"name": "s", "axes": [{"parameter": "x", "values": ["1"], "range": {}}]}]})",
         "sweeps[0].axes[0]: give either values or range"},
        {"bad spacing",
         R"({"formatVersion": 1, "sweeps": [{"name": "s", "axes": [{"parameter": "x", "range": {"from": 1, "to": 9, "points": 3, "spacing": "cubic"}}]}]})",
         "sweeps[0].axes[0].range.spacing: 'cubic' is not one of linear, log"},
        {"three axes",
         R"({"formatVersion": 1, "sweeps": [{"name": "s", "axes": [{"parameter": "a", "values": ["1"]}, {"parameter": "b", "values": ["1"]}, {"parameter": "c", "values": ["1"]}]}]})",
         "sweeps[0].axes: 3 entries exceed the limit of 2"},
        {"unknown sqlite tunable in a sweep",
         minimal(R"(, "sweeps": [{"name": "s", "axes": [{"parameter": "inline_size", "values": ["1"]}]}])"),
         "sweeps[0]: sweep 's': unknown tunable 'inline_size'"},
        {"bad sqlite value in a sweep",
         minimal(R"(, "sweeps": [{"name": "s", "axes": [{"parameter": "mmap_size", "values": ["lots"]}]}])"),
         "parameter mmap_size: 'lots' is not valid"},
        {"bad sqlite tunable value", minimal(R"(, "parameters": {"sqlite": {"journal_mode": "sideways"}})"),
         "parameters.sqlite: parameter journal_mode: 'sideways' is not valid"},
        {"tunable not a string", minimal(R"(, "parameters": {"sqlite": {"mmap_size": 5}})"),
         "parameters.sqlite.mmap_size: expected a string, found a number"},
        {"connection without engine", R"({"formatVersion": 1, "connections": [{"name": "c", "target": "x"}]})",
         "connections[0].engine: missing"},
        {"link latency out of range",
         R"({"formatVersion": 1, "connections": [{"name": "c", "engine": "sqlite", "target": "x", "link": {"latencyUpMs": -1}}]})",
         "connections[0].link.latencyUpMs: expected a whole number in 0..3600000"},
        {"conninfo password",
         R"({"formatVersion": 1, "connections": [{"name": "c", "engine": "postgres", "target": "host=h password=secret"}]})",
         "connections[0].target: holds a password"},
        {"URI password",
         R"({"formatVersion": 1, "connections": [{"name": "c", "engine": "postgres", "target": "postgresql://u:secret@h/db"}]})",
         "connections[0].target: holds a password"},
        {"current connection out of range", minimal(R"(, "currentConnection": 3)"),
         "currentConnection: expected a whole number in 0..0"},
        {"run without id", R"({"formatVersion": 1, "history": [{"samples": []}]})", "history[0].runId: missing"},
        {"sample rows as text",
         R"({"formatVersion": 1, "history": [{"runId": "r", "samples": [{"scenario": "a", "repetition": 0, "phases": {}, "status": "complete"}, {"scenario": "a", "repetition": 1, "phases": {}, "status": "complete", "rows": "many"}]}]})",
         "history[0].samples[1].rows: expected a whole number, found a string"},
        {"sample with unknown status",
         R"({"formatVersion": 1, "history": [{"runId": "r", "samples": [{"scenario": "a", "repetition": 0, "phases": {}, "status": "great"}]}]})",
         "history[0].samples[0].status: 'great' is not one of complete, failed, cancelled"},
        {"sample with negative time",
         R"({"formatVersion": 1, "history": [{"runId": "r", "samples": [{"scenario": "a", "repetition": 0, "phases": {"fetchNs": -5}, "status": "complete"}]}]})",
         "history[0].samples[0].phases.fetchNs: expected a whole number in 0.."},
        {"sample with unknown key",
         R"({"formatVersion": 1, "history": [{"runId": "r", "samples": [{"scenario": "a", "repetition": 0, "phases": {}, "status": "complete", "password": "x"}]}]})",
         "history[0].samples[0].password: unknown key"},
        {"sample missing phases",
         R"({"formatVersion": 1, "history": [{"runId": "r", "samples": [{"scenario": "a", "repetition": 0, "status": "complete"}]}]})",
         "history[0].samples[0].phases: missing"},
        {"defaults with a wrong type",
         R"({"formatVersion": 1, "history": [{"runId": "r", "sampleDefaults": [{"scenario": "a", "values": {"rows": true}}], "samples": [{"scenario": "a", "repetition": 0, "phases": {}, "status": "complete"}]}]})",
         "history[0].sampleDefaults[0].values.rows: expected a whole number, found a boolean"},
        {"defaults without status, sample without status",
         R"({"formatVersion": 1, "history": [{"runId": "r", "sampleDefaults": [{"scenario": "a", "values": {"rows": 1}}], "samples": [{"scenario": "a", "repetition": 0, "phases": {}}]}]})",
         "history[0].samples[0].status: missing"},
        {"sample without scenario",
         R"({"formatVersion": 1, "history": [{"runId": "r", "samples": [{"repetition": 0, "phases": {}, "status": "complete"}]}]})",
         "history[0].samples[0].scenario: missing"},
        {"two groups for one point",
         R"({"formatVersion": 1, "history": [{"runId": "r", "sampleDefaults": [{"scenario": "a", "values": {}}, {"scenario": "a", "values": {}}]}]})",
         "history[0].sampleDefaults[1]: a second group for scenario 'a'"},
        {"wire counters wrong",
         R"({"formatVersion": 1, "history": [{"runId": "r", "samples": [{"scenario": "a", "repetition": 0, "phases": {}, "status": "complete", "wire": {"tap": {"available": 1}}}]}]})",
         "history[0].samples[0].wire.tap.available: expected true or false, found a number"},
        {"wire counting method unknown",
         R"({"formatVersion": 1, "history": [{"runId": "r", "samples": [{"scenario": "a", "repetition": 0, "phases": {}, "status": "complete", "wire": {"tap": {"available": true, "method": "guess"}}}]}]})",
         "history[0].samples[0].wire.tap.method: "},
        {"chart settings not an object", minimal(R"(, "chartSettings": [])"), "chartSettings: expected an object"},
        {"what-if axis unknown", minimal(R"(, "whatIf": {"axis": "rows"})"), "whatIf.axis: 'rows' is not one of"},
        {"what-if latency negative", minimal(R"(, "whatIf": {"link": {"latencyUpMs": -1}})"),
         "whatIf.link.latencyUpMs"},
        {"what-if key unknown", minimal(R"(, "whatIf": {"on": true})"), "whatIf.on: unknown key"},
    };
    for (const auto& c : corpus) {
        SCOPED_TRACE(c.what);
        const std::string message = refusal(c.bytes);
        EXPECT_NE(message.find(c.message), std::string::npos) << c.what << ": got \"" << message << "\"";
        EXPECT_EQ(message.find('\n'), std::string::npos) << c.what << ": not one line: " << message;
    }
    // And the corpus's valid base is accepted.
    EXPECT_EQ(refusal(minimal()), "accepted");
}

TEST(ProjectFile, HostileSizesAreRefusedWithoutCrashing) {
    // Nesting far beyond any project, in the free-form chart settings.
    QByteArray deep = minimal().chopped(1) + ", \"chartSettings\": {\"a\": " + QByteArray(100000, '[') +
                      QByteArray(100000, ']') + "}}";
    EXPECT_NE(refusal(deep).find("nested deeper than 32 levels"), std::string::npos) << refusal(deep);
    // A 100 MB string: refused from the raw bytes, before the parser copies it.
    QByteArray huge = R"({"formatVersion": 1, "scenarios": [{"id": "a", "sql": ")";
    huge += QByteArray(100 * 1024 * 1024, 'x');
    huge += "\"}]}";
    EXPECT_NE(refusal(huge).find("line 1: a string longer than 8388608 bytes"), std::string::npos);
    huge.clear();
    // Text above the 1 Mi character limit but within the raw-byte guard: refused with its path.
    QByteArray long2 = R"({"formatVersion": 1, "scenarios": [{"id": "a", "sql": ")";
    long2 += QByteArray(2 * 1024 * 1024, 'y');
    long2 += "\"}]}";
    EXPECT_NE(refusal(long2).find("scenarios[0].sql: string of 2097152 characters is longer than the limit"),
              std::string::npos)
        << refusal(long2).substr(0, 200);
    // A file above the size limit is refused before it is read (a sparse file: no disk used).
    TempDir dir;
    const std::string big = dir.file("big.blobbench.json");
    std::filesystem::resize_file((std::ofstream(big), big), static_cast<std::uintmax_t>(kMaxProjectFileBytes) + 1);
    try {
        loadProject(q(big));
        FAIL() << "accepted a file above the limit";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("exceed the limit"), std::string::npos) << e.what();
    }
    // A missing file: Io, naming it.
    try {
        loadProject(q(dir.file("missing.blobbench.json")));
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Io);
        EXPECT_NE(std::string(e.what()).find("missing.blobbench.json"), std::string::npos);
    }
}

TEST(ProjectFile, ErrorsNameTheFile) {
    TempDir dir;
    const std::string path = dir.file("broken.blobbench.json");
    test::writeFile(path, R"({"formatVersion": 1, "scenarios": [{"id": 5, "sql": "x"}]})");
    try {
        loadProject(q(path));
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), path + ": scenarios[0].id: expected a string, found a number");
    }
}

TEST(ProjectFile, NeverWritesAPasswordAndKeepsTheOldFile) {
    TempDir dir;
    const QString path = q(dir.file("p.blobbench.json"));
    Project p = richProject();
    saveProject(path, p);
    QFile before(path);
    ASSERT_TRUE(before.open(QIODevice::ReadOnly));
    const QByteArray old = before.readAll();
    before.close();
    p.connections[1].target = QStringLiteral("postgresql://postgres:hunter2@127.0.0.1/blob_test");
    try {
        saveProject(path, p);
        FAIL() << "saved a password";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("connections[1].target: holds a password"), std::string::npos);
        EXPECT_EQ(std::string(e.what()).find("hunter2"), std::string::npos);
    }
    p.connections[1].target = QStringLiteral("host=127.0.0.1 dbname=blob_test password='se cret'");
    EXPECT_THROW(saveProject(path, p), Error);
    QFile after(path);
    ASSERT_TRUE(after.open(QIODevice::ReadOnly));
    EXPECT_EQ(after.readAll(), old);
    EXPECT_FALSE(old.contains("hunter2"));
    // A folder that does not exist: Io naming the file.
    try {
        saveProject(q(dir.file("no/such/dir/p.blobbench.json")), richProject());
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Io);
        EXPECT_NE(std::string(e.what()).find("no/such/dir/p.blobbench.json"), std::string::npos);
    }
}

TEST(ProjectFile, RecognisedByNameOrContent) {
    TempDir dir;
    const QString other = q(dir.file("study.json"));
    saveProject(other, richProject());
    EXPECT_TRUE(looksLikeProjectFile(other));
    EXPECT_TRUE(looksLikeProjectFile(QStringLiteral("/nowhere/x.blobbench.json")));
    const std::string samples = dir.file("samples.json");
    writeSamplesJson(q(samples), SessionInfo{}, {makeSample("a", 0, 1)});
    EXPECT_FALSE(looksLikeProjectFile(q(samples)));
    EXPECT_FALSE(looksLikeProjectFile(QStringLiteral("sqlite:/tmp/ref.sqlite")));
    EXPECT_FALSE(looksLikeProjectFile(QStringLiteral("/tmp")));
}

TEST(ProjectHistory, DocumentRecordsRunsAndTheyPersist) {
    ProjectDocument doc;
    doc.reset(defaultProject(QStringLiteral("/tmp/ref.sqlite")));
    RunRecord r;
    r.runId = QStringLiteral("run-1");
    r.machine = QStringLiteral("host");
    doc.beginRun(r);
    for (int i = 0; i < 4; ++i) {
        doc.appendSample(QStringLiteral("run-1"), makeSample("all-blobs", i, 10 + i));
    }
    EXPECT_TRUE(doc.isDirty());
    doc.finishRun(QStringLiteral("run-1"), QStringLiteral("complete"));
    TempDir dir;
    const QString path = q(dir.file("h.blobbench.json"));
    saveProject(path, doc.project());
    const Project loaded = loadProject(path);
    ASSERT_EQ(loaded.history.size(), 1u);
    EXPECT_EQ(loaded.history[0].samples.size(), 4u);
    EXPECT_EQ(loaded.history[0].outcome, QStringLiteral("complete"));
    EXPECT_FALSE(loaded.history[0].finishedAt.isEmpty());
    EXPECT_EQ(findRun(loaded, QStringLiteral("last")), &loaded.history[0]);
    EXPECT_EQ(findRun(loaded, QStringLiteral("run-1")), &loaded.history[0]);
    EXPECT_EQ(findRun(loaded, QStringLiteral("-1")), &loaded.history[0]);
    EXPECT_EQ(findRun(loaded, QStringLiteral("previous")), nullptr);
    EXPECT_EQ(findRun(loaded, QStringLiteral("nope")), nullptr);
}

TEST(RunComparison, SummariesPerScenarioAndPoint) {
    std::vector<Sample> samples;
    for (const char* mmap : {"1048576", "0", "65536"}) {
        for (int rep = 0; rep < 5; ++rep) {
            samples.push_back(makeSample("all-blobs", rep, 10 + rep, {{"mmap_size", mmap}}));
        }
    }
    Sample failed = makeSample("all-blobs", 5, 1, {{"mmap_size", "0"}});
    failed.status = SampleStatus::Failed;
    samples.push_back(failed);
    const auto summaries = summariseSamples(samples);
    ASSERT_EQ(summaries.size(), 3u);
    // Points in numeric order, not text order.
    EXPECT_EQ(summaries[0].point.at("mmap_size"), "0");
    EXPECT_EQ(summaries[1].point.at("mmap_size"), "65536");
    EXPECT_EQ(summaries[2].point.at("mmap_size"), "1048576");
    EXPECT_EQ(summaries[0].elapsed.count, 5u);
    EXPECT_EQ(summaries[0].failed, 1u);
    EXPECT_NEAR(summaries[0].elapsed.median, 12.0, 1e-9);
    EXPECT_NEAR(*summaries[0].medianRecvBytes, 3'200'000, 1e-9);
    EXPECT_NEAR(*summaries[0].medianRoundTrips, 7, 1e-9);
}

TEST(RunComparison, RatioAndSignificance) {
    std::vector<Sample> base;
    std::vector<Sample> faster;
    std::vector<Sample> same;
    for (int rep = 0; rep < 6; ++rep) {
        base.push_back(makeSample("all-blobs", rep, 20 + rep * 0.1));
        faster.push_back(makeSample("all-blobs", rep, 10 + rep * 0.1));
        same.push_back(makeSample("all-blobs", rep, 20 + ((rep * 7) % 6) * 0.1 + 0.05));
    }
    base.push_back(makeSample("gone", 0, 1));
    faster.push_back(makeSample("new", 0, 1));
    const auto rows = compareRuns(base, faster);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].scenarioId, QStringLiteral("all-blobs"));
    ASSERT_TRUE(rows[0].ratio.has_value());
    EXPECT_NEAR(*rows[0].ratio, 10.25 / 20.25, 1e-9);
    EXPECT_TRUE(rows[0].significant);
    EXPECT_TRUE(rows[0].test.exact);
    EXPECT_NEAR(rows[0].test.pValue, 2.0 / 924.0, 1e-12);  // complete separation, 6 + 6
    EXPECT_EQ(rows[1].scenarioId, QStringLiteral("new"));
    EXPECT_FALSE(rows[1].base.has_value());
    EXPECT_EQ(rows[2].scenarioId, QStringLiteral("gone"));
    EXPECT_FALSE(rows[2].candidate.has_value());
    const auto unchanged = compareRuns(base, same);
    EXPECT_FALSE(unchanged[0].significant);
    EXPECT_NEAR(*unchanged[0].ratio, 1.0, 0.01);
}

// A storage study's run: single-value samples, one of them computed and not timed, with per-step
// figures in `negotiated`, and no server or client version (embedded files).
TEST(MarkdownExport, RunSummaryOfSingleValueSamples) {
    RunRecord run;
    run.runId = QStringLiteral("2026-12-01T13:00:57.785Z");
    Sample read = makeSample("keyed", 0, 6.11, {{"phase", "read"}, {"path", "sql"}});
    read.scalarLabel = "us/value";
    read.scalar = "6.11";
    read.negotiated = {{"MB/s", "1637.1"}, {"check", "not checked"}};
    Sample footprint = makeSample("keyed", 0, 0, {{"phase", "footprint"}});
    footprint.scalarLabel = "footprint SQLite / files";
    footprint.scalar = "0.887";
    footprint.negotiated = {{"check", "not checked"}};
    for (Sample* s : {&read, &footprint}) {
        s->serverVersion.clear();
        s->clientVersion.clear();
    }
    run.samples = {read, footprint};
    const QString md = markdownRunSummary(run);
    EXPECT_TRUE(md.contains(QStringLiteral("- Engine: sqlite\n"))) << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral("- Negotiated: check=not checked\n"))) << md.toStdString();
    EXPECT_FALSE(md.contains(QStringLiteral("MB/s=1637.1"))) << "one step's figure is not the run's";
    EXPECT_TRUE(md.contains(QStringLiteral("| Failed | Figure |"))) << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral("| 6.110 | 6.110 | 6.110 |"))) << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral("| 6.11 us/value |"))) << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral("| phase=footprint | 1 | n/a | n/a | n/a | n/a | n/a | n/a |")))
        << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral("| 0.887 footprint SQLite / files |"))) << md.toStdString();
    // An ordinary run has no Figure column.
    run.samples = {makeSample("all-blobs", 0, 11)};
    EXPECT_FALSE(markdownRunSummary(run).contains(QStringLiteral("Figure")));
}

TEST(MarkdownExport, RunSummaryAndComparison) {
    Project p = richProject();
    RunRecord& run = p.history[0];
    run.samples[0].scenarioTitle = "Pipes | in | titles";
    const QString md = markdownRunSummary(run);
    EXPECT_TRUE(md.startsWith(QStringLiteral("## BlobBench run 2026-11-29T10:00:00.000Z\n")));
    EXPECT_TRUE(md.contains(QStringLiteral("- Machine: build-host\n")));
    EXPECT_TRUE(md.contains(QStringLiteral("| Scenario | Point | n | Median ms |")));
    EXPECT_TRUE(md.contains(QStringLiteral("| Pipes &#124; in &#124; titles | blob_api=false | 3 | 11.0 |")))
        << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral("| Test read warm-up | - | 1 | 3.250 |"))) << md.toStdString();
    RunRecord newer = run;
    newer.runId = QStringLiteral("new");
    const QString cmp = markdownComparison(run, newer, compareRuns(run.samples, newer.samples));
    EXPECT_TRUE(cmp.contains(QStringLiteral("## Comparison: new vs base 2026-11-29T10:00:00.000Z")));
    EXPECT_TRUE(cmp.contains(QStringLiteral("| 1.000 |"))) << cmp.toStdString();
    EXPECT_TRUE(cmp.contains(QStringLiteral("| no |")));
    EXPECT_TRUE(cmp.contains(QStringLiteral("| Round trips base/new |")));
    EXPECT_FALSE(cmp.contains(QStringLiteral("read different data"))) << cmp.toStdString();
    // Two servers prepared with different data sets (e.g. Firebird 3 with 200 rows, 5 with 10,000):
    // the comparison says its ratios are not about the setting.
    RunRecord otherData = run;
    otherData.runId = QStringLiteral("other");
    for (auto& sample : otherData.samples) {
        sample.contentBytes *= 50;
    }
    const QString cmp2 = markdownComparison(run, otherData, compareRuns(run.samples, otherData.samples));
    EXPECT_TRUE(cmp2.contains(QStringLiteral("The two runs read different data in: "))) << cmp2.toStdString();
    TempDir dir;
    writeMarkdown(q(dir.file("s.md")), md);
    QFile f(q(dir.file("s.md")));
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_EQ(QString::fromUtf8(f.readAll()), md);
}

TEST(SampleCsv, ParsedBackWithPointsAndQuoting) {
    std::vector<Sample> samples = {makeSample("all-blobs", 0, 12.5, {{"blob_api", "true"}, {"mmap_size", "0"}}),
                                   makeSample("varchar", 1, 3)};
    samples[1].status = SampleStatus::Failed;
    samples[1].error = "near \"FROM\": syntax error,\nsecond line";
    samples[1].partial = true;
    samples[1].disturbed = "the client was stopped for 7.0 s";
    TempDir dir;
    const std::string path = dir.file("s.csv");
    writeSamplesCsv(q(path), samples);
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto rows = parseCsv(text);
    ASSERT_EQ(rows.size(), 3u);
    const auto& header = rows[0];
    ASSERT_EQ(header.back(), "point");
    for (const auto& row : rows) {
        EXPECT_EQ(row.size(), header.size());
    }
    auto col = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    };
    EXPECT_EQ(rows[1][col("scenario")], "all-blobs");
    EXPECT_EQ(rows[1][col("elapsed_ms")], "12.500");
    EXPECT_EQ(rows[1][col("rows")], "300");
    EXPECT_EQ(rows[1][col("point")], "blob_api=true;mmap_size=0");
    EXPECT_EQ(rows[1][col("parameters")], "blob_api=true;mmap_size=0");
    EXPECT_EQ(rows[2][col("point")], "");
    EXPECT_EQ(rows[2][col("status")], "failed");
    EXPECT_EQ(rows[2][col("error")], samples[1].error);
    // A sample measured only up to its failure, or while the client was stopped, says so.
    ASSERT_LT(col("partial"), header.size());
    ASSERT_LT(col("disturbed"), header.size());
    EXPECT_EQ(rows[1][col("partial")], "false");
    EXPECT_EQ(rows[1][col("disturbed")], "");
    EXPECT_EQ(rows[2][col("partial")], "true");
    EXPECT_EQ(rows[2][col("disturbed")], samples[1].disturbed);
}

TEST(SampleJson, PointSurvivesJson) {
    const Sample s = makeSample("a", 0, 1, {{"max_inline_blob_size", "65535"}});
    const Sample back = sampleFromJson(sampleToJson(s));
    EXPECT_EQ(back.point, s.point);
    EXPECT_FALSE(sampleToJson(makeSample("a", 0, 1)).contains(QStringLiteral("point")));
}

TEST(ProjectFile, TheDocumentedExampleLoads) {
    QFile doc(QStringLiteral(BLOBBENCH_SOURCE_DIR "/docs/project-format.md"));
    ASSERT_TRUE(doc.open(QIODevice::ReadOnly));
    const QByteArray text = doc.readAll();
    const qsizetype start = text.indexOf("```json\n");
    ASSERT_GE(start, 0);
    const qsizetype end = text.indexOf("```", start + 8);
    const QByteArray example = text.mid(start + 8, end - start - 8);
    const Project p = projectFromJson(example);
    ASSERT_EQ(p.history.size(), 1u);
    ASSERT_EQ(p.history[0].samples.size(), 2u);
    EXPECT_EQ(p.history[0].samples[1].point.at("max_inline_blob_size"), "0");
    EXPECT_EQ(p.history[0].samples[1].rows, 10000u);
    EXPECT_EQ(p.history[0].samples[0].engine, "firebird");  // from sampleDefaults
    EXPECT_EQ(expandSweep(p.sweeps[0].toSpec()).size(), 14u);
}

TEST(ProjectFile, SeedsRoundTripOrAreRefused) {
    Project p = richProject();
    p.sweeps[0].seed = (1ULL << 63) - 1;
    p.history[0].orderSeed = (1ULL << 53) + 1;
    const Project back = projectFromJson(projectToJson(p));
    EXPECT_EQ(back.sweeps[0].seed, p.sweeps[0].seed);
    EXPECT_EQ(back.history[0].orderSeed, p.history[0].orderSeed);
    p.history[0].orderSeed = 1ULL << 63;
    EXPECT_THROW(projectToJson(p), Error);
}

TEST(SampleJson, FastFieldsAgreeWithSampleToJson) {
    std::vector<Sample> samples = richProject().history[0].samples;
    Sample odd = makeSample("x", 2, 0.001);
    odd.tap = WireStats::of(WireCounters{1, 2, 3, 4, std::nullopt});
    odd.error = std::string("control \x01 chars, \"quotes\", back\\slash, unicode \xc3\xa9, tab\t");
    odd.effects.push_back({"k", "v", "", false, "why\nnot"});
    odd.phases.fetch = Nanos(std::int64_t(1) << 60);
    odd.contentBytes = std::uint64_t(1) << 62;
    ExchangeTrace trace;
    trace.exchanges.push_back(Exchange{36, 16'384, Nanos(5'000), Nanos(0), Nanos(41'000), Nanos(12'000)});
    trace.trailingSendBytes = 24;
    odd.trace = trace;
    samples.push_back(odd);
    for (const auto& s : samples) {
        QByteArray line = "{";
        const char* previous = "";
        for (const auto& [key, value] : sampleJsonFields(s)) {
            EXPECT_LT(std::strcmp(previous, key), 0) << "keys out of order at " << key;
            previous = key;
            line += (line.size() > 1 ? ",\"" : "\"") + QByteArray(key) + "\":" + value;
        }
        line += '}';
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
        ASSERT_EQ(error.error, QJsonParseError::NoError) << error.errorString().toStdString() << line.toStdString();
        EXPECT_EQ(doc.object(), sampleToJson(s)) << line.toStdString();
        Sample back = makeSample("other", 9, 99);  // applied onto a different sample (no point: keys absent stay)
        back.maxId.reset();
        back.scalar.reset();
        back.error.clear();
        applySampleJson(back, doc.object());
        EXPECT_EQ(sampleToJson(back), sampleToJson(s));
    }
}

TEST(ProjectFile, ExchangeTracesRoundTripAndOldFilesLoadWithout) {
    Project p = richProject();
    ExchangeTrace trace;
    for (int i = 0; i < 1000; ++i) {
        trace.exchanges.push_back(
            Exchange{40, 300u + static_cast<unsigned>(i % 5), Nanos(3'000), Nanos(0), Nanos(50'000 + i), Nanos(1'000)});
    }
    trace.leadingRecvBytes = 9;
    p.history[0].samples[0].trace = trace;
    const Project back = projectFromJson(projectToJson(p));
    ASSERT_TRUE(back.history[0].samples[0].trace);
    EXPECT_EQ(*back.history[0].samples[0].trace, roundedToMicroseconds(trace));
    EXPECT_FALSE(back.history[0].samples[1].trace);  // saved without one: loads without one

    QByteArray text = projectToJson(p);
    const QByteArray encoded = traceToBase64(trace);
    ASSERT_TRUE(text.contains(encoded));
    const QByteArray damaged = encoded.left(encoded.size() / 2) + QByteArray("AAAA");
    text.replace(encoded, damaged);
    try {
        projectFromJson(text);
        ADD_FAILURE() << "a damaged trace was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Data);
        EXPECT_NE(std::string(e.what()).find("wire.trace: exchange trace:"), std::string::npos) << e.what();
    }
}

TEST(ProjectFile, WhatIfSettingsRoundTripAndOldFilesLoadWithDefaults) {
    Project p = richProject();
    EXPECT_EQ(projectToJson(p).indexOf("\"whatIf\""), -1) << "defaults are not written: older readers stay happy";
    p.whatIf.enabled = true;
    p.whatIf.link = LinkSettings{40, 40, 512'000, 2'000'000};
    p.whatIf.axis = QStringLiteral("bandwidth");
    const QByteArray bytes = projectToJson(p);
    const Project loaded = projectFromJson(bytes);
    EXPECT_EQ(loaded.whatIf, p.whatIf);
    EXPECT_EQ(projectToJson(loaded), bytes);
    // A file written before the what-if panel: it loads, the panel off at an unshaped link.
    const Project old = projectFromJson(R"({"formatVersion": 1, "name": "old"})");
    EXPECT_EQ(old.whatIf, WhatIfSettings{});
    EXPECT_FALSE(old.whatIf.enabled);
}

// Hostile round 5b: a project run of 2 repetitions, the second stopped 4 s by SIGSTOP, printed a
// median of 3352 ms (1526 and 5178) with no word of it; the sample said "disturbed" only in the JSON.
TEST(MarkdownExport, RunSummaryNamesTheDisturbedSamplesItCounts) {
    Project p = richProject();
    RunRecord& run = p.history[0];
    EXPECT_FALSE(markdownRunSummary(run).contains(QStringLiteral("Disturbed"))) << "none disturbed";
    run.samples[1].disturbed = "the client was stopped or suspended for 4.0 s during the sample";
    run.samples[1].repetition = 1;
    const QString md = markdownRunSummary(run);
    EXPECT_TRUE(md.contains(QStringLiteral("Disturbed samples (counted in the figures above):"))) << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral(", repetition 2: the client was stopped or suspended for 4.0 s")))
        << md.toStdString();
}
