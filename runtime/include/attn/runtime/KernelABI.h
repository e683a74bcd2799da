//===- KernelABI.h - how attention kernels take their parameters -*- C++
//-*-===//
//
// The one definition of the kernel parameter lists, shared by the compiler
// (which emits the kernels) and the runtime (which launches them). Plain
// C++17 with no CUDA and no MLIR, header only, so both sides and any tool
// can include it without linking anything.
//
// A manifest line names the ABI of its kernel (abi=, see Bundle.h); there
// is one:
//
// abi=memref: the parameters are the arguments of the lowered MLIR function,
//   in order. A memref argument of rank r is MLIR's expanded memref
//   descriptor, 3 + 2r parameters:
//
//     allocated ptr (64-bit), aligned ptr (64-bit), offset (i64, elements),
//     sizes[0..r) (i64), strides[0..r) (i64, elements)
//
//   and an f32 argument is one f32 parameter. Attention kernels are
//
//     (q   [B, Hq,  Nq, D ]  memref,
//      k   [B, Hkv, Nk, D ]  memref,
//      v   [B, Hkv, Nk, Dv]  memref,
//      o   [B, Hq,  Nq, Dv]  memref,
//      lse [B, Hq,  Nq]      memref<f32>   only in kernels built with lse=1,
//      scale                 f32)
//
//   that is 4 * 11 + 9 + 1 = 54 parameters with LSE, 45 without. An fp8
//   kernel (dtype=e4m3: Q, K, V e4m3, O bf16) has V transposed,
//   v [B, Hkv, Dv, Nk] (keys contiguous), and after the scale three more
//   f32: q_descale, k_descale, v_descale (57 / 48 parameters). An ALiBi
//   kernel (alibi=1) takes its slopes [Hq] (memref<f32>, 5 parameters)
//   between the KV cache's arrays and the scale; a dropout kernel
//   (dropout=1) takes, after the scale, its rate (f32), Philox key (i64)
//   and offset (i32). The
//   runtime passes each device pointer as both the allocated and the aligned
//   pointer, offset 0, the problem's sizes and its element strides
//   (innermost 1; see AttentionShape for the others). Such a kernel always
//   writes the LSE it has an argument for: a forward without LSE needs a
//   kernel built with lse=0.
//
// The grid is the one the manifest's grid= key describes (LaunchGrid below:
// "q_blocks,heads_q,batch" for the forward, "q_blocks*splits,heads_q,batch"
// for a split_kv kernel; without the key (ceil(Nq / block_m)[·splits], Hq,
// B)), block (threads, 1, 1), dynamic shared memory smem bytes, all from the
// manifest.
//
// Tensor maps (manifest key tensor_maps=ARG:ROWS[:BYTES][,...], memref ABI
// only): a kernel that reads a memref argument ARG (0 q, 1 k, 2 v, 3 o, and
// a forward's score bias at biasArgument(); in the backward's grids 0 dO,
// 1 q, 2 k, 3 v, memrefGradParams' order)
// with bulk tensor copies (TMA) takes, after the list above, one
// CUtensorMap per entry, in order: 128 bytes passed by value (a grid
// constant). Each describes its memref as the kernel sees it (sizes and
// strides, innermost first) for boxes of ROWS rows by BYTES (128 when
// absent, or 64) bytes of columns, swizzled by BYTES (the kernel's shared
// slabs: CU_TENSOR_MAP_SWIZZLE_128B or _64B), elements past the end read as
// zero (tensorMapGeometry below; the launcher encodes it with
// cuTensorMapEncodeTiled).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_RUNTIME_KERNELABI_H
#define ATTN_RUNTIME_KERNELABI_H

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace attn {

/// How a kernel takes its parameters (the manifest's abi= key): the
/// lowered MLIR function's arguments, the one ABI (the key stays so that a
/// line of another ABI, or of none, is refused rather than misread).
enum class KernelABI {
  Memref,
};

/// The manifest spelling: "memref".
inline const char *kernelABIName(KernelABI) { return "memref"; }

/// Parses the manifest spelling; false for anything else.
inline bool parseKernelABI(const std::string &text, KernelABI &out) {
  if (text != "memref")
    return false;
  out = KernelABI::Memref;
  return true;
}

/// Parameters of one rank-`rank` memref in the memref ABI.
constexpr size_t memrefParamCount(size_t rank) { return 3 + 2 * rank; }

/// A read-only view of int64 values, like llvm::ArrayRef<int64_t> (which
/// converts to it, as do std::vector, std::array and braced lists). It does
/// not own the values: a braced list lives until the end of the full
/// expression, long enough for a call.
class I64Array {
public:
  I64Array() = default;
  I64Array(const int64_t *data, size_t size) : data_(data), size_(size) {}
// GCC warns that a view of a braced list does not extend its life; that is
// the point of a view (llvm::ArrayRef silences it the same way).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 9
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  I64Array(std::initializer_list<int64_t> list)
      : data_(list.begin()), size_(list.size()) {}
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 9
#pragma GCC diagnostic pop
#endif
  template <size_t N>
  I64Array(const int64_t (&array)[N]) : data_(array), size_(N) {}
  /// Any contiguous container of int64_t with data() and size().
  template <typename C,
            typename = std::enable_if_t<std::is_convertible_v<
                decltype(std::declval<const C &>().data()), const int64_t *>>>
  I64Array(const C &c) : data_(c.data()), size_(size_t(c.size())) {}

  const int64_t *data() const { return data_; }
  size_t size() const { return size_; }
  int64_t operator[](size_t i) const { return data_[i]; }

private:
  const int64_t *data_ = nullptr;
  size_t size_ = 0;
};

/// The parameter array of one launch, as cuLaunchKernel's kernelParams
/// wants it: data()[i] points at the value of parameter i.
///
/// Every value lives in its own 8-byte, 8-aligned slot of a std::deque,
/// which never moves an element when another is appended: a pointer to a
/// value stays valid for the object's lifetime, whatever is added later.
/// The pointer array itself is rebuilt by data(), so copies (which own new
/// slots) hand out pointers into their own storage.
class KernelParams {
public:
  /// What a slot holds, for tests and tools that inspect the list.
  enum class Kind : uint8_t { Ptr, I64, I32, F32, TensorMap };

  /// A device pointer, passed as a 64-bit value.
  void addPtr(const void *ptr) {
    add(Kind::Ptr, uint64_t(reinterpret_cast<uintptr_t>(ptr)));
  }
  void addI64(int64_t value) { add(Kind::I64, value); }
  /// A CUtensorMap (kTensorMapBytes, passed by value), copied into a
  /// 128-byte aligned slot of its own (its alignment in cuda.h).
  void addTensorMap(const void *map) {
    maps_.emplace_back();
    std::memcpy(maps_.back().bytes, map, sizeof(maps_.back().bytes));
    Slot s{};
    s.kind = Kind::TensorMap;
    s.map = maps_.size() - 1;
    slots_.push_back(s);
  }
  void addI32(int32_t value) { add(Kind::I32, value); }
  void addF32(float value) { add(Kind::F32, value); }

  /// A memref argument as MLIR expands it: `ptr` as allocated and aligned
  /// pointer, offset 0, then sizes, then strides (elements). Returns false,
  /// adding nothing, if sizes and strides differ in length: a list of the
  /// wrong length would make the kernel read garbage, silently.
  [[nodiscard]] bool addMemref(const void *ptr, I64Array sizes,
                               I64Array strides) {
    if (sizes.size() != strides.size())
      return false;
    addPtr(ptr); // allocated
    addPtr(ptr); // aligned
    addI64(0);   // offset
    for (size_t i = 0; i < sizes.size(); ++i)
      addI64(sizes[i]);
    for (size_t i = 0; i < strides.size(); ++i)
      addI64(strides[i]);
    return true;
  }

  /// The kernelParams array: size() pointers, one per parameter. Valid
  /// until the next add or copy-assignment; the values it points at stay
  /// where they are until the object dies.
  void **data() {
    ptrs_.resize(slots_.size());
    for (size_t i = 0; i < slots_.size(); ++i)
      ptrs_[i] = slots_[i].kind == Kind::TensorMap ? maps_[slots_[i].map].bytes
                                                   : slots_[i].bytes;
    return ptrs_.data();
  }
  size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }

  Kind kind(size_t i) const { return slots_[i].kind; }
  /// Parameter i read as T (T of the size the slot was added with).
  template <typename T> T value(size_t i) const {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8);
    T out;
    std::memcpy(&out, slots_[i].bytes, sizeof(T));
    return out;
  }
  /// A Ptr parameter as a host-side pointer value.
  const void *pointer(size_t i) const {
    return reinterpret_cast<const void *>(uintptr_t(value<uint64_t>(i)));
  }

