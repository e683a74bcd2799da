//===- GpuTest.cpp - kernels from the bundle on a real GPU ------*- C++ -*-===//
//
// Run every kernel of the bundle that this GPU can run on small problems and
// compare with the float64 reference; check the validation that needs real
// device memory. Without a GPU (or without a bundle) every test here skips;
// with ATTN_REQUIRE_GPU=1 (tools/scripts/gpu_check.sh sets it) they fail
// instead.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "attn/runtime/Reference.h"
#include "attn/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <thread>
#include <tuple>

using namespace attn;

namespace {

bool requireGpu() {
  const char *v = std::getenv("ATTN_REQUIRE_GPU");
  return v && *v && std::string(v) != "0";
}

class Gpu : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    Status s = Runtime::create({}, rt);
    if (!s.ok())
      why = s.message();
  }
  static void TearDownTestSuite() { rt.reset(); }
  void SetUp() override {
    if (rt)
      return;
    if (requireGpu())
      FAIL() << "ATTN_REQUIRE_GPU is set but: " << why;
    GTEST_SKIP() << why;
  }

  static std::unique_ptr<Runtime> rt;
  static std::string why;
};
std::unique_ptr<Runtime> Gpu::rt;
std::string Gpu::why;

/// Storage order of a 4-d tensor [B, H, N, D]: contiguous or [B, N, H, D].
enum class Layout { BHND, BNHD };

Strides stridesFor(Layout l, int64_t H, int64_t N, int64_t D) {
  if (l == Layout::BHND)
    return contiguousStrides(H, N, D);
  return Strides{N * H * D, D, H * D, 1};
}

/// Moves elements between the contiguous order and `s` (both ways).
void relayout(const uint8_t *src, uint8_t *dst, int64_t B, int64_t H, int64_t N,
              int64_t D, const Strides &s, size_t es, bool toStrided) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t n = 0; n < N; ++n) {
        size_t packed = size_t(((b * H + h) * N + n) * D) * es;
        size_t strided = size_t(b * s.batch + h * s.head + n * s.seq) * es;
        if (toStrided)
          std::memcpy(dst + strided, src + packed, size_t(D) * es);
        else
          std::memcpy(dst + packed, src + strided, size_t(D) * es);
      }
}

struct Tensor {
  DeviceBuffer buf;
  Strides strides;
};

Status upload(Runtime &rt, const std::vector<uint8_t> &packed, int64_t B,
              int64_t H, int64_t N, int64_t D, Layout l, size_t es, Tensor &t) {
  t.strides = stridesFor(l, H, N, D);
  std::vector<uint8_t> host(packed.size());
  relayout(packed.data(), host.data(), B, H, N, D, t.strides, es, true);
  if (Status s = DeviceBuffer::allocate(rt, 0, host.size(), t.buf); !s.ok())
    return s;
  return rt.copyToDevice(t.buf.get(), host.data(), host.size());
}

/// A forward problem's sizes.
struct CaseShape {
  int64_t B, Hq, Hkv, Nq, Nk;
};

/// The forward of (dtype, D, Dv, causal, LSE) at `sh`, contiguous.
ForwardProblem forwardOf(DType dtype, int64_t D, int64_t Dv, bool causal,
                         bool withLse, const CaseShape &sh) {
  ForwardProblem p;
  p.withLse = withLse;
  p.dtype = dtype;
  p.headDim = D;
  p.headDimV = Dv;
  p.causal = causal;
  p.batch = sh.B;
  p.headsQ = sh.Hq;
  p.headsKV = sh.Hkv;
  p.seqQ = sh.Nq;
  p.seqK = sh.Nk;
  return p;
}

struct CaseResult {
  ErrorStats o, lse;
  std::string kernel;
  /// The forward call and the synchronisation after it: on a runtime's
  /// first call of a kernel, its module load (SASS, or PTX through the JIT).
  double forwardMs = 0;
};

/// Runs one problem on the GPU and the reference; fills `r`. LSE is
/// written and compared only if p.withLse.
void runCase(Runtime &rt, ForwardProblem p, Layout layout, uint64_t seed,
             CaseResult &r) {
  Problem ref;
  const size_t es = dtypeSize(p.dtype);
  // O's element size: bf16 for fp8 inputs.
  const size_t oes = dtypeSize(outputDType(p.dtype));

  std::vector<double> q, k, v, o, lse;
  std::vector<uint8_t> qs, ks, vs;
  Tensor tq, tk, tv, to;
  if (p.dtype == DType::E4M3) {
    // fp8: each tensor quantised with its own descale; V uploaded
    // transposed, [B, Hkv, Dv, Nk] over rows padded to 16 bytes of NaN
    // codes (read past Nk, they would reach O).
    fillRandomE4m3(seed, size_t(p.batch * p.headsQ * p.seqQ * p.headDim), 0.5,
                   q, qs, p.qDescale);
    fillRandomE4m3(seed + 1, size_t(p.batch * p.headsKV * p.seqK * p.headDim),
                   2.0, k, ks, p.kDescale);
    std::vector<uint8_t> vcodes;
    fillRandomE4m3(seed + 2, size_t(p.batch * p.headsKV * p.seqK * p.headDimV),
                   1.0, v, vcodes, p.vDescale);
    int64_t ld;
    vs = transposeValuesE4m3(vcodes, p.batch * p.headsKV, p.seqK, p.headDimV,
                             ld);
    tv.strides = {p.headsKV * p.headDimV * ld, p.headDimV * ld, 1, ld};
    ASSERT_TRUE(DeviceBuffer::allocate(rt, 0, vs.size(), tv.buf).ok());
    ASSERT_TRUE(rt.copyToDevice(tv.buf.get(), vs.data(), vs.size()).ok());
  } else {
    fillRandom(p.dtype, seed, size_t(p.batch * p.headsQ * p.seqQ * p.headDim),
               q, qs);
    fillRandom(p.dtype, seed + 1,
               size_t(p.batch * p.headsKV * p.seqK * p.headDim), k, ks);
    fillRandom(p.dtype, seed + 2,
               size_t(p.batch * p.headsKV * p.seqK * p.headDimV), v, vs);
    ASSERT_TRUE(
        upload(rt, vs, p.batch, p.headsKV, p.seqK, p.headDimV, layout, es, tv)
            .ok());
  }
  ref.shape() = p.shape();
  DeviceBuffer tbias;
  if (p.bias) {
    // Fresh N(0, 1) values in the bias's type, every key j ≡ 3 (mod 7)
    // hidden (-inf: key padding), rows padded by 8 elements of NaN (a
    // kernel that read past a row would carry them into O).
    const int64_t rows = p.biasBatch * p.biasHeads * p.seqQ, ld = p.seqK + 8;
    std::vector<double> vals;
    std::vector<uint8_t> dense;
    fillRandom(p.biasType, seed + 3, size_t(rows * p.seqK), vals, dense);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 3; j < p.seqK; j += 7)
        vals[size_t(r * p.seqK + j)] = -INFINITY;
    std::vector<double> padded(size_t(rows * ld), NAN);
    for (int64_t r = 0; r < rows; ++r)
      std::copy_n(vals.begin() + r * p.seqK, p.seqK, padded.begin() + r * ld);
    std::vector<uint8_t> bs = encode(p.biasType, padded);
    ASSERT_TRUE(DeviceBuffer::allocate(rt, 0, bs.size(), tbias).ok());
    ASSERT_TRUE(rt.copyToDevice(tbias.get(), bs.data(), bs.size()).ok());
    p.biasData = tbias.get();
    p.biasStrides = {p.biasHeads * p.seqQ * ld, p.seqQ * ld, ld, 1};
    ref.biasValues = vals;
    ref.biasBatch = p.biasBatch;
    ref.biasHeads = p.biasHeads;
  }
  referenceAttention(ref, q, k, v, o, lse);

  ASSERT_TRUE(
      upload(rt, qs, p.batch, p.headsQ, p.seqQ, p.headDim, layout, es, tq)
          .ok());
  ASSERT_TRUE(
      upload(rt, ks, p.batch, p.headsKV, p.seqK, p.headDim, layout, es, tk)
          .ok());
  std::vector<uint8_t> os(ref.numO() * oes);
  // Poisoned: an element the kernel does not write stays NaN (0xFFFF is a
  // NaN in f16, bf16 and, doubled, f32).
  ASSERT_TRUE(upload(rt, std::vector<uint8_t>(os.size(), 0xFF), p.batch,
                     p.headsQ, p.seqQ, p.headDimV, layout, oes, to)
                  .ok());
  DeviceBuffer tl;
  ASSERT_TRUE(DeviceBuffer::allocate(rt, 0, ref.numLse() * 4, tl).ok());
  ASSERT_TRUE(rt.fill(tl.get(), 0xFF, tl.size()).ok());

  p.q = tq.strides;
  p.k = tk.strides;
  p.v = tv.strides;
  p.o = to.strides;
  auto t0 = std::chrono::steady_clock::now();
  Status s =
      rt.forward(p, tq.buf.get(), tk.buf.get(), tv.buf.get(), to.buf.get(),
                 p.withLse ? static_cast<float *>(tl.get()) : nullptr, nullptr);
  ASSERT_TRUE(s.ok()) << s.message();
  Status sync = rt.synchronize(0);
  ASSERT_TRUE(sync.ok()) << sync.message();
  r.forwardMs = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - t0)
                    .count();

  std::vector<uint8_t> got(os.size());
  ASSERT_TRUE(rt.copyToHost(got.data(), to.buf.get(), got.size()).ok());
  relayout(got.data(), os.data(), p.batch, p.headsQ, p.seqQ, p.headDimV,
           to.strides, oes, false);
  std::vector<float> lseGot(ref.numLse());
  ASSERT_TRUE(rt.copyToHost(lseGot.data(), tl.get(), tl.size()).ok());
  r.o = compare(decode(outputDType(p.dtype), os.data(), ref.numO()), o);
  if (p.withLse)
    r.lse = compare(std::vector<double>(lseGot.begin(), lseGot.end()), lse);
  else // a kernel without LSE must leave the buffer as it was
    for (float x : lseGot)
      ASSERT_TRUE(std::isnan(x)) << "LSE written by a forward without LSE";
  KernelChoice last;
  ASSERT_TRUE(rt.lastKernel(last));
  r.kernel = last.kernel.name + " (" + last.kernel.chip.str() + ")";
}

