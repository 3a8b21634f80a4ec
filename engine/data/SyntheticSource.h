#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace blobbench {

// The shape of a synthetic data set. The defaults match the reference data set of the Firebird
// article: 10,000 rows, 5,884 under 8,191 characters holding about 19.8 MB, about 126.4 MB in all,
// longest 77,743 characters, source-code-like text that compresses 5-7x under zlib.
struct SyntheticProfile {
    std::uint64_t seed = 20251129;
    std::uint64_t rows = 10000;
    double shortFraction = 0.5884;  // share of rows shorter than `threshold` characters
    std::uint64_t threshold = 8191;
    std::uint64_t minLength = 40;
    std::uint64_t shortMean = 3367;  // mean length of the short rows
    std::uint64_t longMean = 25900;  // mean length of the long rows
    std::uint64_t maxLength = 77743;
    bool binary = false;  // incompressible bytes instead of text

    // Scales the row count, keeping the shape (for tests and quick runs).
    static SyntheticProfile reference() { return {}; }
};

// Row lengths are quantiles of a two-part power distribution, so the statistics of every data set
// are exact up to rounding whatever the seed; the seed decides which row gets which length and
// the text itself. Lengths are in characters; text is UTF-8 with an occasional two-byte character.
class SyntheticSource {
public:
    explicit SyntheticSource(const SyntheticProfile& profile);

    std::uint64_t rows() const { return m_lengths.size(); }
    std::uint64_t lengthOf(std::uint64_t row) const { return m_lengths[row]; }  // characters
    std::string fileNameOf(std::uint64_t row) const;

    // The content of a row, deterministic for (seed, row). Reuses `out`'s capacity.
    void contentOf(std::uint64_t row, std::string& out) const;

private:
    SyntheticProfile m_profile;
    std::vector<std::uint32_t> m_lengths;
};

// Characters in UTF-8 text (continuation bytes not counted); for invalid UTF-8, the byte count.
std::uint64_t utf8Length(std::string_view text);
bool isValidUtf8(std::string_view text);

}  // namespace blobbench
