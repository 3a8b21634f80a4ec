#include "ui/WhatIfPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "engine/wire/LinkModel.h"
#include "model/SeriesNaming.h"
#include "ui/AdviceModel.h"
#include "ui/Charts.h"
#include "ui/LinkPanel.h"
#include "ui/ResultsModel.h"
#include "ui/Units.h"

namespace blobbench {
namespace {

constexpr int kMaxWhatIfLatencyMs = 200;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

double millis(std::chrono::nanoseconds t) {
    return static_cast<double>(t.count()) / 1e6;
}

double median(std::vector<double> v) {
    if (v.empty())
        return kNaN;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The link presets: down, up (bit/s; 0 = unlimited).
struct BandwidthPreset {
    const char* name;
    std::uint64_t down, up;
};
constexpr BandwidthPreset kPresets[] = {
    {"unlimited", 0, 0},
    {"100 Mbit/s", 100'000'000, 100'000'000},
    {"10 Mbit/s", 10'000'000, 10'000'000},
    {"2 Mbit/s down / 512 kbit/s up", 2'000'000, 512'000},
};

}  // namespace

WhatIfPanel::WhatIfPanel(const ResultsModel* results, QWidget* parent) : QWidget(parent), m_results(results) {
    setObjectName(QStringLiteral("whatIfPanel"));
    m_adviceTimer = new QTimer(this);
    m_adviceTimer->setSingleShot(true);
    m_adviceTimer->setInterval(120);
    connect(m_adviceTimer, &QTimer::timeout, this, &WhatIfPanel::flushAdvice);
    buildControls();
    connect(m_results, &QAbstractItemModel::modelReset, this, &WhatIfPanel::reindex);
    connect(m_results, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex&, int first, int last) { appendRows(first, last); });
    reindex();
    showSettings();
}

WhatIfPanel::~WhatIfPanel() = default;

void WhatIfPanel::buildControls() {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    auto* grid = new QGridLayout;
    grid->setVerticalSpacing(3);
    m_on = new QCheckBox(tr("Show predicted times in the charts"));
    m_on->setObjectName(QStringLiteral("whatIfOn"));
    m_on->setToolTip(
        tr("Draws every sample that has an exchange trace at the time it is predicted to take over the "
           "link below (hollow markers), beside what was measured. Nothing is run."));
    grid->addWidget(m_on, 0, 0, 1, 4);

    grid->addWidget(new QLabel(tr("Latency, one-way")), 1, 0);
    m_latencySlider = new QSlider(Qt::Horizontal);
    m_latencySlider->setObjectName(QStringLiteral("whatIfLatency"));
    m_latencySlider->setRange(0, kMaxWhatIfLatencyMs);
    m_latencySlider->setToolTip(
        tr("Added in each direction, as the Link panel counts it: the round trip is twice this"));
    grid->addWidget(m_latencySlider, 1, 1, 1, 2);
    m_latencyBox = new QSpinBox;
    m_latencyBox->setRange(0, kMaxWhatIfLatencyMs);
    m_latencyBox->setSuffix(tr(" ms"));
    grid->addWidget(m_latencyBox, 1, 3);
    m_roundTrip = new QLabel;
    m_roundTrip->setObjectName(QStringLiteral("whatIfRoundTrip"));
    grid->addWidget(m_roundTrip, 2, 1, 1, 3);

    grid->addWidget(new QLabel(tr("Bandwidth")), 3, 0);
    m_preset = new QComboBox;
    m_preset->setObjectName(QStringLiteral("whatIfPreset"));
    for (const BandwidthPreset& p : kPresets)
        m_preset->addItem(tr(p.name));
    m_preset->addItem(tr("typed below"));
    grid->addWidget(m_preset, 3, 1, 1, 3);
    const auto makeEdit = [&](int row, const QString& label, bool up) {
        grid->addWidget(new QLabel(label), row, 0);
        auto* edit = new QLineEdit;
        edit->setObjectName(up ? QStringLiteral("whatIfUp") : QStringLiteral("whatIfDown"));
        edit->setToolTip(tr("Type a rate: 512k, 2M, 1G, or unlimited"));
        connect(edit, &QLineEdit::editingFinished, this, [this, up] { applyBandwidthEdit(up); });
        grid->addWidget(edit, row, 1, 1, 3);
        return edit;
    };
    m_downEdit = makeEdit(4, tr("Down (server → client)"), false);
    m_upEdit = makeEdit(5, tr("Up (client → server)"), true);
    grid->setColumnStretch(1, 1);
    layout->addLayout(grid);

    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("whatIfStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    auto* split = new QSplitter(Qt::Vertical);
    m_adviceModel = new AdviceModel(this);
    m_tree = new QTreeView;
    m_tree->setObjectName(QStringLiteral("whatIfAdvice"));
    m_tree->setModel(m_adviceModel);
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < AdviceModel::ColumnCount; ++c)
        m_tree->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    split->addWidget(m_tree);
    auto* chartBox = new QWidget;
    auto* chartLayout = new QVBoxLayout(chartBox);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    m_axis = new QComboBox;
    m_axis->setObjectName(QStringLiteral("whatIfAxis"));
    m_axis->addItem(tr("Chart: predicted time against latency (0–200 ms)"), QStringLiteral("latency"));
    m_axis->addItem(tr("Chart: predicted time against bandwidth"), QStringLiteral("bandwidth"));
    chartLayout->addWidget(m_axis);
    m_curves = makeCurveChart(chartBox);
    m_curves->widget()->setMinimumHeight(200);
    chartLayout->addWidget(m_curves->widget(), 1);
    split->addWidget(chartBox);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);

