#include "GuiTestSupport.h"

#include "engine/data/Dataset.h"
#include "engine/drivers/Registry.h"

namespace blobbench::test {

void prepareSmallDataset(const QString& path, unsigned rows) {
    const Driver& driver = driverById("sqlite");
    auto session = driver.connect(ConnectionSpec{"sqlite", "sqlite:" + path.toStdString()},
                                  resolveParameters(driver.parameters(), {}));
    SyntheticProfile profile;
    profile.rows = rows;
    prepareReferenceTables(*session, SyntheticRowSource(profile), PrepareOptions{});
}

}  // namespace blobbench::test
