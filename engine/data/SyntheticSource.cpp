#include "engine/data/SyntheticSource.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "engine/core/Error.h"

namespace blobbench {
namespace {

// splitmix64: small, fast, and identical on every platform.
struct Random {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

// Lengths whose mean over [lo, hi] is `mean`: lo + (hi - lo) * u^k with k = (hi - lo) / (mean - lo) - 1.
void quantiles(std::vector<std::uint32_t>& out, std::uint64_t count, double lo, double hi, double mean) {
    if (count == 0) {
        return;
    }
    mean = std::clamp(mean, lo + 1.0, hi - 1.0);
    const double k = std::max(0.05, (hi - lo) / (mean - lo) - 1.0);
    for (std::uint64_t i = 0; i < count; ++i) {
        const double u = count == 1 ? 1.0 : static_cast<double>(i) / static_cast<double>(count - 1);
        out.push_back(static_cast<std::uint32_t>(std::llround(lo + (hi - lo) * std::pow(u, k))));
    }
}

constexpr std::array<const char*, 48> kWords = {
    "buffer",  "length", "status", "result", "offset", "segment", "blob",    "handle", "stream",  "value",
    "count",   "index",  "packet", "client", "server", "message", "cursor",  "fetch",  "column",  "record",
    "size",    "data",   "error",  "flags",  "info",   "page",    "charset", "string", "context", "item",
    "request", "reply",  "socket", "port",   "attach", "detach",  "commit",  "start",  "open",    "close",
    "read",    "write",  "cache",  "inline", "max",    "limit",   "wire",    "crypt"};
constexpr std::array<const char*, 10> kTypes = {"int",       "unsigned", "ULONG", "USHORT", "const char*",
                                                "FB_SIZE_T", "bool",     "SLONG", "void*",  "ISC_STATUS"};
constexpr std::array<const char*, 8> kComments = {
    "// Check the status vector before the next call",     "// The segment fits into the buffer",
    "// Keep the old behaviour for protocol 16 and older", "// Nothing to do for an empty BLOB",
    "// Résumé: the réponse comes in one packet",          "// Release the handle on every path",
    "/* see the comment in the header for details */",     "// Don't wait for the server here"};

// Real source files reuse a handful of names and idioms: each file draws from its own small
// vocabulary with a skew towards the first names, which gives zlib what it finds in real code.
class TextWriter {
public:
    TextWriter(Random& random, std::string& out) : m_random(random), m_out(out) {
        for (auto& w : m_vocabulary) {
            w = kWords[m_random.below(kWords.size())];
            if (m_random.below(2) == 0) {
                std::string second = kWords[m_random.below(kWords.size())];
                second[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(second[0])));
                w += second;
            }
        }
        for (auto& n : m_numbers) {
            n = std::to_string(m_random.below(4096));
        }
    }

    const std::string& word() { return m_vocabulary[m_random.below(m_random.below(m_vocabulary.size()) + 1)]; }

