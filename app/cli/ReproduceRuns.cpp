#include "app/cli/ReproduceRuns.h"

#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>

#include "app/cli/StallGuard.h"
#include "engine/core/CancelToken.h"
#include "engine/core/Error.h"
#include "engine/data/Dataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "engine/drivers/postgres/ByteaExperiment.h"
#include "engine/run/Runner.h"
#include "engine/storage/KeyedStudy.h"
#include "engine/wire/WireParameters.h"
#include "engine/wire/WireTap.h"

namespace blobbench::cli {
namespace {

constexpr std::uint64_t kArticleRows = 1000;
constexpr int kDefaultInline = 65535;

double ms(Nanos t) {
    return std::chrono::duration<double, std::milli>(t).count();
}

// Every published cell of the run's publication whose id maps to a measured value gets it, with
// the conditions of the run that measured it; `key` strips what the id says of the published column.
void fill(Measurement& m, const Publication& p, const std::map<std::string, double>& values,
          const std::map<std::string, std::vector<Condition>>& conditionsOf,
          const std::function<std::string(const std::string&)>& key) {
    for (const PublishedCell& c : p.cells) {
        MeasuredCell cell;
        cell.id = c.id;
        const std::string k = key(c.id);
        if (const auto it = values.find(k); it != values.end()) {
            cell.value = it->second;
        } else {
            cell.missing = "this experiment does not measure it";
        }
        if (const auto it = conditionsOf.find(k); it != conditionsOf.end()) {
            cell.conditions = it->second;
        }
        m.cells.push_back(std::move(cell));
    }
}

// ------------------------------------------------------------------------------------------ Firebird

class DatasetCheck final : public RunObserver {
public:
    std::string target;
    std::optional<DatasetSummary> dataset;
    void checkSession(Session& session) override {
        requireDataset(session, "reproduce: blobbench-cli prepare " + target);
        dataset = readDatasetSummary(session);
    }
};

// A stopped or suspended client's pause is in the times it disturbed: no verdict is drawn from them (hostile
// round 5m S3: a 4 s stop turned "reproduced" into "differs"; round 5n S7 the same in the SQLite and
// Firebird publications). `isTime` picks the cells made of times; counts and bytes keep their verdicts.
void withholdDisturbedTimes(Measurement& m, const std::string& disturbed,
                            const std::function<bool(const std::string&)>& isTime) {
    if (disturbed.empty()) {
        return;
    }
    for (MeasuredCell& cell : m.cells) {
        if (cell.value && isTime(cell.id)) {
            cell.value.reset();
            cell.missing =
                "the client was stopped or suspended during the measured spans: its times include the pause (run it "
                "again)";
        }
    }
    m.method.emplace_back("disturbed", disturbed);
}

struct FirebirdRun {
    std::map<std::string, std::vector<Sample>> samples;  // by scenario id
    std::optional<DatasetSummary> dataset;
    const Sample& first(const std::string& id) const { return samples.at(id).front(); }
    std::string disturbed() const {  // the first measured sample the client's own pause is in, or ""
        for (const auto& [id, of] : samples) {
            for (const Sample& s : of) {
                if (!s.disturbed.empty()) {
                    return s.scenarioTitle + ": " + s.disturbed;
                }
            }
        }
        return {};
    }
    double medianMs(const std::string& id) const {
        std::vector<double> t;
        for (const Sample& s : samples.at(id)) {
            t.push_back(ms(s.phases.elapsed()));
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    }
};

FirebirdRun runFirebird(const ReproduceOptions& o, const LinkProfile& link, bool compression, int inlineSize,
                        const std::vector<std::string>& ids) {
    RunPlan plan;
    plan.runId = isoNow();
    plan.connection = o.connection;
    plan.parameters = {{"wire_compression", compression ? "true" : "false"},
                       {"max_inline_blob_size", std::to_string(inlineSize)}};
    plan.parameters.insert(o.parameters.begin(), o.parameters.end());  // -P wire_stall_timeout_s
    for (const Scenario& s : referenceSuite(Dialect::Firebird)) {
        if (std::find(ids.begin(), ids.end(), s.id) != ids.end()) {
            plan.scenarios.push_back(s);
        }
    }
    plan.repetitions = o.repeat;
    plan.warmups = 1;
    plan.rowLimit = o.rows.value_or(kArticleRows);
    plan.wireTap = true;
    plan.link = link;
    DatasetCheck observer;
    observer.target = o.connection.target;
    Runner runner;
    const RunOutcome outcome = runner.run(plan, observer);
    if (!outcome.ok) {
        throw Error(outcome.errorKind, outcome.error);
    }
    FirebirdRun run;
    run.dataset = observer.dataset;
    for (const Sample& s : outcome.samples) {
        if (s.status != SampleStatus::Complete) {
            throw Error(ErrorKind::Sql, s.scenarioId + ": " + s.error);
        }
        run.samples[s.scenarioId].push_back(s);
    }
    return run;
}

std::string datasetCondition(const std::optional<DatasetSummary>& d) {
    if (!d) {
        return "unknown";
    }
    // The article's figures (../shared/DATASET.md): its 10,000 rows of the project's sources.
    if (d->rows == 10000 && d->contentBytes == 126392558) {
        return "fb-blob-test's (the article's sources)";
    }
    return (d->source.empty() ? std::to_string(d->rows) + " rows" : d->source) + ", " +
           std::to_string(d->contentBytes) + " bytes";
}

std::string effectOf(const Sample& s, const std::string& id, const std::string& fallback) {
    for (const ParameterEffect& e : *s.effects) {
        if (e.id == id) {
            return e.inEffect ? (e.actual.empty() ? e.requested : e.actual) : "not in effect";
        }
    }
    return fallback;
}

std::vector<Condition> conditionsOf(const FirebirdRun& run, const Sample& s, const ReproduceOptions& o,
                                    const std::string& linkName) {
    const auto compression = s.negotiated->find("compression");
    return {{"client", versionIn(s.clientVersion)},
            {"compression", compression == s.negotiated->end() ? "unknown" : compression->second},
            {"rows", std::to_string(o.rows.value_or(kArticleRows))},
            {"max_inline_blob_size", effectOf(s, "max_inline_blob_size", std::to_string(kDefaultInline))},
            {"link", linkName},
            {"data set", datasetCondition(run.dataset)}};
}

// The relay's counts: what the socket carried. (The 5.0 client's logical counters, which the
// article's log prints, count no round trips.)
const WireCounters& countersOf(const Sample& s) {
    return s.tap.counters;
}

void firebirdCounts(const FirebirdRun& off, std::map<std::string, double>& v) {
    for (const std::string id : {"short-blobs", "varchar", "all-blobs", "blob-ids"}) {
        const Sample& s = off.first(id);
        const WireCounters& c = countersOf(s);
        v[id + ".round-trips"] = static_cast<double>(c.roundTrips.value_or(0));
        v[id + ".received-bytes"] = static_cast<double>(c.recvBytes);
        v[id + ".content-bytes"] = static_cast<double>(s.contentBytes);
        v[id + ".rows"] = static_cast<double>(s.rows);
    }
}

std::vector<std::pair<std::string, std::string>> firebirdMethod(const FirebirdRun& off, const ReproduceOptions& o,
                                                                const std::optional<LinkProfile>& fitted) {
    const Sample& any = off.first("all-blobs");
    return {{"server", any.serverVersion},
            {"client", any.clientVersion},
            {"rows", std::to_string(o.rows.value_or(kArticleRows)) + " per query (the client stops fetching: -n)"},
            {"link", fitted ? fitted->describe() + " (emulated by the wire tap)" : "loopback through the wire tap"},
            {"runs",
             "compression off and on (inline BLOBs 65535), and only BLOB ids with inline 0, each on a "
             "session of its own"},
            {"repetitions", "1 warm-up (unmeasured), then " + std::to_string(o.repeat) + " measured (median)"},
            {"transactions", "the driver's default isolation (snapshot)"},
            {"counts",
             "the wire tap's: the exchanges and bytes the relay carried (the article's are the client's own "
             "wire statistics)"},
            {"data set", datasetCondition(off.dataset)}};
}

}  // namespace

std::string versionIn(const std::string& text) {
    static const std::regex dotted(R"(\d+\.\d+(\.\d+)*)");
    std::smatch m;
    return std::regex_search(text, m, dotted) ? m.str() : text;
}

Measurement measureFirebird(const Publication& p, const ReproduceOptions& o, const std::optional<LinkProfile>& fitted) {
    Measurement m;
    m.link = fitted.value_or(LinkProfile{});
    const std::string linkName = fitted ? kFittedLink : std::string("loopback");
    const std::vector<std::string> ids = {"short-blobs", "varchar", "all-blobs", "blob-ids"};
    const FirebirdRun off = runFirebird(o, m.link, false, kDefaultInline, ids);
    const FirebirdRun on = runFirebird(o, m.link, true, kDefaultInline, ids);
    const FirebirdRun inline0 = runFirebird(o, m.link, false, 0, {"blob-ids"});
    std::map<std::string, double> v;
    std::map<std::string, std::vector<Condition>> c;
    for (const std::string id : {"short-blobs", "varchar", "all-blobs"}) {
        v[id + ".time.off"] = off.medianMs(id);
        v[id + ".time.on"] = on.medianMs(id);
        c[id + ".time.off"] = conditionsOf(off, off.first(id), o, linkName);
        c[id + ".time.on"] = conditionsOf(on, on.first(id), o, linkName);
        v[id + ".compression-ratio"] = off.medianMs(id) / on.medianMs(id);
        c[id + ".compression-ratio"] = conditionsOf(off, off.first(id), o, linkName);
        v[id + ".vs-varchar"] = off.medianMs(id) / off.medianMs("varchar");
        c[id + ".vs-varchar"] = c[id + ".compression-ratio"];
    }
    firebirdCounts(off, v);
    for (const std::string& id : ids) {
        for (const std::string q : {".round-trips", ".received-bytes", ".content-bytes", ".rows"}) {
            c[id + q] = conditionsOf(off, off.first(id), o, linkName);
        }
        const Sample& s = off.first(id);
        m.linkSamples.push_back({s.scenarioTitle, static_cast<double>(s.tap.counters.roundTrips.value_or(0)),
                                 static_cast<double>(s.tap.counters.recvBytes), off.medianMs(id) / 1e3});
    }
    v["blob-ids.inline-ratio"] = off.medianMs("blob-ids") / inline0.medianMs("blob-ids");
    c["blob-ids.inline-ratio"] = conditionsOf(off, off.first("blob-ids"), o, linkName);
    static const std::regex column(R"(\.5\.0\.\d)");
    fill(m, p, v, c, [](const std::string& id) { return std::regex_replace(id, column, ""); });
    m.method = firebirdMethod(off, o, fitted);
    for (const FirebirdRun* run : {&off, &on, &inline0}) {
        if (const std::string disturbed = run->disturbed(); !disturbed.empty()) {
            // The times and the ratios of times; round trips, bytes and rows are the wire's.
            withholdDisturbedTimes(m, disturbed, [](const std::string& id) {
                for (const char* count : {".round-trips", ".received-bytes", ".content-bytes", ".rows"}) {
                    if (id.find(count) != std::string::npos) {
                        return false;
                    }
                }
                return true;
            });
            break;
        }
    }
    return m;
}

// ---------------------------------------------------------------------------------------- PostgreSQL

namespace {

// An error of the connection through the relay, said of the connection as the user gave it (the
// relay's conninfo names its port and a stand-in password file) and with what the relay saw.
Error asGiven(const Error& e, const ConnectionSpec& relayed, const ConnectionSpec& given, const WireTap& tap) {
    std::string message = e.what();
    const std::string internal = relayed.label();
    const std::string label = given.label();
    for (std::size_t at = message.find(internal); at != std::string::npos; at = message.find(internal, at)) {
        message.replace(at, internal.size(), label);
        at += label.size();
    }
    // libpq's own words name the port it dialled, the relay's ("port 45749 failed"): the server's instead
    // (hostile round 5h X1).
    if (const auto endpoint = driverById(given.engine).endpoint(given)) {
        const std::string relayed = "port " + std::to_string(tap.port());
        const std::string server = "port " + std::to_string(endpoint->port);
        for (std::size_t at = message.find(relayed); at != std::string::npos; at = message.find(relayed, at)) {
            const std::size_t end = at + relayed.size();
            if (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end])) != 0) {
                at = end;  // a longer number that starts with the relay's
                continue;
            }
            message.replace(at, relayed.size(), server);
            at += server.size();
        }
    }
    if (const std::string relay = tap.stats().lastError; !relay.empty() && message.find(relay) == std::string::npos) {
        message += " (" + relay + ")";
    }
    return Error(e.kind(), message);
}

}  // namespace