TEST_F(Gpu, DeviceIsSupported) {
  DeviceInfo info;
  ASSERT_TRUE(rt->deviceInfo(0, info).ok());
  std::printf("device 0: %s, sm_%d%d, %d SMs, %d bytes smem/block\n",
              info.name.c_str(), info.ccMajor, info.ccMinor, info.smCount,
              info.maxSmemPerBlockOptin);
  EXPECT_GE(info.ccMajor, 8);
}

TEST_F(Gpu, EveryBundleKernelMatchesTheReference) {
  DeviceInfo info;
  ASSERT_TRUE(rt->deviceInfo(0, info).ok());
  std::set<std::tuple<DType, int, int, bool>> keys;
  for (const KernelEntry &k : rt->bundle().kernels)
    keys.insert({k.dtype, k.headDim, k.headDimV, k.causal});
  const CaseShape shapes[] = {{2, 4, 2, 128, 128}, {1, 2, 1, 130, 257},
                              {1, 2, 2, 257, 130}, {1, 1, 1, 1, 1000},
                              {3, 1, 1, 17, 17},   {1, 3, 1, 64, 64}};
  int ran = 0;
  uint64_t seed = 1234;
  // With and without LSE: the two may run different kernels (lse=1 and
  // lse=0 variants of one problem).
  for (auto [dtype, D, Dv, causal] : keys) {
    for (const CaseShape &sh : shapes)
      for (Layout layout : {Layout::BHND, Layout::BNHD})
        for (bool withLse : {true, false}) {
          ForwardProblem p = forwardOf(dtype, D, Dv, causal, withLse, sh);
          // fp8's Vᵀ rows padded to 16 bytes (runCase uploads it so).
          const int64_t ld = (sh.Nk + 15) / 16 * 16;
          if (dtype == DType::E4M3)
            p.v = {sh.Hkv * Dv * ld, Dv * ld, 1, ld};
          KernelChoice choice;
          if (!rt->selectKernel(p, 0, choice).ok())
            continue; // no variant for this GPU
          SCOPED_TRACE(::testing::Message()
                       << dtypeName(dtype) << " D=" << D << " Dv=" << Dv
                       << " causal=" << causal << " B=" << sh.B
                       << " Hq=" << sh.Hq << " Hkv=" << sh.Hkv
                       << " Nq=" << sh.Nq << " Nk=" << sh.Nk << " layout="
                       << (layout == Layout::BHND ? "BHND" : "BNHD")
                       << " lse=" << withLse);
          CaseResult r;
          runCase(*rt, p, layout, seed += 3, r);
          if (HasFatalFailure())
            return;
          EXPECT_EQ(r.o.nonFinite, 0u) << r.kernel;
          EXPECT_LT(r.o.relative, tolerance(dtype)) << r.kernel;
          if (withLse) {
            EXPECT_EQ(r.lse.nonFinite, 0u) << r.kernel;
            // fp8 products accumulate in less than f32: its LSE within
            // 5e-3 absolute.
            if (dtype == DType::E4M3)
              EXPECT_LT(r.lse.maxAbs, 5e-3) << r.kernel;
            else
              EXPECT_LT(r.lse.relative, 1e-3) << r.kernel;
            EXPECT_GT(r.lse.count, 0u) << r.kernel;
          }
          EXPECT_EQ(r.kernel,
                    choice.kernel.name + " (" + choice.kernel.chip.str() + ")");
          ++ran;
        }
  }
  std::printf("%d GPU cases run\n", ran);
  EXPECT_GT(ran, 0) << "the bundle has no kernel for this GPU";
}

TEST_F(Gpu, BiasMatchesTheReference) {
  // Every bundle kernel with a score bias, over shapes that are not
  // multiples of the blocks (GQA, Nq != Nk, causal rows that see no key
  // where the kernel is causal) and each broadcast of the bias.
  std::set<std::tuple<DType, int, int, bool, bool, DType>> keys;
  for (const KernelEntry &k : rt->bundle().kernels)
    if (k.bias && k.program == Program::Attention)
      keys.insert(
          {k.dtype, k.headDim, k.headDimV, k.causal, k.lse, k.biasType});
  const CaseShape shapes[] = {{2, 4, 2, 128, 128},
                              {1, 2, 1, 130, 257},
                              {2, 2, 2, 257, 130},
                              {1, 3, 1, 1, 1000}};
  int ran = 0;
  uint64_t seed = 4321;
  for (auto [dtype, D, Dv, causal, withLse, biasType] : keys)
    for (const CaseShape &sh : shapes)
      for (int broadcast = 0; broadcast < 4; ++broadcast) {
        ForwardProblem p = forwardOf(dtype, D, Dv, causal, withLse, sh);
        p.bias = true;
        p.biasType = biasType;
        p.biasBatch = broadcast & 1 ? 1 : sh.B;
        p.biasHeads = broadcast & 2 ? 1 : sh.Hq;
        KernelChoice choice;
        if (!rt->selectKernel(p, 0, choice).ok())
          continue; // no variant for this GPU
        SCOPED_TRACE(::testing::Message()
                     << dtypeName(dtype) << " D=" << D << " causal=" << causal
                     << " bias " << dtypeName(biasType) << " [" << p.biasBatch
                     << ", " << p.biasHeads << ", Nq, Nk] B=" << sh.B
                     << " Hq=" << sh.Hq << " Hkv=" << sh.Hkv << " Nq=" << sh.Nq
                     << " Nk=" << sh.Nk);
        CaseResult r;
        runCase(*rt, p, broadcast & 1 ? Layout::BNHD : Layout::BHND, seed += 3,
                r);
        if (HasFatalFailure())
          return;
        EXPECT_EQ(r.o.nonFinite, 0u) << r.kernel;
        EXPECT_LT(r.o.relative, tolerance(dtype)) << r.kernel;
        if (withLse) {
          EXPECT_EQ(r.lse.nonFinite, 0u) << r.kernel;
          EXPECT_LT(r.lse.relative, 1e-3) << r.kernel;
        }
        EXPECT_EQ(r.kernel,
                  choice.kernel.name + " (" + choice.kernel.chip.str() + ")");
        ++ran;
      }
  std::printf("%d GPU bias cases run\n", ran);
  if (keys.empty())
    GTEST_SKIP() << "the bundle has no kernel with a score bias";
  EXPECT_GT(ran, 0) << "the bundle's bias kernels are not for this GPU";
}

/// A bundle problem this GPU can run without LSE, or skip.
bool firstRunnable(Runtime &rt, ForwardProblem &p) {
  for (const KernelEntry &k : rt.bundle().kernels) {
    p = ForwardProblem();
    p.dtype = k.dtype;
    p.headDim = k.headDim;
    p.headDimV = k.headDimV;
    p.causal = k.causal;
    p.batch = 2;
    p.headsQ = p.headsKV = 2;
    p.seqQ = p.seqK = 64;
    KernelChoice c;
    if (rt.selectKernel(p, 0, c).ok())
      return true;
  }
  return false;
}

TEST_F(Gpu, ValidationWithDeviceMemory) {
  ForwardProblem p;
  if (!firstRunnable(*rt, p))
    GTEST_SKIP() << "no bundle kernel runs on this GPU";
  const TensorExtents e = tensorExtents(p);
  DeviceBuffer q, k, v, o, small;
  ASSERT_TRUE(DeviceBuffer::allocate(*rt, 0, e.q, q).ok());
  ASSERT_TRUE(DeviceBuffer::allocate(*rt, 0, e.k, k).ok());
  ASSERT_TRUE(DeviceBuffer::allocate(*rt, 0, e.v, v).ok());
  ASSERT_TRUE(DeviceBuffer::allocate(*rt, 0, e.o, o).ok());
  ASSERT_TRUE(DeviceBuffer::allocate(*rt, 0, e.k / 2, small).ok());
  ASSERT_TRUE(rt->fill(o.get(), 0xAB, e.o).ok());

  auto expectError = [&](const void *qp, const void *kp, const void *vp,
                         const std::string &needle) {
    Status s = rt->forward(p, qp, kp, vp, o.get(), nullptr, nullptr);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << s.message();
    EXPECT_NE(s.message().find(needle), std::string::npos)
        << "message: " << s.message() << "\nwanted:  " << needle;
  };
  std::vector<uint8_t> hostK(e.k + 64);
  const void *hostAligned = reinterpret_cast<const void *>(
      (reinterpret_cast<uintptr_t>(hostK.data()) + 15) & ~uintptr_t(15));
  expectError(q.get(), hostAligned, v.get(), "is not CUDA device memory");
  expectError(q.get(), k.get(), small.get(), "v needs");
  expectError(q.get(), k.get(), small.get(), "but its allocation ends after");
  const char *inner = static_cast<const char *>(k.get()) + 64;
  expectError(q.get(), inner, v.get(), "k needs"); // runs past the end

  // Nothing was written by the failed calls.
  ASSERT_TRUE(rt->synchronize(0).ok());
  std::vector<uint8_t> back(e.o);
  ASSERT_TRUE(rt->copyToHost(back.data(), o.get(), back.size()).ok());
  for (size_t i = 0; i < back.size(); ++i)
    ASSERT_EQ(back[i], 0xAB) << "byte " << i << " of o was written";

  // A good call after the failures works.
  Status s =
      rt->forward(p, q.get(), k.get(), v.get(), o.get(), nullptr, nullptr);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(rt->synchronize(0).ok());
}

