#pragma once

#include <functional>

class QObject;

namespace blobbench {

// SIGINT, SIGTERM and SIGHUP (a session's logout, `kill`) end the window instead of being lost: the
// first one calls `quit(signal)` in the GUI thread; a second one ends the process at once. A signal
// the process inherited as ignored (nohup) stays ignored. Installed before any client library is
// loaded: the Firebird client installs SIGINT / SIGTERM handlers of its own at its first attach,
// which chain to the handler installed before them, and over the default action they swallowed the
// signal (the window stayed open after SIGTERM).
void quitOnTerminationSignals(QObject* owner, std::function<void(int signal)> quit);

}  // namespace blobbench
