#include "ui/ScenarioPanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QSplitter>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "engine/data/ReferenceSuite.h"
#include "model/EngineScenarios.h"
#include "model/SampleJson.h"
#include "ui/SqlEditor.h"
#include "ui/Units.h"

namespace blobbench {

QString uniqueScenarioId(const Project& project, const QString& base) {
    QString id = base;
    for (int n = 2;; ++n) {
        const bool taken = std::any_of(project.scenarios.begin(), project.scenarios.end(),
                                       [&](const ScenarioDef& s) { return s.id == id; });
        if (!taken) {
            return id;
        }
        id = base + QLatin1Char('-') + QString::number(n);
    }
}

ScenarioPanel::ScenarioPanel(ProjectDocument* document, QWidget* parent) : QWidget(parent), m_document(document) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("<b>Scenarios</b>")));
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("scenarios"));
    m_list->setToolTip(tr("Checked scenarios run with Run all; double-click to rename"));
    // A narrow column elides in the middle: "Test read mixed BLOBs and VARCHARs" and "... with
    // optimize" stay apart, without a sideways scroll bar.
    m_list->setTextElideMode(Qt::ElideMiddle);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    connect(m_list, &QListWidget::currentRowChanged, this, &ScenarioPanel::showScenario);
    connect(m_list, &QListWidget::itemDoubleClicked, this, &ScenarioPanel::renameScenario);
    connect(m_list, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        if (m_refreshingList)
            return;
        const int row = m_list->row(item);
        const auto& scenarios = m_document->project().scenarios;
        if (row < 0 || row >= static_cast<int>(scenarios.size()))
            return;
        ScenarioDef def = scenarios[static_cast<std::size_t>(row)];
        def.enabled = item->checkState() == Qt::Checked;
        m_document->setScenario(row, def);
    });
    layout->addWidget(m_list, 1);

    auto* bar = new QToolBar;
    bar->setIconSize(QSize(16, 16));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(tr("Add"), this, &ScenarioPanel::addScenario)->setToolTip(tr("Add an empty scenario"));
    bar->addAction(tr("Copy"), this, &ScenarioPanel::duplicateScenario)->setToolTip(tr("Duplicate the scenario"));
    bar->addAction(QStringLiteral("▲"), this, &ScenarioPanel::moveScenarioUp)->setToolTip(tr("Move up"));
    bar->addAction(QStringLiteral("▼"), this, &ScenarioPanel::moveScenarioDown)->setToolTip(tr("Move down"));
    bar->addAction(tr("Del"), this, &ScenarioPanel::deleteScenario)->setToolTip(tr("Delete the scenario"));
    auto* templates = new QToolButton;
    templates->setText(tr("Presets"));
    templates->setToolTip(tr("Add a reference scenario of the connection's engine"));
    templates->setPopupMode(QToolButton::InstantPopup);
    m_templatesMenu = new QMenu(templates);
    templates->setMenu(m_templatesMenu);
    bar->addWidget(templates);
    layout->addWidget(bar);
    m_sqlPanel = buildSqlPanel();
    connect(m_document, &ProjectDocument::scenariosChanged, this, &ScenarioPanel::refresh);
}

QWidget* ScenarioPanel::buildSqlPanel() {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* header = new QHBoxLayout;
    header->addWidget(new QLabel(tr("<b>SQL</b>")));
    header->addStretch(1);
    header->addWidget(new QLabel(tr("Kind")));
    m_kind = new QComboBox;
    m_kind->addItem(tr("query: every row"), QStringLiteral("query"));
    m_kind->addItem(tr("scalar: one value"), QStringLiteral("scalar"));
    header->addWidget(m_kind);
    header->addWidget(new QLabel(tr("Fetch")));
    m_fetch = new QComboBox;
    m_fetch->addItem(tr("content"), QStringLiteral("content"));
    m_fetch->addItem(tr("ids only (LOBs unopened)"), QStringLiteral("ids-only"));
    header->addWidget(m_fetch);
    layout->addLayout(header);

    auto* split = new QSplitter(Qt::Vertical);
    auto* setupBox = new QWidget;
    auto* setupLayout = new QVBoxLayout(setupBox);
    setupLayout->setContentsMargins(0, 0, 0, 0);
    setupLayout->addWidget(new QLabel(tr("Setup (run first, not measured)")));
    m_setupEditor = new SqlEditor;
    m_setupEditor->setObjectName(QStringLiteral("setupSql"));
    m_setupEditor->setPlaceholderText(tr("optional, e.g. PRAGMA or SET statements"));
    setupLayout->addWidget(m_setupEditor);
    auto* measuredBox = new QWidget;
    auto* measuredLayout = new QVBoxLayout(measuredBox);
    measuredLayout->setContentsMargins(0, 0, 0, 0);
    measuredLayout->addWidget(new QLabel(tr("Measured statement")));
    m_sqlEditor = new SqlEditor;
    m_sqlEditor->setObjectName(QStringLiteral("measuredSql"));
    m_sqlEditor->setPlaceholderText(tr("SELECT ID, CONTENT FROM BLOB_TEST"));
    measuredLayout->addWidget(m_sqlEditor);
    split->addWidget(setupBox);
    split->addWidget(measuredBox);
    split->setSizes({50, 200});
    layout->addWidget(split, 1);

    // Editing a scenario's statements makes it the current engine's: a "written for" mark goes.
    connect(m_sqlEditor, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_loadingScenario)
            editCurrentScenario([this](ScenarioDef& d) {
                d.sql = m_sqlEditor->toPlainText();
                m_writtenFor.remove(d.id);
            });
    });
    connect(m_setupEditor, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_loadingScenario)
            editCurrentScenario([this](ScenarioDef& d) {
                d.setupSql = m_setupEditor->toPlainText();
                m_writtenFor.remove(d.id);
            });
    });
    connect(m_kind, &QComboBox::activated, this,
            [this] { editCurrentScenario([this](ScenarioDef& d) { d.kind = m_kind->currentData().toString(); }); });
    connect(m_fetch, &QComboBox::activated, this,
            [this] { editCurrentScenario([this](ScenarioDef& d) { d.fetch = m_fetch->currentData().toString(); }); });
    return panel;
}