TEST_F(Gpu, ConcurrentFirstUse) {
  // A fresh runtime, so the threads race to load the module.
  std::unique_ptr<Runtime> fresh;
  ASSERT_TRUE(Runtime::create({}, fresh).ok());
  ForwardProblem p;
  if (!firstRunnable(*fresh, p))
    GTEST_SKIP() << "no bundle kernel runs on this GPU";
  p.seqQ = 130;
  p.seqK = 257;
  constexpr int kThreads = 4;
  CaseResult results[kThreads];
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back(
        [&, t] { runCase(*fresh, p, Layout::BHND, 99 + t * 7, results[t]); });
  for (std::thread &t : threads)
    t.join();
  for (const CaseResult &r : results) {
    EXPECT_EQ(r.o.nonFinite, 0u);
    EXPECT_LT(r.o.relative, tolerance(p.dtype));
    EXPECT_GT(r.o.count, 0u);
  }
}

/// The problem families of the bundle (dtype, head dims, mask), with and
/// without LSE, whose kernel runs on device 0, small enough to run fast.
std::vector<ForwardProblem> runnableProblems(Runtime &rt) {
  std::set<std::tuple<DType, int, int, bool>> keys;
  for (const KernelEntry &k : rt.bundle().kernels)
    keys.insert({k.dtype, k.headDim, k.headDimV, k.causal});
  std::vector<ForwardProblem> out;
  for (auto [dtype, D, Dv, causal] : keys)
    for (bool withLse : {true, false}) {
      ForwardProblem p =
          forwardOf(dtype, D, Dv, causal, withLse, {1, 2, 2, 130, 257});
      KernelChoice c;
      if (rt.selectKernel(p, 0, c).ok())
        out.push_back(p);
    }
  return out;
}

/// `k` as a manifest line, its PTX by absolute path in `dir`, with `sass`
/// (a value for sass=) if not empty.
std::string manifestLine(const KernelEntry &k, const std::string &dir,
                         const std::string &sass) {
  KernelEntry line = k;
  line.ptx = ptxPath(dir, k);
  line.sass.clear();
  std::string text = formatManifestLine(line);
  if (!sass.empty())
    text += " sass=" + sass;
  return text + "\n";
}

TEST_F(Gpu, BundledKernelsLoadFromSass) {
  // Fresh runtimes: nothing loaded yet, so each first forward loads its
  // module, from the bundle's cubin where it has one for this chip. The
  // second runtime reads a PTX-only copy of the same manifest, to show what
  // the cubins save (the driver's JIT cache, ~/.nv/ComputeCache, may
  // shorten the PTX times of a machine that ran these kernels before).
  DeviceInfo info;
  ASSERT_TRUE(rt->deviceInfo(0, info).ok());
  std::unique_ptr<Runtime> fresh;
  ASSERT_TRUE(Runtime::create({}, fresh).ok());
  const std::string dir = fresh->bundle().dir;
  test::TempDir ptxOnly;
  std::string manifest;
  for (const KernelEntry &k : fresh->bundle().kernels)
    manifest += manifestLine(k, dir, "");
  ptxOnly.write("manifest.txt", manifest);
  RuntimeOptions ptxOptions;
  ptxOptions.bundleDir = ptxOnly.path();
  std::unique_ptr<Runtime> jit;
  ASSERT_TRUE(Runtime::create(ptxOptions, jit).ok());

  int sass = 0, ptx = 0;
  double sassMs = 0, ptxMs = 0;
  uint64_t seed = 77;
  for (const ForwardProblem &p : runnableProblems(*fresh)) {
    KernelChoice before;
    ASSERT_TRUE(fresh->selectKernel(p, 0, before).ok());
    const int i = selectSass(before.kernel, info.ccMajor, info.ccMinor);
    SCOPED_TRACE(before.kernel.name + " (" + before.kernel.chip.str() + ")");
    // Before the load: what the runtime will try.
    EXPECT_EQ(before.image, i >= 0 ? "sass" : "ptx");
    EXPECT_EQ(before.imageFile,
              i >= 0 ? bundleFilePath(dir, before.kernel.sass[size_t(i)].file)
                     : ptxPath(dir, before.kernel));
    CaseResult r;
    runCase(*fresh, p, Layout::BHND, seed += 3, r);
    if (HasFatalFailure())
      return;
    EXPECT_LT(r.o.relative, tolerance(p.dtype));
    KernelChoice last;
    ASSERT_TRUE(fresh->lastKernel(last));
    EXPECT_EQ(last.kernel.name, before.kernel.name);
    EXPECT_EQ(last.image, before.image);
    EXPECT_EQ(last.imageFile, before.imageFile);
    EXPECT_EQ(last.fallback, "");
    KernelChoice after; // once loaded: what was loaded
    ASSERT_TRUE(fresh->selectKernel(p, 0, after).ok());
    EXPECT_EQ(after.image, last.image);

    CaseResult rj;
    runCase(*jit, p, Layout::BHND, seed, rj);
    if (HasFatalFailure())
      return;
    KernelChoice lastJit;
    ASSERT_TRUE(jit->lastKernel(lastJit));
    EXPECT_EQ(lastJit.image, "ptx");
    EXPECT_LT(rj.o.relative, tolerance(p.dtype));
    if (i >= 0) {
      ++sass;
      sassMs += r.forwardMs;
      ptxMs += rj.forwardMs;
    } else {
      ++ptx;
    }
  }
  std::printf("sm_%d%d: %d kernels loaded from SASS, %d from PTX; their "
              "first forward calls (load, launch, sync) took %.1f ms in all, "
              "the same kernels from PTX %.1f ms\n",
              info.ccMajor, info.ccMinor, sass, ptx, sassMs, ptxMs);
  if (!sass)
    GTEST_SKIP() << "the bundle has no SASS for sm_" << info.ccMajor
                 << info.ccMinor << " (" << ptx
                 << " kernels from PTX): built without ptxas, or not for "
                    "this chip";
}

TEST_F(Gpu, BrokenCubinFallsBackToPtx) {
  // A bundle whose cubin for this chip is garbage: the driver refuses it,
  // the runtime JIT-compiles the PTX instead, runs correctly, and says why.
  DeviceInfo info;
  ASSERT_TRUE(rt->deviceInfo(0, info).ok());
  std::vector<ForwardProblem> problems = runnableProblems(*rt);
  if (problems.empty())
    GTEST_SKIP() << "no bundle kernel runs on this GPU";
  // A batch large enough for the forward kernel itself (a smaller grid
  // would split its keys over the split-KV pair, which this one-kernel
  // bundle does not hold).
  ForwardProblem p = problems.front();
  KernelChoice choice;
  ASSERT_TRUE(rt->selectKernel(p, 0, choice).ok());
  while (choice.kvSplits > 1 && p.batch < 4096) {
    p.batch *= 2;
    ASSERT_TRUE(rt->selectKernel(p, 0, choice).ok());
  }
  ASSERT_EQ(choice.kvSplits, 1);
  const KernelEntry &k = choice.kernel;
  // This device's chip, as the line's PTX can be assembled for it.
  std::string chip = "sm_" + std::to_string(info.ccMajor) +
                     std::to_string(info.ccMinor) +
                     (k.chip.variant == 'a' ? "a" : "");
  test::TempDir dir;
  dir.write("bad.cubin", std::string("\x7f"
                                     "ELF",
                                     4) +
                             "not a cubin");
  dir.write("manifest.txt",
            manifestLine(k, rt->bundle().dir,
                         chip + ":" + dir.path() + "/bad.cubin"));
  RuntimeOptions options;
  options.bundleDir = dir.path();
  std::unique_ptr<Runtime> broken;
  Status s = Runtime::create(options, broken);
  ASSERT_TRUE(s.ok()) << s.message();
  KernelChoice before;
  ASSERT_TRUE(broken->selectKernel(p, 0, before).ok());
  EXPECT_EQ(before.image, "sass");
  CaseResult r;
  runCase(*broken, p, Layout::BHND, 5, r);
  if (HasFatalFailure())
    return;
  EXPECT_LT(r.o.relative, tolerance(p.dtype));
  KernelChoice last;
  ASSERT_TRUE(broken->lastKernel(last));
  EXPECT_EQ(last.image, "ptx");
  EXPECT_EQ(last.imageFile, ptxPath(rt->bundle().dir, k));
  EXPECT_NE(last.fallback.find("SASS " + dir.path() + "/bad.cubin"),
            std::string::npos)
      << last.fallback;
  EXPECT_NE(last.fallback.find("CUDA_ERROR_"), std::string::npos)
      << last.fallback;
  std::printf("fallback: %s\n", last.fallback.c_str());
}

} // namespace

