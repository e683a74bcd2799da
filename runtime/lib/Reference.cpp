//===- Reference.cpp - float64 reference attention --------------*- C++ -*-===//
#include "attn/runtime/Reference.h"
#include "attn/runtime/Philox.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace attn {

const char *dtypeName(DType t) {
  switch (t) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::E4M3:
    return "e4m3";
  }
  return "?";
}

bool parseDType(const std::string &name, DType &out) {
  if (name == "f32")
    out = DType::F32;
  else if (name == "f16")
    out = DType::F16;
  else if (name == "bf16")
    out = DType::BF16;
  else if (name == "e4m3")
    out = DType::E4M3;
  else
    return false;
  return true;
}

size_t dtypeSize(DType t) {
  return t == DType::F32 ? 4 : t == DType::E4M3 ? 1 : 2;
}

DType outputDType(DType t) { return t == DType::E4M3 ? DType::BF16 : t; }

bool valueTransposed(DType t) { return t == DType::E4M3; }

float e4m3ToFloat(uint8_t x) {
  // s eeee mmm, bias 7: 0 and subnormals m·2^-9, normals (8 + m)·2^(e-10),
  // s 1111 111 NaN (no infinities).
  int e = (x >> 3) & 15, m = x & 7;
  float sign = (x & 0x80) ? -1.0f : 1.0f;
  if (e == 15 && m == 7)
    return std::numeric_limits<float>::quiet_NaN();
  if (e == 0)
    return sign * std::ldexp(float(m), -9);
  return sign * std::ldexp(float(8 + m), e - 10);
}

