#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "engine/core/Sample.h"

namespace blobbench {

// One row per Sample with every figure and its context. DisplayRole is formatted for people,
// SortRole holds the raw number so sorting by time or bytes is numeric, SampleRole the whole value.
class ResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns {
        Run,
        Scenario,
        Repetition,
        Status,
        ElapsedMs,
        PrepareMs,
        ExecuteMs,
        FetchMs,
        ConnectMs,
        Rows,
        ContentBytes,
        Throughput,
        MaxId,
        ValuesRead,
        ValuesSkipped,
        Scalar,
        RoundTrips,
        SentBytes,
        ReceivedBytes,
        SentPackets,
        ReceivedPackets,
        WireSource,
        ClientLogical,
        Engine,
        Connection,
        ServerVersion,
        ClientVersion,
        Negotiated,
        Parameters,
        NotInEffect,
        StartedAt,
        Sql,
        Error,
        ColumnCount
    };
    enum Roles { SampleRole = Qt::UserRole, SortRole, ScenarioIdRole };

    explicit ResultsModel(QObject* parent = nullptr);

    void setSamples(std::vector<Sample> samples);
    void addSample(const Sample& sample);
    void clear();
    const std::vector<Sample>& samples() const { return m_samples; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The wire counters a sample's figures come from: the tap, else the client's physical ones.
    static const WireStats* wireOf(const Sample& sample);

private:
    std::vector<Sample> m_samples;
};

}  // namespace blobbench
