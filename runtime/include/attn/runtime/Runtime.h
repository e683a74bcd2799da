//===- Runtime.h - the attn GPU runtime (C++ API) ---------------*- C++ -*-===//
//
// Loads attention kernels from a bundle the compiler produced ahead of time
// and launches them on the GPU that holds the caller's tensors:
//
//   std::unique_ptr<attn::Runtime> rt;
//   if (attn::Status s = attn::Runtime::create({}, rt); !s.ok()) ...
//   attn::ForwardProblem p;            // bf16 [B, H, N, D], contiguous
//   p.batch = 2; p.headsQ = p.headsKV = 16; p.seqQ = p.seqK = 4096;
//   p.headDim = p.headDimV = 128; p.causal = true;
//   attn::Status s = rt->forward(p, q, k, v, o, /*lse=*/nullptr, stream);
//
// The CUDA driver is loaded with dlopen at run time, so a program linked
// with this library starts on a machine without a GPU and gets a clear
// error from Runtime::create. No CUDA header is needed to use this one:
// device pointers are void *, streams are CUstream passed as void *.
//
// Contexts: kernels run in the primary context of the device that holds q
// (the context the CUDA runtime API and PyTorch use); a stream passed in must
// belong to that context.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_RUNTIME_RUNTIME_H
#define ATTN_RUNTIME_RUNTIME_H

#include "attn/runtime/Bundle.h"
#include "attn/runtime/KernelABI.h"
#include "attn/runtime/KernelCompiler.h"
#include "attn/runtime/Reference.h"
#include "attn/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace attn {

/// Element strides of a 4-d tensor [batch, head, seq, dim]. All zero means
/// contiguous (the default); otherwise `dim` must be 1.
struct Strides {
  int64_t batch = 0, head = 0, seq = 0, dim = 0;
  bool isDefault() const { return !batch && !head && !seq && !dim; }
};

/// Strides of a contiguous [*, heads, seq, dim] tensor.
Strides contiguousStrides(int64_t heads, int64_t seq, int64_t dim);

/// One attention forward call: Q [B, Hq, Nq, D], K [B, Hkv, Nk, D],
/// V [B, Hkv, Nk, Dv] -> O [B, Hq, Nq, Dv] and, if withLse, the row
/// log-sum-exp LSE [B, Hq, Nq] (f32, contiguous, natural log). Causal is
/// aligned to the bottom-right corner when Nq != Nk; a row that sees no key
/// gets O = 0 and LSE = -inf. dtype E4M3 (fp8, the dense forward on sm_90):
/// Q, K, V e4m3, O bf16, V stored transposed (valueTransposed: its strides
/// have seq = 1), the descale factors of ProblemShape passed to the kernel.
struct ForwardProblem : ProblemShape {
  Strides q, k, v, o;
  bool withLse = false;
  /// A KV cache (decoding from a serving engine's cache; KVCacheArgs give
  /// its device arrays to forward): SeqLens, sequence b has its own key
  /// count lens[b] in [0, seqK] (causal alignment uses it for Nk); Paged,
  /// the same with K and V as pages [numPages, Hkv, pageSize, D] (the k and
  /// v strides' batch entry steps over pages) and key j of sequence b in
  /// page table[b, j / pageSize] (vLLM's layout); seqK must then be the
  /// capacity maxPages · pageSize. pageSize: a power of two >= 16.
  KVLayout kvLayout = KVLayout::Dense;
  int64_t pageSize = 0, numPages = 0, maxPages = 0;
  /// Elements between rows of the block table; 0: maxPages.
  int64_t tableStride = 0;
  /// kvLayout Varlen (a packed batch, FlashAttention's varlen): Q and O are
  /// [totalQ rows, Hq, *], K and V [totalK rows, Hkv, *] (their strides'
  /// batch entry is unused); batch is the number of sequences, seqQ and
  /// seqK the longest sequence's query and key counts (the grid is sized
  /// by seqQ); sequence b owns rows [cu_q[b], cu_q[b+1]) and keys
  /// [cu_k[b], cu_k[b+1]) (KVCacheArgs::cuSeqlensQ/K), causal aligned in
  /// each. LSE is [1, Hq, totalQ], contiguous.
  int64_t totalQ = 0, totalK = 0;
  /// With `alibi` (ProblemShape): the device array of the Hq f32 slopes,
  /// contiguous, 4-byte aligned.
  const float *alibiSlopes = nullptr;
  /// With `bias` (ProblemShape): the device tensor [biasBatch, biasHeads,
  /// seqQ, seqK] of biasType, biasBatch 1 or batch and biasHeads 1 or
  /// headsQ (1 broadcasts over the dim), element strides biasStrides (all
  /// zero: contiguous; otherwise `dim`, the key's, must be 1), aligned to
  /// its element.
  const void *biasData = nullptr;
  int64_t biasBatch = 1, biasHeads = 1;
  Strides biasStrides;
  /// Whether forward reads the key counts (and the block table), or a packed
  /// batch's offsets, back before the launch and checks every entry a
  /// sequence reaches: lengths within [0, seqK], pages within [0, numPages),
  /// offsets from 0, non-decreasing, within the packed rows, no sequence
  /// longer than seqQ / seqK. It synchronises the stream
  /// (and cannot run inside a CUDA graph capture): a serving loop that
  /// builds its tables itself turns it off, and the kernels then trust them.
  bool checkKVCache = true;
  /// The kernel packs the G = Hq / Hkv query heads of each key/value head
  /// into the rows of its programs, (position i, head g) as row i·G + g, so
  /// that K and V are read once per group (a kernel with pack_query_heads;
  /// the tensors as given). The runtime sets it for GQA problems of more
  /// than one query row (packQueryHeads); a caller's value is ignored.
  bool packHeads = false;

