#pragma once

#include <QString>
#include <QWidget>
#include <cstdint>
#include <map>
#include <vector>

#include "engine/core/Parameter.h"

class QFormLayout;
class QLabel;

namespace blobbench {

// A driver's reason for a tunable not in effect as one short sentence: "not in effect (needs client
// and server >= 5.0.3: the server 3.0.12 is older)" becomes "Not in effect: the server 3.0.12 is
// older (needs client and server >= 5.0.3)."
QString readableEffectReason(const QString& reason);

// Maps an integer tunable onto a slider's positions: every value for small linear ranges, powers
// of two (plus the ends) for PowerOfTwo, 1,000 logarithmic steps for Log and for ranges too wide
// for a slider. Kept apart from the widgets so it can be tested on its own.
class SliderScale {
public:
    explicit SliderScale(const ParameterSpec& spec);
    int positions() const;  // slider maximum + 1
    std::int64_t valueAt(int position) const;
    int positionOf(std::int64_t value) const;  // the nearest position
    std::int64_t snap(std::int64_t value) const { return valueAt(positionOf(value)); }

private:
    ParameterScale m_scale;
    std::int64_t m_min;
    std::int64_t m_max;
    std::vector<std::int64_t> m_steps;  // PowerOfTwo: the values of the positions
};

// The tunables of an engine, generated from its ParameterSpec list: integer ranges as slider +
// spin box + unit, booleans as check boxes, enums as combos, text as a line edit. Knows nothing
// of any engine; a tunable a session reported as not in effect is disabled with the reason.
class ParameterPanel : public QWidget {
    Q_OBJECT
public:
    explicit ParameterPanel(QWidget* parent = nullptr);

    // Rebuilds the controls. `values` are the user's values; missing ones show the default.
    void setSpecs(const std::vector<ParameterSpec>& specs, const ParameterValues& values);
    // What a session did with the values: not in effect -> disabled, reason as tooltip.
    void setEffects(const std::vector<ParameterEffect>& effects);
    void clearEffects();

    ParameterValues values() const;
    QString value(const QString& id) const;
    void setValue(const QString& id, const QString& value);

    // The control of a tunable (QSlider row container, QCheckBox, QComboBox, QLineEdit), for tests.
    QWidget* editor(const QString& id) const;
    QString disabledReason(const QString& id) const;
    // The tunables not in effect and why, one line per reason; empty when all are in effect. The
    // window shows it above the scrolled tunables, so it is seen at any window height.
    QString notInEffectSummary() const;
    int count() const { return static_cast<int>(m_rows.size()); }

signals:
    void valueChanged(const QString& id, const QString& value);
    void notInEffectChanged(const QString& summary);

private:
    struct Row {
        ParameterSpec spec;
        QWidget* editor = nullptr;  // the container for integer rows
        QLabel* label = nullptr;
        QLabel* note = nullptr;  // the reason it is not in effect, under the editor
        QString reason;
    };
    QWidget* makeEditor(Row& row, const QString& value);
    void applyTooltip(Row& row);

    QFormLayout* m_form = nullptr;
    std::vector<Row> m_rows;
    bool m_building = false;
};

}  // namespace blobbench