    auto* measureRow = new QHBoxLayout;
    m_measure = new QPushButton(tr("Measure at this link"));
    m_measure->setObjectName(QStringLiteral("whatIfMeasure"));
    measureRow->addWidget(m_measure);
    m_check = new QLabel;
    m_check->setObjectName(QStringLiteral("whatIfCheck"));
    m_check->setWordWrap(true);
    measureRow->addWidget(m_check, 1);
    layout->addLayout(measureRow);

    connect(m_on, &QCheckBox::toggled, this, [this](bool on) {
        if (m_loading)
            return;
        m_settings.enabled = on;
        edited();
    });
    connect(m_latencySlider, &QSlider::valueChanged, this, [this](int ms) { setLatency(ms); });
    connect(m_latencyBox, &QSpinBox::valueChanged, this, [this](int ms) { setLatency(ms); });
    connect(m_preset, &QComboBox::activated, this, [this](int index) {
        if (index < 0 || index >= static_cast<int>(std::size(kPresets)))
            return;
        m_settings.link.bandwidthDownBits = static_cast<qint64>(kPresets[index].down);
        m_settings.link.bandwidthUpBits = static_cast<qint64>(kPresets[index].up);
        edited();
    });
    connect(m_axis, &QComboBox::activated, this, [this](int index) { setAxis(m_axis->itemData(index).toString()); });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& current) {
        const QString scenario = current.data(Qt::UserRole).toString();
        if (!scenario.isEmpty() && scenario != m_chartScenario) {
            m_chartScenario = scenario;
            updateCurves();
        }
    });
    connect(m_measure, &QPushButton::clicked, this, &WhatIfPanel::requestMeasure);
}

void WhatIfPanel::setSettings(const WhatIfSettings& settings) {
    m_settings = settings;
    m_settings.link.latencyUpMs = std::clamp(m_settings.link.latencyUpMs, 0, kMaxWhatIfLatencyMs);
    m_settings.link.latencyDownMs = m_settings.link.latencyUpMs;  // one value, both directions
    showSettings();
    predict();
    scheduleAdvice();
}

void WhatIfPanel::setCurrentValues(const ParameterValues& values) {
    if (values != m_current) {
        m_current = values;
        scheduleAdvice();
    }
}

void WhatIfPanel::setCurrentConnection(const QString& label) {
    if (label != m_currentConnection) {
        m_currentConnection = label;
        scheduleAdvice();
    }
}