private:
  struct Slot {
    // The value at offset 0: cuLaunchKernel reads sizeof(parameter) bytes
    // from the slot's address, which is where memcpy put them.
    alignas(8) unsigned char bytes[8];
    Kind kind;
    size_t map; ///< Kind::TensorMap: its index in maps_
  };
  struct alignas(128) MapSlot { // CUtensorMap's alignment in cuda.h
    unsigned char bytes[128];
  };

  template <typename T> void add(Kind kind, T value) {
    static_assert(sizeof(T) <= 8);
    Slot s{};
    s.kind = kind;
    std::memcpy(s.bytes, &value, sizeof(T));
    slots_.push_back(s);
  }

  std::deque<Slot> slots_;
  std::deque<MapSlot> maps_;
  std::vector<void *> ptrs_;
};

/// A CUtensorMap's size (cuda.h: 128 bytes, 128-byte aligned; the kernel
/// parameter is .align 64).
constexpr size_t kTensorMapBytes = 128;

/// One tensor_maps= entry: the kernel reads memref argument `arg` (0 q,
/// 1 k, 2 v, 3 o, the forward's bias at biasArgument(); backward grids:
/// 0 dO, 1 q, 2 k, 3 v) with bulk copies of
/// `boxRows` rows by `boxBytes` bytes (one shared slab: 128 or 64), swizzled
/// by that width.
struct TensorMapSpec {
  int arg = 0;
  int boxRows = 0;
  int boxBytes = 128;
  bool operator==(const TensorMapSpec &o) const {
    return arg == o.arg && boxRows == o.boxRows && boxBytes == o.boxBytes;
  }
};

/// The manifest value: "1:128,2:64,0:128:64" (BYTES written only where it
/// is not 128); empty for none.
inline std::string formatTensorMaps(const std::vector<TensorMapSpec> &maps) {
  std::string out;
  for (const TensorMapSpec &m : maps)
    out += (out.empty() ? "" : ",") + std::to_string(m.arg) + ":" +
           std::to_string(m.boxRows) +
           (m.boxBytes == 128 ? "" : ":" + std::to_string(m.boxBytes));
  return out;
}

