#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/wire/LinkFit.h"

namespace blobbench {

// A published experiment's table as data (issue #28): each figure a cell with its quantity, value,
// unit, the conditions it was measured under, its source and the tolerance within which a figure
// measured here counts as reproducing it. docs/reproduce.md shows each table against this machine's.
enum class CellKind {
    Count,  // round trips, bytes, rows: link-independent, compared exactly or within a small tolerance
    Time,   // an absolute time: comparable only where the conditions it needs hold (link, size)
    Ratio,  // a ratio of two times or sizes of the same run: what survives a different machine
};

// One condition of a figure: "client" = "5.0.3", "link" = "not stated", "rows" = "1000". A required
// condition must hold for the figure to be comparable at all (a 5.0.1 client's time needs a 5.0.1
// client); the others, when they differ, are the likely reasons for a difference.
// A required value ending in '+' holds for that version or later ("5.0.3+" holds for 5.0.4).
struct Condition {
    std::string key;
    std::string value;
    bool required = false;
};

struct Source {
    std::string title;
    std::string url;
    std::string date;
};

struct PublishedCell {
    std::string id;        // "all-blobs.round-trips": matches the measured cell's id
    std::string quantity;  // "round trips, all BLOBs"
    double value = 0;
    std::string unit;  // "round trips", "bytes", "ms", "x"
    CellKind kind = CellKind::Count;
    double low = 0, high = 0;  // what counts as reproduced; equal to value for an exact figure
    std::string tolerance;     // in words: "exact", "within 5%", "stated range 5-15x"
    std::vector<Condition> conditions;
    std::string note;  // where the figure comes from when it is derived ("1,110 / 157")
};

PublishedCell exactCell(std::string id, std::string quantity, double value, std::string unit, CellKind kind);
// Reproduced within +-relative of the value (0.05 = 5%).
PublishedCell cellWithin(std::string id, std::string quantity, double value, std::string unit, CellKind kind,
                         double relative);
// A stated range ("5-15x slower"): reproduced anywhere in it; value is its middle.
PublishedCell rangeCell(std::string id, std::string quantity, double low, double high, std::string unit, CellKind kind);

struct Publication {
    std::string name;     // the reproduce NAME: "firebird-wire-blobs"
    std::string engine;   // the driver id the experiment runs on; empty when none here can
    std::string summary;  // one line for --list
    Source source;
    std::string link;  // as published: "2 Mbit/s down, 512 kbit/s up"; empty when not stated (fit it)
    std::vector<PublishedCell> cells;
    // Where the link is not stated: the published rows that give round trips, bytes and a time, to
    // fit it from (fitLink); empty when the link is stated or nothing to fit it from is published.
    std::vector<LinkSample> linkSamples;
};

// The link condition of a figure whose publication does not state its link; a run made with
// --at-fitted-link (at the link fitted from the publication's own rows) names it too.
inline constexpr const char* kFittedLink = "the article's (not stated; fitted)";

// The four publications of issue #28, in the order --list prints them.
const std::vector<Publication>& publications();
// Null when no publication has that name.
const Publication* findPublication(const std::string& name);
std::string publicationNames();  // "firebird-wire-blobs, postgres-bytea-2007, ..."

// What this machine measured for one cell, under its conditions; absent with the reason when it
// could not be measured here (no such client, no such server).
struct MeasuredCell {
    std::string id;
    std::optional<double> value;
    std::string missing;                // why there is no value
    std::vector<Condition> conditions;  // as measured: "client" = "5.0.4", "link" = "loopback"
};

enum class VerdictKind { Reproduced, Differs, NotComparable };
const char* toString(VerdictKind kind);  // "reproduced", "differs", "not comparable here"

struct Verdict {
    VerdictKind kind = VerdictKind::NotComparable;
    std::optional<double> deviation;  // measured / published - 1, when both exist
    std::string reason;               // the likely reason for a difference, or what is missing
};

Verdict judge(const PublishedCell& published, const MeasuredCell* measured);

// Whether a measured condition value meets a published one ("5.0.3+" against "5.0.4": yes).
bool conditionHolds(const std::string& published, const std::string& measured);

}  // namespace blobbench
