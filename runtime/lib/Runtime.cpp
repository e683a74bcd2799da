//===- Runtime.cpp - load bundle kernels and launch them --------*- C++ -*-===//
#include "attn/runtime/Runtime.h"

#include "Driver.h"
#include "attn/runtime/Chips.h"

#include <array>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <tuple>
#include <vector>

#if defined(__linux__)
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>
#endif

#ifndef ATTN_DEFAULT_BUNDLE_DIR
#define ATTN_DEFAULT_BUNDLE_DIR "bundle"
#endif
// Where an installed bundle lies relative to the directory of the file that
// holds the runtime's code: <prefix>/lib/libattn_runtime_c.so and
// <prefix>/bin/<program> (a program that links libattn_runtime.a and is
// installed next to it, such as attn-run) both give <prefix>/share/attn/bundle
// (cmake --install puts the bundle there).
#ifndef ATTN_RELATIVE_BUNDLE_DIR
#define ATTN_RELATIVE_BUNDLE_DIR "../share/attn/bundle"
#endif

namespace attn {

using detail::Driver;
using detail::ScopedContext;

namespace {

// The default limit of dynamic shared memory per block; a kernel that wants
// more must opt in through its function attribute.
constexpr int kDefaultDynamicSmem = 48 * 1024;

std::string hex(const void *p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%" PRIxPTR,
                reinterpret_cast<uintptr_t>(p));
  return buf;
}

CUdeviceptr devicePtr(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

Status invalid(const std::string &msg) {
  return Status::error(StatusCode::InvalidArgument, msg);
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

/// One memref argument a kernel may read by bulk tensor copies: its name
/// in messages, device pointer, sizes and element strides, element type.
struct BulkSource {
  const char *name;
  const void *ptr;
  AttentionArgument arg;
  DType dtype;
};

/// Encodes the kernel's tensor maps (its manifest's tensor_maps=, in order)
/// for the memref arguments `source(ARG)` describes and appends them to
/// `params` (KernelABI.h). A map that cannot be encoded is an error that
/// names its tensor: nothing is launched.
template <typename SourceFn>
Status encodeTensorMaps(const Driver &drv, const KernelEntry &kernel,
                        SourceFn source, KernelParams &params) {
  for (const TensorMapSpec &m : kernel.tensorMaps) {
    const BulkSource src = source(m.arg);
    TensorMapGeometry g;
    const size_t elementBytes = dtypeSize(src.dtype);
    if (!tensorMapGeometry(src.arg.sizes, I64Array(src.arg.strides, 4),
                           elementBytes, m.boxRows, g, m.boxBytes))
      return invalid(std::string("unsupported: ") + src.name +
                     " cannot be read by bulk tensor copies (kernel " +
                     kernel.name +
                     "): a stride is not a multiple of 16 bytes or the "
                     "tensor is empty");
    CUtensorMap map; // aligned as cuda.h declares it
    const CUtensorMapDataType type =
        src.dtype == DType::F16    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
        : src.dtype == DType::E4M3 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
        : src.dtype == DType::F32  ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    const cuuint32_t unit[5] = {1, 1, 1, 1, 1};
    if (CUresult r = drv.tensorMapEncodeTiled(
            &map, type, g.rank, const_cast<void *>(src.ptr), g.dims, g.strides,
            g.box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
            CUtensorMapSwizzle(tensorMapSwizzle(m.boxBytes)),
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        r != CUDA_SUCCESS)
      return drv.fail(std::string("cuTensorMapEncodeTiled (") + src.name +
                          " of " + kernel.name + ")",
                      r);
    static_assert(sizeof(CUtensorMap) == kTensorMapBytes);
    static_assert(tensorMapSwizzle(64) == CU_TENSOR_MAP_SWIZZLE_64B &&
                  tensorMapSwizzle(128) == CU_TENSOR_MAP_SWIZZLE_128B);
    params.addTensorMap(&map);
  }
  return Status::success();
}

/// A forward kernel's tensor maps: ARG 0 q, 1 k, 2 v, 3 o of `shape`, and
/// its score bias (`bias` of `biasType`) at biasArgument().
Status appendTensorMaps(const Driver &drv, const KernelEntry &kernel,
                        const AttentionShape &shape,
                        std::array<const void *, 4> ptrs, KernelParams &params,
                        const BiasArgs *bias = nullptr,
                        DType biasType = DType::F32) {
  static const char *const names[] = {"q", "k", "v", "o"};
  for (const TensorMapSpec &m : kernel.tensorMaps)
    if (m.arg > 3 && !(bias && m.arg == biasArgument(kernel.lse, kernel.alibi)))
      return Status::error(StatusCode::Internal,
                           "kernel " + kernel.name +
                               " reads its memref argument " +
                               std::to_string(m.arg) +
                               " by bulk copies, which is not one the "
                               "runtime encodes a tensor map of");
  return encodeTensorMaps(
      drv, kernel,
      [&](int arg) {
        if (arg > 3) {
          AttentionArgument a{{}, bias->strides};
          std::copy(bias->sizes, bias->sizes + 4, a.sizes);
          return BulkSource{"bias", bias->data, a, biasType};
        }
        // O (arg 3) has the output's dtype (bf16 for fp8 inputs).
        return BulkSource{names[arg], ptrs[arg], attentionArgument(shape, arg),
                          arg == 3 ? outputDType(kernel.dtype) : kernel.dtype};
      },
      params);
}

/// A backward kernel's tensor maps: ARG 0 dO, 1 q, 2 k, 3 v (the first
/// memref arguments of both grids, memrefGradParams).
Status appendGradTensorMaps(const Driver &drv, const KernelEntry &kernel,
                            const AttentionShape &shape, const GradStrides &gs,
                            std::array<const void *, 4> ptrs,
                            KernelParams &params) {
  static const char *const names[] = {"dO", "q", "k", "v"};
  return encodeTensorMaps(
      drv, kernel,
      [&](int arg) {
        return BulkSource{names[arg], ptrs[arg], gradArgument(shape, gs, arg),
                          kernel.dtype};
      },
      params);
}

/// `p` as the kernels see it (packQueryHeads), unless packing would leave
/// the bundle without a kernel that the problem as given has (a bundle of
/// causal kernels only: a packed decode step is non-causal). A compiler
/// makes whatever the packed problem needs.
ForwardProblem kernelProblem(const Manifest &bundle, const KernelIndex &index,
                             bool haveCompiler, const ForwardProblem &given) {
  // (The caller's packHeads is not the runtime's decision.)
  ForwardProblem p = given;
  p.packHeads = false;
  ForwardProblem packed = packQueryHeads(p);
  if (haveCompiler || (packed.seqQ == p.seqQ && !packed.packHeads))
    return packed;
  std::vector<const KernelEntry *> a, b;
  // Kernels that pack the heads themselves: only where the bundle has the
  // forward (the split pair is used where splits pay, the forward
  // otherwise), else the problem as given, and its own lookup's message.
  if (packed.packHeads)
    return findKernels(bundle, packed, a, &index).ok() ? packed : p;
  if (findKernels(bundle, packed, a, &index).ok() ||
      findSplitKernels(bundle, packed, a, b, &index).ok() ||
      !findKernels(bundle, p, a, &index).ok())
    return packed;
  return p;
}

/// The factors of `k`'s launch grid for problem `p` (KernelABI.h).
GridValues gridValues(const ForwardProblem &p, const KernelEntry &k,
                      int64_t splits, int smCount) {
  GridValues v;
  v.smCount = smCount;
  v.batch = p.batch;
  v.headsQ = p.headsQ;
  v.headsKV = p.headsKV;
  v.qBlocks = (p.seqQ + k.blockM - 1) / k.blockM;
  // A kernel that packs the G query heads of a key/value head tiles G·Nq
  // rows.
  const int64_t g = p.headsKV > 0 ? p.headsQ / p.headsKV : 1;
  v.groupQBlocks = (p.seqQ * g + k.blockM - 1) / k.blockM;
  v.splits = splits;
  return v;
}

Status gridError(const KernelEntry &k) {
  return Status::error(StatusCode::Unsupported,
                       "unsupported: the launch grid " +
                           (k.grid.empty() ? std::string("(default)")
                                           : formatLaunchGrid(k.grid)) +
                           " of " + k.name +
                           " exceeds the device's grid limits");
}

/// What the driver knows about an address.
struct PointerInfo {
  unsigned memoryType = 0; // CUmemorytype, 0 if not CUDA memory
  int device = -1;
  CUdeviceptr rangeStart = 0;
  size_t rangeSize = 0;
};

} // namespace

struct Runtime::Impl {
  const Driver *drv = nullptr;
  Manifest bundle;
  /// `bundle` grouped for lookups (built once it is loaded; it never
  /// changes after).
  KernelIndex index;
  int deviceCount = 0;

  struct Device {
    CUdevice handle = 0;
    CUcontext ctx = nullptr; // retained primary context
    DeviceInfo info;
  };
  struct Loaded {
    CUmodule module = nullptr;
    CUfunction fn = nullptr;
    int device = 0;
    /// What the module came from (KernelChoice's fields of the same names):
    /// "sass" or "ptx", the file (or what loadImage's caller named it),
    /// and why a cubin of the bundle was not used.
    std::string image, imageFile, fallback;
    /// KernelChoice::origin and stageMs.
    std::string origin;
    std::vector<std::pair<std::string, double>> stageMs;
  };
  /// A kernel the bundle lacks, from the compiler: one per (request,
  /// device). Its mutex makes one thread compile while others asking for
  /// the same kernel wait; other kernels (and every bundled one) go on.
  struct JitSlot {
    std::mutex mu;
    bool ready = false;
    KernelEntry entry;
    Loaded loaded;
  };
  std::shared_ptr<KernelCompiler> compiler;
  /// RuntimeOptions::kvSplits (or ATTN_KV_SPLITS): 0 choose, 1 never.
  int64_t kvSplits = 0;
  /// RuntimeOptions::dependentLaunch (and ATTN_DEPENDENT_LAUNCH).
  bool dependentLaunch = true;

  /// Launches `k` (loaded as `fn`) on `stream`: a kernel that waits for the
  /// grids before it (pdl=1) with programmatic stream serialization where
  /// the device has it (sm_90 and later), so that its blocks start under
  /// the previous grid's tail; every other kernel as cuLaunchKernel does.
  CUresult launch(const KernelEntry &k, const Device &dev, CUfunction fn,
                  const unsigned grid[3], CUstream stream,
                  void **params) const {
    if (!dependentLaunch || !k.dependentLaunch ||
        !hasGridDependencyControl(dev.info.ccMajor))
      return drv->launchKernel(fn, grid[0], grid[1], grid[2],
                               unsigned(k.threads), 1, 1, unsigned(k.smem),
                               stream, params, nullptr);
    CUlaunchAttribute attr;
    std::memset(&attr, 0, sizeof(attr));
    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config;
    std::memset(&config, 0, sizeof(config));
    config.gridDimX = grid[0];
    config.gridDimY = grid[1];
    config.gridDimZ = grid[2];
    config.blockDimX = unsigned(k.threads);
    config.blockDimY = config.blockDimZ = 1;
    config.sharedMemBytes = unsigned(k.smem);
    config.hStream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
    CUresult r = drv->launchKernelEx(&config, fn, params, nullptr);
    // Where the attribute is refused (a driver or capture that lacks
    // programmatic serialization), the kernel is still correct launched
    // after its predecessor: its wait returns at once.
    if (r == CUDA_ERROR_NOT_SUPPORTED)
      return drv->launchKernel(fn, grid[0], grid[1], grid[2],
                               unsigned(k.threads), 1, 1, unsigned(k.smem),
                               stream, params, nullptr);
    return r;
  }

  mutable std::mutex mu; // guards everything below
  // std::map: elements never move, so pointers to them stay valid after the
  // lock is released (entries are only added, until destruction).
  std::map<int, Device> devices;
  std::map<std::pair<const KernelEntry *, int>, Loaded> kernels;
  bool hasLast = false;
  KernelChoice last;
  // Slots are only added; shared_ptr keeps each at one address.
  std::map<std::pair<std::string, int>, std::shared_ptr<JitSlot>> jitSlots;
  /// Per device: the pool split-KV workspaces come from (stream-ordered,
  /// kept cached: a release threshold of "never").
  std::map<int, CUmemoryPool> pools;

  /// Per (device, stream): the tile counter of dynamic grids' launches
  /// (KernelABI.h's LaunchGrid), zero between launches.
  std::map<std::pair<int, CUstream>, CUdeviceptr> tileCounters;

  ~Impl();
  /// The tile counter for a launch of a dynamic grid on `stream` (in
  /// `dev`'s context, current): the stream's own, allocated and zeroed on
  /// first use. The kernel leaves it zero, so the stream's launches, one
  /// after another, share it. A stream being captured into a graph gets
  /// one for this launch alone (`owned`: from the workspace pool, zeroed on
  /// the stream; free it after the launch), since the graph may later run
  /// beside the stream's own launches.
  Status tileCounter(const Device &dev, CUstream stream, CUdeviceptr &out,
                     bool &owned);
  /// `dev`'s workspace pool, created on first use.
  Status workspacePool(const Device &dev, CUmemoryPool &out);
  /// How the forward of a problem splits its keys.
  struct SplitPlan {
    const KernelEntry *split = nullptr, *merge = nullptr;
    /// Set where the kernels came from the compiler (already loaded).
    const Loaded *splitFn = nullptr, *mergeFn = nullptr;
    int64_t splits = 1;
  };
  /// Whether the forward of `p` on `dev` splits its keys: chooseKVSplits
  /// > 1 with the split_kv and merge_splits kernels of the bundle, or, where
  /// the bundle lacks them, of the compiler (compiled here, on first use).
  /// A compile that fails is an error; no kernels means no split.
  Status splitPlan(const ForwardProblem &p, const Device &dev, SplitPlan &plan,
                   bool &split);
  /// The split-KV forward of `p`, if splitPlan says so: `launched` false
  /// (and nothing done) otherwise. `loaded` false on an error means that
  /// nothing was launched (the kernels did not load), so the unsplit
  /// kernel may still run the problem.
  Status launchSplit(const ForwardProblem &p, const Device &dev, const void *q,
                     const void *k, const void *v, void *o, float *lse,
                     const KVCacheArgs &cache, CUstream stream, bool &launched,
                     bool &loaded);
  /// p.checkKVCache: reads the key counts and the block table back (after
  /// the stream's work) and checks every entry a sequence reaches.
  Status checkKVCacheContents(const ForwardProblem &p, const KVCacheArgs &cache,
                              CUstream stream);
  Status queryInfo(int ordinal, DeviceInfo &out) const;
  Status getDevice(int ordinal, const Device *&out);
  Status getKernel(const KernelEntry &k, const Device &dev, const Loaded *&out);
  /// The kernel for `p` on `dev` from the compiler (compiled and loaded on
  /// first use). `compiler` must be set.
  Status getCompiledKernel(const ForwardProblem &p, const Device &dev,
                           const KernelEntry *&entry, const Loaded *&out,
                           Program program = Program::Attention);
  /// The bundle's kernel for `p` on `dev`, or, where the bundle lacks it
  /// (NotInBundle) and there is a compiler, the compiler's. `candidates`
  /// are findKernels' result, empty if it failed with `found`.
  Status kernelFor(const ForwardProblem &p, const Device &dev,
                   const std::vector<const KernelEntry *> &candidates,
                   const Status &found, const KernelEntry *&entry,
                   const Loaded *&out);
  /// Loads `k` from the bundle for `dev`: its cubin for the device's chip
  /// (selectSass) if it has one, else, or if that fails to load, its PTX.
  Status loadKernel(const KernelEntry &k, const Device &dev, Loaded &out);
  /// Loads one in-memory image of kernel `k` into `dev`'s primary context
  /// (cuModuleLoadDataEx), looks up the entry point k.name and checks it
  /// against the device and `k`: threads per block (k.threads), shared
  /// memory (k.smem dynamic plus the kernel's static), raising the
  /// dynamic shared memory limit when k.smem needs it. `image` is the bytes
  /// of a cubin (isPtx false) or PTX text (isPtx true: JIT-compiled by the
  /// driver, whose error log then goes into the message); `what` names the
  /// image in messages and in KernelChoice::imageFile (a path, or e.g.
  /// "in-process JIT"). Fills out.module, fn, device, image ("sass"/"ptx")
  /// and imageFile; on error nothing stays loaded. The caller holds `mu`
  /// or otherwise keeps one thread per (kernel, device).
  Status loadImage(const KernelEntry &k, const Device &dev,
                   const std::string &image, bool isPtx,
                   const std::string &what, Loaded &out);
  Status queryPointer(const void *p, PointerInfo &out);
  Status deviceOf(const void *p, const char *what, const Device *&out);
  /// A tensor of a launch: null `ptr` is skipped (an absent optional one).
  struct TensorRef {
    const char *name;
    const void *ptr;
    uint64_t bytes;
  };
  /// Every tensor must be device memory on one GPU, large enough for its
  /// extent (a kernel cannot check bounds it is not told): that GPU in
  /// `device`.
  Status checkDeviceTensors(std::initializer_list<TensorRef> tensors,
                            int &device);
  /// A stream passed in must belong to `dev`'s primary context: one of
  /// another context would fail the launch with a bare
  /// CUDA_ERROR_INVALID_HANDLE (or worse, run on the wrong GPU).
  Status checkStream(CUstream stream, const Device &dev, const void *given);
  /// Records a successful launch for lastKernel: `k` (loaded as `fn`) on
  /// `dev` with `splits` key/value splits, followed by kernel `next` (a
  /// merge_splits or grad_kv kernel; empty: none).
  void recordLast(const KernelEntry &k, const DeviceInfo &dev, const Loaded &fn,
                  int64_t splits, const std::string &next);
  /// The bundle's kernel of `program` among `candidates` for `dev`, or
  /// (candidates empty) the compiler's for `p`.
  Status gradKernel(const ForwardProblem &p, const Device &dev,
                    const std::vector<const KernelEntry *> &candidates,
                    Program program, const KernelEntry *&entry,
                    const Loaded *&out);
};

Runtime::Impl::~Impl() {
  // Errors are ignored: at process exit the driver may already be shutting
  // down (CUDA_ERROR_DEINITIALIZED), and there is no one to report to.
  auto unload = [&](const Loaded &loaded) {
    auto dev = devices.find(loaded.device);
    if (dev == devices.end() || !loaded.module)
      return;
    ScopedContext scope(*drv, dev->second.ctx);
    if (scope.status().ok())
      (void)drv->moduleUnload(loaded.module);
  };
  for (auto &[key, loaded] : kernels)
    unload(loaded);
  for (auto &[key, slot] : jitSlots)
    if (slot->ready)
      unload(slot->loaded);
  for (auto &[key, counter] : tileCounters) {
    auto dev = devices.find(key.first);
    if (dev == devices.end())
      continue;
    ScopedContext scope(*drv, dev->second.ctx);
    if (scope.status().ok())
      (void)drv->memFree(counter);
  }
  for (auto &[ordinal, pool] : pools) {
    // Released once the last workspace freed into it is (stream-ordered).
    auto dev = devices.find(ordinal);
    if (dev == devices.end())
      continue;
    ScopedContext scope(*drv, dev->second.ctx);
    if (scope.status().ok())
      (void)drv->memPoolDestroy(pool);
  }
  for (auto &[ordinal, dev] : devices)
    (void)drv->primaryCtxRelease(dev.handle);
}

Status Runtime::Impl::workspacePool(const Device &dev, CUmemoryPool &out) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = pools.find(dev.info.ordinal);
  if (it != pools.end()) {
    out = it->second;
    return Status::success();
  }
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = dev.info.ordinal;
  CUmemoryPool pool = nullptr;
  if (CUresult r = drv->memPoolCreate(&pool, &props); r != CUDA_SUCCESS)
    return drv->fail("cuMemPoolCreate (split-KV workspace, device " +
                         std::to_string(dev.info.ordinal) + ")",
                     r);
  // Freed workspaces stay in the pool for the next call instead of going
  // back to the device at each synchronisation.
  cuuint64_t keep = ~cuuint64_t(0);
  if (CUresult r = drv->memPoolSetAttribute(
          pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
      r != CUDA_SUCCESS) {
    (void)drv->memPoolDestroy(pool);
    return drv->fail("cuMemPoolSetAttribute (release threshold)", r);
  }
  // A block freed on one stream is not handed to another by making it
  // wait for the first (that would serialise independent decode streams).
  int no = 0;
  if (CUresult r = drv->memPoolSetAttribute(
          pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &no);
      r != CUDA_SUCCESS) {
    (void)drv->memPoolDestroy(pool);
    return drv->fail("cuMemPoolSetAttribute (no internal dependencies)", r);
  }
  pools.emplace(dev.info.ordinal, pool);
  out = pool;
  return Status::success();
}

Status Runtime::Impl::tileCounter(const Device &dev, CUstream stream,
                                  CUdeviceptr &out, bool &owned) {
  out = 0;
  owned = false;
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (CUresult r = drv->streamIsCapturing(stream, &capture); r != CUDA_SUCCESS)
    return drv->fail("cuStreamIsCapturing", r);
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE) {
    CUmemoryPool pool = nullptr;
    if (Status s = workspacePool(dev, pool); !s.ok())
      return s;
    if (CUresult r = drv->memAllocFromPoolAsync(&out, 4, pool, stream);
        r != CUDA_SUCCESS)
      return drv->fail("cuMemAllocFromPoolAsync (tile counter)", r);
    if (CUresult r = drv->memsetD32Async(out, 0, 1, stream);
        r != CUDA_SUCCESS) {
      (void)drv->memFreeAsync(out, stream);
      out = 0;
      return drv->fail("cuMemsetD32Async (tile counter)", r);
    }
    owned = true;
    return Status::success();
  }
  auto key = std::make_pair(dev.info.ordinal, stream);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = tileCounters.find(key); it != tileCounters.end()) {
      out = it->second;
      return Status::success();
    }
  }
  // A graph captured later takes its counter from the workspace pool, and
  // creating the pool is not allowed while a stream is being captured: it
  // is made with the stream's first counter, by an uncaptured launch (a
  // warm-up before the capture). Best effort: this launch does not need
  // it, and a failure is reported by the capture that does.
  CUmemoryPool pool = nullptr;
  (void)workspacePool(dev, pool);
  std::lock_guard<std::mutex> lock(mu);
  // Another thread may have made the stream's counter meanwhile.
  if (auto it = tileCounters.find(key); it != tileCounters.end()) {
    out = it->second;
    return Status::success();
  }
  CUdeviceptr counter = 0;
  if (CUresult r = drv->memAlloc(&counter, 4); r != CUDA_SUCCESS)
    return drv->fail("cuMemAlloc (tile counter)", r);
  // Zeroed on the stream, before the launch that first uses it.
  if (CUresult r = drv->memsetD32Async(counter, 0, 1, stream);
      r != CUDA_SUCCESS) {
    (void)drv->memFree(counter);
    return drv->fail("cuMemsetD32Async (tile counter)", r);
  }
  tileCounters.emplace(key, counter);
  out = counter;
  return Status::success();
}

