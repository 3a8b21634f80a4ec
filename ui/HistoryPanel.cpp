#include "ui/HistoryPanel.h"

#include <algorithm>

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>
#include <set>

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "model/MarkdownExport.h"
#include "model/SeriesNaming.h"
#include "ui/Charts.h"
#include "ui/ComparisonModel.h"
#include "ui/Units.h"

namespace blobbench {

HistoryPanel::HistoryPanel(ProjectDocument* document, QWidget* parent) : QWidget(parent), m_document(document) {
    setObjectName(QStringLiteral("history"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_model = new HistoryModel(document, this);
    m_view = new QTreeView;
    m_view->setObjectName(QStringLiteral("historyView"));
    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->header()->setStretchLastSection(true);
    m_view->setColumnWidth(HistoryModel::Started, 140);
    m_view->setColumnWidth(HistoryModel::Connection, 170);
    m_view->setColumnWidth(HistoryModel::Sweep, 80);
    m_view->setColumnWidth(HistoryModel::Scenarios, 200);
    m_view->setColumnWidth(HistoryModel::Settings, 180);
    m_view->setColumnWidth(HistoryModel::Samples, 60);
    m_view->setColumnWidth(HistoryModel::Link, 150);
    layout->addWidget(m_view, 1);
    auto* bar = new QHBoxLayout;
    m_hint = new QLabel(tr("Select two runs to compare them (the older is the base)."));
    bar->addWidget(m_hint, 1);
    m_compare = new QPushButton(tr("Compare"));
    m_compare->setObjectName(QStringLiteral("compareRuns"));
    bar->addWidget(m_compare);
    layout->addLayout(bar);

    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &HistoryPanel::updateButtons);
    connect(m_compare, &QPushButton::clicked, this, [this] {
        const std::vector<int> runs = selectedRuns();
        if (runs.size() == 2)
            emit compareRequested(runs[0], runs[1]);
    });
    // The selection a reset clears is taken before it and put back after.
    connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this, [this] { m_keep = selectedRuns(); });
    connect(m_model, &QAbstractItemModel::modelReset, this, &HistoryPanel::modelReset);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &HistoryPanel::fitSettings);
    modelReset();
}

void HistoryPanel::modelReset() {
    fitSettings();
    selectRuns(m_keep);
    m_keep.clear();
    if (const int rows = m_model->rowCount(); rows > 0)
        m_view->scrollTo(m_model->index(rows - 1, 0));
    updateButtons();
}

void HistoryPanel::fitSettings() {
    // Wide enough for the longest, so that "inline 65535 · compression on" is never cut.
    m_view->resizeColumnToContents(HistoryModel::Settings);
    m_view->setColumnWidth(HistoryModel::Settings, std::clamp(m_view->columnWidth(HistoryModel::Settings), 120, 480));
}

void HistoryPanel::selectRuns(const std::vector<int>& indexes) {
    QItemSelection selection;
    for (int i : indexes) {
        if (i >= 0 && i < m_model->rowCount())
            selection.select(m_model->index(i, 0), m_model->index(i, HistoryModel::ColumnCount - 1));
    }
    m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
}

std::vector<int> HistoryPanel::selectedRuns() const {
    std::set<int> rows;
    for (const QModelIndex& index : m_view->selectionModel()->selectedRows()) {
        rows.insert(index.row());
    }
    return {rows.begin(), rows.end()};
}

void HistoryPanel::updateButtons() {
    const std::size_t n = selectedRuns().size();
    m_compare->setEnabled(n == 2);
    m_hint->setText(n == 2 ? tr("Compare: the older run is the base.")
                           : tr("Select two runs to compare them (the older is the base)."));
}