Measurement measurePostgres(const Publication& p, const ReproduceOptions& o) {
    const Driver& driver = driverById("postgres");
    const auto endpoint = driver.endpoint(o.connection);
    if (!endpoint) {
        throw Error(ErrorKind::Usage, "reproduce " + p.name +
                                          ": the connection has no TCP endpoint to emulate the "
                                          "link on (a Unix socket?)");
    }
    Measurement m;
    m.link.bandwidthDown = 2'000'000;  // the post's cable: 2 Mbit/s down, 512 kbit/s up; latency not stated
    m.link.bandwidthUp = 512'000;
    WireTap tap(endpoint->host, endpoint->port, m.link);
    const ConnectionSpec spec = driver.redirected(o.connection, Endpoint{"127.0.0.1", tap.port()});
    ByteaExperimentOptions options;
    options.documentBytes = o.size.value_or(2 * 1024 * 1024);
    options.repetitions = o.repeat;
    std::vector<ByteaTrial> trials;
    {
        // A server gone silent ends it after the stall timeout, as `run` (hostile round 5d B1: 80 s and on).
        const StallGuard stalls(driver, spec, stallTimeoutOf(o.parameters), &tap);
        try {
            trials = runByteaExperiment(driver, spec, {}, options, CancelToken{});
        } catch (const Error& e) {
            throw asGiven(stalls.explained(e), spec, o.connection, tap);
        }
    }
    std::map<std::string, const ByteaTrial*> by;
    for (const ByteaTrial& t : trials) {
        if (!t.identical) {
            throw Error(ErrorKind::Sql, "reproduce " + p.name + ": the " + t.path +
                                            " path did not read back the "
                                            "bytes it wrote");
        }
        by[t.path] = &t;
    }
    const ByteaTrial& binary = *by.at("binary");
    const ByteaTrial& escape = *by.at("text escape");
    const ByteaTrial& hex = *by.at("text hex");
    const double mb = static_cast<double>(options.documentBytes) / 1e6;
    const std::string document = mb >= 1.9 && mb <= 2.2 ? "2 MB" : std::to_string(options.documentBytes) + " bytes";
    const std::vector<Condition> base = {{"document", document}, {"link", p.link}};
    auto with = [&](std::string format) {
        std::vector<Condition> c = base;
        c.push_back({"text format", std::move(format)});
        c.push_back({"insert as", "a text parameter (escape: 1 byte -> up to 4)"});
        return c;
    };
    auto s = [](Nanos t) { return std::chrono::duration<double>(t).count(); };
    const std::map<std::string, double> v = {
        {"insert.text.seconds", s(escape.insert)},
        {"insert.binary.seconds", s(binary.insert)},
        {"select.text.seconds", s(escape.select)},
        {"select.binary.seconds", s(binary.select)},
        {"insert.ratio", s(escape.insert) / s(binary.insert)},
        {"select.ratio", s(escape.select) / s(binary.select)},
        {"select.ratio.hex", s(hex.select) / s(binary.select)},
        {"received.ratio.hex", static_cast<double>(hex.receivedBytes) / static_cast<double>(binary.receivedBytes)}};
    std::map<std::string, std::vector<Condition>> c;
    for (const auto& [id, value] : v) {
        c[id] = with(id.ends_with(".hex") ? "hex" : "escape");
    }
    fill(m, p, v, c, [](const std::string& id) { return id; });
    m.method = {{"document", std::to_string(options.documentBytes) + " incompressible bytes"},
                {"link", m.link.describe() + " (emulated by the wire tap; latency not stated, none added)"},
                {"repetitions", std::to_string(o.repeat) + " (median), each path on fresh sessions"},
                {"transactions", "autocommit: one statement each"},
                {"text", escape.how + "; hex: " + hex.how}};
    std::string disturbed;
    for (const ByteaTrial& t : trials) {
        if (!t.disturbed.empty() && disturbed.empty()) {
            disturbed = t.path + ": " + t.disturbed;
        }
    }
    withholdDisturbedTimes(m, disturbed, [](const std::string& id) { return !id.starts_with("received."); });
    return m;
}

