//===- PhiloxTest.cpp - the dropout mask's generator ----------------------===//
#include "attn/runtime/Philox.h"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using Words = std::array<uint32_t, 4>;

// Random123's published known-answer vectors for Philox4x32-10 (its
// tests/kat_vectors), counter first, then the key.
TEST(Philox, KnownAnswers) {
  EXPECT_EQ(attn::philox4x32_10({0, 0, 0, 0}, 0, 0),
            (Words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(
      attn::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                          0xffffffff, 0xffffffff),
      (Words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(
      attn::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                          0xa4093822, 0x299f31d0),
      (Words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// The eight scores of one counter: rows i, i + 8 (i ≡ 0..7 mod 16) and
// columns j, j + 1, j + 8, j + 9 (j ≡ 0, 2, 4, 6 mod 16) read words 0..3 of
// one call, the lower halves in the first n-tile and the upper ones in the
// second.
TEST(Philox, DropoutValuesShareCounters) {
  const uint64_t seed = 0x0123456789abcdefull;
  for (int64_t i : {0, 5, 16, 23, 1000 * 16 + 7})
    for (int64_t j : {0, 2, 6, 16 * 3 + 4, 4096}) {
      Words w = attn::philox4x32_10({uint32_t(4 * (j >> 4) + ((j >> 1) & 3)),
                                     uint32_t(8 * (i >> 4) + (i & 7)), 3u, 9u},
                                    uint32_t(seed), uint32_t(seed >> 32));
      for (int e = 0; e < 4; ++e) {
        int64_t r = i + 8 * (e / 2), c = j + e % 2;
        EXPECT_EQ(attn::dropoutValue(seed, 3, 9, r, c), w[e] << 16);
        EXPECT_EQ(attn::dropoutValue(seed, 3, 9, r, c + 8), w[e]);
      }
    }
}

TEST(Philox, Threshold) {
  EXPECT_EQ(attn::dropoutThreshold(0.0f), 0u);
  EXPECT_EQ(attn::dropoutThreshold(0.5f), 0x80000000u);
  EXPECT_EQ(attn::dropoutThreshold(0.25f), 0x40000000u);
  // p·2^16 truncated: 0.1 keeps 1 − 6553/65536 of the scores.
  EXPECT_EQ(attn::dropoutThreshold(0.1f), 6553u << 16);
  // Rates near 1 stop at 65535 (one value in 2^16 is kept).
  EXPECT_EQ(attn::dropoutThreshold(std::nextafter(1.0f, 0.0f)), 65535u << 16);
  EXPECT_FLOAT_EQ(attn::dropoutScale(0.2f), 1.25f);
}

// The fraction kept over a large grid is 1 − p within a few standard
// deviations (a generator or a threshold off by a factor would not be).
TEST(Philox, KeptFraction) {
  for (float p : {0.1f, 0.5f, 0.9f}) {
    uint32_t t = attn::dropoutThreshold(p);
    int64_t kept = 0, n = 0;
    for (int64_t i = 0; i < 256; ++i)
      for (int64_t j = 0; j < 1024; ++j, ++n)
        kept += attn::dropoutValue(42, 7, 1, i, j) >= t;
    double frac = double(kept) / double(n);
    double sd = std::sqrt(double(p) * (1 - p) / double(n));
    EXPECT_NEAR(frac, 1.0 - p, 5 * sd) << "p=" << p;
  }
}

} // namespace