  bool paged() const { return kvLayout == KVLayout::Paged; }
  bool varlen() const { return kvLayout == KVLayout::Varlen; }
  /// The tensors' dims 0 and 2: Q and O [qBatch, Hq, qRows, *]; K and V
  /// [kvBlocks, Hkv, kvRows, *] (pages and page size, one packed batch, or
  /// batch and seqK).
  int64_t qBatch() const { return varlen() ? 1 : batch; }
  int64_t qRows() const { return varlen() ? totalQ : seqQ; }
  /// The query rows a kernel's programs tile: qRows(), times G when the
  /// kernel packs the query heads (packHeads).
  int64_t kernelRows() const {
    return packHeads && headsKV > 0 ? qRows() * (headsQ / headsKV) : qRows();
  }
  /// The heads a kernel's grid counts: Hq, or Hkv when packHeads.
  int64_t kernelHeads() const { return packHeads ? headsKV : headsQ; }
  int64_t kvBlocks() const { return paged() ? numPages : varlen() ? 1 : batch; }
  int64_t kvRows() const {
    return paged() ? pageSize : varlen() ? totalK : seqK;
  }

  /// The strides the kernel gets: defaults filled in.
  Strides stridesQ() const;
  Strides stridesK() const;
  Strides stridesV() const;
  Strides stridesO() const;
  /// The bias's strides: defaults filled in.
  Strides stridesBias() const;
  /// The bias as the kernel takes it (KernelABI.h); empty without one.
  BiasArgs biasArgs() const;
  /// Whether bulk tensor copies can read the bias (biasBulkReadable): what
  /// a kernel that reads it so (KernelEntry::readsBiasInBulk) needs.
  bool biasBulk() const {
    return bias && biasBulkReadable(biasArgs(), dtypeSize(biasType));
  }
};

/// One attention backward call (FlashAttention's: S and P recomputed from
/// Q, K and the forward's LSE): from dO [B, Hq, Nq, Dv] and the forward's
/// Q, K, V, O and LSE [B, Hq, Nq] (f32, contiguous: what forward wrote with
/// withLse) to dQ [B, Hq, Nq, D], dK [B, Hkv, Nk, D] and dV [B, Hkv, Nk, Dv].
/// GQA: dK and dV are summed over the query heads of a group. Causal
/// bottom-right as in the forward; a query row that sees no key gets
/// dQ = 0. Deterministic: every gradient is written once, from sums in a
/// fixed order (a second call writes the same bits). The dense problem of
/// 16-bit tensors, with the forward's score variants (a sliding window, a
/// soft-cap, ALiBi: ProblemShape's, the same values as the forward's; not
/// dropout); head dims up to 128 on the GPU.
struct BackwardProblem : ProblemShape {
  /// All zero: contiguous. dO is laid out like O, dQ like Q, dK like K and
  /// dV like V (or each with its own strides).
  Strides q, k, v, o, dO, dQ, dK, dV;
  /// With `alibi` (ProblemShape): the device array of the Hq f32 slopes the
  /// forward took.
  const float *alibiSlopes = nullptr;

