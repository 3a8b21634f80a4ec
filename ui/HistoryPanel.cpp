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
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <set>

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "model/MarkdownExport.h"
#include "model/SeriesNaming.h"
#include "ui/Charts.h"
#include "ui/Units.h"

namespace blobbench {
namespace {

QString shortTime(const QString& iso) {
    const QDateTime t = QDateTime::fromString(iso, Qt::ISODateWithMs);
    return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : iso;
}

QString statusText(const RunRecord& run) {
    if (run.outcome.isEmpty())
        return run.finishedAt.isEmpty() ? QObject::tr("running (or cut short)") : QObject::tr("unknown");
    return run.outcome;
}

// The engine a run measured: its samples say, else the connection profile of that name.
const Driver* runDriver(const RunRecord& run, const Project& project) {
    std::string engine;
    if (!run.samples.empty()) {
        engine = run.samples.front().engine;
    } else {
        for (const ConnectionProfile& c : project.connections) {
            if (c.name == run.connectionName)
                engine = c.engine.toStdString();
        }
    }
    for (const Driver* driver : allDrivers()) {
        if (driver->id() == engine)
            return driver;
    }
    return nullptr;
}

}  // namespace

QString linkText(const LinkSettings& link) {
    return QString::fromStdString(toLinkProfile(link).describe());
}

HistoryPanel::HistoryPanel(ProjectDocument* document, QWidget* parent) : QWidget(parent), m_document(document) {
    setObjectName(QStringLiteral("history"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_view = new QTreeWidget;
    m_view->setObjectName(QStringLiteral("historyView"));
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setHeaderLabels({tr("Started"), tr("Connection"), tr("Sweep"), tr("Scenarios"), tr("Settings"),
                             tr("Samples"), tr("Link"), tr("Status")});
    m_view->header()->setStretchLastSection(true);
    m_view->setColumnWidth(Started, 140);
    m_view->setColumnWidth(Connection, 170);
    m_view->setColumnWidth(Sweep, 80);
    m_view->setColumnWidth(Scenarios, 200);
    m_view->setColumnWidth(Settings, 180);
    m_view->setColumnWidth(Samples, 60);
    m_view->setColumnWidth(Link, 150);
    layout->addWidget(m_view, 1);
    auto* bar = new QHBoxLayout;
    m_hint = new QLabel(tr("Select two runs to compare them (the older is the base)."));
    bar->addWidget(m_hint, 1);
    m_compare = new QPushButton(tr("Compare"));
    m_compare->setObjectName(QStringLiteral("compareRuns"));
    bar->addWidget(m_compare);
    layout->addLayout(bar);

    connect(m_view, &QTreeWidget::itemSelectionChanged, this, &HistoryPanel::updateButtons);
    connect(m_compare, &QPushButton::clicked, this, [this] {
        const std::vector<int> runs = selectedRuns();
        if (runs.size() == 2)
            emit compareRequested(runs[0], runs[1]);
    });
    connect(m_document, &ProjectDocument::projectReset, this, &HistoryPanel::refresh);
    connect(m_document, &ProjectDocument::runStarted, this, &HistoryPanel::refresh);
    connect(m_document, &ProjectDocument::runFinished, this, [this](const QString& runId) {
        const auto& history = m_document->project().history;
        for (std::size_t i = 0; i < history.size(); ++i) {
            if (history[i].runId == runId)
                updateRow(static_cast<int>(i));
        }
        updateSettings();
    });
    refresh();
}

void HistoryPanel::refresh() {
    const auto& history = m_document->project().history;
    const std::vector<int> selected = selectedRuns();
    m_view->clear();
    for (std::size_t i = 0; i < history.size(); ++i) {
        m_view->addTopLevelItem(new QTreeWidgetItem);
        updateRow(static_cast<int>(i));
    }
    updateSettings();
    selectRuns(selected);
    if (!history.empty())
        m_view->scrollToItem(m_view->topLevelItem(static_cast<int>(history.size()) - 1));
    updateButtons();
}

void HistoryPanel::updateRow(int index) {
    const auto& history = m_document->project().history;
    QTreeWidgetItem* item = m_view->topLevelItem(index);
    if (item == nullptr || index < 0 || index >= static_cast<int>(history.size()))
        return;
    const RunRecord& run = history[static_cast<std::size_t>(index)];
    QStringList scenarios;
    for (const Sample& s : run.samples) {
        const QString title = QString::fromStdString(s.scenarioTitle);
        if (!scenarios.contains(title))
            scenarios << title;
    }
    item->setText(Started, shortTime(run.startedAt));
    item->setToolTip(Started, run.runId);
    item->setText(Connection, run.connectionName);
    item->setText(Sweep, run.sweepName.isEmpty() ? QStringLiteral("-") : run.sweepName);
    item->setText(Scenarios, scenarios.join(QStringLiteral(", ")));
    item->setToolTip(Scenarios, scenarios.join(QLatin1Char('\n')));
    item->setText(Samples, QString::number(run.samples.size()));
    // An embedded engine has no link: "unshaped" would suggest one that was not emulated.
    const Driver* driver = runDriver(run, m_document->project());
    if (driver != nullptr && !driver->networked()) {
        item->setText(Link, tr("n/a (embedded)"));
        item->setToolTip(
            Link, tr("%1 is embedded: there is no wire to shape").arg(QString::fromStdString(driver->displayName())));
    } else {
        item->setText(Link, linkText(run.link));
        item->setToolTip(Link, QString());
    }
    item->setText(Status, statusText(run));
    item->setData(Started, Qt::UserRole, index);
}

void HistoryPanel::updateSettings() {
    const auto& history = m_document->project().history;
    std::vector<const std::vector<Sample>*> runs;
    runs.reserve(history.size());
    for (const RunRecord& run : history)
        runs.push_back(&run.samples);
    // The connection has a column of its own: here only what differs among a connection's runs.
    const QStringList texts = runSettingsTexts(runs, false);
    for (int i = 0; i < texts.size(); ++i) {
        if (QTreeWidgetItem* item = m_view->topLevelItem(i)) {
            item->setText(Settings, texts[i].isEmpty() ? QStringLiteral("-") : texts[i]);
            item->setToolTip(Settings, texts[i].isEmpty()
                                           ? tr("No setting of its own: the same as the other runs")
                                           : tr("Settings that differ between the runs: %1").arg(texts[i]));
        }
    }
    // Wide enough for the longest, so that "inline 65535 · compression on" is never cut.
    m_view->resizeColumnToContents(Settings);
    m_view->setColumnWidth(Settings, std::clamp(m_view->columnWidth(Settings), 120, 480));
}

void HistoryPanel::selectRuns(const std::vector<int>& indexes) {
    m_view->clearSelection();
    for (int i : indexes) {
        if (QTreeWidgetItem* item = m_view->topLevelItem(i))
            item->setSelected(true);
    }
}

std::vector<int> HistoryPanel::selectedRuns() const {
    std::set<int> rows;
    for (QTreeWidgetItem* item : m_view->selectedItems()) {
        rows.insert(m_view->indexOfTopLevelItem(item));
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
    m_table = new QTableWidget(static_cast<int>(m_rows.size()), ColumnCount);
    m_table->setObjectName(QStringLiteral("comparison"));
    m_table->setHorizontalHeaderLabels({tr("Scenario"), tr("Point"), tr("Base median"), tr("New median"), tr("Delta"),
                                        tr("Ratio"), tr("p (Mann-Whitney)"), tr("Verdict")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    for (int r = 0; r < static_cast<int>(m_rows.size()); ++r) {
        const PointComparison& c = m_rows[static_cast<std::size_t>(r)];
        const auto cell = [&](int column, const QString& text, bool right = true) {
            auto* item = new QTableWidgetItem(text);
            if (right)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(r, column, item);
        };
        const bool hasBase = c.base && c.base->elapsed.count > 0;
        const bool hasNew = c.candidate && c.candidate->elapsed.count > 0;
        cell(Scenario, c.scenarioTitle.isEmpty() ? c.scenarioId : c.scenarioTitle, false);
        cell(Point, pointText(c.point), false);
        cell(BaseMedian, hasBase ? formatMillis(c.base->elapsed.median) : tr("-"));
        cell(NewMedian, hasNew ? formatMillis(c.candidate->elapsed.median) : tr("-"));
        if (hasBase && hasNew) {
            const double delta = c.candidate->elapsed.median - c.base->elapsed.median;
            cell(Delta, (delta >= 0 ? QStringLiteral("+") : QStringLiteral("−")) + formatMillis(std::abs(delta)));
        } else {
            cell(Delta, tr("-"));
        }
        cell(Ratio, c.ratio ? QString::number(*c.ratio, 'f', 3) : tr("-"));
        cell(PValue, c.test.valid ? QString::number(c.test.pValue, 'g', 3) : tr("-"));
        QString verdict;
        if (!hasBase || !hasNew) {
            verdict = !hasBase ? tr("only in new") : tr("only in base");
        } else if (!c.test.valid) {
            verdict = tr("no test");
        } else if (c.significant) {
            verdict = c.ratio && *c.ratio < 1 ? tr("faster (significant)") : tr("slower (significant)");
        } else {
            verdict = tr("no significant change");
        }
        cell(Verdict, verdict, false);
    }
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
    for (int c = 0; c < ColumnCount; ++c)
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
