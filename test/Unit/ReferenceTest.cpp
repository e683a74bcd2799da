//===- ReferenceTest.cpp - runtime host helpers -----------------*- C++ -*-===//
#include "attn/runtime/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace attn;

namespace {
const double kInf = std::numeric_limits<double>::infinity();

TEST(Conversions, BF16RoundsToNearestEven) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even one.
  EXPECT_EQ(floatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  EXPECT_EQ(floatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(NAN))));
  EXPECT_EQ(bf16ToFloat(floatToBf16(-INFINITY)), -INFINITY);
}

TEST(Conversions, HalfRoundTripAndEdges) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00); // rounds up to infinity
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even.
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  for (uint32_t h = 0; h < 0x7C00; ++h) // every finite positive half
    ASSERT_EQ(floatToHalf(halfToFloat(uint16_t(h))), h) << h;
}

TEST(Conversions, E4M3RoundTripAndEdges) {
  EXPECT_EQ(e4m3ToFloat(0x38), 1.0f);                 // 0 0111 000
  EXPECT_EQ(e4m3ToFloat(0x7E), 448.0f);               // the largest finite
  EXPECT_EQ(e4m3ToFloat(0x01), std::ldexp(1.0f, -9)); // smallest subnormal
  EXPECT_EQ(e4m3ToFloat(0x08), std::ldexp(1.0f, -6)); // smallest normal
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0xFF)));
  EXPECT_EQ(floatToE4m3(1.0f), 0x38);
  EXPECT_EQ(floatToE4m3(-2.0f), 0xC0);
  // satfinite: beyond 448 (and infinity) saturates.
  EXPECT_EQ(floatToE4m3(1000.0f), 0x7E);
  EXPECT_EQ(floatToE4m3(-INFINITY), 0xFE);
  EXPECT_EQ(floatToE4m3(NAN), 0x7F);
  // 1 + 2^-4 is halfway between 1 and 1 + 2^-3: ties to the even code.
  EXPECT_EQ(floatToE4m3(1.0f + std::ldexp(1.0f, -4)), 0x38);
  EXPECT_EQ(floatToE4m3(1.0f + 3 * std::ldexp(1.0f, -4)), 0x3A);
  // Half the smallest subnormal rounds to zero (even), a bit more to it.
  EXPECT_EQ(floatToE4m3(std::ldexp(1.0f, -10)), 0x00);
  EXPECT_EQ(floatToE4m3(std::ldexp(1.1f, -10)), 0x01);
  for (uint32_t x = 0; x < 0x7F; ++x) // every finite code, both signs
    for (uint32_t s : {0u, 0x80u})
      ASSERT_EQ(floatToE4m3(e4m3ToFloat(uint8_t(x | s))), x | s) << x;
  EXPECT_EQ(dtypeSize(DType::E4M3), 1u);
  DType t;
  ASSERT_TRUE(parseDType("e4m3", t));
  EXPECT_EQ(t, DType::E4M3);
  EXPECT_STREQ(dtypeName(DType::E4M3), "e4m3");
}

TEST(Reference, SingleKeyCopiesValue) {
  Problem p;
  p.seqQ = 3;
  p.seqK = 1;
  p.headDim = 2;
  p.headDimV = 3;
  std::vector<double> q = {1, 2, 3, 4, 5, 6}, k = {0.5, -1}, v = {7, 8, 9};
  std::vector<double> o, lse;
  referenceAttention(p, q, k, v, o, lse);
  for (int i = 0; i < 3; ++i) {
    for (int d = 0; d < 3; ++d)
      EXPECT_DOUBLE_EQ(o[i * 3 + d], v[d]);
    double s = (q[i * 2] * 0.5 - q[i * 2 + 1]) / std::sqrt(2.0);
    EXPECT_NEAR(lse[i], s, 1e-12); // log(exp(s)) with one key
  }
}

TEST(Reference, EqualScoresAverageVisibleValues) {
  // Q = 0 makes every score 0: O is the mean of the visible V rows and
  // LSE = log(#visible). Causal with Nq = 2 < Nk = 4: row i sees i + 3 keys.
  Problem p;
  p.seqQ = 2;
  p.seqK = 4;
  p.headDim = 1;
  p.headDimV = 1;
  p.causal = true;
  std::vector<double> q = {0, 0}, k = {1, 2, 3, 4}, v = {1, 2, 3, 4};
  std::vector<double> o, lse;
  referenceAttention(p, q, k, v, o, lse);
  EXPECT_DOUBLE_EQ(o[0], 2.0); // mean(1, 2, 3)
  EXPECT_DOUBLE_EQ(o[1], 2.5); // mean(1, 2, 3, 4)
  EXPECT_NEAR(lse[0], std::log(3.0), 1e-12);
  EXPECT_NEAR(lse[1], std::log(4.0), 1e-12);
}

