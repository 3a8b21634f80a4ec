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
    // BLOB_TEST first and the marker last: a table another object depends on (a user's view or foreign
    // key) fails its drop before anything else is gone. Each names its table as its last word.
    std::vector<std::string> dropStatements;
    std::vector<std::string> createStatements;
    std::string insertSample;  // (ID, FILE_NAME, CONTENT)
    std::string insertTest;    // (ID, SHORT_CONTENT, CONTENT, SHORT_BLOB)
    std::string insertMeta;    // (NAME, VAL)
    std::string selectMeta;    // NAME, VAL
    // COUNT(*), MIN(ID), MAX(ID) and the content bytes of BLOB_TEST: what a prepared data set's marker
    // says of it (rows, ids 1..rows, content_bytes), to tell BlobBench's rows from a user's.
    std::string countShortRows = "SELECT COUNT(*) FROM BLOB_TEST WHERE SHORT_BLOB IS TRUE";
    std::string selectTestFingerprint = "SELECT COUNT(*), MIN(ID), MAX(ID), SUM(OCTET_LENGTH(CONTENT)) FROM BLOB_TEST";
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
