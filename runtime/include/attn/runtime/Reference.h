//===- Reference.h - float64 reference attention ----------------*- C++ -*-===//
//
// Host-side helpers every attn driver shares: f16/bf16 conversions, the
// naive float64 attention that results are checked against, and the error
// metrics. No MLIR, no CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_RUNTIME_REFERENCE_H
#define ATTN_RUNTIME_REFERENCE_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attn {

/// E4M3: fp8 (f8E4M3FN, FlashAttention-3's e4m3: no infinities, one NaN
/// pattern per sign, largest finite 448). A problem of e4m3 has fp8 Q, K
/// and V, V stored transposed (valueTransposed) and a bf16 O
/// (outputDType): FlashAttention-3's fp8 forward, on sm_90a.
enum class DType { F32, F16, BF16, E4M3 };

/// "f32", "f16", "bf16", "e4m3".
const char *dtypeName(DType t);
/// Parses a dtype name; false if unknown.
bool parseDType(const std::string &name, DType &out);
/// Bytes per element.
size_t dtypeSize(DType t);
/// The dtype of O (and of the reference's output rounding) for inputs of
/// `t`: bf16 for e4m3 (FlashAttention-3's fp8 output), else `t`.
DType outputDType(DType t);
/// Whether V of a problem of dtype `t` is stored transposed, keys
/// contiguous: e4m3 (the fp8 P·V product reads V k-major, 128 keys of one
/// value column per 128-byte row). Its Strides then describe the same
/// element (b, h, key j, column c) at b·batch + h·head + j·seq + c·dim with
/// seq = 1; contiguous is [B, Hkv, Dv, Nk] (dim = Nk).
bool valueTransposed(DType t);

/// f8E4M3FN conversions: round to nearest even, saturating to ±448
/// (satfinite, as the GPU's cvt.rn.satfinite); NaN stays NaN.
float e4m3ToFloat(uint8_t x);
uint8_t floatToE4m3(float f);

/// IEEE binary16 and bfloat16 conversions, round to nearest even.
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t h);
uint16_t floatToBf16(float f);

/// What defines one attention problem at every layer: Q [B, Hq, Nq, D],
/// K [B, Hkv, Nk, D], V [B, Hkv, Nk, Dv] -> O [B, Hq, Nq, Dv] (and LSE
/// [B, Hq, Nq]). The runtime's ForwardProblem (strides, KV cache) and the
/// reference's Problem (host-side extras) extend it; one becomes the other
/// by assigning this part (`ref.shape() = forward;`), never field by field.
struct ProblemShape {
  DType dtype = DType::BF16;
  int64_t batch = 1, headsQ = 1, headsKV = 1, seqQ = 1, seqK = 1;
  int64_t headDim = 64, headDimV = 64;
  bool causal = false;
  double scale = 0; ///< 0: 1/sqrt(headDim)
  /// A sliding window (attn.attention's window_left / window_right): query
  /// i sees key j only if i + (Nk - Nq) - windowLeft <= j <= i + (Nk - Nq) +
  /// windowRight. -1: no bound (causal is windowRight = 0).
  int64_t windowLeft = -1, windowRight = -1;
  /// A soft-cap (attn.attention's softcap, Gemma 2's): every scaled score S
  /// becomes softcap·tanh(S / softcap) before the mask. 0: none. Kernels
  /// are built for its f32 value.
  double softcap = 0;
  /// fp8 (E4M3) only: the per-tensor factors that dequantise Q, K and V
  /// (FlashAttention-3's q/k/v_descale): the kernel computes
  /// softmax(scale·qd·kd·Q·Kᵀ)·V·vd from the e4m3 codes. 1 for other
  /// dtypes.
  double qDescale = 1, kDescale = 1, vDescale = 1;
  /// ALiBi (attn.attention's alibi, FlashAttention's alibi_slopes): every
  /// scaled score S becomes S − slope[h]·|i + Nk − Nq − j| with one f32
  /// slope per query head (the runtime's ForwardProblem::alibiSlopes, the
  /// reference's Problem::alibiSlopes). Kernels are built with or without
  /// it; the slopes are a run-time argument.
  bool alibi = false;
  /// An additive score bias (attn.attention's bias, SDPA's float
  /// attn_mask, T5's relative positions): every scaled score S becomes
  /// S + bias[b', h', i, j] after the soft-cap and before ALiBi and the
  /// mask (-inf hides the key), bias [1|B, 1|Hq, Nq, Nk] of `biasType`
  /// (f32, or the inputs' dtype; b' = 0 where its batch is 1, h' likewise).
  /// Kernels are built with or without it, for one biasType; the tensor
  /// is a run-time argument (the runtime's ForwardProblem::bias, the
  /// reference's Problem::biasValues).
  bool bias = false;
  DType biasType = DType::F32;
  /// Attention dropout (attn.attention's dropout(p, seed, offset),
  /// FlashAttention's dropout_p): the probability P[i, j] of sequence b,
  /// query head h counts as P·dropoutScale(rate) where
  /// dropoutValue(seed, b·Hq + h, offset, i, j) >= dropoutThreshold(rate),
  /// else 0 (attn/runtime/Philox.h); the LSE is the undropped one. Kernels
  /// are built with or without it; rate (in [0, 1)), seed and offset are
  /// run-time arguments.
  bool dropout = false;
  float dropoutRate = 0;
  uint64_t dropoutSeed = 0;
  uint32_t dropoutOffset = 0;