void WhatIfPanel::setMeasurable(bool measurable, const QString& reason) {
    m_measure->setEnabled(measurable);
    m_measure->setToolTip(measurable ? tr("Runs the selected parameter set once through the relay's link emulation "
                                          "at this link, and shows measured against predicted")
                                     : reason);
}

void WhatIfPanel::setOn(bool on) {
    m_on->setChecked(on);
}

void WhatIfPanel::setLatency(int oneWayMs) {
    oneWayMs = std::clamp(oneWayMs, 0, kMaxWhatIfLatencyMs);
    if (m_loading || oneWayMs == m_settings.link.latencyUpMs)
        return;
    m_settings.link.latencyUpMs = m_settings.link.latencyDownMs = oneWayMs;
    edited();
}

void WhatIfPanel::setBandwidth(bool up, std::uint64_t bitsPerSecond) {
    (up ? m_upEdit : m_downEdit)->setText(QString::number(bitsPerSecond));
    applyBandwidthEdit(up);
}

void WhatIfPanel::setAxis(const QString& axis) {
    if (axis == m_settings.axis || (axis != QLatin1String("latency") && axis != QLatin1String("bandwidth")))
        return;
    m_settings.axis = axis;
    edited();
}

void WhatIfPanel::applyBandwidthEdit(bool up) {
    const std::optional<std::uint64_t> bits = readBandwidthField(up ? m_upEdit : m_downEdit);
    if (!bits)
        return;  // the value in use stays; the field says what was wrong with the text
    qint64& target = up ? m_settings.link.bandwidthUpBits : m_settings.link.bandwidthDownBits;
    if (static_cast<qint64>(*bits) != target) {
        target = static_cast<qint64>(*bits);
        edited();
    } else {
        showSettings();
    }
}

void WhatIfPanel::edited() {
    showSettings();
    predict();
    scheduleAdvice();
    emit settingsChanged(m_settings);
}

void WhatIfPanel::showSettings() {
    m_loading = true;
    m_on->setChecked(m_settings.enabled);
    m_latencySlider->setValue(m_settings.link.latencyUpMs);
    m_latencyBox->setValue(m_settings.link.latencyUpMs);
    m_roundTrip->setText(tr("round trip %1 ms added per exchange").arg(2 * m_settings.link.latencyUpMs));
    const auto down = static_cast<std::uint64_t>(m_settings.link.bandwidthDownBits);
    const auto up = static_cast<std::uint64_t>(m_settings.link.bandwidthUpBits);
    m_downEdit->setText(qs(formatBitRate(down)));
    m_upEdit->setText(qs(formatBitRate(up)));
    int preset = static_cast<int>(std::size(kPresets));  // "typed below"
    for (std::size_t i = 0; i < std::size(kPresets); ++i) {
        if (kPresets[i].down == down && kPresets[i].up == up)
            preset = static_cast<int>(i);
    }
    m_preset->setCurrentIndex(preset);
    m_axis->setCurrentIndex(std::max(0, m_axis->findData(m_settings.axis)));
    m_loading = false;
}

QString WhatIfPanel::predictionLabel() const {
    const LinkSettings& l = m_settings.link;
    const auto down = static_cast<std::uint64_t>(l.bandwidthDownBits);
    const auto up = static_cast<std::uint64_t>(l.bandwidthUpBits);
    const QString bandwidth =
        down == up ? qs(formatBitRate(down)) : tr("%1 down, %2 up").arg(qs(formatBitRate(down)), qs(formatBitRate(up)));
    return tr("predicted at %1 ms one-way, %2").arg(l.latencyUpMs).arg(bandwidth);
}

