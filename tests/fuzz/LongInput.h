// Long inputs for every fuzz target. libFuzzer's inputs stay short (-max_len 4096 by default),
// yet a scanner whose stack depth or time grows with its input (std::regex recursed once per
// character and overflowed the 8 MiB stack at ~30,000 characters) fails only on long strings. So
// each target runs every input once as it is and once repeated to at least kLongInputBytes, in
// the libFuzzer binaries and in the corpus replayers alike.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace blobbench::fuzz {

constexpr std::size_t kLongInputBytes = 100 * 1024;

// The input repeated until it is at least kLongInputBytes long; empty for an empty input.
inline std::string repeatedToLong(std::string_view input) {
    std::string out;
    if (input.empty()) {
        return out;
    }
    out.reserve(kLongInputBytes + input.size());
    while (out.size() < kLongInputBytes) {
        out.append(input);
    }
    return out;
}

}  // namespace blobbench::fuzz
