#pragma once

#include <QString>
#include <optional>
#include <vector>

#include "engine/drivers/Driver.h"
#include "model/Project.h"

namespace blobbench {

// The dialect whose reference suite holds this scenario's statements (a preset, or a copy of one
// under another id), or nothing for a scenario the user wrote. Storage studies have no dialect.
std::optional<Dialect> referenceDialectOf(const ScenarioDef& scenario);

// The scenario's counterpart in `dialect`'s reference suite when it is a reference scenario of
// another dialect: the same id, title, checked state and fetch mode, that engine's SQL. Otherwise nothing.
std::optional<ScenarioDef> translatedReference(const ScenarioDef& scenario, Dialect dialect);

// "SQLite", "Firebird", "PostgreSQL": how a message names a dialect.
QString dialectName(Dialect dialect);

}  // namespace blobbench
