#include "ui/SweepEditor.h"

#include <QRegularExpression>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "engine/core/Error.h"
#include "engine/run/Sweep.h"

namespace blobbench {
namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QString uniqueSweepName(const Project& project, const QString& base) {
    QString name = base;
    for (int n = 2;; ++n) {
        const bool taken = std::any_of(project.sweeps.begin(), project.sweeps.end(),
                                       [&](const SweepDef& s) { return s.name == name; });
        if (!taken)
            return name;
        name = base + QLatin1Char(' ') + QString::number(n);
    }
}

// "0, 1024,4096" -> {"0", "1024", "4096"}
QStringList listValues(const QString& text) {
    QStringList out;
    for (const QString& v : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        if (!v.trimmed().isEmpty())
            out << v.trimmed();
    }
    return out;
}

// "64k", "1M", "2 MiB" -> "65536", "1048576", "2097152" for a tunable counted in bytes; any other
// text unchanged (the engine's validation names what is wrong with it).
QString expandByteSize(const QString& text) {
    static const QRegularExpression size(QStringLiteral("^(\\d+)\\s*([kmg])(?:i?b)?$"),
                                         QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch m = size.match(text.trimmed());
    if (!m.hasMatch())
        return text;
    const int shift = QStringLiteral("kmg").indexOf(m.captured(2).toLower()) * 10 + 10;
    return QString::number(m.captured(1).toLongLong() << shift);
}

}  // namespace

// A tunable over values it surely accepts: a boolean both ways, an enum's choices, an integer's
// minimum, default and maximum. The user edits from there.
SweepAxis defaultAxisFor(const ParameterSpec& spec) {
    SweepAxis axis;
    axis.parameter = qs(spec.id);
    switch (spec.type) {
        case ParameterType::Boolean:
            axis.values = {QStringLiteral("false"), QStringLiteral("true")};
            break;
        case ParameterType::Enum:
            for (const std::string& c : spec.choices)
                axis.values << qs(c);
            break;
        case ParameterType::Integer:
            for (const QString& v :
                 {QString::number(spec.minimum), qs(spec.defaultValue), QString::number(spec.maximum)}) {
                if (!axis.values.contains(v))
                    axis.values << v;
            }
            break;
        case ParameterType::Text:
            axis.values << qs(spec.defaultValue);
            break;
    }
    return axis;
}

SweepAxisEditor::SweepAxisEditor(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setVerticalSpacing(3);
    m_parameter = new QComboBox;
    m_parameter->setObjectName(QStringLiteral("sweepParameter"));
    form->addRow(tr("Tunable"), m_parameter);

    auto* modes = new QHBoxLayout;
    m_list = new QRadioButton(tr("List"));
    m_range = new QRadioButton(tr("Range"));
    m_list->setChecked(true);
    modes->addWidget(m_list);
    modes->addWidget(m_range);
    modes->addStretch(1);
    form->addRow(tr("Values"), modes);
    m_values = new QLineEdit;
    m_values->setObjectName(QStringLiteral("sweepValues"));
    m_values->setPlaceholderText(tr("0, 1024, 4096, 65535"));
    m_values->setToolTip(tr("The values in order, separated by commas"));
    form->addRow(QString(), m_values);

    m_rangeRow = new QWidget;
    auto* range = new QHBoxLayout(m_rangeRow);
    range->setContentsMargins(0, 0, 0, 0);
    m_from = new QLineEdit;
    m_from->setPlaceholderText(tr("from"));
    m_to = new QLineEdit;
    m_to->setPlaceholderText(tr("to"));
    m_points = new QSpinBox;
    m_points->setRange(1, static_cast<int>(kMaxSweepPoints));
    m_points->setSuffix(tr(" points"));
    m_points->setValue(5);
    m_log = new QCheckBox(tr("log"));
    m_log->setToolTip(tr("Values in a constant ratio (needs from > 0) instead of evenly spaced"));
    range->addWidget(m_from, 1);
    range->addWidget(new QLabel(QStringLiteral("…")));
    range->addWidget(m_to, 1);
    range->addWidget(m_points);
    range->addWidget(m_log);
    form->addRow(QString(), m_rangeRow);

    const auto changed = [this] {
        if (!m_loading)
            emit edited();
    };
    // Another tunable: the old values mean nothing to it, so it starts from its own.
    connect(m_parameter, &QComboBox::activated, this, [this, changed] {
        const QString id = m_parameter->currentData().toString();
        for (const ParameterSpec& spec : m_specs) {
            if (qs(spec.id) == id)
                load(defaultAxisFor(spec), true);
        }
        changed();
    });
    connect(m_list, &QRadioButton::toggled, this, [this, changed] {
        updateModeWidgets();
        changed();
    });
    for (QLineEdit* edit : {m_values, m_from, m_to})
        connect(edit, &QLineEdit::textEdited, this, changed);
    connect(m_points, &QSpinBox::valueChanged, this, changed);
    connect(m_log, &QCheckBox::toggled, this, changed);
    updateModeWidgets();
}

void SweepAxisEditor::load(const SweepAxis& axis, bool enabled) {
    m_loading = true;
    m_parameter->clear();
    for (const ParameterSpec& spec : m_specs) {
        m_parameter->addItem(qs(spec.label) + QStringLiteral(" (") + qs(spec.id) + QLatin1Char(')'), qs(spec.id));
        m_parameter->setItemData(m_parameter->count() - 1, qs(spec.help), Qt::ToolTipRole);
    }
    if (!axis.parameter.isEmpty() && m_parameter->findData(axis.parameter) < 0) {
        m_parameter->addItem(tr("%1 (not a tunable of this engine)").arg(axis.parameter), axis.parameter);
    }
    m_parameter->setCurrentIndex(std::max(0, m_parameter->findData(axis.parameter)));
    const bool isRange = axis.range.has_value();
    m_range->setChecked(isRange);
    m_list->setChecked(!isRange);
    if (listValues(m_values->text()) != axis.values) {
        m_values->setText(axis.values.join(QStringLiteral(", ")));
    }
    const SweepRangeDef r = axis.range.value_or(SweepRangeDef{0, 0, 5, false});
    if (isRange || !enabled) {
        if (m_from->text().toLongLong() != r.from || m_from->text().isEmpty())
            m_from->setText(enabled ? QString::number(r.from) : QString());
        if (m_to->text().toLongLong() != r.to || m_to->text().isEmpty())
            m_to->setText(enabled ? QString::number(r.to) : QString());
        m_points->setValue(std::max(1, r.points));
        m_log->setChecked(r.logarithmic);
    }
    for (QWidget* w : std::initializer_list<QWidget*>{m_parameter, m_list, m_range, m_values, m_rangeRow})
        w->setEnabled(enabled);
    m_loading = false;
    updateModeWidgets();
}

SweepAxis SweepAxisEditor::axis(QString* problem) const {
    SweepAxis axis;
    axis.parameter = m_parameter->currentData().toString();
    const bool inBytes = std::any_of(m_specs.begin(), m_specs.end(), [&](const ParameterSpec& spec) {
        return qs(spec.id) == axis.parameter && spec.unit == "B";
    });
    const auto bytes = [inBytes](const QString& text) { return inBytes ? expandByteSize(text) : text; };
    if (m_range->isChecked()) {
        SweepRangeDef r;
        bool fromOk = false, toOk = false;
        r.from = bytes(m_from->text()).trimmed().toLongLong(&fromOk);
        r.to = bytes(m_to->text()).trimmed().toLongLong(&toOk);
        if ((!fromOk || !toOk) && problem != nullptr && problem->isEmpty()) {
            *problem = tr("The range's %1 is not a whole number: “%2”")
                           .arg(fromOk ? tr("end") : tr("start"), (fromOk ? m_to : m_from)->text());
        }
        r.points = m_points->value();
        r.logarithmic = m_log->isChecked();
        axis.range = r;
    } else {
        for (const QString& v : listValues(m_values->text()))
            axis.values << bytes(v);
    }
    return axis;
}

void SweepAxisEditor::updateModeWidgets() {
    m_values->setVisible(m_list->isChecked());
    m_rangeRow->setVisible(m_range->isChecked());
}

SweepEditor::SweepEditor(ProjectDocument* document, QWidget* parent) : QWidget(parent), m_document(document) {
    setObjectName(QStringLiteral("sweepEditor"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);

    auto* top = new QHBoxLayout;
    m_sweeps = new QComboBox;
    m_sweeps->setObjectName(QStringLiteral("sweeps"));
    m_sweeps->setEditable(true);
    m_sweeps->setInsertPolicy(QComboBox::NoInsert);
    m_sweeps->setToolTip(tr("The project's sweeps; type to rename the current one"));
    top->addWidget(m_sweeps, 1);
    auto* add = new QToolButton;
    add->setText(tr("New"));
    add->setToolTip(tr("A new sweep of the first tunable"));
    connect(add, &QToolButton::clicked, this, [this] { newSweep(); });
    top->addWidget(add);
    auto* del = new QToolButton;
    del->setText(tr("Delete"));
    connect(del, &QToolButton::clicked, this, &SweepEditor::deleteSweep);
    top->addWidget(del);
    layout->addLayout(top);

    m_axes[0] = new SweepAxisEditor;
    m_axes[0]->setObjectName(QStringLiteral("sweepAxis1"));
    layout->addWidget(m_axes[0]);

    m_addAxis = new QPushButton(tr("Add a second axis (grid)"));
    m_addAxis->setObjectName(QStringLiteral("addSweepAxis"));
    m_addAxis->setToolTip(tr("Sweep a second tunable too: every value of the first with every value of the second"));
    layout->addWidget(m_addAxis, 0, Qt::AlignLeft);
    m_secondGroup = new QGroupBox(tr("Second axis (grid)"));
    auto* second = new QVBoxLayout(m_secondGroup);
    second->setContentsMargins(6, 4, 6, 4);
    m_axes[1] = new SweepAxisEditor;
    m_axes[1]->setObjectName(QStringLiteral("sweepAxis2"));
    second->addWidget(m_axes[1]);
    m_removeAxis = new QPushButton(tr("Remove the second axis"));
    m_removeAxis->setObjectName(QStringLiteral("removeSweepAxis"));
    second->addWidget(m_removeAxis, 0, Qt::AlignLeft);
    m_secondGroup->hide();
    layout->addWidget(m_secondGroup);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    auto* reps = new QHBoxLayout;
    m_repetitions = new QSpinBox;
    m_repetitions->setRange(1, 100000);
    m_repetitions->setToolTip(tr("Measured executions per scenario and point"));
    m_warmups = new QSpinBox;
    m_warmups->setRange(0, 1000);
    m_warmups->setToolTip(tr("Unmeasured executions before the measured ones, per point"));
    m_random = new QCheckBox(tr("random order"));
    m_random->setToolTip(tr("Run the points in a shuffled order (against drift); the seed is kept in the run"));
    reps->addWidget(m_repetitions);
    reps->addWidget(new QLabel(tr("warm-up")));
    reps->addWidget(m_warmups);
    reps->addWidget(m_random);
    reps->addStretch(1);
    form->addRow(tr("Repeat"), reps);
    layout->addLayout(form);

    m_preview = new QLabel;
    m_preview->setObjectName(QStringLiteral("sweepPreview"));
    m_preview->setWordWrap(true);
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_preview);
    layout->addStretch(1);
    m_run = new QPushButton(tr("Run sweep"));
    m_run->setObjectName(QStringLiteral("runSweep"));
    m_run->setToolTip(tr("Run the checked scenarios at every point of the sweep"));
    layout->addWidget(m_run);

    connect(m_run, &QPushButton::clicked, this, [this] {
        if (m_current >= 0)
            emit runRequested(m_current);
    });
    connect(m_sweeps, &QComboBox::activated, this, [this](int index) { load(index); });
    connect(m_sweeps->lineEdit(), &QLineEdit::editingFinished, this,
            [this] { renameSweep(m_sweeps->lineEdit()->text()); });
    for (SweepAxisEditor* axis : m_axes)
        connect(axis, &SweepAxisEditor::edited, this, [this] { store(); });
    connect(m_addAxis, &QPushButton::clicked, this, &SweepEditor::addSecondAxis);
    connect(m_removeAxis, &QPushButton::clicked, this, &SweepEditor::removeSecondAxis);
    connect(m_repetitions, &QSpinBox::valueChanged, this, [this] { store(); });
    connect(m_warmups, &QSpinBox::valueChanged, this, [this] { store(); });
    connect(m_random, &QCheckBox::toggled, this, [this] { store(); });
    connect(m_document, &ProjectDocument::sweepsChanged, this, &SweepEditor::refresh);
    connect(m_document, &ProjectDocument::projectReset, this, [this] {
        m_current = m_document->project().sweeps.empty() ? -1 : 0;
        refresh();
    });
    m_current = m_document->project().sweeps.empty() ? -1 : 0;
    refresh();
}

void SweepEditor::setSpecs(const std::vector<ParameterSpec>& specs) {
    m_specs = specs;
    for (SweepAxisEditor* axis : m_axes)
        axis->setSpecs(specs);
    refresh();
}

int SweepEditor::currentSweep() const {
    return m_current;
}

void SweepEditor::setCurrentSweep(int index) {
    load(index);
}

void SweepEditor::setNotInEffect(const QMap<QString, QString>& reasons) {
    if (reasons == m_notInEffect)
        return;
    m_notInEffect = reasons;
    load(m_current);
}

void SweepEditor::setRunEnabled(bool enabled) {
    m_runEnabled = enabled;
    m_run->setEnabled(enabled && m_runnable);
}

// The first tunable other than `notParameter`, over values it surely accepts (defaultAxisFor).
SweepAxis SweepEditor::defaultAxis(const QString& notParameter) const {
    const auto it = std::find_if(m_specs.begin(), m_specs.end(),
                                 [&](const ParameterSpec& spec) { return qs(spec.id) != notParameter; });
    return it == m_specs.end() ? SweepAxis{} : defaultAxisFor(*it);
}

int SweepEditor::newSweep() {
    SweepDef def;
    def.name = uniqueSweepName(m_document->project(), tr("sweep"));
    def.axes.push_back(defaultAxis({}));
    m_current = m_document->addSweep(def);
    refresh();
    return m_current;
}

void SweepEditor::deleteSweep() {
    if (m_current < 0)
        return;
    const int index = m_current;
    m_current = std::min(index, static_cast<int>(m_document->project().sweeps.size()) - 2);
    m_document->removeSweep(index);
}

void SweepEditor::addSecondAxis() {
    if (m_current < 0 || m_second)
        return;
    const SweepDef& def = m_document->project().sweeps[static_cast<std::size_t>(m_current)];
    m_second = true;
    m_loading = true;
    m_axes[1]->load(defaultAxis(def.axes.empty() ? QString() : def.axes.front().parameter), true);
    m_loading = false;
    m_secondGroup->show();
    m_addAxis->hide();
    store();
}

void SweepEditor::removeSecondAxis() {
    if (m_current < 0 || !m_second)
        return;
    m_second = false;
    m_secondGroup->hide();
    m_addAxis->show();
    store();
}

void SweepEditor::renameSweep(const QString& name) {
    if (m_current < 0 || name.trimmed().isEmpty())
        return;
    SweepDef def = m_document->project().sweeps[static_cast<std::size_t>(m_current)];
    if (def.name == name.trimmed())
        return;
    def.name = uniqueSweepName(m_document->project(), name.trimmed());
    m_document->setSweep(m_current, def);
}

void SweepEditor::refresh() {
    const auto& sweeps = m_document->project().sweeps;
    if (m_current >= static_cast<int>(sweeps.size()))
        m_current = static_cast<int>(sweeps.size()) - 1;
    {
        const QSignalBlocker block(m_sweeps);
        m_sweeps->clear();
        for (const SweepDef& s : sweeps)
            m_sweeps->addItem(s.name);
        m_sweeps->setCurrentIndex(m_current);
        if (m_current < 0)
            m_sweeps->setEditText(QString());
    }
    load(m_current);
}

void SweepEditor::load(int index) {
    const auto& sweeps = m_document->project().sweeps;
    m_current = index >= 0 && index < static_cast<int>(sweeps.size()) ? index : -1;
    const bool valid = m_current >= 0;
    m_loading = true;
    const SweepDef def = valid ? sweeps[static_cast<std::size_t>(m_current)] : SweepDef{};
    {
        const QSignalBlocker block(m_sweeps);
        if (m_sweeps->currentIndex() != m_current)
            m_sweeps->setCurrentIndex(m_current);
    }
    m_axes[0]->load(def.axes.empty() ? SweepAxis{} : def.axes.front(), valid);
    m_second = def.axes.size() > 1;
    if (m_second)
        m_axes[1]->load(def.axes[1], valid);
    m_secondGroup->setVisible(m_second);
    m_addAxis->setVisible(!m_second);
    m_addAxis->setEnabled(valid && m_specs.size() > 1);
    m_repetitions->setValue(def.repetitions);
    m_warmups->setValue(def.warmups);
    m_random->setChecked(def.randomOrder);
    for (QWidget* w : std::initializer_list<QWidget*>{m_repetitions, m_warmups, m_random})
        w->setEnabled(valid);
    m_loading = false;
    updatePreview(def, {});
}

void SweepEditor::store() {
    if (m_loading || m_current < 0)
        return;
    SweepDef def = m_document->project().sweeps[static_cast<std::size_t>(m_current)];
    QString problem;
    def.axes = {m_axes[0]->axis(&problem)};
    if (m_second)
        def.axes.push_back(m_axes[1]->axis(&problem));
    def.repetitions = m_repetitions->value();
    def.warmups = m_warmups->value();
    def.randomOrder = m_random->isChecked();
    if (problem.isEmpty()) {
        try {
            if (m_specs.empty())
                expandSweep(def.toSpec());
            else
                validatedPoints(def.toSpec(), m_specs);
        } catch (const Error& e) {
            problem = qs(e.what());
        }
    }
    // Only a sweep the engine accepts reaches the document: the project stays savable while the
    // user types, and the preview says what is wrong with the text in the fields.
    if (problem.isEmpty()) {
        m_loading = true;  // the document's echo must not rewrite the field being typed in
        m_document->setSweep(m_current, def);
        m_loading = false;
    }
    updatePreview(def, problem);
}

QString SweepEditor::previewText() const {
    return m_preview->text();
}

void SweepEditor::updatePreview(const SweepDef& def, const QString& problem) {
    m_runnable = false;
    if (m_current < 0) {
        m_preview->setText(tr("No sweep: press New to sweep a tunable."));
        m_preview->setStyleSheet({});
    } else if (const auto off =
                   std::find_if(def.axes.begin(), def.axes.end(),
                                [this](const SweepAxis& a) { return m_notInEffect.contains(a.parameter); });
               problem.isEmpty() && off != def.axes.end()) {
        m_preview->setText(tr("Not swept: %1 cannot take effect on this connection. %2")
                               .arg(off->parameter, m_notInEffect.value(off->parameter)));
        m_preview->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; }"));
    } else if (!problem.isEmpty()) {
        m_preview->setText(problem);
        m_preview->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; }"));
    } else {
        try {
            const std::vector<SweepPoint> points =
                m_specs.empty() ? expandSweep(def.toSpec()) : validatedPoints(def.toSpec(), m_specs);
            const auto shown = [](const SweepAxis& axis) {
                const QStringList values = axisValues(axis);
                QString text = values.mid(0, 12).join(QStringLiteral(", "));
                if (values.size() > 12)
                    text += QStringLiteral(", …");
                return text;
            };
            QString text = tr("%n point(s) × %1 repetition(s): %2", nullptr, static_cast<int>(points.size()))
                               .arg(def.repetitions)
                               .arg(shown(def.axes.front()));
            if (def.axes.size() > 1) {
                text += tr("; × %1: %2").arg(def.axes[1].parameter, shown(def.axes[1]));
            }
            m_preview->setText(text);
            m_preview->setStyleSheet({});
            m_runnable = true;
        } catch (const Error& e) {
            m_preview->setText(qs(e.what()));
            m_preview->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; }"));
        }
    }
    m_run->setEnabled(m_runnable && m_runEnabled);
}

}  // namespace blobbench
