#include "app/cli/ByteaCommand.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "app/cli/ByteaCommandTraces.h"
#include "app/cli/Signals.h"
#include "app/cli/StallGuard.h"
#include "engine/core/CancelToken.h"
#include "engine/core/Error.h"
#include "engine/core/Printable.h"
#include "engine/drivers/Registry.h"
#include "engine/drivers/postgres/ByteaExperiment.h"
#include "engine/wire/SocketCounter.h"
#include "engine/wire/WireTap.h"
#include "model/SampleJson.h"

namespace blobbench::cli {
namespace {

// After the experiment stopped half-way (a signal, a failure): writes what it measured to --json,
// the sample in progress `status`, and says so in words for the one line that ends the command.
std::string saveMeasured(const CliOptions& o, const std::optional<ByteaTraces>& traces, const std::string& connection,
                         std::uint64_t documentBytes, SampleStatus status, const std::string& error) {
    if (!traces || o.jsonPath.empty()) {
        return {};
    }
    const std::vector<Sample> samples = traces->partialSamples(connection, documentBytes, o.repeat, status, error);
    std::size_t complete = 0;
    for (const Sample& s : samples) {
        complete += s.status == SampleStatus::Complete;
    }
    try {
        writeSamplesJson(QString::fromStdString(o.jsonPath), SessionInfo{}, samples);
    } catch (const Error& e) {
        return std::string("; the samples measured could not be saved: ") + e.what();
    }
    const bool marked = complete < samples.size();  // none past the last span
    return "; the " + std::to_string(complete) + " samples measured are written to " + o.jsonPath +
           (marked ? std::string(" (the sample it stopped at marked ") + toString(status) + ")" : std::string());
}

}  // namespace

int commandBytea(const CliOptions& o) {
    if (o.database.empty()) {
        throw Error(ErrorKind::Usage,
                    "bytea: name the PostgreSQL connection (e.g. postgresql://postgres@127.0.0.1/blob_test)");
    }
    const Driver& driver = o.engine.empty() ? driverForTarget(o.database) : driverById(o.engine);
    if (driver.id() != "postgres") {
        throw Error(ErrorKind::Usage,
                    "bytea: the experiment is PostgreSQL's; '" + o.database + "' is " + driver.displayName());
    }
    if (o.estimateCompression) {
        // Refused rather than ignored: the experiment's report has no estimate block yet.
        throw Error(ErrorKind::Usage,
                    "bytea: --estimate-compression is not supported by the bytea experiment (use "
                    "`run CONN --estimate-compression`)");
    }
    ConnectionSpec spec;
    spec.engine = driver.id();
    spec.target = o.database;
    spec.user = o.user;
    spec.password = o.password;
    resolveParameters(driver.parameters(), o.parameters);  // bad tunables refused before connecting

    if (o.predictAt && o.link.emulating()) {
        // The model starts from the loopback: a trace taken through an emulated link already holds it.
        throw Error(ErrorKind::Usage,
                    "bytea: --predict-at predicts from an unshaped run; drop --latency/--bandwidth (or measure that "
                    "link without --predict-at)");
    }
    const bool traced = o.predictAt || !o.jsonPath.empty();
    if (traced && o.noTap) {
        throw Error(ErrorKind::Usage, "bytea: --predict-at and --json need the wire counted; drop --no-tap");
    }

    ByteaExperimentOptions options;
    options.documentBytes = static_cast<std::uint64_t>(o.documentSize.value_or(2 * 1024 * 1024));
    options.repetitions = o.repeat;
    // The relay when a link is emulated (or --tap); counted in process, as the Runner does, when the
    // traces are wanted for --predict-at or --json.
    const auto endpoint = driver.endpoint(spec);
    if (!endpoint && (o.wireTap || traced)) {
        throw Error(ErrorKind::Usage, "bytea: the connection has no TCP endpoint to tap (a Unix socket?)");
    }
    std::unique_ptr<WireTap> tap;
    std::unique_ptr<SocketCounter> counter;
    if (o.wireTap) {
        tap = std::make_unique<WireTap>(endpoint->host, endpoint->port, o.link);
        spec = driver.redirected(spec, Endpoint{"127.0.0.1", tap->port()});
    } else if (traced) {
        counter = std::make_unique<SocketCounter>();
    }
    std::optional<ByteaTraces> traces;
    if (tap || counter) {
        traces.emplace(tap.get(), counter.get());
        options.onSpan = [&traces](ByteaSpan span, bool begins) { traces->onSpan(span, begins); };
    }
    const std::string connection = ConnectionSpec{driver.id(), o.database}.label();
    std::cout << "===== PostgreSQL bytea: text vs binary =====\n\n"
              << "Connection: " << printable(connection) << '\n'
              << "Document: " << options.documentBytes << " incompressible bytes, median of " << options.repetitions
              << '\n'
              << "Link: "
              << (tap       ? o.link.describe() + " (wire tap)"
                  : counter ? std::string("direct (counted in process)")
                            : std::string("direct"))
              << "\n\n";
    std::vector<ByteaTrial> trials;
    CancelToken cancel;
    SignalCancel interrupt;  // polled between the experiment's statements
    interrupt.setCancel([cancel] { cancel.cancel(); });
    // A server gone silent fails the call blocked on it after the stall timeout (hostile round 5d B1).
    const StallGuard stalls(driver, spec, stallTimeoutOf(o.parameters), tap.get(), counter.get());
    try {
        // Every path's fresh session, on this thread, to whichever server of the connection string it reaches.
        std::optional<SocketCounter::Adopting> adopting;
        if (counter) {
            adopting.emplace(*counter);
        }
        trials = runByteaExperiment(driver, spec, o.parameters, options, cancel);
    } catch (const Error& e) {
        const bool cancelled = SignalCancel::received() != 0;
        const std::string last = tap ? tap->stats().lastError : std::string();
        // The connection as the user gave it, not the relay's rewritten one (its port, a note in passfile).
        std::string message = e.what();
        if (const std::string relayed = spec.label(); tap && relayed != connection && message.starts_with(relayed)) {
            message.replace(0, relayed.size(), connection);
        }
        const std::string error = cancelled
                                      ? std::string("cancelled by ") + SignalCancel::name(SignalCancel::received())
                                      : stalls.explained(message + (last.empty() ? "" : " (" + last + ")"));
        const std::string saved = saveMeasured(o, traces, connection, options.documentBytes,
                                               cancelled ? SampleStatus::Cancelled : SampleStatus::Failed, error);
        if (cancelled) {
            std::fflush(stdout);
            return SignalCancel::report(std::cerr, "the bytea experiment",
                                        "it stopped before its end, so there is no median to report" + saved);
        }
        throw Error(e.kind(), error + saved);
    }
    std::printf("%-14s %12s %12s %16s %10s %10s %10s  %s\n", "path", "insert ms", "select ms", "bytes received",
                "insert x", "select x", "bytes x", "read back");
    bool allIdentical = true;
    for (const auto& t : trials) {
        std::printf("%-14s %12.1f %12.1f %16llu %10.2f %10.2f %10.3f  %s\n", t.path.c_str(),
                    static_cast<double>(t.insert.count()) / 1e6, static_cast<double>(t.select.count()) / 1e6,
                    static_cast<unsigned long long>(t.receivedBytes), t.insertRatio, t.selectRatio, t.receivedRatio,
                    t.identical ? "identical" : "DIFFERENT");
        allIdentical = allIdentical && t.identical;
    }
    std::cout << "\nRatios are against binary. How each path was run:\n";
    for (const auto& t : trials) {
        std::cout << "  " << t.path << ": " << t.how << '\n';
    }
    for (const auto& t : trials) {
        if (!t.disturbed.empty()) {
            std::cout << "Disturbed: " << t.path << ": " << t.disturbed << '\n';
        }
    }
    const std::vector<Sample> samples =
        traces ? traces->samples(trials, connection, options.documentBytes) : std::vector<Sample>{};
    if (o.predictAt) {
        printByteaPrediction(trials, samples, *o.predictAt);
    }
    if (!o.jsonPath.empty()) {
        SessionInfo session;
        writeSamplesJson(QString::fromStdString(o.jsonPath), session, samples);
    }
    if (SignalCancel::received() != 0) {  // after the last statement: every path is measured
        std::fflush(stdout);
        return SignalCancel::report(std::cerr, "the bytea experiment", "everything measured is printed above");
    }
    if (!allIdentical) {
        std::cerr << "blobbench-cli: bytea: a path did not read back the bytes it wrote\n";
        return 1;
    }
    return 0;
}

}  // namespace blobbench::cli
