#include "engine/storage/StorageValues.h"

#include <algorithm>
#include <cstring>

#include "engine/core/Error.h"

namespace blobbench::storage {
namespace {

std::uint64_t splitmix(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

}  // namespace

std::uint64_t valueLength(const ValueShape& shape, std::uint64_t key) {
    std::uint64_t state = shape.seed * 0x2545F4914F6CDD1DULL + key;
    const std::uint64_t r = splitmix(state);
    const std::uint64_t span = 2 * shape.spreadBytes + 1;
    const std::uint64_t low = shape.meanBytes > shape.spreadBytes ? shape.meanBytes - shape.spreadBytes : 0;
    return std::max<std::uint64_t>(1, low + r % span);
}

void valueFor(const ValueShape& shape, std::uint64_t key, std::string& out) {
    const std::uint64_t length = valueLength(shape, key);
    out.resize(length);
    std::uint64_t state = (shape.seed ^ 0xA0761D6478BD642FULL) + key * 0xE7037ED1A0B428DBULL;
    char* p = out.data();
    std::uint64_t i = 0;
    if (shape.text && shape.compressible) {
        // Prose-like text: words of a 32-word vocabulary, each followed by a space or a newline.
        static constexpr const char* kWords[32] = {
            "the",   "large", "object", "is",     "stored", "in",    "a",      "page",  "of",    "table",   "row",
            "value", "with",  "index",  "binary", "text",   "chunk", "commit", "write", "read",  "segment", "file",
            "data",  "for",   "every",  "key",    "and",    "block", "then",   "from",  "store", "database"};
        while (i < length) {
            std::uint64_t r = splitmix(state);
            for (int w = 0; w < 8 && i < length; ++w, r >>= 8) {
                const char* word = kWords[r & 31];
                for (; *word != '\0' && i < length; ++word) {
                    p[i++] = *word;
                }
                if (i < length) {
                    p[i++] = (r & 0xe0) == 0xe0 ? '\n' : ' ';
                }
            }
        }
        return;
    }
    if (shape.text) {
        static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .\n";
        for (; i < length; i += 8) {
            std::uint64_t r = splitmix(state);
            for (std::uint64_t j = i; j < std::min(length, i + 8); ++j, r >>= 8) {
                p[j] = kAlphabet[(r & 0xff) % 64];
            }
        }
        return;
    }
    for (; i + 8 <= length; i += 8) {
        const std::uint64_t r = splitmix(state);
        std::memcpy(p + i, &r, 8);
    }
    if (i < length) {
        const std::uint64_t r = splitmix(state);
        std::memcpy(p + i, &r, length - i);
    }
}

std::vector<std::uint64_t> keyOrder(std::uint64_t count, bool random, std::uint64_t seed) {
    std::vector<std::uint64_t> keys(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        keys[i] = i + 1;
    }
    if (random) {
        std::uint64_t state = seed ^ 0x5851F42D4C957F2DULL;
        for (std::uint64_t i = count; i > 1; --i) {  // Fisher-Yates, own generator: same order everywhere
            std::swap(keys[i - 1], keys[splitmix(state) % i]);
        }
    }
    return keys;
}

void checkCount(const std::string& option, std::uint64_t count, std::uint64_t maximum) {
    if (count == 0 || count > maximum) {
        throw Error(ErrorKind::Usage,
                    option + ": " + std::to_string(count) + " is out of range 1.." + std::to_string(maximum));
    }
}

std::vector<std::string> splitOptionList(const std::string& list) {
    std::vector<std::string> names;
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t end = list.find(',', start);
        if (end == std::string::npos) {
            end = list.size();
        }
        std::string name = list.substr(start, end - start);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        if (!name.empty()) {
            names.push_back(std::move(name));
        }
        start = end + 1;
    }
    return names;
}

}  // namespace blobbench::storage
