#include "model/Project.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <algorithm>

#include "engine/data/ReferenceSuite.h"

namespace blobbench {

LinkProfile toLinkProfile(const LinkSettings& link) {
    LinkProfile profile;
    profile.latencyUp = std::chrono::milliseconds(link.latencyUpMs);
    profile.latencyDown = std::chrono::milliseconds(link.latencyDownMs);
    profile.bandwidthUp = static_cast<std::uint64_t>(std::max<qint64>(0, link.bandwidthUpBits));
    profile.bandwidthDown = static_cast<std::uint64_t>(std::max<qint64>(0, link.bandwidthDownBits));
    return profile;
}

ConnectionSpec ConnectionProfile::toSpec(const QString& password) const {
    ConnectionSpec spec;
    spec.engine = engine.toStdString();
    QString expanded = target;
    if (expanded.contains(QLatin1String("${DATA}"))) {
        expanded.replace(QLatin1String("${DATA}"), QFileInfo(defaultSqlitePath()).path());
    }
    spec.target = expanded.toStdString();
    spec.user = user.toStdString();
    spec.password = password.toStdString();
    spec.role = role.toStdString();
    spec.charset = charset.toStdString();
    spec.clientLibrary = clientLibrary.toStdString();
    return spec;
}

bool ScenarioDef::isStudy() const {
    return storage::isStudyKind(kind.toStdString());
}

namespace {
QString expandData(QString text) {
    if (text.contains(QLatin1String("${DATA}"))) {
        text.replace(QLatin1String("${DATA}"), QFileInfo(defaultSqlitePath()).path());
    }
    return text;
}

// The last run in the history with the id runId, or nullptr.
RunRecord* latestRun(std::vector<RunRecord>& history, const QString& runId) {
    const auto it =
        std::find_if(history.rbegin(), history.rend(), [&](const RunRecord& r) { return r.runId == runId; });
    return it == history.rend() ? nullptr : &*it;
}
}  // namespace

storage::StudyJob studyJob(const Project& project, const ScenarioDef& scenario, const std::string& runId,
                           const std::map<QString, QString>& passwords, std::uint64_t rowLimit) {
    storage::StudyOptions options;
    for (const auto& [name, value] : scenario.options) {
        options[name.toStdString()] = value.toStdString();
    }
    if (options.count("directory") == 0) {
        options["directory"] = "${DATA}/storage-" + scenario.id.toStdString();
    }
    options["directory"] = expandData(QString::fromStdString(options["directory"])).toStdString();
    storage::StudyJob job;
    job.runId = runId;
    job.scenarioId = scenario.id.toStdString();
    job.title = (scenario.title.isEmpty() ? scenario.id : scenario.title).toStdString();
    job.plan = storage::parseStudy(scenario.kind.toStdString(), options, rowLimit);
    if (job.plan.kind == "insert") {
        const ConnectionProfile* profile = project.current();
        if (!job.plan.connection.empty()) {
            profile = nullptr;
            for (const auto& c : project.connections) {
                if (c.name.toStdString() == job.plan.connection) {
                    profile = &c;
                }
            }
            if (profile == nullptr) {
                throw storage::StudyOptionError("connection",
                                                "the project has no connection named '" + job.plan.connection + "'");
            }
        }
        if (profile == nullptr) {
            throw storage::StudyOptionError("connection", "the project has no connection");
        }
        const auto password = passwords.find(profile->name);
        job.connection = profile->toSpec(password == passwords.end() ? QString() : password->second);
        if (auto it = project.parameters.find(profile->engine); it != project.parameters.end()) {
            job.parameters = it->second;
        }
    }
    return job;
}

Scenario ScenarioDef::toScenario() const {
    Scenario s;
    s.id = id.toStdString();
    s.title = title.toStdString();
    s.kind = kind == QLatin1String("scalar") ? ScenarioKind::Scalar : ScenarioKind::Query;
    s.fetch = fetch == QLatin1String("ids-only") ? FetchMode::IdsOnly : FetchMode::Content;
    s.setupSql = setupSql.toStdString();
    s.sql = sql.toStdString();
    s.scalarLabel = scalarLabel.toStdString();
    return s;
}

ScenarioDef ScenarioDef::fromScenario(const Scenario& s) {
    ScenarioDef d;
    d.id = QString::fromStdString(s.id);
    d.title = QString::fromStdString(s.title);
    d.kind = s.kind == ScenarioKind::Scalar ? QStringLiteral("scalar") : QStringLiteral("query");
    d.fetch = s.fetch == FetchMode::IdsOnly ? QStringLiteral("ids-only") : QStringLiteral("content");
    d.setupSql = QString::fromStdString(s.setupSql);
    d.sql = QString::fromStdString(s.sql);
    d.scalarLabel = QString::fromStdString(s.scalarLabel);
    return d;
}

SweepSpec SweepDef::toSpec() const {
    SweepSpec spec;
    spec.name = name.toStdString();
    for (const auto& axis : axes) {
        SweepAxisSpec a;
        a.parameter = axis.parameter.toStdString();
        for (const auto& v : axis.values) {
            a.values.push_back(v.toStdString());
        }
        if (axis.range) {
            a.range = SweepRange{axis.range->from, axis.range->to, axis.range->points,
                                 axis.range->logarithmic ? SweepSpacing::Log : SweepSpacing::Linear};
        }
        spec.axes.push_back(std::move(a));
    }
    spec.repetitions = repetitions;
    spec.warmups = warmups;
    spec.randomOrder = randomOrder;
    spec.seed = seed;
    return spec;
}

QStringList axisValues(const SweepAxis& axis) {
    SweepDef one;
    one.axes.push_back(axis);
    QStringList out;
    for (const auto& v : expandAxis(one.toSpec().axes.front())) {
        out << QString::fromStdString(v);
    }
    return out;
}

const ConnectionProfile* Project::current() const {
    if (currentConnection < 0 || currentConnection >= static_cast<int>(connections.size())) {
        return nullptr;
    }
    return &connections[static_cast<std::size_t>(currentConnection)];
}

QString defaultSqlitePath() {
    QString dir = qEnvironmentVariable("BLOBBENCH_DATA_DIR");
    if (dir.isEmpty()) {
        dir = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    }
    return QDir(dir).filePath(QStringLiteral("reference.sqlite"));
}

Project defaultProject(const QString& sqlitePath) {
    Project p;
    p.name = QStringLiteral("SQLite reference suite");
    ConnectionProfile sqlite;
    sqlite.name = QStringLiteral("SQLite (embedded, reference data)");
    sqlite.engine = QStringLiteral("sqlite");
    sqlite.target = QStringLiteral("sqlite:") + sqlitePath;
    p.connections.push_back(sqlite);
    for (const Scenario& s : referenceSuite(Dialect::SQLite)) {
        p.scenarios.push_back(ScenarioDef::fromScenario(s));
    }
    return p;
}

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent) {
    qRegisterMetaType<blobbench::Sample>();
}

