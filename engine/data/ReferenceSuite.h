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
    // A data set loaded from a folder keeps each BLOB_TEST row's length and content hash
    // (ContentHash, 16 hex digits) for verify_content: its files are not kept with it. A synthetic
    // data set has no such table (its content is generated again from the seed).
    std::string hashTable = "BLOBBENCH_CONTENT_HASH";
    std::string createHashTable;
    std::string insertHash;  // (ID, LEN, HASH)
    std::string selectHash;  // ID, LEN, HASH in ID order
};
ReferenceSchema referenceSchema(Dialect dialect);

}  // namespace blobbench
