//===- JitTest.cpp - libattn_jit without a GPU ----------------------------===//
//
// The compiler half of the JIT runs anywhere: the attn pipeline to PTX, and
// PTX to SASS with nvJitLink (part of the CUDA toolkit, no GPU needed). These
// tests compile real kernels for head dims the bundle lacks, through a cache
// in a fresh directory, and check what comes back: a cubin for the chip (an
// ELF file of the CUDA machine), a launch description that matches the
// request, cache hits, corrupt entries rebuilt, the fallbacks. Running the
// kernels is the GPU check's job (tools/scripts/gpu_check.sh).
//
//===----------------------------------------------------------------------===//
#include "attn/JIT/Jit.h"
#include "attn/JIT/KernelCache.h"
#include "attn/JIT/attn_jit.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <ftw.h>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <vector>

using namespace attn;
using namespace attn::jit;

namespace {

int removeOne(const char *path, const struct stat *, int, struct FTW *) {
  return ::remove(path);
}

struct TempDir {
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/attn-jit-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
      std::abort();
    path = buf.data();
  }
  ~TempDir() { nftw(path.c_str(), removeOne, 16, FTW_DEPTH | FTW_PHYS); }
  std::string path;
};

KernelRequest request(int d, bool causal = false, int ccMajor = 8,
                      int ccMinor = 0) {
  KernelRequest r;
  r.dtype = DType::BF16;
  r.headDim = r.headDimV = d;
  r.causal = causal;
  r.withLse = false;
  r.ccMajor = ccMajor;
  r.ccMinor = ccMinor;
  return r;
}

/// Whether this machine has nvJitLink (the CUDA toolkit): without it the
/// JIT hands PTX to the driver, which the tests below check instead.
bool haveNvJitLink() {
  std::vector<std::string> warnings;
  JitOptions o;
  o.cache = CacheMode::Off;
  o.onWarning = [&](const std::string &w) { warnings.push_back(w); };
  std::shared_ptr<KernelCompiler> c;
  if (!createCompiler(o, c).ok())
    return false;
  CompiledImage img;
  return c->compile(request(64), img).ok() && !img.isPtx;
}

bool isCudaElf(const std::string &image) {
  // ELF magic, 64-bit, and e_machine 190 (EM_CUDA) at offset 18.
  return image.size() > 20 &&
         image.compare(0, 4,
                       "\x7f"
                       "ELF") == 0 &&
         image[4] == 2 && uint8_t(image[18]) == 190 && image[19] == 0;
}

struct Compiled {
  std::shared_ptr<KernelCompiler> compiler;
  std::vector<std::string> warnings;
  std::mutex mu;
};

std::unique_ptr<Compiled> makeCompiler(const std::string &dir,
                                       CacheMode mode = CacheMode::ReadWrite,
                                       bool nvJitLink = true,
                                       const std::string &library = "") {
  auto c = std::make_unique<Compiled>();
  JitOptions o;
  o.cacheDir = dir;
  o.cache = mode;
  o.useNvJitLink = nvJitLink;
  o.nvJitLinkLibrary = library;
  Compiled *raw = c.get();
  o.onWarning = [raw](const std::string &w) {
    std::lock_guard<std::mutex> lock(raw->mu);
    raw->warnings.push_back(w);
  };
  Status s = createCompiler(o, c->compiler);
  EXPECT_TRUE(s.ok()) << s.message();
  return c;
}

double stage(const CompiledImage &img, const std::string &name) {
  for (auto &[n, ms] : img.stageMs)
    if (n == name)
      return ms;
  return -1;
}

size_t countEntries(const std::string &dir) {
  KernelCache cache(KernelCacheOptions{dir, true});
  return cache.list().size();
}

} // namespace