void ProjectDocument::reset(Project project, const QString& filePath) {
    m_project = std::move(project);
    m_filePath = filePath;
    emit projectReset();
    markClean();
}

void ProjectDocument::setFilePath(const QString& path) {
    m_filePath = path;
}

void ProjectDocument::markClean() {
    if (m_dirty) {
        m_dirty = false;
        emit dirtyChanged(false);
    }
}

void ProjectDocument::touch() {
    if (!m_dirty) {
        m_dirty = true;
        emit dirtyChanged(true);
    }
}

void ProjectDocument::setCurrentConnection(int index) {
    if (index == m_project.currentConnection || index < 0 || index >= static_cast<int>(m_project.connections.size())) {
        return;
    }
    m_project.currentConnection = index;
    touch();
    emit currentConnectionChanged(index);
}

void ProjectDocument::setConnection(int index, const ConnectionProfile& profile) {
    if (index < 0 || index >= static_cast<int>(m_project.connections.size()) ||
        m_project.connections[static_cast<std::size_t>(index)] == profile) {
        return;
    }
    m_project.connections[static_cast<std::size_t>(index)] = profile;
    touch();
    emit connectionsChanged();
    if (index == m_project.currentConnection) {
        emit currentConnectionChanged(index);
    }
}

int ProjectDocument::addConnection(const ConnectionProfile& profile) {
    m_project.connections.push_back(profile);
    touch();
    emit connectionsChanged();
    return static_cast<int>(m_project.connections.size()) - 1;
}

void ProjectDocument::removeConnection(int index) {
    if (index < 0 || index >= static_cast<int>(m_project.connections.size())) {
        return;
    }
    m_project.connections.erase(m_project.connections.begin() + index);
    if (m_project.currentConnection >= static_cast<int>(m_project.connections.size())) {
        m_project.currentConnection = std::max(0, static_cast<int>(m_project.connections.size()) - 1);
    }
    touch();
    emit connectionsChanged();
    emit currentConnectionChanged(m_project.currentConnection);
}

