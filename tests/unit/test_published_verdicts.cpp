// The verdict logic of `blobbench-cli reproduce` (engine/report/PublishedTable.h) on the published
// tables themselves: each cell's own value reproduces it, a value outside its tolerance differs with
// the likely reason, and a cell whose required conditions do not hold here is not comparable.
#include <gtest/gtest.h>

#include <set>

#include "engine/report/PublishedTable.h"

using namespace blobbench;

namespace {

const PublishedCell& cell(const std::string& publication, const std::string& id) {
    const Publication* p = findPublication(publication);
    EXPECT_NE(p, nullptr) << publication;
    for (const PublishedCell& c : p->cells) {
        if (c.id == id) {
            return c;
        }
    }
    ADD_FAILURE() << "no cell " << id << " in " << publication;
    static const PublishedCell none;
    return none;
}

// A measurement that meets every condition the cell states, with `value`.
MeasuredCell meeting(const PublishedCell& c, double value) {
    MeasuredCell m;
    m.id = c.id;
    m.value = value;
    m.conditions = c.conditions;
    return m;
}

void set(MeasuredCell& m, const std::string& key, const std::string& value) {
    for (Condition& c : m.conditions) {
        if (c.key == key) {
            c.value = value;
            return;
        }
    }
    ADD_FAILURE() << m.id << " has no condition " << key;
}

}  // namespace

TEST(PublishedTables, EveryPublicationIsThereWithSourcesAndUniqueCellIds) {
    EXPECT_EQ(publicationNames(), "firebird-wire-blobs, postgres-bytea-2007, sqlite-35-percent, oracle-securefiles");
    for (const Publication& p : publications()) {
        EXPECT_FALSE(p.source.title.empty()) << p.name;
        EXPECT_FALSE(p.cells.empty()) << p.name;
        std::set<std::string> ids;
        for (const PublishedCell& c : p.cells) {
            EXPECT_TRUE(ids.insert(c.id).second) << p.name << ": " << c.id << " twice";
            EXPECT_LE(c.low, c.value) << c.id;
            EXPECT_GE(c.high, c.value) << c.id;
            EXPECT_FALSE(c.tolerance.empty()) << c.id;
        }
    }
    EXPECT_EQ(findPublication("no-such-thing"), nullptr);
}

TEST(PublishedTables, EachCellsOwnValueReproducesIt) {
    for (const Publication& p : publications()) {
        for (const PublishedCell& c : p.cells) {
            const MeasuredCell m = meeting(c, c.value);
            const Verdict v = judge(c, &m);
            EXPECT_EQ(v.kind, VerdictKind::Reproduced) << p.name << " " << c.id << ": " << v.reason;
            ASSERT_TRUE(v.deviation.has_value());
            EXPECT_NEAR(*v.deviation, 0.0, 1e-12);
        }
    }
}

TEST(PublishedTables, CountsAreExactOrWithinTheirStatedTolerance) {
    const PublishedCell& content = cell("firebird-wire-blobs", "all-blobs.content-bytes");
    EXPECT_EQ(content.tolerance, "exact");
    MeasuredCell m = meeting(content, 12607389);  // one byte more
    Verdict v = judge(content, &m);
    EXPECT_EQ(v.kind, VerdictKind::Differs);
    EXPECT_NE(v.reason.find("an unstated one differs"), std::string::npos) << v.reason;

    const PublishedCell& trips = cell("firebird-wire-blobs", "all-blobs.round-trips");  // 161, within 5%
    m = meeting(trips, 168);
    EXPECT_EQ(judge(trips, &m).kind, VerdictKind::Reproduced);
    m = meeting(trips, 170);
    v = judge(trips, &m);
    EXPECT_EQ(v.kind, VerdictKind::Differs);
    ASSERT_TRUE(v.deviation.has_value());
    EXPECT_NEAR(*v.deviation, 170.0 / 161.0 - 1.0, 1e-12);
    EXPECT_EQ(v.reason.substr(0, 6), "+5.6%:") << v.reason;
}

