// FbCompatReport reproduces fb-blob-test's report line for line: fed the figures of the reference
// run (../shared/REFERENCE-REPORT.md, Firebird 5.0.3 with inline BLOBs and compression), it must
// print exactly that report (tests/unit/data/fb-blob-test-report.txt). And on a 3.0 pair it says
// what is missing instead of printing figures it does not have.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engine/data/ReferenceSuite.h"
#include "engine/report/FbCompatReport.h"
#include "engine/report/TextReport.h"

using namespace blobbench;

namespace {

struct Figures {
    long long ms;
    std::int64_t maxId;
    std::uint64_t rows, bytes;
    WireCounters logical, physical;
};

WireCounters counters(std::uint64_t sp, std::uint64_t rp, std::uint64_t sb, std::uint64_t rb,
                      std::optional<std::uint64_t> rt = std::nullopt) {
    WireCounters c;
    c.sendPackets = sp;
    c.recvPackets = rp;
    c.sendBytes = sb;
    c.recvBytes = rb;
    c.roundTrips = rt;
    return c;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

SessionInfo referenceSession() {
    SessionInfo info;
    info.versionBanner = {
        "Firebird/Windows/AMD/Intel/x64 (access method), version \"WI-V5.0.3.1627 Firebird 5.0 5e33dc5\"",
        "Firebird/Windows/AMD/Intel/x64 (remote server), version \"WI-V5.0.3.1627 Firebird 5.0 5e33dc5/tcp "
        "(station9)/P19:CZ\"",
        "Firebird/Windows/AMD/Intel/x64 (remote interface), version \"WI-V5.0.3.1627 Firebird 5.0 5e33dc5/tcp "
        "(station9)/P19:CZ\"",
        "on disk structure version 13.1"};
    return info;
}

Sample sampleOf(const Scenario& scenario, const Figures& f) {
    Sample s;
    s.scenarioTitle = scenario.title;
    s.sql = scenario.sql;
    s.phases.execute = std::chrono::milliseconds(f.ms);
    ParameterEffect inlineSize;
    inlineSize.id = "max_inline_blob_size";
    inlineSize.requested = "65535";
    inlineSize.actual = "65535";
    s.effects = {inlineSize};
    s.nativeLogical = WireStats::of(f.logical);
    s.nativePhysical = WireStats::of(f.physical);
    s.rows = f.rows;
    s.contentBytes = f.bytes;
    s.maxId = f.maxId;
    if (scenario.fetch == FetchMode::IdsOnly) {
        s.valuesSkipped = f.rows;
    }
    return s;
}

}  // namespace

TEST(FbCompatReport, ReproducesTheReferenceReportLineForLine) {
    const std::vector<Scenario> suite = referenceSuite(Dialect::Firebird);
    ASSERT_EQ(suite.size(), 7u);
    const Figures figures[] = {
        {569, 10000, 5884, 19810796, counters(24, 11792, 516, 20325368), counters(23, 422, 201, 3368040, 23)},
        {565, 10000, 5884, 19810796, counters(192, 6076, 3876, 19987304), counters(191, 522, 1543, 3257193, 191)},
        {3508, 10000, 10000, 126392558, counters(1854, 21560, 32424, 127328028),
         counters(972, 3640, 9171, 18590181, 883)},
        {4239, 10000, 10000, 126392558, counters(2087, 15909, 37092, 126990724),
         counters(1205, 3819, 10942, 18616305, 1074)},
        {3458, 10000, 10000, 126392558, counters(2087, 15909, 37092, 126990724),
         counters(1205, 3736, 10936, 18616305, 1074)},
        {2266, 10000, 10000, 0, counters(91, 19797, 1856, 104384300), counters(90, 1701, 755, 13489405, 90)},
    };
    std::ostringstream out;
    FbCompatReport report(out);
    report.header(referenceSession());
    Sample warm;
    warm.scenarioTitle = suite[0].title;
    warm.sql = suite[0].sql;
    warm.phases.execute = std::chrono::milliseconds(494);
    warm.scalarLabel = suite[0].scalarLabel;
    warm.scalar = "77743";
    report.section({warm}, suite[0].readsLobs);
    for (std::size_t i = 1; i < suite.size(); ++i) {
        report.section({sampleOf(suite[i], figures[i - 1])}, suite[i].readsLobs);
    }
    const std::string expected = readFile(BLOBBENCH_SOURCE_DIR "/tests/unit/data/fb-blob-test-report.txt");
    ASSERT_FALSE(expected.empty());
    // Line by line, so that a difference names its line.
    std::istringstream got(out.str()), want(expected);
    std::string g, w;
    int line = 0;
    while (std::getline(want, w)) {
        ++line;
        ASSERT_TRUE(std::getline(got, g)) << "output ends before line " << line << ": " << w;
        EXPECT_EQ(g, w) << "line " << line;
    }
    while (std::getline(got, g)) {
        EXPECT_TRUE(g.empty()) << "extra line: " << g;
    }
}

TEST(FbCompatReport, SaysWhatAThreeZeroPairCannotMeasure) {
    const std::vector<Scenario> suite = referenceSuite(Dialect::Firebird);
    Sample s;
    s.scenarioTitle = suite[3].title;
    s.sql = suite[3].sql;
    s.phases.execute = std::chrono::milliseconds(12);
    s.phases.fetch = std::chrono::microseconds(3400);
    ParameterEffect inlineSize;
    inlineSize.id = "max_inline_blob_size";
    inlineSize.requested = "65535";
    inlineSize.inEffect = false;
    inlineSize.reason = "not in effect (needs client and server >= 5.0.3)";
    s.effects = {inlineSize};
    s.nativeLogical = WireStats::unavailable("client 3.0.11 has no wire counters");
    s.nativePhysical = s.nativeLogical;
    s.rows = 3;
    s.contentBytes = 300;
    s.maxId = 3;
    std::ostringstream out;
    FbCompatReport report(out);
    report.section({s}, true);
    const std::string text = out.str();
    EXPECT_NE(text.find("\nMaxInlineBlobSize = 65535, not in effect (needs client and server >= 5.0.3)\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\nElapsed time: 15ms\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\nWire statistics: not available (client 3.0.11 has no wire counters)\n"), std::string::npos)
        << text;
    EXPECT_EQ(text.find("Wire logical statistics"), std::string::npos);

    s.nativeLogical = WireStats::unavailable("not applicable (embedded)");
    s.nativePhysical = s.nativeLogical;
    std::ostringstream embedded;
    FbCompatReport(embedded).section({s}, true);
    EXPECT_NE(embedded.str().find("\nWire statistics: not applicable (embedded)\n"), std::string::npos)
        << embedded.str();

    // A failed test shows the error instead of figures.
    s.status = SampleStatus::Failed;
    s.error = "firebird: Dynamic SQL Error SQL error code = -204 Table unknown BLOB_TEST";
    std::ostringstream failed;
    FbCompatReport(failed).section({s}, true);
    EXPECT_NE(failed.str().find("\nError: firebird: Dynamic SQL Error"), std::string::npos);
    EXPECT_EQ(failed.str().find("Elapsed time"), std::string::npos);
}

// A scenario that changes what it reads (a DELETE in it, a table another client fills) gives
// repetitions with different row counts: the run's report says so beside the median.
TEST(TextReportRows, RepetitionsThatReadDifferentRowCountsAreNamed) {
    const std::vector<Scenario> suite = referenceSuite(Dialect::SQLite);
    std::vector<Sample> reps(3);
    for (std::size_t i = 0; i < reps.size(); ++i) {
        reps[i].scenarioTitle = suite[0].title;
        reps[i].sql = suite[0].sql;
        reps[i].repetition = static_cast<int>(i);
        reps[i].phases.execute = std::chrono::milliseconds(10 + static_cast<int>(i));
        reps[i].rows = 5;
    }
    std::ostringstream same;
    TextReport(same).section(reps);
    EXPECT_EQ(same.str().find("Record counts differ"), std::string::npos) << same.str();

    reps[1].rows = 0;
    reps[2].rows = 0;
    std::ostringstream differ;
    TextReport(differ).section(reps);
    EXPECT_NE(
        differ.str().find("\nRecord counts differ between repetitions: 5 0 0 (the scenario changes what it reads"),
        std::string::npos)
        << differ.str();
}
