#include "engine/storage/StorageScenario.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "engine/storage/StorageValues.h"

namespace blobbench::storage {
namespace {

const std::vector<std::string> kKinds = {"keyed-read", "footprint", "insert"};
const std::vector<std::string> kKeyedOptions = {
    "directory",   "count",     "size",      "spread",     "values",      "layout",  "fsync", "journal",
    "synchronous", "page-size", "mmap-size", "cache-size", "transaction", "mapping", "copy",  "warmup",
    "paths",       "order",     "reads",     "update",     "verify",      "seed"};
const std::vector<std::string> kInsertOptions = {"connection",   "directory", "rows",    "size",        "values",
                                                 "commit-every", "variants",  "journal", "synchronous", "page-size",
                                                 "fb-page-size", "verify",    "seed"};
const std::vector<std::string> kNone;

bool boolean(const std::string& option, const std::string& text) {
    if (text == "true" || text == "on" || text == "1" || text == "yes") {
        return true;
    }
    if (text == "false" || text == "off" || text == "0" || text == "no") {
        return false;
    }
    throw StudyOptionError(option, "'" + text + "' is not true or false");
}

std::string oneOf(const std::string& option, const std::string& text, std::initializer_list<const char*> choices) {
    std::string list;
    for (const char* c : choices) {
        if (text == c) {
            return text;
        }
        list += (list.empty() ? "" : ", ") + std::string(c);
    }
    throw StudyOptionError(option, "'" + text + "' is not one of " + list);
}

std::string fixed(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

Sample baseSample(const StudyJob& job, const std::string& startedAt) {
    Sample s;
    s.runId = job.runId;
    s.scenarioId = job.scenarioId;
    s.scenarioTitle = job.title;
    s.startedAt = startedAt;
    s.repetition = 0;
    s.parameters = ParameterValues(job.plan.options.begin(), job.plan.options.end());
    return s;
}

}  // namespace

bool isStudyKind(const std::string& kind) {
    return std::find(kKinds.begin(), kKinds.end(), kind) != kKinds.end();
}

const std::vector<std::string>& studyKinds() {
    return kKinds;
}

const std::vector<std::string>& studyOptionNames(const std::string& kind) {
    if (kind == "insert") {
        return kInsertOptions;
    }
    if (kind == "keyed-read" || kind == "footprint") {
        return kKeyedOptions;
    }
    return kNone;
}

std::uint64_t parseSize(const std::string& option, const std::string& text) {
    std::uint64_t value = 0;
    std::string digits = text;
    std::uint64_t scale = 1;
    auto lowerAt = [&](std::size_t fromEnd) {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(digits[digits.size() - fromEnd])));
    };
    const bool binary = digits.size() >= 2 && lowerAt(1) == 'i';
    if (!digits.empty()) {
        const char suffix = binary ? lowerAt(2) : lowerAt(1);
        if (suffix == 'k' || suffix == 'm' || suffix == 'g') {
            const std::uint64_t base = binary ? 1024 : 1000;
            scale = suffix == 'k' ? base : suffix == 'm' ? base * base : base * base * base;
            digits.resize(digits.size() - (binary ? 2 : 1));
        }
    }
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || value > UINT64_MAX / scale) {
        throw StudyOptionError(option,
                               "'" + text + "' is not a whole number (suffixes k, m, g: 1000s; Ki, Mi, Gi: 1024s)");
    }
    return value * scale;
}

