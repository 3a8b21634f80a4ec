#pragma once

#include <string>
#include <vector>

#include "engine/drivers/Driver.h"

namespace blobbench {

enum class ScenarioKind {
    Query,   // fetch every row, count rows, content bytes and the max id
    Scalar,  // one value of interest (the warm-up's max char length)
};

// One statement to measure, with what it means. `title` is the report's section header.
struct Scenario {
    std::string id;
    std::string title;
    ScenarioKind kind = ScenarioKind::Query;
    std::string setupSql;  // run before, not measured; empty for none
    std::string sql;
    FetchMode fetch = FetchMode::Content;
    std::string scalarLabel;  // Scalar: how the report names the value
    bool readsLobs = true;    // the statement returns LOB columns (the report shows the inline size)
};

}  // namespace blobbench
