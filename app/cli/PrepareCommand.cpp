// prepare, and the default SQLite data set that `blobbench-cli` with no arguments prepares once.
#include "app/cli/PrepareCommand.h"

#include <QDir>
#include <QStandardPaths>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "app/cli/ExitCodes.h"
#include "app/cli/ProgressLine.h"
#include "app/cli/Signals.h"
#include "app/cli/StallGuard.h"
#include "engine/core/Error.h"
#include "engine/core/Printable.h"
#include "engine/data/Dataset.h"
#include "engine/data/PrepareDataset.h"
#include "engine/drivers/Registry.h"
#include "engine/report/TextReport.h"

namespace blobbench::cli {

std::string defaultDatabasePath() {
    QString dir = qEnvironmentVariable("BLOBBENCH_DATA_DIR");
    if (dir.isEmpty()) {
        // Without HOME, Qt answers "//.local/share/...": 126 MB prepared there, then a failure.
        if (qEnvironmentVariable("HOME").isEmpty() && qEnvironmentVariable("XDG_DATA_HOME").isEmpty()) {
            throw Error(ErrorKind::Usage,
                        "HOME is not set: there is no data directory for the default database (set HOME or "
                        "BLOBBENCH_DATA_DIR, or name a database: run sqlite:/path/to/file.sqlite)");
        }
        dir = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    }
    if (!QDir().mkpath(dir)) {
        throw Error(ErrorKind::Io, "cannot create the data directory " + dir.toStdString());
    }
    return QDir(dir).filePath(QStringLiteral("reference.sqlite")).toStdString();
}

ConnectionSpec connectionFrom(const CliOptions& o, const std::string& database) {
    ConnectionSpec spec;
    spec.engine = o.engine.empty() ? driverForTarget(database).id() : driverById(o.engine).id();
    spec.target = database;
    spec.user = o.user;
    spec.password = o.password;
    spec.charset = o.charset;
    spec.clientLibrary = o.clientLibrary;
    if (const std::string note = charsetNotInEffect(spec.engine, o.charset); !note.empty()) {
        std::cerr << "blobbench-cli: " << terminalLine(note) << '\n';
    }
    // Only Firebird loads a client library by path (hostile round 5c M2: silently ignored elsewhere).
    if (!o.clientLibrary.empty() && spec.engine != "firebird") {
        std::cerr << "blobbench-cli: "
                  << terminalLine("--client-library " + o.clientLibrary + " is not in effect on " +
                                  driverById(spec.engine).displayName() +
                                  ": only Firebird loads its client library by path")
                  << '\n';
    }
    return spec;
}

namespace {

DatasetSummary prepareOn(const ConnectionSpec& spec, const CliOptions& o, const CancelToken& cancel,
                         const std::function<void()>& connected) {
    DatasetChoice choice;
    choice.folder = o.fromFolder;
    choice.rows = o.rows;
    choice.seed = o.seed;
    choice.binary = o.binary;
    auto source = makeRowSource(choice);
    if (const std::string left = source->leftOut(); !left.empty()) {
        std::cerr << "blobbench-cli: --from-folder "
                  << terminalLine(o.fromFolder + ": left out what is no file: " + left) << '\n';
    }
    ProgressLine line(!o.quiet);
    PrepareOptions options;
    options.batchRows = o.batchRows;
    options.replaceForeignTables = o.replaceTables;
    options.cancel = cancel;
    options.connected = connected;
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
        line.show("Preparing " + spec.label() + ": " + std::to_string(done) + " / " + std::to_string(total) +
                  " rows (" + std::to_string(done * 100 / std::max<std::uint64_t>(total, 1)) + "%)");
    };
    return prepareDataset(spec, o.parameters, *source, options);
}

void printSummary(const std::string& where, const DatasetSummary& s, Nanos took) {
    std::cout << "Prepared " << where << ": " << s.rows << " rows, " << s.contentBytes << " content bytes, "
              << s.shortRows << " short rows (" << s.shortBytes << " bytes), longest " << s.maxLength << " characters";
    if (s.nonUtf8Samples > 0) {
        std::cout << ", " << s.nonUtf8Samples << " files not UTF-8 (loaded as bytes)";
    }
    std::cout << " in " << wholeMilliseconds(took) << " ms\n";
    for (const ParameterEffect& e : s.notInEffect) {
        std::cerr << "blobbench-cli: prepare: " << e.id << "=" << e.requested << " is "
                  << (e.reason.starts_with("not in effect") ? e.reason : "not in effect: " + e.reason) << '\n';
    }
}

}  // namespace

int commandPrepare(const CliOptions& o) {
    if (o.database.empty()) {
        throw Error(ErrorKind::Usage, "prepare: name the database (e.g. sqlite:/tmp/blob_test.sqlite)");
    }
    const ConnectionSpec spec = connectionFrom(o, o.database);
    const auto t0 = std::chrono::steady_clock::now();
    CancelToken cancel;
    SignalCancel interrupt;  // polled between rows: the batch in progress is rolled back
    interrupt.endAtOnceUntilStarted("prepare " + spec.label(),
                                    "it was connecting: nothing was written and the data set is not marked complete");
    interrupt.setCancel([cancel] { cancel.cancel(); });
    DatasetSummary summary;
    const StallGuard stalls(driverById(spec.engine), spec, stallTimeoutOf(o.parameters));
    try {
        summary = prepareOn(spec, o, cancel, [&interrupt] { interrupt.started(); });
    } catch (const Error& e) {
        if (SignalCancel::received() != 0) {
            return SignalCancel::report(std::cerr, "prepare " + spec.label(),
                                        "the batch in progress is rolled back and the data set is not marked "
                                        "complete (" +
                                            oneLine(e.what()) + ")");
        }
        throw stalls.explained(e);
    }
    printSummary(spec.label(), summary, std::chrono::steady_clock::now() - t0);
    if (SignalCancel::received() != 0) {
        return SignalCancel::report(std::cerr, "prepare " + spec.label(), "it had finished: the data set is complete");
    }
    return kOk;
}

// The default database: prepared into a temporary file and renamed, so that an interrupted
// prepare never leaves a file that looks complete.
void ensureDefaultDatabase(const std::string& path, const CliOptions& o, SignalCancel& interrupt) {
    namespace fs = std::filesystem;
    if (fs::exists(path)) {
        ConnectionSpec spec{"sqlite", path};
        const Driver& driver = driverById("sqlite");
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
        if (readDatasetSummary(*session)) {
            return;
        }
        std::cerr << "blobbench-cli: " << path << " holds no complete data set; preparing it again\n";
    }
    const std::string partial = path + ".part";
    fs::remove(partial);
    CliOptions prepare = o;
    prepare.parameters.clear();
    const auto t0 = std::chrono::steady_clock::now();
    DatasetSummary summary;
    const CancelToken cancel;
    interrupt.setCancel([cancel] { cancel.cancel(); });
    try {
        summary = prepareOn(ConnectionSpec{"sqlite", partial}, prepare, cancel, [&interrupt] { interrupt.started(); });
        interrupt.setCancel({});
    } catch (...) {
        interrupt.setCancel({});
        fs::remove(partial);
        if (SignalCancel::received() != 0) {
            throw Error(ErrorKind::Cancelled, "the default data set " + path +
                                                  " was being prepared: nothing was measured (the next run "
                                                  "prepares it again)");
        }
        throw;
    }
    fs::rename(partial, path);
    printSummary("sqlite:" + path, summary, std::chrono::steady_clock::now() - t0);
    std::cout << '\n';
}

}  // namespace blobbench::cli
