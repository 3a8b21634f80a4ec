#pragma once

#include <QWidget>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "engine/wire/LinkAdvice.h"
#include "model/Project.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;
class QTreeView;

namespace blobbench {

class AdviceModel;

class CurveChart;
class ResultsModel;

// "What if": the current results predicted at another link from their exchange traces
// (engine/wire/LinkModel, docs/wire.md), without running. A latency (one-way, each direction, as
// LinkProfile and the Link panel count it) and a bandwidth per direction; while switched on, the
// window's charts draw each predictable sample at its predicted time beside the measured one. The
// advisor ranks each scenario's parameter sets at that link (LinkAdvice) and charts their predicted
// time against latency or bandwidth; "Measure at this link" runs one set through the relay's link
// emulation to check the prediction.
//
// Cheap on every slider step: traces are decoded once when a project loads (Sample::trace); the
// panel keeps the indexes of the predictable samples and predicts only those. The advisor and its
// chart follow after a short pause.
class WhatIfPanel : public QWidget {
    Q_OBJECT
public:
    explicit WhatIfPanel(const ResultsModel* results, QWidget* parent = nullptr);
    ~WhatIfPanel() override;

    WhatIfSettings settings() const { return m_settings; }
    void setSettings(const WhatIfSettings& settings);  // shows them; emits no settingsChanged
    // The project's tunable values: the parameter set the advisor measures savings against.
    void setCurrentValues(const ParameterValues& values);
    // The current connection's label (ConnectionSpec::label): the current set is one of its sets.
    void setCurrentConnection(const QString& label);
    // Whether "Measure at this link" can run, and why not.
    void setMeasurable(bool measurable, const QString& reason);
    // The load points the window shows (runs of many sessions): said not predictable, with why.
    void setLoadPoints(std::size_t count);
    QString statusText() const;

    // User-like edits (tests, scripts): they emit as the widgets do.
    void setOn(bool on);
    void setLatency(int oneWayMs);
    void setBandwidth(bool up, std::uint64_t bitsPerSecond);
    void setAxis(const QString& axis);  // "latency" | "bandwidth"

    LinkProfile link() const { return toLinkProfile(m_settings.link); }
    // Per sample of the results, in their order: the predicted elapsed ms, NaN where not
    // predictable. Empty while switched off.
    const std::vector<double>& predictedMillis() const { return m_predicted; }
    QString predictionLabel() const;  // "predicted at 40 ms one-way, 2 Mbit/s down, 512 kbit/s up"
    QString predictableText() const;  // "12 samples predicted; 3 not predictable: no exchange trace (…)"
    const std::vector<ScenarioAdvice>& advice() const { return m_advice; }
    QString adviceScenario() const { return m_chartScenario; }  // the scenario the chart shows
    CurveChart* curveChart() const { return m_curves.get(); }
    QTreeView* adviceTree() const { return m_tree; }
    AdviceModel* adviceModel() const { return m_adviceModel; }
    QPushButton* measureButton() const { return m_measure; }
    QSlider* latencySlider() const { return m_latencySlider; }
    QLabel* checkLabel() const { return m_check; }
    // Brings the advisor and its chart up to date now.
    void flushAdvice();

    // "Measure at this link" finished: its samples against the prediction taken when it started.
    void showCheck(const std::vector<Sample>& measured);
    void checkFailed(const QString& why);

signals:
    void settingsChanged(const blobbench::WhatIfSettings& settings);
    void predictionsChanged();
    // One parameter set: its scenario, the connection it was measured on and every setting it ran
    // with, to be run again at `link`.
    void measureRequested(const QString& scenarioId, const QString& connection,
                          const blobbench::ParameterValues& settings, const blobbench::LinkSettings& link);

private:
    struct ParameterSet {
        QString scenarioId;
        ParameterSetKey key;               // connection, settings, the link measured over
        std::vector<std::size_t> samples;  // indexes into the results
    };

    void buildControls();
    void showSettings();
    void edited();  // a control changed m_settings
    void reindex();
    void appendRows(int first, int last);
    void predict();
    void scheduleAdvice();
    void fillTree();
    void updateCurves();
    void requestMeasure();
    void applyBandwidthEdit(bool up);
    double medianPredicted(const ParameterSet& set, const LinkProfile& link) const;
    const ParameterSet* selectedSet() const;
    const ParameterSet* setOf(const QString& scenarioId, const ParameterSetAdvice& advice) const;

    const ResultsModel* m_results;
    WhatIfSettings m_settings;
    ParameterValues m_current;
    QString m_currentConnection;
    std::vector<std::size_t> m_predictable;  // indexes of complete samples with a trace
    std::size_t m_unpredictable = 0;         // complete samples without one
    std::size_t m_onALink = 0;               // complete samples measured through an emulated link
    std::size_t m_disturbed = 0;             // complete samples the client's own stop or suspend is in
    std::size_t m_loadPoints = 0;            // of runs of many sessions: the model predicts one session
    QString m_unpredictableReason;
    std::vector<ParameterSet> m_sets;
    std::vector<double> m_predicted;
    std::vector<ScenarioAdvice> m_advice;
    QString m_chartScenario;
    struct PendingCheck {
        QString scenarioId;
        ParameterSetKey key;
        LinkProfile link;
        double predictedMs = 0;
    };
    std::optional<PendingCheck> m_pendingCheck;

    QCheckBox* m_on = nullptr;
    QSlider* m_latencySlider = nullptr;
    QSpinBox* m_latencyBox = nullptr;
    QLabel* m_roundTrip = nullptr;
    QComboBox* m_preset = nullptr;
    QLineEdit* m_downEdit = nullptr;
    QLineEdit* m_upEdit = nullptr;
    QComboBox* m_axis = nullptr;
    QLabel* m_status = nullptr;
    AdviceModel* m_adviceModel = nullptr;
    QTreeView* m_tree = nullptr;
    std::unique_ptr<CurveChart> m_curves;
    QPushButton* m_measure = nullptr;
    QLabel* m_check = nullptr;
    QTimer* m_adviceTimer = nullptr;
    bool m_loading = false;
};

}  // namespace blobbench