/// The largest query block and the smallest key block of the compiler's
/// kernels: what the split decision assumes of kernels not yet compiled.
constexpr int kCompilerMaxBlockM = 128, kCompilerMinBlockN = 64;

Status Runtime::Impl::splitPlan(const ForwardProblem &p, const Device &dev,
                                SplitPlan &plan, bool &split) {
  split = false;
  plan = SplitPlan();
  // fp8, ALiBi and a bias have the dense forward only (no split-KV pair).
  if (kvSplits == 1 || p.varlen() || p.dtype == DType::E4M3 || p.alibi ||
      p.bias || p.dropout)
    return Status::success();
  const DeviceInfo &info = dev.info;
  // The query block of the forward that runs unsplit: its grid decides
  // whether to split. sm_90a's split kernel has 64 rows at D = 128 where
  // the forward has 128, and counting the split kernel's blocks would call
  // a grid the forward leaves half empty full (Hq = 32, Nq = 129-256). The
  // bundle's forward for p says; one the compiler would make is taken to
  // have kCompilerMaxBlockM rows (as the gate below), at least the split
  // kernel's. Rows that fit one split block (a decode step's) are one
  // block of either kernel: no lookup (its manifest scan is ~3 us of host
  // time a call).
  auto unsplitBlockM = [&](const KernelEntry *split) {
    const KernelEntry *fwd = nullptr;
    if (p.kernelRows() <= split->blockM)
      return 0;
    if (attn::selectKernel(bundle, p, info.ccMajor, info.ccMinor, fwd, &index,
                           info.smCount)
            .ok())
      return fwd->blockM;
    return compiler ? std::max(split->blockM, kCompilerMaxBlockM) : 0;
  };
  std::vector<const KernelEntry *> splitCands, mergeCands;
  if (findSplitKernels(bundle, p, splitCands, mergeCands, &index).ok() &&
      selectVariant(splitCands, info.ccMajor, info.ccMinor, plan.split).ok() &&
      selectVariant(mergeCands, info.ccMajor, info.ccMinor, plan.merge).ok()) {
    plan.splits =
        chooseKVSplits(p, info.smCount, plan.split->blockM, plan.split->blockN,
                       kvSplits, unsplitBlockM(plan.split));
    split = plan.splits > 1;
    return Status::success();
  }
  // The compiler's pair, compiled only where a split is possible at all
  // (with the largest query block and smallest key block a kernel has).
  plan.split = plan.merge = nullptr;
  if (!compiler || chooseKVSplits(p, info.smCount, kCompilerMaxBlockM,
                                  kCompilerMinBlockN, kvSplits) <= 1)
    return Status::success();
  // A compiler that cannot make the pair (Unsupported) leaves the problem
  // to the unsplit kernel; any other failure is reported.
  for (auto [program, entry, fn] :
       {std::tuple{Program::SplitKV, &plan.split, &plan.splitFn},
        std::tuple{Program::MergeSplits, &plan.merge, &plan.mergeFn}})
    if (Status s = getCompiledKernel(p, dev, *entry, *fn, program); !s.ok()) {
      plan = SplitPlan();
      return s.code() == StatusCode::Unsupported ? Status::success() : s;
    }
  plan.splits =
      chooseKVSplits(p, info.smCount, plan.split->blockM, plan.split->blockN,
                     kvSplits, unsplitBlockM(plan.split));
  split = plan.splits > 1;
  return Status::success();
}

