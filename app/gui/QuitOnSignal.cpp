#include "app/gui/QuitOnSignal.h"

#include <fcntl.h>
#include <unistd.h>

#include <QSocketNotifier>
#include <atomic>
#include <csignal>
#include <cstring>

namespace blobbench {
namespace {

int g_pipe[2] = {-1, -1};
std::atomic<int> g_received{0};

// Async-signal-safe: a second signal ends the process by the signal's default action, the first
// one is a byte on the pipe that the GUI thread reads.
void onSignal(int sig) {
    int none = 0;
    if (!g_received.compare_exchange_strong(none, sig)) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    const char byte = static_cast<char>(sig);
    [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);
}

}  // namespace

void quitOnTerminationSignals(QObject* owner, std::function<void(int signal)> quit) {
    if (g_pipe[0] < 0 && ::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return;  // no pipe: the signals keep their default action
    auto* notifier = new QSocketNotifier(g_pipe[0], QSocketNotifier::Read, owner);
    QObject::connect(notifier, &QSocketNotifier::activated, owner, [quit = std::move(quit)] {
        char byte = 0;
        while (::read(g_pipe[0], &byte, 1) == 1) {
        }
        quit(g_received.load());
    });
    struct sigaction action {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction before {};
        if (sigaction(sig, nullptr, &before) == 0 && before.sa_handler != SIG_IGN)
            sigaction(sig, &action, nullptr);
    }
}

}  // namespace blobbench