// -------------------------------------------------------------------------------------------- SQLite

namespace {

std::string osName() {
    utsname u{};
    return uname(&u) == 0 ? std::string(u.sysname) + " " + u.release : std::string("unknown");
}

const storage::KeyedResult* findResult(const storage::KeyedReport& r, const std::string& phase,
                                       const std::string& store, const std::string& variant) {
    for (const storage::KeyedResult& k : r.results) {
        if (k.phase == phase && k.store == store && (variant.empty() || k.variant == variant)) {
            return &k;
        }
    }
    return nullptr;
}

}  // namespace

namespace {

// The figures the publication states, from the study's results: read and write ratios, footprint.
std::map<std::string, double> keyedValues(const storage::KeyedReport& r) {
    const auto* sql = findResult(r, "read", "sqlite", "sql");
    const auto* mmap = findResult(r, "read", "sqlite", storage::pathName(storage::ReadPath::BlobMmap));
    const auto* files = findResult(r, "read", "files", "");
    const auto* write = findResult(r, "write", "sqlite", "");
    std::map<std::string, double> v;
    if (sql && files && mmap && write) {
        v["read.files-vs-sql"] = v["read.files-vs-sql.windows"] = ms(files->elapsed) / ms(sql->elapsed);
        v["read.files-vs-blob-mmap"] = ms(files->elapsed) / ms(mmap->elapsed);
        v["write.vs-read"] = ms(write->elapsed) / ms(sql->elapsed);
    }
    if (r.footprint) {
        const auto files = static_cast<double>(r.footprint->files.fileAllocated);
        v["footprint.sqlite.bytes"] = static_cast<double>(r.footprint->sqliteBytes);
        v["footprint.files.bytes"] = files;
        v["footprint.ratio"] = static_cast<double>(r.footprint->sqliteBytes) / std::max(1.0, files);
    }
    return v;
}

std::string sqliteVersionOf(const storage::KeyedReport& r) {
    std::string version = "unknown";
    for (const auto& [what, how] : r.method) {
        if (what.find("SQLite") != std::string::npos || what.find("sqlite") != std::string::npos) {
            version = versionIn(how);
        }
    }
    return version;
}

// Runs the study in `dir`; a temporary one is removed whatever happens. `block`: the file system's.
storage::KeyedReport runKeyedIn(const storage::KeyedOptions& k, bool temporary, std::string& block) {
    namespace fs = std::filesystem;
    storage::KeyedReport r;
    try {
        r = storage::runKeyedStudy(k);
        struct statvfs vfs {};
        block = statvfs(k.directory.c_str(), &vfs) == 0 ? std::to_string(vfs.f_bsize) : "unknown";
    } catch (...) {
        if (temporary) {
            fs::remove_all(k.directory);
        }
        throw;
    }
    if (temporary) {
        fs::remove_all(k.directory);
    }
    return r;
}

}  // namespace