//===----------------------------------------------------------------------===//
// Kernels the bundle lacks, from RuntimeOptions::compiler
//===----------------------------------------------------------------------===//

/// A compiler that serves requests from another bundle (the default one),
/// so that the runtime's side of compiling on demand is tested without
/// MLIR: what it asks for, when, how often, and what it does with what it
/// gets back. Counts its calls; can be told to fail or to lie.
class BundleCompiler : public KernelCompiler {
public:
  explicit BundleCompiler(const Manifest &source) : source(source) {}
  Status compile(const KernelRequest &r, CompiledImage &out) override {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); // a race
    if (!failWith.ok())
      return failWith;
    ForwardProblem p;
    p.dtype = r.dtype;
    p.headDim = r.headDim;
    p.headDimV = r.headDimV;
    p.causal = r.causal;
    p.withLse = r.withLse;
    const KernelEntry *k = nullptr;
    if (r.program != Program::Attention) {
      // The split-KV pair: the source's kernels of that program.
      std::vector<const KernelEntry *> split, merge;
      Status s = findSplitKernels(source, p, split, merge);
      if (s.ok())
        s = selectVariant(r.program == Program::SplitKV ? split : merge,
                          r.ccMajor, r.ccMinor, k);
      if (!s.ok())
        return Status::error(StatusCode::Unsupported, s.message());
    } else if (Status s = selectKernel(source, p, r.ccMajor, r.ccMinor, k);
               !s.ok()) {
      return Status::error(StatusCode::Unsupported, s.message());
    }
    out.entry = *k;
    if (lie)
      out.entry.headDim += 16;
    std::ifstream in(ptxPath(source.dir, *k), std::ios::binary);
    out.image.assign(std::istreambuf_iterator<char>(in), {});
    out.isPtx = true;
    out.origin = "test compiler";
    out.stageMs = {{"test", 1.0}};
    return Status::success();
  }
  std::string describe() const override { return "test compiler"; }

  const Manifest &source;
  std::atomic<int> calls{0};
  Status failWith;
  bool lie = false;
};

/// A runtime whose bundle holds only the kernels of `full` that `keep`
/// accepts (by default: those of head dims other than `missing`'s), with
/// `compiler` (may be null).
struct PartialBundle {
  test::TempDir dir;
  std::unique_ptr<Runtime> rt;
  Status make(const Manifest &full, const ForwardProblem &missing,
              std::shared_ptr<KernelCompiler> compiler) {
    return make(
        full,
        [&](const KernelEntry &k) { return k.headDim != missing.headDim; },
        std::move(compiler));
  }
  Status make(const Manifest &full,
              const std::function<bool(const KernelEntry &)> &keep,
              std::shared_ptr<KernelCompiler> compiler) {
    std::set<int> keptLines;
    for (const KernelEntry &k : full.kernels)
      if (keep(k)) {
        keptLines.insert(k.line);
        std::ifstream ptx(ptxPath(full.dir, k), std::ios::binary);
        dir.write(k.ptx, std::string(std::istreambuf_iterator<char>(ptx), {}));
      }
    std::ifstream in(full.dir + "/manifest.txt");
    std::string line, kept;
    for (int n = 1; std::getline(in, line); ++n)
      if (line.rfind("kernel ", 0) != 0 || keptLines.count(n))
        kept += line + "\n";
    dir.write("manifest.txt", kept);
    RuntimeOptions o;
    o.bundleDir = dir.path();
    o.compiler = std::move(compiler);
    return Runtime::create(o, rt);
  }
};

TEST_F(Gpu, NotInBundleWithoutACompiler) {
  ForwardProblem p;
  if (!firstRunnable(*rt, p))
    GTEST_SKIP() << "no bundle kernel runs on this GPU";
  PartialBundle pb;
  ASSERT_TRUE(pb.make(rt->bundle(), p, nullptr).ok());
  KernelChoice c;
  Status s = pb.rt->selectKernel(p, 0, c);
  EXPECT_EQ(s.code(), StatusCode::NotInBundle) << s.message();
  CaseResult r;
  DeviceBuffer b;
  ASSERT_TRUE(DeviceBuffer::allocate(*pb.rt, 0, 1 << 20, b).ok());
  char *base = static_cast<char *>(b.get());
  p.seqQ = p.seqK = 16;
  s = pb.rt->forward(p, base, base + (1 << 18), base + (2 << 18),
                     base + (3 << 18), nullptr, nullptr);
  EXPECT_EQ(s.code(), StatusCode::NotInBundle) << s.message();
  EXPECT_NE(s.message().find("no compiler"), std::string::npos) << s.message();
}

TEST_F(Gpu, CompilerServesWhatTheBundleLacksOncePerKernel) {
  ForwardProblem p;
  if (!firstRunnable(*rt, p))
    GTEST_SKIP() << "no bundle kernel runs on this GPU";
  auto compiler = std::make_shared<BundleCompiler>(rt->bundle());
  PartialBundle pb;
  ASSERT_TRUE(pb.make(rt->bundle(), p, compiler).ok());
  p.seqQ = 130;
  p.seqK = 257;
  // Threads race for the first use: one compile, every output right.
  constexpr int kThreads = 6;
  CaseResult results[kThreads];
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back(
        [&, t] { runCase(*pb.rt, p, Layout::BHND, 7 + t * 5, results[t]); });
  for (std::thread &t : threads)
    t.join();
  for (const CaseResult &r : results) {
    EXPECT_EQ(r.o.nonFinite, 0u);
    EXPECT_LT(r.o.relative, tolerance(p.dtype));
    EXPECT_GT(r.o.count, 0u);
  }
  EXPECT_EQ(compiler->calls.load(), 1);
  KernelChoice c;
  ASSERT_TRUE(pb.rt->lastKernel(c));
  EXPECT_EQ(c.origin, "test compiler");
  ASSERT_EQ(c.stageMs.size(), 2u);
  EXPECT_EQ(c.stageMs[0].first, "test");
  EXPECT_EQ(c.stageMs[1].first, "load");
  EXPECT_EQ(c.image, "ptx");
  // selectKernel and prepare reuse it.
  ASSERT_TRUE(pb.rt->selectKernel(p, 0, c).ok());
  ASSERT_TRUE(pb.rt->prepare({p}, 0).ok());
  EXPECT_EQ(compiler->calls.load(), 1);
}

TEST_F(Gpu, CompilerServesTheSplitKVPairTheBundleLacks) {
  // Decoding at a head dim the bundle lacks: the runtime asks the compiler
  // for the split_kv kernel and its merge (not the forward), once each,
  // and the result is right; without the pair's kernels (the compiler
  // cannot make them) the forward runs unsplit.
  ForwardProblem p;
  if (!firstRunnable(*rt, p))
    GTEST_SKIP() << "no bundle kernel runs on this GPU";
  auto compiler = std::make_shared<BundleCompiler>(rt->bundle());
  PartialBundle pb;
  ASSERT_TRUE(pb.make(rt->bundle(), p, compiler).ok());
  p.batch = 1;
  p.headsQ = p.headsKV = 2;
  p.seqQ = 3;
  p.seqK = 4096;
  p.withLse = true;
  KernelChoice before;
  ASSERT_TRUE(pb.rt->selectKernel(p, 0, before).ok());
  if (before.kvSplits == 1)
    GTEST_SKIP() << "the bundle has no split-KV pair for this GPU";
  EXPECT_EQ(before.kernel.program, Program::SplitKV);
  EXPECT_EQ(before.origin, "test compiler");
  EXPECT_EQ(compiler->calls.load(), 2);
  CaseResult r;
  runCase(*pb.rt, p, Layout::BHND, 11, r);
  if (HasFatalFailure())
    return;
  EXPECT_EQ(r.o.nonFinite, 0u);
  EXPECT_LT(r.o.relative, tolerance(p.dtype));
  EXPECT_LT(r.lse.relative, 1e-3);
  KernelChoice last;
  ASSERT_TRUE(pb.rt->lastKernel(last));
  EXPECT_EQ(last.kernel.name, before.kernel.name);
  EXPECT_EQ(last.kvSplits, before.kvSplits);
  EXPECT_FALSE(last.mergeKernel.empty());
  EXPECT_EQ(compiler->calls.load(), 2);

  // A compiler that cannot make the pair: the forward kernel, compiled.
  auto plain = std::make_shared<BundleCompiler>(rt->bundle());
  PartialBundle pb2;
  ASSERT_TRUE(pb2.make(rt->bundle(), p, plain).ok());
  plain->failWith =
      Status::error(StatusCode::Unsupported, "unsupported: no split-KV");
  KernelChoice c;
  EXPECT_EQ(pb2.rt->selectKernel(p, 0, c).code(), StatusCode::Unsupported);
  plain->failWith = Status::success();
}

