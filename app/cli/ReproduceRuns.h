#pragma once

#include <filesystem>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/drivers/Driver.h"
#include "engine/report/PublishedTable.h"
#include "engine/wire/LinkProfile.h"

namespace blobbench::cli {

// What `blobbench-cli reproduce` was asked to run (ReproduceCommand.cpp parses it).
struct ReproduceOptions {
    bool help = false;
    bool list = false;
    std::string name;
    ConnectionSpec connection;          // target empty: none given (sqlite-35-percent: a temporary directory)
    std::optional<std::uint64_t> rows;  // Firebird: the row limit (1000); SQLite: values (100,000)
    std::optional<std::uint64_t> size;  // PostgreSQL: the document's bytes (2 MiB)
    int repeat = 1;
    bool atFittedLink = false;
    std::string jsonPath;
    bool quiet = false;
    std::vector<std::string> tunings;  // the options given among those only some publications take
    ParameterValues parameters;        // -P: wire_stall_timeout_s only
};

// What one run of a publication's experiment measured: a cell per published cell it can speak for
// (ids equal), how it was measured, and the samples a link can be fitted from.
struct Measurement {
    std::vector<MeasuredCell> cells;
    std::vector<std::pair<std::string, std::string>> method;  // (what, how), in the order printed
    std::vector<LinkSample> linkSamples;                      // measured: round trips, bytes, time
    LinkProfile link;                                         // what the relay emulated
};

// Each throws Error: Usage before anything runs, else what failed (connection, statement).
Measurement measureFirebird(const Publication& p, const ReproduceOptions& o, const std::optional<LinkProfile>& fitted);
Measurement measurePostgres(const Publication& p, const ReproduceOptions& o);
// sqlite-35-percent's work directory when no CONNECTION names one (removed afterwards).
std::filesystem::path temporaryReproduceDirectory();

Measurement measureSqlite(const Publication& p, const ReproduceOptions& o);
// No engine here runs it: every cell is missing, with the reason.
Measurement measureNothing(const Publication& p, const std::string& why);

// "5.0.4.1767" from "WI-V5.0.4.1767 Firebird 5.0" (the first dotted number), else the text itself.
std::string versionIn(const std::string& text);

}  // namespace blobbench::cli
