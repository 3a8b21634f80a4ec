#include "engine/wire/WireTapRelay.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

// WireTap::Relay's data path: one connection's turn (pump), each direction's reads and writes
// (spliced or copied, shaped, with its faults), and when the connection next needs a turn.

namespace blobbench {

void WireTap::Relay::pump(Connection& c) {
    int round = 0;
    for (; round < kPumpBudget && !c.dead; ++round) {
        const Clock::time_point now = Clock::now();
        if (!c.connected && now >= c.connectDeadline) {
            failUpstream(c, ETIMEDOUT);
            return;
        }
        if (stallTimedOut(c, now)) {
            return;
        }
        if (m_activeCutDeadline && now >= *m_activeCutDeadline) {
            m_stallTimeouts.fetch_add(1);
            recordError("wire tap: still relaying " + formatTimeout(m_activeCutGrace) +
                        " after the cancel: cut (cancel grace)");
            close(c, false);
            return;
        }
        bool progress = pumpFlow(c, kUp, now);
        if (!c.dead) {
            progress = pumpFlow(c, kDown, now) || progress;
        }
        if (!progress) {
            break;
        }
    }
    if (c.dead) {
        return;
    }
    if (c.flows[kUp].shutdownSent && c.flows[kDown].shutdownSent) {
        close(c, false);
        return;
    }
    if (round == kPumpBudget) {
        m_ready.push_back(c.id);
    }
    scheduleWake(c);
}

bool WireTap::Relay::pumpFlow(Connection& c, int direction, Clock::time_point now) {
    Flow& f = c.flows[direction];
    const int source = direction == kUp ? c.client : c.server;
    const int sink = direction == kUp ? c.server : c.client;
    const bool sourceOpen = direction == kUp || c.connected;
    const bool sinkOpen = direction == kDown || c.connected;
    const std::uint64_t writtenBefore = f.writtenTotal;
    bool progress = false;

    while (!f.frames.empty() && f.frames.front().arriveAt <= now) {
        f.freeUpTo = f.frames.front().end;
        f.frames.pop_front();
    }
    if (f.stalled && now >= f.stallUntil) {
        f.stalled = false;
    }
    if (f.stallAt && *f.stallAt == f.readTotal && !f.stalled) {
        f.stalled = true;
        f.stallUntil = f.stallFor == FaultPlan::kForever ? Clock::time_point::max() : now + f.stallFor;
        f.stallAt.reset();
        m_faultsInjected.fetch_add(1);
    }

    if (sourceOpen && f.sourceReadable && !f.sourceEof && !f.stalled && f.spliceable() && f.ensurePipe()) {
        if (f.inPipe < f.pipeCapacity) {
            const ssize_t n = ::splice(source, nullptr, f.pipeWrite, nullptr, f.pipeCapacity - f.inPipe,
                                       SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
            if (n > 0) {
                const auto size = static_cast<std::uint64_t>(n);
                if (direction == kDown) {
                    m_undeliveredDown.fetch_add(size);  // before the count: a snapshot never sees them as delivered
                }
                account(c, direction, size, nullptr);
                f.readTotal += size;
                f.freeUpTo = f.readTotal;
                f.inPipe += size;
                progress = true;
            } else if (n == 0) {
                f.sourceEof = true;
                progress = true;
            } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
                // With bytes in the pipe, EAGAIN may mean the pipe is full rather than the socket
                // empty: keep trying after the pipe drains.
                if (f.inPipe == 0) {
                    f.sourceReadable = false;
                }
            } else if (errno != EINTR) {
                abort(c, std::string(direction == kUp ? "client" : "server") + " read: " + describeErrno(errno));
                return true;
            }
        }
    } else if (sourceOpen && f.sourceReadable && !f.sourceEof && !f.stalled && f.inPipe == 0) {
        const std::size_t queued = f.pending.size();
        const std::size_t limit = f.shaper.queueLimit();
        std::uint64_t want = queued < limit ? std::min(kReadChunk, limit - queued) : 0;
        if (f.cutAt) {
            want = std::min(want, *f.cutAt - f.readTotal);
        }
        if (f.stallAt) {
            want = std::min(want, *f.stallAt - f.readTotal);
        }
        if (want > 0) {
            char* into = f.pending.reserve(want);
            const ssize_t n = ::read(source, into, want);
            if (n > 0) {
                const auto size = static_cast<std::uint64_t>(n);
                f.pending.commit(size);
                if (direction == kDown) {
                    m_undeliveredDown.fetch_add(size);  // before the count: a snapshot never sees them as delivered
                }
                account(c, direction, size, into);
                schedule(f, f.readTotal, size, now);
                f.readTotal += size;
                // A short read drained the socket; the next edge will say when there is more. Not so
                // for an end already announced: its edge has passed and only a read reports it.
                if (size < want && !f.sourceClosing) {
                    f.sourceReadable = false;
                }
                progress = true;
            } else if (n == 0) {
                f.sourceEof = true;
                progress = true;
            } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
                f.sourceReadable = false;
            } else if (errno != EINTR) {
                abort(c, std::string(direction == kUp ? "client" : "server") + " read: " + describeErrno(errno));
                return true;
            }
        }
    }

