#pragma once

#include <string>
#include <vector>

#include "engine/run/Scenario.h"

namespace blobbench {

// The seven queries of the reference article (../shared/DATASET.md), in order, in the engine's
// SQL: Firebird verbatim, PostgreSQL and SQLite with the same meaning.
std::vector<Scenario> referenceSuite(Dialect dialect);

// DDL and DML of the reference tables for a dialect.
struct ReferenceSchema {
    std::vector<std::string> dropStatements;  // may fail when the table is missing: errors ignored
    std::vector<std::string> createStatements;
    std::string insertSample;  // (ID, FILE_NAME, CONTENT)
    std::string insertTest;    // (ID, SHORT_CONTENT, CONTENT, SHORT_BLOB)
    std::string insertMeta;    // (NAME, VAL)
    std::string selectMeta;    // NAME, VAL
    std::string metaTable = "BLOBBENCH_DATASET";
};
ReferenceSchema referenceSchema(Dialect dialect);

}  // namespace blobbench
