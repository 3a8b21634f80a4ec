#pragma once

#include <QDialog>
#include <QWidget>
#include <vector>

#include <memory>

#include "model/Project.h"
#include "model/RunComparison.h"
#include "ui/HistoryModel.h"

class QLabel;
class QPushButton;
class QTableView;
class QTreeView;

namespace blobbench {

class ComparisonChart;
class ComparisonModel;

// The runs saved in the project, newest last: start time, connection, sweep, scenarios, the
// settings that differ between the runs ("compression on"), samples, the link the run was measured over, and its
// outcome. Select two and Compare.
class HistoryPanel : public QWidget {
    Q_OBJECT
public:
    explicit HistoryPanel(ProjectDocument* document, QWidget* parent = nullptr);

    QTreeView* view() const { return m_view; }
    HistoryModel* model() const { return m_model; }
    QPushButton* compareButton() const { return m_compare; }
    // Selects runs by their index in the history (tests and scripts).
    void selectRuns(const std::vector<int>& indexes);
    std::vector<int> selectedRuns() const;  // history indexes, in history order

signals:
    // Base is the older of the two.
    void compareRequested(int baseIndex, int candidateIndex);

private:
    void modelReset();   // the selection kept, the last run in view
    void fitSettings();  // the Settings column wide enough for the longest
    void updateButtons();

    ProjectDocument* m_document;
    HistoryModel* m_model = nullptr;
    QTreeView* m_view = nullptr;
    QPushButton* m_compare = nullptr;
    QLabel* m_hint = nullptr;
    std::vector<int> m_keep;  // the selected runs, across a model reset
};

// Base vs new, per scenario and point: a chart of the medians side by side (min-max whiskers,
// significant differences marked) over the table of medians, delta, ratio and the Mann-Whitney test.
class CompareDialog : public QDialog {
    Q_OBJECT
public:
    CompareDialog(const RunRecord& base, const RunRecord& candidate, QWidget* parent = nullptr);
    ~CompareDialog() override;

    ComparisonChart* chart() const { return m_chart.get(); }
    // Write the chart as shown; throw Error(Io) naming the file.
    void exportChartPng(const QString& path) const;
    void exportChartSvg(const QString& path) const;

    QTableView* table() const { return m_table; }
    ComparisonModel* model() const { return m_model; }
    const std::vector<PointComparison>& rows() const { return m_rows; }
    QString markdown() const;
    // Writes the Markdown comparison; throws Error(Io) naming the file.
    void exportMarkdown(const QString& path) const;

private:
    RunRecord m_base;
    RunRecord m_candidate;
    std::vector<PointComparison> m_rows;
    std::unique_ptr<ComparisonChart> m_chart;
    ComparisonModel* m_model = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_status = nullptr;
};

}  // namespace blobbench
