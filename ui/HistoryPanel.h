#pragma once

#include <QDialog>
#include <QWidget>
#include <vector>

#include <memory>

#include "model/Project.h"
#include "model/RunComparison.h"

class QLabel;
class QPushButton;
class QTableWidget;
class QTreeWidget;

namespace blobbench {

class ComparisonChart;

// The runs saved in the project, newest last: start time, connection, sweep, scenarios, the
// settings that differ between the runs ("compression on"), samples, the link the run was measured over, and its
// outcome. Select two and Compare.
class HistoryPanel : public QWidget {
    Q_OBJECT
public:
    enum Column { Started, Connection, Sweep, Scenarios, Settings, Samples, Link, Status, ColumnCount };

    explicit HistoryPanel(ProjectDocument* document, QWidget* parent = nullptr);

    QTreeWidget* view() const { return m_view; }
    QPushButton* compareButton() const { return m_compare; }
    // Selects runs by their index in the history (tests and scripts).
    void selectRuns(const std::vector<int>& indexes);
    std::vector<int> selectedRuns() const;  // history indexes, in history order

signals:
    // Base is the older of the two.
    void compareRequested(int baseIndex, int candidateIndex);

private:
    void refresh();
    void updateRow(int index);
    void updateSettings();  // of every row: what differs depends on all the runs
    void updateButtons();

    ProjectDocument* m_document;
    QTreeWidget* m_view = nullptr;
    QPushButton* m_compare = nullptr;
    QLabel* m_hint = nullptr;
};

// Base vs new, per scenario and point: a chart of the medians side by side (min-max whiskers,
// significant differences marked) over the table of medians, delta, ratio and the Mann-Whitney test.
class CompareDialog : public QDialog {
    Q_OBJECT
public:
    enum Column { Scenario, Point, BaseMedian, NewMedian, Delta, Ratio, PValue, Verdict, ColumnCount };

    CompareDialog(const RunRecord& base, const RunRecord& candidate, QWidget* parent = nullptr);
    ~CompareDialog() override;

    ComparisonChart* chart() const { return m_chart.get(); }
    // Write the chart as shown; throw Error(Io) naming the file.
    void exportChartPng(const QString& path) const;
    void exportChartSvg(const QString& path) const;

    QTableWidget* table() const { return m_table; }
    const std::vector<PointComparison>& rows() const { return m_rows; }
    QString markdown() const;
    // Writes the Markdown comparison; throws Error(Io) naming the file.
    void exportMarkdown(const QString& path) const;

private:
    RunRecord m_base;
    RunRecord m_candidate;
    std::vector<PointComparison> m_rows;
    std::unique_ptr<ComparisonChart> m_chart;
    QTableWidget* m_table = nullptr;
    QLabel* m_status = nullptr;
};

// "up 2 Mbit/s + 20 ms, down ..." or "unshaped", for a run's link.
QString linkText(const LinkSettings& link);

}  // namespace blobbench
