#pragma once

#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <optional>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/drivers/Driver.h"
#include "engine/run/LoadPoint.h"
#include "engine/run/Scenario.h"
#include "engine/run/Sweep.h"
#include "engine/storage/StorageScenario.h"
#include "engine/wire/LinkProfile.h"

namespace blobbench {

// Link emulation asked of the wire tap (0 = none / unlimited).
struct LinkSettings {
    int latencyUpMs = 0;
    int latencyDownMs = 0;
    qint64 bandwidthUpBits = 0;
    qint64 bandwidthDownBits = 0;
    bool operator==(const LinkSettings&) const = default;
};

// The engine's link profile for these settings.
LinkProfile toLinkProfile(const LinkSettings& link);

// A saved connection. Never a password: those come at connect time, from the engine's usual
// places (ISC_PASSWORD, PGPASSWORD, .pgpass) or the system keyring.
struct ConnectionProfile {
    QString name;
    QString engine;
    QString target;
    QString user;
    QString role;
    QString charset;
    QString clientLibrary;
    bool useWireTap = true;  // networked engines only: measure through the tap (and emulate `link`)
    LinkSettings link;
    bool operator==(const ConnectionProfile&) const = default;

    // `target` may name the data directory as ${DATA} (BLOBBENCH_DATA_DIR or the user's data
    // directory), so that shipped presets run as they are; toSpec() expands it.
    ConnectionSpec toSpec(const QString& password = {}) const;
};

// A scenario as the user edits it. `parameters` override the project's values for this scenario.
// Storage studies (kind keyed-read, footprint or insert; engine/storage/StorageScenario.h) have no
// SQL: their `options` are the study's options as text ("rows" -> "100000").
struct ScenarioDef {
    QString id;
    QString title;
    QString kind = QStringLiteral("query");     // query | scalar | keyed-read | footprint | insert
    QString fetch = QStringLiteral("content");  // content | ids-only
    QString setupSql;
    QString sql;
    QString scalarLabel;
    bool enabled = true;
    std::map<QString, QString> options;  // storage studies only
    bool operator==(const ScenarioDef&) const = default;

    bool isStudy() const;
    Scenario toScenario() const;
    static ScenarioDef fromScenario(const Scenario& scenario);
};

struct Project;

// A storage scenario ready to run: ${DATA} expanded in `directory` (default ${DATA}/storage-<id>),
// the options checked (Error(Usage) naming the option), the insert study's connection looked up by
// name (the current one when none is named); `passwords` maps connection names to passwords given
// this session. rowLimit > 0 caps rows / values (the presets at reduced size).
storage::StudyJob studyJob(const Project& project, const ScenarioDef& scenario, const std::string& runId,
                           const std::map<QString, QString>& passwords = {}, std::uint64_t rowLimit = 0);

// A range of whole numbers for a sweep axis (see SweepRange in engine/run/Sweep.h).
struct SweepRangeDef {
    qint64 from = 0;
    qint64 to = 0;
    int points = 0;
    bool logarithmic = false;
    bool operator==(const SweepRangeDef&) const = default;
};

// One swept tunable: the values it takes, in order, or a range (then `values` stays empty and
// axisValues() expands the range).
struct SweepAxis {
    QString parameter;
    QStringList values;
    std::optional<SweepRangeDef> range;
    bool operator==(const SweepAxis&) const = default;
};

struct SweepDef {
    QString name;
    std::vector<SweepAxis> axes;  // one, or two for a grid
    int repetitions = 1;
    int warmups = 0;
    bool randomOrder = false;
    quint64 seed = 0;  // randomOrder: 0 = a new order each run (the seed used is kept in the run)
    bool operator==(const SweepDef&) const = default;