/// Parses formatTensorMaps' text: ARG in [0, 15], ROWS in [1, 256] (a tensor
/// map's box dimension), BYTES (optional) 128 or 64, each ARG at most once.
/// False, with `out` left empty, for anything else.
inline bool parseTensorMaps(const std::string &text,
                            std::vector<TensorMapSpec> &out) {
  out.clear();
  size_t i = 0;
  auto number = [&](int lo, int hi, int &v) {
    size_t start = i;
    long long n = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 4)
      n = n * 10 + (text[i++] - '0');
    v = int(n);
    return i > start && n >= lo && n <= hi;
  };
  while (true) {
    TensorMapSpec m;
    bool ok = number(0, 15, m.arg) && i < text.size() && text[i++] == ':' &&
              number(1, 256, m.boxRows);
    if (ok && i < text.size() && text[i] == ':') {
      ++i;
      ok = number(64, 128, m.boxBytes) &&
           (m.boxBytes == 64 || m.boxBytes == 128);
    }
    for (const TensorMapSpec &o : out)
      ok &= o.arg != m.arg;
    if (!ok) {
      out.clear();
      return false;
    }
    out.push_back(m);
    if (i == text.size())
      return true;
    if (text[i++] != ',') {
      out.clear();
      return false;
    }
  }
}

/// The CUtensorMapSwizzle (cuda.h's value) of a box of `boxBytes` bytes of
/// columns: the swizzle is the slab's width (64: _64B = 2, 128: _128B = 3).
constexpr int tensorMapSwizzle(int boxBytes) { return boxBytes == 64 ? 2 : 3; }

/// What cuTensorMapEncodeTiled takes for one tensor_maps= entry, innermost
/// dimension first: the memref's sizes, its strides in bytes (dims 1..rank-1;
/// the innermost is contiguous) and the box (`boxBytes` bytes of columns by
/// `boxRows` rows, one along every outer dim).
struct TensorMapGeometry {
  uint32_t rank = 0;
  uint64_t dims[5] = {};
  uint64_t strides[4] = {};
  uint32_t box[5] = {};
};

/// The geometry of a row-major memref of `sizes` and element `strides`
/// (outermost first, innermost stride 1) of `elementBytes`-byte elements.
/// A dim of extent 1 is never stepped over and may come with any stride
/// (AttentionShape passes 0): it gets the span of the dims inside it, which
/// a tensor map accepts. False if the memref is not 2-5 dims, a stride of
/// a stepped dim is not a multiple of 16 bytes, or a size is 0.
inline bool tensorMapGeometry(I64Array sizes, I64Array strides,
                              size_t elementBytes, int boxRows,
                              TensorMapGeometry &out, int boxBytes = 128) {
  const size_t rank = sizes.size();
  if (rank < 2 || rank > 5 || strides.size() != rank || !elementBytes ||
      (boxBytes != 128 && boxBytes != 64) || boxBytes % elementBytes)
    return false;
  out = TensorMapGeometry{};
  out.rank = uint32_t(rank);
  uint64_t span = uint64_t(sizes[rank - 1]) * elementBytes;
  for (size_t d = 0; d < rank; ++d) {
    const size_t from = rank - 1 - d; // the memref dim of tensor map dim d
    if (sizes[from] <= 0)
      return false;
    out.dims[d] = uint64_t(sizes[from]);
    out.box[d] = d == 0   ? uint32_t(boxBytes / elementBytes)
                 : d == 1 ? uint32_t(boxRows)
                          : 1u;
    if (d == 0)
      continue;
    uint64_t bytes = sizes[from] == 1 ? (span + 15) / 16 * 16
                                      : uint64_t(strides[from]) * elementBytes;
    if (strides[from] < 0 || bytes % 16 || bytes >= (uint64_t(1) << 40))
      return false;
    out.strides[d - 1] = bytes;
    span = bytes * uint64_t(sizes[from]);
  }
  return true;
}

/// Sizes and element strides of one attention launch: Q [B, Hq, Nq, D],
/// K [B, Hkv, Nk, D], V [B, Hkv, Nk, Dv], O [B, Hq, Nq, Dv],
/// LSE [B, Hq, Nq]. Strides are per dim in that order; the innermost is 1.
/// The memref-ABI kernels address the first row of each tile in 64 bits
/// and its rows from there in 32 (checkProblem bounds the seq stride).
/// The runtime passes 0 for the stride of a dim of extent 1, which is never
/// stepped over and whose value callers (PyTorch) leave arbitrary.
struct AttentionShape {
  int64_t batch = 1, headsQ = 1, headsKV = 1, seqQ = 1, seqK = 1;
  int64_t headDim = 1, headDimV = 1;
  /// A paged KV cache: K and V are [kvPages, Hkv, pageSize, D]; the block
  /// table is [batch, maxPages] with rows tableStride elements apart. 0:
  /// not paged (K and V are [batch, Hkv, seqK, D]).
  int64_t kvPages = 0, pageSize = 0, maxPages = 0, tableStride = 0;
  /// A packed batch (varlen): its B sequences (batch, seqQ and seqK are then
  /// 1, total_q and total_k, the tensors' own dims).
  int64_t sequences = 0;
  /// V is the memref [B, Hkv, Dv, Nk] (fp8: keys contiguous); its strides
  /// are then in that order.
  bool vTransposed = false;
  int64_t q[4] = {0, 0, 0, 1}, k[4] = {0, 0, 0, 1}, v[4] = {0, 0, 0, 1},
          o[4] = {0, 0, 0, 1};
  int64_t lse[3] = {0, 0, 1};
};

