#pragma once

#include <QObject>
#include <QSize>
#include <QString>
#include <functional>
#include <vector>

#include "engine/run/LoadPoint.h"
#include "ui/ChartSettings.h"

class QMenu;
class QSortFilterProxyModel;
class QTableView;
class QWidget;

namespace blobbench {

class ProjectDocument;
class ResultsModel;

// What leaves the window: the visible chart as PNG or SVG (at the project's export size), the
// results as CSV or JSON, and the shown rows as tab-separated text on the clipboard. Also the
// project's chart choices (ChartSettings), which the export size is one of.
class ExportController : public QObject {
    Q_OBJECT
public:
    // The chart on screen, brought up to date, and the title of its tab.
    struct VisibleChart {
        QWidget* widget = nullptr;
        QString title;
    };
    ExportController(ProjectDocument* document, ResultsModel* results, QTableView* table,
                     std::function<VisibleChart()> visibleChart, QWidget* window);

    // Chart as PNG / SVG, Results as CSV / JSON (`mnemonics`: with their & shortcuts).
    void addExportActions(QMenu* menu, bool mnemonics);

    // Exports; false (and the reason in failed()) on failure. .png or .svg, the visible chart, at
    // the project's export size (1600x900 unless changed) or at `size`, which the project then keeps.
    bool exportChart(const QString& path);
    bool exportChart(const QString& path, QSize size);
    bool exportResultsCsv(const QString& path);
    bool exportResultsJson(const QString& path);
    // The load figures of runs of many sessions the window shows: CSV (a row a session and point,
    // then the point's combined row) or JSON (every figure, histograms as buckets).
    void setLoadSource(std::function<std::vector<LoadPoint>()> loads) { m_loads = std::move(loads); }
    bool exportLoadsCsv(const QString& path);
    bool exportLoadsJson(const QString& path);
    // The selected rows (all shown rows when none is), in the table's order and columns.
    void copyResults();

    // The project's chart choices (Time vs bytes x axis, export size), read from its chartSettings.
    ChartSettings chartSettings() const;
    void setChartSettings(const ChartSettings& settings);

signals:
    void message(const QString& text, bool error);  // for the window's log
    void failed(const QString& message);            // for the window's error banner

private:
    void askAndExportChart(bool svg);  // the path, then the size
    void askAndExportResults(bool json);
    void askAndExportLoads(bool json);

    ProjectDocument* m_document;
    ResultsModel* m_results;
    QTableView* m_table;
    std::function<VisibleChart()> m_visibleChart;
    std::function<std::vector<LoadPoint>()> m_loads;
    QWidget* m_window;
};

}  // namespace blobbench