Status Runtime::Impl::launchSplit(const ForwardProblem &p, const Device &dev,
                                  const void *q, const void *k, const void *v,
                                  void *o, float *lse, const KVCacheArgs &cache,
                                  CUstream stream, bool &launched,
                                  bool &loaded) {
  launched = loaded = false;
  SplitPlan plan;
  bool doSplit = false;
  if (Status s = splitPlan(p, dev, plan, doSplit); !s.ok() || !doSplit)
    return s;
  const KernelEntry *merge = plan.merge;
  const Loaded *splitFn = plan.splitFn, *mergeFn = plan.mergeFn;
  if (!splitFn)
    if (Status s = getKernel(*plan.split, dev, splitFn); !s.ok())
      return s;
  if (!mergeFn)
    if (Status s = getKernel(*merge, dev, mergeFn); !s.ok())
      return s;
  const int64_t splits = plan.splits;
  CUmemoryPool pool = nullptr;
  if (Status s = workspacePool(dev, pool); !s.ok())
    return s;
  loaded = true;
  const KernelEntry *split = plan.split;

  const AttentionShape shape = kernelShape(p);
  const SplitPartials parts = splitPartials(shape, splits);
  ScopedContext scope(*drv, dev.ctx);
  if (Status s = scope.status(); !s.ok())
    return s;
  // Stream-ordered: the workspace is the stream's from the split kernel to
  // the merge, then back in the pool, so concurrent calls on other streams
  // never share one.
  CUdeviceptr ws = 0;
  const uint64_t bytes = splitWorkspaceBytes(parts);
  if (CUresult r = drv->memAllocFromPoolAsync(&ws, bytes, pool, stream);
      r != CUDA_SUCCESS)
    return drv->fail("cuMemAllocFromPoolAsync (" + std::to_string(bytes) +
                         " bytes of split-KV partials)",
                     r);
  void *workspace = reinterpret_cast<void *>(uintptr_t(ws));
  Status result = Status::success();
  KernelParams sp = memrefSplitParams(shape, parts, q, k, v, workspace,
                                      float(p.effectiveScale()), &cache);
  result = appendTensorMaps(*drv, *split, shape, {q, k, v, o}, sp);
  unsigned grid[3] = {1, 1, 1};
  if (result.ok() &&
      !launchGridDims(split->grid,
                      gridValues(p, *split, splits, dev.info.smCount), grid))
    result = gridError(*split);
  if (result.ok()) {
    if (CUresult r = launch(*split, dev, splitFn->fn, grid, stream, sp.data());
        r != CUDA_SUCCESS)
      result = drv->fail(
          "launching " + split->name + " (" + split->chip.str() + ")", r);
  }
  if (result.ok() &&
      !launchGridDims(merge->grid, gridValues(p, *merge, 1, dev.info.smCount),
                      grid))
    result = gridError(*merge);
  if (result.ok()) {
    KernelParams mp = memrefMergeParams(shape, parts, workspace, o, lse);
    if (CUresult r = launch(*merge, dev, mergeFn->fn, grid, stream, mp.data());
        r != CUDA_SUCCESS)
      result = drv->fail(
          "launching " + merge->name + " (" + merge->chip.str() + ")", r);
  }
  // Freed after whatever was launched on the stream (also on an error).
  if (CUresult r = drv->memFreeAsync(ws, stream);
      r != CUDA_SUCCESS && result.ok())
    result = drv->fail("cuMemFreeAsync (split-KV partials)", r);
  if (!result.ok())
    return result;
  launched = true;
  recordLast(*split, dev.info, *splitFn, splits, merge->name);
  return Status::success();
}

Status Runtime::Impl::queryInfo(int ordinal, DeviceInfo &out) const {
  if (ordinal < 0 || ordinal >= deviceCount)
    return invalid("device " + std::to_string(ordinal) + " does not exist (" +
                   std::to_string(deviceCount) + " CUDA device(s))");
  CUdevice d;
  if (CUresult r = drv->deviceGet(&d, ordinal); r != CUDA_SUCCESS)
    return drv->fail("cuDeviceGet", r);
  char name[256] = {0};
  if (CUresult r = drv->deviceGetName(name, sizeof(name) - 1, d);
      r != CUDA_SUCCESS)
    return drv->fail("cuDeviceGetName", r);
  DeviceInfo info;
  info.ordinal = ordinal;
  info.name = name;
  const struct {
    CUdevice_attribute attr;
    int *out;
    const char *what;
  } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info.ccMajor,
       "compute capability"},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info.ccMinor,
       "compute capability"},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.smCount, "SM count"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &info.maxSmemPerBlockOptin, "max shared memory per block"},
  };
  for (const auto &a : attrs)
    if (CUresult r = drv->deviceGetAttribute(a.out, a.attr, d);
        r != CUDA_SUCCESS)
      return drv->fail(std::string("cuDeviceGetAttribute (") + a.what + ")", r);
  out = info;
  return Status::success();
}

