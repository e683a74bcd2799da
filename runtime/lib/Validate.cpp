//===- Validate.cpp - problem and pointer checks before a launch -*- C++
//-*-===//
//
// Everything a kernel assumes and cannot check itself: 32-bit index math,
// 16-byte vector accesses, the grid limits, a kernel in the bundle for the
// problem. Pure functions: the driver-dependent checks (device memory, the
// stream's context) live in Runtime.cpp.
//
//===----------------------------------------------------------------------===//
#include "attn/runtime/Chips.h"
#include "attn/runtime/Runtime.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

namespace attn {

namespace {
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
// gridDim.y and gridDim.z are limited to 65535; heads and batch map there.
constexpr int64_t kGridYZMax = 65535;
constexpr int64_t kAlignBytes = 16;
// The most rows a kernel's tile has (the op's block sizes are at most 1024).
constexpr int64_t kMaxTileRows = 1024;

/// The most packed rows (G query heads × positions) for which a GQA
/// problem of several query rows runs on kernels that pack the heads
/// (packQueryHeads): two 64-row programs.
constexpr int64_t kMaxPackedRows = 128;

Status invalid(const std::string &msg) {
  return Status::error(StatusCode::InvalidArgument, msg);
}
Status unsupported(const std::string &msg) {
  return Status::error(StatusCode::Unsupported, "unsupported: " + msg);
}
/// What the bundle lacks but a compiler (RuntimeOptions::compiler) may
/// still build for the device.
Status notInBundle(const std::string &msg) {
  return Status::error(StatusCode::NotInBundle, "not in the bundle: " + msg);
}

std::string hex(const void *p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%" PRIxPTR,
                reinterpret_cast<uintptr_t>(p));
  return buf;
}

template <typename T> std::string joinSet(const std::set<T> &s) {
  std::ostringstream os;
  bool first = true;
  for (const T &v : s) {
    os << (first ? "" : ", ") << v;
    first = false;
  }
  return os.str();
}

struct TensorShape {
  const char *name;
  int64_t extent[4]; // batch, heads, seq, dim
  Strides strides;
  DType dtype;
  /// The dim whose stride must be 1: 3 (dim), or 2 (seq) for a V stored
  /// transposed (valueTransposed).
  int contiguous = 3;
  /// Bytes the other strides must be multiples of: 16 for tensors a kernel
  /// may copy in 16-byte pieces (or through a tensor map); an element for
  /// one it reads element by element (a score bias).
  int64_t alignBytes = kAlignBytes;
};

std::vector<TensorShape> shapesOf(const ForwardProblem &p) {
  const DType in = p.dtype, out = outputDType(p.dtype);
  return {
      {"q", {p.qBatch(), p.headsQ, p.qRows(), p.headDim}, p.stridesQ(), in},
      {"k", {p.kvBlocks(), p.headsKV, p.kvRows(), p.headDim}, p.stridesK(), in},
      {"v",
       {p.kvBlocks(), p.headsKV, p.kvRows(), p.headDimV},
       p.stridesV(),
       in,
       valueTransposed(in) ? 2 : 3},
      {"o", {p.qBatch(), p.headsQ, p.qRows(), p.headDimV}, p.stridesO(), out},
  };
}

// Products of two int32-range values overflow int64 when summed; compute
// spans in 128 bits.
using Wide = __int128;

/// Index of the last element + 1, in elements (0 if a dim is empty),
/// saturated to INT64_MAX. Negative strides count as 0 here; checkProblem
/// rejects them.
int64_t elementSpan(const TensorShape &t) {
  const int64_t s[4] = {t.strides.batch, t.strides.head, t.strides.seq,
                        t.strides.dim};
  Wide span = 1;
  for (int i = 0; i < 4; ++i) {
    if (t.extent[i] < 1)
      return 0;
    span += Wide(t.extent[i] - 1) * Wide(std::max<int64_t>(s[i], 0));
  }
  return span > Wide(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : int64_t(span);
}

Status checkStrides(const TensorShape &t) {
  static const char *dimNames[] = {"batch", "head", "seq", "dim"};
  const int64_t s[4] = {t.strides.batch, t.strides.head, t.strides.seq,
                        t.strides.dim};
  const int inner = t.contiguous;
  if (s[inner] != 1)
    return invalid(std::string(t.name) +
                   (inner == 3 ? ": the last dim must be contiguous (dim "
                                 "stride 1), got "
                               : ": keys must be contiguous in a transposed "
                                 "V (seq stride 1), got ") +
                   std::to_string(s[inner]));
  const int64_t es = int64_t(dtypeSize(t.dtype));
  const int64_t elems = std::max<int64_t>(1, t.alignBytes / es);
  for (int i = 0; i < 4; ++i) {
    // A dim of extent 1 is never stepped over: its stride does not matter
    // (PyTorch reports odd strides for such dims).
    if (i == inner || t.extent[i] == 1)
      continue;
    if (s[i] < 0)
      return invalid(std::string(t.name) + ": " + dimNames[i] + " stride " +
                     std::to_string(s[i]) + " is negative");
    // What a tensor map can describe (cuTensorMapEncodeTiled: strides
    // below 2^40 bytes), far beyond any allocation.
    if (s[i] >= (int64_t(1) << 40) / es)
      return invalid(std::string(t.name) + ": " + dimNames[i] + " stride " +
                     std::to_string(s[i]) + " is 2^40 bytes or more");
    if (s[i] % elems)
      return invalid(std::string(t.name) + ": " + dimNames[i] + " stride " +
                     std::to_string(s[i]) + " is not a multiple of " +
                     std::to_string(elems) + " elements (" +
                     std::to_string(t.alignBytes) + " bytes)");
  }
  // A kernel addresses a tile's first row in 64 bits and the elements of
  // its rows from there in 32: (rows - 1)·(row stride) + row length must
  // fit an int32 for the largest tile (kMaxTileRows rows). The rows are
  // the seq dim, or the value columns of a transposed V.
  const int rows = inner == 3 ? 2 : 3;
  if (t.extent[rows] > 1 &&
      Wide(kMaxTileRows - 1) * s[rows] + t.extent[inner] > Wide(kInt32Max))
    return unsupported(
        std::string(t.name) + ": " + dimNames[rows] + " stride " +
        std::to_string(s[rows]) +
        " is too large: the kernels "
        "address the rows of a tile with 32-bit offsets from "
        "its first (at most " +
        std::to_string((kInt32Max - t.extent[inner]) / (kMaxTileRows - 1)) +
        " elements)");
  return Status::success();
}

/// Whether distinct indices of `t` can reach the same element: sort the dims
/// by stride; each stride must step over everything the smaller dims span.
bool selfOverlaps(const TensorShape &t) {
  std::vector<std::pair<int64_t, int64_t>> dims; // (stride, extent)
  const int64_t s[4] = {t.strides.batch, t.strides.head, t.strides.seq,
                        t.strides.dim};
  for (int i = 0; i < 4; ++i)
    if (t.extent[i] > 1)
      dims.push_back({s[i], t.extent[i]});
  std::sort(dims.begin(), dims.end());
  int64_t span = 1;
  for (auto &[stride, extent] : dims) {
    if (stride < span)
      return true;
    span += (extent - 1) * stride;
  }
  return false;
}

Strides resolve(const Strides &s, int64_t heads, int64_t seq, int64_t dim) {
  return s.isDefault() ? contiguousStrides(heads, seq, dim) : s;
}

} // namespace

Strides contiguousStrides(int64_t heads, int64_t seq, int64_t dim) {
  Strides s;
  s.dim = 1;
  s.seq = dim;
  s.head = seq * dim;
  s.batch = heads * seq * dim;
  return s;
}

Strides ForwardProblem::stridesQ() const {
  return resolve(q, headsQ, qRows(), headDim);
}
Strides ForwardProblem::stridesK() const {
  return resolve(k, headsKV, kvRows(), headDim);
}
Strides ForwardProblem::stridesV() const {
  if (valueTransposed(dtype) && v.isDefault()) {
    // Contiguous [B, Hkv, Dv, Nk]: keys innermost.
    Strides s = contiguousStrides(headsKV, headDimV, kvRows());
    std::swap(s.seq, s.dim);
    return s;
  }
  return resolve(v, headsKV, kvRows(), headDimV);
}
Strides ForwardProblem::stridesO() const {
  return resolve(o, headsQ, qRows(), headDimV);
}
Strides ForwardProblem::stridesBias() const {
  return resolve(biasStrides, biasHeads, seqQ, seqK);
}
BiasArgs ForwardProblem::biasArgs() const {
  BiasArgs b;
  if (!bias)
    return b;
  const Strides bs = stridesBias();
  b.data = biasData;
  const int64_t sizes[4] = {biasBatch, biasHeads, seqQ, seqK};
  const int64_t strides[4] = {bs.batch, bs.head, bs.seq, bs.dim};
  std::copy(sizes, sizes + 4, b.sizes);
  std::copy(strides, strides + 4, b.strides);
  return b;
}

/// The bias tensor's shape (a problem with `bias`).
static TensorShape biasShape(const ForwardProblem &p) {
  return {"bias",
          {p.biasBatch, p.biasHeads, p.seqQ, p.seqK},
          p.stridesBias(),
          p.biasType,
          3,
          int64_t(dtypeSize(p.biasType))};
}

Status checkProblem(const ForwardProblem &p) {
  const struct {
    const char *name;
    int64_t value;
  } dims[] = {{"batch", p.batch},        {"heads_q", p.headsQ},
              {"heads_kv", p.headsKV},   {"seq_q", p.seqQ},
              {"seq_k", p.seqK},         {"head_dim", p.headDim},
              {"head_dim_v", p.headDimV}};
  for (const auto &d : dims) {
    if (d.value < 1)
      return invalid(std::string(d.name) + " must be >= 1, got " +
                     std::to_string(d.value));
    if (d.value > kInt32Max)
      return invalid(std::string(d.name) + " " + std::to_string(d.value) +
                     " exceeds 2^31-1");
  }
  if (p.batch > kGridYZMax)
    return unsupported("batch " + std::to_string(p.batch) +
                       " exceeds the grid limit 65535");
  if (p.headsQ > kGridYZMax)
    return unsupported("heads_q " + std::to_string(p.headsQ) +
                       " exceeds the grid limit 65535");
  for (auto [name, w] : {std::pair{"window_left", p.windowLeft},
                         std::pair{"window_right", p.windowRight}})
    if (w < -1 || w > kInt32Max)
      return invalid(std::string(name) +
                     " must be -1 (no bound) or in [0, "
                     "2^31), got " +
                     std::to_string(w));
  // The kernels take the cap as an f32: it must stay positive and finite
  // there too.
  if (p.softcap != 0 && !isValidSoftcap(p.softcap))
    return invalid("softcap must be 0 (none) or a positive, finite, normal "
                   "f32, got " +
                   std::to_string(p.softcap));
  if (p.causal && p.windowRight != -1)
    return invalid("causal is window_right = 0: give window_right -1 with "
                   "causal");
  // Over a KV cache the compiler and the CPU path have it (checked there
  // against float64); the GPU's windowed cache kernels are not checked on
  // a GPU yet, so the runtime does not launch them.
  if (p.hasWindow() && p.kvLayout != KVLayout::Dense)
    return unsupported(std::string("a sliding window with a ") +
                       kvLayoutName(p.kvLayout) +
                       " KV layout in the runtime (not checked on a GPU yet; "
                       "attn-run runs it on the CPU path)");
  // The same for a soft-cap: the compiler and the CPU path have it over a
  // KV cache and a packed batch; the GPU check covers the dense forward
  // (and its split-KV pair) only.
  if (p.softcap != 0 && p.kvLayout != KVLayout::Dense)
    return unsupported(std::string("a soft-cap with a ") +
                       kvLayoutName(p.kvLayout) +
                       " KV layout in the runtime (not checked on a GPU yet; "
                       "attn-run runs it on the CPU path)");
  if (p.headsQ % p.headsKV)
    return invalid("heads_q (" + std::to_string(p.headsQ) +
                   ") must be a multiple of heads_kv (" +
                   std::to_string(p.headsKV) + ")");
  if (p.dtype != DType::F16 && p.dtype != DType::BF16 &&
      p.dtype != DType::F32 && p.dtype != DType::E4M3)
    return invalid("unknown dtype");
  // fp8 is FlashAttention-3's forward: dense keys, no window or soft-cap
  // (the op's verifier refuses the others with fp8 operands).
  // ALiBi's key positions are the problem's own (not per sequence), and its
  // expansion is a score_mod: not with a soft-cap or fp8.
  if (p.alibi && (p.kvLayout != KVLayout::Dense || p.softcap != 0 ||
                  p.dtype == DType::E4M3))
    return unsupported(
        std::string("ALiBi with ") +
        (p.softcap != 0 ? "a soft-cap"
         : p.dtype == DType::E4M3
             ? "e4m3 (fp8) inputs"
             : std::string("a ") + kvLayoutName(p.kvLayout) + " KV layout"));
  // Dropout: a rate in [0, 1) (a run-time argument of the kernel); the
  // dense 16-bit forward (the runtime's kernels: no KV cache, packed batch
  // or fp8 yet).
  if (p.dropout) {
    if (!(p.dropoutRate >= 0.0f && p.dropoutRate < 1.0f))
      return invalid("dropout rate must be in [0, 1), got " +
                     std::to_string(p.dropoutRate));
    if (p.kvLayout != KVLayout::Dense || p.dtype == DType::E4M3)
      return unsupported(
          std::string("dropout with ") +
          (p.dtype == DType::E4M3
               ? "e4m3 (fp8) inputs"
               : std::string("a ") + kvLayoutName(p.kvLayout) + " KV layout"));
  }
  // A score bias: dense 16- or 32-bit problems (the op's rule: no KV
  // cache, packed batch, split or fp8), f32 or the inputs' type, each of
  // its batch and head dims 1 (broadcast) or the problem's.
  if (p.bias) {
    if (p.dtype == DType::E4M3 || p.kvLayout != KVLayout::Dense)
      return unsupported(
          std::string("a score bias with ") +
          (p.dtype == DType::E4M3
               ? "e4m3 (fp8) inputs"
               : std::string("a ") + kvLayoutName(p.kvLayout) + " KV layout"));
    if (p.biasType != DType::F32 && p.biasType != p.dtype)
      return invalid(std::string("bias dtype ") + dtypeName(p.biasType) +
                     " must be f32 or the inputs' (" + dtypeName(p.dtype) +
                     ")");
    if (p.biasBatch != 1 && p.biasBatch != p.batch)
      return invalid("bias batch (" + std::to_string(p.biasBatch) +
                     ") must be 1 or the problem's (" +
                     std::to_string(p.batch) + ")");
    if (p.biasHeads != 1 && p.biasHeads != p.headsQ)
      return invalid("bias heads (" + std::to_string(p.biasHeads) +
                     ") must be 1 or heads_q (" + std::to_string(p.headsQ) +
                     ")");
    if (Status s = checkStrides(biasShape(p)); !s.ok())
      return s;
  } else if (p.biasData || !p.biasStrides.isDefault() || p.biasBatch != 1 ||
             p.biasHeads != 1) {
    return invalid("bias data, strides or dims are given but the problem "
                   "has no bias (set bias)");
  }
  if (p.dtype == DType::E4M3) {
    if (p.kvLayout != KVLayout::Dense)
      return unsupported(std::string("e4m3 (fp8) with a ") +
                         kvLayoutName(p.kvLayout) +
                         " KV layout (fp8 has the dense forward only)");
    if (p.hasWindow() || p.softcap != 0)
      return unsupported("e4m3 (fp8) with a sliding window or a soft-cap "
                         "(fp8 has the plain forward only)");
  }
  for (auto [name, d] :
       {std::pair{"q_descale", p.qDescale}, std::pair{"k_descale", p.kDescale},
        std::pair{"v_descale", p.vDescale}}) {
    // The kernel takes each as an f32 and multiplies the scale by qd·kd.
    float d32 = float(d);
    if (!(d32 > 0) || !std::isfinite(d32) || !std::isnormal(d32))
      return invalid(std::string(name) +
                     " must be a positive, finite, normal f32, got " +
                     std::to_string(d));
    if (d != 1 && p.dtype != DType::E4M3)
      return invalid(std::string(name) + " " + std::to_string(d) +
                     " is for e4m3 (fp8) problems only (1 otherwise)");
  }
  double scale = p.effectiveScale();
  if (!std::isfinite(scale) || !(scale > 0))
    return invalid("scale must be positive and finite, got " +
                   std::to_string(p.scale));
  // The kernel takes the scale as an f32 and multiplies it by log2(e): both
  // must stay finite and non-zero in f32.
  float scale32 = static_cast<float>(scale) * static_cast<float>(p.qDescale) *
                  static_cast<float>(p.kDescale);
  if (!(scale32 > 0) || !std::isfinite(scale32 * 1.4426950408889634f))
    return invalid("scale " + std::to_string(scale) +
                   (p.qDescale != 1 || p.kDescale != 1
                        ? " times q_descale and k_descale"
                        : "") +
                   " is outside the f32 range the kernel computes in");
  // Without a causal mask ALiBi's term is added to the unscaled scores as
  // (slope / scale)·|i − j| (attn-tile-attention: the softmax keeps the
  // scale): far below any model's scale that could overflow f32 where
  // slope·|i − j| does not.
  if (p.alibi && !p.causal && scale32 < 0x1p-64f)
    return unsupported("ALiBi without a causal mask at a scale below 2^-64 "
                       "(the kernel adds slope/scale times the distance to "
                       "the unscaled scores)");
  if (p.kvLayout != KVLayout::Dense && p.kvLayout != KVLayout::SeqLens &&
      p.kvLayout != KVLayout::Paged && p.kvLayout != KVLayout::Varlen)
    return invalid("unknown KV cache layout");
  if (p.paged()) {
    if (p.pageSize < 16 || p.pageSize > kInt32Max ||
        (p.pageSize & (p.pageSize - 1)))
      return invalid("page_size must be a power of two >= 16, got " +
                     std::to_string(p.pageSize));
    if (p.numPages < 1 || p.numPages > kInt32Max)
      return invalid("num_pages must be in [1, 2^31-1], got " +
                     std::to_string(p.numPages));
    if (p.maxPages < 1 || p.maxPages > kInt32Max)
      return invalid("max_pages must be in [1, 2^31-1], got " +
                     std::to_string(p.maxPages));
    if (p.seqK != p.maxPages * p.pageSize)
      return invalid("seq_k (" + std::to_string(p.seqK) +
                     ") must be the paged cache's capacity max_pages * "
                     "page_size = " +
                     std::to_string(p.maxPages * p.pageSize));
    if (p.tableStride != 0 && p.tableStride < p.maxPages)
      return invalid("table_stride (" + std::to_string(p.tableStride) +
                     ") is smaller than max_pages (" +
                     std::to_string(p.maxPages) + "): table rows overlap");
  } else if (p.pageSize || p.numPages || p.maxPages || p.tableStride) {
    return invalid("page_size, num_pages, max_pages and table_stride are "
                   "for a paged KV cache only");
  }
  if (p.varlen()) {
    for (auto [name, total, longest] :
         {std::tuple{"total_q", p.totalQ, p.seqQ},
          std::tuple{"total_k", p.totalK, p.seqK}}) {
      if (total < 1 || total > kInt32Max)
        return invalid(std::string(name) + " must be in [1, 2^31-1], got " +
                       std::to_string(total));
      if (longest > total)
        return invalid(std::string("the longest sequence (") +
                       (name[6] == 'q' ? "seq_q " : "seq_k ") +
                       std::to_string(longest) + ") exceeds " + name + " (" +
                       std::to_string(total) + ")");
    }
  } else if (p.totalQ || p.totalK) {
    return invalid("total_q and total_k are for a packed batch (varlen) "
                   "only");
  }
  for (const TensorShape &t : shapesOf(p))
    if (Status s = checkStrides(t); !s.ok())
      return s;
  if (selfOverlaps(shapesOf(p)[3]))
    return invalid("o: the strides make distinct outputs overlap");
  return Status::success();
}

/// Whether kernel `k` can serve a forward that does (withLse) or does not
/// write the LSE.
static bool servesLse(const KernelEntry &k, bool withLse) {
  // A kernel writes through whatever its lse argument holds: a forward
  // without LSE needs a kernel without the argument.
  return k.lse == withLse;
}

/// Whether `k` adds the score bias `p` has (none, or one of its type), and
/// can read it: a kernel that reads it by bulk copies needs a bias those
/// can read (16-byte aligned rows; libattn_jit compiles the others a kernel
/// that reads it element by element).
static bool servesBias(const KernelEntry &k, const ForwardProblem &p) {
  return k.bias == p.bias &&
         (!p.bias ||
          (k.biasType == p.biasType && (!k.readsBiasInBulk() || p.biasBulk())));
}

/// Whether `k` reads keys and values where `p` keeps them: the same layout
/// and, paged, the page size it was compiled for (page=) or, for a kernel
/// of any page size, a key block that divides it (a block is read from one
/// page).
static bool servesKV(const KernelEntry &k, const ForwardProblem &p) {
  if (k.kv != p.kvLayout)
    return false;
  if (!p.paged())
    return true;
  if (k.pageSize)
    return k.pageSize == p.pageSize;
  return k.blockN > 0 && p.pageSize % k.blockN == 0;
}

// Kernels of one chip and LSE form may differ only in the sequence lengths
// they are tuned for (min_seq_q= / max_seq_q=: a taller or shorter query
// block): of each such group keep one whose range holds `rows`, the
// narrowest (the largest minimum, then the smallest maximum), or, where
// none does, the widest (every one is correct at any length). A kernel
// with a minimum also needs a grid of two waves of `smCount` (0: unknown)
// multiprocessors (fillsTwoWaves; `rowGroups` blocks of `rows` rows:
// heads × batch).
static void keepTunedForLength(std::vector<const KernelEntry *> &candidates,
                               int64_t rows, int64_t rowGroups = 1,
                               int smCount = 0) {
  auto maxRows = [](const KernelEntry *k) {
    return k->maxSeqQ ? int64_t(k->maxSeqQ)
                      : std::numeric_limits<int64_t>::max();
  };
  auto fullWaves = [&](const KernelEntry *k) {
    return !k->minSeqQ || k->blockM <= 0 ||
           fillsTwoWaves((rows + k->blockM - 1) / k->blockM * rowGroups,
                         smCount);
  };
  auto fits = [&](const KernelEntry *k) {
    return k->minSeqQ <= rows && rows <= maxRows(k) && fullWaves(k);
  };
  auto better = [&](const KernelEntry *a, const KernelEntry *b) {
    // Of a bias's kernels, one that reads it by bulk copies (where both
    // serve: the bias's rows are 16-byte aligned) is the fast one.
    if (a->readsBiasInBulk() != b->readsBiasInBulk())
      return a->readsBiasInBulk();
    if (fits(a) != fits(b))
      return fits(a);
    if (a->minSeqQ != b->minSeqQ)
      return fits(a) ? a->minSeqQ > b->minSeqQ : a->minSeqQ < b->minSeqQ;
    return fits(a) ? maxRows(a) < maxRows(b) : maxRows(a) > maxRows(b);
  };
  std::vector<const KernelEntry *> kept;
  for (const KernelEntry *k : candidates) {
    auto same = std::find_if(kept.begin(), kept.end(), [&](auto *o) {
      return o->chip == k->chip && o->lse == k->lse;
    });
    if (same == kept.end())
      kept.push_back(k);
    else if (better(k, *same))
      *same = k;
  }
  candidates = std::move(kept);
}

KernelIndex::KernelIndex(const Manifest &bundle) : manifest_(&bundle) {
  for (const KernelEntry &k : bundle.kernels)
    groups_[{int(k.program), int(k.dtype), k.headDimV}].push_back(&k);
}

const std::vector<const KernelEntry *> &
KernelIndex::group(Program program, DType dtype, int64_t headDimV) const {
  auto it = groups_.find({int(program), int(dtype), headDimV});
  return it == groups_.end() ? none_ : it->second;
}

/// Calls f on every kernel of `program` for p's dtype and head dim v: those
/// of its group where there is an index of `bundle`, else every line (f
/// tests the rest).
template <typename F>
static void forGroup(const Manifest &bundle, const KernelIndex *index,
                     Program program, const ForwardProblem &p, F f) {
  if (index && index->manifest() == &bundle) {
    for (const KernelEntry *k : index->group(program, p.dtype, p.headDimV))
      f(*k);
    return;
  }
  for (const KernelEntry &k : bundle.kernels)
    if (k.program == program && k.dtype == p.dtype && k.headDimV == p.headDimV)
      f(k);
}

Status findKernels(const Manifest &bundle, const ForwardProblem &p,
                   std::vector<const KernelEntry *> &candidates,
                   const KernelIndex *index, int smCount) {
  candidates.clear();
  bool cacheServed = p.kvLayout == KVLayout::Dense;
  if (!cacheServed)
    forGroup(bundle, index, Program::Attention, p, [&](const KernelEntry &k) {
      cacheServed |= k.headDim == p.headDim && servesKV(k, p);
    });
  if (!cacheServed)
    return notInBundle(
        std::string("a ") + kvLayoutName(p.kvLayout) + " KV cache" +
        (p.paged() ? " of pages of " + std::to_string(p.pageSize) + " rows"
                   : std::string()) +
        " for " + dtypeName(p.dtype) + " head dim " +
        std::to_string(p.headDim));
  // The common case in one pass that only collects the kernels serving
  // `p`: the diagnostics below build sets of what the bundle has instead,
  // which cost 8-13 us a call, twice in a decode step (the packed problem's
  // lookup and the forward's; H200 host, a 160-line bundle).
  forGroup(bundle, index, Program::Attention, p, [&](const KernelEntry &k) {
    if (servesKV(k, p) && k.headDim == p.headDim && k.causal == p.causal &&
        k.windowLeft == p.windowLeft && k.windowRight == p.windowRight &&
        k.softcap == float(p.softcap) && k.alibi == p.alibi &&
        servesBias(k, p) && k.dropout == p.dropout && servesLse(k, p.withLse) &&
        k.packsQueryHeads() == p.packHeads)
      candidates.push_back(&k);
  });
  if (!candidates.empty()) {
    keepTunedForLength(candidates, p.kernelRows(), p.kernelHeads() * p.qBatch(),
                       smCount);
    return Status::success();
  }
  if (p.packHeads)
    return notInBundle(std::string(p.causal ? "causal" : "non-causal") +
                       " attention for " + dtypeName(p.dtype) + " head dim " +
                       std::to_string(p.headDim) +
                       " with the query heads of a group packed into rows");
  // None: the same tests one at a time, to say which one fails.
  std::set<std::string> dtypes;
  std::set<int> headDims, headDimsV;
  std::set<bool> masks;
  bool otherWindows = false, otherCaps = false, otherAlibi = false,
       otherBias = false, otherDropout = false;
  std::vector<const KernelEntry *> matched; // all but the LSE agree
  for (const KernelEntry &k : bundle.kernels) {
    if (k.program != Program::Attention || !servesKV(k, p))
      continue;
    dtypes.insert(dtypeName(k.dtype));
    if (k.dtype != p.dtype)
      continue;
    headDims.insert(k.headDim);
    if (k.headDim != p.headDim)
      continue;
    headDimsV.insert(k.headDimV);
    if (k.headDimV != p.headDimV)
      continue;
    masks.insert(k.causal);
    if (k.causal != p.causal)
      continue;
    if (k.windowLeft != p.windowLeft || k.windowRight != p.windowRight) {
      otherWindows = true;
      continue;
    }
    if (k.softcap != float(p.softcap)) {
      otherCaps = true;
      continue;
    }
    if (k.alibi != p.alibi) {
      otherAlibi = true;
      continue;
    }
    if (!servesBias(k, p)) {
      otherBias = true;
      continue;
    }
    if (k.dropout != p.dropout) {
      otherDropout = true;
      continue;
    }
    matched.push_back(&k); // its LSE form is the one that differs
  }
  if (matched.empty() && otherBias)
    return notInBundle(
        std::string(p.causal ? "causal" : "non-causal") + " attention for " +
        dtypeName(p.dtype) + " head dim " + std::to_string(p.headDim) +
        (p.bias ? std::string(" with a ") + dtypeName(p.biasType) +
                      " score bias (this bundle's kernels for it have none "
                      "or another bias type)"
                : " without a score bias (this bundle's kernels for it have "
                  "one)"));
  if (matched.empty() && otherDropout)
    return notInBundle(
        std::string(p.causal ? "causal" : "non-causal") + " attention for " +
        dtypeName(p.dtype) + " head dim " + std::to_string(p.headDim) +
        (p.dropout ? " with dropout (this bundle's kernels for it have none)"
                   : " without dropout (this bundle's kernels for it have "
                     "it)"));
  if (matched.empty() && otherAlibi)
    return notInBundle(
        std::string(p.causal ? "causal" : "non-causal") + " attention for " +
        dtypeName(p.dtype) + " head dim " + std::to_string(p.headDim) +
        (p.alibi ? " with ALiBi (this bundle's kernels for it have none)"
                 : " without ALiBi (this bundle's kernels for it have it)"));
  if (matched.empty() && otherCaps)
    return notInBundle(
        std::string(p.causal ? "causal" : "non-causal") + " attention for " +
        dtypeName(p.dtype) + " head dim " + std::to_string(p.headDim) +
        (p.softcap != 0
             ? " with the soft-cap " + formatSoftcap(float(p.softcap))
             : std::string(" without a soft-cap")) +
        " (this bundle's kernels for it have another soft-cap)");
  if (matched.empty() && otherWindows)
    return notInBundle(
        std::string(p.causal ? "causal" : "non-causal") + " attention for " +
        dtypeName(p.dtype) + " head dim " + std::to_string(p.headDim) +
        (p.hasWindow() ? " with the sliding window " +
                             formatWindow(p.windowLeft, p.windowRight)
                       : std::string(" without a sliding window")) +
        " (this bundle's kernels for it have another window)");
  if (!matched.empty()) {
    const std::string what =
        std::string(p.causal ? "causal" : "non-causal") + " " +
        dtypeName(p.dtype) + " head dim " + std::to_string(p.headDim) +
        (p.headDimV != p.headDim ? " head dim v " + std::to_string(p.headDimV)
                                 : std::string());
    if (p.withLse)
      return notInBundle("LSE output for " + what +
                         ": this bundle's kernels for it are built without "
                         "LSE (lse=0)");
    return notInBundle("a forward without LSE for " + what +
                       ": this bundle has no lse=0 kernel for it, and its "
                       "lse=1 kernels always write the LSE; pass an LSE "
                       "buffer or add an lse=0 kernel");
  }
  if (headDims.empty())
    return notInBundle(std::string("dtype ") + dtypeName(p.dtype) +
                       " (this bundle has " + joinSet(dtypes) + ")");
  if (headDimsV.empty())
    return notInBundle("head dim " + std::to_string(p.headDim) +
                       " (this bundle has " + joinSet(headDims) + ")");
  if (masks.empty())
    return notInBundle("head dim v " + std::to_string(p.headDimV) +
                       " with head dim " + std::to_string(p.headDim) +
                       " (this bundle has head dim v " + joinSet(headDimsV) +
                       " for it)");
  return notInBundle(std::string(p.causal ? "causal" : "non-causal") +
                     " attention for " + dtypeName(p.dtype) + " head dim " +
                     std::to_string(p.headDim) + " (this bundle has only " +
                     (p.causal ? "non-causal" : "causal") + " kernels for it)");
}

Status findSplitKernels(const Manifest &bundle, const ForwardProblem &p,
                        std::vector<const KernelEntry *> &split,
                        std::vector<const KernelEntry *> &merge,
                        const KernelIndex *index) {
  split.clear();
  merge.clear();
  forGroup(bundle, index, Program::SplitKV, p, [&](const KernelEntry &k) {
    if (k.headDim == p.headDim && k.causal == p.causal &&
        k.windowLeft == p.windowLeft && k.windowRight == p.windowRight &&
        k.softcap == float(p.softcap) && k.alibi == p.alibi &&
        servesBias(k, p) && k.dropout == p.dropout && servesKV(k, p) &&
        k.packsQueryHeads() == p.packHeads)
      split.push_back(&k);
  });
  forGroup(bundle, index, Program::MergeSplits, p, [&](const KernelEntry &k) {
    if (k.lse == p.withLse)
      merge.push_back(&k);
  });
  if (split.empty() || merge.empty()) {
    split.clear();
    merge.clear();
    return notInBundle("split-KV kernels for this problem");
  }
  // (A packed split kernel may have a taller twin for more packed rows.)
  keepTunedForLength(split, p.kernelRows());
  return Status::success();
}

ForwardProblem packQueryHeads(const ForwardProblem &given) {
  ForwardProblem p = given;
  p.packHeads = false;
  // (A packed batch's rows are sequences: no room for heads. A sliding
  // window is placed by the row's position, which packed rows lose, and
  // ALiBi's slope by the query head.)
  if (p.varlen() || p.headsKV <= 0 || p.headsQ <= p.headsKV ||
      p.headsQ % p.headsKV || p.hasWindow() || p.alibi || p.bias || p.dropout)
    return p;
  const int64_t g = p.headsQ / p.headsKV;
  if (p.seqQ != 1) {
    // A few query rows (speculated tokens): the kernel packs the heads
    // itself (pack_query_heads; the rows of one position are G heads
    // apart, not one stride), up to two 64-row programs' worth. Longer
    // queries keep one program per query head, whose kernels are the
    // faster ones there (bulk copies of Q, a persistent grid). A packed
    // row's head is (G − 1) head strides at most from its block's first:
    // a 32-bit offset in the kernel, as a row's.
    const int64_t headSpan =
        (g - 1) * std::max(p.stridesQ().head, p.stridesO().head);
    if (p.dtype != DType::E4M3 && p.seqQ * g <= kMaxPackedRows &&
        headSpan < (int64_t(1) << 31))
      p.packHeads = true;
    return p;
  }
  ForwardProblem out = p;
  // Query head h = j·G + i of row 0 becomes row i of head j: rows step by
  // the old head stride, heads by G of them.
  auto pack = [&](Strides s) {
    Strides t;
    t.batch = s.batch;
    t.head = g * s.head;
    t.seq = s.head;
    t.dim = s.dim;
    return t;
  };
  out.q = pack(p.stridesQ());
  out.o = pack(p.stridesO());
  out.k = p.stridesK();
  out.v = p.stridesV();
  out.headsQ = p.headsKV;
  out.seqQ = g;
  // One query row sees every key (causal is bottom-right aligned); the
  // packed rows are heads, not positions, so no mask.
  out.causal = false;
  return out;
}

/// The fewest keys a split-KV program takes (chooseKVSplits).
constexpr int64_t kMinSplitKeys = 256;

int64_t chooseKVSplits(const ForwardProblem &p, int smCount, int blockM,
                       int blockN, int64_t forced, int unsplitBlockM) {
  // A packed batch's sequences are tiled whole, and a sliding window's
  // keys too (neither has a split_kv form yet).
  if (smCount <= 0 || blockM <= 0 || blockN <= 0 || p.varlen() || p.hasWindow())
    return 1;
  if (unsplitBlockM <= 0)
    unsplitBlockM = blockM;
  // Thread blocks of the split kernel (per split) and of the forward that
  // runs unsplit: their query blocks may differ (sm_90a's split kernel has
  // 64 rows at D = 128, the forward 128).
  auto gridBlocks = [&](int64_t rows) {
    return (p.kernelRows() + rows - 1) / rows * p.kernelHeads() * p.batch;
  };
  const int64_t blocks = gridBlocks(blockM);
  const int64_t unsplitBlocks = gridBlocks(unsplitBlockM);
  // A grid of most of a wave already keeps the device busy.
  if (double(unsplitBlocks) >= 0.8 * smCount)
    return 1;
  const int64_t kvBlocks = (p.seqK + blockN - 1) / blockN;
  // At least 256 keys a split: a split's fixed costs (its prologue, the
  // pipeline's fill, one more partial for the merge to read) outweigh the
  // parallelism below that (H100, decode B = 1, Nk = 4k, CUDA graph, 64-key
  // blocks: 8 splits of 4 blocks 940 GB/s, 15 of 2-3 blocks 799, 32 of 1
  // 492; 128-key blocks (sm_90a), the split kernel alone: 7 splits of 5
  // blocks 12.1 us, 8 of 4 10.8, 16 of 2 8.6).
  const int64_t maxSplits = std::min<int64_t>(
      {128, smCount, std::max<int64_t>(1, kvBlocks * blockN / kMinSplitKeys)});
  if (forced > 0)
    return std::max<int64_t>(1, std::min(forced, maxSplits));
  auto chunk = [&](int64_t s) { return (kvBlocks + s - 1) / s; };
  // A count whose chunk equals the next smaller count's runs the same
  // number of key blocks per split with more partials to merge.
  auto useful = [&](int64_t s) { return s == 1 || chunk(s) != chunk(s - 1); };
  // Wave efficiency: thread blocks over the slots of the waves they fill
  // (one split: the unsplit forward's grid).
  auto efficiency = [&](int64_t s) {
    double waves = double(s == 1 ? unsplitBlocks : blocks * s) / smCount;
    return waves / std::ceil(waves);
  };
  double best = 0;
  for (int64_t s = 1; s <= maxSplits; ++s)
    if (useful(s))
      best = std::max(best, efficiency(s));
  for (int64_t s = 1; s <= maxSplits; ++s)
    if (useful(s) && efficiency(s) >= 0.85 * best)
      return s;
  return 1;
}

Status selectVariant(const std::vector<const KernelEntry *> &candidates,
                     int ccMajor, int ccMinor, const KernelEntry *&out) {
  out = nullptr;
  if (ccMajor < 8)
    return unsupported("compute capability " + std::to_string(ccMajor) + "." +
                       std::to_string(ccMinor) + "; needs sm_80 or later");
  std::set<std::string> chipNames;
  for (const KernelEntry *k : candidates)
    chipNames.insert(k->chip.str());
  std::vector<Chip> chips;
  for (const KernelEntry *k : candidates)
    chips.push_back(k->chip);
  if (int i = selectVariant(chips, ccMajor, ccMinor); i >= 0) {
    out = candidates[size_t(i)];
    return Status::success();
  }
  return notInBundle("no kernel for compute capability " +
                     std::to_string(ccMajor) + "." + std::to_string(ccMinor) +
                     " (" + (candidates.empty() ? "" : candidates[0]->name) +
                     " is built for " + joinSet(chipNames) + ")");
}

Status selectKernel(const Manifest &bundle, const ForwardProblem &p,
                    int ccMajor, int ccMinor, const KernelEntry *&out,
                    const KernelIndex *index, int smCount) {
  out = nullptr;
  if (Status s = checkProblem(p); !s.ok())
    return s;
  std::vector<const KernelEntry *> candidates;
  if (Status s = findKernels(bundle, p, candidates, index, smCount); !s.ok())
    return s;
  return selectVariant(candidates, ccMajor, ccMinor, out);
}

AttentionShape kernelShape(const ForwardProblem &p) {
  AttentionShape s;
  s.batch = p.batch;
  s.headsQ = p.headsQ;
  s.headsKV = p.headsKV;
  s.seqQ = p.seqQ;
  s.seqK = p.seqK;
  s.headDim = p.headDim;
  s.headDimV = p.headDimV;
  if (p.varlen()) {
    // One packed batch: the tensors' own dims; the sequences separately.
    s.batch = 1;
    s.seqQ = p.totalQ;
    s.seqK = p.totalK;
    s.sequences = p.batch;
  }
  // A dim of extent 1 is never stepped over, and checkProblem lets its
  // stride be anything: pass 0 so the value fits the kernels' 32-bit math.
  auto fill = [&](int64_t *out, const Strides &st, int64_t heads, int64_t seq) {
    out[0] = s.batch == 1 ? 0 : st.batch;
    out[1] = heads == 1 ? 0 : st.head;
    out[2] = seq == 1 ? 0 : st.seq;
    out[3] = 1;
  };
  fill(s.q, p.stridesQ(), p.headsQ, p.qRows());
  fill(s.k, p.stridesK(), p.headsKV, p.kvRows());
  fill(s.v, p.stridesV(), p.headsKV, p.kvRows());
  if (valueTransposed(p.dtype)) {
    // The kernel's V is the memref [B, Hkv, Dv, Nk]: rows of keys.
    s.vTransposed = true;
    s.v[2] = p.headDimV == 1 ? 0 : p.stridesV().dim;
  }
  if (p.paged()) {
    // Pages, not batches, in dim 0 of K and V.
    s.kvPages = p.numPages;
    s.pageSize = p.pageSize;
    s.maxPages = p.maxPages;
    s.tableStride = p.tableStride ? p.tableStride : p.maxPages;
    s.k[0] = p.numPages == 1 ? 0 : p.stridesK().batch;
    s.v[0] = p.numPages == 1 ? 0 : p.stridesV().batch;
  }
  fill(s.o, p.stridesO(), p.headsQ, p.qRows());
  // LSE is contiguous [B, Hq, Nq] ([1, Hq, totalQ] packed).
  s.lse[0] = s.batch == 1 ? 0 : p.headsQ * s.seqQ;
  s.lse[1] = p.headsQ == 1 ? 0 : s.seqQ;
  s.lse[2] = 1;
  return s;
}

TensorExtents tensorExtents(const ForwardProblem &p) {
  TensorExtents e;
  std::vector<TensorShape> shapes = shapesOf(p);
  const uint64_t es = dtypeSize(p.dtype), oes = dtypeSize(outputDType(p.dtype));
  e.q = uint64_t(elementSpan(shapes[0])) * es;
  e.k = uint64_t(elementSpan(shapes[1])) * es;
  e.v = uint64_t(elementSpan(shapes[2])) * es;
  e.o = uint64_t(elementSpan(shapes[3])) * oes;
  if (p.withLse)
    e.lse = uint64_t(p.qBatch() * p.headsQ * p.qRows()) * sizeof(float);
  if (p.bias)
    e.bias = uint64_t(elementSpan(biasShape(p))) * dtypeSize(p.biasType);
  return e;
}

/// ALiBi's slopes: given exactly when the problem asks for ALiBi, 4-byte
/// aligned (the forward's and the backward's rule).
static Status checkSlopes(bool alibi, const float *slopes) {
  if (alibi && !slopes)
    return invalid("alibi slopes are null but the problem asks for ALiBi");
  if (!alibi && slopes)
    return invalid("alibi slopes are given but the problem does not ask for "
                   "ALiBi (set alibi)");
  if (slopes && reinterpret_cast<uintptr_t>(slopes) % 4)
    return invalid("alibi slopes (" + hex(slopes) + ") are not 4-byte aligned");
  return Status::success();
}

Status checkPointers(const ForwardProblem &p, const void *q, const void *k,
                     const void *v, const void *o, const void *lse) {
  const struct {
    const char *name;
    const void *ptr;
  } ptrs[] = {{"q", q}, {"k", k}, {"v", v}, {"o", o}};
  for (const auto &t : ptrs) {
    if (!t.ptr)
      return invalid(std::string(t.name) + " is null");
    if (reinterpret_cast<uintptr_t>(t.ptr) % kAlignBytes)
      return invalid(std::string(t.name) + " (" + hex(t.ptr) +
                     ") is not 16-byte aligned");
  }
  if (p.withLse && !lse)
    return invalid("lse is null but the problem asks for LSE");
  if (!p.withLse && lse)
    return invalid("lse is given but the problem does not ask for LSE "
                   "(set with_lse)");
  if (lse && reinterpret_cast<uintptr_t>(lse) % sizeof(float))
    return invalid("lse (" + hex(lse) + ") is not 4-byte aligned");
  if (Status s = checkSlopes(p.alibi, p.alibiSlopes); !s.ok())
    return s;
  if (p.bias && !p.biasData)
    return invalid("bias is null but the problem asks for a bias");
  if (p.biasData &&
      reinterpret_cast<uintptr_t>(p.biasData) % dtypeSize(p.biasType))
    return invalid("bias (" + hex(p.biasData) + ") is not aligned to its " +
                   dtypeName(p.biasType) + " elements");

  // The outputs must not alias the inputs or each other: the kernel reads
  // K/V blocks many times while other blocks already write O.
  TensorExtents e = tensorExtents(p);
  auto overlap = [](const void *a, uint64_t na, const void *b, uint64_t nb) {
    uintptr_t x = reinterpret_cast<uintptr_t>(a),
              y = reinterpret_cast<uintptr_t>(b);
    return na && nb && x < y + nb && y < x + na;
  };
  const struct {
    const char *name;
    const void *ptr;
    uint64_t bytes;
  } inputs[] = {{"q", q, e.q}, {"k", k, e.k}, {"v", v, e.v}};
  if (p.alibiSlopes &&
      (overlap(o, e.o, p.alibiSlopes, uint64_t(p.headsQ) * 4) ||
       (lse && overlap(lse, e.lse, p.alibiSlopes, uint64_t(p.headsQ) * 4))))
    return invalid("an output overlaps the alibi slopes");
  if (p.biasData && (overlap(o, e.o, p.biasData, e.bias) ||
                     (lse && overlap(lse, e.lse, p.biasData, e.bias))))
    return invalid("an output overlaps the bias");
  for (const auto &in : inputs) {
    if (overlap(o, e.o, in.ptr, in.bytes))
      return invalid(std::string("o overlaps ") + in.name +
                     ": the output must not alias an input");
    if (lse && overlap(lse, e.lse, in.ptr, in.bytes))
      return invalid(std::string("lse overlaps ") + in.name);
  }
  if (lse && overlap(lse, e.lse, o, e.o))
    return invalid("lse overlaps o");
  return Status::success();
}

} // namespace attn

