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
    EXPECT_EQ(naming.label(pg), QStringLiteral("Short BLOBs · PostgreSQL · compression on"));
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