/// The sizes and element strides of memref argument `arg` (0 q, 1 k, 2 v,
/// 3 o) of an attention kernel; `arg` must be in [0, 3].
struct AttentionArgument {
  int64_t sizes[4];
  const int64_t *strides;
};
inline AttentionArgument attentionArgument(const AttentionShape &s, int arg) {
  switch (arg) {
  case 0:
    return {{s.batch, s.headsQ, s.seqQ, s.headDim}, s.q};
  case 1:
    if (s.kvPages)
      return {{s.kvPages, s.headsKV, s.pageSize, s.headDim}, s.k};
    return {{s.batch, s.headsKV, s.seqK, s.headDim}, s.k};
  case 2:
    if (s.kvPages)
      return {{s.kvPages, s.headsKV, s.pageSize, s.headDimV}, s.v};
    if (s.vTransposed)
      return {{s.batch, s.headsKV, s.headDimV, s.seqK}, s.v};
    return {{s.batch, s.headsKV, s.seqK, s.headDimV}, s.v};
  default:
    return {{s.batch, s.headsQ, s.seqQ, s.headDimV}, s.o};
  }
}

/// The device arrays of a KV cache (kv=seqlens or kv=paged kernels): the
/// key count of each sequence [B] i32 and, paged, the block table
/// [B, max_pages] i32.
///
/// A packed batch (kv=varlen kernels) instead: the offsets of its B
/// sequences' first query and key rows, cu_q and cu_k [B + 1] i32.
struct KVCacheArgs {
  const int32_t *seqLens = nullptr;
  const int32_t *blockTable = nullptr;
  const int32_t *cuSeqlensQ = nullptr;
  const int32_t *cuSeqlensK = nullptr;
};

/// A KV cache's parameters, after the outputs: lens memref<?xi32> (5) and,
/// paged, table memref<?x?xi32> (7); a packed batch's cu_q and cu_k
/// memref<?xi32> (5 + 5; `sequences` = B). Nothing for a dense kernel.
inline bool addKVCacheParams(KernelParams &p, const AttentionShape &s,
                             const KVCacheArgs *cache) {
  if (cache && cache->cuSeqlensQ)
    return p.addMemref(cache->cuSeqlensQ, {s.sequences + 1}, {1}) &&
           p.addMemref(cache->cuSeqlensK, {s.sequences + 1}, {1});
  if (!cache || !cache->seqLens)
    return true;
  bool ok = p.addMemref(cache->seqLens, {s.batch}, {1});
  if (cache->blockTable)
    ok &= p.addMemref(cache->blockTable, {s.batch, s.maxPages},
                      {s.tableStride, 1});
  return ok;
}

/// The memref-ABI parameters of an attention kernel. `lse` null: the kernel
/// was built with lse=0 and has no lse argument (45 parameters); otherwise
/// 54; a KV cache's arrays follow (addKVCacheParams), then the scale and,
/// for an fp8 kernel (`descale` non-null), its three descale factors q, k,
/// v (f32 each). An ALiBi kernel (alibi=1, `alibi` non-null) takes its
/// slopes [Hq] f32 (5 parameters) just before the scale; a bias kernel
/// (bias=T, `bias` non-null) its bias [1|B, 1|Hq, Nq, Nk] (11 parameters)
/// after them, also before the scale. A dropout kernel
/// (dropout=1, `dropout` non-null) takes its rate (f32), Philox key (i64)
/// and offset (i32) after the scale. Tensor maps (tensor_maps=) are the
/// launcher's to append.
struct DropoutArgs {
  float rate = 0;
  uint64_t seed = 0;
  uint32_t offset = 0;
};
/// A dropout kernel's last three parameters (none for a null `dropout`):
/// the forward's and its backward's alike, so both draw one mask.
inline void addDropoutParams(KernelParams &p, const DropoutArgs *dropout) {
  if (!dropout)
    return;
  p.addF32(dropout->rate);
  p.addI64(int64_t(dropout->seed));
  p.addI32(int32_t(dropout->offset));
}
/// A score bias [sizes] with element strides (the key's 1; a broadcast
/// dim has size 1).
struct BiasArgs {
  const void *data = nullptr;
  int64_t sizes[4] = {1, 1, 1, 1};
  int64_t strides[4] = {0, 0, 0, 1};
};
/// The memref argument a forward kernel takes its score bias as (its
/// tensor_maps= ARG where it reads the bias by bulk copies): after q, k, v,
/// o, the LSE (`lse`) and ALiBi's slopes (`alibi`). (A bias has no KV
/// cache arrays beside it.)
constexpr int biasArgument(bool lse, bool alibi) {
  return 4 + int(lse) + int(alibi);
}
/// Whether bulk tensor copies can read `bias` of `elementBytes`-byte
/// elements: a 16-byte aligned base and strides of whole 16 bytes
/// (tensorMapGeometry; a broadcast dim of size 1 takes any stride), what
/// cuTensorMapEncodeTiled requires.
inline bool biasBulkReadable(const BiasArgs &bias, size_t elementBytes) {
  TensorMapGeometry g;
  return reinterpret_cast<uintptr_t>(bias.data) % 16 == 0 &&
         tensorMapGeometry(I64Array(bias.sizes, 4), I64Array(bias.strides, 4),
                           elementBytes, /*boxRows=*/1, g);
}
inline KernelParams memrefAttentionParams(
    const AttentionShape &s, const void *q, const void *k, const void *v,
    void *o, float *lse, float scale, const KVCacheArgs *cache = nullptr,
    const float *descale = nullptr, const float *alibi = nullptr,
    const DropoutArgs *dropout = nullptr, const BiasArgs *bias = nullptr) {
  KernelParams p;
  // The lengths below always agree; the results are for [[nodiscard]].
  bool ok = true;
  const void *ptrs[4] = {q, k, v, o};
  for (int arg = 0; arg < 4; ++arg) {
    AttentionArgument a = attentionArgument(s, arg);
    ok &= p.addMemref(ptrs[arg], a.sizes, I64Array(a.strides, 4));
  }
  if (lse)
    ok &= p.addMemref(lse, {s.batch, s.headsQ, s.seqQ}, s.lse);
  ok &= addKVCacheParams(p, s, cache);
  if (alibi)
    ok &= p.addMemref(alibi, {s.headsQ}, {1});
  if (bias)
    ok &= p.addMemref(bias->data, I64Array(bias->sizes, 4),
                      I64Array(bias->strides, 4));
  (void)ok;
  p.addF32(scale);
  if (descale)
    for (int i = 0; i < 3; ++i)
      p.addF32(descale[i]);
  addDropoutParams(p, dropout);
  return p;
}