TEST_F(Gpu, CausalOnlyBundleStillRunsGqaDecoding) {
  // Packing the query heads of a GQA group makes a decode step non-causal;
  // a bundle of causal kernels only (and no compiler) runs it unpacked.
  ForwardProblem p;
  if (!firstRunnable(*rt, p))
    GTEST_SKIP() << "no bundle kernel runs on this GPU";
  PartialBundle pb;
  ASSERT_TRUE(pb.make(
                    rt->bundle(),
                    [](const KernelEntry &k) {
                      return k.causal && k.program == Program::Attention;
                    },
                    nullptr)
                  .ok());
  Runtime *causalOnly = pb.rt.get();
  p.causal = true;
  p.batch = 2;
  p.headsQ = 4;
  p.headsKV = 2;
  p.seqQ = 1;
  p.seqK = 300;
  p.withLse = true;
  KernelChoice c;
  Status s = causalOnly->selectKernel(p, 0, c);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(c.kernel.causal);
  CaseResult r;
  runCase(*causalOnly, p, Layout::BNHD, 21, r);
  if (HasFatalFailure())
    return;
  EXPECT_EQ(r.o.nonFinite, 0u);
  EXPECT_LT(r.o.relative, tolerance(p.dtype));
  EXPECT_LT(r.lse.relative, 1e-3);
}

TEST_F(Gpu, DependentLaunchesKeepStreamOrder) {
  // Decode steps back to back on one stream: each step's split kernel
  // writes a workspace the pool hands out again to the next step while the
  // previous merge may still read it, and with dependent launches (pdl=1,
  // sm_90+) the next grid's blocks start before the previous one is done.
  // Two problems alternate, 24 steps each, without synchronising; every
  // output must equal bit for bit the one a runtime that launches each
  // kernel after the previous one computes.
  ForwardProblem p;
  const KernelEntry *split = nullptr;
  for (const KernelEntry &k : rt->bundle().kernels)
    if (k.program == Program::SplitKV && !k.causal && k.kv == KVLayout::Dense &&
        k.windowLeft < 0 && k.windowRight < 0 && k.softcap == 0 && !k.alibi &&
        !k.dropout &&
        (!split || (k.dependentLaunch && !split->dependentLaunch)))
      split = &k;
  if (!split)
    GTEST_SKIP() << "the bundle has no split-KV kernel";
  p.dtype = split->dtype;
  p.headDim = split->headDim;
  p.headDimV = split->headDimV;
  p.causal = false;
  p.batch = 1;
  p.headsQ = 8;
  p.headsKV = 2;
  p.seqQ = 1;
  p.seqK = 4096;
  p.withLse = true;
  KernelChoice c;
  ASSERT_TRUE(rt->selectKernel(p, 0, c).ok());
  if (c.kvSplits < 2)
    GTEST_SKIP() << "the decode step does not split its keys here";
  DeviceInfo info;
  ASSERT_TRUE(rt->deviceInfo(0, info).ok());
  if (info.ccMajor < 9 || !c.kernel.dependentLaunch)
    GTEST_SKIP() << "no dependent launch here (sm_" << info.ccMajor
                 << info.ccMinor << ", " << c.kernel.name << ")";
  RuntimeOptions serialOptions;
  serialOptions.dependentLaunch = false;
  std::unique_ptr<Runtime> serial;
  Status created = Runtime::create(serialOptions, serial);
  ASSERT_TRUE(created.ok()) << created.message();

  const size_t es = dtypeSize(p.dtype);
  struct Step {
    Tensor q, k, v, o;
    DeviceBuffer lse;
    std::vector<uint8_t> want, wantLse;
  } steps[2];
  for (int i = 0; i < 2; ++i) {
    Step &st = steps[i];
    std::vector<double> values;
    std::vector<uint8_t> bytes;
    auto load = [&](uint64_t seed, int64_t H, int64_t N, int64_t D, Tensor &t) {
      fillRandom(p.dtype, seed, size_t(p.batch * H * N * D), values, bytes);
      ASSERT_TRUE(
          upload(*rt, bytes, p.batch, H, N, D, Layout::BNHD, es, t).ok());
    };
    load(900 + 10 * i, p.headsQ, p.seqQ, p.headDim, st.q);
    load(901 + 10 * i, p.headsKV, p.seqK, p.headDim, st.k);
    load(902 + 10 * i, p.headsKV, p.seqK, p.headDimV, st.v);
    std::vector<uint8_t> poison(size_t(p.headsQ * p.headDimV) * es, 0xFF);
    ASSERT_TRUE(upload(*rt, poison, p.batch, p.headsQ, p.seqQ, p.headDimV,
                       Layout::BNHD, es, st.o)
                    .ok());
    ASSERT_TRUE(
        DeviceBuffer::allocate(*rt, 0, size_t(p.headsQ) * 4, st.lse).ok());
    ForwardProblem pi = p;
    pi.q = st.q.strides;
    pi.k = st.k.strides;
    pi.v = st.v.strides;
    pi.o = st.o.strides;
    Status s = serial->forward(pi, st.q.buf.get(), st.k.buf.get(),
                               st.v.buf.get(), st.o.buf.get(),
                               static_cast<float *>(st.lse.get()), nullptr);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_TRUE(serial->synchronize(0).ok());
    st.want.resize(poison.size());
    st.wantLse.resize(st.lse.size());
    ASSERT_TRUE(
        rt->copyToHost(st.want.data(), st.o.buf.get(), st.want.size()).ok());
    ASSERT_TRUE(
        rt->copyToHost(st.wantLse.data(), st.lse.get(), st.lse.size()).ok());
    std::vector<double> o =
        decode(p.dtype, st.want.data(), st.want.size() / es);
    for (double x : o)
      ASSERT_TRUE(std::isfinite(x)) << "the serial run left O unwritten";
    ASSERT_TRUE(rt->fill(st.o.buf.get(), 0xFF, st.want.size()).ok());
    ASSERT_TRUE(rt->fill(st.lse.get(), 0xFF, st.lse.size()).ok());
  }
  for (int round = 0; round < 24; ++round)
    for (Step &st : steps) {
      ForwardProblem pi = p;
      pi.q = st.q.strides;
      pi.k = st.k.strides;
      pi.v = st.v.strides;
      pi.o = st.o.strides;
      Status s = rt->forward(pi, st.q.buf.get(), st.k.buf.get(), st.v.buf.get(),
                             st.o.buf.get(), static_cast<float *>(st.lse.get()),
                             nullptr);
      ASSERT_TRUE(s.ok()) << s.message();
    }
  ASSERT_TRUE(rt->synchronize(0).ok());
  KernelChoice last;
  ASSERT_TRUE(rt->lastKernel(last));
  EXPECT_GT(last.kvSplits, 1);
  for (Step &st : steps) {
    std::vector<uint8_t> got(st.want.size()), gotLse(st.wantLse.size());
    ASSERT_TRUE(rt->copyToHost(got.data(), st.o.buf.get(), got.size()).ok());
    ASSERT_TRUE(
        rt->copyToHost(gotLse.data(), st.lse.get(), gotLse.size()).ok());
    EXPECT_EQ(got, st.want) << last.kernel.name;
    EXPECT_EQ(gotLse, st.wantLse) << last.kernel.name;
  }
}

/// Sets an environment variable for the life of the object, then puts
/// back what was there.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *was = std::getenv(name))
      saved_ = was;
    had_ = std::getenv(name) != nullptr;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, saved_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char *name_;
  std::string saved_;
  bool had_ = false;
};

TEST_F(Gpu, LaunchEnvironmentIsChecked) {
  // The environment's knobs are read once, when a runtime is created: a
  // value they do not take is an error then, not a silent default.
  struct Var {
    const char *name, *bad, *message;
  } vars[] = {
      {"ATTN_DEPENDENT_LAUNCH", "yes",
       "ATTN_DEPENDENT_LAUNCH='yes': expected 0"},
      {"ATTN_KV_SPLITS", "-3", "ATTN_KV_SPLITS='-3': expected a count"}};
  for (const Var &v : vars) {
    ScopedEnv env(v.name, v.bad);
    std::unique_ptr<Runtime> r;
    Status s = Runtime::create({}, r);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << v.name;
    EXPECT_NE(s.message().find(v.message), std::string::npos) << s.message();
    EXPECT_FALSE(r);
  }
  // Set to 0, the runtime launches every kernel after the one before it.
  ScopedEnv serial("ATTN_DEPENDENT_LAUNCH", "0");
  std::unique_ptr<Runtime> r;
  Status s = Runtime::create({}, r);
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST_F(Gpu, PrepareCompilesAheadAndNamesTheFailingProblem) {
  ForwardProblem p;
  if (!firstRunnable(*rt, p))
    GTEST_SKIP() << "no bundle kernel runs on this GPU";
  auto compiler = std::make_shared<BundleCompiler>(rt->bundle());
  PartialBundle pb;
  ASSERT_TRUE(pb.make(rt->bundle(), p, compiler).ok());
  ASSERT_TRUE(pb.rt->prepare({p}, 0).ok());
  EXPECT_EQ(compiler->calls.load(), 1);
  CaseResult r;
  runCase(*pb.rt, p, Layout::BHND, 3, r);
  EXPECT_LT(r.o.relative, tolerance(p.dtype));
  EXPECT_EQ(compiler->calls.load(), 1) << "prepare's kernel was not reused";
  ForwardProblem bad = p;
  bad.headsKV = 3; // Hq % Hkv != 0
  Status s = pb.rt->prepare({p, bad}, 0);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message().rfind("problem 1: ", 0), 0u) << s.message();
}

