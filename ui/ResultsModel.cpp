#include "ui/ResultsModel.h"

#include <QStringList>

#include "ui/Units.h"

namespace blobbench {
namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}
double ms(Nanos n) {
    return static_cast<double>(n.count()) / 1e6;
}

QString joinMap(const std::map<std::string, std::string>& map) {
    QStringList parts;
    for (const auto& [key, value] : map) {
        parts << qs(key) + QLatin1Char('=') + qs(value);
    }
    return parts.join(QStringLiteral(", "));
}

QString notInEffect(const Sample& s) {
    QStringList parts;
    for (const ParameterEffect& e : s.effects) {
        if (!e.inEffect) {
            parts << qs(e.id) + QStringLiteral(" (") + qs(e.reason) + QLatin1Char(')');
        }
    }
    return parts.join(QStringLiteral(", "));
}

// Firebird's logical counters (items 150-153) are shown as they are, beside the physical ones.
QString logicalCounters(const WireStats& w) {
    if (!w.available) {
        return qs(w.unavailableReason);
    }
    return QObject::tr("sent %1 B in %2 packets, received %3 B in %4 packets")
        .arg(formatCount(w.counters.sendBytes), formatCount(w.counters.sendPackets), formatCount(w.counters.recvBytes),
             formatCount(w.counters.recvPackets));
}

double throughputMBps(const Sample& s) {
    const double seconds = ms(s.phases.elapsed()) / 1000;
    return seconds > 0 ? static_cast<double>(s.contentBytes) / 1e6 / seconds : 0;
}

}  // namespace

ResultsModel::ResultsModel(QObject* parent) : QAbstractTableModel(parent) {}

const WireStats* ResultsModel::wireOf(const Sample& s) {
    if (s.tap.available) {
        return &s.tap;
    }
    if (s.nativePhysical.available) {
        return &s.nativePhysical;
    }
    return nullptr;
}

void ResultsModel::setSamples(std::vector<Sample> samples) {
    beginResetModel();
    m_samples = std::move(samples);
    endResetModel();
}

void ResultsModel::addSample(const Sample& sample) {
    const int row = static_cast<int>(m_samples.size());
    beginInsertRows({}, row, row);
    m_samples.push_back(sample);
    endInsertRows();
}

void ResultsModel::clear() {
    setSamples({});
}

int ResultsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_samples.size());
}

int ResultsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (static_cast<Columns>(section)) {
        case Run:
            return tr("Run");
        case Scenario:
            return tr("Scenario");
        case Repetition:
            return tr("Rep.");
        case Status:
            return tr("Status");
        case ElapsedMs:
            return tr("Elapsed");
        case PrepareMs:
            return tr("Prepare");
        case ExecuteMs:
            return tr("Execute");
        case FetchMs:
            return tr("Fetch");
        case ConnectMs:
            return tr("Connect");
        case Rows:
            return tr("Rows");
        case ContentBytes:
            return tr("Content");
        case Throughput:
            return tr("MB/s");
        case MaxId:
            return tr("Max id");
        case ValuesRead:
            return tr("Values read");
        case ValuesSkipped:
            return tr("LOBs unopened");
        case Scalar:
            return tr("Value");
        case RoundTrips:
            return tr("Round trips");
        case SentBytes:
            return tr("Sent");
        case ReceivedBytes:
            return tr("Received");
        case SentPackets:
            return tr("Sent pkts");
        case ReceivedPackets:
            return tr("Recv pkts");
        case WireSource:
            return tr("Wire counters");
        case ClientLogical:
            return tr("Client logical counters");
        case Engine:
            return tr("Engine");
        case Connection:
            return tr("Connection");
        case ServerVersion:
            return tr("Server");
        case ClientVersion:
            return tr("Client");
        case Negotiated:
            return tr("Negotiated");
        case Parameters:
            return tr("Parameters");
        case NotInEffect:
            return tr("Not in effect");
        case StartedAt:
            return tr("Started");
        case Sql:
            return tr("SQL");
        case Error:
            return tr("Error");
        case ColumnCount:
            break;
    }
    return {};
}