/// The element strides of the backward's gradient tensors (dO and dQ like
/// O and Q: [B, Hq, Nq, *]; dK and dV like K and V: [B, Hkv, Nk, *]);
/// innermost 1.
struct GradStrides {
  int64_t dO[4] = {0, 0, 0, 1}, dQ[4] = {0, 0, 0, 1}, dK[4] = {0, 0, 0, 1},
          dV[4] = {0, 0, 0, 1};
};

/// The memref-ABI parameters of both backward kernels (grad_q and grad_kv
/// take the same list, the arguments of the attn.attention_grad function):
///
///   (dO [B, Hq, Nq, Dv], q, k, v, o, lse [B, Hq, Nq] f32,
///    dQ [B, Hq, Nq, D], dK [B, Hkv, Nk, D], dV [B, Hkv, Nk, Dv],
///    delta [B, Hq, Nq] f32 (the strides of lse), scale f32)
///
/// that is 8 * 11 + 2 * 9 + 1 = 107 parameters. `delta` is the runtime's
/// workspace: grad_q writes Δ = rowsum(dO∘O) there, grad_kv reads it. The
/// backward of an ALiBi forward (alibi=1, `alibi` non-null) takes its
/// slopes [Hq] f32 (5 parameters) just before the scale, as the forward;
/// that of a dropout forward (dropout=1, `dropout` non-null) the forward's
/// rate, Philox key and offset after the scale, as the forward (the same
/// mask). The backward's memref argument `arg` in [0, 3] (0 dO, 1 q, 2 k, 3 v:
/// the first of memrefGradParams' list, the ones a grid may read by bulk
/// copies): sizes and element strides.
inline AttentionArgument gradArgument(const AttentionShape &s,
                                      const GradStrides &g, int arg) {
  if (arg == 0)
    return {{s.batch, s.headsQ, s.seqQ, s.headDimV}, g.dO};
  return attentionArgument(s, arg - 1);
}

inline KernelParams
memrefGradParams(const AttentionShape &s, const GradStrides &g, const void *dO,
                 const void *q, const void *k, const void *v, const void *o,
                 const float *lse, void *dq, void *dk, void *dv, float *delta,
                 float scale, const float *alibi = nullptr,
                 const DropoutArgs *dropout = nullptr) {
  KernelParams p;
  bool ok = true;
  const int64_t kSizes[4] = {s.batch, s.headsKV, s.seqK, s.headDim};
  const int64_t vSizes[4] = {s.batch, s.headsKV, s.seqK, s.headDimV};
  const int64_t qSizes[4] = {s.batch, s.headsQ, s.seqQ, s.headDim};
  const void *ptrs[4] = {dO, q, k, v};
  for (int arg = 0; arg < 4; ++arg) {
    AttentionArgument a = gradArgument(s, g, arg);
    ok &= p.addMemref(ptrs[arg], a.sizes, I64Array(a.strides, 4));
  }
  AttentionArgument out = attentionArgument(s, 3);
  ok &= p.addMemref(o, out.sizes, I64Array(out.strides, 4));
  ok &= p.addMemref(lse, {s.batch, s.headsQ, s.seqQ}, s.lse);
  ok &= p.addMemref(dq, qSizes, g.dQ);
  ok &= p.addMemref(dk, kSizes, g.dK);
  ok &= p.addMemref(dv, vSizes, g.dV);
  ok &= p.addMemref(delta, {s.batch, s.headsQ, s.seqQ}, s.lse);
  if (alibi)
    ok &= p.addMemref(alibi, {s.headsQ}, {1});
  (void)ok;
  p.addF32(scale);
  addDropoutParams(p, dropout);
  return p;
}

/// What a kernel computes (the manifest's program= key; the compiler's
/// attn.program names the same): the forward, or the split-KV pair.
enum class Program {
  Attention,   ///< the forward (absent key)
  SplitKV,     ///< "split_kv": partial O and LSE of key chunks
  MergeSplits, ///< "merge_splits": the partials merged into O (and LSE)
  /// "grad_q": the backward's first grid (Δ and dQ per query block)
  GradQuery,
  /// "grad_kv": the backward's second grid (dK and dV per key block; with
  /// a dQ workspace, dQ's atomic sums too)
  GradKeyValue,
  /// "grad_prep": with a dQ workspace, the first grid (Δ, and zeros into
  /// the workspace, per query block)
  GradPrep,
  /// "grad_q_out": with a dQ workspace, the last grid (dQ = scale · the
  /// workspace, per query block)
  GradQueryOut,
  /// "block_lists": an attention's block lists from its mask_mod
  /// (attn.block_lists; one warp per list row, block_m and block_n the
  /// mask block), launched before the attention that reads them
  BlockLists,
};

