#pragma once

#include <QWidget>
#include <vector>

#include "engine/core/Parameter.h"
#include "model/Project.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace blobbench {

// Edits the project's sweeps: pick one (or make a new one), the tunable it sweeps (from the
// engine's ParameterSpecs), its values as a list or as a range (from, to, points, log), the
// repetitions, warm-ups and order. Every edit goes to the ProjectDocument; "Run sweep" asks the
// window to run it. A second axis loaded from a file (a grid) is kept as it is and shown.
class SweepEditor : public QWidget {
    Q_OBJECT
public:
    explicit SweepEditor(ProjectDocument* document, QWidget* parent = nullptr);

    // The tunables that can be swept: those of the current connection's engine.
    void setSpecs(const std::vector<ParameterSpec>& specs);
    int currentSweep() const;  // index in the project's sweeps, -1 for none
    void setCurrentSweep(int index);
    void setRunEnabled(bool enabled);

    // The points the current sweep expands to ("7 points: 0, 1024, ...") or what is wrong with it.
    QString previewText() const;

    QComboBox* sweepBox() const { return m_sweeps; }
    QComboBox* parameterBox() const { return m_parameter; }
    QRadioButton* listMode() const { return m_list; }
    QRadioButton* rangeMode() const { return m_range; }
    QLineEdit* valuesEdit() const { return m_values; }
    QLineEdit* fromEdit() const { return m_from; }
    QLineEdit* toEdit() const { return m_to; }
    QSpinBox* pointsBox() const { return m_points; }
    QCheckBox* logBox() const { return m_log; }
    QSpinBox* repetitionsBox() const { return m_repetitions; }
    QSpinBox* warmupsBox() const { return m_warmups; }
    QCheckBox* randomBox() const { return m_random; }
    QPushButton* runButton() const { return m_run; }

public slots:
    int newSweep();  // index of the new sweep
    void deleteSweep();
    void renameSweep(const QString& name);

signals:
    void runRequested(int index);

private:
    void refresh();
    void load(int index);
    void store();
    void updatePreview(const SweepDef& def, const QString& problem);
    void updateModeWidgets();

    ProjectDocument* m_document;
    std::vector<ParameterSpec> m_specs;
    QComboBox* m_sweeps = nullptr;
    QComboBox* m_parameter = nullptr;
    QRadioButton* m_list = nullptr;
    QRadioButton* m_range = nullptr;
    QLineEdit* m_values = nullptr;
    QLineEdit* m_from = nullptr;
    QLineEdit* m_to = nullptr;
    QSpinBox* m_points = nullptr;
    QCheckBox* m_log = nullptr;
    QSpinBox* m_repetitions = nullptr;
    QSpinBox* m_warmups = nullptr;
    QCheckBox* m_random = nullptr;
    QLabel* m_grid = nullptr;
    QLabel* m_preview = nullptr;
    QPushButton* m_run = nullptr;
    QWidget* m_rangeRow = nullptr;
    int m_current = -1;
    bool m_loading = false;
    bool m_runEnabled = true;
    bool m_runnable = false;  // the fields make a sweep the engine accepts
};

}  // namespace blobbench
