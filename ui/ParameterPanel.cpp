#include "ui/ParameterPanel.h"

#include "engine/wire/WireParameters.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <algorithm>
#include <cmath>

#include "engine/core/Error.h"

namespace blobbench {
namespace {

constexpr int kLogSteps = 1000;
constexpr std::int64_t kMaxLinearPositions = 100000;

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

bool isPowerOfTwo(std::int64_t v) {
    return v > 0 && (v & (v - 1)) == 0;
}

}  // namespace

SliderScale::SliderScale(const ParameterSpec& spec)
    : m_scale(spec.scale), m_min(spec.minimum), m_max(std::max(spec.maximum, spec.minimum)) {
    if (m_scale == ParameterScale::Linear && m_max - m_min >= kMaxLinearPositions) {
        m_scale = ParameterScale::Log;
    }
    if (m_scale == ParameterScale::PowerOfTwo) {
        m_steps.push_back(m_min);
        for (std::int64_t p = 1; p > 0 && p <= m_max; p <<= 1) {
            if (p > m_min) {
                m_steps.push_back(p);
            }
        }
        if (m_steps.back() != m_max) {
            m_steps.push_back(m_max);  // e.g. 65,535, the largest inline BLOB size
        }
    }
}

int SliderScale::positions() const {
    switch (m_scale) {
        case ParameterScale::PowerOfTwo:
            return static_cast<int>(m_steps.size());
        case ParameterScale::Log:
            return kLogSteps + 1;
        case ParameterScale::Linear:
            break;
    }
    return static_cast<int>(m_max - m_min) + 1;
}

std::int64_t SliderScale::valueAt(int position) const {
    position = std::clamp(position, 0, positions() - 1);
    switch (m_scale) {
        case ParameterScale::PowerOfTwo:
            return m_steps[static_cast<std::size_t>(position)];
        case ParameterScale::Log: {
            // Position 0 is the minimum itself (often 0 = off); the rest spread over log(1..max).
            if (position == 0) {
                return m_min;
            }
            const double lo = std::log(static_cast<double>(std::max<std::int64_t>(m_min, 1)));
            const double hi = std::log(static_cast<double>(std::max<std::int64_t>(m_max, 1)));
            const double v = std::exp(lo + (hi - lo) * position / kLogSteps);
            return std::clamp(static_cast<std::int64_t>(std::llround(v)), m_min, m_max);
        }
        case ParameterScale::Linear:
            break;
    }
    return m_min + position;
}

int SliderScale::positionOf(std::int64_t value) const {
    value = std::clamp(value, m_min, m_max);
    switch (m_scale) {
        case ParameterScale::PowerOfTwo: {
            int best = 0;
            for (std::size_t i = 0; i < m_steps.size(); ++i) {
                if (std::llabs(m_steps[i] - value) < std::llabs(m_steps[static_cast<std::size_t>(best)] - value)) {
                    best = static_cast<int>(i);
                }
            }
            return best;
        }
        case ParameterScale::Log: {
            if (value <= m_min || value <= 0) {
                return 0;
            }
            const double lo = std::log(static_cast<double>(std::max<std::int64_t>(m_min, 1)));
            const double hi = std::log(static_cast<double>(std::max<std::int64_t>(m_max, 1)));
            if (hi <= lo) {
                return 0;
            }
            const double p = (std::log(static_cast<double>(value)) - lo) / (hi - lo) * kLogSteps;
            return std::clamp(static_cast<int>(std::lround(p)), 1, kLogSteps);
        }
        case ParameterScale::Linear:
            break;
    }
    return static_cast<int>(value - m_min);
}

ParameterPanel::ParameterPanel(QWidget* parent) : QWidget(parent), m_form(new QFormLayout(this)) {
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_form->setRowWrapPolicy(QFormLayout::DontWrapRows);
}

void ParameterPanel::setSpecs(const std::vector<ParameterSpec>& specs, const ParameterValues& values) {
    m_building = true;
    while (m_form->rowCount() > 0) {
        m_form->removeRow(0);
    }
    m_rows.clear();
    m_rows.reserve(specs.size());
    for (const ParameterSpec& spec : specs) {
        if (isWireParameter(spec.id)) {
            continue;  // the link group (LinkPanel) edits the tap and the link of the connection
        }
        Row& row = m_rows.emplace_back();
        row.spec = spec;
        const auto given = values.find(spec.id);
        row.editor = makeEditor(row, qs(given != values.end() ? given->second : spec.defaultValue));
        row.editor->setObjectName(QStringLiteral("param_") + qs(spec.id));
        row.label = new QLabel(qs(spec.label), this);
        // A long label takes two lines rather than the column's width (a laptop's column
        // scrolled sideways); a short one stays on one.
        row.label->setWordWrap(true);
        row.label->setMinimumWidth(std::min(row.label->fontMetrics().horizontalAdvance(row.label->text()) + 2,
                                            row.label->fontMetrics().averageCharWidth() * 22));
        row.label->setBuddy(row.editor);
        m_form->addRow(row.label, row.editor);
        row.note = new QLabel(this);
        row.note->setObjectName(QStringLiteral("note_") + qs(spec.id));
        row.note->setWordWrap(true);
        row.note->setStyleSheet(QStringLiteral("QLabel { color: #8a5a00; font-size: small; }"));
        m_form->addRow(QString(), row.note);
        applyTooltip(row);
    }
    if (specs.empty()) {
        m_form->addRow(new QLabel(tr("This engine declares no tunables."), this));
    }
    m_building = false;
    emit notInEffectChanged(notInEffectSummary());
}

QString ParameterPanel::notInEffectSummary() const {
    // One line per reason, naming the tunables it holds back: "Inline BLOB size, BLOB cache size —
    // not in effect: the server 3.0.12 is older (needs client and server >= 5.0.3)."
    QStringList reasons;
    std::map<QString, QStringList> labels;
    for (const Row& row : m_rows) {
        if (row.reason.isEmpty())
            continue;
        QString sentence = readableEffectReason(row.reason);
        if (!labels.contains(sentence))
            reasons << sentence;
        labels[sentence] << qs(row.spec.label);
    }
    QStringList lines;
    for (const QString& sentence : reasons) {
        QString lowered = sentence;
        lowered[0] = lowered[0].toLower();
        lines << labels[sentence].join(QStringLiteral(", ")) + QStringLiteral(" — ") + lowered;
    }
    return lines.join(QLatin1Char('\n'));
}

QWidget* ParameterPanel::makeEditor(Row& row, const QString& value) {
    const ParameterSpec& spec = row.spec;
    const QString id = qs(spec.id);
    switch (spec.type) {
        case ParameterType::Boolean: {
            auto* box = new QCheckBox(this);
            box->setChecked(value == QLatin1String("true"));
            connect(box, &QCheckBox::toggled, this, [this, id](bool on) {
                if (!m_building)
                    emit valueChanged(id, on ? QStringLiteral("true") : QStringLiteral("false"));
            });
            return box;
        }
        case ParameterType::Enum: {
            auto* combo = new QComboBox(this);
            for (const std::string& choice : spec.choices) {
                combo->addItem(qs(choice));
            }
            combo->setCurrentText(value);
            connect(combo, &QComboBox::currentTextChanged, this, [this, id](const QString& text) {
                if (!m_building)
                    emit valueChanged(id, text);
            });
            return combo;
        }
        case ParameterType::Text: {
            auto* edit = new QLineEdit(value, this);
            connect(edit, &QLineEdit::editingFinished, this, [this, id, edit] {
                if (!m_building)
                    emit valueChanged(id, edit->text());
            });
            return edit;
        }
        case ParameterType::Integer:
            break;
    }
    auto* box = new QWidget(this);
    auto* layout = new QHBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* slider = new QSlider(Qt::Horizontal, box);
    auto* spin = new QDoubleSpinBox(box);  // doubles hold 64-bit sizes exactly up to 2^53
    slider->setObjectName(QStringLiteral("slider"));
    spin->setObjectName(QStringLiteral("spin"));
    const auto scale = std::make_shared<SliderScale>(spec);
    slider->setRange(0, scale->positions() - 1);
    slider->setPageStep(std::max(1, scale->positions() / 16));
    spin->setDecimals(0);
    spin->setRange(static_cast<double>(spec.minimum), static_cast<double>(spec.maximum));
    spin->setGroupSeparatorShown(true);
    spin->setKeyboardTracking(false);
    // Wide enough for typical values, narrow enough to leave the slider room; the spin box's own
    // size hint is based on the maximum (1 TiB for some sizes) and would squeeze the slider away.
    spin->setFixedWidth(spin->fontMetrics().horizontalAdvance(QStringLiteral("0,000,000,000 KiB")) + 28);
    slider->setMinimumWidth(100);
    if (!spec.unit.empty()) {
        spin->setSuffix(QLatin1Char(' ') + qs(spec.unit));
    }
    std::int64_t initial = spec.minimum;
    try {
        initial = std::stoll(normaliseParameter(spec, value.toStdString()));
    } catch (const std::exception&) {
        // An unparsable saved value shows the minimum; the run reports the bad value by name.
    }
    spin->setValue(static_cast<double>(initial));
    slider->setValue(scale->positionOf(initial));
    layout->addWidget(slider, 1);
    layout->addWidget(spin);

    const auto publish = [this, id](std::int64_t v) {
        if (!m_building)
            emit valueChanged(id, QString::number(v));
    };
    connect(slider, &QSlider::valueChanged, this, [spin, scale, publish](int position) {
        const std::int64_t v = scale->valueAt(position);
        const QSignalBlocker block(spin);
        spin->setValue(static_cast<double>(v));
        publish(v);
    });
    connect(spin, &QDoubleSpinBox::valueChanged, this, [spin, slider, scale, publish, pow2 = spec.scale](double d) {
        std::int64_t v = std::llround(d);
        if (pow2 == ParameterScale::PowerOfTwo && !isPowerOfTwo(v)) {
            v = scale->snap(v);
            const QSignalBlocker block(spin);
            spin->setValue(static_cast<double>(v));
        }
        const QSignalBlocker block(slider);
        slider->setValue(scale->positionOf(v));
        publish(v);
    });
    return box;
}

void ParameterPanel::applyTooltip(Row& row) {
    QString tip = qs(row.spec.help);
    if (row.reason.isEmpty() && !row.spec.needs.empty()) {
        tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) + tr("Needs: %1").arg(qs(row.spec.needs));
    }
    const QString sentence = readableEffectReason(row.reason);
    if (!row.reason.isEmpty()) {
        tip = sentence + (tip.isEmpty() ? QString() : QStringLiteral("\n\n") + tip);
    }
    row.label->setToolTip(tip);
    row.editor->setToolTip(tip);
    row.note->setText(sentence);
    row.note->setVisible(!row.reason.isEmpty());
    const bool enabled = row.reason.isEmpty();
    row.editor->setEnabled(enabled);
    row.label->setEnabled(enabled);
}

