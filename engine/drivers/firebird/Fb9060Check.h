#pragma once

#include <string>
#include <vector>

#include "engine/drivers/Driver.h"

namespace blobbench {

// Firebird issue #9060 (FirebirdSQL/firebird, "Inline blobs (protocol 19): stale blob content
// returned on same-transaction re-read after blob id reuse"; labelled affect-version 5.0.3, 5.0.4
// and 6.0 Initial, fixed in 5.0.5 and 6.0 Alpha 1). The sequence of the report, in one transaction
// on a table of the check's own (created, then dropped):
//   INSERT rows 1 ('AAA-first') and 2;
//   SELECT FIRST 1 NAME, B ... ID = 1   (fetched, its cursor left open: the row's BLOB arrives inline)
//   UPDATE ... SET B = NULL WHERE ID = 1 (frees row 1's BLOB id)
//   SELECT FIRST 1 NAME, B ... ID = 2   (fetched, left open)
//   UPDATE ... SET B = 'BBB-second' WHERE ID = 2 (the new BLOB may reuse the freed id)
//   SELECT B ... ID = 2                  (re-read: 'BBB-second' expected)
// then the same re-read in a new transaction after the commit (the database itself is right).
struct Fb9060Outcome {
    std::string serverVersion;
    std::string clientVersion;
    std::string table;                    // the check's own table (dropped again)
    std::string inlineSize;               // as the attachment reports it, or why there is none
    bool inlineInEffect = false;          // client and server >= 5.0.3 and a size above 0
    std::string freedBlobId;              // row 1's BLOB id, freed by the first UPDATE (hex)
    std::string newBlobId;                // row 2's new BLOB id
    std::string expected = "BBB-second";  // what the re-read must return
    std::string got;                      // what it returned in the same transaction
    std::string gotAfterCommit;           // in a new transaction after the commit
    std::vector<std::string> steps;       // what was done, one line each
    bool blobIdReused() const { return !freedBlobId.empty() && freedBlobId == newBlobId; }
    bool defectSeen() const { return got != expected; }
};

// Runs the sequence on a fresh attachment of `spec` (a Firebird connection) with `values` (the
// driver's tunables as given: max_inline_blob_size decides inline BLOBs). BLOBs are opened with an
// empty BPB, as the report's application did, so the client's inline cache serves them. Throws
// Error with the server's words when a statement fails; the table is dropped on every path.
Fb9060Outcome runFb9060Check(const ConnectionSpec& spec, const ParameterValues& values);

// Which versions the issue names: one line for the report.
std::string fb9060KnownVersions();

// The check's own table, named by the process: BLOBBENCH_FB9060_<pid>_<6 random letters or digits>,
// the same for every call in one process.
std::string fb9060TableName();

// What the issue says of a server and a client of these versions (their version strings).
enum class Fb9060Expectation {
    Affected,    // both 5.0.3 or 5.0.4: the combination the report reproduced (server 5.0.4, clients 5.0.3/5.0.4)
    NoInline,    // a side older than 5.0.3 (or unknown): no inline BLOBs, the defect cannot occur
    Fixed,       // both 5.0.5 or later (6.0 Alpha 1 or later)
    NotCovered,  // a mix the report does not name (one side fixed, the other not; a 6.0 snapshot)
};
Fb9060Expectation fb9060Expectation(const std::string& serverVersion, const std::string& clientVersion);
const char* describe(Fb9060Expectation expectation);

}  // namespace blobbench