TEST(Reference, SlidingWindowAveragesTheKeysInsideIt) {
  // Q = 0: O is the mean of the visible V rows. Nq = Nk = 6, a = i:
  // window (1, 0) sees keys [i-1, i]; (2, 1) sees [i-2, i+1] within [0, 6).
  Problem p;
  p.seqQ = p.seqK = 6;
  p.headDim = p.headDimV = 1;
  p.causal = true;
  p.windowLeft = 1;
  std::vector<double> q(6, 0.0), k(6, 1.0), v = {1, 2, 3, 4, 5, 6};
  std::vector<double> o, lse;
  referenceAttention(p, q, k, v, o, lse);
  EXPECT_DOUBLE_EQ(o[0], 1.0);
  EXPECT_DOUBLE_EQ(o[3], 3.5); // mean(3, 4)
  EXPECT_NEAR(lse[3], std::log(2.0), 1e-12);
  p.causal = false;
  p.windowLeft = 2;
  p.windowRight = 1;
  referenceAttention(p, q, k, v, o, lse);
  EXPECT_DOUBLE_EQ(o[0], 1.5); // mean(1, 2)
  EXPECT_DOUBLE_EQ(o[3], 3.5); // mean(2, 3, 4, 5)
  EXPECT_DOUBLE_EQ(o[5], 5.0); // mean(4, 5, 6)
  // Nq = 2 < Nk = 6 (a = i + 4), window (0, -1) without causal: keys
  // [i+4, 6).
  p.seqQ = 2;
  p.windowLeft = 0;
  p.windowRight = -1;
  q.assign(2, 0.0);
  referenceAttention(p, q, k, v, o, lse);
  EXPECT_DOUBLE_EQ(o[0], 5.5); // mean(5, 6)
  EXPECT_DOUBLE_EQ(o[1], 6.0);
}

TEST(Reference, CausalRowsWithoutKeysAreZeroAndMinusInf) {
  // Nq = 3 > Nk = 1, bottom-right aligned: only the last row sees key 0.
  Problem p;
  p.seqQ = 3;
  p.seqK = 1;
  p.headDim = 1;
  p.headDimV = 1;
  p.causal = true;
  std::vector<double> q = {1, 1, 1}, k = {1}, v = {5};
  std::vector<double> o, lse;
  referenceAttention(p, q, k, v, o, lse);
  EXPECT_EQ(o[0], 0.0);
  EXPECT_EQ(o[1], 0.0);
  EXPECT_EQ(o[2], 5.0);
  EXPECT_EQ(lse[0], -kInf);
  EXPECT_EQ(lse[1], -kInf);
  EXPECT_NEAR(lse[2], 1.0, 1e-12);
}

TEST(Reference, GroupedQueryHeadsShareKVHeads) {
  // Hq = 4, Hkv = 2: heads 0, 1 read kv head 0; heads 2, 3 read kv head 1.
  Problem p;
  p.headsQ = 4;
  p.headsKV = 2;
  p.headDim = 1;
  p.headDimV = 1;
  std::vector<double> q = {1, 1, 1, 1}, k = {0, 0}, v = {10, 20};
  std::vector<double> o, lse;
  referenceAttention(p, q, k, v, o, lse);
  EXPECT_EQ(o, (std::vector<double>{10, 10, 20, 20}));
}

/// The float64 gradients against central differences of the forward: with
/// the loss L = Σ dO∘O, dL/dx ≈ (L(x + h) − L(x − h)) / 2h for every
/// element x of Q, K and V (causal, GQA 4:2, Nq != Nk so that some rows see
/// no key, a given scale). The backward's checks trust this reference, so it
/// is checked against the forward's own definition, not against itself.
TEST(Reference, GradientsMatchFiniteDifferences) {
  Problem p;
  p.dtype = DType::F32;
  p.batch = 1;
  p.headsQ = 4;
  p.headsKV = 2;
  p.seqQ = 5;
  p.seqK = 4;
  p.headDim = 3;
  p.headDimV = 2;
  p.causal = true;
  p.scale = 0.7;
  std::vector<double> q, k, v, dO;
  std::vector<uint8_t> storage;
  fillRandom(DType::F32, 11, p.numQ(), q, storage);
  fillRandom(DType::F32, 12, p.numK(), k, storage);
  fillRandom(DType::F32, 13, p.numV(), v, storage);
  fillRandom(DType::F32, 14, p.numO(), dO, storage);
  auto loss = [&]() {
    std::vector<double> o, lse;
    referenceAttention(p, q, k, v, o, lse);
    double l = 0;
    for (size_t i = 0; i < o.size(); ++i)
      l += dO[i] * o[i];
    return l;
  };
  std::vector<double> dq, dk, dv;
  referenceAttentionGrad(p, q, k, v, dO, dq, dk, dv);
  const double h = 1e-6;
  auto numeric = [&](std::vector<double> &x, size_t i) {
    double keep = x[i];
    x[i] = keep + h;
    double up = loss();
    x[i] = keep - h;
    double down = loss();
    x[i] = keep;
    return (up - down) / (2 * h);
  };
  for (auto [x, grad] :
       {std::pair{&q, &dq}, std::pair{&k, &dk}, std::pair{&v, &dv}}) {
    ASSERT_EQ(x->size(), grad->size());
    for (size_t i = 0; i < x->size(); ++i)
      EXPECT_NEAR((*grad)[i], numeric(*x, i), 1e-6) << "element " << i;
  }
  // Query row 0 of each head sees no key (causal with Nq > Nk): dQ = 0.
  for (int64_t hIdx = 0; hIdx < p.headsQ; ++hIdx)
    for (int64_t d = 0; d < p.headDim; ++d)
      EXPECT_EQ(dq[size_t(hIdx * p.seqQ * p.headDim + d)], 0.0);
}

