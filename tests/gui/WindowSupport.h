#pragma once

#include <QSize>

#include "model/Project.h"
#include "ui/MainWindow.h"

namespace blobbench::test {

// The window as the GUI tests use it: it owns `document` (the one it was built with), asks nothing
// about unsaved changes, and is shown at `size` on the offscreen platform.
inline void adoptAndShow(MainWindow& window, ProjectDocument* document, QSize size = QSize(1280, 860)) {
    document->setParent(&window);
    window.setSuppressUnsavedPrompt(true);
    window.resize(size);
    window.show();
}

}  // namespace blobbench::test