Status Runtime::Impl::getDevice(int ordinal, const Device *&out) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = devices.find(ordinal);
  if (it != devices.end()) {
    out = &it->second;
    return Status::success();
  }
  Device dev;
  if (Status s = queryInfo(ordinal, dev.info); !s.ok())
    return s;
  if (CUresult r = drv->deviceGet(&dev.handle, ordinal); r != CUDA_SUCCESS)
    return drv->fail("cuDeviceGet", r);
  // The primary context is the one the CUDA runtime API (and so PyTorch)
  // uses: callers' streams and memory belong to it. It also sidesteps
  // cuCtxCreate, whose signature changed in CUDA 13.
  if (CUresult r = drv->primaryCtxRetain(&dev.ctx, dev.handle);
      r != CUDA_SUCCESS)
    return drv->fail(
        "cuDevicePrimaryCtxRetain (device " + std::to_string(ordinal) + ")", r);
  out = &devices.emplace(ordinal, dev).first->second;
  return Status::success();
}

namespace {

/// Reads a whole file of the bundle; `kind` names it in the message.
Status readFile(const std::string &path, const char *kind, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  if (in)
    bytes << in.rdbuf();
  if (!in || in.bad()) {
    std::string what = std::string(kind) + " file '" + path + "'";
    return Status::error(StatusCode::BundleError, "cannot read " + what);
  }
  out = bytes.str();
  return Status::success();
}

} // namespace

Status Runtime::Impl::loadImage(const KernelEntry &k, const Device &dev,
                                const std::string &image, bool isPtx,
                                const std::string &what, Loaded &out) {
  ScopedContext scope(*drv, dev.ctx);
  if (Status s = scope.status(); !s.ok())
    return s;

  // The JIT's error log says which instruction or feature the device
  // lacks; without it a failure is only "CUDA_ERROR_INVALID_PTX". (For a
  // cubin the options do no harm.)
  std::vector<char> log(8192, '\0');
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER,
                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {log.data(),
                  reinterpret_cast<void *>(uintptr_t(log.size() - 1))};
  CUmodule module = nullptr;
  const std::string where =
      k.name + " (" + (isPtx ? "PTX " : "SASS ") + what + ") for device " +
      std::to_string(dev.info.ordinal) + " (" + dev.info.name + ", sm_" +
      std::to_string(dev.info.ccMajor) + std::to_string(dev.info.ccMinor) + ")";
  // c_str(): PTX must end in a NUL; a cubin's ELF header gives its size.
  if (CUresult r = drv->moduleLoadDataEx(&module, image.c_str(), 2, opts, vals);
      r != CUDA_SUCCESS) {
    std::string msg = "loading " + where + ": " + drv->errorText(r);
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
      msg += "; the PTX needs a newer driver than this one (CUDA " +
             std::to_string(drv->version / 1000) + "." +
             std::to_string(drv->version % 1000 / 10) + ")";
    if (log[0])
      msg += "\n" + std::string(log.data());
    return Status::error(StatusCode::CudaError, msg);
  }

  auto failAndUnload = [&](Status s) {
    (void)drv->moduleUnload(module);
    return s;
  };
  CUfunction fn = nullptr;
  if (CUresult r = drv->moduleGetFunction(&fn, module, k.name.c_str());
      r != CUDA_SUCCESS)
    return failAndUnload(Status::error(StatusCode::BundleError,
                                       "kernel '" + k.name + "' not found in " +
                                           what + ": " + drv->errorText(r)));

  int maxThreads = 0, staticSmem = 0, regs = 0;
  const struct {
    CUfunction_attribute attr;
    int *out;
  } attrs[] = {{CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &maxThreads},
               {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &staticSmem},
               {CU_FUNC_ATTRIBUTE_NUM_REGS, &regs}};
  for (const auto &a : attrs)
    if (CUresult r = drv->funcGetAttribute(a.out, a.attr, fn);
        r != CUDA_SUCCESS)
      return failAndUnload(drv->fail("cuFuncGetAttribute", r));
  if (maxThreads < k.threads)
    return failAndUnload(Status::error(
        StatusCode::Unsupported, "unsupported: " + where + " can run at most " +
                                     std::to_string(maxThreads) +
                                     " threads per block (it uses " +
                                     std::to_string(regs) +
                                     " registers per thread), the bundle asks "
                                     "for " +
                                     std::to_string(k.threads)));
  if (staticSmem + k.smem > dev.info.maxSmemPerBlockOptin)
    return failAndUnload(Status::error(
        StatusCode::Unsupported,
        "unsupported: " + where + " needs " +
            std::to_string(staticSmem + k.smem) +
            " bytes of shared memory per block; the device allows " +
            std::to_string(dev.info.maxSmemPerBlockOptin)));
  if (k.smem > kDefaultDynamicSmem)
    if (CUresult r = drv->funcSetAttribute(
            fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k.smem);
        r != CUDA_SUCCESS)
      return failAndUnload(drv->fail("raising the dynamic shared memory of " +
                                         k.name + " to " +
                                         std::to_string(k.smem) + " bytes",
                                     r));
  out.module = module;
  out.fn = fn;
  out.device = dev.info.ordinal;
  out.image = isPtx ? "ptx" : "sass";
  out.imageFile = what;
  return Status::success();
}

Status Runtime::Impl::loadKernel(const KernelEntry &k, const Device &dev,
                                 Loaded &out) {
  // SASS first: machine code needs no compiling, where the driver's JIT of
  // one of these kernels' PTX takes hundreds of milliseconds in every new
  // process. Any failure of the cubin (a driver that does not know its
  // format, a damaged file, a device the driver will not run it on) still
  // leaves the PTX, which is what the bundle guarantees.
  std::string fallback;
  if (int i = selectSass(k, dev.info.ccMajor, dev.info.ccMinor); i >= 0) {
    const std::string path = bundleFilePath(bundle.dir, k.sass[size_t(i)].file);
    std::string cubin;
    Status s = readFile(path, "SASS", cubin);
    if (s.ok())
      s = loadImage(k, dev, cubin, /*isPtx=*/false, path, out);
    if (s.ok())
      return s;
    fallback = s.message();
  }
  const std::string path = ptxPath(bundle.dir, k);
  std::string ptx;
  Status s = readFile(path, "PTX", ptx);
  if (s.ok())
    s = loadImage(k, dev, ptx, /*isPtx=*/true, path, out);
  if (!s.ok()) {
    if (fallback.empty())
      return s;
    return Status::error(s.code(),
                         s.message() + "\n(tried first: " + fallback + ")");
  }
  out.fallback = fallback;
  return s;
}

Status Runtime::Impl::getKernel(const KernelEntry &k, const Device &dev,
                                const Loaded *&out) {
  // Held across the JIT: two threads asking for the same kernel must not
  // both compile it, and module loads are rare.
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_pair(&k, dev.info.ordinal);
  auto it = kernels.find(key);
  if (it == kernels.end()) {
    Loaded loaded;
    auto t0 = std::chrono::steady_clock::now();
    if (Status s = loadKernel(k, dev, loaded); !s.ok())
      return s;
    loaded.origin = "bundle";
    loaded.stageMs.push_back({"load", msSince(t0)});
    it = kernels.emplace(key, loaded).first;
  }
  out = &it->second;
  return Status::success();
}

Status Runtime::Impl::getCompiledKernel(const ForwardProblem &p,
                                        const Device &dev,
                                        const KernelEntry *&entry,
                                        const Loaded *&out, Program program) {
  if (dev.info.ccMajor < 8)
    return Status::error(
        StatusCode::Unsupported,
        "unsupported: compute capability " + std::to_string(dev.info.ccMajor) +
            "." + std::to_string(dev.info.ccMinor) + "; needs sm_80 or later");
  KernelRequest request;
  request.dtype = p.dtype;
  request.headDim = int(p.headDim);
  request.headDimV = int(p.headDimV);
  request.causal = p.causal;
  request.windowLeft = int(p.windowLeft);
  request.windowRight = int(p.windowRight);
  request.softcap = float(p.softcap);
  request.alibi = p.alibi;
  request.bias = p.bias;
  request.biasType = p.biasType;
  request.biasBulk = p.biasBulk();
  request.dropout = p.dropout;
  request.packHeads = p.packHeads;
  request.withLse = p.withLse;
  request.ccMajor = dev.info.ccMajor;
  request.ccMinor = dev.info.ccMinor;
  request.program = program;
  // A KV cache: the layout, and a page size below the largest key block
  // (128) compiled in (the block shrinks to it, or on sm_90a gathers whole
  // pages); larger powers of two are multiples of any block, and one kernel
  // serves them all.
  if (program != Program::MergeSplits) {
    request.kv = p.kvLayout;
    if (p.paged() && p.pageSize < 128)
      request.pageSize = int(p.pageSize);
  }
  // The split-KV pair: the split kernel always has its partial LSE; the
  // merge has no mask and one head dim.
  if (program == Program::SplitKV)
    request.withLse = true;
  if (program == Program::MergeSplits) {
    request.causal = false;
    request.windowLeft = request.windowRight = -1;
    request.softcap = 0;
    request.alibi = false;
    request.bias = false;
    request.biasType = DType::F32;
    request.dropout = false;
    request.packHeads = false;
    request.headDim = request.headDimV;
  }
  std::shared_ptr<JitSlot> slot;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto &s = jitSlots[{request.key(), dev.info.ordinal}];
    if (!s)
      s = std::make_shared<JitSlot>();
    slot = s;
  }
  // Not under `mu`: a compile takes up to a second, and launches of other
  // kernels must not wait for it.
  std::lock_guard<std::mutex> lock(slot->mu);
  if (!slot->ready) {
    CompiledImage img;
    if (Status s = compiler->compile(request, img); !s.ok())
      return s; // not remembered: the next call tries again
    // The runtime launches it by these fields: they must be the request's.
    const KernelEntry &e = img.entry;
    if (e.dtype != request.dtype || e.headDim != request.headDim ||
        e.headDimV != request.headDimV || e.causal != request.causal ||
        e.windowLeft != request.windowLeft ||
        e.windowRight != request.windowRight || e.softcap != request.softcap ||
        e.alibi != request.alibi || e.bias != request.bias ||
        (e.bias && e.biasType != request.biasType) ||
        (e.readsBiasInBulk() && !request.biasBulk) ||
        e.dropout != request.dropout ||
        e.packsQueryHeads() != request.packHeads || e.lse != request.withLse ||
        e.program != request.program || e.kv != request.kv ||
        (program == Program::SplitKV && e.blockN <= 0) ||
        // A kernel of a static page serves that page (its key block may
        // gather several); one of any page, the multiples of its block.
        (p.paged() && program != Program::MergeSplits &&
         (e.blockN <= 0 || (e.pageSize ? e.pageSize != p.pageSize
                                       : p.pageSize % e.blockN != 0))) ||
        e.threads <= 0 || e.blockM <= 0)
      return Status::error(StatusCode::Internal,
                           compiler->describe() + " returned a kernel (" +
                               e.name + ") that does not match " +
                               request.key());
    Loaded loaded;
    auto t0 = std::chrono::steady_clock::now();
    if (Status s = loadImage(e, dev, img.image, img.isPtx,
                             "compiled by " + compiler->describe(), loaded);
        !s.ok())
      return s;
    loaded.origin = img.origin;
    loaded.stageMs = img.stageMs;
    loaded.stageMs.push_back({"load", msSince(t0)});
    slot->entry = e;
    slot->loaded = std::move(loaded);
    slot->ready = true;
  }
  entry = &slot->entry;
  out = &slot->loaded;
  return Status::success();
}