StudyPlan parseStudy(const std::string& kind, const StudyOptions& options, std::uint64_t rowLimit) {
    if (!isStudyKind(kind)) {
        throw StudyOptionError("kind", "'" + kind + "' is not a storage study (keyed-read, footprint, insert)");
    }
    StudyPlan p;
    p.kind = kind;
    const auto& names = studyOptionNames(kind);
    for (const auto& [name, value] : options) {
        if (std::find(names.begin(), names.end(), name) == names.end()) {
            std::string list;
            for (const auto& n : names) {
                list += (list.empty() ? "" : ", ") + n;
            }
            throw StudyOptionError(name, "unknown option of " + kind + " (" + list + ")");
        }
    }
    auto has = [&](const char* name) { return options.count(name) != 0; };
    auto get = [&](const char* name) { return options.at(name); };
    auto& k = p.keyed;
    auto& in = p.insert;
    if (has("directory")) {
        p.directory = get("directory");
        if (p.directory.empty()) {
            throw StudyOptionError("directory", "empty");
        }
    }
    if (has("connection")) {
        p.connection = get("connection");
    }
    try {
        if (has("count")) {
            k.count = parseSize("count", get("count"));
            checkCount("count", k.count, 100'000'000);
        }
        if (has("rows")) {
            in.rows = parseSize("rows", get("rows"));
            checkCount("rows", in.rows, 100'000'000);
        }
        if (has("size")) {
            k.shape.meanBytes = in.valueBytes = parseSize("size", get("size"));
            checkCount("size", in.valueBytes, 256ULL << 20);
            if (!has("spread")) {
                k.shape.spreadBytes = std::min(k.shape.spreadBytes, k.shape.meanBytes / 5);
            }
        }
    } catch (const StudyOptionError&) {
        throw;
    } catch (const Error& e) {  // checkCount: "rows: 0 is out of range 1..N"
        const std::string text = e.what();
        const auto colon = text.find(": ");
        throw StudyOptionError(text.substr(0, colon), colon == std::string::npos ? text : text.substr(colon + 2));
    }
    if (has("spread")) {
        k.shape.spreadBytes = parseSize("spread", get("spread"));
        if (k.shape.spreadBytes >= k.shape.meanBytes) {
            throw StudyOptionError("spread", std::to_string(k.shape.spreadBytes) +
                                                 " must be smaller than the value size " +
                                                 std::to_string(k.shape.meanBytes));
        }
    }
    if (has("values")) {
        const std::string v = oneOf("values", get("values"), {"bytes", "text", "compressible-text"});
        k.shape.text = in.text = v != "bytes";
        k.shape.compressible = in.compressible = v == "compressible-text";
    } else {
        k.shape.text = false;  // keyed: incompressible; insert: text (the CLOB of the original study)
        in.text = true;
    }
    if (has("layout")) {
        k.layout = oneOf("layout", get("layout"), {"flat", "tree"}) == "flat" ? FileLayout::Flat : FileLayout::Tree;
    }
    if (has("fsync")) {
        k.fsync = boolean("fsync", get("fsync"));
    }
    if (has("journal")) {
        k.journalMode = in.journalMode =
            oneOf("journal", get("journal"), {"wal", "delete", "truncate", "persist", "memory", "off"});
    }
    if (has("synchronous")) {
        k.synchronous = in.synchronous = oneOf("synchronous", get("synchronous"), {"off", "normal", "full", "extra"});
    }
    if (has("page-size")) {
        const std::uint64_t n = parseSize("page-size", get("page-size"));
        if (n < 512 || n > 65536 || (n & (n - 1)) != 0) {
            throw StudyOptionError("page-size", std::to_string(n) + " is not a power of two from 512 to 65536");
        }
        k.pageSize = in.pageSize = static_cast<std::int64_t>(n);
    }
    if (has("fb-page-size")) {
        const std::uint64_t n = parseSize("fb-page-size", get("fb-page-size"));
        if (n != 0 && n != 4096 && n != 8192 && n != 16384 && n != 32768) {
            throw StudyOptionError("fb-page-size", std::to_string(n) + " is not one of 4096, 8192, 16384, 32768");
        }
        in.firebirdPageSize = static_cast<std::int64_t>(n);
    }
    if (has("mmap-size")) {
        k.mmapSize =
            static_cast<std::int64_t>(std::min<std::uint64_t>(parseSize("mmap-size", get("mmap-size")), INT64_MAX));
    }
    if (has("cache-size")) {
        const std::uint64_t n = parseSize("cache-size", get("cache-size"));
        if (n == 0 || n > 1'000'000'000) {
            throw StudyOptionError("cache-size", std::to_string(n) + " is not a page count from 1 to 1g");
        }
        k.cacheSize = static_cast<std::int64_t>(n);
    }
    if (has("transaction")) {
        k.transaction = oneOf("transaction", get("transaction"), {"loop", "per-read"}) == "loop"
                            ? TransactionMode::Loop
                            : TransactionMode::PerRead;
    }
    if (has("mapping")) {
        k.mapping =
            oneOf("mapping", get("mapping"), {"cold", "warm"}) == "cold" ? MappingMode::Cold : MappingMode::Warm;
    }
    if (has("copy")) {
        k.copyValues = boolean("copy", get("copy"));
    }
    if (has("warmup")) {
        k.warmup = boolean("warmup", get("warmup"));
    }
    if (has("paths")) {
        try {
            k.paths = parsePaths(get("paths"));
        } catch (const Error& e) {
            const std::string text = e.what();
            throw StudyOptionError("paths", text.substr(text.find(": ") + 2));
        }
    }
    if (has("order")) {
        const std::string order = oneOf("order", get("order"), {"ascending", "random", "both", "random-first"});
        k.ascending = order != "random";
        k.random = order != "ascending";
        k.randomFirst = order == "random-first";
    }
    if (has("reads")) {
        k.reads = boolean("reads", get("reads"));
    }
    if (has("update")) {
        k.updates = boolean("update", get("update"));
    }
    if (has("verify")) {
        k.verify = in.verify = boolean("verify", get("verify"));
    }
    if (has("seed")) {
        k.shape.seed = in.seed = k.orderSeed = parseSize("seed", get("seed"));
    }
    if (has("commit-every")) {
        in.commitEvery = parseSize("commit-every", get("commit-every"));
    }
    if (has("variants")) {
        for (const std::string& name : splitOptionList(get("variants"))) {
            const auto& all = insertVariants("sqlite");
            const auto& pg = insertVariants("postgres");
            const auto& fb = insertVariants("firebird");
            const auto& my = insertVariants("mariadb");
            if (std::find(all.begin(), all.end(), name) == all.end() &&
                std::find(pg.begin(), pg.end(), name) == pg.end() &&
                std::find(fb.begin(), fb.end(), name) == fb.end() &&
                std::find(my.begin(), my.end(), name) == my.end()) {
                throw StudyOptionError("variants", "unknown variant '" + name + "'");
            }
            in.variants.push_back(name);
        }
    }
    if (rowLimit > 0) {
        k.count = std::min(k.count, rowLimit);
        in.rows = std::min(in.rows, rowLimit);
        in.commitEvery = std::min(in.commitEvery, in.rows);
    }
    if (in.commitEvery > in.rows) {
        throw StudyOptionError(
            "commit-every", std::to_string(in.commitEvery) + " is more than the " + std::to_string(in.rows) + " rows");
    }
    if (kind == "footprint") {
        k.reads = false;
        k.updates = false;
    }
    p.options = options;
    if (kind == "insert") {
        p.options["rows"] = std::to_string(in.rows);
    } else {
        p.options["count"] = std::to_string(k.count);
    }
    return p;
}

