// wire_counting (engine/wire/WireParameters.h): in-process only when asked for and nothing needs
// the relay; what the effects say when the relay counts instead; the stall timeout needs the relay.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/core/Error.h"
#include "engine/wire/WireParameters.h"

namespace blobbench {
namespace {

const ParameterEffect& effect(const std::vector<ParameterEffect>& effects, const char* id) {
    const auto it = std::find_if(effects.begin(), effects.end(), [&](const ParameterEffect& e) { return e.id == id; });
    EXPECT_NE(it, effects.end()) << id;
    return *it;
}

ParameterValues resolvedFor(const WireSettings& s) {
    ParameterValues resolved{{wireparam::WireTap, "true"}};
    storeWireSettings(s, resolved);
    return resolved;
}

TEST(WireCounting, DeclaredWithTheRelayAsDefault) {
    const auto specs = wireParameters();
    const auto it =
        std::find_if(specs.begin(), specs.end(), [](const ParameterSpec& p) { return p.id == "wire_counting"; });
    ASSERT_NE(it, specs.end());
    EXPECT_EQ(it->type, ParameterType::Enum);
    EXPECT_EQ(it->defaultValue, "relay");
    EXPECT_EQ(it->choices, (std::vector<std::string>{"relay", "in-process"}));
    EXPECT_TRUE(isWireParameter("wire_counting"));
}

TEST(WireCounting, InProcessWhenAskedAndUnshaped) {
    const WireSettings s = resolveWireSettings(true, {}, false, {{"wire_counting", "in-process"}});
    EXPECT_TRUE(s.tap);
    EXPECT_TRUE(s.inProcess);
    const auto resolved = resolvedFor(s);
    EXPECT_EQ(resolved.at("wire_counting"), "in-process");
    const auto effects = wireEffects(s, resolved, false);
    EXPECT_TRUE(effect(effects, "wire_counting").inEffect);
    EXPECT_EQ(effect(effects, "wire_counting").actual, "in-process");
    EXPECT_FALSE(effect(effects, "wire_stall_timeout_s").inEffect);
}

TEST(WireCounting, TheRelayCountsWhenTheLinkOrTheEstimateNeedsIt) {
    LinkProfile link;
    link.latencyUp = std::chrono::milliseconds(20);
    for (const WireSettings& s : {resolveWireSettings(true, link, false, {{"wire_counting", "in-process"}}),
                                  resolveWireSettings(true, {}, true, {{"wire_counting", "in-process"}})}) {
        EXPECT_TRUE(s.tap);
        EXPECT_FALSE(s.inProcess);
        const auto resolved = resolvedFor(s);
        EXPECT_EQ(resolved.at("wire_counting"), "relay");
        const auto effects = wireEffects(s, resolved, false);
        EXPECT_FALSE(effect(effects, "wire_counting").inEffect);
        EXPECT_EQ(effect(effects, "wire_counting").requested, "in-process");
        EXPECT_EQ(effect(effects, "wire_counting").actual, "relay");
        EXPECT_TRUE(effect(effects, "wire_stall_timeout_s").inEffect);
    }
}

TEST(WireCounting, RelayByDefaultAndNothingWithoutTheTap) {
    EXPECT_FALSE(resolveWireSettings(true, {}, false, {}).inProcess);
    EXPECT_FALSE(resolveWireSettings(false, {}, false, {{"wire_counting", "in-process"}}).inProcess);
    EXPECT_THROW(resolveWireSettings(true, {}, false, {{"wire_counting", "sideways"}}), Error);
}

}  // namespace
}  // namespace blobbench