uint8_t floatToE4m3(float f) {
  if (std::isnan(f))
    return 0x7F;
  uint8_t sign = std::signbit(f) ? 0x80 : 0;
  double a = std::fabs(double(f));
  if (a >= 448.0)
    return sign | 0x7E; // satfinite: ±448
  // The nearest of the 127 finite magnitudes, ties to the even code: the
  // codes are monotonic in their value.
  int lo = 0, hi = 0x7E;
  while (lo < hi) { // first code with value >= a
    int mid = (lo + hi) / 2;
    if (double(e4m3ToFloat(uint8_t(mid))) < a)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return sign;
  double above = e4m3ToFloat(uint8_t(lo)), below = e4m3ToFloat(uint8_t(lo - 1));
  int code = (a - below < above - a)   ? lo - 1
             : (a - below > above - a) ? lo
             : ((lo - 1) % 2 == 0)     ? lo - 1
                                       : lo;
  return sign | uint8_t(code);
}

static uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

float bf16ToFloat(uint16_t h) { return floatOf(uint32_t(h) << 16); }

uint16_t floatToBf16(float f) {
  uint32_t u = bitsOf(f);
  if (std::isnan(f))
    return uint16_t((u >> 16) | 0x40); // keep sign, force a quiet NaN
  // Round to nearest even on the 16 dropped bits.
  uint32_t rounding = 0x7FFF + ((u >> 16) & 1);
  return uint16_t((u + rounding) >> 16);
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  if (exp == 0x1F) // inf or NaN
    return floatOf(sign | 0x7F800000 | (mant << 13));
  if (exp == 0) { // zero or subnormal: mant · 2^-24
    float v = std::ldexp(float(mant), -24);
    return sign ? -v : v;
  }
  return floatOf(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t floatToHalf(float f) {
  uint32_t u = bitsOf(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000);
  if (std::isnan(f))
    return sign | 0x7E00;
  float a = std::fabs(f);
  if (a >= 65520.0f) // rounds to infinity
    return sign | 0x7C00;
  if (a < std::ldexp(1.0f, -14)) {
    // Subnormal: a multiple of 2^-24, nearbyint rounds half to even.
    float m = std::nearbyint(std::ldexp(a, 24));
    return sign | uint16_t(m);
  }
  // Normal: round the 23-bit mantissa to 10 bits, nearest even; a carry
  // into the exponent is the correct result.
  uint32_t abs = u & 0x7FFFFFFF;
  uint32_t rounded = abs + 0xFFF + ((abs >> 13) & 1);
  return sign | uint16_t(((rounded >> 13) - (112u << 10)));
}

bool isValidSoftcap(double c) {
  return std::isfinite(c) && c >= double(std::numeric_limits<float>::min()) &&
         c <= double(std::numeric_limits<float>::max());
}

KeyRange visibleKeys(int64_t i, int64_t nq, int64_t nk, bool causal,
                     int64_t windowLeft, int64_t windowRight) {
  const int64_t a = i + (nk - nq);
  const int64_t right = causal ? 0 : windowRight;
  KeyRange r;
  r.end = right >= 0 ? std::min(nk, std::max<int64_t>(a + right + 1, 0)) : nk;
  r.first = windowLeft >= 0 ? std::max<int64_t>(a - windowLeft, 0) : 0;
  return r;
}

double ProblemShape::effectiveScale() const {
  return scale != 0 ? scale : 1.0 / std::sqrt(double(headDim));
}

std::string Problem::validate() const {
  struct {
    const char *name;
    int64_t v;
  } dims[] = {{"batch", batch},        {"heads", headsQ}, {"kv-heads", headsKV},
              {"seq-q", seqQ},         {"seq-k", seqK},   {"head-dim", headDim},
              {"head-dim-v", headDimV}};
  for (auto &d : dims)
    if (d.v < 1)
      return std::string(d.name) + " must be >= 1, got " + std::to_string(d.v);
  if (headsQ % headsKV)
    return "heads (" + std::to_string(headsQ) +
           ") must be a multiple of kv-heads (" + std::to_string(headsKV) + ")";
  if (!(effectiveScale() > 0) || !std::isfinite(effectiveScale()))
    return "scale must be positive and finite";
  for (double d : {qDescale, kDescale, vDescale})
    if (!(d > 0) || !std::isfinite(d))
      return "descale factors must be positive and finite";
  if (dtype != DType::E4M3 && (qDescale != 1 || kDescale != 1 || vDescale != 1))
    return "descale factors are for e4m3 problems only";
  if (bias) {
    if ((biasBatch != 1 && biasBatch != batch) ||
        (biasHeads != 1 && biasHeads != headsQ))
      return "bias: [" + std::to_string(biasBatch) + ", " +
             std::to_string(biasHeads) + "] must be [1|batch, 1|heads]";
    if (!varlenQ.empty() || !kvLens.empty() || dtype == DType::E4M3)
      return "bias: dense 16- or 32-bit problems only";
    if (biasValues.size() != size_t(biasBatch * biasHeads * seqQ * seqK))
      return "bias: " + std::to_string(biasValues.size()) + " values for [" +
             std::to_string(biasBatch) + ", " + std::to_string(biasHeads) +
             ", seq-q, seq-k]";
  }
  if (alibi && int64_t(alibiSlopes.size()) != headsQ)
    return "alibi: " + std::to_string(alibiSlopes.size()) + " slopes for " +
           std::to_string(headsQ) + " query heads";
  if (!varlenQ.empty() || !varlenK.empty()) {
    if (varlenQ.size() != varlenK.size())
      return "varlen: " + std::to_string(varlenQ.size()) +
             " query lengths but " + std::to_string(varlenK.size()) +
             " key lengths";
    if (batch != 1 || !kvLens.empty())
      return "varlen: the sequences are packed in one batch (batch 1, no "
             "kv-lens)";
    int64_t tq = 0, tk = 0;
    for (size_t s = 0; s < varlenQ.size(); ++s) {
      if (varlenQ[s] < 0 || varlenK[s] < 0)
        return "varlen: sequence " + std::to_string(s) +
               " has a negative length";
      tq += varlenQ[s];
      tk += varlenK[s];
    }
    if (tq != seqQ || tk != seqK)
      return "varlen: the lengths add up to " + std::to_string(tq) +
             " queries and " + std::to_string(tk) + " keys, not seq-q " +
             std::to_string(seqQ) + " and seq-k " + std::to_string(seqK);
  }
  if (!kvLens.empty()) {
    if (int64_t(kvLens.size()) != batch)
      return "kv-lens has " + std::to_string(kvLens.size()) +
             " entries, expected one per sequence (batch " +
             std::to_string(batch) + ")";
    for (size_t b = 0; b < kvLens.size(); ++b)
      if (kvLens[b] < 0 || kvLens[b] > seqK)
        return "kv-lens[" + std::to_string(b) +
               "] = " + std::to_string(kvLens[b]) +
               " is outside [0, seq-k = " + std::to_string(seqK) + "]";
  }
  // Keep every tensor addressable with 32-bit element offsets.
  const double limit = double(std::numeric_limits<int32_t>::max());
  for (double n :
       {double(batch) * headsQ * seqQ * std::max(headDim, headDimV),
        double(batch) * headsKV * seqK * std::max(headDim, headDimV)})
    if (n > limit)
      return "problem too large: a tensor would exceed 2^31-1 elements";
  return "";
}

/// Dropout's factor for score (i, j) of program stream `stream`: 1/(1 − p)
/// where the op's Philox mask keeps it, else 0; 1 without dropout.
static double dropoutFactor(const Problem &p, uint32_t stream, int64_t i,
                            int64_t j) {
  if (!p.dropout)
    return 1.0;
  bool keep = dropoutValue(p.dropoutSeed, stream, p.dropoutOffset, i, j) >=
              dropoutThreshold(p.dropoutRate);
  return keep ? double(dropoutScale(p.dropoutRate)) : 0.0;
}

/// The forward's modified score S' of the scaled score x of query i and
/// key j (sequence b of nq queries and nk keys, head h): the soft-cap, the
/// bias, then ALiBi's − slope[h]·|i + Nk − Nq − j| (in the sequence's lengths),
/// then the score_mod. With `grad`, also ∂S'/∂x: the soft-cap's 1 − tanh², the
/// bias's and ALiBi's 1, and the score_mod's by a central difference in float64
/// (step 2^-20·max(1, |y|): truncation and rounding both ~1e-10 relative,
/// far below any dtype's tolerance; 0 where the modifier hides the key).
static double modifiedScore(const Problem &p, double x, int64_t b, int64_t h,
                            int64_t i, int64_t j, int64_t nq, int64_t nk,
                            double *grad = nullptr) {
  double g = 1;
  if (p.softcap > 0) {
    double t = std::tanh(x / p.softcap);
    x = p.softcap * t;
    g = 1 - t * t;
  }
  if (p.bias)
    x += p.biasAt(b, h, i, j);
  if (p.alibi)
    x -= p.alibiSlopes[size_t(h)] * double(std::llabs(i + nk - nq - j));
  if (!p.scoreMod) {
    if (grad)
      *grad = g;
    return x;
  }
  double y = p.scoreMod(x, b, h, i, j);
  if (grad) {
    double step = std::ldexp(std::max(1.0, std::fabs(x)), -20);
    double d =
        (p.scoreMod(x + step, b, h, i, j) - p.scoreMod(x - step, b, h, i, j)) /
        (2 * step);
    *grad = std::isfinite(y) && std::isfinite(d) ? g * d : 0.0;
  }
  return y;
}

void referenceAttention(const Problem &p, const std::vector<double> &q,
                        const std::vector<double> &k,
                        const std::vector<double> &v, std::vector<double> &o,
                        std::vector<double> &lse) {
  const int64_t D = p.headDim, Dv = p.headDimV, Nq = p.seqQ, cap = p.seqK;
  const int64_t group = p.headsQ / p.headsKV;
  // fp8: S = scale·(qd·Q)·(kd·K)ᵀ and O = P·(vd·V) on the codes' values.
  const double scale = p.effectiveScale() * p.qDescale * p.kDescale;
  o.assign(p.numO(), 0.0);
  lse.assign(p.numLse(), 0.0);
  std::vector<double> s(static_cast<size_t>(cap));
  // The sequences: batch b of the tensors, from query row q0 (nq rows) and
  // key row k0 (nk keys); packed ones share batch 0.
  struct Seq {
    int64_t b, q0, nq, k0, nk, index;
  };
  std::vector<Seq> seqs;
  if (!p.varlenQ.empty()) {
    int64_t q0 = 0, k0 = 0;
    for (size_t i = 0; i < p.varlenQ.size(); ++i) {
      seqs.push_back({0, q0, p.varlenQ[i], k0, p.varlenK[i], int64_t(i)});
      q0 += p.varlenQ[i];
      k0 += p.varlenK[i];
    }
  } else {
    for (int64_t b = 0; b < p.batch; ++b)
      seqs.push_back({b, 0, Nq, 0, p.keysOf(b), b});
  }
  for (const Seq &sq : seqs)
    for (int64_t h = 0; h < p.headsQ; ++h) {
      const int64_t b = sq.b, hk = h / group, Nk = sq.nk;
      const double *kb = &k[size_t(((b * p.headsKV + hk) * cap + sq.k0) * D)];
      const double *vb = &v[size_t(((b * p.headsKV + hk) * cap + sq.k0) * Dv)];
      for (int64_t i = 0; i < sq.nq; ++i) {
        const int64_t row = (b * p.headsQ + h) * Nq + sq.q0 + i;
        const double *qi = &q[size_t(row * D)];
        double *oi = &o[size_t(row * Dv)];
        double &li = lse[size_t(row)];
        const KeyRange keys =
            visibleKeys(i, sq.nq, Nk, p.causal, p.windowLeft, p.windowRight);
        const int64_t first = keys.first, visible = keys.end;
        if (visible <= first) {
          li = -std::numeric_limits<double>::infinity();
          continue;
        }
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t j = first; j < visible; ++j) {
          double acc = 0;
          for (int64_t d = 0; d < D; ++d)
            acc += qi[d] * kb[j * D + d];
          s[size_t(j)] =
              modifiedScore(p, acc * scale, sq.index, h, i, j, sq.nq, Nk);
          m = std::max(m, s[size_t(j)]);
        }
        // A score_mod may hide every key of the row (-inf scores): O = 0
        // and LSE = -inf, as for a row the mask hides.
        if (m == -std::numeric_limits<double>::infinity()) {
          li = m;
          continue;
        }
        double sum = 0;
        for (int64_t j = first; j < visible; ++j) {
          s[size_t(j)] = std::exp(s[size_t(j)] - m);
          sum += s[size_t(j)];
        }
        for (int64_t j = first; j < visible; ++j) {
          double pj = s[size_t(j)] / sum;
          if (p.dropout)
            pj *= dropoutFactor(p, uint32_t(sq.index * p.headsQ + h), i, j);
          for (int64_t d = 0; d < Dv; ++d)
            oi[d] += pj * p.vDescale * vb[j * Dv + d];
        }
        li = m + std::log(sum);
      }
    }
}

void referenceAttentionGrad(const Problem &p, const std::vector<double> &q,
                            const std::vector<double> &k,
                            const std::vector<double> &v,
                            const std::vector<double> &dO,
                            std::vector<double> &dq, std::vector<double> &dk,
                            std::vector<double> &dv,
                            std::vector<double> *dqMagnitude,
                            std::vector<double> *dkMagnitude) {
  const int64_t D = p.headDim, Dv = p.headDimV, Nq = p.seqQ, Nk = p.seqK;
  const int64_t group = p.headsQ / p.headsKV;
  const double scale = p.effectiveScale();
  dq.assign(p.numQ(), 0.0);
  dk.assign(p.numK(), 0.0);
  dv.assign(p.numV(), 0.0);
  if (dqMagnitude)
    dqMagnitude->assign(p.numQ(), 0.0);
  if (dkMagnitude)
    dkMagnitude->assign(p.numK(), 0.0);
  std::vector<double> prob(static_cast<size_t>(Nk)),
      dp(static_cast<size_t>(Nk)), zf(static_cast<size_t>(Nk)),
      grad(static_cast<size_t>(Nk));
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.headsQ; ++h) {
      const size_t kvRow0 = size_t((b * p.headsKV + h / group) * Nk);
      for (int64_t i = 0; i < Nq; ++i) {
        const size_t row = size_t((b * p.headsQ + h) * Nq + i);
        const double *qi = &q[row * D], *doi = &dO[row * Dv];
        const KeyRange keys =
            visibleKeys(i, Nq, Nk, p.causal, p.windowLeft, p.windowRight);
        if (keys.end <= keys.first)
          continue;
        // P_ij = exp(S'_ij − max) / Σ, dP_ij = dO_i·V_j, with the
        // forward's modifiers S' = mod(x), x = scale·Q_i·K_j, and
        // g_ij = ∂S'_ij/∂x (scoreModDerivative).
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t j = keys.first; j < keys.end; ++j) {
          const double *kj = &k[(kvRow0 + size_t(j)) * size_t(D)];
          double acc = 0;
          for (int64_t d = 0; d < D; ++d)
            acc += qi[d] * kj[d];
          double g = 1;
          prob[size_t(j)] =
              modifiedScore(p, acc * scale, b, h, i, j, Nq, Nk, &g);
          grad[size_t(j)] = g;
          m = std::max(m, prob[size_t(j)]);
        }
        // Every key hidden by a score_mod (-inf): no gradient, as for a
        // row the mask hides.
        if (m == -std::numeric_limits<double>::infinity())
          continue;
        double sum = 0;
        for (int64_t j = keys.first; j < keys.end; ++j) {
          prob[size_t(j)] = std::exp(prob[size_t(j)] - m);
          sum += prob[size_t(j)];
        }
        // Dropout's factor z_ij: 1/(1 − p) where the forward kept the score,
        // 0 where it dropped it (1 without dropout). O = Σ_j P_ij·z_ij·V_j,
        // so the loss sees z_ij·dP_ij: dP'_ij = z_ij·(dO_i·V_j).
        // Δ_i = Σ_j P_ij·dP'_ij (= dO_i·O_i).
        const uint32_t stream = uint32_t(b * p.headsQ + h);
        double delta = 0;
        for (int64_t j = keys.first; j < keys.end; ++j) {
          prob[size_t(j)] /= sum;
          const double *vj = &v[(kvRow0 + size_t(j)) * size_t(Dv)];
          double acc = 0;
          for (int64_t c = 0; c < Dv; ++c)
            acc += doi[c] * vj[c];
          zf[size_t(j)] = dropoutFactor(p, stream, i, j);
          dp[size_t(j)] = zf[size_t(j)] * acc;
          delta += prob[size_t(j)] * dp[size_t(j)];
        }
        // |Δ|_i = Σ_c |dO_ic·O_ic|: the size of the terms Δ sums, which is
        // what rounding O (or Δ) to a narrow type errs in proportion to.
        double deltaTerms = 0;
        if (dqMagnitude || dkMagnitude) {
          for (int64_t c = 0; c < Dv; ++c) {
            double oc = 0;
            for (int64_t j = keys.first; j < keys.end; ++j)
              oc += prob[size_t(j)] * zf[size_t(j)] *
                    v[(kvRow0 + size_t(j)) * size_t(Dv) + c];
            deltaTerms += std::fabs(doi[c] * oc);
          }
        }
        double *dqi = &dq[row * D];
        for (int64_t j = keys.first; j < keys.end; ++j) {
          const size_t kvRow = kvRow0 + size_t(j);
          // dS_ij = P_ij·(dP'_ij − Δ_i); dQ_i += scale·dS_ij·K_j,
          // dK_j += scale·dS_ij·Q_i, dV_j += P_ij·z_ij·dO_i.
          const double pij = prob[size_t(j)];
          const double gij = grad[size_t(j)];
          const double ds = pij * (dp[size_t(j)] - delta) * scale * gij;
          const double *kj = &k[kvRow * size_t(D)];
          double *dkj = &dk[kvRow * size_t(D)];
          for (int64_t d = 0; d < D; ++d) {
            dqi[d] += ds * kj[d];
            dkj[d] += ds * qi[d];
          }
          double *dvj = &dv[kvRow * size_t(Dv)];
          const double pz = pij * zf[size_t(j)];
          for (int64_t c = 0; c < Dv; ++c)
            dvj[c] += pz * doi[c];
          // The same sums over the terms' sizes:
          // |dS|_ij = P_ij·(|dP_ij| + |Δ|_i)·scale.
          const double dsTerms = pij * (std::fabs(dp[size_t(j)]) + deltaTerms) *
                                 std::fabs(scale * gij);
          for (int64_t d = 0; dqMagnitude && d < D; ++d)
            (*dqMagnitude)[row * size_t(D) + size_t(d)] +=
                dsTerms * std::fabs(kj[d]);
          for (int64_t d = 0; dkMagnitude && d < D; ++d)
            (*dkMagnitude)[kvRow * size_t(D) + size_t(d)] +=
                dsTerms * std::fabs(qi[d]);
        }
      }
    }
}