  /// The forward this differentiates (its tensors' strides; withLse).
  ForwardProblem forward() const;
  Strides stridesDO() const;
  Strides stridesDQ() const;
  Strides stridesDK() const;
  Strides stridesDV() const;
};

/// Checks the problem's own rules: dims >= 1 and within the grid and 32-bit
/// limits, Hq % Hkv == 0, scale, strides (non-negative, 16-byte multiples,
/// below 2^40 bytes, last dim contiguous, O not overlapping itself), and a
/// seq stride small enough for the 32-bit offsets of a tile's rows from its
/// first (the kernels address each tile's first row in 64 bits: a tensor
/// may span 2^31 elements or more).
Status checkProblem(const ForwardProblem &p);

/// A bundle's kernels grouped by program, dtype and value head dim (what
/// every lookup below matches first), in manifest order, so that a lookup
/// reads its own group instead of every line: on a decode step's host path
/// the scans over a whole bundle cost microseconds a call. It points into
/// `bundle`, which must outlive it unchanged (the runtime's own manifest).
class KernelIndex {
public:
  KernelIndex() = default;
  explicit KernelIndex(const Manifest &bundle);
  KernelIndex(Manifest &&) = delete; // it would point into a temporary
  /// The manifest it indexes (null: none; lookups given another manifest
  /// scan that one).
  const Manifest *manifest() const { return manifest_; }
  /// The kernels of `program` for `dtype` whose head_dim_v is `headDimV`.
  const std::vector<const KernelEntry *> &group(Program program, DType dtype,
                                                int64_t headDimV) const;

private:
  std::map<std::tuple<int, int, int64_t>, std::vector<const KernelEntry *>>
      groups_;
  std::vector<const KernelEntry *> none_;
  const Manifest *manifest_ = nullptr;
};

/// Checks that `bundle` has a kernel for the problem's dtype, head dims,
/// mask and LSE, and returns every chip variant of it in `candidates`. With
/// LSE only lse=1 kernels serve, without only lse=0 ones (a kernel writes
/// the LSE it has an argument for). With `index` (of `bundle`) the serving
/// kernels are looked for in their group only; the result is the same.
/// Kernels tuned for a length (min_seq_q=, max_seq_q=) serve the rows in
/// their range; with `smCount` (the device's multiprocessors, 0: unknown)
/// one tuned for long sequences (a taller query block) serves only a grid
/// of at least two waves (2·smCount query blocks), so that a small batch
/// keeps the shorter block's more, smaller programs.
Status findKernels(const Manifest &bundle, const ForwardProblem &p,
                   std::vector<const KernelEntry *> &candidates,
                   const KernelIndex *index = nullptr, int smCount = 0);

/// The split-KV (flash-decoding) kernels of `bundle` for `p`: every chip
/// variant of the split_kv kernel (dtype, head dims and mask of `p`) and of
/// the merge_splits kernel (dtype, head dim v and LSE of `p`). NotInBundle
/// if either is missing: the forward then runs unsplit. `index` as for
/// findKernels.
Status findSplitKernels(const Manifest &bundle, const ForwardProblem &p,
                        std::vector<const KernelEntry *> &split,
                        std::vector<const KernelEntry *> &merge,
                        const KernelIndex *index = nullptr);

/// `p` with the query heads that share a key/value head packed into the
/// rows of one head (GQA decoding): for Nq = 1 and Hq = G·Hkv, G > 1, the
/// same memory seen as Hq' = Hkv heads of Nq' = G rows (query head j·G + i
/// is row i of head j), non-causal (a single query row sees every key
/// either way); LSE [B, Hq, 1] is [B, Hkv, G] in the same bytes. Each
/// key/value head is then read by one program instead of G. Any other
/// problem is returned as it is.
ForwardProblem packQueryHeads(const ForwardProblem &p);