void ScenarioPanel::setDriver(const Driver* driver) {
    m_templatesMenu->clear();
    if (driver == nullptr || driver->dialect() == Dialect::None) {
        m_templatesMenu->addAction(tr("(no presets for this engine)"))->setEnabled(false);
        return;
    }
    const std::vector<Scenario> suite = referenceSuite(driver->dialect());
    for (const Scenario& s : suite) {
        m_templatesMenu->addAction(qs(s.title), this, [this, s] {
            ScenarioDef def = ScenarioDef::fromScenario(s);
            def.id = uniqueScenarioId(m_document->project(), def.id);
            const int at = m_document->addScenario(def, currentIndex() + 1);
            m_list->setCurrentRow(at);
        });
    }
    m_templatesMenu->addSeparator();
    m_templatesMenu->addAction(tr("The whole reference suite"), this, [this, suite] {
        for (const Scenario& s : suite) {
            ScenarioDef def = ScenarioDef::fromScenario(s);
            def.id = uniqueScenarioId(m_document->project(), def.id);
            m_document->addScenario(def);
        }
    });
}

QString ScenarioPanel::followEngine(const Driver* driver, bool switched) {
    const Dialect before = m_dialect;
    m_dialect = driver != nullptr ? driver->dialect() : Dialect::None;
    if (!switched)
        m_writtenFor.clear();
    QStringList translated;
    QStringList marked;
    const std::vector<ScenarioDef> scenarios = m_document->project().scenarios;
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
        const ScenarioDef& def = scenarios[i];
        if (const std::optional<ScenarioDef> ours = translatedReference(def, m_dialect)) {
            m_writtenFor.remove(def.id);
            if (*ours != def) {
                m_loadingScenario = true;
                m_document->setScenario(static_cast<int>(i), *ours);
                m_loadingScenario = false;
                translated << def.title;
            }
            continue;
        }
        const bool custom = !def.isStudy() && !def.sql.trimmed().isEmpty() && !referenceDialectOf(def);
        if (switched && custom && before != Dialect::None && before != m_dialect && !m_writtenFor.contains(def.id)) {
            m_writtenFor.insert(def.id, before);
            marked << def.title;
        }
    }
    refresh();
    showScenario(currentIndex());
    QStringList lines;
    if (!translated.isEmpty())
        lines << tr("%n reference scenario(s) now use the %1 statements", nullptr, static_cast<int>(translated.size()))
                     .arg(dialectName(m_dialect));
    if (!marked.isEmpty())
        lines << tr("written for %1, not run on %2: %3")
                     .arg(dialectName(before), dialectName(m_dialect), marked.join(QStringLiteral(", ")));
    return lines.join(QStringLiteral("; "));
}

std::optional<Dialect> ScenarioPanel::writtenForOtherEngine(const ScenarioDef& scenario) const {
    const auto it = m_writtenFor.constFind(scenario.id);
    if (it == m_writtenFor.constEnd() || *it == m_dialect)
        return std::nullopt;
    return *it;
}