ErrorStats compare(const std::vector<double> &got,
                   const std::vector<double> &want) {
  ErrorStats e;
  e.count = want.size();
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g =
        i < got.size() ? got[i] : std::numeric_limits<double>::quiet_NaN();
    double w = want[i];
    if (std::isnan(g) || std::isinf(g) || std::isinf(w)) {
      // Infinities must match exactly (e.g. LSE = -inf); NaN never passes.
      if (!(std::isinf(g) && std::isinf(w) && (g > 0) == (w > 0)))
        ++e.nonFinite;
      continue;
    }
    double diff = std::fabs(g - w);
    e.maxAbs = std::max(e.maxAbs, diff);
    num += diff * diff;
    den += w * w;
  }
  e.relative = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return e;
}

double tolerance(DType t) {
  // fp8: P rounded to e4m3 (3 mantissa bits, as FlashAttention-3 does) is
  // the error that remains against inputs dequantised exactly.
  return t == DType::F32 ? 1e-5 : t == DType::E4M3 ? 6e-2 : 1e-2;
}

static void encodeOne(DType t, double x, uint8_t *dst) {
  if (t == DType::E4M3) {
    *dst = floatToE4m3(float(x));
  } else if (t == DType::F32) {
    float f = float(x);
    std::memcpy(dst, &f, 4);
  } else {
    uint16_t h =
        t == DType::F16 ? floatToHalf(float(x)) : floatToBf16(float(x));
    std::memcpy(dst, &h, 2);
  }
}

