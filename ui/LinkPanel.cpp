#include "ui/LinkPanel.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <cmath>

#include "engine/core/Error.h"
#include "engine/wire/LinkProfile.h"

namespace blobbench {
namespace {

std::uint64_t twoSignificantDigits(double v) {
    if (v <= 0) {
        return 0;
    }
    const double scale = std::pow(10.0, std::floor(std::log10(v)) - 1);
    return static_cast<std::uint64_t>(std::llround(std::round(v / scale) * scale));
}

}  // namespace

std::uint64_t BandwidthScale::valueAt(int position) {
    if (position >= kSteps) {
        return 0;
    }
    position = std::max(position, 0);
    const double lo = std::log(static_cast<double>(kMinBandwidth));
    const double hi = std::log(static_cast<double>(kMaxBandwidth));
    const double v = std::exp(lo + (hi - lo) * position / (kSteps - 1));
    return std::clamp(twoSignificantDigits(v), kMinBandwidth, kMaxBandwidth);
}

int BandwidthScale::positionOf(std::uint64_t bitsPerSecond) {
    if (bitsPerSecond == 0) {
        return kSteps;
    }
    const double lo = std::log(static_cast<double>(kMinBandwidth));
    const double hi = std::log(static_cast<double>(kMaxBandwidth));
    const double v = std::clamp(static_cast<double>(bitsPerSecond), static_cast<double>(kMinBandwidth),
                                static_cast<double>(kMaxBandwidth));
    const int nearest =
        std::clamp(static_cast<int>(std::lround((std::log(v) - lo) / (hi - lo) * (kSteps - 1))), 0, kSteps - 1);
    // Rounding to two digits makes plateaus: prefer the nearest position that shows the value itself,
    // so a value the slider produced maps back to a position that produces it.
    for (int d = 0; d <= 8; ++d) {
        for (int p : {nearest - d, nearest + d}) {
            if (p >= 0 && p < kSteps && valueAt(p) == bitsPerSecond)
                return p;
        }
    }
    return nearest;
}

LinkPanel::LinkPanel(QWidget* parent) : QGroupBox(tr("Link emulation"), parent) {
    setObjectName(QStringLiteral("linkEmulation"));
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(6, 4, 6, 4);
    grid->setVerticalSpacing(2);
    m_tap = new QCheckBox(tr("Measure the wire"));
    m_tap->setObjectName(QStringLiteral("useWireTap"));
    m_tap->setToolTip(
        tr("Count bytes, reads/writes and round trips of every sample: in the client, at its own socket calls "
           "(no relay, almost no cost to the time measured), or through BlobBench's relay (the wire tap) when "
           "the link below is emulated. Unticked: connect directly, count nothing, emulate nothing."));
    grid->addWidget(m_tap, 0, 0, 1, 2);

    const auto makeRow = [&](int row, const QString& label, QSpinBox*& latency, QSlider*& slider, QLineEdit*& edit,
                             bool up) {
        auto* name = new QLabel(label);
        m_rowLabels.push_back(name);
        grid->addWidget(name, row, 0);
        latency = new QSpinBox;
        latency->setRange(0, static_cast<int>(std::chrono::milliseconds(kMaxLatency).count()));
        latency->setSuffix(tr(" ms"));
        latency->setToolTip(tr("One-way latency added %1").arg(up ? tr("client → server") : tr("server → client")));
        latency->setPrefix(tr("latency "));
        grid->addWidget(latency, row, 1);
        slider = new QSlider(Qt::Horizontal);
        slider->setRange(0, BandwidthScale::positions() - 1);
        slider->setToolTip(tr("%1 .. %2 on a log scale; far right: unlimited")
                               .arg(QString::fromStdString(formatBitRate(kMinBandwidth)),
                                    QString::fromStdString(formatBitRate(kMaxBandwidth))));
        slider->setMinimumWidth(100);
        grid->addWidget(slider, row, 2);
        edit = new QLineEdit;
        edit->setMaximumWidth(100);
        edit->setToolTip(tr("Type a rate: 512k, 2M, 1G, or unlimited"));
        grid->addWidget(edit, row, 3);
        connect(latency, &QSpinBox::valueChanged, this, [this, up](int ms) {
            if (m_loading)
                return;
            (up ? m_link.latencyUpMs : m_link.latencyDownMs) = ms;
            emitChanged();
        });
        connect(slider, &QSlider::valueChanged, this, [this, up](int position) {
            if (m_loading)
                return;
            (up ? m_link.bandwidthUpBits : m_link.bandwidthDownBits) =
                static_cast<qint64>(BandwidthScale::valueAt(position));
            emitChanged();
        });
        connect(edit, &QLineEdit::editingFinished, this, [this, up] { applyEdit(up); });
    };
    makeRow(1, tr("Up"), m_upLatency, m_upSlider, m_upEdit, true);
    makeRow(2, tr("Down"), m_downLatency, m_downSlider, m_downEdit, false);
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("linkSummary"));
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    grid->addWidget(m_summary, 0, 2, 1, 2);
    m_counting = new QLabel;
    m_counting->setObjectName(QStringLiteral("countingMethod"));
    m_counting->setWordWrap(true);
    m_counting->setToolTip(
        tr("How the wire statistics are taken. In the client: at the client library's own socket calls, "
           "nothing between it and the server. Through the relay: needed to emulate a link (or for the "
           "compression estimate); the relay's hand-overs add to the time measured on round-trip-heavy work."));
    grid->addWidget(m_counting, 3, 0, 1, 4);
    grid->setColumnStretch(2, 1);
    connect(m_tap, &QCheckBox::toggled, this, [this] {
        updateEnabled();
        if (!m_loading)
            emitChanged();
    });
    setProfile(nullptr, false);
}