  /// scale, or 1/sqrt(headDim) when it is 0.
  double effectiveScale() const;
  bool hasWindow() const { return windowLeft != -1 || windowRight != -1; }
  ProblemShape &shape() { return *this; }
  const ProblemShape &shape() const { return *this; }
};

/// Whether `c` is a soft-cap a kernel can take: a normal, finite f32 (its
/// reciprocal, which the kernel multiplies by, stays finite). The one rule
/// for the op's verifier, the manifest and the runtime.
bool isValidSoftcap(double c);

/// The keys [first, end) of [0, nk) that query row i of nq sees: with
/// a = i + (nk - nq) (bottom-right alignment), a - windowLeft <= j <=
/// a + windowRight, causal meaning windowRight = 0, -1 no bound. Empty
/// (end <= first) for a row that sees no key.
struct KeyRange {
  int64_t first, end;
};
KeyRange visibleKeys(int64_t i, int64_t nq, int64_t nk, bool causal,
                     int64_t windowLeft, int64_t windowRight);

/// A problem for the float64 reference: the tensors are contiguous.
struct Problem : ProblemShape {
  /// A KV cache's key count per sequence (B entries, each in [0, seqK]):
  /// sequence b sees keys [0, kvLens[b]) of its seqK, and causal alignment
  /// uses kvLens[b] for Nk. Empty: every sequence has seqK keys.
  std::vector<int64_t> kvLens;
  /// A packed batch (varlen): the tensors hold these sequences one after
  /// another along the rows, batch = 1, seqQ = Σ varlenQ, seqK = Σ varlenK;
  /// sequence s has varlenQ[s] queries and varlenK[s] keys (causal aligned
  /// in each). Empty: not packed.
  std::vector<int64_t> varlenQ, varlenK;
  /// A score modifier (attn.attention's score_mod): applied to every scaled
  /// score before the mask, the softmax then without scale, as
  /// scoreMod(s, b, h, i, j) with b the sequence (of a packed batch too), h
  /// the query head, i and j the query's and the key's positions in their
  /// sequence. Empty: none.
  std::function<double(double, int64_t, int64_t, int64_t, int64_t)> scoreMod;
  /// With `alibi`: the Hq slopes.
  std::vector<double> alibiSlopes;
  /// With `bias`: its values, [biasBatch, biasHeads, seqQ, seqK]
  /// contiguous, biasBatch 1 or batch and biasHeads 1 or headsQ (1
  /// broadcasts).
  std::vector<double> biasValues;
  int64_t biasBatch = 1, biasHeads = 1;
  /// The bias of score (i, j) of sequence b, query head h.
  double biasAt(int64_t b, int64_t h, int64_t i, int64_t j) const {
    int64_t bb = biasBatch == 1 ? 0 : b, hh = biasHeads == 1 ? 0 : h;
    return biasValues[size_t(((bb * biasHeads + hh) * seqQ + i) * seqK + j)];
  }

  /// Keys of sequence b: kvLens[b], or seqK.
  int64_t keysOf(int64_t b) const {
    return kvLens.empty() ? seqK : kvLens[size_t(b)];
  }
  size_t numQ() const { return size_t(batch * headsQ * seqQ * headDim); }
  size_t numK() const { return size_t(batch * headsKV * seqK * headDim); }
  size_t numV() const { return size_t(batch * headsKV * seqK * headDimV); }
  size_t numO() const { return size_t(batch * headsQ * seqQ * headDimV); }
  size_t numLse() const { return size_t(batch * headsQ * seqQ); }
  /// Empty if the problem is well formed, else what is wrong.
  std::string validate() const;
};

/// Naive attention in float64. Causal is bottom-right aligned: query i sees
/// key j iff j <= i + (Nk - Nq), Nk the sequence's key count (keysOf). A
/// row that sees no key gets O = 0 and LSE = -inf. The tensors are
/// [B, H, N, D] whatever the dtype (an e4m3 V as values, not transposed);
/// the descale factors apply (S = scale·qd·kd·Q·Kᵀ, O = P·V·vd).
void referenceAttention(const Problem &p, const std::vector<double> &q,
                        const std::vector<double> &k,
                        const std::vector<double> &v, std::vector<double> &o,
                        std::vector<double> &lse);