Status
Runtime::Impl::kernelFor(const ForwardProblem &p, const Device &dev,
                         const std::vector<const KernelEntry *> &candidates,
                         const Status &found, const KernelEntry *&entry,
                         const Loaded *&out) {
  Status s = found;
  if (s.ok())
    s = attn::selectVariant(candidates, dev.info.ccMajor, dev.info.ccMinor,
                            entry);
  if (s.ok())
    return getKernel(*entry, dev, out);
  if (s.code() != StatusCode::NotInBundle)
    return s;
  if (!compiler)
    return Status::error(
        s.code(), s.message() + "; this runtime has no compiler to build it "
                                "(RuntimeOptions::compiler, libattn_jit)");
  return getCompiledKernel(p, dev, entry, out);
}

Status Runtime::Impl::queryPointer(const void *p, PointerInfo &out) {
  // The query wants a current context; any context of the process will do
  // under unified addressing. Borrow device 0's primary one if the thread
  // has none.
  std::unique_ptr<ScopedContext> scope;
  CUcontext current = nullptr;
  if (CUresult r = drv->ctxGetCurrent(&current); r != CUDA_SUCCESS)
    return drv->fail("cuCtxGetCurrent", r);
  if (!current) {
    const Device *dev0;
    if (Status s = getDevice(0, dev0); !s.ok())
      return s;
    scope = std::make_unique<ScopedContext>(*drv, dev0->ctx);
    if (Status s = scope->status(); !s.ok())
      return s;
  }
  CUpointer_attribute attrs[] = {
      CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  PointerInfo info;
  void *data[] = {&info.memoryType, &info.device, &info.rangeStart,
                  &info.rangeSize};
  // Unlike cuPointerGetAttribute, this returns success for an address the
  // driver does not know, with a memory type of 0.
  if (CUresult r = drv->pointerGetAttributes(4, attrs, data, devicePtr(p));
      r != CUDA_SUCCESS)
    return drv->fail("cuPointerGetAttributes(" + hex(p) + ")", r);
  out = info;
  return Status::success();
}

Status Runtime::Impl::deviceOf(const void *p, const char *what,
                               const Device *&out) {
  PointerInfo info;
  if (Status s = queryPointer(p, info); !s.ok())
    return s;
  if ((info.memoryType != CU_MEMORYTYPE_DEVICE &&
       info.memoryType != CU_MEMORYTYPE_UNIFIED) ||
      info.device < 0)
    return invalid(std::string(what) + " (" + hex(p) +
                   ") is not CUDA device memory");
  return getDevice(info.device, out);
}

void Runtime::Impl::recordLast(const KernelEntry &k, const DeviceInfo &dev,
                               const Loaded &fn, int64_t splits,
                               const std::string &next) {
  std::lock_guard<std::mutex> lock(mu);
  hasLast = true;
  last.kernel = k;
  last.device = dev;
  last.image = fn.image;
  last.imageFile = fn.imageFile;
  last.fallback = fn.fallback;
  last.origin = fn.origin;
  last.stageMs = fn.stageMs;
  last.kvSplits = splits;
  last.mergeKernel = next;
}

Status
Runtime::Impl::checkDeviceTensors(std::initializer_list<TensorRef> tensors,
                                  int &device) {
  device = -1;
  for (const TensorRef &t : tensors) {
    if (!t.ptr)
      continue;
    PointerInfo info;
    if (Status s = queryPointer(t.ptr, info); !s.ok())
      return s;
    if ((info.memoryType != CU_MEMORYTYPE_DEVICE &&
         info.memoryType != CU_MEMORYTYPE_UNIFIED) ||
        info.device < 0)
      return invalid(std::string(t.name) + " (" + hex(t.ptr) +
                     ") is not CUDA device memory");
    if (device < 0)
      device = info.device;
    else if (info.device != device)
      return invalid(std::string(t.name) + " is on device " +
                     std::to_string(info.device) + " but " +
                     tensors.begin()->name + " is on device " +
                     std::to_string(device));
    if (info.rangeSize) {
      uint64_t avail =
          uint64_t(info.rangeStart + info.rangeSize - devicePtr(t.ptr));
      if (t.bytes > avail)
        return invalid(std::string(t.name) + " needs " +
                       std::to_string(t.bytes) + " bytes from " + hex(t.ptr) +
                       " but its allocation ends after " +
                       std::to_string(avail));
    }
  }
  return Status::success();
}

Status Runtime::Impl::checkStream(CUstream stream, const Device &dev,
                                  const void *given) {
  if (!stream)
    return Status::success();
  CUcontext streamCtx = nullptr;
  if (CUresult r = drv->streamGetCtx(stream, &streamCtx); r != CUDA_SUCCESS)
    return Status::error(StatusCode::InvalidArgument,
                         "stream " + hex(given) +
                             ": cuStreamGetCtx: " + drv->errorText(r));
  if (streamCtx != dev.ctx)
    return invalid("stream " + hex(given) +
                   " does not belong to the primary context of device " +
                   std::to_string(dev.info.ordinal) +
                   ", where the tensors are");
  return Status::success();
}

Status
Runtime::Impl::gradKernel(const ForwardProblem &p, const Device &dev,
                          const std::vector<const KernelEntry *> &candidates,
                          Program program, const KernelEntry *&entry,
                          const Loaded *&out) {
  std::vector<const KernelEntry *> mine;
  for (const KernelEntry *k : candidates)
    if (k->program == program)
      mine.push_back(k);
  if (!mine.empty()) {
    if (Status s = attn::selectVariant(mine, dev.info.ccMajor, dev.info.ccMinor,
                                       entry);
        s.ok())
      return getKernel(*entry, dev, out);
    else if (s.code() != StatusCode::NotInBundle || !compiler)
      return s;
  }
  return getCompiledKernel(p, dev, entry, out, program);
}

//===----------------------------------------------------------------------===//
// Runtime
//===----------------------------------------------------------------------===//

namespace {

// The directory of the file this code was loaded from: the shared library
// (libattn_runtime_c.so) when it is one, else the program that linked the
// static runtime in. Symlinks resolved; "" when unknown.
std::string runtimeModuleDir() {
#if defined(__linux__)
  std::string path;
  Dl_info info;
  void *extra = nullptr;
  // The link map tells a shared object (a name) from the main program ("");
  // dladdr's dli_fname would give the main program as argv[0], which may be
  // relative to a directory the program has since left.
  if (dladdr1(reinterpret_cast<void *>(&runtimeModuleDir), &info, &extra,
              RTLD_DL_LINKMAP) &&
      extra) {
    const auto *map = static_cast<const struct link_map *>(extra);
    if (map->l_name && map->l_name[0])
      path = map->l_name;
  }
  if (path.empty()) {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0)
      return "";
    path.assign(buf, size_t(n));
  }
  char resolved[PATH_MAX];
  if (!realpath(path.c_str(), resolved))
    return "";
  std::string dir = resolved;
  size_t slash = dir.rfind('/');
  return slash == std::string::npos ? "" : dir.substr(0, slash);
#else
  return "";
#endif
}

// The installed bundle next to the runtime (ATTN_RELATIVE_BUNDLE_DIR), if
// that directory has a manifest; "" otherwise (in the build tree it never
// does: nothing writes <build>/share/attn/bundle).
std::string installedBundleDir() {
  std::string dir = runtimeModuleDir();
  if (dir.empty())
    return "";
  dir += "/" ATTN_RELATIVE_BUNDLE_DIR;
  if (!std::ifstream(dir + "/manifest.txt").good())
    return "";
#if defined(__linux__)
  char resolved[PATH_MAX];
  if (realpath(dir.c_str(), resolved))
    return resolved;
#endif
  return dir;
}

} // namespace

// Lookup order (documented in Runtime.h): $ATTN_BUNDLE_DIR, then an
// installed bundle next to the runtime, then the configured directory. The
// relative lookup comes before the configured one so that an installed copy
// uses its own prefix's bundle even while the build tree it came from (the
// configured directory) still exists and may have moved on.
std::string defaultBundleDir() {
  const char *env = std::getenv("ATTN_BUNDLE_DIR");
  if (env && *env)
    return env;
  std::string installed = installedBundleDir();
  if (!installed.empty())
    return installed;
  return ATTN_DEFAULT_BUNDLE_DIR;
}

Runtime::Runtime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Runtime::~Runtime() = default;

