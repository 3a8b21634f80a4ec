#include "ui/ScenarioPanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListView>
#include <QMenu>
#include <QSplitter>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "engine/data/ReferenceSuite.h"
#include "model/EngineScenarios.h"
#include "model/SampleJson.h"
#include "ui/ScenarioListModel.h"
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
    m_model = new ScenarioListModel(document, this);
    m_list = new QListView;
    m_list->setObjectName(QStringLiteral("scenarios"));
    m_list->setModel(m_model);
    m_list->setToolTip(tr("Checked scenarios run with Run all; double-click (or F2) to rename"));
    m_list->setEditTriggers(QAbstractItemView::EditKeyPressed);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    // A narrow column elides in the middle: "Test read mixed BLOBs and VARCHARs" and "... with
    // optimize" stay apart, without a sideways scroll bar.
    m_list->setTextElideMode(Qt::ElideMiddle);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showScenario(current.row()); });
    connect(m_list, &QListView::doubleClicked, this, &ScenarioPanel::renameScenario);
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
                m_model->unmark(d.id);
            });
    });
    connect(m_setupEditor, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_loadingScenario)
            editCurrentScenario([this](ScenarioDef& d) {
                d.setupSql = m_setupEditor->toPlainText();
                m_model->unmark(d.id);
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
            setCurrentIndex(at);
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
    const Dialect before = m_model->dialect();
    const Dialect now = driver != nullptr ? driver->dialect() : Dialect::None;
    m_model->setDialect(now);
    if (!switched)
        m_model->clearMarks();
    QStringList translated;
    QStringList marked;
    const std::vector<ScenarioDef> scenarios = m_document->project().scenarios;
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
        const ScenarioDef& def = scenarios[i];
        if (const std::optional<ScenarioDef> ours = translatedReference(def, now)) {
            m_model->unmark(def.id);
            if (*ours != def) {
                m_loadingScenario = true;
                m_document->setScenario(static_cast<int>(i), *ours);
                m_loadingScenario = false;
                translated << def.title;
            }
            continue;
        }
        const bool custom = !def.isStudy() && !def.sql.trimmed().isEmpty() && !referenceDialectOf(def);
        if (switched && custom && before != Dialect::None && before != now && !m_model->isMarked(def.id)) {
            m_model->markWrittenFor(def.id, before);
            marked << def.title;
        }
    }
    refresh();
    showScenario(currentIndex());
    QStringList lines;
    if (!translated.isEmpty())
        lines << tr("%n reference scenario(s) now use the %1 statements", nullptr, static_cast<int>(translated.size()))
                     .arg(dialectName(now));
    if (!marked.isEmpty())
        lines << tr("written for %1, not run on %2: %3")
                     .arg(dialectName(before), dialectName(now), marked.join(QStringLiteral(", ")));
    return lines.join(QStringLiteral("; "));
}

std::optional<Dialect> ScenarioPanel::writtenForOtherEngine(const ScenarioDef& scenario) const {
    return m_model->writtenForOtherEngine(scenario);
}

void ScenarioPanel::refresh() {
    m_model->reload();  // the marks may have changed; the rows follow the document on their own
    const int rows = m_model->rowCount();
    const int row = std::clamp(currentIndex(), rows == 0 ? -1 : 0, rows - 1);
    if (currentIndex() != row) {
        setCurrentIndex(row);
    } else if (!m_loadingScenario) {
        showScenario(row);
    }
}

int ScenarioPanel::currentIndex() const {
    return m_list->currentIndex().row();
}

void ScenarioPanel::setCurrentIndex(int row) {
    m_list->setCurrentIndex(m_model->index(row));
}

int ScenarioPanel::count() const {
    return m_model->rowCount();
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
    setCurrentIndex(at);
    m_sqlEditor->setFocus();
}

void ScenarioPanel::duplicateScenario() {
    const int index = currentIndex();
    if (index < 0)
        return;
    ScenarioDef def = m_document->project().scenarios[static_cast<std::size_t>(index)];
    def.id = uniqueScenarioId(m_document->project(), def.id);
    def.title = tr("%1 (copy)").arg(def.title);
    setCurrentIndex(m_document->addScenario(def, index + 1));
}

void ScenarioPanel::renameScenario() {
    const int index = currentIndex();
    if (index < 0)
        return;
    const QModelIndex at = m_model->index(index);
    bool ok = false;
    const QString title = QInputDialog::getText(this, tr("Rename scenario"), tr("Title:"), QLineEdit::Normal,
                                                at.data(Qt::EditRole).toString(), &ok);
    if (ok)
        m_model->setData(at, title, Qt::EditRole);  // an empty title is refused
}

void ScenarioPanel::moveScenarioUp() {
    const int index = currentIndex();
    if (index <= 0)
        return;
    m_document->moveScenario(index, index - 1);
    setCurrentIndex(index - 1);
}

void ScenarioPanel::moveScenarioDown() {
    const int index = currentIndex();
    if (index < 0 || index + 1 >= count())
        return;
    m_document->moveScenario(index, index + 1);
    setCurrentIndex(index + 1);
}

void ScenarioPanel::deleteScenario() {
    const int index = currentIndex();
    if (index < 0)
        return;
    m_document->removeScenario(index);
}

}  // namespace blobbench
