#pragma once

// Deterministic test values for the storage experiments: the same (seed, key) always gives the same
// bytes, so a reader can check what it read without keeping a copy.

#include <cstdint>
#include <string>
#include <vector>

namespace blobbench::storage {

struct ValueShape {
    std::uint64_t meanBytes = 10000;   // 10 kB (10,000 bytes: the article's)
    std::uint64_t spreadBytes = 2000;  // +- 2 kB, uniform
    bool text = false;                 // printable ASCII (random letters: LZ cannot shrink it 25%) instead of bytes
    bool compressible = false;         // with text: words of a small vocabulary, which LZ compressors shrink ~3x
    std::uint64_t seed = 20261130;
};

// The length of key's value: mean +- spread, uniform, at least 1.
std::uint64_t valueLength(const ValueShape& shape, std::uint64_t key);
// The value of `key`, written into `out` (capacity reused).
void valueFor(const ValueShape& shape, std::uint64_t key, std::string& out);

// Keys 1..count, ascending or shuffled with the seed.
std::vector<std::uint64_t> keyOrder(std::uint64_t count, bool random, std::uint64_t seed);

// Refuses zero or absurd sizes with one-line Usage errors naming the option.
void checkCount(const std::string& option, std::uint64_t count, std::uint64_t maximum);

// The names of a comma-separated option value ("sql, blob,files"), blanks trimmed, empty ones left out.
std::vector<std::string> splitOptionList(const std::string& list);

}  // namespace blobbench::storage