Status Runtime::create(const RuntimeOptions &options,
                       std::unique_ptr<Runtime> &out) {
  auto impl = std::make_unique<Impl>();
  // The driver first: on a machine without a GPU that is the news, whatever
  // the state of the bundle.
  if (Status s = detail::loadDriver(options.driverLibrary, impl->drv); !s.ok())
    return s;
  if (CUresult r = impl->drv->deviceGetCount(&impl->deviceCount);
      r != CUDA_SUCCESS)
    return impl->drv->fail("cuDeviceGetCount", r);
  if (impl->deviceCount < 1)
    return Status::error(StatusCode::NoDevice, "no CUDA device found");
  if (!options.useBundle) {
    if (!options.compiler)
      return Status::error(StatusCode::InvalidArgument,
                           "RuntimeOptions::useBundle is false but no "
                           "compiler is set: nothing could serve a kernel");
  } else {
    std::string dir =
        options.bundleDir.empty() ? defaultBundleDir() : options.bundleDir;
    if (Status s = loadBundle(dir, impl->bundle); !s.ok())
      return s;
  }
  impl->index = KernelIndex(impl->bundle);
  impl->compiler = options.compiler;
  impl->kvSplits = options.kvSplits;
  if (const char *env = std::getenv("ATTN_KV_SPLITS");
      env && *env && !options.kvSplits) {
    char *end = nullptr;
    long long n = std::strtoll(env, &end, 10);
    if (*end || n < 0)
      return Status::error(StatusCode::InvalidArgument,
                           std::string("ATTN_KV_SPLITS='") + env +
                               "': expected a count >= 0 (0: choose, 1: "
                               "never split)");
    impl->kvSplits = n;
  }
  // The variable is checked whatever the options say; it only turns on
  // what the options allow.
  impl->dependentLaunch = options.dependentLaunch;
  if (const char *env = std::getenv("ATTN_DEPENDENT_LAUNCH"); env && *env) {
    if (std::strcmp(env, "0") && std::strcmp(env, "1"))
      return Status::error(StatusCode::InvalidArgument,
                           std::string("ATTN_DEPENDENT_LAUNCH='") + env +
                               "': expected 0 (launch every kernel after the "
                               "one before it) or 1");
    impl->dependentLaunch = options.dependentLaunch && env[0] == '1';
  }
  if (impl->kvSplits < 0)
    return Status::error(StatusCode::InvalidArgument,
                         "RuntimeOptions::kvSplits must be >= 0, got " +
                             std::to_string(impl->kvSplits));
  out.reset(new Runtime(std::move(impl)));
  return Status::success();
}

const Manifest &Runtime::bundle() const { return impl_->bundle; }
int Runtime::deviceCount() const { return impl_->deviceCount; }

Status Runtime::deviceInfo(int ordinal, DeviceInfo &out) {
  return impl_->queryInfo(ordinal, out);
}

Status Runtime::selectKernel(const ForwardProblem &problem, int device,
                             KernelChoice &out) {
  const ForwardProblem p = kernelProblem(impl_->bundle, impl_->index,
                                         bool(impl_->compiler), problem);
  DeviceInfo info;
  if (Status s = impl_->queryInfo(device, info); !s.ok())
    return s;
  if (Status s = checkProblem(problem); !s.ok())
    return s;
  const Impl::Device *dev = nullptr;
  if (Status d = impl_->getDevice(device, dev); !d.ok())
    return d;
  out.kvSplits = 1;
  out.mergeKernel.clear();
  // A forward that splits its keys runs the split_kv kernel (then the
  // merge): that is the choice to report. Otherwise the bundle's kernel,
  // else what the compiler makes (made here: it is what would run).
  Impl::SplitPlan plan;
  bool split = false;
  if (Status s = impl_->splitPlan(p, *dev, plan, split); !s.ok())
    return s;
  const KernelEntry *k = nullptr;
  const Impl::Loaded *compiled = nullptr;
  if (split) {
    k = plan.split;
    compiled = plan.splitFn;
    out.kvSplits = plan.splits;
    out.mergeKernel = plan.merge->name;
  } else if (Status s = attn::selectKernel(impl_->bundle, p, info.ccMajor,
                                           info.ccMinor, k, &impl_->index,
                                           info.smCount);
             !s.ok()) {
    if (s.code() != StatusCode::NotInBundle || !impl_->compiler)
      return s;
    if (Status c = impl_->getCompiledKernel(p, *dev, k, compiled); !c.ok())
      return c;
  }
  if (compiled) {
    out.kernel = *k;
    out.device = info;
    out.image = compiled->image;
    out.imageFile = compiled->imageFile;
    out.fallback = compiled->fallback;
    out.origin = compiled->origin;
    out.stageMs = compiled->stageMs;
    return Status::success();
  }
  out.kernel = *k;
  out.device = info;
  out.fallback.clear();
  out.origin.clear();
  out.stageMs.clear();
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto loaded = impl_->kernels.find(std::make_pair(k, device));
  if (loaded != impl_->kernels.end()) {
    out.image = loaded->second.image;
    out.imageFile = loaded->second.imageFile;
    out.fallback = loaded->second.fallback;
    out.origin = loaded->second.origin;
    out.stageMs = loaded->second.stageMs;
  } else if (int i = selectSass(*k, info.ccMajor, info.ccMinor); i >= 0) {
    out.image = "sass";
    out.imageFile = bundleFilePath(impl_->bundle.dir, k->sass[size_t(i)].file);
  } else {
    out.image = "ptx";
    out.imageFile = ptxPath(impl_->bundle.dir, *k);
  }
  return Status::success();
}

Status Runtime::prepare(const std::vector<ForwardProblem> &problems,
                        int device) {
  const Impl::Device *dev = nullptr;
  if (Status s = impl_->getDevice(device, dev); !s.ok())
    return s;
  for (size_t i = 0; i < problems.size(); ++i) {
    const ForwardProblem p = kernelProblem(impl_->bundle, impl_->index,
                                           bool(impl_->compiler), problems[i]);
    std::vector<const KernelEntry *> candidates;
    Status s = checkProblem(problems[i]);
    if (s.ok()) {
      // The split-KV pair where the forward would take it (the compiler's
      // is loaded by splitPlan), else the forward's kernel.
      Impl::SplitPlan plan;
      bool split = false;
      const Impl::Loaded *loaded = nullptr;
      s = impl_->splitPlan(p, *dev, plan, split);
      if (s.ok() && split && !plan.splitFn) {
        s = impl_->getKernel(*plan.split, *dev, loaded);
        if (s.ok())
          s = impl_->getKernel(*plan.merge, *dev, loaded);
      } else if (s.ok() && !split) {
        Status found = findKernels(impl_->bundle, p, candidates, &impl_->index,
                                   dev->info.smCount);
        const KernelEntry *entry = nullptr;
        s = impl_->kernelFor(p, *dev, candidates, found, entry, loaded);
      }
    }
    if (!s.ok())
      return Status::error(s.code(),
                           "problem " + std::to_string(i) + ": " + s.message());
  }
  return Status::success();
}

Status Runtime::Impl::checkKVCacheContents(const ForwardProblem &p,
                                           const KVCacheArgs &cache,
                                           CUstream stream) {
  // The arrays may be written by work queued on the stream: read them
  // after it.
  if (CUresult r = drv->streamSynchronize(stream); r != CUDA_SUCCESS)
    return drv->fail("cuStreamSynchronize (reading the KV cache's tables)", r);
  if (p.varlen()) {
    // Offsets from 0, non-decreasing, within the packed rows; no sequence
    // longer than the grid was sized for (seq_q) or than seq_k.
    for (auto [name, ptr, total, longest] :
         {std::tuple{"cu_seqlens_q", cache.cuSeqlensQ, p.totalQ, p.seqQ},
          std::tuple{"cu_seqlens_k", cache.cuSeqlensK, p.totalK, p.seqK}}) {
      std::vector<int32_t> cu(size_t(p.batch + 1));
      if (CUresult r = drv->memcpyDtoH(cu.data(), devicePtr(ptr),
                                       cu.size() * sizeof(int32_t));
          r != CUDA_SUCCESS)
        return drv->fail(std::string("cuMemcpyDtoH (") + name + ")", r);
      if (cu[0] != 0)
        return invalid(std::string(name) + "[0] = " + std::to_string(cu[0]) +
                       " (the first sequence starts at row 0)");
      for (size_t b = 0; b + 1 < cu.size(); ++b) {
        int64_t len = int64_t(cu[b + 1]) - cu[b];
        if (len < 0 || len > longest || cu[b + 1] > total)
          return invalid(std::string(name) + "[" + std::to_string(b + 1) +
                         "] = " + std::to_string(cu[b + 1]) + ": sequence " +
                         std::to_string(b) + " has " + std::to_string(len) +
                         " rows, outside [0, " + std::to_string(longest) +
                         "] (the longest), or ends past the " +
                         std::to_string(total) + " packed rows");
      }
    }
    return Status::success();
  }
  std::vector<int32_t> lens(size_t(p.batch));
  if (CUresult r = drv->memcpyDtoH(lens.data(), devicePtr(cache.seqLens),
                                   lens.size() * sizeof(int32_t));
      r != CUDA_SUCCESS)
    return drv->fail("cuMemcpyDtoH (seq_lens)", r);
  for (size_t b = 0; b < lens.size(); ++b)
    if (lens[b] < 0 || lens[b] > p.seqK)
      return invalid("seq_lens[" + std::to_string(b) +
                     "] = " + std::to_string(lens[b]) + " is outside [0, " +
                     std::to_string(p.seqK) + "] (the cache's capacity)");
  if (!p.paged())
    return Status::success();
  const int64_t stride = p.tableStride ? p.tableStride : p.maxPages;
  std::vector<int32_t> table(size_t((p.batch - 1) * stride + p.maxPages));
  if (CUresult r = drv->memcpyDtoH(table.data(), devicePtr(cache.blockTable),
                                   table.size() * sizeof(int32_t));
      r != CUDA_SUCCESS)
    return drv->fail("cuMemcpyDtoH (block_table)", r);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t i = 0; i < (lens[size_t(b)] + p.pageSize - 1) / p.pageSize;
         ++i) {
      int32_t page = table[size_t(b * stride + i)];
      if (page < 0 || page >= p.numPages)
        return invalid(
            "block_table[" + std::to_string(b) + ", " + std::to_string(i) +
            "] = " + std::to_string(page) + " is outside [0, num_pages = " +
            std::to_string(p.numPages) + ") (sequence " + std::to_string(b) +
            " has " + std::to_string(lens[size_t(b)]) + " keys)");
    }
  return Status::success();
}

