#pragma once

#include <functional>

#include "engine/data/Dataset.h"
#include "engine/run/ContentCheck.h"

namespace blobbench {

// verify_content=on: what the data set on `session` holds, row by row. A synthetic data set is
// generated again from its seed (the generator is deterministic: nothing is stored per row), and
// checked against the summary the prepare wrote (rows, content bytes, longest value), so a data set
// made by another version of the generator is said, not misjudged; about as long as generating the
// data (about 1.5 s for the reference 126 MB), before the run, never inside a measured span. A data
// set loaded from a folder (its files are not kept with it) is checked against the length and
// hash of each row its prepare stored in BLOBBENCH_CONTENT_HASH. A BLOB_TEST BlobBench did not
// prepare, or a folder data set prepared before the hashes were kept, cannot be verified: the
// expectation says why (notInEffect).
ContentExpectation expectedContent(Session& session);
// The synthetic case alone (a summary without a session: a folder data set is not in effect here).
ContentExpectation expectedContent(const DatasetSummary& summary, Dialect dialect);

// For RunPlan::expectContent: expectedContent, computed once per data set (by its source and the
// time it was prepared) for every run the function is handed to (a sweep's points).
std::function<ContentExpectation(Session&)> cachedExpectedContent();

}  // namespace blobbench