/// How many key/value splits a forward of `p` runs with on a device of
/// `smCount` multiprocessors, one thread block of `blockM` x `blockN`
/// tiles per multiprocessor (1: none). Splits pay only where the unsplit
/// grid leaves multiprocessors idle (fewer thread blocks than 80% of
/// them): then the fewest splits whose waves are at least 85% as full as
/// the best count's, at most 128 and at least 256 keys each. `forced`
/// > 0 (RuntimeOptions::kvSplits) replaces the choice for such grids,
/// bounded the same way. `unsplitBlockM` (0: `blockM`) is the query block
/// of the forward that runs when the keys are not split: its grid decides
/// whether to split and is the one-split count's wave.
int64_t chooseKVSplits(const ForwardProblem &p, int smCount, int blockM,
                       int blockN, int64_t forced = 0, int unsplitBlockM = 0);

/// checkProblem, findKernels, then the variant for a device of compute
/// capability ccMajor.ccMinor (and `smCount` multiprocessors, 0: unknown).
Status selectKernel(const Manifest &bundle, const ForwardProblem &p,
                    int ccMajor, int ccMinor, const KernelEntry *&out,
                    const KernelIndex *index = nullptr, int smCount = 0);

/// The variant of `candidates` (one kernel's chip variants, from
/// findKernels) for a device of compute capability ccMajor.ccMinor: the
/// best chip (selectVariant on chips) among the lse=0 kernels, or among the
/// others if no lse=0 kernel runs there.
Status selectVariant(const std::vector<const KernelEntry *> &candidates,
                     int ccMajor, int ccMinor, const KernelEntry *&out);

/// The sizes and strides a kernel is launched with (KernelABI.h): defaults
/// filled in, and 0 as the stride of every dim of extent 1 (never stepped
/// over; checkProblem does not bound it).
AttentionShape kernelShape(const ForwardProblem &p);

/// Null pointers (lse only if requested; a non-null lse when not requested
/// is an error too), alignment (16 bytes; 4 for lse) and overlap of the
/// output with the inputs. Needs no GPU: addresses are only compared.
Status checkPointers(const ForwardProblem &p, const void *q, const void *k,
                     const void *v, const void *o, const void *lse);

/// Bytes from the first to one past the last element of each tensor.
struct TensorExtents {
  uint64_t q = 0, k = 0, v = 0, o = 0, lse = 0;
  /// The score bias's bytes (0 without one).
  uint64_t bias = 0;
};
TensorExtents tensorExtents(const ForwardProblem &p);

/// The backward's own rules: the forward's (checkProblem on forward()),
/// the gradients' strides (as their forward tensors', and no gradient
/// overlapping itself), and what the backward has: the dense problem, no
/// window, soft-cap or ALiBi, f16/bf16 (f32 runs on the CPU path), not
/// e4m3.
Status checkBackwardProblem(const BackwardProblem &p);

/// Every chip variant of the bundle's backward kernels for `p` (dtype, head
/// dims, mask): its grad_q kernels in `gradQ`, its grad_kv kernels in
/// `gradKV`. NotInBundle (saying what the bundle has) if either is missing.
Status findBackwardKernels(const Manifest &bundle, const BackwardProblem &p,
                           std::vector<const KernelEntry *> &gradQ,
                           std::vector<const KernelEntry *> &gradKV);

/// The sizes and strides of the backward's launch: q, k, v, o and lse as
/// kernelShape(p.forward()), the gradients' in `grad` (dO, dQ, dK, dV, in
/// that order; 0 for a dim of extent 1).
AttentionShape kernelShape(const BackwardProblem &p, GradStrides &grad);

/// Bytes each gradient tensor spans (dO, dQ, dK, dV).
struct GradExtents {
  uint64_t dO = 0, dQ = 0, dK = 0, dV = 0;
};
GradExtents gradExtents(const BackwardProblem &p);

/// Null pointers, alignment (16 bytes; 4 for lse) and overlap: dQ, dK and
/// dV must not overlap an input (dO, Q, K, V, O, LSE) or each other.
Status checkBackwardPointers(const BackwardProblem &p, const void *dO,
                             const void *q, const void *k, const void *v,
                             const void *o, const float *lse, const void *dq,
                             const void *dk, const void *dv);

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  int maxSmemPerBlockOptin = 0; ///< bytes
};

