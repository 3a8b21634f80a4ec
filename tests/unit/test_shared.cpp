// Copy-on-write sharing of a sample's session context: a change never shows in another copy, equal
// neighbours end up holding one value, and a loaded project's samples share what they have in common.
#include <gtest/gtest.h>

#include "engine/core/Sample.h"
#include "model/ProjectFile.h"

using namespace blobbench;

TEST(Shared, ACopyChangedDoesNotChangeTheOther) {
    Shared<ParameterValues> a;
    EXPECT_TRUE(a.empty());
    a = {{"page_size", "4096"}};
    Shared<ParameterValues> b = a;
    EXPECT_TRUE(b.sharesWith(a));
    b["page_size"] = "8192";
    EXPECT_FALSE(b.sharesWith(a));
    EXPECT_EQ(a.at("page_size"), "4096");
    EXPECT_EQ(b.at("page_size"), "8192");

    Shared<std::vector<ParameterEffect>> e;
    e.push_back({"mmap_size", "0", "0", true, ""});
    Shared<std::vector<ParameterEffect>> f = e;
    f.mut().front().actual = "65536";
    EXPECT_EQ(e.get().front().actual, "0");
    f.clear();
    EXPECT_TRUE(f.empty());
    EXPECT_EQ(e.size(), 1u);
}

TEST(Shared, EqualNeighboursShareOneValue) {
    SampleContextSharing context;
    std::vector<Sample> samples(4);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        samples[i].negotiated = {{"protocol", "19"}};
        samples[i].parameters = {{"fetch_size", i < 2 ? "100" : "1000"}};
        context.share(samples[i]);
    }
    EXPECT_TRUE(samples[0].negotiated.sharesWith(samples[3].negotiated));
    EXPECT_TRUE(samples[0].parameters.sharesWith(samples[1].parameters));
    EXPECT_FALSE(samples[1].parameters.sharesWith(samples[2].parameters));  // different values stay apart
    EXPECT_TRUE(samples[2].parameters.sharesWith(samples[3].parameters));
    EXPECT_EQ(samples[3].parameters.at("fetch_size"), "1000");
}

TEST(Shared, LoadedSamplesShareTheirContext) {
    Project p;
    p.name = QStringLiteral("sharing");
    RunRecord run;
    run.runId = QStringLiteral("r1");
    for (int rep = 0; rep < 3; ++rep) {
        Sample s;
        s.runId = "r1";
        s.scenarioId = "all-blobs";
        s.repetition = rep;
        s.engine = "sqlite";
        s.negotiated = {{"journal_mode", "delete"}};
        s.parameters = {{"mmap_size", rep == 2 ? "65536" : "0"}};
        s.effects = {{"mmap_size", "0", "0", true, ""}};
        run.samples.push_back(s);
    }
    p.history.push_back(run);
    const Project loaded = projectFromJson(projectToJson(p));
    const auto& samples = loaded.history.at(0).samples;
    ASSERT_EQ(samples.size(), 3u);
    EXPECT_TRUE(samples[0].effects.sharesWith(samples[2].effects));
    EXPECT_TRUE(samples[0].negotiated.sharesWith(samples[1].negotiated));
    EXPECT_TRUE(samples[0].parameters.sharesWith(samples[1].parameters));
    EXPECT_FALSE(samples[1].parameters.sharesWith(samples[2].parameters));
    EXPECT_EQ(samples[2].parameters.at("mmap_size"), "65536");
    EXPECT_EQ(projectToJson(loaded), projectToJson(p));
}