QString readableEffectReason(const QString& reason) {
    if (reason.isEmpty())
        return {};
    QString text = reason.trimmed();
    const QString prefix = QStringLiteral("not in effect (");
    if (text.startsWith(prefix, Qt::CaseInsensitive) && text.endsWith(QLatin1Char(')')))
        text = text.mid(prefix.size(), text.size() - prefix.size() - 1);
    else if (text.startsWith(QLatin1String("not in effect"), Qt::CaseInsensitive))
        text = text.mid(13).trimmed();
    // "needs X: the server Y is older" reads better the other way round.
    const qsizetype colon = text.indexOf(QLatin1String(": "));
    if (text.startsWith(QLatin1String("needs ")) && colon > 0)
        text = text.mid(colon + 2) + QStringLiteral(" (") + text.left(colon) + QLatin1Char(')');
    while (text.startsWith(QLatin1Char(':')) || text.startsWith(QLatin1Char(' ')))
        text.remove(0, 1);
    return QObject::tr("Not in effect: %1.").arg(text);
}

void ParameterPanel::setEffects(const std::vector<ParameterEffect>& effects) {
    for (Row& row : m_rows) {
        row.reason.clear();
        for (const ParameterEffect& effect : effects) {
            if (effect.id == row.spec.id && !effect.inEffect) {
                row.reason = effect.reason.empty() ? tr("the session did not apply it") : qs(effect.reason);
            }
        }
        applyTooltip(row);
    }
    emit notInEffectChanged(notInEffectSummary());
}

