// What tells runs and series apart: model/SeriesNaming, the history's settings column and the
// Markdown comparison.
#include <gtest/gtest.h>

#include "model/MarkdownExport.h"
#include "model/RunComparison.h"
#include "model/SeriesNaming.h"

using namespace blobbench;

namespace {

Sample sample(const std::string& scenario, ParameterValues parameters, double ms = 10,
              const std::string& connection = "Firebird 5") {
    Sample s;
    s.scenarioId = scenario;
    s.scenarioTitle = scenario == "short" ? "Short BLOBs" : scenario;
    s.connection = connection;
    s.parameters = std::move(parameters);
    s.phases.fetch = std::chrono::microseconds(static_cast<std::int64_t>(ms * 1000));
    return s;
}

}  // namespace

TEST(SeriesNaming, NamesOnlyWhatDiffersAndKeysEveryParameter) {
    const Sample off = sample("short", {{"wire_compression", "false"}, {"max_inline_blob_size", "0"}});
    const Sample on = sample("short", {{"wire_compression", "true"}, {"max_inline_blob_size", "0"}});
    SeriesNaming naming({off});
    EXPECT_EQ(naming.label(off), QStringLiteral("Short BLOBs"));  // nothing differs yet
    naming.add(on);
    EXPECT_EQ(naming.label(off), QStringLiteral("Short BLOBs · compression off"));
    EXPECT_EQ(naming.label(on), QStringLiteral("Short BLOBs · compression on"));
    EXPECT_EQ(naming.differingKeys(), QStringList{QStringLiteral("wire_compression")});
    EXPECT_NE(SeriesNaming::seriesKey(off), SeriesNaming::seriesKey(on));
    // Another connection with the same settings is another series, named by its connection.
    const Sample pg = sample("short", {{"wire_compression", "true"}, {"max_inline_blob_size", "0"}}, 10, "PostgreSQL");
    naming.add(pg);
    EXPECT_NE(SeriesNaming::seriesKey(on), SeriesNaming::seriesKey(pg));
    // Named by its connection, then by what differs among that connection's samples: nothing.
    EXPECT_EQ(naming.label(pg), QStringLiteral("Short BLOBs · PostgreSQL"));
    EXPECT_EQ(naming.label(on), QStringLiteral("Short BLOBs · Firebird 5 · compression on"));
}

// #30 item 3: with several engines every tunable "differed" (the other engine has other ones) and
// the names listed all of them, the settings under study cut off at the end. A name is the
// connection, then only what differs among that connection's samples; the same in History.
TEST(SeriesNaming, SeveralEnginesNameTheConnectionThenOnlyItsOwnDifferences) {
    const ParameterValues fbBase{{"wire_compression", "false"},
                                 {"max_inline_blob_size", "65535"},
                                 {"blob_buffer_size", "65535"},
                                 {"max_blob_cache_size", "10485760"},
                                 {"wire_crypt", "false"}};
    ParameterValues fbInline0 = fbBase;
    fbInline0["max_inline_blob_size"] = "0";
    const ParameterValues pgText{{"result_format", "text"}, {"fetch_size", "0"}, {"wire_compression", "false"}};
    ParameterValues pgBinary = pgText;
    pgBinary["result_format"] = "binary";
    const ParameterValues sqlite{{"page_size", "4096"}, {"cache_size", "2000"}, {"mmap_size", "0"}};
    const Sample fb1 = sample("short", fbBase, 10, "Firebird 5"), fb2 = sample("short", fbInline0, 10, "Firebird 5");
    const Sample pg1 = sample("short", pgText, 10, "PostgreSQL"), pg2 = sample("short", pgBinary, 10, "PostgreSQL");
    const Sample lite = sample("short", sqlite, 10, "SQLite");
    const SeriesNaming naming({fb1, fb2, pg1, pg2, lite});
    EXPECT_EQ(naming.label(fb1), QStringLiteral("Short BLOBs · Firebird 5 · inline 65535"));
    EXPECT_EQ(naming.label(fb2), QStringLiteral("Short BLOBs · Firebird 5 · inline 0"));
    EXPECT_EQ(naming.label(pg1), QStringLiteral("Short BLOBs · PostgreSQL · format text"));
    EXPECT_EQ(naming.label(pg2), QStringLiteral("Short BLOBs · PostgreSQL · format binary"));
    EXPECT_EQ(naming.label(lite), QStringLiteral("Short BLOBs · SQLite"));
    EXPECT_EQ(naming.differingKeys(), (QStringList{QStringLiteral("connection"), QStringLiteral("max_inline_blob_size"),
                                                   QStringLiteral("result_format")}));

    const std::vector<Sample> r1{fb1}, r2{fb2}, r3{pg1}, r4{pg2}, r5{lite};
    EXPECT_EQ(runSettingsTexts({&r1, &r2, &r3, &r4, &r5}),
              (QStringList{QStringLiteral("Firebird 5 · inline 65535"), QStringLiteral("Firebird 5 · inline 0"),
                           QStringLiteral("PostgreSQL · format text"), QStringLiteral("PostgreSQL · format binary"),
                           QStringLiteral("SQLite")}));
    // History shows the connection in a column of its own: its Settings column leaves it out.
    EXPECT_EQ(runSettingsTexts({&r1, &r2, &r3, &r4, &r5}, false),
              (QStringList{QStringLiteral("inline 65535"), QStringLiteral("inline 0"), QStringLiteral("format text"),
                           QStringLiteral("format binary"), QString()}));
}

