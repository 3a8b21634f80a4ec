#include "app/cli/StorageCommand.h"
#include "app/cli/ProgressLine.h"

#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "app/cli/CliOptions.h"
#include "app/cli/ExitCodes.h"
#include "app/cli/Signals.h"
#include "app/cli/StallGuard.h"
#include "engine/core/CancelToken.h"
#include "engine/core/Error.h"
#include "engine/core/Printable.h"
#include "engine/drivers/Registry.h"
#include "engine/storage/InsertStudy.h"
#include "engine/storage/KeyedStudy.h"
#include "engine/storage/StorageScenario.h"
#include "model/AtomicFile.h"

namespace blobbench::cli {
namespace {

struct StorageOptions {
    std::string study;  // keyed-read | insert | footprint
    std::string target;
    std::string jsonPath;
    bool quiet = false;
    bool help = false;
    // keyed-read / footprint
    storage::KeyedOptions keyed;
    // insert
    storage::InsertOptions insert;
    std::string user, password, clientLibrary, engine;
    ParameterValues parameters;
    CancelToken cancel;      // a first SIGINT / SIGTERM: polled between phases and variants
    std::string leftBehind;  // insert: what a cancelled variant made and could not remove, for the signal's line
};

std::uint64_t number(const std::string& option, const std::string& text) {
    return storage::parseSize(option, text);
}

StorageOptions parse(const std::vector<std::string>& args) {
    StorageOptions o;
    std::size_t i = 1;  // args[0] == "storage"
    if (i < args.size() && (args[i] == "-h" || args[i] == "--help")) {
        o.help = true;
        return o;
    }
    if (i >= args.size()) {
        throw Error(ErrorKind::Usage, "name the study (keyed-read, insert or footprint)");
    }
    o.study = args[i++];
    if (o.study != "keyed-read" && o.study != "insert" && o.study != "footprint") {
        throw Error(ErrorKind::Usage, "unknown study '" + o.study + "' (keyed-read, insert or footprint)");
    }
    bool sawSize = false;
    bool sawSpread = false;
    for (; i < args.size(); ++i) {
        std::string arg = args[i];
        std::string value;
        bool inlineValue = false;
        if (arg.starts_with("--") && arg.find('=') != std::string::npos) {
            value = arg.substr(arg.find('=') + 1);
            arg = arg.substr(0, arg.find('='));
            inlineValue = true;
        }
        auto take = [&]() -> std::string {
            if (inlineValue) {
                return value;
            }
            if (i + 1 >= args.size()) {
                throw Error(ErrorKind::Usage, arg + " needs a value");
            }
            return args[++i];
        };
        auto num = [&]() { return number(arg, take()); };
        if (arg == "-h" || arg == "--help") {
            o.help = true;
        } else if (arg == "--json") {
            o.jsonPath = take();
            refuseWhatIsNoFile(arg, o.jsonPath);
        } else if (arg == "-q" || arg == "--quiet") {
            o.quiet = true;
        } else if (arg == "--count" || arg == "--rows" || arg == "-n") {
            o.keyed.count = o.insert.rows = num();
        } else if (arg == "--size" || arg == "-S") {
            o.keyed.shape.meanBytes = o.insert.valueBytes = num();
            sawSize = true;
        } else if (arg == "--spread") {
            o.keyed.shape.spreadBytes = num();
            sawSpread = true;
        } else if (arg == "--seed") {
            o.keyed.shape.seed = o.insert.seed = num();
            o.keyed.orderSeed = o.keyed.shape.seed;
        } else if (arg == "--text") {
            o.keyed.shape.text = o.insert.text = true;
        } else if (arg == "--compressible") {
            o.keyed.shape.text = o.insert.text = true;
            o.keyed.shape.compressible = o.insert.compressible = true;
        } else if (arg == "--binary") {
            o.keyed.shape.text = o.insert.text = false;
            o.keyed.shape.compressible = o.insert.compressible = false;
        } else if (arg == "--layout") {
            const std::string layout = take();
            if (layout != "flat" && layout != "tree") {
                throw Error(ErrorKind::Usage, "--layout: '" + layout + "' is not flat or tree");
            }
            o.keyed.layout = layout == "flat" ? storage::FileLayout::Flat : storage::FileLayout::Tree;
        } else if (arg == "--fsync") {
            o.keyed.fsync = true;
        } else if (arg == "--journal") {
            o.keyed.journalMode = o.insert.journalMode = take();
        } else if (arg == "--synchronous") {
            o.keyed.synchronous = o.insert.synchronous = take();
        } else if (arg == "--page-size") {
            o.keyed.pageSize = o.insert.pageSize = static_cast<std::int64_t>(num());
        } else if (arg == "--fb-page-size") {
            o.insert.firebirdPageSize = static_cast<std::int64_t>(num());
        } else if (arg == "--mmap-size") {
            o.keyed.mmapSize = static_cast<std::int64_t>(num());
        } else if (arg == "--order") {
            const std::string order = take();
            if (order != "ascending" && order != "random" && order != "both" && order != "random-first") {
                throw Error(ErrorKind::Usage,
                            "--order: '" + order + "' is not ascending, random, both or random-first");
            }
            o.keyed.ascending = order != "random";
            o.keyed.random = order != "ascending";
            o.keyed.randomFirst = order == "random-first";
        } else if (arg == "--transaction") {
            const std::string mode = take();
            if (mode != "loop" && mode != "per-read") {
                throw Error(ErrorKind::Usage, "--transaction: '" + mode + "' is not loop or per-read");
            }
            o.keyed.transaction = mode == "loop" ? storage::TransactionMode::Loop : storage::TransactionMode::PerRead;
        } else if (arg == "--mapping") {
            const std::string mode = take();
            if (mode != "cold" && mode != "warm") {
                throw Error(ErrorKind::Usage, "--mapping: '" + mode + "' is not cold or warm");
            }
            o.keyed.mapping = mode == "cold" ? storage::MappingMode::Cold : storage::MappingMode::Warm;
        } else if (arg == "--copy") {
            o.keyed.copyValues = true;
        } else if (arg == "--no-warmup") {
            o.keyed.warmup = false;
        } else if (arg == "--cache-size") {
            const std::uint64_t pages = num();
            if (pages == 0 || pages > 1'000'000'000) {
                throw Error(ErrorKind::Usage,
                            "--cache-size: " + std::to_string(pages) + " is not a page count from 1 to 1g");
            }
            o.keyed.cacheSize = static_cast<std::int64_t>(pages);
        } else if (arg == "--paths") {
            o.keyed.paths = storage::parsePaths(take());
        } else if (arg == "--no-update") {
            o.keyed.updates = false;
        } else if (arg == "--no-verify") {
            o.keyed.verify = o.insert.verify = false;
        } else if (arg == "--commit-every") {
            o.insert.commitEvery = num();
        } else if (arg == "--variant") {
            o.insert.variants.push_back(take());
        } else if (arg == "-e" || arg == "--engine") {
            o.engine = take();
        } else if (arg == "-u" || arg == "--user") {
            o.user = take();
        } else if (arg == "-p" || arg == "--password") {
            o.password = take();
        } else if (arg == "--client-library") {
            o.clientLibrary = take();
            refuseWhatIsNoFile(arg, o.clientLibrary);
        } else if (arg == "-P" || arg == "--param") {
            const std::string kv = take();
            const auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0) {
                throw Error(ErrorKind::Usage, "--param: '" + kv + "' is not NAME=VALUE");
            }
            o.parameters[kv.substr(0, eq)] = kv.substr(eq + 1);
        } else if (!arg.starts_with("-") && o.target.empty()) {
            o.target = arg;
        } else {
            throw Error(ErrorKind::Usage, "unexpected argument '" + arg + "'");
        }
    }
    if (o.study != "insert" && sawSize && !sawSpread) {
        // keep the +-20% shape for small sizes, as the project option does
        o.keyed.shape.spreadBytes = std::min(o.keyed.shape.spreadBytes, o.keyed.shape.meanBytes / 5);
    }
    return o;
}

class Json {
public:
    explicit Json(const std::string& path) : m_path(path) {}
    QJsonObject root;
    void save() const {
        if (m_path.empty()) {
            return;
        }
        // Whole or not at all, and a full disk is said (QFile's buffered write failed at close,
        // unsaid: exit 0 and an empty file).
        try {
            writeFileAtomically(QString::fromStdString(m_path), QJsonDocument(root).toJson());
        } catch (const Error& e) {
            throw Error(ErrorKind::Io, std::string("--json: ") + e.what());
        }
    }

