//===- Philox.h - attention dropout's random bits, on the host ---*- C++
//-*-===//
//
// The one host definition of attn.attention's dropout mask (the op's
// description states it; the compiler's lowerings compute the same bits in
// the kernel): Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random
// numbers: as easy as 1, 2, 3", SC 2011), keyed by the 64-bit seed, with one
// counter per eight scores. Header only, plain C++17: the float64 reference,
// attn-run and the tests use it.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_RUNTIME_PHILOX_H
#define ATTN_RUNTIME_PHILOX_H

#include <array>
#include <cstddef>
#include <cstdint>

namespace attn {

/// The bits of a score's dropout number: two numbers a Philox word.
constexpr int kDropoutBits = 16;

/// Philox4x32's round multipliers and key increments (Weyl constants).
constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;

/// Philox4x32-10 of counter `c` under key (k0, k1). Each round:
///   (hi0, lo0) = M0·c0, (hi1, lo1) = M1·c2   (32×32 → 64-bit products)
///   c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)
/// and the key advances by (W0, W1) between rounds.
inline std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c,
                                             uint32_t k0, uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t(kPhiloxM0) * c[0];
    uint64_t p1 = uint64_t(kPhiloxM1) * c[2];
    c = {uint32_t(p1 >> 32) ^ c[1] ^ k0, uint32_t(p1),
         uint32_t(p0 >> 32) ^ c[3] ^ k1, uint32_t(p0)};
    k0 += kPhiloxW0;
    k1 += kPhiloxW1;
  }
  return c;
}

/// The dropout value of score (i, j) (query and key positions from the
/// sequence's start) of program stream s = b·Hq + h: a u32 whose upper 16
/// bits are the score's 16-bit random number. One Philox4x32-10 call with
/// key (lo32(seed), hi32(seed)) and counter
///   (4·(j >> 4) + ((j >> 1) & 3), 8·(i >> 4) + (i & 7), s, offset)
/// serves eight scores: word w = 2·((i >> 3) & 1) + (j & 1), its upper half
/// for (j >> 3) & 1 = 1, its lower half (w << 16) otherwise. (These are the
/// eight accumulators a GPU thread holds of two n-tiles: rows g, g + 8,
/// columns 2q, 2q + 1 of each.)
inline uint32_t dropoutValue(uint64_t seed, uint32_t stream, uint32_t offset,
                             int64_t i, int64_t j) {
  std::array<uint32_t, 4> c = {uint32_t(4 * (j >> 4) + ((j >> 1) & 3)),
                               uint32_t(8 * (i >> 4) + (i & 7)), stream,
                               offset};
  std::array<uint32_t, 4> w =
      philox4x32_10(c, uint32_t(seed), uint32_t(seed >> 32));
  uint32_t word = w[std::size_t(2 * ((i >> 3) & 1) + (j & 1))];
  return ((j >> 3) & 1) ? word : word << kDropoutBits;
}

/// The keep threshold of rate p, compared with dropoutValue (unsigned): a
/// score is kept iff its 16-bit number is >= T = u32(min(p·2^16, 65535))
/// (f32; p·2^16 is exact), i.e. iff dropoutValue >= T·2^16. A score is
/// kept with probability 1 − T/2^16, within 2^-16 of 1 − p.
inline uint32_t dropoutThreshold(float p) {
  const float top = float((1u << kDropoutBits) - 1);
  float t = p * float(1u << kDropoutBits);
  if (t > top)
    t = top;
  return (t > 0 ? uint32_t(t) : 0u) << kDropoutBits;
}

/// The factor a kept probability is multiplied by: 1/(1 − p) in f32.
inline float dropoutScale(float p) { return 1.0f / (1.0f - p); }

} // namespace attn

#endif // ATTN_RUNTIME_PHILOX_H
