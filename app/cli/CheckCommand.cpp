#include "app/cli/CheckCommand.h"

#include <algorithm>
#include <map>
#include <optional>

#include "app/cli/CliOptions.h"
#include "app/cli/ExitCodes.h"
#include "app/cli/Signals.h"
#include "app/cli/SocketWatchdog.h"
#include "app/cli/StallGuard.h"
#include "engine/core/Error.h"
#include "engine/core/Printable.h"
#include "engine/drivers/Registry.h"
#include "engine/drivers/firebird/Fb9060Check.h"

namespace blobbench::cli {
namespace {

constexpr int kDefectSeen = 4;

struct CheckOptions {
    bool help = false;
    std::string name;  // fb9060
    ConnectionSpec connection;
    ParameterValues parameters;
};

CheckOptions parse(const std::vector<std::string>& args) {
    CheckOptions o;
    o.connection.engine = "firebird";
    std::size_t i = 1;
    if (i < args.size() && (args[i] == "-h" || args[i] == "--help")) {
        o.help = true;
        return o;
    }
    if (i >= args.size() || args[i].starts_with("-")) {
        throw Error(ErrorKind::Usage, "check: name the check (known: fb9060)");
    }
    o.name = args[i++];
    if (o.name != "fb9060") {
        throw Error(ErrorKind::Usage, "check: unknown check '" + o.name + "' (known: fb9060)");
    }
    std::map<std::string, bool> given;
    auto value = [&](const std::string& option) -> std::string {
        if (i + 1 >= args.size()) {
            throw Error(ErrorKind::Usage, "check: " + option + " needs a value");
        }
        if (given[option]) {
            throw Error(ErrorKind::Usage, "check: " + option + " is given twice (give it once)");
        }
        given[option] = true;
        return args[++i];
    };
    bool databaseGiven = false;
    for (; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "-h" || arg == "--help") {
            o.help = true;
            return o;
        } else if (arg == "-u" || arg == "--username") {
            o.connection.user = value("--username");
        } else if (arg == "-p" || arg == "--password") {
            o.connection.password = value("--password");
        } else if (arg == "--client-library") {
            o.connection.clientLibrary = value(arg);
            refuseWhatIsNoFile("--client-library", o.connection.clientLibrary);
        } else if (arg == "-c" || arg == "--charset") {
            o.connection.charset = value("--charset");
        } else if (arg == "-P" || arg == "--param") {
            const std::string assignment = args.size() > i + 1 ? args[++i] : std::string();
            const auto eq = assignment.find('=');
            if (eq == std::string::npos || eq == 0) {
                throw Error(ErrorKind::Usage, "check: " + arg + " needs ID=VALUE");
            }
            if (!o.parameters.emplace(assignment.substr(0, eq), assignment.substr(eq + 1)).second) {
                throw Error(ErrorKind::Usage, "check: " + arg + " " + assignment.substr(0, eq) + " is given twice");
            }
        } else if (arg == "-d" || arg == "--database" || !arg.starts_with("-")) {
            if (databaseGiven) {
                throw Error(ErrorKind::Usage, "check: the connection is already '" + o.connection.target + "'");
            }
            o.connection.target = arg.starts_with("-") ? value("--database") : arg;
            databaseGiven = true;
        } else {
            throw Error(ErrorKind::Usage, "check: unknown option '" + shownOption(arg) + "' (try check --help)");
        }
    }
    if (o.connection.target.empty()) {
        throw Error(ErrorKind::Usage, "check fb9060: name a Firebird connection (e.g. inet://host:3050//path/db.fdb)");
    }
    const Driver& driver = driverById("firebird");
    if (!driver.accepts(o.connection.target)) {
        throw Error(ErrorKind::Usage,
                    "check fb9060: '" + maskTarget(o.connection.target) + "' is not a Firebird connection string");
    }
    stallTimeoutOf(o.parameters);  // a wire_stall_timeout_s outside 0..3600 is refused before connecting
    ParameterValues tunables = o.parameters;
    tunables.erase("wire_stall_timeout_s");            // the check's own bound (checkWithin), not the driver's
    resolveParameters(driver.parameters(), tunables);  // a bad tunable is refused before connecting
    return o;
}

void printOutcome(std::ostream& out, const std::string& size, const Fb9060Outcome& r) {
    out << "max_inline_blob_size=" << size << " (the attachment reports: " << r.inlineSize << "): ";
    if (r.defectSeen()) {
        out << "defect seen: the re-read in the same transaction returned '" << printable(r.got) << "', expected '"
            << r.expected << "'";
    } else {
        out << "not seen: the re-read in the same transaction returned '" << printable(r.got) << "'";
    }
    out << (r.blobIdReused() ? " (BLOB id " + r.freedBlobId + " freed and reused)"
                             : " (BLOB id not reused: " + r.freedBlobId + " freed, " + r.newBlobId + " new)");
    out << "; after COMMIT a new transaction reads '" << printable(r.gotAfterCommit) << "'\n";
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
        out << "  " << (i + 1) << ". " << printable(r.steps[i]) << '\n';
    }
}