// The terms' sizes bound the gradients (|Σ t| <= Σ |t|) and are the same
// computation with every sign dropped: a row that sees one key has dQ = 0
// but terms of the size P·(|dP| + |Δ|)·|K| = 2·|dO·V|·|K|·scale.
TEST(ReferenceAttentionGrad, TermSizesBoundTheGradients) {
  Problem p;
  p.batch = 1;
  p.headsQ = p.headsKV = 1;
  p.seqQ = p.seqK = 5;
  p.headDim = 4;
  p.headDimV = 3;
  p.causal = true;
  p.scale = 0.5;
  std::vector<double> q, k, v, dO;
  std::vector<uint8_t> storage;
  fillRandom(DType::F32, 21, p.numQ(), q, storage);
  fillRandom(DType::F32, 22, p.numK(), k, storage);
  fillRandom(DType::F32, 23, p.numV(), v, storage);
  fillRandom(DType::F32, 24, p.numO(), dO, storage);
  std::vector<double> dq, dk, dv, termsDq, termsDk;
  referenceAttentionGrad(p, q, k, v, dO, dq, dk, dv, &termsDq, &termsDk);
  ASSERT_EQ(termsDq.size(), dq.size());
  ASSERT_EQ(termsDk.size(), dk.size());
  for (size_t i = 0; i < dq.size(); ++i)
    EXPECT_LE(std::fabs(dq[i]), termsDq[i] * (1 + 1e-12)) << "dQ " << i;
  for (size_t i = 0; i < dk.size(); ++i)
    EXPECT_LE(std::fabs(dk[i]), termsDk[i] * (1 + 1e-12)) << "dK " << i;
  // Row 0 sees key 0 only: P = 1, O = V_0, dP = Δ = dO_0·V_0.
  double dov = 0, doAbsV = 0;
  for (int64_t c = 0; c < p.headDimV; ++c) {
    dov += dO[size_t(c)] * v[size_t(c)];
    doAbsV += std::fabs(dO[size_t(c)] * v[size_t(c)]);
  }
  for (int64_t d = 0; d < p.headDim; ++d) {
    EXPECT_NEAR(dq[size_t(d)], 0.0, 1e-15);
    EXPECT_NEAR(termsDq[size_t(d)],
                (std::fabs(dov) + doAbsV) * 0.5 * std::fabs(k[size_t(d)]),
                1e-12);
  }
}

TEST(Compare, NaNNeverPassesAndInfinitiesMustMatch) {
  ErrorStats e = compare({1, NAN, -kInf, kInf}, {1, 2, -kInf, -kInf});
  EXPECT_EQ(e.nonFinite, 2u); // the NaN, and +inf against -inf
  EXPECT_EQ(e.maxAbs, 0.0);
  ErrorStats short_ = compare({1}, {1, 2});
  EXPECT_EQ(short_.nonFinite, 1u); // a missing element counts as NaN
  ErrorStats rel = compare({1.1, 2.0}, {1.0, 2.0});
  EXPECT_NEAR(rel.relative, 0.1 / std::sqrt(5.0), 1e-12);
}

TEST(Problem, ValidateNamesTheRule) {
  Problem p;
  EXPECT_EQ(p.validate(), "");
  p.headsQ = 3;
  p.headsKV = 2;
  EXPECT_NE(p.validate().find("multiple of kv-heads"), std::string::npos);
  p.headsKV = 3;
  p.seqK = 0;
  EXPECT_NE(p.validate().find("seq-k must be >= 1"), std::string::npos);
  p.seqK = 1;
  p.seqQ = int64_t(1) << 40;
  EXPECT_NE(p.validate().find("too large"), std::string::npos);
}

TEST(Random, FreshDrawsAreRoundedAndNonZero) {
  std::vector<double> a, b;
  std::vector<uint8_t> sa, sb;
  fillRandom(DType::BF16, 1, 1000, a, sa);
  fillRandom(DType::BF16, 2, 1000, b, sb);
  EXPECT_NE(a, b);
  size_t zeros = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    zeros += a[i] == 0;
    // The double copy is exactly the stored bf16 value.
    EXPECT_EQ(a[i], decode(DType::BF16, &sa[2 * i], 1)[0]);
  }
  EXPECT_LT(zeros, 5u);
  std::vector<uint8_t> poison;
  fillNaN(DType::F16, 4, poison);
  for (double x : decode(DType::F16, poison.data(), 4))
    EXPECT_TRUE(std::isnan(x));
}
} // namespace