/// Whether `p` is one of the backward's grids (grad_q and grad_kv, or
/// grad_prep, grad_kv and grad_q_out with a dQ workspace): all come from one
/// attn.attention_grad and take its argument list.
inline bool isBackwardProgram(Program p) {
  return p == Program::GradQuery || p == Program::GradKeyValue ||
         p == Program::GradPrep || p == Program::GradQueryOut;
}

/// The manifest spelling: "attention", "split_kv", "merge_splits",
/// "grad_q", "grad_kv", "grad_prep", "grad_q_out" or "block_lists".
inline const char *programName(Program p) {
  switch (p) {
  case Program::SplitKV:
    return "split_kv";
  case Program::MergeSplits:
    return "merge_splits";
  case Program::GradQuery:
    return "grad_q";
  case Program::GradKeyValue:
    return "grad_kv";
  case Program::GradPrep:
    return "grad_prep";
  case Program::GradQueryOut:
    return "grad_q_out";
  case Program::BlockLists:
    return "block_lists";
  default:
    return "attention";
  }
}

/// Every program, in the order messages list them.
constexpr Program kPrograms[] = {Program::Attention,    Program::SplitKV,
                                 Program::MergeSplits,  Program::GradQuery,
                                 Program::GradKeyValue, Program::GradPrep,
                                 Program::GradQueryOut, Program::BlockLists};

/// The spellings for messages: "attention, split_kv, ... or grad_kv".
inline std::string programNamesText() {
  std::string out;
  const size_t n = sizeof(kPrograms) / sizeof(kPrograms[0]);
  for (size_t i = 0; i < n; ++i)
    out += std::string(i == 0       ? ""
                       : i + 1 == n ? " or "
                                    : ", ") +
           programName(kPrograms[i]);
  return out;
}

/// Parses the manifest spelling; false for anything else.
inline bool parseProgram(const std::string &text, Program &out) {
  for (Program p : kPrograms)
    if (text == programName(p)) {
      out = p;
      return true;
    }
  return false;
}

/// Where a kernel's keys and values live (the manifest's kv= key; the
/// attention op's kv_lens and pages operands).
enum class KVLayout {
  Dense,   ///< [B, Hkv, Nk, D]: every sequence has Nk keys (absent key)
  SeqLens, ///< "seqlens": the same storage, sequence b has lens[b] keys
  Paged,   ///< "paged": pages [P, Hkv, page_size, D], a block table, lens
  /// "varlen": Q, K, V and O hold a packed batch ([1, H, total, D]) whose
  /// sequences start at the offsets cu_q, cu_k ([B + 1] i32)
  Varlen,
};

/// The manifest spelling: "dense", "seqlens" or "paged".
inline const char *kvLayoutName(KVLayout l) {
  switch (l) {
  case KVLayout::SeqLens:
    return "seqlens";
  case KVLayout::Paged:
    return "paged";
  case KVLayout::Varlen:
    return "varlen";
  default:
    return "dense";
  }
}

/// Parses the manifest spelling; false for anything else.
inline bool parseKVLayout(const std::string &text, KVLayout &out) {
  for (KVLayout l :
       {KVLayout::Dense, KVLayout::SeqLens, KVLayout::Paged, KVLayout::Varlen})
    if (text == kvLayoutName(l)) {
      out = l;
      return true;
    }
  return false;
}

/// What one dim of a launch grid counts a factor of (the manifest's grid=
/// key): batch, heads_q, heads_kv, q_blocks = ceil(Nq / block_m), splits,
/// kv_blocks = ceil(Nk / block_m) (the backward's key-block grid: a grad_kv
/// kernel's rows, its block_m, are keys), group_q_blocks = ceil(G·Nq /
/// block_m) with G = heads_q / heads_kv (a kernel that packs the G query
/// heads of a key/value head into its rows: attn.attention's
/// pack_query_heads).
enum class GridFactor {
  Batch,
  HeadsQ,
  HeadsKV,
  QBlocks,
  Splits,
  KVBlocks,
  GroupQBlocks
};

inline const char *gridFactorName(GridFactor f) {
  switch (f) {
  case GridFactor::Batch:
    return "batch";
  case GridFactor::HeadsQ:
    return "heads_q";
  case GridFactor::HeadsKV:
    return "heads_kv";
  case GridFactor::QBlocks:
    return "q_blocks";
  case GridFactor::KVBlocks:
    return "kv_blocks";
  case GridFactor::GroupQBlocks:
    return "group_q_blocks";
  default:
    return "splits";
  }
}

