// ClientPause: a gap between two looks at CLOCK_BOOTTIME longer than the threshold is a pause of
// the process (stopped or suspended); ordinary ticks are none. The real SIGSTOP is in
// tests/integration/test_cancel_deadline.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/core/ClientPause.h"

using namespace blobbench;

TEST(ClientPause, AGapLongerThanTheThresholdIsAPause) {
    using clientpause::kTickNs;
    EXPECT_EQ(clientpause::pauseIn(1'000'000'000, 1'000'000'000 + kTickNs), 0);
    EXPECT_EQ(clientpause::pauseIn(0, clientpause::kPauseThresholdNs), 0) << "at the threshold: still a tick";
    EXPECT_EQ(clientpause::pauseIn(0, 7'000'000'000), 7'000'000'000 - kTickNs);
}

TEST(ClientPause, RunningNormallyShowsNoPause) {
    const clientpause::Watch watch;
    const clientpause::Watch nested;  // one watcher thread for both
    const clientpause::Pauses before = clientpause::pausesSoFar();
    const std::int64_t resumed = clientpause::resumedAt();
    std::this_thread::sleep_for(std::chrono::milliseconds(350));
    EXPECT_EQ(clientpause::pausesSoFar().count, before.count);
    EXPECT_EQ(clientpause::resumedAt(), resumed);
}