struct RuntimeOptions {
  /// Empty: defaultBundleDir().
  std::string bundleDir;
  /// Empty: "libcuda.so.1". Tests point this at the stub library or a
  /// missing file to exercise the no-GPU paths.
  std::string driverLibrary;
  /// Compiles the kernels the bundle lacks (KernelCompiler.h; libattn_jit's
  /// attn::jit::createCompiler makes one). Null: a problem the bundle does
  /// not hold fails with StatusCode::NotInBundle.
  std::shared_ptr<KernelCompiler> compiler;
  /// false: no bundle at all (bundleDir is ignored); every kernel comes
  /// from `compiler`, which must then be set.
  bool useBundle = true;
  /// Key/value splits of a forward whose grid is smaller than the device
  /// (chooseKVSplits): 0 chooses (the default; the environment variable
  /// ATTN_KV_SPLITS, if set, takes its place: what the C API and tools get),
  /// 1 never splits, N > 1 splits such grids N ways (at most one split per
  /// 4 key blocks).
  int64_t kvSplits = 0;
  /// Kernels that wait for the grids before them (the manifest's pdl=1: a
  /// decode step's split and merge kernels) are launched with programmatic
  /// stream serialization on sm_90 and later, so their launch and prologue
  /// run under the previous grid's tail. false launches every kernel after
  /// the one before it (the environment variable ATTN_DEPENDENT_LAUNCH=0
  /// does the same where this is true: what the C API and tools get).
  bool dependentLaunch = true;
};

/// The bundle directory used when RuntimeOptions::bundleDir is empty, the
/// first of:
///   1. $ATTN_BUNDLE_DIR, if set and not empty;
///   2. an installed bundle: <dir>/../share/attn/bundle, where <dir> holds
///      the file the runtime's code was loaded from (libattn_runtime_c.so,
///      or the program that links libattn_runtime.a), if that directory has
///      a manifest.txt. `cmake --install` puts the bundle there, so an
///      installed prefix finds its own bundle wherever it is moved;
///   3. the directory the runtime was configured with (CMake's
///      ATTN_BUNDLE_DIR: <build>/bundle in the full build).
/// A program that links the static runtime but lives outside the prefix
/// passes the prefix's bundle itself (CMake: ${attn_BUNDLE_DIR} from
/// find_package(attn); pkg-config: the `bundledir` variable) or sets
/// $ATTN_BUNDLE_DIR.
std::string defaultBundleDir();

/// What ran (or would run): the manifest entry, the device, and the image
/// the kernel's module was loaded from. From lastKernel: what was loaded.
/// From Runtime::selectKernel: the same if the kernel is already loaded on
/// that device, else what the runtime will try first.
struct KernelChoice {
  KernelEntry kernel;
  DeviceInfo device;
  /// "sass": the bundle's cubin for exactly this device's chip (selectSass),
  /// loaded as machine code, no JIT. "ptx": the kernel's PTX, JIT-compiled
  /// by the driver (no cubin for this chip, or the cubin failed to load).
  std::string image;
  /// The file it came from (a path in the bundle).
  std::string imageFile;
  /// Why the bundle's cubin for this device was not used, when image is
  /// "ptx" because it failed to load (the driver's error, e.g.
  /// CUDA_ERROR_NO_BINARY_FOR_GPU); empty otherwise.
  std::string fallback;
  /// Where the kernel came from: "bundle", or, for a kernel the bundle
  /// lacks, the compiler's account (libattn_jit: "hit <cache entry>",
  /// "stored <cache entry>", "compiled (cache off)", ...). Empty from
  /// selectKernel for a bundled kernel not loaded yet.
  std::string origin;
  /// Milliseconds per stage of getting the module: the compiler's stages
  /// (CompiledImage::stageMs), then "load" (cuModuleLoadDataEx and the
  /// function checks). Empty until the kernel is loaded.
  std::vector<std::pair<std::string, double>> stageMs;
  /// Key/value splits of the launch (chooseKVSplits): 1, or S > 1 when
  /// `kernel` is a split_kv kernel followed by `mergeKernel`.
  int64_t kvSplits = 1;
  /// The kernel launched after `kernel`: the merge_splits kernel of a
  /// split forward, or a backward's grad_kv kernel (`kernel` is then its
  /// grad_q kernel); empty otherwise.
  std::string mergeKernel;
};