void ProjectDocument::setScenario(int index, const ScenarioDef& scenario) {
    if (index < 0 || index >= static_cast<int>(m_project.scenarios.size()) ||
        m_project.scenarios[static_cast<std::size_t>(index)] == scenario) {
        return;
    }
    m_project.scenarios[static_cast<std::size_t>(index)] = scenario;
    touch();
    emit scenariosChanged();
}

int ProjectDocument::addScenario(const ScenarioDef& scenario, int at) {
    if (at < 0 || at > static_cast<int>(m_project.scenarios.size())) {
        at = static_cast<int>(m_project.scenarios.size());
    }
    m_project.scenarios.insert(m_project.scenarios.begin() + at, scenario);
    touch();
    emit scenariosChanged();
    return at;
}

void ProjectDocument::removeScenario(int index) {
    if (index < 0 || index >= static_cast<int>(m_project.scenarios.size())) {
        return;
    }
    m_project.scenarios.erase(m_project.scenarios.begin() + index);
    touch();
    emit scenariosChanged();
}

void ProjectDocument::moveScenario(int from, int to) {
    const int n = static_cast<int>(m_project.scenarios.size());
    if (from < 0 || from >= n || to < 0 || to >= n || from == to) {
        return;
    }
    ScenarioDef moved = m_project.scenarios[static_cast<std::size_t>(from)];
    m_project.scenarios.erase(m_project.scenarios.begin() + from);
    m_project.scenarios.insert(m_project.scenarios.begin() + to, moved);
    touch();
    emit scenariosChanged();
}

void ProjectDocument::setParameter(const QString& engine, const QString& id, const QString& value) {
    auto& values = m_project.parameters[engine];
    const std::string key = id.toStdString();
    const std::string v = value.toStdString();
    auto it = values.find(key);
    if (it != values.end() && it->second == v) {
        return;
    }
    values[key] = v;
    touch();
    emit parametersChanged(engine);
}

void ProjectDocument::setChartSettings(const QJsonObject& settings) {
    if (settings == m_project.chartSettings) {
        return;
    }
    m_project.chartSettings = settings;
    touch();
}

void ProjectDocument::setWhatIf(const WhatIfSettings& settings) {
    if (settings == m_project.whatIf) {
        return;
    }
    m_project.whatIf = settings;
    touch();
    emit whatIfChanged();
}

void ProjectDocument::setSweep(int index, const SweepDef& sweep) {
    if (index < 0 || index >= static_cast<int>(m_project.sweeps.size()) ||
        m_project.sweeps[static_cast<std::size_t>(index)] == sweep) {
        return;
    }
    m_project.sweeps[static_cast<std::size_t>(index)] = sweep;
    touch();
    emit sweepsChanged();
}

int ProjectDocument::addSweep(const SweepDef& sweep) {
    m_project.sweeps.push_back(sweep);
    touch();
    emit sweepsChanged();
    return static_cast<int>(m_project.sweeps.size()) - 1;
}

void ProjectDocument::removeSweep(int index) {
    if (index < 0 || index >= static_cast<int>(m_project.sweeps.size())) {
        return;
    }
    m_project.sweeps.erase(m_project.sweeps.begin() + index);
    touch();
    emit sweepsChanged();
}

void ProjectDocument::beginRun(const RunRecord& record) {
    m_project.history.push_back(record);
    touch();
    emit runStarted(record.runId);
}

void ProjectDocument::appendSample(const QString& runId, const Sample& sample) {
    if (RunRecord* run = latestRun(m_project.history, runId)) {
        run->samples.push_back(sample);
        touch();
        emit sampleAppended(runId, sample);
    }
}

void ProjectDocument::appendLoads(const QString& runId, const std::vector<LoadPoint>& loads) {
    if (RunRecord* run = latestRun(m_project.history, runId)) {
        run->loads.insert(run->loads.end(), loads.begin(), loads.end());
        touch();
        emit loadsAppended(runId);
    }
}

void ProjectDocument::finishRun(const QString& runId, const QString& outcome) {
    if (RunRecord* run = latestRun(m_project.history, runId)) {
        run->finishedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
        run->outcome = outcome;
        touch();
        emit runFinished(runId);
    }
}

}  // namespace blobbench
