#include "engine/drivers/Registry.h"

#include "engine/core/Error.h"
#include "engine/drivers/firebird/FirebirdDriver.h"
#include "engine/drivers/mariadb/MariadbDriver.h"
#include "engine/drivers/postgres/PostgresDriver.h"
#include "engine/drivers/sqlite/SqliteDriver.h"

namespace blobbench {

const std::vector<const Driver*>& allDrivers() {
    static const SqliteDriver sqlite;
    static const PostgresDriver postgres;
    static const FirebirdDriver firebird;
    static const MariadbDriver mariadb;
    static const std::vector<const Driver*> drivers = {&sqlite, &postgres, &firebird, &mariadb};
    return drivers;
}

const Driver& driverById(std::string_view id) {
    std::string known;
    for (const Driver* driver : allDrivers()) {
        if (driver->id() == id) {
            return *driver;
        }
        known += (known.empty() ? "" : ", ") + driver->id();
    }
    throw Error(ErrorKind::Usage, "unknown engine '" + std::string(id) + "' (known: " + known + ")");
}

const Driver& driverForTarget(std::string_view target) {
    for (const Driver* driver : allDrivers()) {
        if (driver->accepts(target)) {
            return *driver;
        }
    }
    throw Error(ErrorKind::Usage,
                "cannot tell the engine of '" + maskTarget(target) +
                    "' (name it with --engine, or write sqlite:PATH, postgresql://..., inet://..., mariadb://...)");
}

}  // namespace blobbench