// The check's statements take well under a second; a server that stops answering held it for good
// (a proxy that passed 2,500 bytes and then nothing: still running at 70 s, where `run` ends at the
// stall timeout). Bounded by the wire stall timeout (-P wire_stall_timeout_s, 30 s by default, 0 = no bound).
Fb9060Outcome checkWithin(const CheckOptions& o, const ParameterValues& values) {
    const std::chrono::seconds limit = stallTimeoutOf(o.parameters);
    ParameterValues forDriver = values;
    forDriver.erase("wire_stall_timeout_s");
    std::optional<SocketWatchdog> watchdog;
    if (limit.count() > 0) {
        watchdog.emplace(limit);
    }
    try {
        return runFb9060Check(o.connection, forDriver);
    } catch (const Error& e) {
        if (!watchdog || !watchdog->fired())
            throw;
        throw Error(ErrorKind::Connect,
                    "check fb9060: " + o.connection.label() + ": no answer within " + std::to_string(limit.count()) +
                        " s (the wire stall timeout; -P wire_stall_timeout_s=N); the table " + fb9060TableName() +
                        " may be left in the database (" + oneLine(e.what()) + ")");
    }
}

}  // namespace

std::string checkUsage() {
    return R"(Usage: blobbench-cli check fb9060 CONNECTION [OPTIONS]

Checks a Firebird server and client for issue #9060 (FirebirdSQL/firebird: "Inline blobs (protocol
19): stale blob content returned on same-transaction re-read after blob id reuse"; affects 5.0.3
and 5.0.4, fixed in 5.0.5). In one transaction, on a table of its own
(BLOBBENCH_FB9060_<pid>_<random>, dropped afterwards; the reference tables are not touched), it
inserts two rows, fetches row 1 with its BLOB and leaves the cursor open, frees row 1's BLOB,
fetches row 2, gives row 2 a new BLOB, re-reads it and compares it with what was written. By
default it runs twice: with the default inline BLOB size (65535) and with 0 (inline BLOBs off).

Options:
  -u, --username USER           user name
  -p, --password PASSWORD       password (better: ISC_PASSWORD in the environment)
      --client-library PATH     the libfbclient to load (a 5.0.3+ client for inline BLOBs)
  -c, --charset NAME            connection character set (default UTF8)
  -P, --param ID=VALUE          a Firebird tunable; -P max_inline_blob_size=N runs that size only;
                                -P wire_stall_timeout_s=N bounds the check (default 30 s, 0 = no bound;
                                at most 3600)

Exit codes: 0 not seen, 4 defect seen (with any size tried), 1 the check could not run, 2 bad usage.
)";
}

int runCheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    // A first SIGINT / SIGTERM ends the check at once with its own line: its statements are short,
    // and one blocked on a server gone silent cannot be cancelled. Installed before the Firebird
    // client loads, whose own handler otherwise shut the attachment down and the signal was said as
    // "Error reading data from the connection", exit 1 (hostile round 5c C4).
    SignalCancel interrupt;
    const std::string table = fb9060TableName();
    const std::string kept = "its table " + table + " may be left in the database (drop it: DROP TABLE " + table + ")";
    interrupt.endAtOnceUntilStarted("check fb9060", kept);
    try {
        const CheckOptions o = parse(args);
        if (o.help) {
            out << checkUsage();
            return kOk;
        }
        std::vector<std::string> sizes;
        if (const auto it = o.parameters.find("max_inline_blob_size"); it != o.parameters.end()) {
            sizes.push_back(it->second);
        } else {
            sizes = {"65535", "0"};
        }
        out << "Firebird issue #9060: stale BLOB content on a same-transaction re-read after BLOB id reuse "
               "(inline BLOBs, protocol 19)\n";
        out << "Known: " << fb9060KnownVersions() << '\n';
        bool seen = false;
        bool first = true;
        for (const std::string& size : sizes) {
            ParameterValues values = o.parameters;
            values["max_inline_blob_size"] = size;
            const Fb9060Outcome r = checkWithin(o, values);
            if (first) {
                out << "Connection: " << printable(o.connection.label()) << '\n';
                out << "Server: " << r.serverVersion << "; client: " << r.clientVersion << '\n';
                out << "These versions: " << describe(fb9060Expectation(r.serverVersion, r.clientVersion)) << '\n';
                first = false;
            }
            printOutcome(out, size, r);
            out.flush();  // a signal ends the process at once: what is checked is shown
            seen = seen || r.defectSeen();
        }
        out << "Result: " << (seen ? "defect seen" : "not seen") << '\n';
        return seen ? kDefectSeen : kOk;
    } catch (const Error& e) {
        if (SignalCancel::received() != 0) {
            interrupt.endAtOnceUntilStarted("check fb9060", kept);  // the signal failed it: said as such
        }
        err << "blobbench-cli: " << terminalLine(e.what()) << '\n';
        return e.kind() == ErrorKind::Usage ? kUsage : kFailed;
    } catch (const std::exception& e) {
        err << "blobbench-cli: " << terminalLine(e.what()) << '\n';
        return kFailed;
    }
}

}  // namespace blobbench::cli