/// The launch grid a kernel describes (its attn.kernel grid, the
/// manifest's grid=X,Y,Z with each of X, Y, Z a '*'-product of factors and
/// constants, e.g. "q_blocks*splits,heads_q,batch" or "q_blocks*4,heads_q,
/// batch": a constant is a count the kernel fixed at compile time, such as
/// a merge's column blocks). Empty: the kernel did not say (a
/// manifest written before the key); the launcher then assumes
/// (q_blocks[*splits], heads_q, batch).
///
/// A persistent kernel (`persistent(X,Y,Z)`) loops over the X·Y·Z tiles of
/// that grid: launched as min(SM count, X·Y·Z) blocks in x, block b running
/// tiles b, b + P, ... of P launched. A dynamic one (`dynamic(X,Y,Z)`, also
/// persistent) is launched the same way, its blocks claiming tiles from a
/// counter: the launcher passes a pointer to a 32-bit zero in device memory
/// as the kernel's last parameter, after the tensor maps. The kernel leaves
/// it zero when it completes, so one counter serves the launches of one
/// stream one after another, never two launches at once (TileCounter).
struct LaunchGrid {
  std::vector<GridFactor> dims[3];
  /// Each dim's product of constants (1: none).
  int64_t constant[3] = {1, 1, 1};
  bool persistent = false;
  bool dynamic = false;
  bool empty() const {
    return dims[0].empty() && dims[1].empty() && dims[2].empty() &&
           constant[0] == 1 && constant[1] == 1 && constant[2] == 1;
  }
  bool operator==(const LaunchGrid &o) const {
    return dims[0] == o.dims[0] && dims[1] == o.dims[1] &&
           dims[2] == o.dims[2] && constant[0] == o.constant[0] &&
           constant[1] == o.constant[1] && constant[2] == o.constant[2] &&
           persistent == o.persistent && dynamic == o.dynamic;
  }
};

/// The largest constant a grid names (a launch dim's y/z limit).
constexpr int64_t kMaxGridConstant = 65535;

inline std::string formatLaunchGrid(const LaunchGrid &g) {
  std::string out;
  for (int d = 0; d < 3; ++d) {
    out += d ? "," : "";
    for (size_t i = 0; i < g.dims[d].size(); ++i)
      out += std::string(i ? "*" : "") + gridFactorName(g.dims[d][i]);
    if (g.constant[d] != 1 || g.dims[d].empty())
      out += std::string(g.dims[d].empty() ? "" : "*") +
             std::to_string(g.constant[d]);
  }
  if (g.dynamic)
    return "dynamic(" + out + ")";
  return g.persistent ? "persistent(" + out + ")" : out;
}

/// Parses formatLaunchGrid's text: three non-empty products of known
/// factors and constants in [1, kMaxGridConstant] (decimal, no leading
/// zero), possibly inside `persistent(...)` or `dynamic(...)`. False, with
/// `out` left empty, for anything else.
inline bool parseLaunchGrid(const std::string &whole, LaunchGrid &out) {
  out = LaunchGrid();
  auto wrapped = [&](const std::string &prefix) {
    return whole.size() > prefix.size() + 1 &&
           whole.compare(0, prefix.size(), prefix) == 0 && whole.back() == ')';
  };
  const bool dynamic = wrapped("dynamic(");
  const bool persistent = dynamic || wrapped("persistent(");
  const size_t open = whole.find('(');
  const std::string text =
      persistent ? whole.substr(open + 1, whole.size() - open - 2) : whole;
  out.persistent = persistent;
  out.dynamic = dynamic;
  int d = 0;
  size_t begin = 0;
  while (true) {
    size_t end = text.find_first_of(",*", begin);
    std::string name = text.substr(
        begin, end == std::string::npos ? std::string::npos : end - begin);
    bool known = false;
    for (GridFactor f :
         {GridFactor::Batch, GridFactor::HeadsQ, GridFactor::HeadsKV,
          GridFactor::QBlocks, GridFactor::Splits, GridFactor::KVBlocks,
          GridFactor::GroupQBlocks})
      if (name == gridFactorName(f)) {
        out.dims[d].push_back(f);
        known = true;
      }
    if (!known && !name.empty() && name.size() <= 5 && name[0] != '0' &&
        name.find_first_not_of("0123456789") == std::string::npos) {
      int64_t c = std::stoll(name);
      known = c <= kMaxGridConstant && out.constant[d] <= kMaxGridConstant / c;
      out.constant[d] *= c;
    }
    if (!known)
      break;
    if (end == std::string::npos) {
      if (d == 2)
        return true;
      break;
    }
    if (text[end] == ',' && ++d > 2)
      break;
    begin = end + 1;
  }
  out = LaunchGrid();
  return false;
}

/// The values the factors take for one launch, and the device's SM count
/// (a persistent grid's programs).
struct GridValues {
  int64_t batch = 1, headsQ = 1, headsKV = 1, qBlocks = 1, splits = 1;
  int64_t kvBlocks = 1, groupQBlocks = 1;
  int64_t smCount = 0;
};