TEST(KernelRequest, ChipAndKey) {
  EXPECT_EQ(request(64, false, 9, 0).chip(), "sm_90a");
  EXPECT_EQ(request(64, false, 8, 6).chip(), "sm_86");
  EXPECT_EQ(request(64, false, 12, 0).chip(), "sm_120");
  EXPECT_EQ(request(80, true, 9, 0).key(),
            "dtype=bf16 head_dim=80 head_dim_v=80 causal=1 lse=0 "
            "chip=sm_90a");
  EXPECT_NE(request(80).key(), request(96).key());
}

TEST(Jit, CompilesAHeadDimTheBundleLacksToSass) {
  TempDir dir;
  auto c = makeCompiler(dir.path);
  CompiledImage img;
  Status s = c->compiler->compile(request(80, /*causal=*/true), img);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(img.entry.headDim, 80);
  EXPECT_EQ(img.entry.headDimV, 80);
  EXPECT_TRUE(img.entry.causal);
  EXPECT_FALSE(img.entry.lse);
  EXPECT_EQ(img.entry.abi, KernelABI::Memref);
  EXPECT_EQ(img.entry.chip.str(), "sm_80");
  EXPECT_GT(img.entry.threads, 0);
  EXPECT_GT(img.entry.blockM, 0);
  EXPECT_NE(img.entry.name.find("d80"), std::string::npos) << img.entry.name;
  EXPECT_GE(stage(img, "passes"), 0);
  EXPECT_GE(stage(img, "llvm"), 0);
  if (!haveNvJitLink()) {
    EXPECT_TRUE(img.isPtx);
    GTEST_SKIP() << "no nvJitLink here: the image is PTX for the driver";
  }
  EXPECT_FALSE(img.isPtx);
  EXPECT_TRUE(isCudaElf(img.image));
  EXPECT_GE(stage(img, "sass"), 0);
  EXPECT_EQ(img.origin.rfind("stored", 0), 0u) << img.origin;
  EXPECT_EQ(countEntries(dir.path), 1u);
  EXPECT_TRUE(c->warnings.empty());
}

TEST(Jit, SecondCompilerReadsTheCache) {
  TempDir dir;
  CompiledImage first, second;
  {
    auto c = makeCompiler(dir.path);
    ASSERT_TRUE(c->compiler->compile(request(96), first).ok());
  }
  auto c = makeCompiler(dir.path);
  Status s = c->compiler->compile(request(96), second);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(second.origin.rfind("hit", 0), 0u) << second.origin;
  EXPECT_EQ(second.image, first.image);
  EXPECT_EQ(second.entry.name, first.entry.name);
  EXPECT_EQ(second.entry.smem, first.entry.smem);
  EXPECT_LT(stage(second, "passes"), 0) << "a hit must not compile";
  EXPECT_GE(stage(second, "cache-read"), 0);
  EXPECT_EQ(countEntries(dir.path), 1u);
}