Status Runtime::forward(const ForwardProblem &problem, const void *q,
                        const void *k, const void *v, void *o, float *lse,
                        void *stream) {
  if (problem.kvLayout != KVLayout::Dense)
    return invalid(std::string("a ") + kvLayoutName(problem.kvLayout) +
                   " KV cache needs its arrays: call forward with "
                   "KVCacheArgs");
  return forward(problem, KVCacheArgs(), q, k, v, o, lse, stream);
}

Status Runtime::forward(const ForwardProblem &problem, const KVCacheArgs &cache,
                        const void *q, const void *k, const void *v, void *o,
                        float *lse, void *stream) {
  Impl &im = *impl_;
  const Driver &drv = *im.drv;
  // Host-side rules first: they need no driver call and give the most
  // precise messages.
  if (Status s = checkProblem(problem); !s.ok())
    return s;
  if (Status s = checkPointers(problem, q, k, v, o, lse); !s.ok())
    return s;
  const bool withCache = problem.kvLayout != KVLayout::Dense;
  const bool varlen = problem.varlen();
  if (!withCache && (cache.seqLens || cache.blockTable || cache.cuSeqlensQ ||
                     cache.cuSeqlensK))
    return invalid("seq_lens, block_table and cu_seqlens are for a KV cache "
                   "or a packed batch (kv_layout seqlens, paged or varlen)");
  if (varlen != (cache.cuSeqlensQ && cache.cuSeqlensK) ||
      (!varlen && (cache.cuSeqlensQ || cache.cuSeqlensK)))
    return invalid(varlen ? "cu_seqlens_q and cu_seqlens_k must both be set "
                            "(a packed batch's sequence offsets)"
                          : "cu_seqlens_q and cu_seqlens_k are for a packed "
                            "batch (varlen) only");
  if (varlen && (cache.seqLens || cache.blockTable))
    return invalid("seq_lens and block_table are for a KV cache, not a "
                   "packed batch");
  if (withCache && !varlen && !cache.seqLens)
    return invalid("seq_lens is null (a KV cache needs each sequence's key "
                   "count)");
  if (problem.paged() != (cache.blockTable != nullptr))
    return invalid(problem.paged()
                       ? "block_table is null (a paged KV cache needs it)"
                       : "block_table is for a paged KV cache only");
  for (const void *a : {static_cast<const void *>(cache.seqLens),
                        static_cast<const void *>(cache.blockTable),
                        static_cast<const void *>(cache.cuSeqlensQ),
                        static_cast<const void *>(cache.cuSeqlensK)})
    if (reinterpret_cast<uintptr_t>(a) % alignof(int32_t))
      return invalid("seq_lens, block_table and cu_seqlens must be 4-byte "
                     "aligned");
  // The kernels see GQA decoding with the query heads of a group packed
  // into rows (the same bytes).
  const ForwardProblem p =
      kernelProblem(im.bundle, im.index, bool(im.compiler), problem);
  // What the bundle lacks may still come from the compiler; anything else
  // is final before a driver call.
  std::vector<const KernelEntry *> candidates;
  Status found = findKernels(im.bundle, p, candidates, &im.index);
  if (!found.ok() && found.code() != StatusCode::NotInBundle)
    return found;

  const TensorExtents ext = tensorExtents(problem);
  int device = -1;
  if (Status s = im.checkDeviceTensors(
          {{"q", q, ext.q},
           {"k", k, ext.k},
           {"v", v, ext.v},
           {"o", o, ext.o},
           {"lse", lse, ext.lse},
           {"seq_lens", cache.seqLens,
            uint64_t(problem.batch) * sizeof(int32_t)},
           {"cu_seqlens_q", cache.cuSeqlensQ,
            uint64_t(problem.batch + 1) * sizeof(int32_t)},
           {"cu_seqlens_k", cache.cuSeqlensK,
            uint64_t(problem.batch + 1) * sizeof(int32_t)},
           {"block_table", cache.blockTable,
            uint64_t((problem.batch - 1) * (problem.tableStride
                                                ? problem.tableStride
                                                : problem.maxPages) +
                     problem.maxPages) *
                sizeof(int32_t)}},
          device);
      !s.ok())
    return s;

  const Impl::Device *dev = nullptr;
  if (Status s = im.getDevice(device, dev); !s.ok())
    return s;
  CUstream cuStream = static_cast<CUstream>(stream);
  if (Status s = im.checkStream(cuStream, *dev, stream); !s.ok())
    return s;
  // The kernel again with the device's multiprocessors known (a taller
  // query block only where its grid fills them): the lookup above settled
  // what the bundle lacks before any driver call.
  if (found.ok())
    found = findKernels(im.bundle, p, candidates, &im.index, dev->info.smCount);
  // A grid too small for the device (decoding: few query rows, long keys)
  // splits the keys over more thread blocks and merges the partials.
  // Kernels that do not load leave the problem to the unsplit kernel, and
  // the choice records why.
  if (withCache && problem.checkKVCache) {
    ScopedContext scope(drv, dev->ctx);
    if (Status s = scope.status(); !s.ok())
      return s;
    if (Status s = im.checkKVCacheContents(problem, cache, cuStream); !s.ok())
      return s;
  }
  bool split = false, splitLoaded = false;
  Status splitStatus = im.launchSplit(p, *dev, q, k, v, o, lse, cache, cuStream,
                                      split, splitLoaded);
  if (split || (!splitStatus.ok() && splitLoaded))
    return splitStatus;
  if (!found.ok() && !im.compiler)
    return Status::error(
        found.code(),
        found.message() +
            "; this runtime has no compiler to build it "
            "(RuntimeOptions::compiler, libattn_jit)" +
            (splitStatus.ok() ? ""
                              : " (split-KV: " + splitStatus.message() + ")"));
  // The problem was checked above: the bundle's variant for this device,
  // else the compiler's kernel.
  const KernelEntry *kernel = nullptr;
  const Impl::Loaded *loaded = nullptr;
  if (Status s = im.kernelFor(p, *dev, candidates, found, kernel, loaded);
      !s.ok())
    return s;
  CUfunction fn = loaded->fn;

  ScopedContext scope(drv, dev->ctx);
  if (Status s = scope.status(); !s.ok())
    return s;

  // The parameters in the kernel's ABI (KernelABI.h). A kernel
  // has an lse argument exactly when it was built with lse=1; findKernels
  // only picks one that matches the call, and a mismatch would make the
  // kernel read parameters that are not there or write through null, so it
  // is checked once more here.
  if (kernel->lse != (lse != nullptr))
    return Status::error(
        StatusCode::Internal,
        "kernel " + kernel->name + " (lse=" + (kernel->lse ? "1" : "0") +
            ") chosen for a " +
            (lse ? "forward with LSE" : "forward without LSE"));
  const AttentionShape shape = kernelShape(p);
  // An fp8 kernel takes the three descale factors after the scale.
  const float descale[3] = {float(p.qDescale), float(p.kDescale),
                            float(p.vDescale)};
  if ((kernel->dtype == DType::E4M3) != (p.dtype == DType::E4M3) ||
      kernel->alibi != p.alibi || kernel->dropout != p.dropout ||
      kernel->bias != p.bias || (p.bias && kernel->biasType != p.biasType))
    return Status::error(
        StatusCode::Internal,
        "kernel " + kernel->name + " (dtype=" + dtypeName(kernel->dtype) +
            (kernel->alibi ? ", alibi" : "") +
            (kernel->bias ? std::string(", bias=") + dtypeName(kernel->biasType)
                          : std::string()) +
            (kernel->dropout ? ", dropout" : "") + ") chosen for a " +
            dtypeName(p.dtype) + (p.alibi ? " ALiBi" : "") +
            (p.bias ? std::string(" ") + dtypeName(p.biasType) + "-bias"
                    : std::string()) +
            (p.dropout ? " dropout" : "") + " forward");
  DropoutArgs dropout{p.dropoutRate, p.dropoutSeed, p.dropoutOffset};
  const BiasArgs bias = p.biasArgs();
  KernelParams params = memrefAttentionParams(
      shape, q, k, v, o, lse, float(p.effectiveScale()), &cache,
      p.dtype == DType::E4M3 ? descale : nullptr, p.alibiSlopes,
      p.dropout ? &dropout : nullptr, p.bias ? &bias : nullptr);
  if (Status s = appendTensorMaps(drv, *kernel, shape, {q, k, v, o}, params,
                                  p.bias ? &bias : nullptr, p.biasType);
      !s.ok())
    return s;
  unsigned grid[3];
  if (!launchGridDims(kernel->grid,
                      gridValues(p, *kernel, 1, dev->info.smCount), grid))
    return gridError(*kernel);
  // A dynamic grid's tile counter, last (KernelABI.h).
  CUdeviceptr counter = 0;
  bool ownCounter = false;
  if (kernel->grid.dynamic) {
    if (Status s = im.tileCounter(*dev, cuStream, counter, ownCounter); !s.ok())
      return s;
    params.addPtr(reinterpret_cast<const void *>(uintptr_t(counter)));
  }
  CUresult launched =
      im.launch(*kernel, *dev, fn, grid, cuStream, params.data());
  if (ownCounter)
    if (CUresult r = drv.memFreeAsync(counter, cuStream);
        r != CUDA_SUCCESS && launched == CUDA_SUCCESS)
      return drv.fail("cuMemFreeAsync (tile counter)", r);
  if (launched != CUDA_SUCCESS)
    return drv.fail("launching " + kernel->name + " (" + kernel->chip.str() +
                        ")",
                    launched);

  im.recordLast(*kernel, dev->info, *loaded, 1, "");
  if (!splitStatus.ok()) {
    std::lock_guard<std::mutex> lock(im.mu);
    im.last.fallback = "split-KV not used: " + splitStatus.message() +
                       (im.last.fallback.empty() ? "" : "; ") +
                       im.last.fallback;
  }
  return Status::success();
}

