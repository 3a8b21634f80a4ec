#include "model/EngineScenarios.h"

#include "engine/data/ReferenceSuite.h"

namespace blobbench {
namespace {

constexpr Dialect kDialects[] = {Dialect::SQLite, Dialect::Firebird, Dialect::PostgreSQL, Dialect::MariaDB};

bool sameStatements(const ScenarioDef& def, const Scenario& reference) {
    return def.sql.trimmed() == QString::fromStdString(reference.sql).trimmed() &&
           def.setupSql.trimmed() == QString::fromStdString(reference.setupSql).trimmed();
}

// Two reference scenarios share their statement ("Test read all BLOBs" and "Test read only BLOB
// IDs", which fetches the ids only): the one of the same fetch mode is the match, the other one only
// where none has it (a fetch mode the user changed).
const Scenario* referenceMatch(const ScenarioDef& def, const std::vector<Scenario>& suite) {
    const Scenario* statementOnly = nullptr;
    for (const Scenario& s : suite) {
        if (!sameStatements(def, s))
            continue;
        if (ScenarioDef::fromScenario(s).fetch == def.fetch)
            return &s;
        if (statementOnly == nullptr)
            statementOnly = &s;
    }
    return statementOnly;
}

}  // namespace

std::optional<Dialect> referenceDialectOf(const ScenarioDef& scenario) {
    if (scenario.isStudy() || scenario.sql.trimmed().isEmpty())
        return std::nullopt;
    for (Dialect d : kDialects) {
        if (referenceMatch(scenario, referenceSuite(d)) != nullptr)
            return d;
    }
    return std::nullopt;
}

std::optional<ScenarioDef> translatedReference(const ScenarioDef& scenario, Dialect dialect) {
    const std::optional<Dialect> from = referenceDialectOf(scenario);
    if (!from || *from == dialect || dialect == Dialect::None)
        return std::nullopt;
    const Scenario* source = referenceMatch(scenario, referenceSuite(*from));
    for (const Scenario& target : referenceSuite(dialect)) {
        if (target.id != source->id)
            continue;
        ScenarioDef def = ScenarioDef::fromScenario(target);
        def.id = scenario.id;
        def.title = scenario.title;
        def.enabled = scenario.enabled;
        def.fetch = scenario.fetch;  // the user's fetch mode goes with the scenario to the other engine
        return def;
    }
    return std::nullopt;  // no counterpart in that suite
}

QString dialectName(Dialect dialect) {
    switch (dialect) {
        case Dialect::SQLite:
            return QStringLiteral("SQLite");
        case Dialect::Firebird:
            return QStringLiteral("Firebird");
        case Dialect::PostgreSQL:
            return QStringLiteral("PostgreSQL");
        case Dialect::MariaDB:
            return QStringLiteral("MariaDB");
        case Dialect::None:
            break;
    }
    return QStringLiteral("another engine");
}

}  // namespace blobbench
