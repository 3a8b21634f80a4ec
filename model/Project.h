#pragma once

#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <vector>

#include "engine/core/Sample.h"
#include "engine/drivers/Driver.h"
#include "engine/run/Scenario.h"

namespace blobbench {

// Link emulation asked of the wire tap (0 = none / unlimited).
struct LinkSettings {
    int latencyUpMs = 0;
    int latencyDownMs = 0;
    qint64 bandwidthUpBits = 0;
    qint64 bandwidthDownBits = 0;
    bool operator==(const LinkSettings&) const = default;
};

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
    bool useWireTap = false;
    LinkSettings link;
    bool operator==(const ConnectionProfile&) const = default;

    ConnectionSpec toSpec(const QString& password = {}) const;
};

// A scenario as the user edits it. `parameters` override the project's values for this scenario.
struct ScenarioDef {
    QString id;
    QString title;
    QString kind = QStringLiteral("query");     // query | scalar
    QString fetch = QStringLiteral("content");  // content | ids-only
    QString setupSql;
    QString sql;
    QString scalarLabel;
    bool enabled = true;
    bool operator==(const ScenarioDef&) const = default;

    Scenario toScenario() const;
    static ScenarioDef fromScenario(const Scenario& scenario);
};

// One swept tunable: the values it takes, in order (ranges are expanded when defined).
struct SweepAxis {
    QString parameter;
    QStringList values;
    bool operator==(const SweepAxis&) const = default;
};

struct SweepDef {
    QString name;
    std::vector<SweepAxis> axes;  // one, or two for a grid
    int repetitions = 1;
    int warmups = 0;
    bool randomOrder = false;
    bool operator==(const SweepDef&) const = default;
};

// One run with its full context; samples are appended as they arrive.
struct RunRecord {
    QString runId;
    QString startedAt;
    QString machine;
    QString connectionName;
    QString sweepName;
    LinkSettings link;
    std::vector<Sample> samples;
};

struct Project {
    QString name;
    std::vector<ConnectionProfile> connections;
    int currentConnection = 0;
    std::vector<ScenarioDef> scenarios;
    std::map<QString, ParameterValues> parameters;  // engine id -> tunable values as the user set them
    std::vector<SweepDef> sweeps;
    QJsonObject chartSettings;
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

    void beginRun(const RunRecord& record);
    void appendSample(const QString& runId, const Sample& sample);

signals:
    void projectReset();
    void connectionsChanged();
    void currentConnectionChanged(int index);
    void scenariosChanged();
    void parametersChanged(const QString& engine);
    void runStarted(const QString& runId);
    void sampleAppended(const QString& runId, const blobbench::Sample& sample);
    void dirtyChanged(bool dirty);

private:
    void touch();
    Project m_project;
    QString m_filePath;
    bool m_dirty = false;
};

}  // namespace blobbench

Q_DECLARE_METATYPE(blobbench::Sample)