    // One line of C++-like code at the current indentation.
    void line(int depth) {
        m_out.append(static_cast<std::size_t>(depth) * 4, ' ');
        switch (m_random.below(10)) {
            case 0:
                m_out += kComments[m_random.below(kComments.size())];
                break;
            case 1:
            case 2:
                m_out += kTypes[m_random.below(kTypes.size())];
                m_out += ' ';
                m_out += word();
                m_out += " = ";
                m_out += word();
                m_out += "->";
                m_out += word();
                m_out += "(status);";
                break;
            case 3:
                m_out += "if (";
                m_out += word();
                m_out += m_random.below(2) ? " == " : " != ";
                m_out += word();
                m_out += ")";
                break;
            case 4:
                m_out += "status->check(";
                m_out += word();
                m_out += ", ";
                m_out += m_numbers[m_random.below(m_numbers.size())];
                m_out += ");";
                break;
            case 5:
                m_out += word();
                m_out += " += ";
                m_out += word();
                m_out += ".size();";
                break;
            case 6:
                m_out += "return ";
                m_out += word();
                m_out += ";";
                break;
            default:
                m_out += word();
                m_out += "(";
                m_out += word();
                m_out += ", ";
                m_out += word();
                m_out += ");";
                break;
        }
        m_out += '\n';
    }

private:
    Random& m_random;
    std::string& m_out;
    std::array<std::string, 14> m_vocabulary;
    std::array<std::string, 4> m_numbers;
};

}  // namespace

SyntheticSource::SyntheticSource(const SyntheticProfile& profile) : m_profile(profile) {
    if (profile.rows == 0) {
        throw Error(ErrorKind::Usage, "synthetic data: rows must be at least 1");
    }
    if (profile.maxLength <= profile.threshold || profile.minLength >= profile.threshold || profile.shortFraction < 0 ||
        profile.shortFraction > 1) {
        throw Error(ErrorKind::Usage, "synthetic data: the size distribution is inconsistent");
    }
    const auto shortRows =
        static_cast<std::uint64_t>(std::llround(profile.shortFraction * static_cast<double>(profile.rows)));
    m_lengths.reserve(profile.rows);
    quantiles(m_lengths, shortRows, static_cast<double>(profile.minLength), static_cast<double>(profile.threshold - 1),
              static_cast<double>(profile.shortMean));
    quantiles(m_lengths, profile.rows - shortRows, static_cast<double>(profile.threshold),
              static_cast<double>(profile.maxLength), static_cast<double>(profile.longMean));
    Random random{profile.seed};
    for (std::size_t i = m_lengths.size(); i > 1; --i) {
        std::swap(m_lengths[i - 1], m_lengths[random.below(i)]);
    }
}

std::string SyntheticSource::fileNameOf(std::uint64_t row) const {
    char name[40];
    std::snprintf(name, sizeof name, "synthetic/src%05llu.cpp", static_cast<unsigned long long>(row) + 1);
    return name;
}

void SyntheticSource::contentOf(std::uint64_t row, std::string& out) const {
    out.clear();
    const std::uint64_t target = m_lengths[row];
    Random random{m_profile.seed ^ (0xA0761D6478BD642FULL * (row + 1))};
    if (m_profile.binary) {
        out.resize(target);
        for (std::uint64_t i = 0; i < target; i += 8) {
            const std::uint64_t v = random.next();
            std::memcpy(out.data() + i, &v, std::min<std::uint64_t>(8, target - i));
        }
        return;
    }
    out.reserve(target + 128);
    TextWriter writer(random, out);
    int depth = 0;
    std::uint64_t chars = 0;
    while (true) {
        const std::size_t before = out.size();
        const std::uint64_t kind = random.below(12);
        if (kind == 0 && depth < 4) {
            out.append(static_cast<std::size_t>(depth) * 4, ' ');
            out += "{\n";
            ++depth;
        } else if (kind == 1 && depth > 0) {
            --depth;
            out.append(static_cast<std::size_t>(depth) * 4, ' ');
            out += "}\n";
        } else {
            writer.line(depth);
        }
        chars += utf8Length(std::string_view(out).substr(before));
        if (chars >= target) {
            break;
        }
    }
    // Trim back to exactly `target` characters, never inside a UTF-8 sequence.
    while (chars > target) {
        while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) {
            out.pop_back();
        }
        out.pop_back();
        --chars;
    }
    while (chars < target) {
        out += '\n';
        ++chars;
    }
}

std::uint64_t utf8Length(std::string_view text) {
    if (!isValidUtf8(text)) {
        return text.size();
    }
    std::uint64_t n = 0;
    for (unsigned char c : text) {
        n += (c & 0xC0) != 0x80;
    }
    return n;
}

bool isValidUtf8(std::string_view text) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        const unsigned char c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        int extra = 0;
        std::uint32_t code = 0;
        if ((c & 0xE0) == 0xC0) {
            extra = 1;
            code = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2;
            code = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3;
            code = c & 0x07;
        } else {
            return false;
        }
        if (end - p <= extra) {
            return false;
        }
        for (int i = 1; i <= extra; ++i) {
            if ((p[i] & 0xC0) != 0x80) {
                return false;
            }
            code = (code << 6) | (p[i] & 0x3F);
        }
        static constexpr std::uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
        if (code < kMin[extra] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
            return false;
        }
        p += extra + 1;
    }
    return true;
}

}  // namespace blobbench
