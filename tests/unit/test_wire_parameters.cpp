// The wire tunables as ParameterSpecs: declared by every networked driver, one precedence rule
// between the typed RunPlan fields and parameters given explicitly, and their effects.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "engine/wire/WireParameters.h"

using namespace blobbench;
using namespace std::chrono_literals;

namespace {

const ParameterSpec* find(const std::vector<ParameterSpec>& specs, const std::string& id) {
    auto it = std::find_if(specs.begin(), specs.end(), [&](const ParameterSpec& s) { return s.id == id; });
    return it == specs.end() ? nullptr : &*it;
}

const ParameterEffect* findEffect(const std::vector<ParameterEffect>& effects, const std::string& id) {
    auto it = std::find_if(effects.begin(), effects.end(), [&](const ParameterEffect& e) { return e.id == id; });
    return it == effects.end() ? nullptr : &*it;
}

LinkProfile typedLink() {
    LinkProfile link;
    link.latencyUp = link.latencyDown = 20ms;
    link.bandwidthDown = 2'000'000;
    return link;
}

}  // namespace

TEST(WireParameters, SpecsAreDeclaredAsTheIssueAsks) {
    const auto specs = wireParameters();
    const ParameterSpec* tap = find(specs, "wire_tap");
    ASSERT_NE(tap, nullptr);
    EXPECT_EQ(tap->type, ParameterType::Boolean);
    EXPECT_EQ(tap->defaultValue, "true");
    EXPECT_EQ(tap->label, "Measure through WireTap");
    for (const char* id : {"link_latency_up_ms", "link_latency_down_ms"}) {
        const ParameterSpec* p = find(specs, id);
        ASSERT_NE(p, nullptr) << id;
        EXPECT_EQ(p->unit, "ms");
        EXPECT_EQ(p->defaultValue, "0");
        EXPECT_EQ(p->maximum, 60'000);
    }
    for (const char* id : {"link_bandwidth_up", "link_bandwidth_down"}) {
        const ParameterSpec* p = find(specs, id);
        ASSERT_NE(p, nullptr) << id;
        EXPECT_EQ(p->unit, "bit/s");
        EXPECT_EQ(p->scale, ParameterScale::Log);
        EXPECT_EQ(p->defaultValue, "0");
        EXPECT_EQ(p->maximum, 10'000'000'000);
    }
    const ParameterSpec* estimate = find(specs, "wire_compression_estimate");
    ASSERT_NE(estimate, nullptr);
    EXPECT_EQ(estimate->type, ParameterType::Boolean);
    EXPECT_EQ(estimate->defaultValue, "false");
    for (const auto& spec : specs) {
        EXPECT_TRUE(isWireParameter(spec.id)) << spec.id;
        EXPECT_TRUE(spec.id.starts_with("wire_") || spec.id.starts_with("link_")) << spec.id;  // for grouping
        EXPECT_FALSE(spec.perStatement) << spec.id;  // the tap is set up at connect
    }
    EXPECT_FALSE(isWireParameter("fetch_size"));
}

TEST(WireParameters, EveryNetworkedDriverDeclaresThemAndOnlyThose) {
    for (const char* engine : {"postgres", "firebird", "sqlite"}) {
        const Driver& driver = driverById(engine);
        const auto specs = driver.parameters();
        for (const auto& wire : wireParameters()) {
            EXPECT_EQ(find(specs, wire.id) != nullptr, driver.networked()) << engine << " " << wire.id;
        }
        // -P link_latency_up_ms=40 resolves without engine-specific code.
        if (driver.networked()) {
            const auto resolved = resolveParameters(specs, {{"link_latency_up_ms", "40"}});
            EXPECT_EQ(resolved.at("link_latency_up_ms"), "40");
            EXPECT_EQ(resolved.at("wire_tap"), "true");
        } else {
            EXPECT_THROW(resolveParameters(specs, {{"link_latency_up_ms", "40"}}), Error);
        }
    }
}

TEST(WireParameters, TypedFieldsApplyWhenNothingIsGiven) {
    const WireSettings s = resolveWireSettings(true, typedLink(), false, {});
    EXPECT_TRUE(s.tap);
    EXPECT_EQ(s.link, typedLink());
    EXPECT_FALSE(s.estimateCompression);
    EXPECT_FALSE(resolveWireSettings(false, {}, false, {}).tap);
}

TEST(WireParameters, ExplicitNonDefaultValuesOverrideTheTypedFields) {
    const WireSettings s = resolveWireSettings(
        true, typedLink(), false, {{"link_latency_up_ms", "40"}, {"link_bandwidth_up", "512000"}, {"fetch_size", "9"}});
    EXPECT_EQ(s.link.latencyUp, 40ms);
    EXPECT_EQ(s.link.latencyDown, 20ms);  // not given: the typed value stays
    EXPECT_EQ(s.link.bandwidthUp, 512'000u);
    EXPECT_EQ(s.link.bandwidthDown, 2'000'000u);
    EXPECT_FALSE(resolveWireSettings(true, {}, false, {{"wire_tap", "off"}}).tap);
    EXPECT_TRUE(resolveWireSettings(false, {}, false, {{"wire_compression_estimate", "on"}}).estimateCompression);
}

TEST(WireParameters, DefaultValuesGivenOverrideNothing) {
    // The GUI passes every value of its panel: defaults must not wipe a profile's link.
    const WireSettings s = resolveWireSettings(false, typedLink(), true,
                                               {{"wire_tap", "true"},
                                                {"link_latency_up_ms", "0"},
                                                {"link_latency_down_ms", "0"},
                                                {"link_bandwidth_up", "0"},
                                                {"link_bandwidth_down", "0"},
                                                {"wire_compression_estimate", "false"}});
    EXPECT_EQ(s.link, typedLink());
    EXPECT_TRUE(s.estimateCompression);
    EXPECT_TRUE(s.tap);  // the link and the estimate need it
}

TEST(WireParameters, ALinkOrAnEstimateTurnsTheTapOn) {
    EXPECT_TRUE(resolveWireSettings(false, {}, false, {{"link_latency_down_ms", "5"}}).tap);
    EXPECT_TRUE(resolveWireSettings(false, typedLink(), false, {}).tap);
    EXPECT_TRUE(resolveWireSettings(false, {}, true, {}).tap);
}

TEST(WireParameters, ContradictionsAndBadValuesAreUsageErrors) {
    auto usage = [](auto call, const std::string& mention) {
        try {
            call();
            ADD_FAILURE() << "no error; expected one mentioning " << mention;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
        }
    };
    usage([] { resolveWireSettings(true, typedLink(), false, {{"wire_tap", "false"}}); }, "wire_tap=false");
    usage(
        [] {
            resolveWireSettings(false, {}, false, {{"wire_tap", "false"}, {"link_latency_up_ms", "9"}});
        },
        "wire_tap=false");
    usage(
        [] {
            resolveWireSettings(true, {}, false, {{"wire_tap", "0"}, {"wire_compression_estimate", "1"}});
        },
        "compression");
    usage([] { resolveWireSettings(true, {}, false, {{"link_bandwidth_down", "5000"}}); }, "link_bandwidth_down");
    usage([] { resolveWireSettings(true, {}, false, {{"link_bandwidth_up", "20000000000"}}); }, "link_bandwidth_up");
    usage([] { resolveWireSettings(true, {}, false, {{"link_latency_up_ms", "60001"}}); }, "link_latency_up_ms");
    usage([] { resolveWireSettings(true, {}, false, {{"link_latency_up_ms", "-1"}}); }, "link_latency_up_ms");
}

TEST(WireParameters, StoredSettingsAndTheirEffects) {
    const auto specs = driverById("postgres").parameters();
    ParameterValues resolved = resolveParameters(specs, {});
    WireSettings s;
    s.tap = true;
    s.link = typedLink();
    storeWireSettings(s, resolved);
    EXPECT_EQ(resolved.at("link_latency_up_ms"), "20");
    EXPECT_EQ(resolved.at("link_bandwidth_down"), "2000000");
    EXPECT_EQ(resolved.at("link_bandwidth_up"), "0");
    EXPECT_EQ(resolved.at("wire_tap"), "true");

    const auto tapped = wireEffects(s, resolved, false);
    ASSERT_EQ(tapped.size(), wireParameters().size());
    for (const auto& e : tapped) {
        EXPECT_TRUE(e.inEffect) << e.id;
        EXPECT_EQ(e.actual, e.requested) << e.id;
    }

    const auto embedded = wireEffects(s, resolved, true);
    EXPECT_FALSE(findEffect(embedded, "wire_tap")->inEffect);
    EXPECT_NE(findEffect(embedded, "wire_tap")->reason.find("embedded"), std::string::npos);
    EXPECT_FALSE(findEffect(embedded, "link_latency_up_ms")->inEffect);
    EXPECT_TRUE(findEffect(embedded, "link_bandwidth_up")->inEffect);  // 0: asks for nothing
    EXPECT_TRUE(findEffect(embedded, "wire_compression_estimate")->inEffect);

    ParameterValues sqlite = resolveParameters(driverById("sqlite").parameters(), {});
    const ParameterValues before = sqlite;
    storeWireSettings(s, sqlite);
    EXPECT_EQ(sqlite, before);
    EXPECT_TRUE(wireEffects(s, sqlite, true).empty());
}
