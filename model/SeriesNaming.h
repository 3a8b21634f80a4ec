#pragma once

#include <QString>
#include <QStringList>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/core/Sample.h"

namespace blobbench {

// What tells samples apart beyond their scenario: the connection and every requested parameter.
// A chart series is one scenario under one parameter set on one connection; its name gives the
// scenario, the connection where there are several, then only what differs among that
// connection's samples ("Short BLOBs · Firebird 5 · compression on"), so a compression, result
// format or inline size change shows as a new series with its reason, and another engine's
// tunables do not crowd it out.
class SeriesNaming {
public:
    SeriesNaming() = default;
    explicit SeriesNaming(const std::vector<Sample>& samples);

    // Takes note of a sample's settings; the names of earlier samples may change with it.
    void add(const Sample& sample);

    // The identity of the series a sample belongs to: scenario, connection and every parameter,
    // whether or not they differ from other samples (a series never merges two settings).
    static QString seriesKey(const Sample& sample);

    // "Firebird 5 · compression on · inline 0 (not in effect)": the connection if the samples seen
    // have several, then the settings of `sample` that differ among the samples of its connection;
    // empty when they are all alike.
    QString settingsText(const Sample& sample) const;
    // "Short BLOBs · compression on": the scenario's title and settingsText().
    QString label(const Sample& sample) const;

    // The differing settings' keys ("connection", then parameter ids), sorted.
    QStringList differingKeys() const;

    // The names people gave the connections (a project's profiles: label -> "PostgreSQL 15"): a
    // name stands for its connection label where one is known, else connectionText() does.
    void setConnectionNames(std::map<std::string, QString> labelToName) { m_names = std::move(labelToName); }
    QString connectionName(const std::string& label) const;

private:
    // The settings' values over some samples, and which of them differ.
    struct Seen {
        std::map<std::string, std::set<std::string>> values;  // setting -> values seen ("" where absent)
        std::set<std::string> keys;
        std::size_t samples = 0;
        void add(const std::map<std::string, std::string>& settings);
    };
    Seen m_all;
    // Per connection: another engine's samples have other tunables, which would make every
    // setting "differ"; a name gives the connection, then what differs among its own samples.
    std::map<std::string, Seen> m_byConnection;
    std::map<std::string, QString> m_names;
};

// A sample's connection for people: "postgresql://u@h/db", not "postgres:postgresql://u@h/db" (a URI
// whose scheme names the engine already); other labels as they are ("firebird:inet://h/db").
QString connectionText(const std::string& label);

// "compression", "inline", "format", or the id with spaces for one not named here.
QString shortParameterName(const std::string& id);
// "on"/"off" for booleans, else the value.
QString shortParameterValue(const std::string& value);

// The settings that differ between two runs' samples, one line each for people:
// "wire_compression: false → true", "connection: SQLite → Firebird 5". Empty when none differ.
QStringList settingDifferences(const std::vector<Sample>& base, const std::vector<Sample>& candidate);

// A link as LinkProfile::describe() gives it, in a few words where both directions agree: "20 ms",
// "2 Mbit/s + 20 ms", "2 Mbit/s"; "unshaped" and links that differ per direction as they are.
std::string shortLinkText(const std::string& describe);

// Per run, the settings that tell it apart from the other runs: its connection where the runs have
// several, then what differs among the runs of that connection ("compression on · inline 0"; a
// setting a run swept shows its values joined by "/"); empty where a run has none of its own.
// `withConnection` false leaves the connection out (a view that shows it in a column of its own).
QStringList runSettingsTexts(const std::vector<const std::vector<Sample>*>& runs, bool withConnection = true);

}  // namespace blobbench
