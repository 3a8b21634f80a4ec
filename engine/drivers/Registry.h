#pragma once

#include <string_view>
#include <vector>

#include "engine/drivers/Driver.h"

namespace blobbench {

// Every engine built in, in a stable order (SQLite, the embedded default, first).
const std::vector<const Driver*>& allDrivers();

// The driver with this id, or Error(Usage) naming the unknown engine and the known ones.
const Driver& driverById(std::string_view id);

// Picks the engine from a connection string ("sqlite:", "postgresql://", "inet://", *.fdb, ...).
// Throws Error(Usage) when none takes it.
const Driver& driverForTarget(std::string_view target);

}  // namespace blobbench
