// fitLink (engine/wire/LinkFit.h): the what-if model run backwards recovers a link from samples
// generated at it, and says why when it cannot.
#include <gtest/gtest.h>

#include <random>

#include "engine/report/PublishedTable.h"
#include "engine/wire/LinkFit.h"

using namespace blobbench;

TEST(LinkFit, RecoversASyntheticLinkWithinFivePercent) {
    const double rtt = 0.020;      // 20 ms round trip
    const double bandwidth = 8e6;  // 8 Mbit/s
    std::mt19937 random(28);
    std::uniform_real_distribution<double> noise(-0.02, 0.02);  // +-2% of each time
    std::vector<LinkSample> samples;
    const std::vector<std::pair<double, double>> shapes = {{1001, 3.4e6}, {26, 3.4e6},  {161, 12.7e6},
                                                           {33, 0.1e6},   {74, 10.4e6}, {5, 1e6}};
    for (const auto& [trips, bytes] : shapes) {
        const double t = trips * rtt + bytes * 8 / bandwidth;
        samples.push_back({"synthetic", trips, bytes, t * (1 + noise(random))});
    }
    const LinkFitResult fit = fitLink(samples);
    ASSERT_TRUE(fit.ok) << fit.why;
    EXPECT_NEAR(fit.rttSeconds, rtt, rtt * 0.05);
    EXPECT_NEAR(fit.bitsPerSecond, bandwidth, bandwidth * 0.05);
    ASSERT_EQ(fit.residualSeconds.size(), samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) {
        EXPECT_NEAR(fit.predictedSeconds[i] + fit.residualSeconds[i], samples[i].seconds, 1e-12);
    }
    const LinkProfile link = fit.profile();
    EXPECT_EQ(link.latencyUp, link.latencyDown);
    EXPECT_NEAR(static_cast<double>((link.latencyUp + link.latencyDown).count()), rtt * 1e9, rtt * 1e9 * 0.05);
    EXPECT_EQ(link.bandwidthUp, link.bandwidthDown);
}

TEST(LinkFit, ExactSamplesGiveTheLinkExactly) {
    const std::vector<LinkSample> samples = {{"a", 10, 1e6, 10 * 0.004 + 8e6 / 50e6},
                                             {"b", 100, 1e5, 100 * 0.004 + 8e5 / 50e6}};
    const LinkFitResult fit = fitLink(samples);
    ASSERT_TRUE(fit.ok) << fit.why;
    EXPECT_NEAR(fit.rttSeconds, 0.004, 1e-12);
    EXPECT_NEAR(fit.bitsPerSecond, 50e6, 1e-3);
    EXPECT_NEAR(fit.rmsSeconds, 0.0, 1e-12);
}

TEST(LinkFit, RefusesWhatCannotBeFitted) {
    EXPECT_FALSE(fitLink({}).ok);
    EXPECT_FALSE(fitLink({{"one", 10, 1e6, 1}}).ok);
    // Proportional rows: round trips and bytes cannot be told apart.
    const LinkFitResult same = fitLink({{"a", 10, 1e6, 1}, {"b", 20, 2e6, 2}});
    EXPECT_FALSE(same.ok);
    EXPECT_NE(same.why.find("apart"), std::string::npos);
    // More round trips taking less time: no positive link explains it.
    const LinkFitResult odd = fitLink({{"a", 10, 1e6, 1.0}, {"b", 1000, 1e6, 0.5}});
    EXPECT_FALSE(odd.ok) << odd.describe();
    EXPECT_EQ(odd.describe().substr(0, 8), "no fit: ");
}

TEST(LinkFit, TheFirebirdArticlesLinkIsFittedFromItsLog) {
    const Publication* p = findPublication("firebird-wire-blobs");
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(p->linkSamples.size(), 3u);
    const LinkFitResult fit = fitLink(p->linkSamples);
    ASSERT_TRUE(fit.ok) << fit.why;
    // Worked by hand from the three rows: about 8.8 ms and 55 Mbit/s.
    EXPECT_NEAR(fit.rttSeconds * 1e3, 8.85, 0.05);
    EXPECT_NEAR(fit.bitsPerSecond / 1e6, 55.3, 0.1);
    EXPECT_EQ(fit.describe().substr(0, 8), "RTT 8.85");
}