void ScenarioPanel::refresh() {
    const auto& scenarios = m_document->project().scenarios;
    m_refreshingList = true;
    const int current = m_list->currentRow();
    if (m_list->count() != static_cast<int>(scenarios.size())) {
        const QSignalBlocker block(m_list);
        m_list->clear();
        for (std::size_t i = 0; i < scenarios.size(); ++i) {
            m_list->addItem(new QListWidgetItem);
        }
    }
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
        QListWidgetItem* item = m_list->item(static_cast<int>(i));
        const ScenarioDef& def = scenarios[i];
        item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        const QString title = def.title.isEmpty() ? tr("(untitled)") : def.title;
        item->setCheckState(def.enabled ? Qt::Checked : Qt::Unchecked);
        if (const std::optional<Dialect> other = writtenForOtherEngine(def)) {
            item->setText(tr("%1 (written for %2)").arg(title, dialectName(*other)));
            item->setForeground(palette().brush(QPalette::Disabled, QPalette::Text));
            item->setToolTip(tr("Written for %1: not run on %2 until its SQL is edited for %2 (or add the %2 "
                                "reference suite from Presets).\n%3")
                                 .arg(dialectName(*other), dialectName(m_dialect), def.sql));
            continue;
        }
        item->setText(title);
        item->setData(Qt::ForegroundRole, QVariant());
        item->setToolTip(def.sql.trimmed().isEmpty() ? tr("No measured statement yet") : def.sql);
    }
    m_refreshingList = false;
    const int row = std::clamp(current, scenarios.empty() ? -1 : 0, static_cast<int>(scenarios.size()) - 1);
    if (m_list->currentRow() != row) {
        m_list->setCurrentRow(row);
    } else if (!m_loadingScenario) {
        showScenario(row);
    }
}

int ScenarioPanel::currentIndex() const {
    return m_list->currentRow();
}

void ScenarioPanel::showScenario(int index) {
    const auto& scenarios = m_document->project().scenarios;
    const bool valid = index >= 0 && index < static_cast<int>(scenarios.size());
    m_loadingScenario = true;
    const ScenarioDef def = valid ? scenarios[static_cast<std::size_t>(index)] : ScenarioDef{};
    // Only replace text that differs: resetting an editor's text while the user types in it would
    // move the cursor.
    if (m_sqlEditor->toPlainText() != def.sql)
        m_sqlEditor->setPlainText(def.sql);
    if (m_setupEditor->toPlainText() != def.setupSql)
        m_setupEditor->setPlainText(def.setupSql);
    m_kind->setCurrentIndex(std::max(0, m_kind->findData(def.kind)));
    m_fetch->setCurrentIndex(std::max(0, m_fetch->findData(def.fetch)));
    for (QWidget* w : std::initializer_list<QWidget*>{m_sqlEditor, m_setupEditor, m_kind, m_fetch}) {
        w->setEnabled(valid);
    }
    m_loadingScenario = false;
}

void ScenarioPanel::editCurrentScenario(const std::function<void(ScenarioDef&)>& change) {
    const int index = currentIndex();
    const auto& scenarios = m_document->project().scenarios;
    if (index < 0 || index >= static_cast<int>(scenarios.size())) {
        return;
    }
    ScenarioDef def = scenarios[static_cast<std::size_t>(index)];
    change(def);
    m_loadingScenario = true;  // the document's echo must not reload the editor being typed in
    m_document->setScenario(index, def);
    m_loadingScenario = false;
}

void ScenarioPanel::addScenario() {
    ScenarioDef def;
    def.id = uniqueScenarioId(m_document->project(), QStringLiteral("scenario"));
    def.title = tr("New scenario");
    const int at = m_document->addScenario(def, currentIndex() + 1);
    m_list->setCurrentRow(at);
    m_sqlEditor->setFocus();
}

void ScenarioPanel::duplicateScenario() {
    const int index = currentIndex();
    if (index < 0)
        return;
    ScenarioDef def = m_document->project().scenarios[static_cast<std::size_t>(index)];
    def.id = uniqueScenarioId(m_document->project(), def.id);
    def.title = tr("%1 (copy)").arg(def.title);
    m_list->setCurrentRow(m_document->addScenario(def, index + 1));
}

void ScenarioPanel::renameScenario() {
    const int index = currentIndex();
    if (index < 0)
        return;
    ScenarioDef def = m_document->project().scenarios[static_cast<std::size_t>(index)];
    bool ok = false;
    const QString title =
        QInputDialog::getText(this, tr("Rename scenario"), tr("Title:"), QLineEdit::Normal, def.title, &ok);
    if (ok && !title.trimmed().isEmpty()) {
        def.title = title.trimmed();
        m_document->setScenario(index, def);
    }
}

void ScenarioPanel::moveScenarioUp() {
    const int index = currentIndex();
    if (index <= 0)
        return;
    m_document->moveScenario(index, index - 1);
    m_list->setCurrentRow(index - 1);
}

void ScenarioPanel::moveScenarioDown() {
    const int index = currentIndex();
    if (index < 0 || index + 1 >= m_list->count())
        return;
    m_document->moveScenario(index, index + 1);
    m_list->setCurrentRow(index + 1);
}

void ScenarioPanel::deleteScenario() {
    const int index = currentIndex();
    if (index < 0)
        return;
    m_document->removeScenario(index);
}

}  // namespace blobbench
