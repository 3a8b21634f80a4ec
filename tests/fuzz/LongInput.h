// Long inputs for every fuzz target. libFuzzer's inputs stay short (-max_len 4096 by default),
// yet a scanner whose stack depth or time grows with its input (std::regex recursed once per
// character and overflowed the 8 MiB stack at ~30,000 characters) fails only on long strings. So
// each target runs every input as it is and in two long forms of at least kLongInputBytes, in the
// libFuzzer binaries and in the corpus replayers alike:
// - the input repeated: long text of the input's shape (many fields, many URIs);
// - the input with its last byte repeated: one long run, where a recursive scanner dies
//   ("https://a" becomes "https://aaaa..."; repeating the whole input only makes short matches).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace blobbench::fuzz {

constexpr std::size_t kLongInputBytes = 100 * 1024;

// Under libFuzzer the long forms go with every kLongInputEvery-th input only: they cost about a
// thousand short runs each (1 to 5 runs/s with them on every input under ASan), and what they
// test depends on the input's shape, which libFuzzer keeps mutating. The corpus replayers run them
// for every input.
#ifdef BLOBBENCH_LIBFUZZER
constexpr unsigned kLongInputEvery = 32;
#else
constexpr unsigned kLongInputEvery = 1;
#endif

// Both long forms of the input (see kLongInputEvery); none for an empty input.
inline std::vector<std::string> longForms(std::string_view input) {
    std::vector<std::string> forms;
    static unsigned calls = 0;
    if (input.empty() || calls++ % kLongInputEvery != 0) {
        return forms;
    }
    std::string repeated;
    repeated.reserve(kLongInputBytes + input.size());
    while (repeated.size() < kLongInputBytes) {
        repeated.append(input);
    }
    forms.push_back(std::move(repeated));
    std::string run(input);
    run.append(kLongInputBytes, input.back());
    forms.push_back(std::move(run));
    return forms;
}

}  // namespace blobbench::fuzz