static double decodeOne(DType t, const uint8_t *src) {
  if (t == DType::E4M3)
    return e4m3ToFloat(*src);
  if (t == DType::F32) {
    float f;
    std::memcpy(&f, src, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, src, 2);
  return t == DType::F16 ? halfToFloat(h) : bf16ToFloat(h);
}

std::vector<double> decode(DType t, const uint8_t *storage, size_t n) {
  std::vector<double> out(n);
  size_t es = dtypeSize(t);
  for (size_t i = 0; i < n; ++i)
    out[i] = decodeOne(t, storage + i * es);
  return out;
}

std::vector<uint8_t> encode(DType t, const std::vector<double> &values) {
  size_t es = dtypeSize(t);
  std::vector<uint8_t> storage(values.size() * es);
  for (size_t i = 0; i < values.size(); ++i)
    encodeOne(t, values[i], &storage[i * es]);
  return storage;
}

void fillRandom(DType t, uint64_t seed, size_t n, std::vector<double> &values,
                std::vector<uint8_t> &storage) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> dist(0.0, 1.0);
  size_t es = dtypeSize(t);
  values.resize(n);
  storage.assign(n * es, 0);
  for (size_t i = 0; i < n; ++i) {
    encodeOne(t, dist(rng), &storage[i * es]);
    // The reference sees exactly the rounded value the kernel reads.
    values[i] = decodeOne(t, &storage[i * es]);
  }
}

