#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>

#include "engine/drivers/Registry.h"
#include "ui/ParameterPanel.h"

using namespace blobbench;

namespace {

// The kinds of tunable the engines declare, made by hand so the panel is tested without a driver.
std::vector<ParameterSpec> handMadeSpecs() {
    ParameterSpec inlineSize{"max_inline_blob_size", "Inline BLOB size", ParameterType::Integer, "16384", 0, 65535};
    inlineSize.unit = "B";
    inlineSize.scale = ParameterScale::PowerOfTwo;
    inlineSize.needs = "client and server >= 5.0.3";
    ParameterSpec bandwidth{"bandwidth_down", "Down bandwidth", ParameterType::Integer, "0", 0, 10000000000LL};
    bandwidth.unit = "bit/s";
    bandwidth.scale = ParameterScale::Log;
    ParameterSpec latency{"latency", "Latency", ParameterType::Integer, "20", 0, 500};
    latency.unit = "ms";
    ParameterSpec compression{"compression", "Wire compression", ParameterType::Boolean, "false"};
    compression.help = "zlib on the wire";
    ParameterSpec format{"result_format", "Result format", ParameterType::Enum, "text"};
    format.choices = {"text", "binary"};
    ParameterSpec role{"role", "Role", ParameterType::Text, ""};
    return {inlineSize, bandwidth, latency, compression, format, role};
}

}  // namespace

TEST(SliderScale, PowerOfTwoStepsEndAtTheMaximum) {
    const SliderScale scale(handMadeSpecs()[0]);
    // 0, 1, 2, 4, ..., 32768, then 65535 itself.
    EXPECT_EQ(scale.positions(), 18);
    EXPECT_EQ(scale.valueAt(0), 0);
    EXPECT_EQ(scale.valueAt(1), 1);
    EXPECT_EQ(scale.valueAt(15), 16384);
    EXPECT_EQ(scale.valueAt(17), 65535);
    EXPECT_EQ(scale.snap(3000), 2048);
    EXPECT_EQ(scale.snap(60000), 65535);
    EXPECT_EQ(scale.positionOf(16384), 15);
}

TEST(SliderScale, LogScaleIsMonotonicAndReachesBothEnds) {
    const SliderScale scale(handMadeSpecs()[1]);
    EXPECT_EQ(scale.positions(), 1001);
    EXPECT_EQ(scale.valueAt(0), 0);
    EXPECT_EQ(scale.valueAt(1000), 10000000000LL);
    std::int64_t previous = -1;
    for (int p = 0; p <= 1000; ++p) {
        EXPECT_GE(scale.valueAt(p), previous) << "position " << p;
        previous = scale.valueAt(p);
    }
    EXPECT_NEAR(static_cast<double>(scale.valueAt(scale.positionOf(2000000))), 2e6, 2e6 * 0.03);
}

TEST(SliderScale, WideLinearRangesFallBackToLog) {
    ParameterSpec wide{"x", "X", ParameterType::Integer, "0", 0, 1LL << 40};
    EXPECT_EQ(SliderScale(wide).positions(), 1001);
    ParameterSpec narrow{"y", "Y", ParameterType::Integer, "0", 10, 20};
    EXPECT_EQ(SliderScale(narrow).positions(), 11);
    EXPECT_EQ(SliderScale(narrow).valueAt(3), 13);
}

TEST(ParameterPanel, BuildsOneControlPerSpecOfTheRightKind) {
    ParameterPanel panel;
    panel.setSpecs(handMadeSpecs(), {{"latency", "35"}});
    ASSERT_EQ(panel.count(), 6);
    QWidget* inlineSize = panel.editor(QStringLiteral("max_inline_blob_size"));
    ASSERT_NE(inlineSize, nullptr);
    auto* slider = inlineSize->findChild<QSlider*>();
    auto* spin = inlineSize->findChild<QDoubleSpinBox*>();
    ASSERT_NE(slider, nullptr);
    ASSERT_NE(spin, nullptr);
    EXPECT_EQ(spin->suffix(), QStringLiteral(" B"));
    EXPECT_EQ(spin->value(), 16384.0);
    EXPECT_EQ(slider->maximum(), 17);
    EXPECT_EQ(slider->value(), 15);
    EXPECT_NE(qobject_cast<QCheckBox*>(panel.editor(QStringLiteral("compression"))), nullptr);
    auto* combo = qobject_cast<QComboBox*>(panel.editor(QStringLiteral("result_format")));
    ASSERT_NE(combo, nullptr);
    EXPECT_EQ(combo->count(), 2);
    EXPECT_EQ(combo->currentText(), QStringLiteral("text"));
    EXPECT_NE(qobject_cast<QLineEdit*>(panel.editor(QStringLiteral("role"))), nullptr);
    // A given value wins over the default; the rest are defaults.
    EXPECT_EQ(panel.value(QStringLiteral("latency")), QStringLiteral("35"));
    const ParameterValues values = panel.values();
    EXPECT_EQ(values.at("compression"), "false");
    EXPECT_EQ(values.at("bandwidth_down"), "0");
    // Help and version needs are the tooltip.
    EXPECT_TRUE(panel.editor(QStringLiteral("compression"))->toolTip().contains(QStringLiteral("zlib")));
    EXPECT_TRUE(inlineSize->toolTip().contains(QStringLiteral("5.0.3")));
}