TEST_F(Gpu, CompilerFailuresAndLiesAreErrors) {
  ForwardProblem p;
  if (!firstRunnable(*rt, p))
    GTEST_SKIP() << "no bundle kernel runs on this GPU";
  auto compiler = std::make_shared<BundleCompiler>(rt->bundle());
  PartialBundle pb;
  ASSERT_TRUE(pb.make(rt->bundle(), p, compiler).ok());
  compiler->failWith =
      Status::error(StatusCode::Unsupported, "unsupported: for the test");
  KernelChoice c;
  Status s = pb.rt->selectKernel(p, 0, c);
  EXPECT_EQ(s.code(), StatusCode::Unsupported);
  EXPECT_EQ(s.message(), "unsupported: for the test");
  // Not remembered: the next call asks again, and now gets a kernel that
  // says it is something else, which the runtime refuses to launch.
  compiler->failWith = Status::success();
  compiler->lie = true;
  s = pb.rt->selectKernel(p, 0, c);
  EXPECT_EQ(s.code(), StatusCode::Internal) << s.message();
  EXPECT_NE(s.message().find("does not match"), std::string::npos)
      << s.message();
  EXPECT_EQ(compiler->calls.load(), 2);
}

namespace {

/// One KV-cache decode step on the GPU (page 0: a contiguous cache with
/// per-sequence lengths) against the float64 reference of each sequence's
/// own keys. Pages are shuffled, spare pages and rows past a sequence's end
/// are NaN and the table's unused entries out of range: a kernel that reads
/// any of them fails. Then a table with a page out of range must be refused
/// before anything is written.
void runKVCacheCase(Runtime &rt, int64_t page, int64_t d, int64_t nq,
                    bool causal, uint64_t seed) {
  SCOPED_TRACE("page " + std::to_string(page) + " D " + std::to_string(d) +
               " Nq " + std::to_string(nq) + (causal ? " causal" : ""));
  const int64_t B = 4, Hq = 8, Hkv = 2, cap = 512;
  Problem ref;
  ref.batch = B;
  ref.headsQ = Hq;
  ref.headsKV = Hkv;
  ref.seqQ = nq;
  ref.seqK = cap;
  ref.headDim = ref.headDimV = d;
  ref.causal = causal;
  ref.dtype = DType::BF16;
  ref.kvLens = {0, 1, cap, 200};
  const size_t es = 2;
  std::vector<double> q, k, v, o, lse;
  std::vector<uint8_t> qs, ks, vs;
  fillRandom(ref.dtype, seed, ref.numQ(), q, qs);
  fillRandom(ref.dtype, seed + 1, ref.numK(), k, ks);
  fillRandom(ref.dtype, seed + 2, ref.numV(), v, vs);
  referenceAttention(ref, q, k, v, o, lse);

  // The cache's storage: NaN (0xFFFF) everywhere first.
  const size_t rowBytes = size_t(d) * es;
  int64_t pages = 0, maxPages = 0;
  std::vector<int32_t> table;
  if (page) {
    maxPages = cap / page;
    for (int64_t n : ref.kvLens)
      pages += (n + page - 1) / page;
    pages += 2;
    std::vector<int32_t> order(static_cast<size_t>(pages));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
    table.assign(size_t(B * maxPages), std::numeric_limits<int32_t>::max());
    size_t next = 0;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < (ref.kvLens[size_t(b)] + page - 1) / page; ++i)
        table[size_t(b * maxPages + i)] = order[next++];
  }
  const int64_t blocks = page ? pages : B, rows = page ? page : cap;
  std::vector<uint8_t> kc(size_t(blocks * Hkv * rows) * rowBytes, 0xFF),
      vc(kc.size(), 0xFF);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hkv; ++h)
      for (int64_t j = 0; j < ref.kvLens[size_t(b)]; ++j) {
        size_t from = size_t((b * Hkv + h) * cap + j) * rowBytes;
        size_t to = from;
        if (page)
          to =
              size_t((table[size_t(b * maxPages + j / page)] * Hkv + h) * page +
                     j % page) *
              rowBytes;
        std::memcpy(&kc[to], &ks[from], rowBytes);
        std::memcpy(&vc[to], &vs[from], rowBytes);
      }
  DeviceBuffer dq, dk, dv, dout, dl, dlens, dtable;
  auto put = [&](DeviceBuffer &buf, const void *host, size_t bytes) {
    ASSERT_TRUE(DeviceBuffer::allocate(rt, 0, bytes, buf).ok());
    ASSERT_TRUE(rt.copyToDevice(buf.get(), host, bytes).ok());
  };
  put(dq, qs.data(), qs.size());
  put(dk, kc.data(), kc.size());
  put(dv, vc.data(), vc.size());
  std::vector<uint8_t> poison(ref.numO() * es, 0xFF);
  put(dout, poison.data(), poison.size());
  std::vector<float> lsePoison(ref.numLse(), std::nanf(""));
  put(dl, lsePoison.data(), lsePoison.size() * 4);
  std::vector<int32_t> lens(ref.kvLens.begin(), ref.kvLens.end());
  put(dlens, lens.data(), lens.size() * 4);
  if (page)
    put(dtable, table.data(), table.size() * 4);

  ForwardProblem p;
  p.dtype = ref.dtype;
  p.batch = B;
  p.headsQ = Hq;
  p.headsKV = Hkv;
  p.seqQ = nq;
  p.seqK = cap;
  p.headDim = p.headDimV = d;
  p.causal = causal;
  p.withLse = true;
  p.kvLayout = page ? KVLayout::Paged : KVLayout::SeqLens;
  if (page) {
    p.pageSize = page;
    p.numPages = pages;
    p.maxPages = maxPages;
  }
  KVCacheArgs cache;
  cache.seqLens = static_cast<const int32_t *>(dlens.get());
  cache.blockTable =
      page ? static_cast<const int32_t *>(dtable.get()) : nullptr;
  Status s = rt.forward(p, cache, dq.get(), dk.get(), dv.get(), dout.get(),
                        static_cast<float *>(dl.get()), nullptr);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(rt.synchronize(0).ok());
  std::vector<uint8_t> got(poison.size());
  ASSERT_TRUE(rt.copyToHost(got.data(), dout.get(), got.size()).ok());
  std::vector<float> lseGot(ref.numLse());
  ASSERT_TRUE(rt.copyToHost(lseGot.data(), dl.get(), lseGot.size() * 4).ok());
  ErrorStats eo = compare(decode(p.dtype, got.data(), ref.numO()), o);
  ErrorStats el =
      compare(std::vector<double>(lseGot.begin(), lseGot.end()), lse);
  EXPECT_EQ(eo.nonFinite, 0u);
  EXPECT_LT(eo.relative, tolerance(p.dtype));
  EXPECT_EQ(el.nonFinite, 0u);
  EXPECT_LT(el.relative, 1e-5);
  KernelChoice last;
  ASSERT_TRUE(rt.lastKernel(last));
  EXPECT_EQ(last.kernel.kv, p.kvLayout) << last.kernel.name;

  // A bad entry in a reached part of the table (or a length past the
  // capacity) is refused and nothing is written.
  ASSERT_TRUE(rt.copyToDevice(dout.get(), poison.data(), poison.size()).ok());
  if (page) {
    std::vector<int32_t> bad = table;
    bad[size_t(2 * maxPages + 1)] = int32_t(pages); // sequence 2: full
    ASSERT_TRUE(rt.copyToDevice(dtable.get(), bad.data(), bad.size() * 4).ok());
  } else {
    std::vector<int32_t> bad = lens;
    bad[3] = int32_t(cap + 1);
    ASSERT_TRUE(rt.copyToDevice(dlens.get(), bad.data(), bad.size() * 4).ok());
  }
  s = rt.forward(p, cache, dq.get(), dk.get(), dv.get(), dout.get(),
                 static_cast<float *>(dl.get()), nullptr);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << s.message();
  EXPECT_NE(s.message().find(page ? "block_table[2, 1]" : "seq_lens[3]"),
            std::string::npos)
      << s.message();
  ASSERT_TRUE(rt.synchronize(0).ok());
  ASSERT_TRUE(rt.copyToHost(got.data(), dout.get(), got.size()).ok());
  EXPECT_EQ(got, poison) << "a refused call wrote O";
}

} // namespace

TEST_F(Gpu, KVCacheMatchesTheReference) {
  uint64_t seed = 4242;
  for (int64_t page : {0, 16, 64, 128, 256})
    for (int64_t d : {64, 128})
      for (auto [nq, causal] : {std::pair<int64_t, bool>{1, false},
                                std::pair<int64_t, bool>{3, true}})
        runKVCacheCase(*rt, page, d, nq, causal, seed += 3);
}

TEST_F(Gpu, KVCacheWithoutItsArraysIsRefused) {
  ForwardProblem p;
  p.kvLayout = KVLayout::Paged;
  p.pageSize = 64;
  p.numPages = 4;
  p.maxPages = 2;
  p.seqK = 128;
  Status s =
      rt->forward(p, reinterpret_cast<void *>(16), reinterpret_cast<void *>(16),
                  reinterpret_cast<void *>(16), reinterpret_cast<void *>(32),
                  nullptr, nullptr);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("needs its arrays"), std::string::npos)
      << s.message();
}