CompareDialog::CompareDialog(const RunRecord& base, const RunRecord& candidate, QWidget* parent)
    : QDialog(parent), m_base(base), m_candidate(candidate), m_rows(compareRuns(base.samples, candidate.samples)) {
    setObjectName(QStringLiteral("compareDialog"));
    setWindowTitle(tr("Compare runs"));
    auto* layout = new QVBoxLayout(this);
    auto* header =
        new QLabel(tr("<b>Base</b> %1 (%2, %3)<br><b>New</b> %4 (%5, %6)")
                       .arg(base.runId.toHtmlEscaped(), base.connectionName.toHtmlEscaped(),
                            linkText(base.link).toHtmlEscaped(), candidate.runId.toHtmlEscaped(),
                            candidate.connectionName.toHtmlEscaped(), linkText(candidate.link).toHtmlEscaped()));
    const QStringList differences = settingDifferences(base.samples, candidate.samples);
    if (!differences.isEmpty()) {
        QStringList escaped;
        for (const QString& d : differences)
            escaped << d.toHtmlEscaped();
        header->setText(header->text() + tr("<br><b>Settings that differ</b>: ") + escaped.join(QStringLiteral("; ")));
    }
    header->setObjectName(QStringLiteral("compareHeader"));
    header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(header);
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->setChildrenCollapsible(false);
    m_chart = makeComparisonChart(m_rows, splitter);
    m_chart->widget()->setObjectName(QStringLiteral("comparisonChart"));
    m_chart->widget()->setMinimumHeight(320);
    splitter->addWidget(m_chart->widget());
    m_model = new ComparisonModel(m_rows, this);
    m_table = new QTableView;
    m_table->setModel(m_model);
    m_table->setObjectName(QStringLiteral("comparison"));
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->resizeColumnsToContents();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({440, 260});
    layout->addWidget(splitter, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    QPushButton* exportButton = buttons->addButton(tr("Export Markdown…"), QDialogButtonBox::ActionRole);
    exportButton->setObjectName(QStringLiteral("exportMarkdown"));
    QPushButton* pngButton = buttons->addButton(tr("Chart PNG…"), QDialogButtonBox::ActionRole);
    pngButton->setObjectName(QStringLiteral("exportComparisonPng"));
    QPushButton* svgButton = buttons->addButton(tr("Chart SVG…"), QDialogButtonBox::ActionRole);
    svgButton->setObjectName(QStringLiteral("exportComparisonSvg"));
    m_status = new QLabel;
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(exportButton, &QPushButton::clicked, this, [this] {
        QFileDialog dialog(this, tr("Export comparison"), QString(), tr("Markdown (*.md)"));
        dialog.setAcceptMode(QFileDialog::AcceptSave);
        dialog.setDefaultSuffix(QStringLiteral("md"));
        if (dialog.exec() != QDialog::Accepted)
            return;
        const QString path = dialog.selectedFiles().value(0);
        try {
            exportMarkdown(path);
            m_status->setText(tr("Written to %1").arg(path));
        } catch (const Error& e) {
            m_status->setText(QString::fromStdString(e.what()));
        }
    });
    const auto exportChart = [this](const QString& filter, const QString& suffix, bool svg) {
        QFileDialog dialog(this, tr("Export comparison chart"), QString(), filter);
        dialog.setAcceptMode(QFileDialog::AcceptSave);
        dialog.setDefaultSuffix(suffix);
        if (dialog.exec() != QDialog::Accepted)
            return;
        const QString path = dialog.selectedFiles().value(0);
        try {
            svg ? exportChartSvg(path) : exportChartPng(path);
            m_status->setText(tr("Written to %1").arg(path));
        } catch (const Error& e) {
            m_status->setText(QString::fromStdString(e.what()));
        }
    };
    connect(pngButton, &QPushButton::clicked, this,
            [exportChart] { exportChart(tr("PNG image (*.png)"), QStringLiteral("png"), false); });
    connect(svgButton, &QPushButton::clicked, this,
            [exportChart] { exportChart(tr("SVG image (*.svg)"), QStringLiteral("svg"), true); });
    int width = 2 * m_table->frameWidth() + 40;
    for (int c = 0; c < ComparisonModel::ColumnCount; ++c)
        width += m_table->columnWidth(c);
    const int height = m_table->verticalHeader()->defaultSectionSize() * (static_cast<int>(m_rows.size()) + 1) + 520;
    resize(std::clamp(width, 900, 1300), std::clamp(height, 640, 900));
    buttons->button(QDialogButtonBox::Close)->setFocus();
}

CompareDialog::~CompareDialog() = default;

void CompareDialog::exportChartPng(const QString& path) const {
    blobbench::exportChartPng(m_chart->widget(), path);
}

void CompareDialog::exportChartSvg(const QString& path) const {
    blobbench::exportChartSvg(m_chart->widget(), path, windowTitle());
}

QString CompareDialog::markdown() const {
    return markdownComparison(m_base, m_candidate, m_rows);
}

void CompareDialog::exportMarkdown(const QString& path) const {
    writeMarkdown(path, markdown());
}

}  // namespace blobbench