TEST(ParameterPanel, SliderAndSpinBoxStayInStepAndSnapToPowersOfTwo) {
    ParameterPanel panel;
    panel.setSpecs(handMadeSpecs(), {});
    QSignalSpy changed(&panel, &ParameterPanel::valueChanged);
    QWidget* inlineSize = panel.editor(QStringLiteral("max_inline_blob_size"));
    auto* slider = inlineSize->findChild<QSlider*>();
    auto* spin = inlineSize->findChild<QDoubleSpinBox*>();
    slider->setValue(11);
    EXPECT_EQ(spin->value(), 1024.0);
    ASSERT_GE(changed.count(), 1);
    EXPECT_EQ(changed.last().at(0).toString(), QStringLiteral("max_inline_blob_size"));
    EXPECT_EQ(changed.last().at(1).toString(), QStringLiteral("1024"));
    spin->setValue(3000);  // typed: snapped to the nearest power of two
    EXPECT_EQ(spin->value(), 2048.0);
    EXPECT_EQ(slider->value(), 12);
    EXPECT_EQ(panel.value(QStringLiteral("max_inline_blob_size")), QStringLiteral("2048"));
    EXPECT_EQ(changed.last().at(1).toString(), QStringLiteral("2048"));

    panel.setValue(QStringLiteral("compression"), QStringLiteral("true"));
    EXPECT_EQ(changed.last().at(0).toString(), QStringLiteral("compression"));
    EXPECT_EQ(changed.last().at(1).toString(), QStringLiteral("true"));
    panel.setValue(QStringLiteral("result_format"), QStringLiteral("binary"));
    EXPECT_EQ(changed.last().at(1).toString(), QStringLiteral("binary"));
}

TEST(ParameterPanel, TunablesNotInEffectAreDisabledWithTheReason) {
    ParameterPanel panel;
    panel.setSpecs(handMadeSpecs(), {});
    ParameterEffect off{"max_inline_blob_size", "16384", "", false, "server 4.0.5 is older than 5.0.3"};
    ParameterEffect on{"compression", "true", "true", true, ""};
    panel.setEffects({off, on});
    QWidget* inlineSize = panel.editor(QStringLiteral("max_inline_blob_size"));
    EXPECT_FALSE(inlineSize->isEnabled());
    EXPECT_TRUE(inlineSize->toolTip().contains(QStringLiteral("server 4.0.5 is older than 5.0.3")));
    EXPECT_EQ(panel.disabledReason(QStringLiteral("max_inline_blob_size")),
              QStringLiteral("server 4.0.5 is older than 5.0.3"));
    EXPECT_TRUE(panel.editor(QStringLiteral("compression"))->isEnabled());
    panel.clearEffects();
    EXPECT_TRUE(inlineSize->isEnabled());
    EXPECT_TRUE(panel.disabledReason(QStringLiteral("max_inline_blob_size")).isEmpty());
}

TEST(ParameterPanel, RebuildsForAnotherEngineWithoutStaleControls) {
    ParameterPanel panel;
    panel.setSpecs(handMadeSpecs(), {});
    const Driver& sqlite = driverById("sqlite");
    panel.setSpecs(sqlite.parameters(), {});
    EXPECT_EQ(panel.count(), static_cast<int>(sqlite.parameters().size()));
    EXPECT_EQ(panel.editor(QStringLiteral("compression")), nullptr);
    // page_size, mmap_size, cache_size, and the load tunables (sessions, duration, rate, ramp-up)
    EXPECT_EQ(panel.findChildren<QSlider*>().size(), 7);
    // Every value the panel produces is one the engine accepts.
    EXPECT_NO_THROW(resolveParameters(sqlite.parameters(), panel.values()));
    panel.setSpecs({}, {});
    EXPECT_EQ(panel.count(), 0);
}