TEST(PublishedTables, AnOlderClientsFigureIsNotComparableWithANewerClient) {
    const PublishedCell& c = cell("firebird-wire-blobs", "short-blobs.round-trips.5.0.2");
    MeasuredCell m = meeting(c, 1001);
    set(m, "client", "5.0.4");
    const Verdict v = judge(c, &m);
    EXPECT_EQ(v.kind, VerdictKind::NotComparable);
    EXPECT_EQ(v.reason, "needs client 5.0.2 (this run: 5.0.4)");
    // The 5.0.3 log's counts hold for a 5.0.4 client ("5.0.3+").
    const PublishedCell& later = cell("firebird-wire-blobs", "short-blobs.round-trips");
    m = meeting(later, 26);
    set(m, "client", "5.0.4.1767");
    EXPECT_EQ(judge(later, &m).kind, VerdictKind::Reproduced);
    set(m, "client", "5.0.2");
    EXPECT_EQ(judge(later, &m).kind, VerdictKind::NotComparable);
}

TEST(PublishedTables, AbsoluteTimesNeedThePublishedLinkAndRatiosNameItAsTheReason) {
    const PublishedCell& time = cell("firebird-wire-blobs", "all-blobs.time.5.0.3.off");
    MeasuredCell m = meeting(time, 3254);
    set(m, "link", "loopback");
    Verdict v = judge(time, &m);
    EXPECT_EQ(v.kind, VerdictKind::NotComparable);
    EXPECT_NE(v.reason.find("needs link"), std::string::npos) << v.reason;

    const PublishedCell& ratio = cell("firebird-wire-blobs", "short-blobs.compression-ratio.5.0.3");
    EXPECT_NEAR(ratio.value, 1110.0 / 157.0, 1e-12);
    m = meeting(ratio, 1.1);
    set(m, "link", "loopback");
    v = judge(ratio, &m);
    EXPECT_EQ(v.kind, VerdictKind::Differs);
    EXPECT_NE(v.reason.find("link loopback here"), std::string::npos) << v.reason;
    EXPECT_NE(v.reason.find("machine"), std::string::npos) << v.reason;
}

TEST(PublishedTables, PostgresRatiosAndSqliteRangesJudgeOnTheirTolerance) {
    const PublishedCell& insert = cell("postgres-bytea-2007", "insert.ratio");  // 3.6, within 20%
    MeasuredCell m = meeting(insert, 2.9);
    EXPECT_EQ(judge(insert, &m).kind, VerdictKind::Reproduced);
    m = meeting(insert, 2.8);
    set(m, "insert as", "a text parameter (escape)");
    const Verdict v = judge(insert, &m);
    EXPECT_EQ(v.kind, VerdictKind::Differs);
    EXPECT_NE(v.reason.find("insert as a text parameter (escape) here"), std::string::npos) << v.reason;

    const PublishedCell& writes = cell("sqlite-35-percent", "write.vs-read");  // stated range 5-15
    EXPECT_EQ(writes.tolerance, "stated range 5-15");
    for (const auto& [x, kind] : std::vector<std::pair<double, VerdictKind>>{{4.9, VerdictKind::Differs},
                                                                             {5, VerdictKind::Reproduced},
                                                                             {15, VerdictKind::Reproduced},
                                                                             {15.1, VerdictKind::Differs}}) {
        m = meeting(writes, x);
        EXPECT_EQ(judge(writes, &m).kind, kind) << x;
    }
}

TEST(PublishedTables, NothingMeasuredIsNotComparableWithTheReason) {
    const PublishedCell& oracle = cell("oracle-securefiles", "insert-rate.ratio");
    EXPECT_EQ(judge(oracle, nullptr).kind, VerdictKind::NotComparable);
    MeasuredCell m;
    m.id = oracle.id;
    m.missing = "no Oracle server here";
    const Verdict v = judge(oracle, &m);
    EXPECT_EQ(v.kind, VerdictKind::NotComparable);
    EXPECT_EQ(v.reason, "no Oracle server here");
    EXPECT_FALSE(v.deviation.has_value());
}

TEST(PublishedTables, VersionConditions) {
    EXPECT_TRUE(conditionHolds("5.0.3+", "5.0.3"));
    EXPECT_TRUE(conditionHolds("5.0.3+", "5.0.4"));
    EXPECT_TRUE(conditionHolds("5.0.3+", "6.0.0.100"));
    EXPECT_FALSE(conditionHolds("5.0.3+", "5.0.2"));
    EXPECT_FALSE(conditionHolds("5.0.3+", "unknown"));
    EXPECT_TRUE(conditionHolds("5.0.2", "5.0.2.1613"));
    EXPECT_FALSE(conditionHolds("5.0.2", "5.0.20"));
    EXPECT_FALSE(conditionHolds("off", "on"));
}
