#include "engine/core/Sample.h"

#include <ctime>

namespace blobbench {

WireCounters WireCounters::operator-(const WireCounters& earlier) const {
    WireCounters d;
    d.sendPackets = sendPackets - earlier.sendPackets;
    d.recvPackets = recvPackets - earlier.recvPackets;
    d.sendBytes = sendBytes - earlier.sendBytes;
    d.recvBytes = recvBytes - earlier.recvBytes;
    if (roundTrips && earlier.roundTrips) {
        d.roundTrips = *roundTrips - *earlier.roundTrips;
    }
    if (compressed && earlier.compressed) {
        d.compressed = CompressionEstimate{compressed->zlibSendBytes - earlier.compressed->zlibSendBytes,
                                           compressed->zlibRecvBytes - earlier.compressed->zlibRecvBytes,
                                           compressed->zstdSendBytes - earlier.compressed->zstdSendBytes,
                                           compressed->zstdRecvBytes - earlier.compressed->zstdRecvBytes};
    }
    return d;
}

const char* toString(SampleStatus status) {
    switch (status) {
        case SampleStatus::Complete:
            return "complete";
        case SampleStatus::Failed:
            return "failed";
        case SampleStatus::Cancelled:
            return "cancelled";
    }
    return "unknown";
}

std::string isoNow() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char buffer[40];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &utc);
    char out[48];
    std::snprintf(out, sizeof out, "%s.%03dZ", buffer, static_cast<int>(millis));
    return out;
}

}  // namespace blobbench
