#include <gtest/gtest.h>
#include <zlib.h>

#include "engine/core/Error.h"
#include "engine/data/Dataset.h"
#include "engine/data/SyntheticSource.h"

using namespace blobbench;

TEST(Synthetic, SameSeedSameContent) {
    SyntheticProfile p;
    p.rows = 200;
    SyntheticSource a(p), b(p);
    std::string x, y;
    for (std::uint64_t r = 0; r < p.rows; r += 17) {
        a.contentOf(r, x);
        b.contentOf(r, y);
        EXPECT_EQ(x, y) << "row " << r;
        EXPECT_EQ(a.lengthOf(r), b.lengthOf(r));
    }
}

TEST(Synthetic, OtherSeedOtherContent) {
    SyntheticProfile p;
    p.rows = 50;
    SyntheticProfile q = p;
    q.seed = p.seed + 1;
    SyntheticSource a(p), b(q);
    std::string x, y;
    int differing = 0;
    for (std::uint64_t r = 0; r < p.rows; ++r) {
        a.contentOf(r, x);
        b.contentOf(r, y);
        differing += x != y;
    }
    EXPECT_GT(differing, 45);
}

TEST(Synthetic, ContentHasTheDeclaredCharacterLengthAndIsUtf8) {
    SyntheticProfile p;
    p.rows = 300;
    SyntheticSource s(p);
    std::string content;
    bool sawMultibyte = false;
    for (std::uint64_t r = 0; r < p.rows; ++r) {
        s.contentOf(r, content);
        ASSERT_TRUE(isValidUtf8(content)) << "row " << r;
        ASSERT_EQ(utf8Length(content), s.lengthOf(r)) << "row " << r;
        sawMultibyte = sawMultibyte || content.size() > s.lengthOf(r);
    }
    EXPECT_TRUE(sawMultibyte) << "the text should exercise characters longer than one byte";
}

// The default profile is the reference data set's shape (DATASET.md).
TEST(Synthetic, DefaultProfileMatchesTheReferenceDataSet) {
    SyntheticSource s(SyntheticProfile::reference());
    ASSERT_EQ(s.rows(), 10000u);
    std::uint64_t shortRows = 0, shortChars = 0, total = 0, longest = 0;
    for (std::uint64_t r = 0; r < s.rows(); ++r) {
        const auto n = s.lengthOf(r);
        total += n;
        longest = std::max(longest, n);
        if (n < 8191) {
            ++shortRows;
            shortChars += n;
        }
    }
    EXPECT_EQ(shortRows, 5884u);
    EXPECT_NEAR(static_cast<double>(shortChars), 19810796.0, 19810796.0 * 0.01);
    EXPECT_NEAR(static_cast<double>(total), 126392558.0, 126392558.0 * 0.01);
    EXPECT_EQ(longest, 77743u);
}

TEST(Synthetic, TextCompressesLikeSourceCode) {
    SyntheticProfile p;
    p.rows = 400;
    SyntheticSource s(p);
    std::string content;
    std::uint64_t raw = 0, packed = 0;
    std::vector<unsigned char> out;
    for (std::uint64_t r = 0; r < p.rows; ++r) {
        s.contentOf(r, content);
        uLongf size = compressBound(content.size());
        out.resize(size);
        ASSERT_EQ(compress2(out.data(), &size, reinterpret_cast<const Bytef*>(content.data()), content.size(), 6),
                  Z_OK);
        raw += content.size();
        packed += size;
    }
    const double ratio = static_cast<double>(raw) / static_cast<double>(packed);
    EXPECT_GE(ratio, 5.0);
    EXPECT_LE(ratio, 7.0);
}

TEST(Synthetic, BinaryIsIncompressible) {
    SyntheticProfile p;
    p.rows = 20;
    p.binary = true;
    SyntheticSource s(p);
    std::string content;
    s.contentOf(3, content);
    ASSERT_EQ(content.size(), s.lengthOf(3));
    uLongf size = compressBound(content.size());
    std::vector<unsigned char> out(size);
    ASSERT_EQ(compress2(out.data(), &size, reinterpret_cast<const Bytef*>(content.data()), content.size(), 6), Z_OK);
    EXPECT_GT(static_cast<double>(size), 0.99 * static_cast<double>(content.size()));
}

TEST(Synthetic, InconsistentProfilesAreRefused) {
    SyntheticProfile p;
    p.rows = 0;
    EXPECT_THROW(SyntheticSource{p}, Error);
    SyntheticProfile q;
    q.maxLength = 100;
    EXPECT_THROW(SyntheticSource{q}, Error);
}

TEST(Utf8, ValidAndInvalid) {
    EXPECT_TRUE(isValidUtf8("plain"));
    EXPECT_TRUE(isValidUtf8("r\xC3\xA9sum\xC3\xA9"));
    EXPECT_EQ(utf8Length("r\xC3\xA9sum\xC3\xA9"), 6u);
    EXPECT_FALSE(isValidUtf8("\xC3"));          // truncated
    EXPECT_FALSE(isValidUtf8("\xC0\xAF"));      // overlong
    EXPECT_FALSE(isValidUtf8("\xED\xA0\x80"));  // surrogate
    EXPECT_EQ(utf8Length("\xFF\xFE"), 2u);      // invalid: counted as bytes
}