QString WhatIfPanel::predictableText() const {
    QString text = tr("%n sample(s) predictable", nullptr, static_cast<int>(m_predictable.size()));
    if (m_unpredictable > 0) {
        text += tr("; %n not predictable: no exchange trace", nullptr, static_cast<int>(m_unpredictable));
        if (!m_unpredictableReason.isEmpty())
            text += QStringLiteral(" (%1)").arg(m_unpredictableReason);
    }
    if (m_onALink > 0) {
        text +=
            tr("; %n measured through an emulated link, not predicted: the model predicts from a loopback "
               "measurement",
               nullptr, static_cast<int>(m_onALink));
    }
    if (m_disturbed > 0) {
        text += tr("; %n disturbed, not predicted: the client was stopped or suspended during them", nullptr,
                   static_cast<int>(m_disturbed));
    }
    if (m_loadPoints > 0) {
        text +=
            tr("; %n load point(s) of runs of many sessions not predicted: the model replays one session's "
               "exchanges and cannot tell how sessions share the server, the client or a link",
               nullptr, static_cast<int>(m_loadPoints));
    }
    return text;
}

void WhatIfPanel::setLoadPoints(std::size_t count) {
    if (count != m_loadPoints) {
        m_loadPoints = count;
        m_status->setText(predictableText() +
                          (m_settings.enabled ? tr("; shown in the charts as hollow markers") : tr("; switched off")));
    }
}

QString WhatIfPanel::statusText() const {
    return m_status->text();
}

void WhatIfPanel::reindex() {
    m_predictable.clear();
    m_sets.clear();
    m_unpredictable = 0;
    m_onALink = 0;
    m_disturbed = 0;
    m_unpredictableReason.clear();
    appendRows(0, m_results->rowCount() - 1);
}

void WhatIfPanel::appendRows(int first, int last) {
    const std::vector<Sample>& samples = m_results->samples();
    for (int row = std::max(first, 0); row <= last && row < static_cast<int>(samples.size()); ++row) {
        const Sample& s = samples[static_cast<std::size_t>(row)];
        if (s.status != SampleStatus::Complete)
            continue;
        if (s.trace && !s.disturbed.empty()) {
            ++m_disturbed;  // its time holds the pause (hostile round 5n S6)
            continue;
        }
        if (s.trace && measuredOnAnEmulatedLink(s)) {
            ++m_onALink;  // its time holds the emulated link already (hostile round 5j X2)
            continue;
        }
        if (!s.trace) {
            ++m_unpredictable;
            // Why: an embedded engine has no wire; a networked one was counted some other way or
            // saved before traces existed.
            m_unpredictableReason = !s.unreadTrace.empty()
                                        ? tr("its trace was left unread: the project's traces pass the most one "
                                             "load decodes")
                                    : !s.tap.available && !s.tap.unavailableReason.empty()
                                        ? qs(s.tap.unavailableReason)
                                        : tr("not counted by BlobBench, or saved before traces");
            continue;
        }
        const auto index = static_cast<std::size_t>(row);
        m_predictable.push_back(index);
        const QString scenario = qs(s.scenarioId);
        ParameterSetKey key = parameterSetKey(s);
        auto set = std::find_if(m_sets.begin(), m_sets.end(),
                                [&](const ParameterSet& p) { return p.scenarioId == scenario && p.key == key; });
        if (set == m_sets.end()) {
            m_sets.push_back(ParameterSet{scenario, std::move(key), {}});
            set = m_sets.end() - 1;
        }
        set->samples.push_back(index);
    }
    predict();
    scheduleAdvice();
}

void WhatIfPanel::predict() {
    m_predicted.clear();
    if (m_settings.enabled) {
        const std::vector<Sample>& samples = m_results->samples();
        m_predicted.assign(samples.size(), kNaN);
        const LinkProfile at = link();
        for (std::size_t i : m_predictable) {
            const Sample& s = samples[i];
            m_predicted[i] = millis(predictElapsed(*s.trace, s.phases.elapsed(), at).predicted);
        }
    }
    m_status->setText(predictableText() +
                      (m_settings.enabled ? tr("; shown in the charts as hollow markers") : tr("; switched off")));
    emit predictionsChanged();
}

void WhatIfPanel::scheduleAdvice() {
    m_adviceTimer->start();
}

void WhatIfPanel::flushAdvice() {
    m_adviceTimer->stop();
    m_advice = adviseParameterSets(m_results->samples(), link(), m_current, m_currentConnection.toStdString());
    fillTree();
    updateCurves();
}