/// The gradients of referenceAttention in float64 (FlashAttention's
/// backward, computed naively): given the loss's gradient dO [B, Hq, Nq, Dv],
/// writes dQ [B, Hq, Nq, D], dK [B, Hkv, Nk, D] and dV [B, Hkv, Nk, Dv]
/// (dK and dV summed over the query heads of a group):
///   P = softmax(scale·Q·Kᵀ) over the visible keys, dP = dO·Vᵀ,
///   Δ_i = Σ_j P_ij·dP_ij, dS = P∘(dP − Δ),
///   dQ = scale·dS·K, dK = scale·dSᵀ·Q, dV = Pᵀ·dO.
/// Causal and sliding windows as in the forward; a row that sees no key
/// contributes nothing. With dropout, the forward's mask (referenceAttention's)
/// and z = 1/(1 − p) where kept, 0 where dropped: dP' = z∘dP, Δ = Σ_j P·dP',
/// dS = P∘(dP' − Δ), dV = (P∘z)ᵀ·dO. With the forward's modifiers (soft-cap,
/// ALiBi, score_mod) P comes from the modified scores S' = mod(x) of
/// x = scale·Q·Kᵀ and dS = P∘(dP' − Δ)∘∂S'/∂x: the soft-cap's 1 − tanh²,
/// ALiBi's 1, and a score_mod's by a central difference in float64 (an
/// independent check of the compiler's forward-mode derivative). Dense
/// problems only: `p` has no KV cache, packed batch or fp8 (the caller's
/// precondition).
/// `dqMagnitude` and `dkMagnitude`, when given, get dQ and dK summed over
/// the sizes of their terms, |dS|_ij = P_ij·(|dP_ij| + Σ_c|dO_ic·O_ic|):
/// each row of dS sums to 0, so dQ and dK can be far smaller than the terms
/// whose rounding (P, dS and O in a 16-bit type) makes a kernel's error.
void referenceAttentionGrad(const Problem &p, const std::vector<double> &q,
                            const std::vector<double> &k,
                            const std::vector<double> &v,
                            const std::vector<double> &dO,
                            std::vector<double> &dq, std::vector<double> &dk,
                            std::vector<double> &dv,
                            std::vector<double> *dqMagnitude = nullptr,
                            std::vector<double> *dkMagnitude = nullptr);

/// How far `got` is from `want`.
struct ErrorStats {
  double maxAbs = 0;    ///< max |got - want| over finite pairs
  double relative = 0;  ///< ||got - want||_2 / ||want||_2 (finite entries)
  size_t nonFinite = 0; ///< entries where got is NaN/inf but want is not,
                        ///< or the infinities differ
  size_t count = 0;
};
ErrorStats compare(const std::vector<double> &got,
                   const std::vector<double> &want);

/// The relative-error tolerance the checks use for a dtype: 1e-5 for f32,
/// 1e-2 for f16 and bf16.
double tolerance(DType t);

/// Fills `values` with draws from N(0, 1) rounded to `t`, and `storage`
/// with their encoding (4 bytes per f32 element, 2 per f16/bf16).
void fillRandom(DType t, uint64_t seed, size_t n, std::vector<double> &values,
                std::vector<uint8_t> &storage);

/// fp8 inputs as FlashAttention-3's users make them: `n` draws from
/// N(0, sigma²) quantised per tensor, descale = amax / 448 and codes =
/// e4m3(x / descale) (satfinite, RNE); `values` gets the codes' values (the
/// reference multiplies by descale, as the kernel does).
void fillRandomE4m3(uint64_t seed, size_t n, double sigma,
                    std::vector<double> &values, std::vector<uint8_t> &codes,
                    double &descale);

/// V as an fp8 problem takes it (valueTransposed): the e4m3 `codes` of
/// [`outer`, nk, dv] (outer = B·Hkv, contiguous) as [outer, dv, rowKeys]
/// with keys contiguous and each row padded to rowKeys = nk rounded up to
/// 16 (a tensor map's row stride is a multiple of 16 bytes); the padding
/// holds NaN codes, which a kernel that read past nk would carry into O.
/// Its strides: {Hkv·dv·rowKeys, dv·rowKeys, 1, rowKeys}.
std::vector<uint8_t> transposeValuesE4m3(const std::vector<uint8_t> &codes,
                                         int64_t outer, int64_t nk, int64_t dv,
                                         int64_t &rowKeys);

/// `values` encoded as `t` (each rounded to nearest even).
std::vector<uint8_t> encode(DType t, const std::vector<double> &values);

/// Decodes `n` elements of type `t` from `storage`.
std::vector<double> decode(DType t, const uint8_t *storage, size_t n);

/// Fills `storage` with `n` NaNs of type `t` (poison before a run).
void fillNaN(DType t, size_t n, std::vector<uint8_t> &storage);

} // namespace attn

#endif // ATTN_RUNTIME_REFERENCE_H
