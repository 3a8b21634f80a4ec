#pragma once

#include <QMap>

#include <QWidget>
#include <vector>

#include "engine/core/Parameter.h"
#include "model/Project.h"

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace blobbench {

// One axis of a sweep: the tunable (from the engine's ParameterSpecs) and its values as a list or
// a range (from, to, points, log). Emits edited() on every change by the user.
// A sweep axis over `spec` with values it surely accepts.
SweepAxis defaultAxisFor(const ParameterSpec& spec);

class SweepAxisEditor : public QWidget {
    Q_OBJECT
public:
    explicit SweepAxisEditor(QWidget* parent = nullptr);

    void setSpecs(const std::vector<ParameterSpec>& specs) { m_specs = specs; }
    // Shows the axis (an empty one for none) without emitting edited().
    void load(const SweepAxis& axis, bool enabled);
    // The axis in the fields; `problem` says what is wrong with a range that is not a number.
    SweepAxis axis(QString* problem) const;

    QComboBox* parameterBox() const { return m_parameter; }
    QRadioButton* listMode() const { return m_list; }
    QRadioButton* rangeMode() const { return m_range; }
    QLineEdit* valuesEdit() const { return m_values; }
    QLineEdit* fromEdit() const { return m_from; }
    QLineEdit* toEdit() const { return m_to; }
    QSpinBox* pointsBox() const { return m_points; }
    QCheckBox* logBox() const { return m_log; }

signals:
    void edited();

private:
    void updateModeWidgets();

    std::vector<ParameterSpec> m_specs;
    QComboBox* m_parameter = nullptr;
    QRadioButton* m_list = nullptr;
    QRadioButton* m_range = nullptr;
    QLineEdit* m_values = nullptr;
    QLineEdit* m_from = nullptr;
    QLineEdit* m_to = nullptr;
    QSpinBox* m_points = nullptr;
    QCheckBox* m_log = nullptr;
    QWidget* m_rangeRow = nullptr;
    bool m_loading = false;
};

// Edits the project's sweeps: pick one (or make a new one), the tunable it sweeps (from the
// engine's ParameterSpecs), its values as a list or as a range (from, to, points, log), the
// repetitions, warm-ups and order, and an optional second axis (a grid: every value of the first
// axis with every value of the second). Every edit goes to the ProjectDocument; "Run sweep" asks
// the window to run it.
class SweepEditor : public QWidget {
    Q_OBJECT
public:
    explicit SweepEditor(ProjectDocument* document, QWidget* parent = nullptr);

    // The tunables that can be swept: those of the current connection's engine.
    void setSpecs(const std::vector<ParameterSpec>& specs);
    int currentSweep() const;  // index in the project's sweeps, -1 for none
    void setCurrentSweep(int index);
    void setRunEnabled(bool enabled);
    // Tunables the connection cannot apply (id -> one-sentence reason): a sweep over one is refused,
    // with the reason in the preview, since every point would measure the same thing.
    void setNotInEffect(const QMap<QString, QString>& reasons);

    // The points the current sweep expands to ("7 points: 0, 1024, ...") or what is wrong with it.
    QString previewText() const;

    QComboBox* sweepBox() const { return m_sweeps; }
    // The first axis.
    SweepAxisEditor* firstAxis() const { return m_axes[0]; }
    QComboBox* parameterBox() const { return m_axes[0]->parameterBox(); }
    QRadioButton* listMode() const { return m_axes[0]->listMode(); }
    QRadioButton* rangeMode() const { return m_axes[0]->rangeMode(); }
    QLineEdit* valuesEdit() const { return m_axes[0]->valuesEdit(); }
    QLineEdit* fromEdit() const { return m_axes[0]->fromEdit(); }
    QLineEdit* toEdit() const { return m_axes[0]->toEdit(); }
    QSpinBox* pointsBox() const { return m_axes[0]->pointsBox(); }
    QCheckBox* logBox() const { return m_axes[0]->logBox(); }
    // The second axis (a grid), shown only when the sweep has one.
    SweepAxisEditor* secondAxis() const { return m_axes[1]; }
    QPushButton* addAxisButton() const { return m_addAxis; }
    QPushButton* removeAxisButton() const { return m_removeAxis; }
    QSpinBox* repetitionsBox() const { return m_repetitions; }
    QSpinBox* warmupsBox() const { return m_warmups; }
    QCheckBox* randomBox() const { return m_random; }
    QPushButton* runButton() const { return m_run; }

public slots:
    int newSweep();  // index of the new sweep
    void deleteSweep();
    // A second axis over another tunable (a grid), or back to one axis.
    void addSecondAxis();
    void removeSecondAxis();
    void renameSweep(const QString& name);

signals:
    void runRequested(int index);

private:
    void refresh();
    void load(int index);
    void store();
    void updatePreview(const SweepDef& def, const QString& problem);
    SweepAxis defaultAxis(const QString& notParameter) const;

    ProjectDocument* m_document;
    std::vector<ParameterSpec> m_specs;
    QComboBox* m_sweeps = nullptr;
    SweepAxisEditor* m_axes[2] = {nullptr, nullptr};
    QGroupBox* m_secondGroup = nullptr;
    QPushButton* m_addAxis = nullptr;
    QPushButton* m_removeAxis = nullptr;
    QSpinBox* m_repetitions = nullptr;
    QSpinBox* m_warmups = nullptr;
    QCheckBox* m_random = nullptr;
    QLabel* m_preview = nullptr;
    QPushButton* m_run = nullptr;
    int m_current = -1;
    bool m_loading = false;
    bool m_second = false;  // the second axis is shown (and stored when valid)
    bool m_runEnabled = true;
    QMap<QString, QString> m_notInEffect;
    bool m_runnable = false;  // the fields make a sweep the engine accepts
};

}  // namespace blobbench