namespace {

/// A packed batch (varlen) on the GPU against the float64 reference of each
/// sequence: [total, H, D] storage, ragged query and key lengths (an empty
/// sequence, a query without keys, one longer than a block), poisoned O
/// and LSE; then offsets that break the rules are refused, nothing written.
void runVarlenCase(Runtime &rt, int64_t d, bool causal, uint64_t seed) {
  SCOPED_TRACE("varlen D " + std::to_string(d) + (causal ? " causal" : ""));
  Problem ref;
  ref.headsQ = 8;
  ref.headsKV = 2;
  ref.headDim = ref.headDimV = d;
  ref.causal = causal;
  ref.dtype = DType::BF16;
  ref.varlenQ = {1, 77, 0, 200, 9};
  ref.varlenK = {5, 77, 3, 300, 0};
  ref.seqQ = ref.seqK = 0;
  for (size_t s = 0; s < ref.varlenQ.size(); ++s) {
    ref.seqQ += ref.varlenQ[s];
    ref.seqK += ref.varlenK[s];
  }
  const size_t es = 2;
  std::vector<double> q, k, v, o, lse;
  std::vector<uint8_t> qs, ks, vs;
  fillRandom(ref.dtype, seed, ref.numQ(), q, qs);
  fillRandom(ref.dtype, seed + 1, ref.numK(), k, ks);
  fillRandom(ref.dtype, seed + 2, ref.numV(), v, vs);
  referenceAttention(ref, q, k, v, o, lse);

  Tensor tq, tk, tv, to;
  ASSERT_TRUE(
      upload(rt, qs, 1, ref.headsQ, ref.seqQ, d, Layout::BNHD, es, tq).ok());
  ASSERT_TRUE(
      upload(rt, ks, 1, ref.headsKV, ref.seqK, d, Layout::BNHD, es, tk).ok());
  ASSERT_TRUE(
      upload(rt, vs, 1, ref.headsKV, ref.seqK, d, Layout::BNHD, es, tv).ok());
  std::vector<uint8_t> poison(ref.numO() * es, 0xFF);
  ASSERT_TRUE(
      upload(rt, poison, 1, ref.headsQ, ref.seqQ, d, Layout::BNHD, es, to)
          .ok());
  DeviceBuffer dl, dcq, dck;
  ASSERT_TRUE(DeviceBuffer::allocate(rt, 0, ref.numLse() * 4, dl).ok());
  ASSERT_TRUE(rt.fill(dl.get(), 0xFF, dl.size()).ok());
  std::vector<int32_t> cq = {0}, ck = {0};
  int64_t longestQ = 0, longestK = 0;
  for (size_t s = 0; s < ref.varlenQ.size(); ++s) {
    cq.push_back(cq.back() + int32_t(ref.varlenQ[s]));
    ck.push_back(ck.back() + int32_t(ref.varlenK[s]));
    longestQ = std::max(longestQ, ref.varlenQ[s]);
    longestK = std::max(longestK, ref.varlenK[s]);
  }
  ASSERT_TRUE(DeviceBuffer::allocate(rt, 0, cq.size() * 4, dcq).ok());
  ASSERT_TRUE(DeviceBuffer::allocate(rt, 0, ck.size() * 4, dck).ok());
  ASSERT_TRUE(rt.copyToDevice(dcq.get(), cq.data(), cq.size() * 4).ok());
  ASSERT_TRUE(rt.copyToDevice(dck.get(), ck.data(), ck.size() * 4).ok());

  ForwardProblem p;
  p.dtype = ref.dtype;
  p.batch = int64_t(ref.varlenQ.size());
  p.headsQ = ref.headsQ;
  p.headsKV = ref.headsKV;
  p.seqQ = longestQ;
  p.seqK = longestK;
  p.headDim = p.headDimV = d;
  p.causal = causal;
  p.withLse = true;
  p.kvLayout = KVLayout::Varlen;
  p.totalQ = ref.seqQ;
  p.totalK = ref.seqK;
  p.q = tq.strides;
  p.k = tk.strides;
  p.v = tv.strides;
  p.o = to.strides;
  KVCacheArgs args;
  args.cuSeqlensQ = static_cast<const int32_t *>(dcq.get());
  args.cuSeqlensK = static_cast<const int32_t *>(dck.get());
  Status s = rt.forward(p, args, tq.buf.get(), tk.buf.get(), tv.buf.get(),
                        to.buf.get(), static_cast<float *>(dl.get()), nullptr);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(rt.synchronize(0).ok());
  std::vector<uint8_t> got(poison.size()), os(poison.size());
  ASSERT_TRUE(rt.copyToHost(got.data(), to.buf.get(), got.size()).ok());
  relayout(got.data(), os.data(), 1, ref.headsQ, ref.seqQ, d, to.strides, es,
           false);
  std::vector<float> lseGot(ref.numLse());
  ASSERT_TRUE(rt.copyToHost(lseGot.data(), dl.get(), lseGot.size() * 4).ok());
  ErrorStats eo = compare(decode(p.dtype, os.data(), ref.numO()), o);
  ErrorStats el =
      compare(std::vector<double>(lseGot.begin(), lseGot.end()), lse);
  EXPECT_EQ(eo.nonFinite, 0u);
  EXPECT_LT(eo.relative, tolerance(p.dtype));
  EXPECT_EQ(el.nonFinite, 0u);
  EXPECT_LT(el.relative, 1e-5);
  KernelChoice last;
  ASSERT_TRUE(rt.lastKernel(last));
  EXPECT_EQ(last.kernel.kv, KVLayout::Varlen) << last.kernel.name;

  // A sequence longer than seq_q (the grid would leave rows unwritten) is
  // refused before anything is launched.
  ASSERT_TRUE(rt.copyToDevice(to.buf.get(), poison.data(), poison.size()).ok());
  ForwardProblem shortGrid = p;
  shortGrid.seqQ = longestQ - 1;
  s = rt.forward(shortGrid, args, tq.buf.get(), tk.buf.get(), tv.buf.get(),
                 to.buf.get(), static_cast<float *>(dl.get()), nullptr);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << s.message();
  EXPECT_NE(s.message().find("cu_seqlens_q[4]"), std::string::npos)
      << s.message();
  ASSERT_TRUE(rt.synchronize(0).ok());
  ASSERT_TRUE(rt.copyToHost(got.data(), to.buf.get(), got.size()).ok());
  EXPECT_EQ(got, poison) << "a refused call wrote O";
}

} // namespace

TEST_F(Gpu, PackedBatchMatchesTheReference) {
  uint64_t seed = 777;
  for (int64_t d : {64, 128})
    for (bool causal : {false, true})
      runVarlenCase(*rt, d, causal, seed += 3);
}