TEST(Jit, HopperKernelsCarryTheirTensorMapsThroughTheCache) {
  // A head dim the bundle lacks on sm_90a (192: wgmma, a producer warpgroup
  // with bulk tensor copies of Q, K and V): the entry names the tensor maps
  // the launcher must append, and a cache hit in a new compiler reads the
  // same list back (the cache stores the manifest line).
  TempDir dir;
  const std::vector<TensorMapSpec> want = {{0, 128}, {1, 64}, {2, 64}};
  CompiledImage first, second;
  {
    auto c = makeCompiler(dir.path);
    Status s = c->compiler->compile(request(192, false, 9, 0), first);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  EXPECT_EQ(first.entry.chip.str(), "sm_90a");
  EXPECT_EQ(first.entry.threads, 384);
  EXPECT_EQ(first.entry.tensorMaps, want)
      << formatTensorMaps(first.entry.tensorMaps);
  // A forward on sm_90a is launched after the grid before it (no pdl=1;
  // attn-chain-grids chains the split-KV pair only).
  EXPECT_FALSE(first.entry.dependentLaunch);
  auto c = makeCompiler(dir.path);
  ASSERT_TRUE(c->compiler->compile(request(192, false, 9, 0), second).ok());
  EXPECT_EQ(second.origin.rfind("hit", 0), 0u) << second.origin;
  EXPECT_EQ(second.entry.tensorMaps, want);
  // An sm_80 kernel copies with cp.async: no maps.
  CompiledImage ampere;
  ASSERT_TRUE(c->compiler->compile(request(192, false, 8, 0), ampere).ok());
  EXPECT_TRUE(ampere.entry.tensorMaps.empty());
}

TEST(Jit, DifferentVariantsAndChipsAreDifferentEntries) {
  TempDir dir;
  auto c = makeCompiler(dir.path);
  CompiledImage img;
  for (const KernelRequest &r :
       {request(80), request(80, true), request(80, false, 8, 6)})
    ASSERT_TRUE(c->compiler->compile(r, img).ok()) << r.key();
  EXPECT_EQ(countEntries(dir.path), 3u);
}

TEST(Jit, CompilesTheSplitKVPairOfAHeadDimTheBundleLacks) {
  // Decoding at D = 80: the split_kv kernel (partial O and LSE, always the
  // LSE) and its merge (no mask, one head dim) are kernels of their own,
  // each a cache entry of its own, and say what they are.
  TempDir dir;
  auto c = makeCompiler(dir.path);
  KernelRequest split = request(80, true, 9, 0);
  split.program = Program::SplitKV;
  split.withLse = true;
  KernelRequest merge = request(80, false, 9, 0);
  merge.program = Program::MergeSplits;
  EXPECT_EQ(split.key(), "dtype=bf16 head_dim=80 head_dim_v=80 causal=1 "
                         "lse=1 chip=sm_90a program=split_kv");
  CompiledImage s, m;
  Status st = c->compiler->compile(split, s);
  ASSERT_TRUE(st.ok()) << st.message();
  st = c->compiler->compile(merge, m);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(s.entry.program, Program::SplitKV);
  EXPECT_GT(s.entry.blockN, 0);
  EXPECT_TRUE(s.entry.causal);
  EXPECT_EQ(m.entry.program, Program::MergeSplits);
  EXPECT_EQ(m.entry.headDimV, 80);
  EXPECT_FALSE(m.entry.lse);
  // On sm_90a both wait for the grid before them and may be launched
  // under its tail (attn-chain-grids; the manifest's pdl=1).
  EXPECT_TRUE(s.entry.dependentLaunch);
  EXPECT_TRUE(m.entry.dependentLaunch);
  EXPECT_EQ(countEntries(dir.path), 2u);
  // Requests the pair cannot be: refused, nothing compiled.
  split.withLse = false;
  st = c->compiler->compile(split, s);
  EXPECT_EQ(st.code(), StatusCode::Unsupported) << st.message();
  EXPECT_NE(st.message().find("always writes its partial LSE"),
            std::string::npos);
  merge.causal = true;
  st = c->compiler->compile(merge, m);
  EXPECT_EQ(st.code(), StatusCode::Unsupported) << st.message();
  EXPECT_EQ(countEntries(dir.path), 2u);
}

TEST(Jit, CompilesTheBackwardsTwoKernels) {
  // The backward at D = 80 (the bundle has 64, 96 and 128): one
  // attn.attention_grad problem makes both kernels; each request gets its
  // own (grad_q, grad_kv), a cache entry of its own, and says what it is.
  TempDir dir;
  auto c = makeCompiler(dir.path);
  KernelRequest q = request(80, true, 9, 0);
  q.program = Program::GradQuery;
  q.withLse = true;
  KernelRequest kv = q;
  kv.program = Program::GradKeyValue;
  EXPECT_EQ(kv.key(), "dtype=bf16 head_dim=80 head_dim_v=80 causal=1 lse=1 "
                      "chip=sm_90a program=grad_kv");
  CompiledImage gq, gkv;
  Status st = c->compiler->compile(q, gq);
  ASSERT_TRUE(st.ok()) << st.message();
  st = c->compiler->compile(kv, gkv);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(gq.entry.program, Program::GradQuery);
  EXPECT_EQ(gkv.entry.program, Program::GradKeyValue);
  EXPECT_EQ(gq.entry.name, "attn_jit_bwd_bf16_d80_causal_kernel");
  EXPECT_EQ(gkv.entry.name, "attn_jit_bwd_bf16_d80_causal_kernel_1");
  EXPECT_EQ(formatLaunchGrid(gq.entry.grid), "q_blocks,heads_q,batch");
  EXPECT_EQ(formatLaunchGrid(gkv.entry.grid), "kv_blocks,heads_kv,batch");
  EXPECT_TRUE(gq.entry.lse && gkv.entry.lse);
  EXPECT_EQ(countEntries(dir.path), 2u);
  // A second compiler reads both back, each its own kernel.
  auto c2 = makeCompiler(dir.path);
  CompiledImage again;
  ASSERT_TRUE(c2->compiler->compile(kv, again).ok());
  EXPECT_EQ(again.entry.name, gkv.entry.name);
  EXPECT_NE(again.origin.find("hit"), std::string::npos) << again.origin;
  // What the backward does not have: refused, nothing compiled.
  KernelRequest bad = q;
  bad.withLse = false;
  st = c->compiler->compile(bad, gq);
  EXPECT_EQ(st.code(), StatusCode::Unsupported) << st.message();
  // The dQ-workspace form's grids take an argument list no launcher
  // builds: refused by name.
  for (Program p : {Program::GradPrep, Program::GradQueryOut}) {
    bad = q;
    bad.program = p;
    st = c->compiler->compile(bad, gq);
    EXPECT_EQ(st.code(), StatusCode::Unsupported) << st.message();
    EXPECT_NE(st.message().find("dQ-workspace"), std::string::npos)
        << st.message();
  }
  EXPECT_EQ(countEntries(dir.path), 2u);
  // The forward's score variants have their backward: a soft-capped pair,
  // described as serving that cap only.
  KernelRequest cap = q;
  cap.softcap = 30;
  CompiledImage gcap;
  st = c->compiler->compile(cap, gcap);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(gcap.entry.program, Program::GradQuery);
  EXPECT_EQ(gcap.entry.softcap, 30.0f);
  EXPECT_EQ(countEntries(dir.path), 3u);
  // The backward of a dropout forward: its kernels take the rate, key and
  // offset after the scale (the forward's ABI) and say so.
  KernelRequest drop = kv;
  drop.dropout = true;
  CompiledImage gdrop;
  st = c->compiler->compile(drop, gdrop);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(gdrop.entry.program, Program::GradKeyValue);
  EXPECT_TRUE(gdrop.entry.dropout);
  EXPECT_NE(gdrop.entry.name.find("_dropout"), std::string::npos)
      << gdrop.entry.name;
  EXPECT_EQ(countEntries(dir.path), 4u);
}

TEST(Jit, CompilesKVCacheAndPackedBatchKernelsTheBundleLacks) {
  // The bundle holds cache kernels for D 64 and 128 and pages of 16 or a
  // multiple of 64: a page of 32, D 256 or a packed batch at D 96 come from
  // here, and describe themselves (kv=, page=, and on sm_90a a key block of
  // whole pages, its rows gathered through the block table).
  TempDir dir;
  auto c = makeCompiler(dir.path);
  KernelRequest paged = request(128, false, 9, 0);
  paged.kv = KVLayout::Paged;
  paged.pageSize = 32;
  EXPECT_EQ(paged.key(), "dtype=bf16 head_dim=128 head_dim_v=128 causal=0 "
                         "lse=0 chip=sm_90a kv=paged page=32");
  CompiledImage img;
  Status st = c->compiler->compile(paged, img);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(img.entry.kv, KVLayout::Paged);
  EXPECT_EQ(img.entry.pageSize, 32);
  EXPECT_EQ(img.entry.blockN, 64);
  KernelRequest split = request(256, true, 9, 0);
  split.program = Program::SplitKV;
  split.withLse = true;
  split.kv = KVLayout::Paged;
  st = c->compiler->compile(split, img);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(img.entry.kv, KVLayout::Paged);
  EXPECT_EQ(img.entry.pageSize, 0);
  EXPECT_GT(img.entry.blockN, 0);
  KernelRequest packed = request(96, true);
  packed.kv = KVLayout::Varlen;
  st = c->compiler->compile(packed, img);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(img.entry.kv, KVLayout::Varlen);
  EXPECT_EQ(countEntries(dir.path), 3u);
  // What these kernels cannot be: refused, nothing compiled.
  packed.program = Program::SplitKV;
  packed.withLse = true;
  st = c->compiler->compile(packed, img);
  EXPECT_EQ(st.code(), StatusCode::Unsupported) << st.message();
  KernelRequest pageless = request(64);
  pageless.pageSize = 16;
  st = c->compiler->compile(pageless, img);
  EXPECT_EQ(st.code(), StatusCode::Unsupported) << st.message();
  EXPECT_NE(st.message().find("a page size is for a paged cache"),
            std::string::npos);
  EXPECT_EQ(countEntries(dir.path), 3u);
}

TEST(Jit, CorruptEntryIsRebuiltWithAWarning) {
  TempDir dir;
  CompiledImage good;
  {
    auto c = makeCompiler(dir.path);
    ASSERT_TRUE(c->compiler->compile(request(80), good).ok());
  }
  KernelCache cache(KernelCacheOptions{dir.path, false});
  std::vector<CacheEntryInfo> entries = cache.list();
  ASSERT_EQ(entries.size(), 1u);
  // Flip one byte in the middle of the image.
  {
    std::fstream f(entries[0].path,
                   std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(std::streamoff(entries[0].size / 2));
    char b = 0;
    f.get(b);
    f.seekp(std::streamoff(entries[0].size / 2));
    f.put(char(b ^ 0x10));
  }
  auto c = makeCompiler(dir.path);
  CompiledImage img;
  Status s = c->compiler->compile(request(80), img);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(img.image, good.image);
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_NE(c->warnings[0].find("rebuilt"), std::string::npos)
      << c->warnings[0];
  // And the rebuilt entry is good again.
  auto again = makeCompiler(dir.path);
  ASSERT_TRUE(again->compiler->compile(request(80), img).ok());
  EXPECT_EQ(img.origin.rfind("hit", 0), 0u) << img.origin;
}

TEST(Jit, TruncatedEntryIsRebuilt) {
  TempDir dir;
  {
    auto c = makeCompiler(dir.path);
    CompiledImage img;
    ASSERT_TRUE(c->compiler->compile(request(80), img).ok());
  }
  KernelCache cache(KernelCacheOptions{dir.path, false});
  std::vector<CacheEntryInfo> entries = cache.list();
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_EQ(::truncate(entries[0].path.c_str(), off_t(entries[0].size / 3)), 0);
  auto c = makeCompiler(dir.path);
  CompiledImage img;
  ASSERT_TRUE(c->compiler->compile(request(80), img).ok());
  EXPECT_FALSE(c->warnings.empty());
  EXPECT_EQ(img.origin.rfind("stored", 0), 0u) << img.origin;
}

TEST(Jit, UnwritableCacheCompilesInMemoryWithAWarning) {
  TempDir dir;
  // A cache path below a regular file: no one, root included, can create
  // the directory.
  std::string file = dir.path + "/file";
  std::ofstream(file) << "x";
  auto c = makeCompiler(file + "/cache");
  CompiledImage img;
  Status s = c->compiler->compile(request(80), img);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(img.image.empty());
  ASSERT_FALSE(c->warnings.empty());
  EXPECT_NE(c->warnings.back().find("from memory"), std::string::npos)
      << c->warnings.back();
}

TEST(Jit, ReadOnlyAndOffModesStoreNothing) {
  TempDir dir;
  for (CacheMode mode : {CacheMode::ReadOnly, CacheMode::Off}) {
    auto c = makeCompiler(dir.path, mode);
    CompiledImage img;
    ASSERT_TRUE(c->compiler->compile(request(80), img).ok());
    EXPECT_FALSE(img.image.empty());
  }
  EXPECT_EQ(countEntries(dir.path), 0u);
}

TEST(Jit, WithoutNvJitLinkTheImageIsPtx) {
  TempDir dir;
  // Asked not to use it, and unable to find it: PTX either way, and only
  // the second says why (a warning).
  auto off = makeCompiler(dir.path, CacheMode::ReadWrite, /*nvJitLink=*/false);
  CompiledImage img;
  ASSERT_TRUE(off->compiler->compile(request(80), img).ok());
  EXPECT_TRUE(img.isPtx);
  EXPECT_NE(img.image.find(".visible .entry " + img.entry.name),
            std::string::npos);
  EXPECT_TRUE(off->warnings.empty());

  auto missing = makeCompiler(dir.path, CacheMode::ReadWrite, true,
                              dir.path + "/no-such-libnvJitLink.so");
  CompiledImage img2;
  ASSERT_TRUE(missing->compiler->compile(request(80), img2).ok());
  EXPECT_TRUE(img2.isPtx);
  EXPECT_EQ(img2.image, img.image); // the PTX entry of the first compiler
  ASSERT_EQ(missing->warnings.size(), 1u);
  EXPECT_NE(missing->warnings[0].find("nvJitLink not found"), std::string::npos)
      << missing->warnings[0];
}

TEST(Jit, CompilesASlidingWindowKernel) {
  auto c = makeCompiler("", CacheMode::Off);
  KernelRequest r = request(64, /*causal=*/true, 9, 0);
  r.windowLeft = 256;
  EXPECT_EQ(r.key(), "dtype=bf16 head_dim=64 head_dim_v=64 causal=1 lse=0 "
                     "chip=sm_90a window=256,-1");
  EXPECT_NE(r.key(), request(64, true, 9, 0).key());
  CompiledImage img;
  Status s = c->compiler->compile(r, img);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(img.entry.windowLeft, 256);
  EXPECT_EQ(img.entry.windowRight, -1);
  EXPECT_TRUE(img.entry.causal);
  EXPECT_NE(img.entry.name.find("_w256_n"), std::string::npos)
      << img.entry.name;
  // Not yet in a split-KV pair or over a KV cache: refused, not built
  // without the window.
  r.program = Program::SplitKV;
  r.withLse = true;
  s = c->compiler->compile(r, img);
  EXPECT_EQ(s.code(), StatusCode::Unsupported) << s.message();
  EXPECT_NE(s.message().find("a sliding window in a split-KV pair"),
            std::string::npos)
      << s.message();
}

TEST(Jit, CompilesASoftcapKernel) {
  auto c = makeCompiler("", CacheMode::Off);
  KernelRequest r = request(128, /*causal=*/true, 9, 0);
  r.softcap = 50;
  EXPECT_EQ(r.key(), "dtype=bf16 head_dim=128 head_dim_v=128 causal=1 lse=0 "
                     "chip=sm_90a softcap=50");
  CompiledImage img;
  Status s = c->compiler->compile(r, img);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(img.entry.softcap, 50.0f);
  EXPECT_NE(img.entry.name.find("_sc42480000"), std::string::npos)
      << img.entry.name;
  // Another cap is another kernel.
  KernelRequest r30 = r;
  r30.softcap = 30;
  EXPECT_NE(r30.key(), r.key());
}

TEST(Jit, CompilesAnFp8Kernel) {
  auto c = makeCompiler("", CacheMode::Off);
  KernelRequest r = request(128, /*causal=*/true, 9, 0);
  r.dtype = DType::E4M3;
  r.withLse = true;
  EXPECT_EQ(r.key(), "dtype=e4m3 head_dim=128 head_dim_v=128 causal=1 lse=1 "
                     "chip=sm_90a");
  CompiledImage img;
  Status s = c->compiler->compile(r, img);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(img.entry.dtype, DType::E4M3);
  // 256 keys a block at D = 128.
  EXPECT_EQ(img.entry.blockN, 256);
  // Q, K and Vᵀ through tensor maps (K's box: 256 rows; V's: Dv rows of 128
  // keys, two copies a block).
  ASSERT_EQ(img.entry.tensorMaps.size(), 3u);
  EXPECT_EQ(img.entry.tensorMaps[1].boxRows, 256);
  EXPECT_EQ(img.entry.tensorMaps[2].arg, 2);
  EXPECT_EQ(img.entry.tensorMaps[2].boxRows, 128);
  // fp8 is sm_90a's dense forward: no sm_80 kernel, no split-KV pair, no
  // KV cache: refused with the reason, nothing built.
  KernelRequest r80 = r;
  r80.ccMajor = 8;
  s = c->compiler->compile(r80, img);
  EXPECT_EQ(s.code(), StatusCode::Unsupported) << s.message();
  EXPECT_NE(s.message().find("unsupported: fp8 attention on sm_80"),
            std::string::npos)
      << s.message();
  KernelRequest split = r;
  split.program = Program::SplitKV;
  s = c->compiler->compile(split, img);
  EXPECT_EQ(s.code(), StatusCode::Unsupported) << s.message();
  EXPECT_NE(s.message().find("e4m3 (fp8) has the dense forward only"),
            std::string::npos)
      << s.message();
}

TEST(Jit, CompilesAnAlibiKernel) {
  auto c = makeCompiler("", CacheMode::Off);
  KernelRequest r = request(64, /*causal=*/true, 9, 0);
  r.alibi = true;
  EXPECT_EQ(r.key(), "dtype=bf16 head_dim=64 head_dim_v=64 causal=1 lse=0 "
                     "chip=sm_90a alibi=1");
  CompiledImage img;
  Status s = c->compiler->compile(r, img);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(img.entry.alibi);
  EXPECT_NE(img.entry.name.find("_alibi"), std::string::npos) << img.entry.name;
  // The dense forward only: a split-KV pair with ALiBi is refused.
  r.program = Program::SplitKV;
  r.withLse = true;
  s = c->compiler->compile(r, img);
  EXPECT_EQ(s.code(), StatusCode::Unsupported) << s.message();
  EXPECT_NE(s.message().find("ALiBi has the dense forward and backward only"),
            std::string::npos)
      << s.message();
}

TEST(Jit, CompilesADropoutKernel) {
  auto c = makeCompiler("", CacheMode::Off);
  KernelRequest r = request(64, /*causal=*/true, 9, 0);
  r.dropout = true;
  EXPECT_EQ(r.key(), "dtype=bf16 head_dim=64 head_dim_v=64 causal=1 lse=0 "
                     "chip=sm_90a dropout=1");
  CompiledImage img;
  Status s = c->compiler->compile(r, img);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(img.entry.dropout);
  EXPECT_FALSE(img.entry.alibi);
  EXPECT_NE(img.entry.name.find("_dropout"), std::string::npos)
      << img.entry.name;
  // The dense 16-bit forward and backward only: a split-KV pair or a KV
  // cache with dropout is refused.
  r.program = Program::SplitKV;
  r.withLse = true;
  s = c->compiler->compile(r, img);
  EXPECT_EQ(s.code(), StatusCode::Unsupported) << s.message();
  EXPECT_NE(s.message().find("dropout has the dense 16-bit forward and "
                             "backward only"),
            std::string::npos)
      << s.message();
  r.program = Program::Attention;
  r.kv = KVLayout::Paged;
  s = c->compiler->compile(r, img);
  EXPECT_EQ(s.code(), StatusCode::Unsupported) << s.message();
}

TEST(Jit, CompilesKernelsThatPackTheQueryHeads) {
  auto c = makeCompiler("", CacheMode::Off);
  // A causal split kernel over a paged cache and a non-causal forward (the
  // bundle has causal packed kernels only), each for mma.sync and wgmma.
  for (auto [program, causal, kv] :
       {std::tuple{Program::SplitKV, true, KVLayout::Paged},
        std::tuple{Program::Attention, false, KVLayout::Dense}})
    for (int major : {8, 9}) {
      KernelRequest r = request(128, causal, major, 0);
      r.program = program;
      r.kv = kv;
      r.withLse = program == Program::SplitKV;
      r.packHeads = true;
      EXPECT_NE(r.key().find(" pack_heads=1"), std::string::npos) << r.key();
      KernelRequest plain = r;
      plain.packHeads = false;
      EXPECT_NE(r.key(), plain.key());
      CompiledImage img;
      Status s = c->compiler->compile(r, img);
      ASSERT_TRUE(s.ok()) << r.key() << ": " << s.message();
      EXPECT_TRUE(img.entry.packsQueryHeads()) << formatManifestLine(img.entry);
      EXPECT_NE(img.entry.name.find("_gqa"), std::string::npos)
          << img.entry.name;
      // Q's rows have an address each: no tensor map for it (no producer).
      EXPECT_TRUE(img.entry.tensorMaps.empty())
          << formatManifestLine(img.entry);
    }
  // Not for what reads a row's own head or position per element.
  KernelRequest w = request(128, true, 9, 0);
  w.packHeads = true;
  w.windowLeft = 64;
  CompiledImage img;
  Status s = c->compiler->compile(w, img);
  EXPECT_EQ(s.code(), StatusCode::Unsupported) << s.message();
  EXPECT_NE(s.message().find("packed query heads"), std::string::npos)
      << s.message();
}

TEST(Jit, UnsupportedRequestsSaySo) {
  auto c = makeCompiler("", CacheMode::Off);
  KernelRequest r = request(64);
  r.dtype = DType::F32;
  CompiledImage img;
  Status s = c->compiler->compile(r, img);
  EXPECT_EQ(s.code(), StatusCode::Unsupported) << s.message();
  EXPECT_NE(s.message().find("unsupported"), std::string::npos);
}

TEST(Jit, ThreadsCompilingAtOnceShareOneEntryPerVariant) {
  TempDir dir;
  auto c = makeCompiler(dir.path);
  constexpr int kThreads = 8;
  std::vector<CompiledImage> images(kThreads);
  std::vector<Status> status(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      // Two variants, four threads each.
      status[i] = c->compiler->compile(request(i % 2 ? 80 : 96), images[i]);
    });
  for (auto &t : threads)
    t.join();
  for (int i = 0; i < kThreads; ++i) {
    ASSERT_TRUE(status[i].ok()) << status[i].message();
    EXPECT_EQ(images[i].image, images[i % 2].image);
  }
  EXPECT_EQ(countEntries(dir.path), 2u);
}

TEST(JitCApi, OptionsAreValidated) {
  attn_jit_options o;
  attn_jit_options_init(&o);
  EXPECT_EQ(o.cache_mode, ATTN_JIT_CACHE_READ_WRITE);
  EXPECT_EQ(o.use_nvjitlink, 1);
  attn_compiler *c = nullptr;
  o.reserved[2] = 1;
  EXPECT_EQ(attn_jit_create(&o, &c), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(c, nullptr);
  EXPECT_NE(std::string(attn_last_error_message()).find("reserved"),
            std::string::npos);
  attn_jit_options_init(&o);
  o.cache_mode = 7;
  EXPECT_EQ(attn_jit_create(&o, &c), ATTN_ERROR_INVALID_ARGUMENT);
  attn_jit_options_init(&o);
  o.cache_mode = ATTN_JIT_CACHE_OFF;
  ASSERT_EQ(attn_jit_create(&o, &c), ATTN_OK) << attn_last_error_message();
  ASSERT_NE(c, nullptr);
  attn_jit_destroy(c);
  EXPECT_EQ(attn_jit_create(&o, nullptr), ATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_jit_compiler_version()).find("build "),
            std::string::npos);
}
