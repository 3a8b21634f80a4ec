// wire_counting (engine/wire/WireParameters.h): in-process by default whenever nothing needs the
// relay; the relay when asked for or needed, and what the effects say then; the stall timeout is in
// effect either way.
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

TEST(WireCounting, DeclaredWithInProcessAsDefault) {
    const auto specs = wireParameters();
    const auto it =
        std::find_if(specs.begin(), specs.end(), [](const ParameterSpec& p) { return p.id == "wire_counting"; });
    ASSERT_NE(it, specs.end());
    EXPECT_EQ(it->type, ParameterType::Enum);
    EXPECT_EQ(it->defaultValue, "in-process");
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
    EXPECT_TRUE(effect(effects, "wire_stall_timeout_s").inEffect);  // the counter enforces it
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

TEST(WireCounting, InProcessByDefaultRelayWhenAskedAndNothingWithoutTheTap) {
    const WireSettings byDefault = resolveWireSettings(true, {}, false, {});
    EXPECT_TRUE(byDefault.inProcess);
    EXPECT_FALSE(byDefault.inProcessAsked);
    const auto defaultEffects = wireEffects(byDefault, resolvedFor(byDefault), false);
    EXPECT_TRUE(effect(defaultEffects, "wire_counting").inEffect);
    EXPECT_EQ(effect(defaultEffects, "wire_counting").actual, "in-process");
    EXPECT_TRUE(effect(defaultEffects, "wire_stall_timeout_s").inEffect);

    // The GUI passes every value of its panel: the default given explicitly is the same.
    EXPECT_TRUE(resolveWireSettings(true, {}, false, {{"wire_counting", "in-process"}}).inProcess);
    const WireSettings relay = resolveWireSettings(true, {}, false, {{"wire_counting", "relay"}});
    EXPECT_TRUE(relay.tap);
    EXPECT_FALSE(relay.inProcess);
    const auto relayEffects = wireEffects(relay, resolvedFor(relay), false);
    EXPECT_TRUE(effect(relayEffects, "wire_counting").inEffect);
    EXPECT_EQ(effect(relayEffects, "wire_counting").actual, "relay");

    // A link or the estimate without an explicit wire_counting: the relay, and that is no failure.
    LinkProfile link;
    link.bandwidthDown = 2'000'000;
    const WireSettings shaped = resolveWireSettings(true, link, false, {});
    EXPECT_FALSE(shaped.inProcess);
    const auto shapedEffects = wireEffects(shaped, resolvedFor(shaped), false);
    EXPECT_TRUE(effect(shapedEffects, "wire_counting").inEffect);
    EXPECT_EQ(effect(shapedEffects, "wire_counting").actual, "relay");

    EXPECT_FALSE(resolveWireSettings(false, {}, false, {}).inProcess);
    EXPECT_FALSE(resolveWireSettings(false, {}, false, {{"wire_counting", "in-process"}}).inProcess);
    EXPECT_THROW(resolveWireSettings(true, {}, false, {{"wire_counting", "sideways"}}), Error);
}

}  // namespace
}  // namespace blobbench