namespace attn {

ForwardProblem BackwardProblem::forward() const {
  ForwardProblem f;
  f.shape() = shape();
  f.q = q;
  f.k = k;
  f.v = v;
  f.o = o;
  f.withLse = true;
  f.alibiSlopes = alibiSlopes;
  return f;
}

// A gradient without strides of its own is laid out like what it
// differentiates (contiguous when that is; the dense 16-bit problem, so
// ForwardProblem's rows and V's layout are the plain ones).
Strides BackwardProblem::stridesDO() const {
  return resolve(dO.isDefault() ? o : dO, headsQ, seqQ, headDimV);
}
Strides BackwardProblem::stridesDQ() const {
  return resolve(dQ.isDefault() ? q : dQ, headsQ, seqQ, headDim);
}
Strides BackwardProblem::stridesDK() const {
  return resolve(dK.isDefault() ? k : dK, headsKV, seqK, headDim);
}
Strides BackwardProblem::stridesDV() const {
  return resolve(dV.isDefault() ? v : dV, headsKV, seqK, headDimV);
}

namespace {
/// dO, dQ, dK, dV as the stride and overlap checks see them.
std::vector<TensorShape> gradShapesOf(const BackwardProblem &p) {
  return {
      {"do", {p.batch, p.headsQ, p.seqQ, p.headDimV}, p.stridesDO(), p.dtype},
      {"dq", {p.batch, p.headsQ, p.seqQ, p.headDim}, p.stridesDQ(), p.dtype},
      {"dk", {p.batch, p.headsKV, p.seqK, p.headDim}, p.stridesDK(), p.dtype},
      {"dv", {p.batch, p.headsKV, p.seqK, p.headDimV}, p.stridesDV(), p.dtype},
  };
}
} // namespace

Status checkBackwardProblem(const BackwardProblem &p) {
  // What the backward has before the shapes: its messages are the more
  // precise for such a problem.
  if (p.dtype == DType::E4M3)
    return unsupported("the backward of an e4m3 (fp8) forward (fp8 has the "
                       "forward only)");
  if (p.dtype == DType::F32)
    return unsupported("an f32 backward on the GPU (the tensor cores take "
                       "f16 and bf16; attn-run --backward runs f32 on the "
                       "CPU path)");
  if (p.bias)
    return unsupported("the backward of a forward with a score bias (not "
                       "implemented yet: attn.attention_grad has no bias)");
  if (Status s = checkProblem(p.forward()); !s.ok())
    return s;
  for (const TensorShape &t : gradShapesOf(p))
    if (Status s = checkStrides(t); !s.ok())
      return s;
  for (const TensorShape &t : gradShapesOf(p))
    if (t.name[1] != 'o' && selfOverlaps(t))
      return invalid(std::string(t.name) +
                     ": the strides make distinct outputs overlap");
  return Status::success();
}

Status findBackwardKernels(const Manifest &bundle, const BackwardProblem &p,
                           std::vector<const KernelEntry *> &gradQ,
                           std::vector<const KernelEntry *> &gradKV) {
  gradQ.clear();
  gradKV.clear();
  std::set<std::string> have; // what the bundle's backward kernels are for
  for (const KernelEntry &k : bundle.kernels) {
    // The runtime launches the deterministic backward (grad_q, grad_kv);
    // the dQ-workspace form's grids (grad_prep, grad_q_out) need a workspace
    // it does not allocate, and its grad_kv another argument list.
    if (k.program != Program::GradQuery && k.program != Program::GradKeyValue)
      continue;
    const bool variant = k.windowLeft != -1 || k.windowRight != -1 ||
                         k.softcap != 0 || k.alibi || k.dropout;
    have.insert(std::string(dtypeName(k.dtype)) + " d" +
                std::to_string(k.headDim) +
                (k.headDimV != k.headDim ? "/" + std::to_string(k.headDimV)
                                         : std::string()) +
                (k.causal ? " causal" : "") + (variant ? " (a variant)" : ""));
    // A kernel serves exactly its score variant (the forward's rule).
    if (k.dtype != p.dtype || k.headDim != p.headDim ||
        k.headDimV != p.headDimV || k.causal != p.causal || !k.lse ||
        k.kv != KVLayout::Dense || k.windowLeft != p.windowLeft ||
        k.windowRight != p.windowRight || k.softcap != float(p.softcap) ||
        k.alibi != p.alibi || k.dropout != p.dropout)
      continue;
    (k.program == Program::GradQuery ? gradQ : gradKV).push_back(&k);
  }
  if (!gradQ.empty() && !gradKV.empty())
    return Status::success();
  gradQ.clear();
  gradKV.clear();
  std::string variant;
  if (p.hasWindow())
    variant += " with a window of (" + std::to_string(p.windowLeft) + ", " +
               std::to_string(p.windowRight) + ")";
  if (p.softcap != 0)
    variant += " with a soft-cap";
  if (p.alibi)
    variant += " with ALiBi";
  if (p.dropout)
    variant += " with dropout";
  return notInBundle(
      std::string("the backward for ") + (p.causal ? "causal " : "") +
      dtypeName(p.dtype) + " head dim " + std::to_string(p.headDim) + variant +
      (p.headDimV != p.headDim ? " head dim v " + std::to_string(p.headDimV)
                               : std::string()) +
      (have.empty() ? " (this bundle has no backward kernels)"
                    : " (this bundle has it for " + joinSet(have) + ")"));
}

AttentionShape kernelShape(const BackwardProblem &p, GradStrides &grad) {
  AttentionShape s = kernelShape(p.forward());
  auto fill = [&](int64_t *out, const Strides &st, int64_t heads, int64_t seq) {
    out[0] = p.batch == 1 ? 0 : st.batch;
    out[1] = heads == 1 ? 0 : st.head;
    out[2] = seq == 1 ? 0 : st.seq;
    out[3] = 1;
  };
  fill(grad.dO, p.stridesDO(), p.headsQ, p.seqQ);
  fill(grad.dQ, p.stridesDQ(), p.headsQ, p.seqQ);
  fill(grad.dK, p.stridesDK(), p.headsKV, p.seqK);
  fill(grad.dV, p.stridesDV(), p.headsKV, p.seqK);
  return s;
}

GradExtents gradExtents(const BackwardProblem &p) {
  std::vector<TensorShape> g = gradShapesOf(p);
  const uint64_t es = dtypeSize(p.dtype);
  GradExtents e;
  e.dO = uint64_t(elementSpan(g[0])) * es;
  e.dQ = uint64_t(elementSpan(g[1])) * es;
  e.dK = uint64_t(elementSpan(g[2])) * es;
  e.dV = uint64_t(elementSpan(g[3])) * es;
  return e;
}

Status checkBackwardPointers(const BackwardProblem &p, const void *dO,
                             const void *q, const void *k, const void *v,
                             const void *o, const float *lse, const void *dq,
                             const void *dk, const void *dv) {
  const ForwardProblem f = p.forward();
  if (!lse)
    return invalid("lse is null (the backward reads the forward's LSE)");
  // ALiBi's slopes are an input here, as O and the LSE are: checked below
  // against the gradients, not as the forward's (whose O and LSE it
  // writes).
  ForwardProblem readOnly = f;
  readOnly.alibi = false;
  readOnly.alibiSlopes = nullptr;
  if (Status s = checkPointers(readOnly, q, k, v, o, lse); !s.ok())
    return s;
  if (Status s = checkSlopes(p.alibi, p.alibiSlopes); !s.ok())
    return s;
  const TensorExtents e = tensorExtents(f);
  const GradExtents g = gradExtents(p);
  const struct {
    const char *name;
    const void *ptr;
    uint64_t bytes;
  } inputs[] = {{"do", dO, g.dO}, {"q", q, e.q}, {"k", k, e.k},
                {"v", v, e.v},    {"o", o, e.o}, {"lse", lse, e.lse}},
    outputs[] = {{"dq", dq, g.dQ}, {"dk", dk, g.dK}, {"dv", dv, g.dV}};
  for (const auto &t : {inputs[0], outputs[0], outputs[1], outputs[2]}) {
    if (!t.ptr)
      return invalid(std::string(t.name) + " is null");
    if (reinterpret_cast<uintptr_t>(t.ptr) % kAlignBytes)
      return invalid(std::string(t.name) + " (" + hex(t.ptr) +
                     ") is not 16-byte aligned");
  }
  auto overlap = [](const auto &a, const auto &b) {
    uintptr_t x = reinterpret_cast<uintptr_t>(a.ptr),
              y = reinterpret_cast<uintptr_t>(b.ptr);
    return a.bytes && b.bytes && x < y + b.bytes && y < x + a.bytes;
  };
  // The kernels read every input many times while other programs already
  // write the gradients.
  const struct {
    const char *name;
    const void *ptr;
    uint64_t bytes;
  } slopes = {"the alibi slopes", p.alibiSlopes,
              p.alibiSlopes ? uint64_t(p.headsQ) * 4 : 0};
  for (size_t i = 0; i < 3; ++i) {
    for (const auto &in : inputs)
      if (overlap(outputs[i], in))
        return invalid(std::string(outputs[i].name) + " overlaps " + in.name +
                       ": a gradient must not alias an input");
    if (overlap(outputs[i], slopes))
      return invalid(std::string(outputs[i].name) + " overlaps " + slopes.name +
                     ": a gradient must not alias an input");
    for (size_t j = 0; j < i; ++j)
      if (overlap(outputs[i], outputs[j]))
        return invalid(std::string(outputs[i].name) + " overlaps " +
                       outputs[j].name);
  }
  return Status::success();
}

} // namespace attn