std::vector<Sample> keyedSamples(const StudyJob& job, const KeyedReport& report, const std::string& startedAt) {
    std::vector<Sample> out;
    for (const auto& r : report.results) {
        Sample s = baseSample(job, startedAt);
        s.engine = "sqlite";
        s.connection = job.plan.directory;
        s.point = {{"phase", r.phase}, {"store", r.store}, {"path", r.variant}, {"order", r.order}};
        s.phases.execute = r.elapsed;
        s.rows = r.values;
        s.contentBytes = r.bytes;
        s.valuesRead = r.phase == "read" ? r.values : 0;
        s.scalarLabel = kMicrosPerValue;
        s.scalar = fixed(r.microsPerValue(), 2);
        s.disturbed = r.disturbed;
        s.negotiated["MB/s"] = fixed(r.megabytesPerSecond(), 1);
        s.negotiated["check"] = r.check;
        if (r.phase == "read") {  // how it was measured: the Storage tab's header, the exports
            const auto& k = job.plan.keyed;
            s.negotiated["transaction"] = transactionName(k.transaction);
            s.negotiated["mapping"] = mappingName(k.mapping);
            s.negotiated["values"] = k.copyValues ? "copied" : "in place";
            s.negotiated["warmup"] = k.warmup ? "yes" : "no";
            s.negotiated["cache_size"] = std::to_string(k.cacheSize);
            s.negotiated["page_size"] = std::to_string(k.pageSize);
            if (r.store == "sqlite") {
                s.negotiated["connection"] = r.connection;
                s.negotiated["readTransactions"] = std::to_string(r.locks.sharedTaken);
                s.negotiated["lockCalls"] = std::to_string(r.locks.calls());
            }
        }
        if (r.partial) {
            s.status = SampleStatus::Failed;
            s.error = "partial (the run stopped in this step): " + report.error;
        } else if (r.check != "byte-exact" && r.check != "not checked") {
            s.status = SampleStatus::Failed;
            s.error = "read back differs: " + r.check;
        }
        out.push_back(std::move(s));
    }
    if (report.footprint) {
        const auto& f = *report.footprint;
        Sample s = baseSample(job, startedAt);
        s.engine = "sqlite";
        s.connection = job.plan.directory;
        s.point = {{"phase", "footprint"}, {"store", "sqlite / files"}};
        s.rows = f.files.files;
        s.contentBytes = f.valueBytes;
        s.scalarLabel = kFootprintRatio;
        s.scalar = fixed(f.ratio(), 3);
        s.negotiated["sqliteBytes"] = std::to_string(f.sqliteBytes);
        s.negotiated["filesBytes"] = std::to_string(f.files.allocated());
        s.negotiated["filesDirectoryBytes"] = std::to_string(f.files.directoryAllocated);
        out.push_back(std::move(s));
    }
    return out;
}