void ParameterPanel::clearEffects() {
    setEffects({});
}

QString ParameterPanel::value(const QString& id) const {
    for (const Row& row : m_rows) {
        if (qs(row.spec.id) != id) {
            continue;
        }
        if (auto* box = qobject_cast<QCheckBox*>(row.editor)) {
            return box->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
        }
        if (auto* combo = qobject_cast<QComboBox*>(row.editor)) {
            return combo->currentText();
        }
        if (auto* edit = qobject_cast<QLineEdit*>(row.editor)) {
            return edit->text();
        }
        if (auto* spin = row.editor->findChild<QDoubleSpinBox*>()) {
            return QString::number(std::llround(spin->value()));
        }
    }
    return {};
}

ParameterValues ParameterPanel::values() const {
    ParameterValues out;
    for (const Row& row : m_rows) {
        out[row.spec.id] = value(qs(row.spec.id)).toStdString();
    }
    return out;
}

void ParameterPanel::setValue(const QString& id, const QString& value) {
    for (const Row& row : m_rows) {
        if (qs(row.spec.id) != id) {
            continue;
        }
        if (auto* box = qobject_cast<QCheckBox*>(row.editor)) {
            box->setChecked(value == QLatin1String("true"));
        } else if (auto* combo = qobject_cast<QComboBox*>(row.editor)) {
            combo->setCurrentText(value);
        } else if (auto* edit = qobject_cast<QLineEdit*>(row.editor)) {
            edit->setText(value);
            emit valueChanged(id, value);
        } else if (auto* spin = row.editor->findChild<QDoubleSpinBox*>()) {
            spin->setValue(value.toDouble());
        }
    }
}

QWidget* ParameterPanel::editor(const QString& id) const {
    for (const Row& row : m_rows) {
        if (qs(row.spec.id) == id) {
            return row.editor;
        }
    }
    return nullptr;
}

QString ParameterPanel::disabledReason(const QString& id) const {
    for (const Row& row : m_rows) {
        if (qs(row.spec.id) == id) {
            return row.reason;
        }
    }
    return {};
}

}  // namespace blobbench
