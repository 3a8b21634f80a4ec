// The main window's Load tab: the load points of runs of many sessions (engine/run/LoadRun.h), as the
// history holds them, drawn by ui/Charts.h's LoadChart.
#include <QTabWidget>

#include "ui/MainWindow.h"
#include "ui/WhatIfPanel.h"

namespace blobbench {

std::vector<LoadPoint> MainWindow::shownLoads() const {
    std::vector<LoadPoint> out;
    for (const RunRecord& run : m_document->project().history) {
        if (m_hiddenRuns.contains(run.runId))
            continue;
        for (const LoadPoint& p : run.loads) {
            if (!m_hiddenConnections.contains(QString::fromStdString(p.connection)))
                out.push_back(p);
        }
    }
    return out;
}

void MainWindow::reloadLoads() {
    const std::vector<LoadPoint> loads = shownLoads();
    if (m_loadChart)
        m_loadChart->setLoads(loads);
    if (m_whatIf)
        m_whatIf->setLoadPoints(loads.size());
}

void MainWindow::showLoadChart() {
    if (m_loadChart)
        m_chartTabs->setCurrentWidget(m_loadChart->widget());
}

}  // namespace blobbench
