#include "model/EngineScenarios.h"

#include "engine/data/ReferenceSuite.h"

namespace blobbench {
namespace {

constexpr Dialect kDialects[] = {Dialect::SQLite, Dialect::Firebird, Dialect::PostgreSQL};

bool sameStatements(const ScenarioDef& def, const Scenario& reference) {
    return def.sql.trimmed() == QString::fromStdString(reference.sql).trimmed() &&
           def.setupSql.trimmed() == QString::fromStdString(reference.setupSql).trimmed();
}

const Scenario* referenceMatch(const ScenarioDef& def, const std::vector<Scenario>& suite) {
    for (const Scenario& s : suite) {
        if (sameStatements(def, s))
            return &s;
    }
    return nullptr;
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
        case Dialect::None:
            break;
    }
    return QStringLiteral("another engine");
}

}  // namespace blobbench
