#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>
#include <thread>

namespace blobbench::cli {

// SIGINT / SIGTERM / SIGHUP (a closed terminal) while a run is under way: the first one asks the run to stop (the
// sample in progress ends cancelled, everything measured is written, the exit code is 128 + the signal), a second one
// ends the process at once by its default action. A signal the process inherited as ignored (a shell's background job,
// nohup) stays ignored. The handler only records the signal and writes a byte to a pipe (async-signal-safe); a watcher
// thread calls the run's cancel.
class SignalCancel {
public:
    SignalCancel();   // installs the handlers: from now on a first signal is held for the run
    ~SignalCancel();  // default handlers back, the watcher joined
    SignalCancel(const SignalCancel&) = delete;
    SignalCancel& operator=(const SignalCancel&) = delete;

    // While set, a signal (one received before included) calls `cancel` on the watcher thread.
    // Clear it (empty function) before what it refers to is destroyed.
    void setCancel(std::function<void()> cancel);

    // Until started(): a first signal ends the process at once, as psql does, with one line
    // "blobbench-cli: SIGTERM: <what> was cancelled; <kept>" and exit 128 + the signal. For what
    // comes before a run (connecting, reading a file): a cancel cannot reach a call blocked there
    // (open(2) of a FIFO, a name lookup), and nothing measured is lost.
    void endAtOnceUntilStarted(const std::string& what, const std::string& kept);
    // The run is under way: a first signal goes to the cancel again.
    void started();

    static int received();  // 0, or the first signal
    static const char* name(int signal);
    // The one line a command ends with after a signal cancelled it, on `err`:
    // "blobbench-cli: SIGINT: <what> was cancelled; <kept>". Returns 128 + the signal.
    static int report(std::ostream& err, const std::string& what, const std::string& kept);

    // After the cancel, what a call blocked on a server that no longer answers gets: this long, then
    // every socket of the process is shut down, whatever the command (a stopped server held
    // `prepare` and `bytea` for good; `run` has a deadline of its own at 2 s).
    static constexpr std::chrono::seconds kHardDeadline{3};

private:
    void deliver();        // a signal came: on the watcher thread
    void startDeadline();  // under m_mutex: kHardDeadline from now, the process's sockets are shut down
    std::thread m_deadline;
    std::condition_variable m_ended;  // the destructor tells the deadline to go
    bool m_ending = false;            // guarded by m_mutex
    std::mutex m_mutex;
    std::function<void()> m_cancel;  // guarded by m_mutex
    std::string m_atOnce;            // guarded by m_mutex: the line of endAtOnceUntilStarted(), or empty
    std::thread m_watcher;
    bool m_interrupt = false;  // whether SIGINT / SIGTERM / SIGHUP were taken over (not ignored at start)
    bool m_terminate = false;
    bool m_hangup = false;
};

// Clears a SignalCancel's cancel on the way out, an exception's way included. Declared after what
// the cancel refers to (a session, a runner), so it goes before that does.
class ClearCancelOnExit {
public:
    explicit ClearCancelOnExit(SignalCancel& interrupt) : m_interrupt(interrupt) {}
    ~ClearCancelOnExit() { m_interrupt.setCancel({}); }
    ClearCancelOnExit(const ClearCancelOnExit&) = delete;
    ClearCancelOnExit& operator=(const ClearCancelOnExit&) = delete;

private:
    SignalCancel& m_interrupt;
};

// std::cout through write(2) on fd 1, keeping the first error: with SIGPIPE ignored, a closed pipe
// (EPIPE) or a full disk (ENOSPC) is reported once the run has written everything else, instead of
// killing it or going unsaid. Control characters other than '\n' and '\t' are written as escapes
// (printable()): stdout is text for a terminal, and a title or a server's words in it must not drive it.
class CheckedStdout final : public std::streambuf {
public:
    CheckedStdout();
    ~CheckedStdout() override;  // flushes and gives std::cout its own buffer back
    CheckedStdout(const CheckedStdout&) = delete;
    CheckedStdout& operator=(const CheckedStdout&) = delete;
    int error();  // after a flush: 0 or the errno of the first failed write

protected:
    int_type overflow(int_type c) override;
    int sync() override;

private:
    bool flush(bool last = false);  // not last: a UTF-8 lead byte at the end waits for its second byte
    char m_buffer[8192];
    int m_error = 0;
    std::streambuf* m_previous = nullptr;
};

}  // namespace blobbench::cli