/// The launch grid `g` describes for `v` (an empty `g`: (q_blocks·splits,
/// heads_q, batch); a persistent one: (min(SMs, x·y·z), 1, 1)). False if a
/// dim falls outside the hardware's limits (x < 2^31, y and z < 2^16) or
/// below 1, or a persistent grid has no SM count.
inline bool launchGridDims(const LaunchGrid &g, const GridValues &v,
                           unsigned out[3]) {
  static const LaunchGrid fallback = [] {
    LaunchGrid d;
    d.dims[0] = {GridFactor::QBlocks, GridFactor::Splits};
    d.dims[1] = {GridFactor::HeadsQ};
    d.dims[2] = {GridFactor::Batch};
    return d;
  }();
  const LaunchGrid &grid = g.empty() ? fallback : g;
  int64_t dims[3];
  for (int d = 0; d < 3; ++d) {
    int64_t n = grid.constant[d];
    for (GridFactor f : grid.dims[d]) {
      int64_t x = f == GridFactor::Batch          ? v.batch
                  : f == GridFactor::HeadsQ       ? v.headsQ
                  : f == GridFactor::HeadsKV      ? v.headsKV
                  : f == GridFactor::QBlocks      ? v.qBlocks
                  : f == GridFactor::KVBlocks     ? v.kvBlocks
                  : f == GridFactor::GroupQBlocks ? v.groupQBlocks
                                                  : v.splits;
      if (x < 1 || n > (int64_t(1) << 31) / x)
        return false;
      n *= x;
    }
    dims[d] = n;
  }
  if (grid.persistent) {
    // The kernel numbers its tiles in 32 bits.
    if (v.smCount < 1 || dims[0] > INT32_MAX / dims[1] ||
        dims[0] * dims[1] > INT32_MAX / dims[2])
      return false;
    int64_t tiles = dims[0] * dims[1] * dims[2];
    out[0] = unsigned(std::min<int64_t>(tiles, v.smCount));
    out[1] = out[2] = 1;
    return true;
  }
  for (int d = 0; d < 3; ++d) {
    if (dims[d] < 1 || dims[d] > (d == 0 ? int64_t(INT32_MAX) : int64_t(65535)))
      return false;
    out[d] = unsigned(dims[d]);
  }
  return true;
}

/// Split-KV partials of one launch with `splits` splits: O_s
/// [S, B, Hq, Nq, Dv] then LSE_s [S, B, Hq, Nq], f32, contiguous, in one
/// workspace (LSE_s right after O_s; both 16-byte aligned when the
/// workspace is, since Dv is a multiple of 4 in every kernel).
struct SplitPartials {
  int64_t splits = 1;
  int64_t o[5] = {0, 0, 0, 0, 1};
  int64_t lse[4] = {0, 0, 0, 1};
  uint64_t oFloats = 0, lseFloats = 0;
};
inline SplitPartials splitPartials(const AttentionShape &s, int64_t splits) {
  SplitPartials w;
  w.splits = splits;
  const int64_t dims[5] = {splits, s.batch, s.headsQ, s.seqQ, s.headDimV};
  int64_t stride = 1;
  for (int d = 4; d >= 0; --d) {
    w.o[d] = stride;
    stride *= dims[d];
  }
  w.oFloats = uint64_t(stride);
  stride = 1;
  for (int d = 3; d >= 0; --d) {
    w.lse[d] = stride;
    stride *= dims[d];
  }
  w.lseFloats = uint64_t(stride);
  return w;
}
/// Bytes of the workspace: O_s, then LSE_s at a 16-byte boundary.
inline uint64_t splitWorkspaceBytes(const SplitPartials &w) {
  return (w.oFloats * 4 + 15) / 16 * 16 + w.lseFloats * 4;
}
inline float *splitLsePartials(const SplitPartials &w, void *workspace) {
  return reinterpret_cast<float *>(static_cast<char *>(workspace) +
                                   (w.oFloats * 4 + 15) / 16 * 16);
}

/// program=split_kv (memref ABI): (q, k, v as the forward, O_s [S, B, Hq,
/// Nq, Dv] f32, LSE_s [S, B, Hq, Nq] f32, scale f32): 3·11 + 13 + 11 + 1 =
/// 58 parameters, then its tensor maps. Grid (ceil(Nq / block_m)·S, Hq, B):
/// x = query block·S + split.
inline KernelParams memrefSplitParams(const AttentionShape &s,
                                      const SplitPartials &w, const void *q,
                                      const void *k, const void *v,
                                      void *workspace, float scale,
                                      const KVCacheArgs *cache = nullptr) {
  KernelParams p;
  bool ok = true;
  const void *ptrs[3] = {q, k, v};
  for (int arg = 0; arg < 3; ++arg) {
    AttentionArgument a = attentionArgument(s, arg);
    ok &= p.addMemref(ptrs[arg], a.sizes, I64Array(a.strides, 4));
  }
  ok &= p.addMemref(workspace,
                    {w.splits, s.batch, s.headsQ, s.seqQ, s.headDimV}, w.o);
  ok &= p.addMemref(splitLsePartials(w, workspace),
                    {w.splits, s.batch, s.headsQ, s.seqQ}, w.lse);
  ok &= addKVCacheParams(p, s, cache);
  (void)ok;
  p.addF32(scale);
  return p;
}

/// program=merge_splits (memref ABI): (O_s, LSE_s as above, O [B, Hq, Nq,
/// Dv], and LSE [B, Hq, Nq] f32 only in kernels built with lse=1): 13 + 11
/// + 11 (+ 9) parameters. Grid (ceil(Nq / block_m), Hq, B).
inline KernelParams memrefMergeParams(const AttentionShape &s,
                                      const SplitPartials &w,
                                      const void *workspace, void *o,
                                      float *lse) {
  KernelParams p;
  bool ok = true;
  void *ws = const_cast<void *>(workspace);
  ok &= p.addMemref(ws, {w.splits, s.batch, s.headsQ, s.seqQ, s.headDimV}, w.o);
  ok &= p.addMemref(splitLsePartials(w, ws),
                    {w.splits, s.batch, s.headsQ, s.seqQ}, w.lse);
  AttentionArgument a = attentionArgument(s, 3);
  ok &= p.addMemref(o, a.sizes, I64Array(a.strides, 4));
  if (lse)
    ok &= p.addMemref(lse, {s.batch, s.headsQ, s.seqQ}, s.lse);
  (void)ok;
  return p;
}

} // namespace attn

#endif // ATTN_RUNTIME_KERNELABI_H
