#include "app/cli/Signals.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <iostream>
#include <tuple>
#include <utility>

#include "engine/core/Error.h"
#include "engine/core/Printable.h"
#include "engine/wire/ProcessSockets.h"

namespace blobbench::cli {
namespace {

std::atomic<int> g_signal{0};  // lock-free, so safe in a handler; atomic, so the watcher sees it
static_assert(std::atomic<int>::is_always_lock_free);
int g_pipe[2] = {-1, -1};

extern "C" void onSignal(int sig) {
    if (g_signal.load() != 0) {
        // The second one: the default action (the signal is blocked until this handler returns).
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    g_signal.store(sig);
    const int saved = errno;
    const char byte = 's';
    if (::write(g_pipe[1], &byte, 1) < 0) {
        // The pipe holds at most a few bytes here: nothing else can be done in a handler.
    }
    errno = saved;
}

// A signal ignored when the process started (a shell's background job, nohup) stays ignored, as
// the shell meant; only the others are taken over, and given back to the default action.
struct TakenOver {
    bool interrupt = false;
    bool terminate = false;
    bool hangup = false;  // a closed terminal: the run is saved as for SIGTERM
};

TakenOver handle(void (*handler)(int), TakenOver only = {true, true, true}) {
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // the engines' calls go on; the cancel reaches them through the Runner
    TakenOver taken;
    for (auto [sig, wanted, done] :
         {std::tuple{SIGINT, only.interrupt, &taken.interrupt}, std::tuple{SIGTERM, only.terminate, &taken.terminate},
          std::tuple{SIGHUP, only.hangup, &taken.hangup}}) {
        struct sigaction before {};
        if (!wanted || sigaction(sig, nullptr, &before) != 0 || (handler != SIG_DFL && before.sa_handler == SIG_IGN)) {
            continue;
        }
        *done = sigaction(sig, &action, nullptr) == 0;
    }
    return taken;
}

// Puts onSignal (or SIG_IGN, for a signal ignored at the start) back where a library replaced it.
// The Firebird client installs SIGINT / SIGTERM handlers of its own when it first attaches (seen
// with strace). Over ours it chains to ours; over SIG_IGN (a shell's background job, nohup) it
// acted on the signal the shell meant to be ignored: it shut every attachment down, and the run
// ended "connection shutdown", exit 1 (24 times in 37 such SIGINTs).
void reclaim(TakenOver taken) {
    for (auto [sig, ours] :
         {std::pair{SIGINT, taken.interrupt}, std::pair{SIGTERM, taken.terminate}, std::pair{SIGHUP, taken.hangup}}) {
        struct sigaction now {};
        if (sigaction(sig, nullptr, &now) != 0) {
            continue;
        }
        void (*const wanted)(int) = ours ? onSignal : SIG_IGN;
        if ((now.sa_flags & SA_SIGINFO) != 0 || now.sa_handler != wanted) {
            handle(wanted, {sig == SIGINT, sig == SIGTERM, sig == SIGHUP});
        }
    }
}

// One line on stderr, then the exit, from any thread: the main one may be blocked where nothing
// else reaches it (open(2) of a FIFO). Buffered output is not flushed: it may be mid-write.
[[noreturn]] void endAtOnce(const std::string& what) {
    const int sig = g_signal.load();
    const std::string line = std::string("blobbench-cli: ") + SignalCancel::name(sig) + ": " + what + '\n';
    for (std::size_t done = 0; done < line.size();) {
        const ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    ::_exit(128 + sig);
}

// How often the watcher checks that the handlers are still ours.
constexpr int kReclaimMs = 50;

}  // namespace

SignalCancel::SignalCancel() {
    if (g_pipe[0] < 0 && ::pipe2(g_pipe, O_CLOEXEC) != 0) {
        return;  // no pipe: the signals keep their default action
    }
    const TakenOver taken = handle(onSignal);
    m_interrupt = taken.interrupt;
    m_terminate = taken.terminate;
    m_hangup = taken.hangup;
    m_watcher = std::thread([this] {
        char byte = 0;
        for (;;) {
            pollfd ready{g_pipe[0], POLLIN, 0};
            if (const int r = ::poll(&ready, 1, kReclaimMs); r == 0 || (r < 0 && errno == EINTR)) {
                reclaim({m_interrupt, m_terminate, m_hangup});
                continue;
            }
            const ssize_t n = ::read(g_pipe[0], &byte, 1);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0 || byte == 'q') {
                return;
            }
            deliver();
        }
    });
}

void SignalCancel::deliver() {
    std::lock_guard lock(m_mutex);
    if (!m_atOnce.empty()) {
        endAtOnce(m_atOnce);
    }
    if (m_cancel) {
        m_cancel();
        startDeadline();
    }
}

void SignalCancel::startDeadline() {
    if (m_deadline.joinable() || m_ending) {
        return;  // one deadline; none once the destructor has joined it
    }
    m_deadline = std::thread([this] {
        std::unique_lock lock(m_mutex);
        if (m_ended.wait_for(lock, kHardDeadline, [this] { return m_ending; })) {
            return;  // the command ended in time
        }
        lock.unlock();
        shutDownSockets(processSockets());
    });
}

void SignalCancel::endAtOnceUntilStarted(const std::string& what, const std::string& kept) {
    std::cout.flush();  // what is printed so far stays (the exit skips the buffers)
    std::lock_guard lock(m_mutex);
    m_atOnce = printable(oneLine(what + " was cancelled; " + kept));
    if (received() != 0) {
        endAtOnce(m_atOnce);  // it came before: the watcher saw nothing to end
    }
}

void SignalCancel::started() {
    std::lock_guard lock(m_mutex);
    m_atOnce.clear();
    // Now, not at the watcher's next look: a client library that loaded while connecting has put its
    // own handlers in, and a signal they caught would shut its connections down under the run.
    reclaim({m_interrupt, m_terminate, m_hangup});
}

SignalCancel::~SignalCancel() {
    // What is printed goes out while a signal is still ours: once the default action is back, one
    // would end the process before its buffered output (a table, a report) is written.
    std::cout.flush();
    {
        std::lock_guard lock(m_mutex);
        m_ending = true;
    }
    m_ended.notify_all();
    if (m_deadline.joinable()) {
        m_deadline.join();
    }
    if (!m_watcher.joinable()) {
        return;
    }
    const char quit = 'q';
    if (::write(g_pipe[1], &quit, 1) == 1) {
        m_watcher.join();
    } else {
        m_watcher.detach();
    }
    handle(SIG_DFL, {m_interrupt, m_terminate, m_hangup});  // after the watcher, which would reclaim them
}

void SignalCancel::setCancel(std::function<void()> cancel) {
    std::lock_guard lock(m_mutex);
    m_cancel = std::move(cancel);
    if (m_cancel && g_signal.load() != 0) {
        m_cancel();  // it came before there was anything to cancel
        startDeadline();
    }
}

int SignalCancel::received() {
    return g_signal.load();
}

const char* SignalCancel::name(int signal) {
    return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : signal == SIGHUP ? "SIGHUP" : "a signal";
}

int SignalCancel::report(std::ostream& err, const std::string& what, const std::string& kept) {
    const int sig = received();
    err << "blobbench-cli: " << name(sig) << ": " << printable(oneLine(what + " was cancelled; " + kept)) << std::endl;
    return 128 + sig;
}

CheckedStdout::CheckedStdout() {
    std::signal(SIGPIPE, SIG_IGN);
    setp(m_buffer, m_buffer + sizeof m_buffer);
    std::cout.flush();
    m_previous = std::cout.rdbuf(this);
}

CheckedStdout::~CheckedStdout() {
    flush(true);
    std::cout.rdbuf(m_previous);
}

int CheckedStdout::error() {
    flush(true);
    return m_error;
}

CheckedStdout::int_type CheckedStdout::overflow(int_type c) {
    if (!flush()) {
        return traits_type::eof();
    }
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
    }
    return traits_type::not_eof(c);
}

int CheckedStdout::sync() {
    return flush() ? 0 : -1;
}

bool CheckedStdout::flush(bool last) {
    const auto size = static_cast<std::size_t>(pptr() - pbase());
    const bool hold = !last && size > 0 && static_cast<unsigned char>(m_buffer[size - 1]) == 0xc2;
    const std::string text = printable(std::string_view(m_buffer, size - (hold ? 1 : 0)), true);
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0 && m_error == 0) {
        const ssize_t n = ::write(STDOUT_FILENO, p, left);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            m_error = n < 0 ? errno : EIO;
            break;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    setp(m_buffer, m_buffer + sizeof m_buffer);  // after an error the rest is dropped: the run goes on
    if (hold) {
        m_buffer[0] = static_cast<char>(0xc2);
        pbump(1);
    }
    return m_error == 0;
}

}  // namespace blobbench::cli
