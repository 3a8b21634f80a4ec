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
// scenario and only what differs between the series ("Short BLOBs · compression on"), so a
// compression, result format or inline size change shows as a new series with its reason.
class SeriesNaming {
public:
    SeriesNaming() = default;
    explicit SeriesNaming(const std::vector<Sample>& samples);

    // Takes note of a sample's settings; the names of earlier samples may change with it.
    void add(const Sample& sample);

    // The identity of the series a sample belongs to: scenario, connection and every parameter,
    // whether or not they differ from other samples (a series never merges two settings).
    static QString seriesKey(const Sample& sample);

    // "compression on · inline 0 (not in effect)": the settings of `sample` that differ between
    // the samples seen; empty when they are all alike.
    QString settingsText(const Sample& sample) const;
    // "Short BLOBs · compression on": the scenario's title and settingsText().
    QString label(const Sample& sample) const;

    // The differing settings' keys ("connection", then parameter ids), sorted.
    QStringList differingKeys() const;

private:
    std::map<std::string, std::set<std::string>> m_values;  // setting -> values seen ("" where absent)
    std::set<std::string> m_keys;
    std::size_t m_samples = 0;
};

// "compression", "inline", "format", or the id with spaces for one not named here.
QString shortParameterName(const std::string& id);
// "on"/"off" for booleans, else the value.
QString shortParameterValue(const std::string& value);

// The settings that differ between two runs' samples, one line each for people:
// "wire_compression: false → true", "connection: SQLite → Firebird 5". Empty when none differ.
QStringList settingDifferences(const std::vector<Sample>& base, const std::vector<Sample>& candidate);

// Per run, the settings that tell it apart from the other runs ("compression on · inline 0";
// a setting a run swept shows its values joined by "/"); empty where a run has none of its own.
QStringList runSettingsTexts(const std::vector<const std::vector<Sample>*>& runs);

}  // namespace blobbench