std::filesystem::path temporaryReproduceDirectory() {
    return std::filesystem::temp_directory_path() / ("blobbench-reproduce-" + std::to_string(::getpid()));
}

Measurement measureSqlite(const Publication& p, const ReproduceOptions& o) {
    const bool temporary = o.connection.target.empty();
    storage::KeyedOptions k;
    k.directory = temporary ? temporaryReproduceDirectory() : std::filesystem::path(o.connection.target);
    k.count = o.rows.value_or(100000);
    k.paths = {storage::ReadPath::Sql, storage::ReadPath::BlobMmap, storage::ReadPath::Files};
    k.random = false;  // kvtest reads in key order unless --random
    k.updates = false;
    std::string block;
    const storage::KeyedReport r = runKeyedIn(k, temporary, block);
    if (!r.complete()) {
        throw Error(ErrorKind::Io, "reproduce " + p.name + ": " + r.error);
    }
    const std::map<std::string, double> v = keyedValues(r);
    const std::vector<Condition> conditions = {{"values", std::to_string(k.count)},
                                               {"value sizes", "8,000-12,000 bytes"},
                                               {"page size", std::to_string(k.pageSize)},
                                               {"file system block", block},
                                               {"OS", osName()},
                                               {"SQLite", sqliteVersionOf(r)}};
    std::map<std::string, std::vector<Condition>> c;
    for (const auto& [id, value] : v) {
        c[id] = conditions;
    }
    Measurement m;
    fill(m, p, v, c, [](const std::string& id) { return id; });
    m.method = r.method;
    m.method.insert(m.method.begin(), {"values", std::to_string(k.count) + " of 10,000 +- 2,000 incompressible bytes, "
                                                                           "read in key order (kvtest's default)"});
    for (const storage::KeyedResult& result : r.results) {
        if (!result.disturbed.empty()) {
            // The read and write times' ratios; the footprint is the file system's, not a time.
            withholdDisturbedTimes(m, result.disturbed,
                                   [](const std::string& id) { return !id.starts_with("footprint."); });
            break;
        }
    }
    return m;
}

Measurement measureNothing(const Publication& p, const std::string& why) {
    Measurement m;
    for (const PublishedCell& c : p.cells) {
        m.cells.push_back(MeasuredCell{c.id, std::nullopt, why, {}});
    }
    m.method = {{"run", "nothing: " + why}};
    return m;
}

}  // namespace blobbench::cli
