#pragma once

#include <QSignalSpy>
#include <QSize>
#include <functional>
#include <string>

#include "engine/data/Dataset.h"
#include "engine/data/ReferenceSuite.h"
#include "engine/drivers/Registry.h"
#include "model/Project.h"
#include "ui/MainWindow.h"

namespace blobbench::test {

// The window as the GUI tests use it: it owns `document` (the one it was built with), asks nothing
// about unsaved changes, and is shown at `size` on the offscreen platform.
inline void adoptAndShow(MainWindow& window, ProjectDocument* document, QSize size = QSize(1280, 860)) {
    document->setParent(&window);
    window.files()->setSuppressUnsavedPrompt(true);
    window.resize(size);
    window.show();
}

// Starts a run with `start` and waits for the window's runFinished (the real servers' runs).
inline bool runAndWait(MainWindow& window, const std::function<void()>& start, int timeoutMs = 300000) {
    QSignalSpy finished(&window, &MainWindow::runFinished);
    start();
    return finished.count() > 0 || finished.wait(timeoutMs);
}

// The reference tables on the PostgreSQL server when it has them; a small set otherwise (as
// tests/integration do).
inline void ensurePostgresDataset(const std::string& conninfo) {
    const Driver& driver = driverById("postgres");
    auto session = driver.connect(ConnectionSpec{"postgres", conninfo}, resolveParameters(driver.parameters(), {}));
    if (!readDatasetSummary(*session)) {
        SyntheticProfile profile;
        profile.rows = 300;
        prepareReferenceTables(*session, SyntheticRowSource(profile), PrepareOptions{});
    }
}

}  // namespace blobbench::test