    // After a variant: a file is replaced whole each time; a pipe or a descriptor takes the JSON once, at
    // the end (hostile round 5p B3: three documents one after the other).
    void saveInterim() const {
        if (!m_path.empty() && replacedWhole(m_path)) {
            save();
        }
    }

private:
    std::string m_path;
};

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// ------------------------------------------------------------------------------------ keyed studies

int keyed(StorageOptions& o, std::ostream& out, std::ostream& err) {
    if (o.target.empty()) {
        throw Error(ErrorKind::Usage, "storage " + o.study + ": name a work directory (e.g. /tmp/blobbench-storage)");
    }
    if (!o.jsonPath.empty()) {
        const storage::KeyedStudyFiles own = storage::keyedStudyFiles(o.target);
        refuseOutputOverStudyFiles("--json", o.jsonPath, own.files, own.folder);
    }
    auto& k = o.keyed;
    k.directory = o.target;
    if (o.study == "footprint") {
        k.reads = false;
        k.updates = false;
    }
    ProgressLine line(err, !o.quiet, isatty(STDERR_FILENO) != 0);
    k.progress = [&](const std::string& what) { line.show(what + "...", true); };
    storage::StudyJob job;
    job.runId = isoNow();
    job.scenarioId = o.study;
    job.plan.kind = o.study;
    job.plan.keyed = k;
    job.plan.directory = o.target;
    storage::KeyedReport report;
    storage::StudyHooks hooks;
    hooks.cancel = o.cancel;
    hooks.progress = k.progress;
    hooks.keyedReport = [&](const storage::KeyedReport& r) { report = r; };
    storage::runStudy(job, hooks);
    line.clear();
    out << "===== Storage: SQLite vs one file per BLOB (" << o.study << ") =====\n\n"
        << "Directory: " << printable(o.target) << '\n'
        << "Values: " << k.count << " x " << k.shape.meanBytes << " +- " << k.shape.spreadBytes << " bytes, "
        << (k.shape.text ? "text" : "incompressible") << ", seed " << k.shape.seed << '\n';
    for (const auto& n : report.notes) {
        out << "  " << printable(n) << '\n';
    }
    if (!report.method.empty()) {
        out << "Method of the reads:\n";
        for (const auto& [name, value] : report.method) {
            out << "  " << name << ": " << value << '\n';
        }
    }
    out << '\n';
    Json json(o.jsonPath);
    json.root[QStringLiteral("study")] = q(o.study);
    json.root[QStringLiteral("count")] = static_cast<qint64>(k.count);
    json.root[QStringLiteral("meanBytes")] = static_cast<qint64>(k.shape.meanBytes);
    json.root[QStringLiteral("spreadBytes")] = static_cast<qint64>(k.shape.spreadBytes);
    json.root[QStringLiteral("text")] = k.shape.text;
    QJsonArray notes;
    for (const auto& n : report.notes) {
        notes.append(q(n));
    }
    json.root[QStringLiteral("notes")] = notes;
    QJsonObject method;
    for (const auto& [name, value] : report.method) {
        method[q(name)] = q(value);
    }
    json.root[QStringLiteral("method")] = method;
    json.root[QStringLiteral("transaction")] = q(storage::transactionName(k.transaction));
    json.root[QStringLiteral("mapping")] = q(storage::mappingName(k.mapping));
    json.root[QStringLiteral("copyValues")] = k.copyValues;
    json.root[QStringLiteral("warmup")] = k.warmup;
    json.root[QStringLiteral("cacheSize")] = static_cast<qint64>(k.cacheSize);
    json.root[QStringLiteral("pageSize")] = static_cast<qint64>(k.pageSize);
    json.root[QStringLiteral("layout")] =
        k.layout == storage::FileLayout::Flat ? QStringLiteral("flat") : QStringLiteral("tree");
    if (!report.results.empty()) {
        char line[256];
        std::snprintf(line, sizeof line, "%-7s %-7s %-32s %-10s %9s %10s %9s %9s %9s  %s\n", "phase", "store", "how",
                      "order", "values", "us/value", "MB/s", "read txns", "locks", "check");
        out << line;
        QJsonArray rows;
        for (const auto& r : report.results) {
            const bool counted = r.phase == "read" && r.store == "sqlite";
            std::snprintf(line, sizeof line, "%-7s %-7s %-32s %-10s %9llu %10.2f %9.1f %9s %9s  %s%s\n",
                          r.phase.c_str(), r.store.c_str(), r.variant.c_str(), r.order.c_str(),
                          static_cast<unsigned long long>(r.values), r.microsPerValue(), r.megabytesPerSecond(),
                          counted ? std::to_string(r.locks.sharedTaken).c_str() : "-",
                          counted ? std::to_string(r.locks.calls()).c_str() : "-", r.check.c_str(),
                          r.partial ? " (PARTIAL: the run stopped here)" : "");
            out << line;
            if (!r.disturbed.empty()) {
                out << "        disturbed: " << printable(r.disturbed) << '\n';
            }
            QJsonObject row;
            row[QStringLiteral("phase")] = q(r.phase);
            row[QStringLiteral("store")] = q(r.store);
            row[QStringLiteral("variant")] = q(r.variant);
            row[QStringLiteral("order")] = q(r.order);
            row[QStringLiteral("values")] = static_cast<qint64>(r.values);
            row[QStringLiteral("bytes")] = static_cast<qint64>(r.bytes);
            row[QStringLiteral("elapsedNs")] = static_cast<qint64>(r.elapsed.count());
            row[QStringLiteral("microsPerValue")] = r.microsPerValue();
            row[QStringLiteral("megabytesPerSecond")] = r.megabytesPerSecond();
            row[QStringLiteral("check")] = q(r.check);
            row[QStringLiteral("partial")] = r.partial;
            if (!r.disturbed.empty()) {
                row[QStringLiteral("disturbed")] = q(r.disturbed);
            }
            if (r.phase == "read" && r.store == "sqlite") {
                row[QStringLiteral("connection")] = q(r.connection);
                row[QStringLiteral("readTransactions")] = static_cast<qint64>(r.locks.sharedTaken);
                row[QStringLiteral("lockCalls")] = static_cast<qint64>(r.locks.calls());
                row[QStringLiteral("xLock")] = static_cast<qint64>(r.locks.lock);
                row[QStringLiteral("xUnlock")] = static_cast<qint64>(r.locks.unlock);
                row[QStringLiteral("xShmLock")] = static_cast<qint64>(r.locks.shmLock);
            }
            rows.append(row);
        }
        json.root[QStringLiteral("results")] = rows;
        out << "(read txns: read transactions the timed pass began, i.e. shared locks taken; locks: xLock + "
               "xUnlock + xShmLock calls on the database file, counted by a VFS shim)\n";
        // SQLite against files, per read variant and order.
        bool header = false;
        for (const auto& r : report.results) {
            if (r.phase != "read" || r.store != "sqlite") {
                continue;
            }
            for (const auto& f : report.results) {
                if (f.phase == "read" && f.store == "files" && f.order == r.order && f.microsPerValue() > 0) {
                    if (!header) {
                        out << "\nSQLite time per value / files time per value (below 1: SQLite faster):\n";
                        header = true;
                    }
                    std::snprintf(line, sizeof line, "  %-18s %-10s %6.2f\n", r.variant.c_str(), r.order.c_str(),
                                  r.microsPerValue() / f.microsPerValue());
                    out << line;
                }
            }
        }
    }
    if (report.footprint) {
        const auto& f = *report.footprint;
        out << "\nFootprint after writing " << f.files.files << " values (" << f.valueBytes << " value bytes):\n"
            << "  SQLite page_count x page_size: " << f.sqliteBytes << " bytes\n"
            << "  files allocated (st_blocks x 512, like du): " << f.files.allocated() << " bytes ("
            << f.files.fileAllocated << " in files, " << f.files.directoryAllocated << " in directories)\n";
        char line[128];
        std::snprintf(line, sizeof line, "  ratio SQLite / files: %.3f\n", f.ratio());
        out << line;
        QJsonObject fp;
        fp[QStringLiteral("valueBytes")] = static_cast<qint64>(f.valueBytes);
        fp[QStringLiteral("sqliteBytes")] = static_cast<qint64>(f.sqliteBytes);
        fp[QStringLiteral("filesAllocated")] = static_cast<qint64>(f.files.allocated());
        fp[QStringLiteral("filesFileAllocated")] = static_cast<qint64>(f.files.fileAllocated);
        fp[QStringLiteral("filesDirectoryAllocated")] = static_cast<qint64>(f.files.directoryAllocated);
        fp[QStringLiteral("files")] = static_cast<qint64>(f.files.files);
        fp[QStringLiteral("ratio")] = f.ratio();
        json.root[QStringLiteral("footprint")] = fp;
    }
    json.root[QStringLiteral("complete")] = report.complete();
    if (!report.complete()) {
        json.root[QStringLiteral("error")] = q(report.error);
    }
    json.save();
    bool differs = false;
    for (const auto& r : report.results) {
        differs = differs || (r.check != "byte-exact" && r.check != "not checked");
    }
    if (!report.complete()) {
        if (SignalCancel::received() == 0) {  // else the signal's line says it
            err << "blobbench-cli: storage " << o.study << ": " << terminalLine(report.error)
                << " (results above are partial)\n";
        }
        return kFailed;
    }
    if (differs) {
        err << "blobbench-cli: storage " << o.study << ": a path did not read back the bytes it wrote\n";
        return kFailed;
    }
    return kOk;
}

// ------------------------------------------------------------------------------------------- insert

int insert(StorageOptions& o, std::ostream& out, std::ostream& err) {
    if (o.target.empty()) {
        throw Error(ErrorKind::Usage,
                    "storage insert: name a target (a directory or sqlite:DIR for SQLite, a PostgreSQL conninfo, a "
                    "Firebird database)");
    }
    std::string engine = o.engine;
    std::string target = o.target;
    if (engine.empty()) {
        std::error_code ec;
        engine = target.starts_with("sqlite:") || std::filesystem::is_directory(target, ec)
                     ? "sqlite"
                     : driverForTarget(target).id();
    }
    if (engine == "sqlite" && target.starts_with("sqlite:")) {
        target = target.substr(7);
    }
    storage::checkInsertOptions(o.insert);
    const std::string engineId = engine == "sqlite" ? engine : driverById(engine).id();
    refuseOutputOverFirebirdDatabase("--json", o.jsonPath, ConnectionSpec{engineId, target});  // round 5p C3
    // One engine a run: a variant of another engine's ran nothing and the JSON said complete (hostile
    // round 5n I10).
    for (const std::string& variant : o.insert.variants) {
        const std::vector<std::string> known = storage::insertVariants(engineId);
        if (std::find(known.begin(), known.end(), variant) == known.end()) {
            std::string list;
            for (const std::string& k : known) {
                list += (list.empty() ? "" : ", ") + k;
            }
            throw Error(ErrorKind::Usage, "--variant " + variant + " is not a variant of " + engineId + " (" +
                                              engineId + ": " + list + ")");
        }
    }
    if (engine == "sqlite") {
        storage::checkSqliteInsertDirectory(target, o.insert);  // before the table's header
        if (!o.jsonPath.empty()) {
            refuseOutputOverStudyFiles("--json", o.jsonPath, storage::sqliteInsertFiles(target, o.insert));
        }
    }
    ProgressLine progressLine(err, !o.quiet, isatty(STDERR_FILENO) != 0);
    o.insert.progress = [&](const std::string& what) { progressLine.show(what + "...", true); };
    out << "===== Storage: LOB insert throughput =====\n\n"
        << "Target: " << printable(engine == "sqlite" ? "sqlite:" + target : ConnectionSpec{engine, target}.label())
        << '\n'
        << "Rows: " << o.insert.rows << " x " << o.insert.valueBytes << " bytes, "
        << (o.insert.text ? (o.insert.compressible ? "compressible text" : "text") : "incompressible") << ", "
        << (o.insert.commitEvery == 0 ? std::string("one transaction")
                                      : "commit every " + std::to_string(o.insert.commitEvery) + " rows")
        << "\n\n";
    char line[512];
    std::snprintf(line, sizeof line, "%-9s %-18s %9s %11s %9s %11s %14s  %s\n", "engine", "variant", "rows",
                  "inserts/s", "MB/s", "ms/commit", "storage bytes", "check");
    out << line;
    Json json(o.jsonPath);
    json.root[QStringLiteral("study")] = QStringLiteral("insert");
    json.root[QStringLiteral("rows")] = static_cast<qint64>(o.insert.rows);
    json.root[QStringLiteral("valueBytes")] = static_cast<qint64>(o.insert.valueBytes);
    json.root[QStringLiteral("text")] = o.insert.text;
    json.root[QStringLiteral("compressible")] = o.insert.text && o.insert.compressible;
    json.root[QStringLiteral("commitEvery")] = static_cast<qint64>(o.insert.commitEvery);
    QJsonArray rows;
    std::vector<storage::InsertResult> all;
    auto done = [&](const storage::InsertResult& r) {
        progressLine.clear();
        all.push_back(r);
        if (!r.inEffect) {
            std::snprintf(line, sizeof line, "%-9s %-18s  not in effect: %s\n", r.engine.c_str(), r.variant.c_str(),
                          r.reason.c_str());
        } else {
            std::snprintf(line, sizeof line, "%-9s %-18s %9llu %11.0f %9.1f %11.2f %14s  %s%s\n", r.engine.c_str(),
                          r.variant.c_str(), static_cast<unsigned long long>(r.rows), r.insertsPerSecond(),
                          r.megabytesPerSecond(), r.millisPerCommit(),
                          r.storageBytes ? std::to_string(*r.storageBytes).c_str() : "-", r.check.c_str(),
                          r.partial ? " (PARTIAL: committed rows only)" : "");
        }
        out << line;
        if (!r.disturbed.empty()) {
            out << "          disturbed: " << printable(r.disturbed) << '\n';
        }
        out << std::flush;
        QJsonObject row;
        row[QStringLiteral("engine")] = q(r.engine);
        row[QStringLiteral("variant")] = q(r.variant);
        row[QStringLiteral("how")] = q(r.how);
        row[QStringLiteral("inEffect")] = r.inEffect;
        if (!r.inEffect) {
            row[QStringLiteral("reason")] = q(r.reason);
        }
        row[QStringLiteral("rows")] = static_cast<qint64>(r.rows);
        row[QStringLiteral("bytes")] = static_cast<qint64>(r.bytes);
        row[QStringLiteral("elapsedNs")] = static_cast<qint64>(r.elapsed.count());
        row[QStringLiteral("commits")] = static_cast<qint64>(r.commits);
        row[QStringLiteral("commitNs")] = static_cast<qint64>(r.commitTime.count());
        row[QStringLiteral("insertsPerSecond")] = r.insertsPerSecond();
        row[QStringLiteral("megabytesPerSecond")] = r.megabytesPerSecond();
        row[QStringLiteral("millisPerCommit")] = r.millisPerCommit();
        if (r.storageBytes) {
            row[QStringLiteral("storageBytes")] = static_cast<qint64>(*r.storageBytes);
            row[QStringLiteral("storageHow")] = q(r.storageHow);
        }
        row[QStringLiteral("check")] = q(r.check);
        row[QStringLiteral("partial")] = r.partial;
        if (!r.error.empty()) {
            row[QStringLiteral("error")] = q(r.error);
        }
        if (!r.disturbed.empty()) {
            row[QStringLiteral("disturbed")] = q(r.disturbed);
        }
        rows.append(row);
        json.root[QStringLiteral("results")] = rows;
        json.saveInterim();  // after every variant: a later failure loses nothing measured
    };
    storage::StudyJob job;
    job.runId = isoNow();
    job.scenarioId = "insert";
    job.plan.kind = "insert";
    job.plan.insert = o.insert;
    job.parameters = o.parameters;
    if (engine == "sqlite") {
        job.connection.engine = "sqlite";
        job.plan.directory = target;
    } else {
        job.connection.engine = driverById(engine).id();
        job.connection.target = target;
        job.connection.user = o.user;
        job.connection.password = o.password;
        job.connection.clientLibrary = o.clientLibrary;
        // Firebird's own variables, for Firebird only: they filled every engine's empty password, and a
        // PostgreSQL server received the Firebird password in clear (hostile round 5h P3). libpq and
        // libmariadb read their own (PGPASSWORD, MYSQL_PWD).
        if (job.connection.engine == "firebird") {
            if (job.connection.user.empty()) {
                job.connection.user = qEnvironmentVariable("ISC_USER").toStdString();
            }
            if (job.connection.password.empty()) {
                job.connection.password = qEnvironmentVariable("ISC_PASSWORD").toStdString();
            }
        }
    }
    // A server gone silent fails the variant in progress after the stall timeout, as `run` (hostile
    // round 5d B1: still running at 80 s). SQLite has no wire.
    std::optional<StallGuard> stalls;
    if (engine != "sqlite") {
        stalls.emplace(driverById(engine), job.connection, stallTimeoutOf(o.parameters));
    }
    storage::StudyHooks hooks;
    hooks.cancel = o.cancel;
    hooks.progress = o.insert.progress;
    hooks.insertResult = [&](const storage::InsertResult& r) {
        if (!stalls || r.error.empty()) {
            done(r);
            return;
        }
        storage::InsertResult explained = r;
        explained.error = stalls->explained(r.error);
        done(explained);
    };
    const storage::StudyOutcome outcome = storage::runStudy(job, hooks);
    if (all.empty() && !outcome.ok()) {
        throw Error(
            outcome.cancelled ? ErrorKind::Cancelled : ErrorKind::Connect,
            stalls ? stalls->explained(outcome.error) : outcome.error);  // nothing ran: connection refused, server gone
    }
    out << "\nHow each variant ran, and where its storage figure comes from:\n";
    int failed = 0;
    for (const auto& r : all) {
        out << "  " << r.engine << " " << r.variant << ": " << r.how
            << (r.storageHow.empty() ? "" : "; storage: " + r.storageHow) << '\n';
        if (r.cancelled) {
            ++failed;  // the signal's line says it, with what is left
            if (!r.left.empty()) {
                o.leftBehind += (o.leftBehind.empty() ? "" : "; ") + r.left;
            }
        } else if (!r.error.empty()) {
            err << "blobbench-cli: storage insert: " << r.engine << " " << r.variant << ": " << terminalLine(r.error)
                << '\n';
            ++failed;
        } else if (r.inEffect && r.check != "byte-exact" && r.check != "not checked") {
            err << "blobbench-cli: storage insert: " << r.engine << " " << r.variant << ": " << terminalLine(r.check)
                << '\n';
            ++failed;
        }
    }
    if (!outcome.ok() && failed == 0 && !outcome.cancelled) {
        err << "blobbench-cli: storage insert: " << terminalLine(outcome.error) << " (results above are partial)\n";
        json.root[QStringLiteral("error")] = q(outcome.error);
        ++failed;
    }
    // A cancel that lands in a variant ends it early (kept, partial) and the study with it.
    const bool cancelled = outcome.cancelled || o.cancel.cancelled();
    if (cancelled) {
        json.root[QStringLiteral("error")] = QStringLiteral("cancelled");  // as the other studies say it
    }
    json.root[QStringLiteral("complete")] = failed == 0 && !cancelled;
    json.save();
    return failed == 0 ? kOk : kFailed;
}

}  // namespace

