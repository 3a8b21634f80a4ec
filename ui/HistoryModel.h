#pragma once

#include <QAbstractTableModel>

#include "model/Project.h"

namespace blobbench {

// The project's run history as a table, one row per run in history order: when it started, its
// connection, sweep, scenarios, the settings that set it apart from the other runs, its samples,
// link and status. Display and tool-tip roles; Qt::UserRole of any cell is the run's history index.
// Follows the document: a reset or a new run resets the model, a finished run changes its row (and
// every run's Settings, which depend on all of them).
class HistoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Started, Connection, Sweep, Scenarios, Settings, Samples, Link, Status, ColumnCount };

    explicit HistoryModel(ProjectDocument* document, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void reset();
    void runFinished(const QString& runId);
    QString cellText(const RunRecord& run, int row, int column) const;
    QString cellToolTip(const RunRecord& run, int row, int column) const;

    ProjectDocument* m_document;
    int m_rows = 0;          // the runs the model shows (the history's, as of the last reset)
    QStringList m_settings;  // per run: the settings that differ among the runs ("" for none)
};

// "up 512 kbit/s + 20 ms, down 2 Mbit/s + 20 ms" or "unshaped".
QString linkText(const LinkSettings& link);

}  // namespace blobbench
