#pragma once

#include <QGroupBox>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/Project.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;

namespace blobbench {

// The bandwidth slider's positions: 0..kSteps-1 spread logarithmically over kMinBandwidth ..
// kMaxBandwidth (rounded to two significant digits, so the slider lands on "2 Mbit/s", not on
// "2.03 Mbit/s"), and the last position "unlimited" (0). Apart from the widgets, for tests.
class BandwidthScale {
public:
    static constexpr int kSteps = 1000;
    static int positions() { return kSteps + 1; }
    static int unlimitedPosition() { return kSteps; }
    static std::uint64_t valueAt(int position);
    static int positionOf(std::uint64_t bitsPerSecond);  // the nearest position
};

// The rate typed in a bandwidth field ("512k", "2M", "unlimited"), checked as a link's bandwidth;
// when it is none, the field turns red with the reason as its tooltip and nothing is returned.
std::optional<std::uint64_t> readBandwidthField(QLineEdit* edit);

// "Link emulation": whether the wire is counted (in the client, or through the wire tap when a link
// is emulated), the link the tap emulates, bound to a connection profile's
// useWireTap and LinkSettings. Latency one-way per direction, bandwidth per direction on a log
// slider or typed ("512k"). Disabled, with the reason as tooltip, for embedded engines.
class LinkPanel : public QGroupBox {
    Q_OBJECT
public:
    explicit LinkPanel(QWidget* parent = nullptr);

    // Shows the profile's settings; `networked` false disables the group (embedded engine) and
    // `reason` says why.
    void setProfile(const ConnectionProfile* profile, bool networked, const QString& reason = {});

    bool useWireTap() const;
    bool networked() const { return m_networked; }  // false for an embedded engine (no wire)
    LinkSettings settings() const { return m_link; }

    // User-like edits, for tests and scripts: they emit changed() as the widgets would.
    void setUseWireTap(bool on);
    void setLatency(bool up, int ms);
    void setBandwidth(bool up, std::uint64_t bitsPerSecond);
    void setBandwidthPosition(bool up, int position);

    QCheckBox* tapBox() const { return m_tap; }
    QSlider* bandwidthSlider(bool up) const { return up ? m_upSlider : m_downSlider; }
    QLineEdit* bandwidthEdit(bool up) const { return up ? m_upEdit : m_downEdit; }
    QSpinBox* latencyBox(bool up) const { return up ? m_upLatency : m_downLatency; }
    QString bandwidthText(bool up) const;  // "2 Mbit/s", "unlimited"
    QString summary() const;               // the engine's describe(): "unshaped", "up 2 Mbit/s + 20 ms, ..."

    // How the next run counts the wire, and how the last one did (a sample's tap.method: "in-process",
    // "relay", or empty when it was not counted): "Counting: in the client (no relay)" or "Counting:
    // through the relay (link emulation)", then "; last run: ...".
    void showLastCounting(const QString& method);
    QString countingText() const;
    QLabel* countingLabel() const { return m_counting; }

signals:
    void changed(bool useWireTap, const blobbench::LinkSettings& link);

private:
    void show(const LinkSettings& link);
    void updateEnabled();
    void updateCounting();
    void emitChanged();
    void applyEdit(bool up);

    QCheckBox* m_tap = nullptr;
    QSpinBox* m_upLatency = nullptr;
    QSpinBox* m_downLatency = nullptr;
    QSlider* m_upSlider = nullptr;
    QSlider* m_downSlider = nullptr;
    QLineEdit* m_upEdit = nullptr;
    QLineEdit* m_downEdit = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_counting = nullptr;
    QString m_lastMethod;  // null: no run yet
    std::vector<QLabel*> m_rowLabels;
    LinkSettings m_link;
    bool m_networked = false;
    bool m_loading = false;
};

}  // namespace blobbench
