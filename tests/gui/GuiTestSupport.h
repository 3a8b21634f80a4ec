#pragma once

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QString>
#include <cstdint>
#include <functional>
#include <string>

#include "engine/drivers/Driver.h"

namespace blobbench::test {

// Processes events until `done` holds or `timeoutMs` passes; returns whether it held.
inline bool waitUntil(const std::function<bool()>& done, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (!done()) {
        if (timer.elapsed() > timeoutMs) {
            return false;
        }
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    return true;
}

// Prepares a reference data set of `rows` synthetic rows at `path` (an SQLite file).
void prepareSmallDataset(const QString& path, unsigned rows);

// The first column of the first row of `sql` on `spec` as a number (COUNT(*) and the like), read
// through the engine's driver; a missing SQLite file is not created.
std::uint64_t queryNumber(const ConnectionSpec& spec, const std::string& sql);

}  // namespace blobbench::test