Status Runtime::backward(const BackwardProblem &problem, const void *dO,
                         const void *q, const void *k, const void *v,
                         const void *o, const float *lse, void *dq, void *dk,
                         void *dv, void *stream) {
  Impl &im = *impl_;
  const Driver &drv = *im.drv;
  if (Status s = checkBackwardProblem(problem); !s.ok())
    return s;
  if (Status s =
          checkBackwardPointers(problem, dO, q, k, v, o, lse, dq, dk, dv);
      !s.ok())
    return s;
  std::vector<const KernelEntry *> gradQ, gradKV;
  Status found = findBackwardKernels(im.bundle, problem, gradQ, gradKV);
  if (!found.ok() && (found.code() != StatusCode::NotInBundle || !im.compiler))
    return found.code() == StatusCode::NotInBundle
               ? Status::error(found.code(),
                               found.message() +
                                   "; this runtime has no compiler to build "
                                   "it (RuntimeOptions::compiler, "
                                   "libattn_jit)")
               : found;
  const ForwardProblem f = problem.forward();
  const TensorExtents ext = tensorExtents(f);
  const GradExtents gext = gradExtents(problem);
  int device = -1;
  if (Status s = im.checkDeviceTensors({{"do", dO, gext.dO},
                                        {"q", q, ext.q},
                                        {"k", k, ext.k},
                                        {"v", v, ext.v},
                                        {"o", o, ext.o},
                                        {"lse", lse, ext.lse},
                                        {"dq", dq, gext.dQ},
                                        {"dk", dk, gext.dK},
                                        {"dv", dv, gext.dV}},
                                       device);
      !s.ok())
    return s;
  const Impl::Device *dev = nullptr;
  if (Status s = im.getDevice(device, dev); !s.ok())
    return s;
  CUstream cuStream = static_cast<CUstream>(stream);
  if (Status s = im.checkStream(cuStream, *dev, stream); !s.ok())
    return s;
  // Both kernels loaded (or compiled) before anything is launched.
  const KernelEntry *kq = nullptr, *kkv = nullptr;
  const Impl::Loaded *fq = nullptr, *fkv = nullptr;
  if (Status s = im.gradKernel(f, *dev, gradQ, Program::GradQuery, kq, fq);
      !s.ok())
    return s;
  if (Status s =
          im.gradKernel(f, *dev, gradKV, Program::GradKeyValue, kkv, fkv);
      !s.ok())
    return s;
  if (kq->program != Program::GradQuery ||
      kkv->program != Program::GradKeyValue || kq->blockM <= 0 ||
      kkv->blockM <= 0)
    return Status::error(StatusCode::Internal,
                         "backward kernels " + kq->name + " and " + kkv->name +
                             " are not a grad_q and a grad_kv kernel");
  CUmemoryPool pool = nullptr;
  if (Status s = im.workspacePool(*dev, pool); !s.ok())
    return s;

  GradStrides gs;
  const AttentionShape shape = kernelShape(problem, gs);
  ScopedContext scope(drv, dev->ctx);
  if (Status s = scope.status(); !s.ok())
    return s;
  // Δ [B, Hq, Nq] f32, stream-ordered from grad_q (which writes it) to
  // grad_kv (which reads it), then back in the pool.
  CUdeviceptr ws = 0;
  const uint64_t bytes =
      uint64_t(problem.batch * problem.headsQ * problem.seqQ) * sizeof(float);
  if (CUresult r = drv.memAllocFromPoolAsync(&ws, bytes, pool, cuStream);
      r != CUDA_SUCCESS)
    return drv.fail("cuMemAllocFromPoolAsync (" + std::to_string(bytes) +
                        " bytes of the backward's row sums)",
                    r);
  float *delta = reinterpret_cast<float *>(uintptr_t(ws));
  DropoutArgs dropout{problem.dropoutRate, problem.dropoutSeed,
                      problem.dropoutOffset};
  KernelParams params =
      memrefGradParams(shape, gs, dO, q, k, v, o, lse, dq, dk, dv, delta,
                       float(problem.effectiveScale()), problem.alibiSlopes,
                       problem.dropout ? &dropout : nullptr);
  GridValues gv = gridValues(f, *kq, 1, dev->info.smCount);
  // kv_blocks counts grad_kv's programs: its block_m keys each.
  gv.kvBlocks = (problem.seqK + kkv->blockM - 1) / kkv->blockM;
  // Both grids' grids and parameters first (a grid that reads dO, Q, K or
  // V by bulk copies takes their tensor maps after the shared list), so
  // that a refusal (a stride bulk copies cannot take) launches nothing.
  Status result = Status::success();
  const std::pair<const KernelEntry *, const Impl::Loaded *> grids[2] = {
      {kq, fq}, {kkv, fkv}};
  unsigned dims[2][3];
  KernelParams own[2] = {params, params};
  for (int i = 0; i < 2 && result.ok(); ++i) {
    const KernelEntry &kernel = *grids[i].first;
    if (!launchGridDims(kernel.grid, gv, dims[i]))
      result = gridError(kernel);
    else
      result =
          appendGradTensorMaps(drv, kernel, shape, gs, {dO, q, k, v}, own[i]);
  }
  for (int i = 0; i < 2 && result.ok(); ++i) {
    const KernelEntry &kernel = *grids[i].first;
    if (CUresult r = im.launch(kernel, *dev, grids[i].second->fn, dims[i],
                               cuStream, own[i].data());
        r != CUDA_SUCCESS)
      result = drv.fail(
          "launching " + kernel.name + " (" + kernel.chip.str() + ")", r);
  }
  // Freed after whatever was launched on the stream (also on an error).
  if (CUresult r = drv.memFreeAsync(ws, cuStream);
      r != CUDA_SUCCESS && result.ok())
    result = drv.fail("cuMemFreeAsync (the backward's row sums)", r);
  if (!result.ok())
    return result;

  im.recordLast(*kq, dev->info, *fq, 1, kkv->name);
  return Status::success();
}

bool Runtime::lastKernel(KernelChoice &out) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!impl_->hasLast)
    return false;
  out = impl_->last;
  return true;
}

//===----------------------------------------------------------------------===//
// Memory helpers
//===----------------------------------------------------------------------===//

Status Runtime::allocate(int device, size_t bytes, void **ptr) {
  if (!ptr)
    return invalid("allocate: ptr is null");
  *ptr = nullptr;
  if (!bytes)
    return invalid("allocate: 0 bytes");
  const Impl::Device *dev;
  if (Status s = impl_->getDevice(device, dev); !s.ok())
    return s;
  ScopedContext scope(*impl_->drv, dev->ctx);
  if (Status s = scope.status(); !s.ok())
    return s;
  CUdeviceptr d = 0;
  if (CUresult r = impl_->drv->memAlloc(&d, bytes); r != CUDA_SUCCESS)
    return impl_->drv->fail("cuMemAlloc(" + std::to_string(bytes) +
                                " bytes on device " + std::to_string(device) +
                                ")",
                            r);
  *ptr = reinterpret_cast<void *>(uintptr_t(d));
  return Status::success();
}

Status Runtime::release(void *ptr) {
  if (!ptr)
    return Status::success();
  const Impl::Device *dev;
  if (Status s = impl_->deviceOf(ptr, "release", dev); !s.ok())
    return s;
  ScopedContext scope(*impl_->drv, dev->ctx);
  if (Status s = scope.status(); !s.ok())
    return s;
  if (CUresult r = impl_->drv->memFree(devicePtr(ptr)); r != CUDA_SUCCESS)
    return impl_->drv->fail("cuMemFree(" + hex(ptr) + ")", r);
  return Status::success();
}

Status Runtime::copyToDevice(void *dst, const void *src, size_t bytes) {
  if (!bytes)
    return Status::success();
  if (!src)
    return invalid("copyToDevice: src is null");
  const Impl::Device *dev;
  if (Status s = impl_->deviceOf(dst, "copyToDevice: dst", dev); !s.ok())
    return s;
  ScopedContext scope(*impl_->drv, dev->ctx);
  if (Status s = scope.status(); !s.ok())
    return s;
  if (CUresult r = impl_->drv->memcpyHtoD(devicePtr(dst), src, bytes);
      r != CUDA_SUCCESS)
    return impl_->drv->fail("cuMemcpyHtoD", r);
  return Status::success();
}

Status Runtime::copyToHost(void *dst, const void *src, size_t bytes) {
  if (!bytes)
    return Status::success();
  if (!dst)
    return invalid("copyToHost: dst is null");
  const Impl::Device *dev;
  if (Status s = impl_->deviceOf(src, "copyToHost: src", dev); !s.ok())
    return s;
  ScopedContext scope(*impl_->drv, dev->ctx);
  if (Status s = scope.status(); !s.ok())
    return s;
  if (CUresult r = impl_->drv->memcpyDtoH(dst, devicePtr(src), bytes);
      r != CUDA_SUCCESS)
    return impl_->drv->fail("cuMemcpyDtoH", r);
  return Status::success();
}

Status Runtime::fill(void *dst, uint8_t byte, size_t bytes) {
  if (!bytes)
    return Status::success();
  const Impl::Device *dev;
  if (Status s = impl_->deviceOf(dst, "fill: dst", dev); !s.ok())
    return s;
  ScopedContext scope(*impl_->drv, dev->ctx);
  if (Status s = scope.status(); !s.ok())
    return s;
  if (CUresult r = impl_->drv->memsetD8(devicePtr(dst), byte, bytes);
      r != CUDA_SUCCESS)
    return impl_->drv->fail("cuMemsetD8", r);
  return Status::success();
}

Status Runtime::synchronize(int device) {
  const Impl::Device *dev;
  if (Status s = impl_->getDevice(device, dev); !s.ok())
    return s;
  ScopedContext scope(*impl_->drv, dev->ctx);
  if (Status s = scope.status(); !s.ok())
    return s;
  // Kernel faults surface here, asynchronously to the launch.
  if (CUresult r = impl_->drv->ctxSynchronize(); r != CUDA_SUCCESS)
    return impl_->drv->fail(
        "cuCtxSynchronize (device " + std::to_string(device) + ")", r);
  return Status::success();
}

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&o) noexcept {
  if (this != &o) {
    reset();
    rt_ = o.rt_;
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.rt_ = nullptr;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

Status DeviceBuffer::allocate(Runtime &rt, int device, size_t bytes,
                              DeviceBuffer &out) {
  out.reset();
  void *p = nullptr;
  if (Status s = rt.allocate(device, bytes, &p); !s.ok())
    return s;
  out.rt_ = &rt;
  out.ptr_ = p;
  out.bytes_ = bytes;
  return Status::success();
}

void DeviceBuffer::reset() {
  if (rt_ && ptr_)
    (void)rt_->release(ptr_);
  rt_ = nullptr;
  ptr_ = nullptr;
  bytes_ = 0;
}

} // namespace attn