TEST(SeriesNaming, RunsAndComparisonsNameTheSettingsThatDiffer) {
    const std::vector<Sample> base{sample("short", {{"wire_compression", "false"}, {"page_size", "8192"}}, 30),
                                   sample("short", {{"wire_compression", "false"}, {"page_size", "8192"}}, 31)};
    const std::vector<Sample> candidate{sample("short", {{"wire_compression", "true"}, {"page_size", "8192"}}, 10),
                                        sample("short", {{"wire_compression", "true"}, {"page_size", "8192"}}, 11)};
    const std::vector<Sample> swept{sample("short", {{"wire_compression", "false"}, {"page_size", "8192"}}),
                                    sample("short", {{"wire_compression", "true"}, {"page_size", "8192"}})};
    EXPECT_EQ(runSettingsTexts({&base, &candidate, &swept}),
              (QStringList{QStringLiteral("compression off"), QStringLiteral("compression on"),
                           QStringLiteral("compression off/on")}));
    const std::vector<Sample> empty;
    EXPECT_EQ(runSettingsTexts({&base, &empty}), (QStringList{QString(), QString()}));
    EXPECT_EQ(settingDifferences(base, candidate), QStringList{QStringLiteral("wire_compression: false → true")});
    EXPECT_TRUE(settingDifferences(base, base).isEmpty());

    RunRecord b, c;
    b.runId = QStringLiteral("base-run");
    b.samples = base;
    c.runId = QStringLiteral("new-run");
    c.samples = candidate;
    const QString md = markdownComparison(b, c, compareRuns(base, candidate));
    EXPECT_TRUE(md.contains(QStringLiteral("Settings that differ (base → new):\n\n- wire_compression: false → true")))
        << md.toStdString();
    EXPECT_TRUE(markdownComparison(b, b, compareRuns(base, base)).contains(QStringLiteral("the same in both runs")));
}

// A PostgreSQL URI already names its engine: the series and the history say "postgresql://...",
// not "postgres:postgresql://..."; a label whose target does not name the engine keeps its prefix.
TEST(SeriesNaming, APostgresUriIsNotPrefixedWithItsEngineAgain) {
    const Sample pg = sample("short", {}, 10, "postgres:postgresql://postgres:***@127.0.0.1:5432/blob_test");
    const Sample fb = sample("short", {}, 10, "firebird:inet://127.0.0.1:3050//var/lib/firebird/blob_test.fdb");
    SeriesNaming naming({pg, fb});
    EXPECT_EQ(naming.label(pg), QStringLiteral("Short BLOBs · postgresql://postgres:***@127.0.0.1:5432/blob_test"));
    EXPECT_EQ(naming.label(fb),
              QStringLiteral("Short BLOBs · firebird:inet://127.0.0.1:3050//var/lib/firebird/blob_test.fdb"));
    const std::vector<Sample> a{pg}, b{fb};
    const QStringList runs = runSettingsTexts({&a, &b});
    ASSERT_EQ(runs.size(), 2);
    EXPECT_EQ(runs[0], QStringLiteral("postgresql://postgres:***@127.0.0.1:5432/blob_test"));
    EXPECT_EQ(connectionText("postgres:host=h dbname=d"), QStringLiteral("postgres:host=h dbname=d"));
    EXPECT_EQ(connectionText("sqlite:/tmp/x.sqlite"), QStringLiteral("sqlite:/tmp/x.sqlite"));
}

// #30: a What-if check at 20 ms ran through the relay; its series read "link latency down ms 0 ·
// link latency up ms 0 · inline 0 · co..." (the four link_* parameters one by one, the setting under
// study squeezed between them). The link is one setting named as applied, and the way of measuring
// (link, counting) comes after the engine's tunables.
TEST(SeriesNaming, TheLinkIsOneSettingNamedAfterTheTunablesUnderStudy) {
    Sample plain = sample("short", {{"max_inline_blob_size", "0"}, {"wire_counting", "in-process"}});
    Sample big = sample("short", {{"max_inline_blob_size", "65535"}, {"wire_counting", "in-process"}});
    Sample check = sample("short", {{"max_inline_blob_size", "65535"},
                                    {"wire_counting", "relay"},
                                    {"link_latency_up_ms", "20"},
                                    {"link_latency_down_ms", "20"},
                                    {"link_bandwidth_up", "0"},
                                    {"link_bandwidth_down", "0"}});
    check.negotiated = {{"link", "up unlimited + 20 ms, down unlimited + 20 ms"}};
    Sample slow = check;
    slow.negotiated = {{"link", "up 2 Mbit/s + 20 ms, down 512 kbit/s + 20 ms"}};
    const SeriesNaming naming({plain, big, check, slow});
    EXPECT_EQ(naming.label(plain), QStringLiteral("Short BLOBs · inline 0 · link unshaped · counting in-process"));
    EXPECT_EQ(naming.label(check), QStringLiteral("Short BLOBs · inline 65535 · link 20 ms · counting relay"));
    EXPECT_EQ(naming.label(slow),
              QStringLiteral("Short BLOBs · inline 65535 · link up 2 Mbit/s + 20 ms, down 512 kbit/s + 20 ms · "
                             "counting relay"));
    const std::vector<Sample> r1{plain}, r2{check};
    EXPECT_EQ(runSettingsTexts({&r1, &r2}),
              (QStringList{QStringLiteral("inline 0 · link unshaped · counting in-process"),
                           QStringLiteral("inline 65535 · link 20 ms · counting relay")}));
    EXPECT_EQ(settingDifferences(r1, r2),
              (QStringList{QStringLiteral("link: unshaped → 20 ms"), QStringLiteral("max_inline_blob_size: 0 → 65535"),
                           QStringLiteral("wire_counting: in-process → relay")}));
}