namespace {

struct GradResult {
  ErrorStats dq, dk, dv;
  bool deterministic = true;
  std::string kernels;
};

/// One backward through Runtime::backward against the float64 gradients:
/// fresh Q, K, V, dO; O and LSE from the float64 forward (O rounded to the
/// dtype, as a forward would leave it); dQ, dK, dV poisoned with NaN; run
/// twice, the second must write the same bits. With p.alibi, fresh slopes
/// in [0, 1) for both.
void runGradCase(Runtime &rt, BackwardProblem p, Layout layout, uint64_t seed,
                 GradResult &r) {
  const size_t es = dtypeSize(p.dtype);
  Problem ref;
  ref.shape() = p.shape();
  std::vector<float> slopes;
  DeviceBuffer tslopes;
  if (p.alibi) {
    std::mt19937_64 gen(seed + 4);
    std::uniform_real_distribution<float> dist(0.0f, 1.0f);
    for (int64_t h = 0; h < p.headsQ; ++h)
      slopes.push_back(dist(gen));
    ref.alibiSlopes.assign(slopes.begin(), slopes.end());
    ASSERT_TRUE(DeviceBuffer::allocate(rt, 0, slopes.size() * 4, tslopes).ok());
    ASSERT_TRUE(
        rt.copyToDevice(tslopes.get(), slopes.data(), tslopes.size()).ok());
    p.alibiSlopes = static_cast<const float *>(tslopes.get());
  }
  std::vector<double> q, k, v, dO, o, lse;
  std::vector<uint8_t> qs, ks, vs, dOs;
  fillRandom(p.dtype, seed, size_t(p.batch * p.headsQ * p.seqQ * p.headDim), q,
             qs);
  fillRandom(p.dtype, seed + 1,
             size_t(p.batch * p.headsKV * p.seqK * p.headDim), k, ks);
  fillRandom(p.dtype, seed + 2,
             size_t(p.batch * p.headsKV * p.seqK * p.headDimV), v, vs);
  fillRandom(p.dtype, seed + 3,
             size_t(p.batch * p.headsQ * p.seqQ * p.headDimV), dO, dOs);
  referenceAttention(ref, q, k, v, o, lse);
  std::vector<double> dq, dk, dv;
  referenceAttentionGrad(ref, q, k, v, dO, dq, dk, dv);
  std::vector<uint8_t> os = encode(p.dtype, o);
  std::vector<float> lse32(lse.begin(), lse.end());

  Tensor tq, tk, tv, tdo, to, tdq, tdk, tdv;
  const int64_t B = p.batch, Hq = p.headsQ, Hkv = p.headsKV;
  ASSERT_TRUE(upload(rt, qs, B, Hq, p.seqQ, p.headDim, layout, es, tq).ok());
  ASSERT_TRUE(upload(rt, ks, B, Hkv, p.seqK, p.headDim, layout, es, tk).ok());
  ASSERT_TRUE(upload(rt, vs, B, Hkv, p.seqK, p.headDimV, layout, es, tv).ok());
  ASSERT_TRUE(upload(rt, dOs, B, Hq, p.seqQ, p.headDimV, layout, es, tdo).ok());
  ASSERT_TRUE(upload(rt, os, B, Hq, p.seqQ, p.headDimV, layout, es, to).ok());
  DeviceBuffer tl;
  ASSERT_TRUE(DeviceBuffer::allocate(rt, 0, lse32.size() * 4, tl).ok());
  ASSERT_TRUE(rt.copyToDevice(tl.get(), lse32.data(), tl.size()).ok());
  const size_t nq = size_t(B * Hq * p.seqQ), nk = size_t(B * Hkv * p.seqK);
  auto poisoned = [&](int64_t H, int64_t N, int64_t D, size_t n, Tensor &t) {
    return upload(rt, std::vector<uint8_t>(n * size_t(D) * es, 0xFF), B, H, N,
                  D, layout, es, t);
  };
  ASSERT_TRUE(poisoned(Hq, p.seqQ, p.headDim, nq, tdq).ok());
  ASSERT_TRUE(poisoned(Hkv, p.seqK, p.headDim, nk, tdk).ok());
  ASSERT_TRUE(poisoned(Hkv, p.seqK, p.headDimV, nk, tdv).ok());
  p.q = tq.strides;
  p.k = tk.strides;
  p.v = tv.strides;
  p.o = to.strides;
  p.dO = tdo.strides;
  p.dQ = tdq.strides;
  p.dK = tdk.strides;
  p.dV = tdv.strides;

  std::vector<uint8_t> first[3];
  Tensor *outs[3] = {&tdq, &tdk, &tdv};
  for (int run = 0; run < 2; ++run) {
    Status s =
        rt.backward(p, tdo.buf.get(), tq.buf.get(), tk.buf.get(), tv.buf.get(),
                    to.buf.get(), static_cast<const float *>(tl.get()),
                    tdq.buf.get(), tdk.buf.get(), tdv.buf.get(), nullptr);
    ASSERT_TRUE(s.ok()) << s.message();
    Status sync = rt.synchronize(0);
    ASSERT_TRUE(sync.ok()) << sync.message();
    for (int i = 0; i < 3; ++i) {
      std::vector<uint8_t> got(outs[i]->buf.size());
      ASSERT_TRUE(
          rt.copyToHost(got.data(), outs[i]->buf.get(), got.size()).ok());
      if (run == 0)
        first[i] = got;
      else if (got != first[i])
        r.deterministic = false;
    }
  }
  auto packed = [&](int i, int64_t H, int64_t N, int64_t D) {
    std::vector<uint8_t> out(size_t(B * H * N * D) * es);
    relayout(first[i].data(), out.data(), B, H, N, D, outs[i]->strides, es,
             false);
    return decode(p.dtype, out.data(), size_t(B * H * N * D));
  };
  r.dq = compare(packed(0, Hq, p.seqQ, p.headDim), dq);
  r.dk = compare(packed(1, Hkv, p.seqK, p.headDim), dk);
  r.dv = compare(packed(2, Hkv, p.seqK, p.headDimV), dv);
  KernelChoice last;
  ASSERT_TRUE(rt.lastKernel(last));
  r.kernels = last.kernel.name + " + " + last.mergeKernel + " (" +
              last.kernel.chip.str() + ")";
}

} // namespace

TEST_F(Gpu, BackwardMatchesTheReference) {
  // Every backward of the bundle: (dtype, D, causal) and its score variant
  // (window, soft-cap, ALiBi) or dropout (a fresh rate, key and offset a
  // case: the reference's forward and gradients drop what the op's Philox
  // mask drops).
  std::set<std::tuple<DType, int, bool, int, int, float, bool, bool>> keys;
  for (const KernelEntry &k : rt->bundle().kernels)
    if (k.program == Program::GradQuery)
      keys.insert({k.dtype, k.headDim, k.causal, k.windowLeft, k.windowRight,
                   k.softcap, k.alibi, k.dropout});
  struct Shape {
    int64_t B, Hq, Hkv, Nq, Nk;
  };
  // GQA, Nq != Nk both ways (causal rows that see no key), lengths that are
  // not multiples of the blocks.
  const Shape shapes[] = {{2, 4, 2, 128, 128},
                          {1, 2, 1, 130, 257},
                          {1, 2, 2, 257, 130},
                          {1, 4, 1, 77, 77}};
  int ran = 0;
  uint64_t seed = 777;
  std::mt19937_64 draw(seed);
  for (auto [dtype, D, causal, left, right, softcap, alibi, dropout] : keys)
    for (const Shape &sh : shapes)
      for (Layout layout : {Layout::BHND, Layout::BNHD}) {
        BackwardProblem p;
        p.dtype = dtype;
        p.headDim = p.headDimV = D;
        p.causal = causal;
        p.windowLeft = left;
        p.windowRight = right;
        p.softcap = softcap;
        p.alibi = alibi;
        p.dropout = dropout;
        if (dropout) {
          p.dropoutRate =
              std::uniform_real_distribution<float>(0.05f, 0.5f)(draw);
          p.dropoutSeed = draw();
          p.dropoutOffset = uint32_t(draw());
        }
        p.batch = sh.B;
        p.headsQ = sh.Hq;
        p.headsKV = sh.Hkv;
        p.seqQ = sh.Nq;
        p.seqK = sh.Nk;
        SCOPED_TRACE(::testing::Message()
                     << dtypeName(dtype) << " D=" << D << " causal=" << causal
                     << " window=" << left << "," << right
                     << " softcap=" << softcap << " alibi=" << alibi
                     << " dropout=" << p.dropoutRate << "/" << p.dropoutSeed
                     << "/" << p.dropoutOffset << " B=" << sh.B
                     << " Hq=" << sh.Hq << " Hkv=" << sh.Hkv << " Nq=" << sh.Nq
                     << " Nk=" << sh.Nk << " layout="
                     << (layout == Layout::BHND ? "BHND" : "BNHD"));
        GradResult r;
        runGradCase(*rt, p, layout, seed += 5, r);
        if (HasFatalFailure())
          return;
        for (const ErrorStats *e : {&r.dq, &r.dk, &r.dv}) {
          EXPECT_EQ(e->nonFinite, 0u) << r.kernels;
          EXPECT_LT(e->relative, tolerance(dtype)) << r.kernels;
        }
        EXPECT_TRUE(r.deterministic) << r.kernels
                                     << ": a second run wrote "
                                        "other bits";
        ++ran;
      }
  std::printf("%d backward GPU cases run\n", ran);
  EXPECT_GT(ran, 0) << "the bundle has no backward kernel";
}

TEST_F(Gpu, BackwardValidatesBeforeLaunching) {
  BackwardProblem p;
  p.dtype = DType::BF16;
  p.batch = 1;
  p.headsQ = p.headsKV = 2;
  p.seqQ = p.seqK = 64;
  p.headDim = p.headDimV = 64;
  const size_t bytes = size_t(2 * 64 * 64) * 2;
  DeviceBuffer bufs[8], lse;
  for (DeviceBuffer &b : bufs)
    ASSERT_TRUE(DeviceBuffer::allocate(*rt, 0, bytes, b).ok());
  ASSERT_TRUE(DeviceBuffer::allocate(*rt, 0, 2 * 64 * 4, lse).ok());
  const float *l = static_cast<const float *>(lse.get());
  // dQ poisoned: nothing may reach it on a refused call.
  ASSERT_TRUE(rt->fill(bufs[5].get(), 0xFF, bytes).ok());
  auto call = [&](const BackwardProblem &bp, void *dq, const float *lp) {
    return rt->backward(bp, bufs[0].get(), bufs[1].get(), bufs[2].get(),
                        bufs[3].get(), bufs[4].get(), lp, dq, bufs[6].get(),
                        bufs[7].get(), nullptr);
  };
  // A gradient aliasing an input.
  Status s = call(p, bufs[1].get(), l);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("dq overlaps q"), std::string::npos)
      << s.message();
  // Host memory as a tensor.
  std::vector<uint8_t> host(bytes);
  s = call(p, host.data(), l);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("not CUDA device memory"), std::string::npos)
      << s.message();
  // A buffer too small for its tensor: dq 16 KiB before the end of an
  // allocation made after every other (so that its 32 KiB extent reaches
  // none of them), the others large enough.
  BackwardProblem big = p;
  big.seqQ = big.seqK = 128;
  DeviceBuffer large[8], bigLse, arena;
  for (DeviceBuffer &b : large)
    ASSERT_TRUE(DeviceBuffer::allocate(*rt, 0, 2 * bytes, b).ok());
  ASSERT_TRUE(DeviceBuffer::allocate(*rt, 0, 2 * 128 * 4, bigLse).ok());
  ASSERT_TRUE(DeviceBuffer::allocate(*rt, 0, 1 << 20, arena).ok());
  void *shortDq = static_cast<char *>(arena.get()) + (1 << 20) - bytes;
  s = rt->backward(big, large[0].get(), large[1].get(), large[2].get(),
                   large[3].get(), large[4].get(),
                   static_cast<const float *>(bigLse.get()), shortDq,
                   large[6].get(), large[7].get(), nullptr);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("dq needs 32768 bytes from"), std::string::npos)
      << s.message();
  std::vector<uint8_t> back(bytes);
  ASSERT_TRUE(rt->copyToHost(back.data(), bufs[5].get(), bytes).ok());
  for (uint8_t b : back)
    ASSERT_EQ(b, 0xFF) << "a refused backward wrote dq";
}
