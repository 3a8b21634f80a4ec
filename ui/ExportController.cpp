#include "ui/ExportController.h"

#include <QApplication>
#include <QClipboard>
#include <QItemSelectionModel>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <algorithm>

#include "engine/core/Error.h"
#include "model/LoadJson.h"
#include "model/Project.h"
#include "model/SampleJson.h"
#include "ui/Charts.h"
#include "ui/DocumentController.h"
#include "ui/ExportSizeDialog.h"
#include "ui/ResultsModel.h"

namespace blobbench {

ExportController::ExportController(ProjectDocument* document, ResultsModel* results, QTableView* table,
                                   std::function<VisibleChart()> visibleChart, QWidget* window)
    : QObject(window),
      m_document(document),
      m_results(results),
      m_table(table),
      m_visibleChart(std::move(visibleChart)),
      m_window(window) {}

void ExportController::addExportActions(QMenu* menu, bool mnemonics) {
    const auto text = [mnemonics](QString label) { return mnemonics ? label : label.remove(QLatin1Char('&')); };
    menu->addAction(text(tr("Chart as &PNG…")), this, [this] { askAndExportChart(false); });
    menu->addAction(text(tr("Chart as &SVG…")), this, [this] { askAndExportChart(true); });
    menu->addAction(text(tr("Results as &CSV…")), this, [this] { askAndExportResults(false); });
    menu->addAction(text(tr("Results as &JSON…")), this, [this] { askAndExportResults(true); });
    menu->addAction(text(tr("&Load figures as CSV…")), this, [this] { askAndExportLoads(false); });
    menu->addAction(text(tr("Load figures as JS&ON…")), this, [this] { askAndExportLoads(true); });
}

void ExportController::askAndExportLoads(bool json) {
    const QString path = json ? DocumentController::askSavePath(m_window, tr("Export load figures"),
                                                                tr("JSON (*.json)"), QStringLiteral("json"))
                              : DocumentController::askSavePath(m_window, tr("Export load figures"), tr("CSV (*.csv)"),
                                                                QStringLiteral("csv"));
    if (path.isEmpty())
        return;
    if (json)
        exportLoadsJson(path);
    else
        exportLoadsCsv(path);
}

bool ExportController::exportLoadsCsv(const QString& path) {
    const std::vector<LoadPoint> loads = m_loads ? m_loads() : std::vector<LoadPoint>{};
    if (loads.empty()) {
        emit failed(tr("No load figures to export: they come from runs of many sessions (Load: sessions above 1)"));
        return false;
    }
    try {
        writeLoadsCsv(path, loads);
    } catch (const Error& e) {
        emit failed(qs(e.what()));
        return false;
    }
    emit message(tr("%n load point(s) written to %1", nullptr, static_cast<int>(loads.size())).arg(path), false);
    return true;
}

bool ExportController::exportLoadsJson(const QString& path) {
    const std::vector<LoadPoint> loads = m_loads ? m_loads() : std::vector<LoadPoint>{};
    if (loads.empty()) {
        emit failed(tr("No load figures to export: they come from runs of many sessions (Load: sessions above 1)"));
        return false;
    }
    try {
        writeLoadsJson(path, loads);
    } catch (const Error& e) {
        emit failed(qs(e.what()));
        return false;
    }
    emit message(tr("%n load point(s) written to %1", nullptr, static_cast<int>(loads.size())).arg(path), false);
    return true;
}

void ExportController::askAndExportChart(bool svg) {
    const QString path = svg ? DocumentController::askSavePath(m_window, tr("Export chart"), tr("SVG image (*.svg)"),
                                                               QStringLiteral("svg"))
                             : DocumentController::askSavePath(m_window, tr("Export chart"), tr("PNG image (*.png)"),
                                                               QStringLiteral("png"));
    if (path.isEmpty())
        return;
    if (const auto size = askExportSize(m_window, chartSettings().exportSize))
        exportChart(path, *size);
}

void ExportController::askAndExportResults(bool json) {
    const QString path = json ? DocumentController::askSavePath(m_window, tr("Export results"), tr("JSON (*.json)"),
                                                                QStringLiteral("json"))
                              : DocumentController::askSavePath(m_window, tr("Export results"), tr("CSV (*.csv)"),
                                                                QStringLiteral("csv"));
    if (path.isEmpty())
        return;
    if (json)
        exportResultsJson(path);
    else
        exportResultsCsv(path);
}

ChartSettings ExportController::chartSettings() const {
    return readChartSettings(m_document->project().chartSettings);
}

void ExportController::setChartSettings(const ChartSettings& settings) {
    m_document->setChartSettings(writeChartSettings(m_document->project().chartSettings, settings));
}

bool ExportController::exportChart(const QString& path) {
    return exportChart(path, chartSettings().exportSize);
}

bool ExportController::exportChart(const QString& path, QSize size) {
    ChartSettings settings = chartSettings();
    if (settings.exportSize != size) {
        settings.exportSize = size;
        setChartSettings(settings);  // offered next time, and saved with the project
    }
    const VisibleChart chart = m_visibleChart();
    try {
        if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
            exportChartSvg(chart.widget, path, chart.title, size);
        } else {
            exportChartPng(chart.widget, path, size);
        }
    } catch (const Error& e) {
        emit failed(qs(e.what()));
        return false;
    }
    emit message(tr("Chart written to %1 (%2 x %3)").arg(path).arg(size.width()).arg(size.height()), false);
    return true;
}

bool ExportController::exportResultsCsv(const QString& path) {
    try {
        writeSamplesCsv(path, m_results->samples());
    } catch (const Error& e) {
        emit failed(qs(e.what()));
        return false;
    }
    emit message(tr("%n sample(s) written to %1", nullptr, m_results->rowCount()).arg(path), false);
    return true;
}

bool ExportController::exportResultsJson(const QString& path) {
    SessionInfo session;
    if (!m_results->samples().empty()) {
        const Sample& last = m_results->samples().back();
        session.engine = last.engine;
        session.serverVersion = last.serverVersion;
        session.clientVersion = last.clientVersion;
        session.negotiated = last.negotiated;
        session.effects = last.effects;
    }
    try {
        writeSamplesJson(path, session, m_results->samples());
    } catch (const Error& e) {
        emit failed(qs(e.what()));
        return false;
    }
    emit message(tr("%n sample(s) written to %1", nullptr, m_results->rowCount()).arg(path), false);
    return true;
}

void ExportController::copyResults() {
    QAbstractItemModel* shown = m_table->model();
    QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        for (int r = 0; r < shown->rowCount(); ++r)
            rows << shown->index(r, 0);
    }
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    QStringList lines;
    QStringList header;
    for (int c = 0; c < ResultsModel::ColumnCount; ++c) {
        header << shown->headerData(c, Qt::Horizontal).toString();
    }
    lines << header.join(QLatin1Char('\t'));
    for (const QModelIndex& row : rows) {
        QStringList cells;
        for (int c = 0; c < ResultsModel::ColumnCount; ++c) {
            cells << shown->index(row.row(), c).data().toString().replace(QLatin1Char('\t'), QLatin1Char(' '));
        }
        lines << cells.join(QLatin1Char('\t'));
    }
    QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')) + QLatin1Char('\n'));
}

}  // namespace blobbench