Sample insertSample(const StudyJob& job, const InsertResult& r, const std::string& startedAt) {
    Sample s = baseSample(job, startedAt);
    s.engine = r.engine;
    s.connection = job.connection.engine == "sqlite" || job.connection.engine.empty() ? "sqlite:" + job.plan.directory
                                                                                      : job.connection.label();
    s.point = {{"engine", r.engine}, {"variant", r.variant}};
    s.sql = r.how;
    s.phases.execute = r.elapsed;
    s.rows = r.rows;
    s.contentBytes = r.bytes;
    s.effects.push_back(ParameterEffect{"variant", r.variant, r.inEffect ? r.variant : "", r.inEffect, r.reason});
    s.scalarLabel = kInsertsPerSecond;
    s.disturbed = r.disturbed;
    if (!r.inEffect) {
        s.status = SampleStatus::Failed;
        s.error = "not in effect: " + r.reason;
        return s;
    }
    s.scalar = fixed(r.insertsPerSecond(), 0);
    s.negotiated["MB/s"] = fixed(r.megabytesPerSecond(), 1);
    s.negotiated["ms/commit"] = fixed(r.millisPerCommit(), 2);
    s.negotiated["commits"] = std::to_string(r.commits);
    s.negotiated["commitNs"] = std::to_string(r.commitTime.count());
    if (r.storageBytes) {
        s.negotiated["storageBytes"] = std::to_string(*r.storageBytes);
        s.negotiated["storageHow"] = r.storageHow;
    }
    s.negotiated["check"] = r.check;
    if (!r.error.empty()) {
        s.status = SampleStatus::Failed;
        s.error = (r.partial ? "partial (committed rows only): " : "") + r.error;
    } else if (r.check != "byte-exact" && r.check != "not checked") {
        s.status = SampleStatus::Failed;
        s.error = "read back differs: " + r.check;
    }
    return s;
}

StudyOutcome runStudy(const StudyJob& job, const StudyHooks& hooks) {
    StudyOutcome outcome;
    auto emit = [&](Sample s) {
        if (hooks.sample) {
            hooks.sample(s);
        }
        outcome.samples.push_back(std::move(s));
    };
    auto progress = [&](const std::string& what) {
        if (hooks.cancel.cancelled()) {
            throw Error(ErrorKind::Cancelled, "cancelled");
        }
        if (hooks.progress) {
            hooks.progress(what);
        }
    };
    const std::string startedAt = isoNow();
    if (job.plan.kind != "insert") {
        KeyedOptions k = job.plan.keyed;
        k.directory = job.plan.directory;
        k.progress = progress;
        const KeyedReport report = runKeyedStudy(k);
        if (hooks.keyedReport) {
            hooks.keyedReport(report);
        }
        for (auto& s : keyedSamples(job, report, startedAt)) {
            emit(std::move(s));
        }
        outcome.error = report.error;
        outcome.cancelled = hooks.cancel.cancelled();
        if (outcome.ok()) {
            for (const auto& s : outcome.samples) {
                if (s.status != SampleStatus::Complete) {
                    outcome.error = s.error;
                    break;
                }
            }
        }
        return outcome;
    }
    InsertOptions in = job.plan.insert;
    in.progress = progress;
    in.cancel = hooks.cancel;  // polled between rows: a variant ends at the cancel, not at its last row
    auto done = [&](const InsertResult& r) {
        if (hooks.insertResult) {
            hooks.insertResult(r);
        }
        emit(insertSample(job, r, isoNow()));
        if (outcome.error.empty() && r.inEffect && !r.error.empty()) {
            outcome.error = r.engine + " " + r.variant + ": " + r.error;
        } else if (outcome.error.empty() && r.inEffect && r.check != "byte-exact" && r.check != "not checked") {
            outcome.error = r.engine + " " + r.variant + ": " + r.check;
        }
    };
    try {
        if (job.connection.engine.empty() || job.connection.engine == "sqlite") {
            if (job.plan.directory.empty()) {
                throw StudyOptionError("directory", "name the directory the SQLite files go to");
            }
            runSqliteInserts(job.plan.directory, in, done);
        } else {
            runServerInserts(job.connection, job.parameters, in, done);
        }
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::Usage && outcome.samples.empty()) {
            throw;
        }
        outcome.error = oneLine(e.what());
        outcome.cancelled = e.kind() == ErrorKind::Cancelled;
    }
    return outcome;
}

}  // namespace blobbench::storage