std::string storageUsage() {
    return R"(Usage: blobbench-cli storage <keyed-read|insert|footprint> [target] [options]

  keyed-read DIR   write M values into DIR/store.sqlite and one file each under DIR/files, read them by key
                   (SQL, blob API, both with mmap; files open/fstat/read/close), rewrite them in random
                   order; each path and order on connections of its own, timed after an untimed warm-up
  footprint DIR    write only, then compare page_count x page_size with the files' allocated size
                   DIR: new, empty, or one an earlier run wrote (its store.sqlite and files/ are replaced);
                   a directory holding anything else is refused
  insert TARGET    N rows of S bytes on SQLite (TARGET a directory or sqlite:DIR), PostgreSQL (conninfo)
                   or Firebird (connection string), each storage variant of the engine; it writes a table
                   bb_storage_insert (PostgreSQL) or databases bb_storage_<variant>.fdb beside the target
                   (Firebird), marked as its own, and replaces none it did not create

  Numbers take suffixes k, m, g (10k = 10,000) or Ki, Mi, Gi (10Ki = 10,240).
  --count N / --rows N   values or rows (keyed: 100k; insert: 100k)
  --size S               bytes per value (keyed: 10k, i.e. 10,000; insert: 4402)
  --spread B             keyed: +- bytes around --size (2k; at most size / 5 when only --size is given)
  --text | --binary      printable text or incompressible bytes (keyed: binary; insert: text)
  --compressible         text of words from a small vocabulary, which pglz and lz4 do shrink
  --seed N               values and random order
  --layout flat|tree     files: one directory (flat, the article's), or two levels by key
  --fsync                files: fsync every write
  --journal MODE         SQLite journal_mode (wal)      --synchronous X   SQLite synchronous (normal)
  --page-size N          SQLite page_size (4096)        --mmap-size B     the mmap read variants (2047Mi)
  --cache-size PAGES     keyed: cache_size of the read connections (1000, kvtest's)
  --transaction loop|per-read   keyed: one transaction around each pass (loop, kvtest's) or one per value
  --mapping cold|warm    keyed: time on a connection opened for the pass (cold: mmap afresh, as a new
                         process) or on the warm-up's connection (warm: mapping already faulted in)
  --copy                 keyed: copy every value into a std::string (default: read in place)
  --no-warmup            keyed: no untimed pass before each timed one
  --paths LIST           keyed: read paths in this order (sql,blob,sql-mmap,blob-mmap,files)
  --order ascending|random|both|random-first   keyed read order (both: ascending first)
  --no-update            keyed: skip the random-order rewrite
  --no-verify            skip the untimed byte-exact read-back
  --commit-every K       insert: commit every K rows (0: one transaction)
  --fb-page-size N       insert: page size of the Firebird databases the variants create (driver default)
  --variant NAME         insert: run only these variants (repeatable); sqlite: bind zeroblob;
                         postgres: bytea-pglz bytea-lz4 bytea-external bytea-main bytea-copy bytea-pipeline text
                         large-object; firebird: blob varchar ibatch; mariadb: longblob-binary
                         longblob-text-hex longblob-long-data
  -u USER, --client-library PATH, -P NAME=VALUE   connection (password: ISC_PASSWORD or the conninfo)
  --json FILE            the results as JSON (written after every variant)
)";
}

int runStorage(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    try {
        StorageOptions o = parse(args);
        if (o.help) {
            out << storageUsage();
            return kOk;
        }
        SignalCancel interrupt;
        interrupt.setCancel([cancel = o.cancel] { cancel.cancel(); });
        const int code = o.study == "insert" ? insert(o, out, err) : keyed(o, out, err);
        if (SignalCancel::received() != 0) {
            out.flush();
            return SignalCancel::report(
                err, "storage " + o.study,
                "everything measured is written" + (o.jsonPath.empty() ? std::string() : " (" + o.jsonPath + ")") +
                    (o.leftBehind.empty() ? std::string("") : "; left behind: " + o.leftBehind));
        }
        return code;
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::Cancelled && SignalCancel::received() != 0) {
            return SignalCancel::report(err, "storage", "nothing was measured yet");
        }
        err << "blobbench-cli: storage: " << terminalLine(e.what()) << '\n';
        return e.kind() == ErrorKind::Usage ? kUsage : kFailed;
    } catch (const std::exception& e) {
        err << "blobbench-cli: storage: " << terminalLine(e.what()) << '\n';
        return kFailed;
    }
}

}  // namespace blobbench::cli