    SweepSpec toSpec() const;
};

// The values of an axis, a range expanded; throws Error(Usage) for an empty or inverted one.
QStringList axisValues(const SweepAxis& axis);

// One run with its full context; samples are appended as they arrive.
struct RunRecord {
    QString runId;
    QString startedAt;
    QString machine;
    QString connectionName;
    QString sweepName;
    LinkSettings link;
    std::vector<Sample> samples;
    // A run of many sessions (the tunable "sessions" above 1, or a load duration): its figures a
    // scenario a point, instead of one sample a statement.
    std::vector<LoadPoint> loads;
    QString toolVersion;    // blobbench's version
    quint64 orderSeed = 0;  // the seed of a randomised point order (0: natural order)
    QString finishedAt;     // empty while running, or when the run was cut short by a crash
    QString outcome;        // "complete", "failed: <one line>", "cancelled"; empty while running
};

// The window's what-if link (ui/WhatIfPanel): every sample with an exchange trace predicted at it.
// Latency one-way per direction and bandwidth per direction, as LinkSettings; `axis` is what the
// advisor's chart puts on x: "latency" (0-200 ms) or "bandwidth".
struct WhatIfSettings {
    bool enabled = false;
    LinkSettings link;
    QString axis = QStringLiteral("latency");
    bool operator==(const WhatIfSettings&) const = default;
};

struct Project {
    QString name;
    std::vector<ConnectionProfile> connections;
    int currentConnection = 0;
    std::vector<ScenarioDef> scenarios;
    std::map<QString, ParameterValues> parameters;  // engine id -> tunable values as the user set them
    std::vector<SweepDef> sweeps;
    QJsonObject chartSettings;
    WhatIfSettings whatIf;
    std::vector<RunRecord> history;

    const ConnectionProfile* current() const;
};

// A new project: the SQLite reference data set under the user's data directory and the
// reference suite, ready to run.
Project defaultProject(const QString& sqlitePath);

// The default SQLite database of the user (BLOBBENCH_DATA_DIR overrides the data directory).
QString defaultSqlitePath();

// The window's single source of truth: every view reads the project from here and changes it
// through here, and is told by signals. Saving and loading live beside it (the projects issue).
class ProjectDocument : public QObject {
    Q_OBJECT
public:
    explicit ProjectDocument(QObject* parent = nullptr);

    const Project& project() const { return m_project; }
    const QString& filePath() const { return m_filePath; }
    bool isDirty() const { return m_dirty; }

    void reset(Project project, const QString& filePath = {});
    void setFilePath(const QString& path);
    void markClean();

    void setCurrentConnection(int index);
    void setConnection(int index, const ConnectionProfile& profile);
    int addConnection(const ConnectionProfile& profile);
    void removeConnection(int index);

    void setScenario(int index, const ScenarioDef& scenario);
    int addScenario(const ScenarioDef& scenario, int at = -1);
    void removeScenario(int index);
    void moveScenario(int from, int to);

    void setParameter(const QString& engine, const QString& id, const QString& value);
    // The GUI's chart choices (free-form): saved with the project, so a change marks it unsaved.
    void setChartSettings(const QJsonObject& settings);
    // The what-if link and switch (saved with the project: a change marks it unsaved).
    void setWhatIf(const WhatIfSettings& settings);

    // Sweeps: a sweep is only stored, never checked here (expandSweep checks it before a run).
    void setSweep(int index, const SweepDef& sweep);
    int addSweep(const SweepDef& sweep);
    void removeSweep(int index);

    void beginRun(const RunRecord& record);
    void appendSample(const QString& runId, const Sample& sample);
    // A point of a run of many sessions: its load figures, a scenario each.
    void appendLoads(const QString& runId, const std::vector<LoadPoint>& loads);
    void finishRun(const QString& runId, const QString& outcome);

signals:
    void projectReset();
    void connectionsChanged();
    void currentConnectionChanged(int index);
    void scenariosChanged();
    void parametersChanged(const QString& engine);
    void sweepsChanged();
    void whatIfChanged();
    void runStarted(const QString& runId);
    void sampleAppended(const QString& runId, const blobbench::Sample& sample);
    void loadsAppended(const QString& runId);
    void runFinished(const QString& runId);
    void dirtyChanged(bool dirty);

private:
    void touch();
    Project m_project;
    QString m_filePath;
    bool m_dirty = false;
};

}  // namespace blobbench

Q_DECLARE_METATYPE(blobbench::Sample)