void WhatIfPanel::fillTree() {
    // The row picked stays picked across a new ranking: its scenario and parameter set.
    const QString selected = m_chartScenario;
    const QModelIndex was = m_tree->currentIndex();
    const QString selectedSet =
        m_adviceModel->rankOf(was) >= 0 ? was.data(AdviceModel::kSetKeyRole).toString() : QString();
    m_adviceModel->setAdvice(m_advice);
    QModelIndex selectChild, selectTop, firstTop;
    for (int row = 0; row < m_adviceModel->rowCount(); ++row) {
        const QModelIndex top = m_adviceModel->index(row, 0);
        m_tree->setFirstColumnSpanned(row, {},
                                      true);  // the scenario's name has the row: its sets' figures are below it
        m_tree->setExpanded(top, true);
        const QString scenario = top.data(Qt::UserRole).toString();
        for (int set = 0; set < m_adviceModel->rowCount(top); ++set) {
            const QModelIndex child = m_adviceModel->index(set, 0, top);
            if (scenario == selected && child.data(AdviceModel::kSetKeyRole).toString() == selectedSet)
                selectChild = child;
        }
        if (!firstTop.isValid())
            firstTop = top;
        if (scenario == selected)
            selectTop = top;
    }
    const QModelIndex select = selectChild.isValid() ? selectChild : selectTop.isValid() ? selectTop : firstTop;
    m_chartScenario = select.isValid() ? select.data(Qt::UserRole).toString() : QString();
    if (select.isValid()) {
        const QSignalBlocker blocker(m_tree->selectionModel());
        m_tree->setCurrentIndex(select);
    }
}

double WhatIfPanel::medianPredicted(const ParameterSet& set, const LinkProfile& at) const {
    const std::vector<Sample>& samples = m_results->samples();
    std::vector<double> ms;
    ms.reserve(set.samples.size());
    for (std::size_t i : set.samples) {
        const Sample& s = samples[i];
        ms.push_back(millis(predictElapsed(*s.trace, s.phases.elapsed(), at).predicted));
    }
    return median(std::move(ms));
}