void fillRandomE4m3(uint64_t seed, size_t n, double sigma,
                    std::vector<double> &values, std::vector<uint8_t> &codes,
                    double &descale) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> dist(0.0, sigma);
  std::vector<double> x(n);
  double amax = 0;
  for (double &xi : x) {
    xi = dist(rng);
    amax = std::max(amax, std::fabs(xi));
  }
  // The descale the kernel takes is an f32: quantise with that value.
  descale = double(float(amax > 0 ? amax / 448.0 : 1.0));
  values.resize(n);
  codes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    codes[i] = floatToE4m3(float(x[i] / descale));
    values[i] = e4m3ToFloat(codes[i]);
  }
}

std::vector<uint8_t> transposeValuesE4m3(const std::vector<uint8_t> &codes,
                                         int64_t outer, int64_t nk, int64_t dv,
                                         int64_t &rowKeys) {
  rowKeys = (nk + 15) / 16 * 16;
  std::vector<uint8_t> out(size_t(outer * dv * rowKeys), 0x7F);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < nk; ++j)
      for (int64_t c = 0; c < dv; ++c)
        out[size_t((o * dv + c) * rowKeys + j)] =
            codes[size_t((o * nk + j) * dv + c)];
  return out;
}

void fillNaN(DType t, size_t n, std::vector<uint8_t> &storage) {
  size_t es = dtypeSize(t);
  storage.assign(n * es, 0);
  for (size_t i = 0; i < n; ++i)
    encodeOne(t, std::numeric_limits<double>::quiet_NaN(), &storage[i * es]);
}

} // namespace attn