QVariant ResultsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const Sample& s = m_samples[static_cast<std::size_t>(index.row())];
    if (role == SampleRole) {
        return QVariant::fromValue(s);
    }
    if (role == ScenarioIdRole) {
        return qs(s.scenarioId);
    }
    if (role == Qt::TextAlignmentRole) {
        const int c = index.column();
        const bool numeric = (c >= ElapsedMs && c <= ReceivedPackets) || c == Repetition;
        return numeric ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    }
    if (role == Qt::ToolTipRole && (index.column() == Error || index.column() == Sql)) {
        return index.column() == Error ? qs(s.error) : qs(s.sql);
    }
    if (role == Qt::ToolTipRole && index.column() == Status && (s.partial || !s.disturbed.empty())) {
        QStringList why;
        if (s.partial) {
            why << tr("Partial: the times, rows, bytes and wire counts stop where the sample %1, not those of a "
                      "whole statement.")
                       .arg(QString::fromLatin1(toString(s.status)));
        }
        if (!s.disturbed.empty()) {
            why << tr("Disturbed: %1. Its times are not the link's and the server's alone.").arg(qs(s.disturbed));
        }
        return why.join(QLatin1Char('\n'));
    }
    if (role != Qt::DisplayRole && role != SortRole) {
        return {};
    }
    const bool sort = role == SortRole;
    const WireStats* wire = wireOf(s);
    const auto wireNumber = [&](std::uint64_t WireCounters::*field) -> QVariant {
        if (wire == nullptr) {
            return sort ? QVariant(-1) : QVariant(QStringLiteral("—"));
        }
        const std::uint64_t v = wire->counters.*field;
        return sort ? QVariant(static_cast<qulonglong>(v)) : QVariant(formatCount(v));
    };
    const auto time = [&](Nanos n) -> QVariant { return sort ? QVariant(ms(n)) : QVariant(formatMillis(ms(n))); };

    switch (static_cast<Columns>(index.column())) {
        case Run:
            return qs(s.runId);
        case Scenario:
            return qs(s.scenarioTitle);
        case Repetition:
            return s.repetition + 1;
        case Status: {
            // A partial sample's figures stop at its fault; a disturbed one's times hold the client's pause.
            QString status = QString::fromLatin1(toString(s.status));
            if (s.partial) {
                status += tr(", partial");
            }
            if (!s.disturbed.empty()) {
                status += tr(", disturbed");
            }
            return status;
        }
        case ElapsedMs:
            return time(s.phases.elapsed());
        case PrepareMs:
            return time(s.phases.prepare);
        case ExecuteMs:
            return time(s.phases.execute);
        case FetchMs:
            return time(s.phases.fetch);
        case ConnectMs:
            return time(s.phases.connect);
        case Rows:
            return sort ? QVariant(static_cast<qulonglong>(s.rows)) : QVariant(formatCount(s.rows));
        case ContentBytes:
            return sort ? QVariant(static_cast<qulonglong>(s.contentBytes))
                        : QVariant(formatBytes(static_cast<double>(s.contentBytes)));
        case Throughput: {
            const double v = throughputMBps(s);
            return sort ? QVariant(v) : QVariant(QString::number(v, 'f', 1));
        }
        case MaxId:
            return s.maxId ? QVariant(static_cast<qlonglong>(*s.maxId)) : (sort ? QVariant(-1) : QVariant());
        case ValuesRead:
            return sort ? QVariant(static_cast<qulonglong>(s.valuesRead)) : QVariant(formatCount(s.valuesRead));
        case ValuesSkipped:
            return sort ? QVariant(static_cast<qulonglong>(s.valuesSkipped)) : QVariant(formatCount(s.valuesSkipped));
        case Scalar:
            return s.scalar ? qs(*s.scalar) : QString();
        case RoundTrips:
            if (wire == nullptr || !wire->counters.roundTrips) {
                return sort ? QVariant(-1) : QVariant(QStringLiteral("—"));
            }
            return sort ? QVariant(static_cast<qulonglong>(*wire->counters.roundTrips))
                        : QVariant(formatCount(*wire->counters.roundTrips));
        case SentBytes:
            return wireNumber(&WireCounters::sendBytes);
        case ReceivedBytes:
            return wireNumber(&WireCounters::recvBytes);
        case SentPackets:
            return wireNumber(&WireCounters::sendPackets);
        case ReceivedPackets:
            return wireNumber(&WireCounters::recvPackets);
        case WireSource:
            if (s.tap.available)
                return tr("wire tap");
            if (s.nativePhysical.available)
                return tr("client (physical)");
            return qs(s.tap.unavailableReason);
        case ClientLogical:
            return logicalCounters(s.nativeLogical);
        case Engine:
            return qs(s.engine);
        case Connection:
            return qs(s.connection);
        case ServerVersion:
            return qs(s.serverVersion);
        case ClientVersion:
            return qs(s.clientVersion);
        case Negotiated:
            return joinMap(s.negotiated);
        case Parameters:
            return joinMap(s.parameters);
        case NotInEffect:
            return notInEffect(s);
        case StartedAt:
            return qs(s.startedAt);
        case Sql:
            return qs(s.sql).simplified();
        case Error:
            return qs(s.error);
        case ColumnCount:
            break;
    }
    return {};
}

}  // namespace blobbench