    // The bytes a write hands to the client are no longer undelivered from before the call on: the client
    // may read them and take its snapshot before this thread runs again. What the write did not take is
    // added back after it.
    const auto handing = [&](std::uint64_t count) {
        if (direction == kDown) {
            m_undeliveredDown.fetch_sub(count);
        }
    };
    const auto handed = [&](std::uint64_t count, ssize_t n) {
        if (direction == kDown) {
            m_undeliveredDown.fetch_add(count - static_cast<std::uint64_t>(std::max<ssize_t>(n, 0)));
        }
    };
    if (sinkOpen && f.sinkWritable && f.inPipe > 0) {
        const std::size_t offered = f.inPipe;
        handing(offered);
        const ssize_t n = ::splice(f.pipeRead, nullptr, sink, nullptr, f.inPipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        handed(offered, n);
        if (n > 0) {
            f.inPipe -= static_cast<std::size_t>(n);
            f.writtenTotal += static_cast<std::uint64_t>(n);
            progress = true;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            f.sinkWritable = false;  // the pipe has bytes, so it is the socket that is full
        } else if (n < 0 && errno != EINTR) {
            abort(c, std::string(direction == kUp ? "server" : "client") + " write: " + describeErrno(errno));
            return true;
        }
    } else if (sinkOpen && f.sinkWritable && f.freeUpTo > f.writtenTotal) {
        const std::size_t count = f.freeUpTo - f.writtenTotal;
        handing(count);
        const ssize_t n = ::send(sink, f.pending.data(), count, MSG_NOSIGNAL);
        handed(count, n);
        if (n > 0) {
            const auto size = static_cast<std::size_t>(n);
            f.pending.consume(size);
            f.writtenTotal += size;
            if (size < count) {
                f.sinkWritable = false;
            }
            progress = true;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            f.sinkWritable = false;
        } else if (n < 0 && errno != EINTR) {
            abort(c, std::string(direction == kUp ? "server" : "client") + " write: " + describeErrno(errno));
            return true;
        }
    }

    if (progress && (direction == kDown || f.writtenTotal != writtenBefore)) {
        c.lastServerActivity = now;  // a byte from the server, or one delivered to it
    }
    if (f.cutAt && f.writtenTotal == *f.cutAt) {
        cut(c);
        return true;
    }
    if (sinkOpen && f.sourceEof && !f.shutdownSent && f.writtenTotal == f.readTotal) {
        ::shutdown(sink, SHUT_WR);
        f.shutdownSent = true;
        progress = true;
    }
    return progress;
}

void WireTap::Relay::schedule(Flow& f, std::uint64_t start, std::uint64_t size, Clock::time_point now) {
    if (f.shaper.shaping()) {
        f.shaper.enqueue(start, size, now, f.frames);
    } else if (f.frames.empty()) {
        f.freeUpTo = start + size;
    } else {
        // Unshaped now, but earlier shaped bytes are still on the line: do not overtake them.
        f.frames.push_back(LinkFrame{start + size, now, f.frames.back().arriveAt});
    }
}

void WireTap::Relay::account(Connection& c, int direction, std::uint64_t size, const char* data) {
    m_bytes[direction].fetch_add(size, std::memory_order_relaxed);
    ExchangeRecorder::record(*c.log, direction, size, nowNs());
    const bool roundTrip = direction == kDown && c.lastDirection == kUp;
    c.lastDirection = direction;
    if (m_compressor && data != nullptr) {  // copyOnly flows: every chunk comes with its bytes
        m_compressor->push(c.id, direction, data, size, roundTrip);
    }
}

void WireTap::Relay::scheduleWake(Connection& c) {
    std::optional<Clock::time_point> next;
    auto consider = [&next](Clock::time_point when) {
        if (!next || when < *next) {
            next = when;
        }
    };
    for (const Flow& f : c.flows) {
        if (!f.frames.empty()) {
            consider(f.frames.front().arriveAt);
        }
        if (f.stalled && f.stallUntil != Clock::time_point::max()) {
            consider(f.stallUntil);
        }
    }
    if (!c.connected) {
        consider(c.connectDeadline);
    }
    if (m_activeWatching && m_activeStallTimeout.count() > 0) {
        consider(c.lastServerActivity + m_activeStallTimeout);
    }
    if (m_activeCutDeadline) {
        consider(*m_activeCutDeadline);
    }
    if (next && (!c.wake || *next < *c.wake)) {
        c.wake = next;
        m_timers.emplace(*next, c.id);
    }
}

}  // namespace blobbench