void WhatIfPanel::updateCurves() {
    const bool bandwidth = m_settings.axis == QLatin1String("bandwidth");
    const LinkProfile chosen = link();
    std::vector<PredictionCurve> curves;
    QString title;
    const auto advice = std::find_if(m_advice.begin(), m_advice.end(),
                                     [&](const ScenarioAdvice& a) { return qs(a.scenarioId) == m_chartScenario; });
    if (advice != m_advice.end()) {
        title = qs(advice->scenarioTitle);
        std::vector<double> xs;
        if (bandwidth) {
            for (double b = 256e3; b <= 1.01e9; b *= std::sqrt(2.0))
                xs.push_back(std::round(b));
        } else {
            for (int ms = 0; ms <= kMaxWhatIfLatencyMs; ms += 5)
                xs.push_back(ms);
        }
        for (const ParameterSetAdvice& ranked : advice->ranked) {
            const ParameterSet* set = setOf(m_chartScenario, ranked);
            if (set == nullptr)
                continue;
            PredictionCurve curve;
            curve.name = advice::pointValues(ranked.differing);
            curve.best = ranked.best;
            for (double x : xs) {
                LinkProfile at = chosen;
                if (bandwidth) {
                    at.bandwidthUp = at.bandwidthDown = static_cast<std::uint64_t>(x);
                } else {
                    at.latencyUp = at.latencyDown = std::chrono::milliseconds(static_cast<int>(x));
                }
                curve.points.emplace_back(x, medianPredicted(*set, at));
            }
            curves.push_back(std::move(curve));
        }
        if (const QString names = advice::tunableNames(*advice); !names.isEmpty())
            title += QStringLiteral(": ") + names;
        if (bandwidth)
            title += tr(", at %1 ms one-way").arg(m_settings.link.latencyUpMs);
    }
    const double marker = bandwidth
                              ? static_cast<double>(chosen.bandwidthDown == 0 ? 1'000'000'000 : chosen.bandwidthDown)
                              : m_settings.link.latencyUpMs;
    m_curves->setCurves(curves, title, bandwidth, marker,
                        tr("No sample here has an exchange trace: run a networked engine (Firebird, PostgreSQL) "
                           "with \"Measure the wire\" on, then its parameter sets are compared here."));
}

const WhatIfPanel::ParameterSet* WhatIfPanel::selectedSet() const {
    const QModelIndex current = m_tree->currentIndex();
    const ScenarioAdvice* advice = m_adviceModel->scenarioOf(current);
    if (advice == nullptr || advice->ranked.empty())
        return nullptr;
    // A parameter set's row: that set; the scenario's row: its current set.
    const int row = m_adviceModel->rankOf(current);
    const ParameterSetAdvice* chosen = nullptr;
    if (row >= 0 && row < static_cast<int>(advice->ranked.size())) {
        chosen = &advice->ranked[static_cast<std::size_t>(row)];
    } else {
        const auto currentSet = std::find_if(advice->ranked.begin(), advice->ranked.end(),
                                             [](const ParameterSetAdvice& a) { return a.current; });
        chosen = currentSet != advice->ranked.end() ? &*currentSet : &advice->ranked.front();
    }
    return setOf(qs(advice->scenarioId), *chosen);
}

const WhatIfPanel::ParameterSet* WhatIfPanel::setOf(const QString& scenarioId, const ParameterSetAdvice& advice) const {
    const ParameterSetKey key = advice::keyOf(advice);
    const auto set = std::find_if(m_sets.begin(), m_sets.end(),
                                  [&](const ParameterSet& p) { return p.scenarioId == scenarioId && p.key == key; });
    return set != m_sets.end() ? &*set : nullptr;
}

void WhatIfPanel::requestMeasure() {
    if (m_adviceTimer->isActive())
        flushAdvice();
    const ParameterSet* set = selectedSet();
    if (set == nullptr) {
        checkFailed(tr("Pick a scenario or parameter set in the list first (only sets with a trace can be checked)."));
        return;
    }
    const LinkProfile at = link();
    m_pendingCheck = PendingCheck{set->scenarioId, set->key, at, medianPredicted(*set, at)};
    m_check->setText(
        tr("Measuring %1 on %2 at %3…").arg(set->scenarioId, connectionText(set->key.connection), qs(at.describe())));
    emit measureRequested(set->scenarioId, qs(set->key.connection), set->key.settings, m_settings.link);
}

void WhatIfPanel::showCheck(const std::vector<Sample>& measured) {
    if (!m_pendingCheck)
        return;
    const PendingCheck check = *m_pendingCheck;
    m_pendingCheck.reset();
    std::vector<double> ms;
    bool throughRelay = true;
    for (const Sample& s : measured) {
        // Only the set's own scenario under its own settings on its own connection is compared.
        const ParameterSetKey key = parameterSetKey(s);
        if (s.status == SampleStatus::Complete && qs(s.scenarioId) == check.scenarioId &&
            key.connection == check.key.connection && key.settings == check.key.settings) {
            ms.push_back(millis(s.phases.elapsed()));
            throughRelay = throughRelay && s.tap.method == "relay";
        }
    }
    if (ms.empty()) {
        checkFailed(tr("the run gave no complete sample of this parameter set"));
        return;
    }
    const double m = median(ms);
    const double error = m > 0 ? (check.predictedMs - m) / m * 100 : 0;
    QString text = tr("At %1: measured %2, predicted %3: error %4%")
                       .arg(qs(check.link.describe()), formatMillis(m), formatMillis(check.predictedMs))
                       .arg(error, 0, 'f', 1);
    if (check.link.emulating() && !throughRelay)
        text += tr(" (the link was not emulated: not through the relay)");
    m_check->setText(text);
    m_check->setProperty("errorPercent", error);
}

void WhatIfPanel::checkFailed(const QString& why) {
    m_pendingCheck.reset();
    m_check->setText(tr("Not measured: %1").arg(why));
    m_check->setProperty("errorPercent", QVariant());
}

}  // namespace blobbench
