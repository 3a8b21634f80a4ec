#include "ui/HistoryModel.h"

#include <QDateTime>

#include "engine/drivers/Registry.h"
#include "model/SeriesNaming.h"

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

QStringList scenarioTitles(const RunRecord& run) {
    QStringList scenarios;
    for (const Sample& s : run.samples) {
        const QString title = QString::fromStdString(s.scenarioTitle);
        if (!scenarios.contains(title))
            scenarios << title;
    }
    return scenarios;
}

}  // namespace

QString linkText(const LinkSettings& link) {
    return QString::fromStdString(toLinkProfile(link).describe());
}

HistoryModel::HistoryModel(ProjectDocument* document, QObject* parent)
    : QAbstractTableModel(parent), m_document(document) {
    connect(m_document, &ProjectDocument::projectReset, this, &HistoryModel::reset);
    connect(m_document, &ProjectDocument::runStarted, this, &HistoryModel::reset);
    connect(m_document, &ProjectDocument::runFinished, this, &HistoryModel::runFinished);
    reset();
}

int HistoryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_rows;
}

int HistoryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HistoryModel::data(const QModelIndex& index, int role) const {
    const auto& history = m_document->project().history;
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        index.row() >= static_cast<int>(history.size()) || index.row() >= m_rows)
        return {};
    const RunRecord& run = history[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
            return cellText(run, index.row(), index.column());
        case Qt::ToolTipRole: {
            const QString tip = cellToolTip(run, index.row(), index.column());
            return tip.isEmpty() ? QVariant() : tip;
        }
        case Qt::UserRole:
            return index.row();
        default:
            return {};
    }
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return {};
    static const char* const titles[ColumnCount] = {
        QT_TR_NOOP("Started"),  QT_TR_NOOP("Connection"), QT_TR_NOOP("Sweep"), QT_TR_NOOP("Scenarios"),
        QT_TR_NOOP("Settings"), QT_TR_NOOP("Samples"),    QT_TR_NOOP("Link"),  QT_TR_NOOP("Status")};
    return tr(titles[section]);
}

QString HistoryModel::cellText(const RunRecord& run, int row, int column) const {
    switch (column) {
        case Started:
            return shortTime(run.startedAt);
        case Connection:
            return run.connectionName;
        case Sweep:
            return run.sweepName.isEmpty() ? QStringLiteral("-") : run.sweepName;
        case Scenarios:
            return scenarioTitles(run).join(QStringLiteral(", "));
        case Settings: {
            const QString text = row < m_settings.size() ? m_settings[row] : QString();
            return text.isEmpty() ? QStringLiteral("-") : text;
        }
        case Samples:
            return QString::number(run.samples.size());
        case Link: {
            // An embedded engine has no link: "unshaped" would suggest one that was not emulated.
            const Driver* driver = runDriver(run, m_document->project());
            return driver != nullptr && !driver->networked() ? tr("n/a (embedded)") : linkText(run.link);
        }
        case Status:
            return statusText(run);
        default:
            return {};
    }
}

QString HistoryModel::cellToolTip(const RunRecord& run, int row, int column) const {
    switch (column) {
        case Started:
            return run.runId;
        case Scenarios:
            return scenarioTitles(run).join(QLatin1Char('\n'));
        case Settings: {
            const QString text = row < m_settings.size() ? m_settings[row] : QString();
            return text.isEmpty() ? tr("No setting of its own: the same as the other runs")
                                  : tr("Settings that differ between the runs: %1").arg(text);
        }
        case Link: {
            const Driver* driver = runDriver(run, m_document->project());
            return driver != nullptr && !driver->networked() ? tr("%1 is embedded: there is no wire to shape")
                                                                   .arg(QString::fromStdString(driver->displayName()))
                                                             : QString();
        }
        default:
            return {};
    }
}

namespace {

// What differs among the runs depends on all of them: computed once per change, for every row.
QStringList settingsOf(const Project& project) {
    std::vector<const std::vector<Sample>*> runs;
    runs.reserve(project.history.size());
    for (const RunRecord& run : project.history)
        runs.push_back(&run.samples);
    // The connection has a column of its own: here only what differs among a connection's runs.
    return runSettingsTexts(runs, false);
}

}  // namespace

void HistoryModel::reset() {
    beginResetModel();
    m_rows = static_cast<int>(m_document->project().history.size());
    m_settings = settingsOf(m_document->project());
    endResetModel();
}

void HistoryModel::runFinished(const QString& runId) {
    const auto& history = m_document->project().history;
    if (static_cast<int>(history.size()) != m_rows) {
        reset();  // a run the model has not seen yet
        return;
    }
    m_settings = settingsOf(m_document->project());
    for (std::size_t i = 0; i < history.size(); ++i) {
        if (history[i].runId == runId)
            emit dataChanged(index(static_cast<int>(i), 0), index(static_cast<int>(i), ColumnCount - 1));
    }
    if (!history.empty())
        emit dataChanged(index(0, Settings), index(static_cast<int>(history.size()) - 1, Settings));
}

}  // namespace blobbench