void LinkPanel::setProfile(const ConnectionProfile* profile, bool networked, const QString& reason) {
    m_loading = true;
    m_networked = networked && profile != nullptr;
    m_tap->setChecked(profile != nullptr && profile->useWireTap);
    show(profile != nullptr ? profile->link : LinkSettings{});
    m_loading = false;
    updateEnabled();
    setToolTip(m_networked ? QString() : reason);
    // An embedded engine: the group folds to its disabled check box and the reason, leaving the
    // room to the tunables.
    for (QWidget* w :
         std::initializer_list<QWidget*>{m_upLatency, m_downLatency, m_upSlider, m_downSlider, m_upEdit, m_downEdit}) {
        w->setVisible(m_networked);
    }
    for (QLabel* l : m_rowLabels)
        l->setVisible(m_networked);
    if (!m_networked)
        m_summary->setText(reason);
}

bool LinkPanel::useWireTap() const {
    return m_tap->isChecked();
}

void LinkPanel::setUseWireTap(bool on) {
    m_tap->setChecked(on);
}

void LinkPanel::setLatency(bool up, int ms) {
    latencyBox(up)->setValue(ms);
}

void LinkPanel::setBandwidth(bool up, std::uint64_t bitsPerSecond) {
    bandwidthEdit(up)->setText(QString::number(bitsPerSecond));
    applyEdit(up);
}

void LinkPanel::setBandwidthPosition(bool up, int position) {
    bandwidthSlider(up)->setValue(position);
}

QString LinkPanel::bandwidthText(bool up) const {
    return QString::fromStdString(
        formatBitRate(static_cast<std::uint64_t>(up ? m_link.bandwidthUpBits : m_link.bandwidthDownBits)));
}

QString LinkPanel::summary() const {
    return QString::fromStdString(toLinkProfile(m_link).describe());
}

void LinkPanel::show(const LinkSettings& link) {
    m_link = link;
    const bool loading = m_loading;
    m_loading = true;
    m_upLatency->setValue(link.latencyUpMs);
    m_downLatency->setValue(link.latencyDownMs);
    m_upSlider->setValue(BandwidthScale::positionOf(static_cast<std::uint64_t>(link.bandwidthUpBits)));
    m_downSlider->setValue(BandwidthScale::positionOf(static_cast<std::uint64_t>(link.bandwidthDownBits)));
    m_upEdit->setText(bandwidthText(true));
    m_downEdit->setText(bandwidthText(false));
    m_loading = loading;
    const bool active = m_networked && m_tap->isChecked();
    m_summary->setText(active ? tr("Emulated: %1").arg(summary()) : tr("Not emulated"));
    updateCounting();
}

void LinkPanel::showLastCounting(const QString& method) {
    m_lastMethod = method.isNull() ? QStringLiteral("") : method;
    updateCounting();
}

QString LinkPanel::countingText() const {
    QString text = !m_tap->isChecked()                 ? tr("Counting: off (no wire statistics)")
                   : toLinkProfile(m_link).emulating() ? tr("Counting: through the relay (link emulation)")
                                                       : tr("Counting: in the client (no relay)");
    if (!m_lastMethod.isNull()) {
        const QString last = m_lastMethod == QLatin1String("in-process") ? tr("in the client")
                             : m_lastMethod == QLatin1String("relay")    ? tr("through the relay")
                                                                         : tr("not counted");
        text += tr("; last run: %1").arg(last);
    }
    return text;
}

void LinkPanel::updateCounting() {
    m_counting->setText(countingText());
    m_counting->setVisible(m_networked);
}

void LinkPanel::updateEnabled() {
    m_tap->setEnabled(m_networked);
    const bool active = m_networked && m_tap->isChecked();
    for (QWidget* w :
         std::initializer_list<QWidget*>{m_upLatency, m_downLatency, m_upSlider, m_downSlider, m_upEdit, m_downEdit}) {
        w->setEnabled(active);
    }
    m_summary->setText(active ? tr("Emulated: %1").arg(summary()) : tr("Not emulated"));
    updateCounting();
}

std::optional<std::uint64_t> readBandwidthField(QLineEdit* edit) {
    try {
        const std::uint64_t bits = parseBitRate(edit->text().trimmed().toStdString());
        LinkProfile check;
        check.bandwidthUp = bits;
        check.validate();
        edit->setStyleSheet({});
        edit->setToolTip(QCoreApplication::translate("LinkPanel", "Type a rate: 512k, 2M, 1G, or unlimited"));
        return bits;
    } catch (const Error& e) {
        // The stored value stays; the field says what was wrong.
        edit->setStyleSheet(QStringLiteral("QLineEdit { color: #c0392b; }"));
        edit->setToolTip(QString::fromStdString(e.what()));
        return std::nullopt;
    }
}

void LinkPanel::applyEdit(bool up) {
    const std::optional<std::uint64_t> bits = readBandwidthField(bandwidthEdit(up));
    if (!bits)
        return;
    qint64& target = up ? m_link.bandwidthUpBits : m_link.bandwidthDownBits;
    if (static_cast<qint64>(*bits) != target) {
        target = static_cast<qint64>(*bits);
        emitChanged();
    } else {
        show(m_link);
    }
}

void LinkPanel::emitChanged() {
    show(m_link);  // the slider and the text agree with the value now held
    emit changed(m_tap->isChecked(), m_link);
}

}  // namespace blobbench