class Runtime {
public:
  /// Loads the CUDA driver (cuInit) and the bundle's manifest. Fails with
  /// NoDriver / NoDevice on a machine without a usable GPU, BundleError on a
  /// missing or malformed bundle.
  static Status create(const RuntimeOptions &options,
                       std::unique_ptr<Runtime> &out);
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  const Manifest &bundle() const;
  int deviceCount() const;
  Status deviceInfo(int ordinal, DeviceInfo &out);

  /// Validates the problem and picks the kernel for `device` without
  /// launching anything. A kernel the bundle lacks is compiled and loaded
  /// (when the runtime has a compiler): what it is depends on the compile.
  Status selectKernel(const ForwardProblem &p, int device, KernelChoice &out);

  /// Validates everything (the problem, the pointers: device memory on one
  /// GPU, large enough, not overlapping; the stream's context), loads the
  /// kernel for that GPU on first use, and launches it on `stream`
  /// (a CUstream; nullptr is the default stream). Asynchronous like any
  /// launch. Nothing is written to o or lse unless it returns ok.
  /// Thread-safe.
  Status forward(const ForwardProblem &p, const void *q, const void *k,
                 const void *v, void *o, float *lse, void *stream);
  /// The same over a KV cache (p.kvLayout SeqLens or Paged: `cache` holds
  /// the device arrays of key counts and, paged, the block table) or a
  /// packed batch (Varlen: the offsets cuSeqlensQ/K). With p.checkKVCache
  /// (the default) they are read back and checked first; a bad entry is an
  /// error and nothing is launched.
  Status forward(const ForwardProblem &p, const KVCacheArgs &cache,
                 const void *q, const void *k, const void *v, void *o,
                 float *lse, void *stream);

  /// The backward of a forward that wrote `lse` (BackwardProblem): dQ, dK
  /// and dV from dO, Q, K, V, O and LSE, validated like forward (device
  /// memory on one GPU, large enough, no output overlapping an input or
  /// another output; the stream's context). Two kernels on `stream`: the
  /// query-block grid (Δ = rowsum(dO∘O) into a workspace of the runtime's
  /// pool, and dQ), then the key-block grid (dK, dV). Kernels the bundle
  /// lacks come from the compiler, as for forward. Nothing is written to
  /// dq, dk or dv unless it returns ok. Thread-safe.
  Status backward(const BackwardProblem &p, const void *dO, const void *q,
                  const void *k, const void *v, const void *o, const float *lse,
                  void *dq, void *dk, void *dv, void *stream);

  /// Compile ahead: validates each problem (pointers are not looked at) and
  /// loads the kernel it needs on `device` - compiling it first where the
  /// bundle lacks it - so that the first forward does not wait. Stops at
  /// the first failure; the message names the problem's index.
  Status prepare(const std::vector<ForwardProblem> &problems, int device);
  /// The kernel of the last successful forward (any thread); false if none.
  bool lastKernel(KernelChoice &out) const;

  /// Device memory helpers for tests, tools and embedding programs (driver
  /// API, primary context of `device`). Copies are synchronous.
  Status allocate(int device, size_t bytes, void **ptr);
  Status release(void *ptr);
  Status copyToDevice(void *dst, const void *src, size_t bytes);
  Status copyToHost(void *dst, const void *src, size_t bytes);
  Status fill(void *dst, uint8_t byte, size_t bytes);
  Status synchronize(int device);

  struct Impl;

private:
  explicit Runtime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Device memory that frees itself.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer &&o) noexcept { *this = std::move(o); }
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  static Status allocate(Runtime &rt, int device, size_t bytes,
                         DeviceBuffer &out);
  void *get() const { return ptr_; }
  size_t size() const { return bytes_; }
  void reset();

private:
  Runtime *rt_ = nullptr;
  void *ptr_ = nullptr;
  size_t bytes_ = 0;
};

} // namespace attn

#endif // ATTN_RUNTIME_RUNTIME_H
