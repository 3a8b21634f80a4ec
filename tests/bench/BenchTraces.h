#pragma once
// Made-up exchange traces for the prediction benchmarks (predict_bench, whatif_bench): requests of
// 20-220 bytes, answers of up to 32 kB, a server time of 30-130 us.
#include <chrono>
#include <random>

#include "engine/core/ExchangeTrace.h"

namespace blobbench::bench {

inline ExchangeTrace madeUpTrace(std::mt19937& random, std::size_t exchanges) {
    ExchangeTrace t;
    t.exchanges.resize(exchanges);
    for (Exchange& e : t.exchanges) {
        e.sendBytes = 20 + random() % 200;
        e.recvBytes = 100 + random() % 32'000;
        e.clientTime = std::chrono::microseconds(random() % 50);
        e.serverTime = std::chrono::microseconds(30 + random() % 100);
        e.recvTime = std::chrono::microseconds(random() % 30);
    }
    return t;
}

}  // namespace blobbench::bench
