//===- ValidateTest.cpp - the rules checked before a launch -----*- C++ -*-===//
#include "attn/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <tuple>

using namespace attn;

namespace {

// bf16: D = 64 and 128, causal or not, for sm_80 and sm_90a; f16: only
// non-causal D = 128 for sm_80; one Dv != D kernel.
const char *kManifest = R"(
kernel name=b64 ptx=b64.ptx chip=sm_80 dtype=bf16 head_dim=64 causal=0 block_m=128 threads=128 smem=32768 abi=memref
kernel name=b64c ptx=b64c.ptx chip=sm_80 dtype=bf16 head_dim=64 causal=1 block_m=128 threads=128 smem=32768 abi=memref
kernel name=b128 ptx=b128.ptx chip=sm_80 dtype=bf16 head_dim=128 causal=0 block_m=128 threads=256 smem=98304 abi=memref
kernel name=b128 ptx=b128h.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=128 threads=384 smem=200000 abi=memref
kernel name=b128c ptx=b128c.ptx chip=sm_80 dtype=bf16 head_dim=128 causal=1 block_m=128 threads=256 smem=98304 abi=memref
kernel name=b128c ptx=b128ch.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=128 threads=384 smem=200000 abi=memref
kernel name=h128 ptx=h128.ptx chip=sm_80 dtype=f16 head_dim=128 causal=0 block_m=128 threads=256 smem=98304 abi=memref
kernel name=b128v64 ptx=b128v64.ptx chip=sm_90a dtype=bf16 head_dim=128 head_dim_v=64 causal=0 block_m=128 threads=256 smem=98304 abi=memref
)";

class Validate : public ::testing::Test {
protected:
  void SetUp() override {
    Status s = parseManifest(kManifest, "manifest.txt", bundle);
    ASSERT_TRUE(s.ok()) << s.message();
    p = ForwardProblem();
    p.dtype = DType::BF16;
    p.batch = 2;
    p.headsQ = 8;
    p.headsKV = 2;
    p.seqQ = 130;
    p.seqK = 1000;
    p.headDim = p.headDimV = 128;
    p.causal = true;
    // The manifest's kernels write the LSE (lse=1, the default).
    p.withLse = true;
  }

  // checkProblem + findKernels, as selectKernel does on an sm_90 device.
  Status check() {
    const KernelEntry *k = nullptr;
    return selectKernel(bundle, p, 9, 0, k);
  }
  void expectError(StatusCode code, const std::string &needle) {
    Status s = check();
    ASSERT_FALSE(s.ok()) << "expected: " << needle;
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_NE(s.message().find(needle), std::string::npos)
        << "message: " << s.message() << "\nwanted:  " << needle;
  }

  Manifest bundle;
  ForwardProblem p;
};

TEST_F(Validate, PagedCacheRules) {
  p.kvLayout = KVLayout::Paged;
  p.pageSize = 64;
  p.numPages = 40;
  p.maxPages = 16;
  p.seqK = 16 * 64;
  EXPECT_TRUE(checkProblem(p).ok()) << checkProblem(p).message();
  auto expectInvalid = [&](ForwardProblem bad, const std::string &needle) {
    Status s = checkProblem(bad);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << needle;
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  ForwardProblem bad = p;
  bad.pageSize = 48;
  expectInvalid(bad, "page_size must be a power of two >= 16, got 48");
  bad = p;
  bad.pageSize = 8;
  bad.seqK = 16 * 8;
  expectInvalid(bad, "page_size must be a power of two >= 16, got 8");
  bad = p;
  bad.numPages = 0;
  expectInvalid(bad, "num_pages must be in [1, 2^31-1], got 0");
  bad = p;
  bad.seqK = 1000;
  expectInvalid(bad, "must be the paged cache's capacity max_pages * "
                     "page_size = 1024");
  bad = p;
  bad.tableStride = 15;
  expectInvalid(bad, "table_stride (15) is smaller than max_pages (16)");
  bad = ForwardProblem();
  bad.pageSize = 64;
  expectInvalid(bad, "for a paged KV cache only");
  // K and V's extents are the pages', not the batch's.
  p.k = p.v = Strides{};
  TensorExtents e = tensorExtents(p);
  EXPECT_EQ(e.k, uint64_t(40) * 2 * 64 * 128 * 2);
  // Kernels: only kv=paged ones whose key block divides the page size.
  const char *manifest = R"(
kernel name=d ptx=d.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=128 block_n=128 threads=384 smem=1 abi=memref lse=1
kernel name=p ptx=p.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=128 block_n=64 threads=384 smem=1 abi=memref lse=1 kv=paged
kernel name=p16 ptx=p16.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=128 block_n=16 threads=384 smem=1 abi=memref lse=1 kv=paged page=16
)";
  Manifest m;
  ASSERT_TRUE(parseManifest(manifest, "m.txt", m).ok());
  p.withLse = true;
  std::vector<const KernelEntry *> c;
  ASSERT_TRUE(findKernels(m, p, c).ok());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0]->name, "p");
  // A kernel compiled for pages of 16 serves exactly those.
  p.pageSize = 16;
  p.seqK = 16 * 16;
  ASSERT_TRUE(findKernels(m, p, c).ok());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0]->name, "p16");
  p.pageSize = 32;
  p.seqK = 16 * 32;
  Status s = findKernels(m, p, c);
  EXPECT_EQ(s.code(), StatusCode::NotInBundle);
  EXPECT_NE(s.message().find("a paged KV cache of pages of 32 rows"),
            std::string::npos)
      << s.message();
  p.kvLayout = KVLayout::Dense;
  p.pageSize = p.numPages = p.maxPages = 0;
  ASSERT_TRUE(findKernels(m, p, c).ok());
  EXPECT_EQ(c[0]->name, "d");
}

TEST_F(Validate, PackedBatchRules) {
  p.kvLayout = KVLayout::Varlen;
  p.batch = 3;
  p.seqQ = 100;
  p.seqK = 400;
  p.totalQ = 130;
  p.totalK = 1000;
  EXPECT_TRUE(checkProblem(p).ok()) << checkProblem(p).message();
  // Extents are the packed tensors': Q [1, 8, 130, 128], LSE [1, 8, 130].
  TensorExtents e = tensorExtents(p);
  EXPECT_EQ(e.q, uint64_t(8) * 130 * 128 * 2);
  EXPECT_EQ(e.k, uint64_t(2) * 1000 * 128 * 2);
  p.withLse = true;
  EXPECT_EQ(tensorExtents(p).lse, uint64_t(8) * 130 * 4);
  ForwardProblem bad = p;
  bad.totalQ = 0;
  Status s = checkProblem(bad);
  EXPECT_NE(s.message().find("total_q must be in [1, 2^31-1], got 0"),
            std::string::npos)
      << s.message();
  bad = p;
  bad.seqK = 1001;
  s = checkProblem(bad);
  EXPECT_NE(s.message().find("the longest sequence (seq_k 1001) exceeds "
                             "total_k (1000)"),
            std::string::npos)
      << s.message();
  bad = ForwardProblem();
  bad.totalQ = 5;
  EXPECT_NE(checkProblem(bad).message().find("for a packed batch (varlen)"),
            std::string::npos);
  // Never packed into heads, never split.
  p.seqQ = 1;
  p.headsQ = 32;
  p.headsKV = 8;
  EXPECT_EQ(packQueryHeads(p).headsQ, 32);
  EXPECT_EQ(chooseKVSplits(p, 132, 128, 64, 8), 1);
}

TEST_F(Validate, GoodProblemSelectsByComputeCapability) {
  const KernelEntry *k = nullptr;
  Status s = selectKernel(bundle, p, 9, 0, k);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(k->name, "b128c");
  EXPECT_EQ(k->chip.str(), "sm_90a");
  ASSERT_TRUE(selectKernel(bundle, p, 8, 0, k).ok());
  EXPECT_EQ(k->chip.str(), "sm_80");
  ASSERT_TRUE(selectKernel(bundle, p, 10, 0, k).ok());
  EXPECT_EQ(k->chip.str(), "sm_80");
}

// A kernel tuned for long sequences (min_seq_q=) is taken from that many
// query rows on, on the chip it is built for; the plain one below that and
// on other chips. The key round-trips through the manifest format.
TEST(ValidateTall, MinSeqQPicksTheTallBlockFromItsLength) {
  Manifest m;
  Status s = parseManifest(R"(
kernel name=t ptx=t.ptx chip=sm_90a dtype=bf16 head_dim=64 causal=0 block_m=192 threads=512 smem=92288 abi=memref lse=1 min_seq_q=2048
kernel name=a ptx=a.ptx chip=sm_80 dtype=bf16 head_dim=64 causal=0 block_m=128 threads=128 smem=32768 abi=memref lse=1
kernel name=h ptx=h.ptx chip=sm_90a dtype=bf16 head_dim=64 causal=0 block_m=64 threads=128 smem=73728 abi=memref lse=1
)",
                           "manifest.txt", m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.kernels[0].minSeqQ, 2048);
  EXPECT_EQ(m.kernels[2].minSeqQ, 0);
  EXPECT_NE(formatManifestLine(m.kernels[0]).find(" min_seq_q=2048"),
            std::string::npos);
  EXPECT_EQ(formatManifestLine(m.kernels[2]).find("min_seq_q"),
            std::string::npos);
  ForwardProblem p;
  p.dtype = DType::BF16;
  p.batch = 1;
  p.headsQ = p.headsKV = 4;
  p.headDim = p.headDimV = 64;
  p.withLse = true;
  const KernelEntry *k = nullptr;
  for (auto [rows, cc, want] : {std::tuple{2047, 9, "h"},
                                {2048, 9, "t"},
                                {16384, 9, "t"},
                                {1, 9, "h"},
                                {16384, 8, "a"}}) {
    p.seqQ = p.seqK = rows;
    ASSERT_TRUE(selectKernel(m, p, cc, 0, k).ok()) << rows;
    EXPECT_EQ(k->name, want) << rows << " rows, sm_" << cc << "0";
  }
}

// With the device's multiprocessor count, a kernel tuned for long
// sequences also needs a grid of two waves: ⌈rows / 192⌉ · heads · batch
// programs at least 2·smCount. A small batch keeps the shorter block (its
// more, smaller programs spread over every multiprocessor); an unknown
// count (0) decides by length alone.
TEST(ValidateTall, MinSeqQNeedsAGridThatFillsTheDevice) {
  Manifest m;
  Status s = parseManifest(R"(
kernel name=t ptx=t.ptx chip=sm_90a dtype=bf16 head_dim=64 causal=0 block_m=192 threads=512 smem=92288 abi=memref lse=1 min_seq_q=512
kernel name=h ptx=h.ptx chip=sm_90a dtype=bf16 head_dim=64 causal=0 block_m=64 threads=128 smem=73728 abi=memref lse=1
)",
                           "manifest.txt", m);
  ASSERT_TRUE(s.ok()) << s.message();
  const KernelIndex index(m);
  ForwardProblem p;
  p.dtype = DType::BF16;
  p.headDim = p.headDimV = 64;
  p.withLse = true;
  struct Case {
    int64_t batch, heads, rows;
    int smCount;
    const char *want;
  };
  for (const Case &c : {Case{32, 8, 512, 132, "t"},  // 3 · 8 · 32 = 768
                        Case{1, 8, 2048, 132, "h"},  // 11 · 8 = 88
                        Case{1, 24, 2048, 132, "t"}, // 11 · 24 = 264
                        Case{1, 23, 2048, 132, "h"}, // 11 · 23 = 253
                        Case{1, 8, 2048, 0, "t"},    // by length alone
                        Case{32, 8, 511, 132, "h"}}) {
    p.batch = c.batch;
    p.headsQ = p.headsKV = c.heads;
    p.seqQ = p.seqK = c.rows;
    const KernelEntry *k = nullptr;
    ASSERT_TRUE(selectKernel(m, p, 9, 0, k, &index, c.smCount).ok());
    EXPECT_EQ(k->name, std::string(c.want))
        << c.batch << " x " << c.heads << " x " << c.rows << " rows, "
        << c.smCount << " SMs";
    std::vector<const KernelEntry *> found;
    ASSERT_TRUE(findKernels(m, p, found, nullptr, c.smCount).ok());
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0]->name, std::string(c.want));
  }
}

// A kernel tuned for a few rows (max_seq_q=: a decode step's packed query
// heads) is taken up to that many rows, beside a tall one from its length
// and the plain one between; a range below its minimum is refused.
TEST(ValidateTall, MaxSeqQPicksTheShortBlockUpToItsLength) {
  Manifest m;
  Status s = parseManifest(R"(
kernel name=d ptx=d.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=128 threads=384 smem=1 abi=memref lse=1
kernel name=s ptx=s.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=64 threads=128 smem=1 abi=memref lse=1 max_seq_q=64
kernel name=t ptx=t.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=192 threads=512 smem=1 abi=memref lse=1 min_seq_q=4096
kernel name=a ptx=a.ptx chip=sm_80 dtype=bf16 head_dim=128 causal=0 block_m=128 threads=128 smem=1 abi=memref lse=1
)",
                           "manifest.txt", m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.kernels[1].maxSeqQ, 64);
  EXPECT_EQ(m.kernels[0].maxSeqQ, 0);
  EXPECT_NE(formatManifestLine(m.kernels[1]).find(" max_seq_q=64"),
            std::string::npos);
  EXPECT_EQ(formatManifestLine(m.kernels[0]).find("max_seq_q"),
            std::string::npos);
  ForwardProblem p;
  p.dtype = DType::BF16;
  p.batch = 1;
  p.headsQ = p.headsKV = 4;
  p.headDim = p.headDimV = 128;
  p.withLse = true;
  const KernelEntry *k = nullptr;
  for (auto [rows, cc, want] : {std::tuple{1, 9, "s"},
                                {64, 9, "s"},
                                {65, 9, "d"},
                                {4095, 9, "d"},
                                {4096, 9, "t"},
                                {4, 8, "a"}}) {
    p.seqQ = p.seqK = rows;
    ASSERT_TRUE(selectKernel(m, p, cc, 0, k).ok()) << rows;
    EXPECT_EQ(k->name, want) << rows << " rows, sm_" << cc << "0";
  }
  // Without the plain kernel, rows in no kernel's range take the one with
  // the smallest minimum.
  m.kernels.erase(m.kernels.begin());
  p.seqQ = p.seqK = 1000;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "s");
  Manifest bad;
  s = parseManifest("kernel name=s ptx=s.ptx chip=sm_90a dtype=bf16 "
                    "head_dim=128 causal=0 block_m=64 threads=128 smem=1 "
                    "abi=memref lse=1 min_seq_q=128 max_seq_q=64\n",
                    "manifest.txt", bad);
  EXPECT_EQ(s.code(), StatusCode::BundleError);
  EXPECT_NE(s.message().find("'max_seq_q' 64 is below 'min_seq_q' 128"),
            std::string::npos)
      << s.message();
}

TEST_F(Validate, OldComputeCapability) {
  const KernelEntry *k = nullptr;
  Status s = selectKernel(bundle, p, 7, 5, k);
  EXPECT_EQ(s.code(), StatusCode::Unsupported);
  EXPECT_EQ(s.message(),
            "unsupported: compute capability 7.5; needs sm_80 or later");
  EXPECT_EQ(k, nullptr);
}

TEST_F(Validate, NoVariantForTheDevice) {
  p.causal = false;
  p.headDimV = 64; // only an sm_90a kernel
  const KernelEntry *k = nullptr;
  Status s = selectKernel(bundle, p, 8, 0, k);
  EXPECT_EQ(s.code(), StatusCode::NotInBundle);
  EXPECT_NE(s.message().find("no kernel for compute capability 8.0 (b128v64 "
                             "is built for sm_90a)"),
            std::string::npos)
      << s.message();
  ASSERT_TRUE(selectKernel(bundle, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "b128v64");
}

TEST_F(Validate, Dims) {
  const char *names[] = {"batch", "heads_q",  "heads_kv",  "seq_q",
                         "seq_k", "head_dim", "head_dim_v"};
  int64_t *fields[] = {&p.batch, &p.headsQ,  &p.headsKV, &p.seqQ,
                       &p.seqK,  &p.headDim, &p.headDimV};
  for (int i = 0; i < 7; ++i) {
    for (int64_t bad : {int64_t(0), int64_t(-3)}) {
      SetUp();
      *fields[i] = bad;
      expectError(StatusCode::InvalidArgument, std::string(names[i]) +
                                                   " must be >= 1, got " +
                                                   std::to_string(bad));
    }
    SetUp();
    *fields[i] = int64_t(1) << 31;
    expectError(StatusCode::InvalidArgument,
                std::string(names[i]) + " 2147483648 exceeds 2^31-1");
  }
}

TEST_F(Validate, GridLimits) {
  p.batch = 65536;
  p.seqQ = p.seqK = 1;
  expectError(StatusCode::Unsupported, "batch 65536 exceeds the grid limit");
  SetUp();
  p.headsQ = p.headsKV = 65536;
  p.seqQ = p.seqK = 1;
  p.batch = 1;
  expectError(StatusCode::Unsupported, "heads_q 65536 exceeds the grid limit");
}

TEST_F(Validate, GroupedHeads) {
  p.headsKV = 3;
  expectError(StatusCode::InvalidArgument,
              "heads_q (8) must be a multiple of heads_kv (3)");
  p.headsKV = 8; // plain multi-head
  EXPECT_TRUE(check().ok());
  p.headsKV = 1; // MQA
  EXPECT_TRUE(check().ok());
  p.headsKV = 16;
  expectError(StatusCode::InvalidArgument,
              "heads_q (8) must be a multiple of heads_kv (16)");
}

TEST_F(Validate, Scale) {
  p.scale = -1;
  expectError(StatusCode::InvalidArgument, "scale must be positive and finite");
  p.scale = std::numeric_limits<double>::quiet_NaN();
  expectError(StatusCode::InvalidArgument, "scale must be positive and finite");
  p.scale = std::numeric_limits<double>::infinity();
  expectError(StatusCode::InvalidArgument, "scale must be positive and finite");
  p.scale = 0.5;
  EXPECT_TRUE(check().ok());
  EXPECT_EQ(p.effectiveScale(), 0.5);
  p.scale = 0;
  EXPECT_DOUBLE_EQ(p.effectiveScale(), 1 / std::sqrt(128.0));
}

TEST_F(Validate, NotInTheBundle) {
  p.headDim = p.headDimV = 96;
  expectError(StatusCode::NotInBundle,
              "not in the bundle: head dim 96 (this bundle has 64, 128)");
  SetUp();
  p.dtype = DType::F32;
  expectError(StatusCode::NotInBundle,
              "not in the bundle: dtype f32 (this bundle has bf16, f16)");
  SetUp();
  p.headDimV = 256;
  expectError(
      StatusCode::NotInBundle,
      "not in the bundle: head dim v 256 with head dim 128 (this bundle has "
      "head dim v 64, 128 for it)");
  SetUp();
  p.dtype = DType::F16;
  p.causal = true;
  expectError(StatusCode::NotInBundle,
              "not in the bundle: causal attention for f16 head dim 128 (this "
              "bundle has only non-causal kernels for it)");
  p.headDim = p.headDimV = 64;
  expectError(StatusCode::NotInBundle,
              "not in the bundle: head dim 64 (this bundle has 128)");
}

TEST_F(Validate, Strides) {
  // [B, N, H, D] storage (what a [B, N, H*D] projection gives): fine.
  p.q = {p.seqQ * p.headsQ * 128, 128, p.headsQ * 128, 1};
  p.k = {p.seqK * p.headsKV * 128, 128, p.headsKV * 128, 1};
  EXPECT_TRUE(check().ok()) << check().message();

  SetUp();
  p.q = {p.headsQ * p.seqQ * 136, p.seqQ * 136, 136, 1}; // padded rows
  EXPECT_TRUE(check().ok()) << check().message();
  p.q.seq = 100;
  expectError(StatusCode::InvalidArgument,
              "q: seq stride 100 is not a multiple of 8 elements (16 bytes)");
  SetUp();
  p.k = contiguousStrides(p.headsKV, p.seqK, 128);
  p.k.dim = 2;
  expectError(StatusCode::InvalidArgument,
              "k: the last dim must be contiguous (dim stride 1), got 2");
  SetUp();
  p.v = contiguousStrides(p.headsKV, p.seqK, 128);
  p.v.head = -p.v.head;
  expectError(StatusCode::InvalidArgument, "v: head stride");
  expectError(StatusCode::InvalidArgument, "is negative");
  SetUp();
  p.o = contiguousStrides(p.headsQ, p.seqQ, 128);
  p.o.batch = 12;
  expectError(StatusCode::InvalidArgument,
              "o: batch stride 12 is not a multiple of 8 elements");
  SetUp();
  p.dtype = DType::F32; // 4 elements make 16 bytes
  p.q = contiguousStrides(p.headsQ, p.seqQ, 128);
  p.q.seq = 132;
  Status s = checkProblem(p);
  EXPECT_TRUE(s.ok()) << s.message();
  p.q.seq = 130;
  s = checkProblem(p);
  EXPECT_NE(s.message().find("not a multiple of 4 elements (16 bytes)"),
            std::string::npos)
      << s.message();
}

TEST_F(Validate, StridesOfUnitDimsDoNotMatter) {
  // PyTorch gives size-1 dims arbitrary strides; they are never stepped.
  p.batch = 1;
  p.q = contiguousStrides(p.headsQ, p.seqQ, 128);
  p.q.batch = 3;
  EXPECT_TRUE(check().ok()) << check().message();
  p.q.batch = int64_t(1) << 40;
  EXPECT_TRUE(check().ok()) << check().message();
}

TEST_F(Validate, OutputMustNotOverlapItself) {
  p.o = contiguousStrides(p.headsQ, p.seqQ, 128);
  p.o.seq = 0; // every query row writes the same place
  expectError(StatusCode::InvalidArgument,
              "o: the strides make distinct outputs overlap");
  p.o.seq = 64; // rows of 128 overlap their neighbours
  expectError(StatusCode::InvalidArgument, "o: the strides make");
  p.o = contiguousStrides(p.headsQ, p.seqQ, 128);
  p.o.head = 128; // heads interleaved with rows: [B, N, H, D] is fine
  p.o.seq = 128 * p.headsQ;
  EXPECT_TRUE(check().ok()) << check().message();
  p.o.seq = 128 * (p.headsQ - 1); // one head too few per row
  expectError(StatusCode::InvalidArgument, "o: the strides make");
  // Inputs may be broadcast: K/V shared by every batch.
  SetUp();
  p.k = contiguousStrides(p.headsKV, p.seqK, 128);
  p.k.batch = 0;
  p.v = p.k;
  EXPECT_TRUE(check().ok()) << check().message();
}

TEST_F(Validate, TensorsPast32BitOffsets) {
  // The kernels address each tile's first row in 64 bits: a tensor may span
  // 2^31 elements or more ([1, 32, 524288, 128] is 2^31).
  p.batch = 1;
  p.headsQ = 32;
  p.headsKV = 8;
  p.seqQ = p.seqK = int64_t(1) << 19;
  p.withLse = true;
  EXPECT_TRUE(check().ok()) << check().message();
  // The rows of a tile are 32-bit offsets from its first: the seq stride is
  // bounded ((1024 - 1)·stride + D <= 2^31 - 1).
  SetUp();
  p.q = contiguousStrides(p.headsQ, p.seqQ, 128);
  p.q.seq = int64_t(1) << 22;
  p.q.head = p.q.seq * p.seqQ;
  p.q.batch = p.q.head * p.headsQ;
  expectError(StatusCode::Unsupported, "q: seq stride 4194304 is too large");
  p.q.seq = 2099200; // (2^31 - 1 - 128) / 1023, rounded down to 8 elements
  p.q.head = p.q.seq * p.seqQ;
  p.q.batch = p.q.head * p.headsQ;
  EXPECT_TRUE(check().ok()) << check().message();
  // Strides a tensor map cannot describe (2^40 bytes) with an extent > 1.
  SetUp();
  p.k = contiguousStrides(p.headsKV, p.seqK, 128);
  p.k.batch = int64_t(1) << 39;
  expectError(StatusCode::InvalidArgument,
              "k: batch stride 549755813888 is 2^40 bytes or more");
  p.k.batch = int64_t(1) << 32; // 8 GiB apart: fine
  EXPECT_TRUE(check().ok()) << check().message();
}

TEST_F(Validate, Extents) {
  p.withLse = true;
  TensorExtents e = tensorExtents(p);
  EXPECT_EQ(e.q, uint64_t(2 * 8 * 130 * 128 * 2));
  EXPECT_EQ(e.k, uint64_t(2 * 2 * 1000 * 128 * 2));
  EXPECT_EQ(e.v, e.k);
  EXPECT_EQ(e.o, e.q);
  EXPECT_EQ(e.lse, uint64_t(2 * 8 * 130 * 4));
  p.q = {p.seqQ * p.headsQ * 128, 128, p.headsQ * 128, 1};
  EXPECT_EQ(tensorExtents(p).q, e.q); // a permutation spans the same bytes
}

// Addresses far enough apart for the problem's tensors not to overlap.
const void *at(uintptr_t mib) {
  return reinterpret_cast<const void *>(mib << 20);
}

TEST_F(Validate, Pointers) {
  p.withLse = false;
  const void *q = at(1 << 10), *k = at(2 << 10), *v = at(3 << 10),
             *o = at(4 << 10), *lse = at(5 << 10);
  EXPECT_TRUE(checkPointers(p, q, k, v, o, nullptr).ok());
  auto expectPtrError = [&](const void *q, const void *k, const void *v,
                            const void *o, const void *lse,
                            const std::string &needle) {
    Status s = checkPointers(p, q, k, v, o, lse);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << needle;
    EXPECT_NE(s.message().find(needle), std::string::npos)
        << "message: " << s.message() << "\nwanted:  " << needle;
  };
  expectPtrError(nullptr, k, v, o, nullptr, "q is null");
  expectPtrError(q, nullptr, v, o, nullptr, "k is null");
  expectPtrError(q, k, nullptr, o, nullptr, "v is null");
  expectPtrError(q, k, v, nullptr, nullptr, "o is null");
  const char *base = static_cast<const char *>(k);
  expectPtrError(q, base + 8, v, o, nullptr, "k (0x");
  expectPtrError(q, base + 8, v, o, nullptr, ") is not 16-byte aligned");
  expectPtrError(q, k, v, static_cast<const char *>(o) + 2, nullptr,
                 "is not 16-byte aligned");
  expectPtrError(q, k, v, o, lse,
                 "lse is given but the problem does not ask for LSE");
  p.withLse = true;
  expectPtrError(q, k, v, o, nullptr,
                 "lse is null but the problem asks for LSE");
  EXPECT_TRUE(checkPointers(p, q, k, v, o, lse).ok());
  expectPtrError(q, k, v, o, static_cast<const char *>(lse) + 2, "lse (0x");
  EXPECT_TRUE(
      checkPointers(p, q, k, v, o, static_cast<const char *>(lse) + 4).ok());
  // Aliasing: o over q (in place), o inside k, lse at the end of o.
  expectPtrError(q, k, v, q, lse, "o overlaps q");
  expectPtrError(q, k, v, base + 4096, lse, "o overlaps k");
  const char *oEnd = static_cast<const char *>(o) + tensorExtents(p).o;
  expectPtrError(q, k, v, o, oEnd - 16, "lse overlaps o");
  EXPECT_TRUE(checkPointers(p, q, k, v, o, oEnd).ok()); // adjacent is fine
}

} // namespace

namespace {

// The split-KV pair of a bundle: split_kv kernels match the forward's
// dtype, head dims and mask; merge kernels its dtype, Dv and LSE. Neither
// ever serves a plain forward.
const char *kSplitManifest = R"(
kernel name=fwd ptx=f.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=128 threads=384 smem=1024 abi=memref lse=1
kernel name=split ptx=s.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=128 block_n=128 threads=384 smem=1024 abi=memref lse=1 program=split_kv
kernel name=splitc ptx=sc.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=128 block_n=128 threads=384 smem=1024 abi=memref lse=1 program=split_kv
kernel name=merge ptx=m.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=64 threads=128 smem=0 abi=memref lse=1 program=merge_splits
kernel name=mergen ptx=mn.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=64 threads=128 smem=0 abi=memref lse=0 program=merge_splits
)";

TEST(SplitKV, FindsThePairAndNeverServesAPlainForward) {
  Manifest m;
  ASSERT_TRUE(parseManifest(kSplitManifest, "manifest.txt", m).ok());
  ForwardProblem p;
  p.headDim = p.headDimV = 128;
  p.withLse = false;
  std::vector<const KernelEntry *> split, merge;
  ASSERT_TRUE(findSplitKernels(m, p, split, merge).ok());
  ASSERT_EQ(split.size(), 1u);
  EXPECT_EQ(split[0]->name, "split");
  ASSERT_EQ(merge.size(), 1u);
  EXPECT_EQ(merge[0]->name, "mergen");
  p.causal = true;
  p.withLse = true;
  ASSERT_TRUE(findSplitKernels(m, p, split, merge).ok());
  EXPECT_EQ(split[0]->name, "splitc");
  EXPECT_EQ(merge[0]->name, "merge");
  // The forward's candidates are the plain kernel only.
  p.causal = false;
  std::vector<const KernelEntry *> fwd;
  ASSERT_TRUE(findKernels(m, p, fwd).ok());
  ASSERT_EQ(fwd.size(), 1u);
  EXPECT_EQ(fwd[0]->name, "fwd");
  // No pair for another head dim: NotInBundle, both lists empty.
  p.headDim = p.headDimV = 64;
  Status s = findSplitKernels(m, p, split, merge);
  EXPECT_EQ(s.code(), StatusCode::NotInBundle);
  EXPECT_TRUE(split.empty() && merge.empty());
}

TEST(SplitKV, TheUnsplitForwardsGridDecides) {
  // Chunked prefill, Hq = 32, 200 query rows: the forward (128 rows) runs
  // 2 x 32 = 64 thread blocks on 132 SMs, while a split kernel of 64 rows
  // has 4 x 32 = 128 a split. Counted by the split kernel's rows alone the
  // grid looks full (no split, and the unsplit forward fills 48%).
  ForwardProblem p;
  p.batch = 1;
  p.headsQ = 32;
  p.headsKV = 8;
  p.seqQ = 200;
  p.seqK = 8192;
  p.headDim = p.headDimV = 128;
  EXPECT_EQ(chooseKVSplits(p, 132, 64, 128), 1);
  // With the forward's 128 rows deciding: 2 splits (256 split blocks,
  // 97% of two waves; one split is the forward's 48%).
  EXPECT_EQ(chooseKVSplits(p, 132, 64, 128, 0, 128), 2);
  // 128-row split blocks: 64 a split, 2 splits fill 97% of one wave.
  EXPECT_EQ(chooseKVSplits(p, 132, 128, 128, 0, 128), 2);
  // A decode step's packed rows (4) are one block in either kernel: 8
  // blocks on 132 SMs, 32 key blocks, 16 splits (97%) either way.
  p.seqQ = 4;
  p.headsQ = 8;
  p.seqK = 4096;
  EXPECT_EQ(chooseKVSplits(p, 132, 64, 128, 0, 128), 16);
  EXPECT_EQ(chooseKVSplits(p, 132, 64, 128), 16);
  // The forward's grid decides the other way too: 256 rows, Hq = 32,
  // B = 2 are 2 x 32 x 2 = 128 forward blocks of 128 rows, which fill the
  // device (no split), while a split kernel of 256 rows counted alone (64
  // blocks) would split in 2.
  p.seqQ = 256;
  p.headsQ = 32;
  p.batch = 2;
  p.seqK = 8192;
  EXPECT_EQ(chooseKVSplits(p, 132, 256, 128), 2);
  EXPECT_EQ(chooseKVSplits(p, 132, 256, 128, 0, 128), 1);
}

TEST(SplitKV, ChoosesSplitsOnlyForGridsSmallerThanTheDevice) {
  ForwardProblem p;
  p.batch = 1;
  p.headsQ = p.headsKV = 8;
  p.seqQ = 4;
  p.seqK = 16384;
  p.headDim = p.headDimV = 128;
  // 8 thread blocks on 132 SMs, 128 key blocks: 16 splits fill 128 of the
  // 132 (97%, the best); 15 fill 120 (91%), the fewest within 85% of it
  // (14 has 15's chunk of 10 blocks, 13 fills 79%).
  EXPECT_EQ(chooseKVSplits(p, 132, 128, 128), 15);
  // A grid of most of a wave does not split.
  p.batch = 14; // 112 blocks >= 0.8 * 132
  EXPECT_EQ(chooseKVSplits(p, 132, 128, 128), 1);
  // At least 256 keys a split.
  p.batch = 1;
  // 32 blocks of 128: at most 16 splits (2 blocks each), which fill 97% of
  // the SMs; 14 and 15 fill 85% and 91% but run 3 blocks each, as 13 does.
  p.seqK = 4096;
  EXPECT_EQ(chooseKVSplits(p, 132, 128, 128), 16);
  // The same keys in blocks of 64: at most 16 splits (4 blocks each).
  EXPECT_EQ(chooseKVSplits(p, 132, 128, 64), 16);
  p.seqK = 1200; // 10 blocks: at most 5 splits (2 blocks each)
  EXPECT_EQ(chooseKVSplits(p, 132, 128, 128), 5);
  p.seqK = 256; // 2 blocks, 256 keys: nothing to split
  EXPECT_EQ(chooseKVSplits(p, 132, 128, 128), 1);
  // A forced count replaces the choice, within the same bounds.
  p.seqK = 16384;
  EXPECT_EQ(chooseKVSplits(p, 132, 128, 128, 4), 4);
  EXPECT_EQ(chooseKVSplits(p, 132, 128, 128, 1000), 64); // 256 keys each
  p.batch = 14;
  EXPECT_EQ(chooseKVSplits(p, 132, 128, 128, 4), 1); // a full grid
  p.batch = 1;
  p.seqK = 100;
  // Nonsense device facts split nothing.
  EXPECT_EQ(chooseKVSplits(p, 0, 128, 128), 1);
  EXPECT_EQ(chooseKVSplits(p, 132, 0, 128), 1);
}

TEST(SplitKV, PacksTheQueryHeadsOfAGroupForOneQueryRow) {
  ForwardProblem p;
  p.batch = 2;
  p.headsQ = 32;
  p.headsKV = 8;
  p.seqQ = 1;
  p.seqK = 4096;
  p.headDim = p.headDimV = 128;
  p.causal = true;
  // [B, N, H, D] storage.
  p.q = {32 * 128, 128, 32 * 128, 1};
  p.o = p.q;
  ForwardProblem t = packQueryHeads(p);
  EXPECT_EQ(t.headsQ, 8);
  EXPECT_EQ(t.headsKV, 8);
  EXPECT_EQ(t.seqQ, 4);
  EXPECT_FALSE(t.causal);
  // Row i of head j is query head 4j + i: rows step by one head, heads by
  // four.
  EXPECT_EQ(t.q.batch, 32 * 128);
  EXPECT_EQ(t.q.head, 4 * 128);
  EXPECT_EQ(t.q.seq, 128);
  EXPECT_EQ(t.o.head, 4 * 128);
  EXPECT_TRUE(checkProblem(t).ok());
  // Contiguous [B, H, N, D] (default strides) packs the same way.
  p.q = p.o = Strides();
  t = packQueryHeads(p);
  EXPECT_EQ(t.q.head, 4 * 128);
  EXPECT_EQ(t.q.seq, 128);
  EXPECT_EQ(t.k.seq, 128); // K and V keep theirs, made explicit
  // Nothing to pack by strides: MHA, or more than one query row.
  p.headsKV = 32;
  EXPECT_EQ(packQueryHeads(p).headsQ, 32);
  EXPECT_FALSE(packQueryHeads(p).packHeads);
  p.headsKV = 8;
  p.seqQ = 2;
  EXPECT_EQ(packQueryHeads(p).seqQ, 2);
  EXPECT_TRUE(packQueryHeads(p).causal);
}

TEST(SplitKV, AFewQueryRowsGoToKernelsThatPackTheHeads) {
  ForwardProblem p;
  p.batch = 2;
  p.headsQ = 28;
  p.headsKV = 4; // G = 7
  p.seqQ = 9;
  p.seqK = 4096;
  p.headDim = p.headDimV = 128;
  p.causal = true;
  // [B, N, H, D]: the rows of a position are one head apart, not a stride.
  p.q = {9 * 28 * 128, 128, 28 * 128, 1};
  p.o = p.q;
  ForwardProblem t = packQueryHeads(p);
  EXPECT_TRUE(t.packHeads);
  // The tensors as given; the kernel's rows and heads are G·Nq and Hkv.
  EXPECT_EQ(t.seqQ, 9);
  EXPECT_EQ(t.headsQ, 28);
  EXPECT_EQ(t.q.head, 128);
  EXPECT_TRUE(t.causal);
  EXPECT_EQ(t.kernelRows(), 63);
  EXPECT_EQ(t.kernelHeads(), 4);
  EXPECT_EQ(p.kernelRows(), 9);
  // The split count sees the packed grid: 1 block of 64 rows a key/value
  // head (8 blocks, not 28) on 132 multiprocessors.
  EXPECT_EQ(chooseKVSplits(t, 132, 64, 64, 0), chooseKVSplits(
                                                   [&] {
                                                     ForwardProblem u = p;
                                                     u.headsQ = 4;
                                                     u.seqQ = 63;
                                                     return u;
                                                   }(),
                                                   132, 64, 64, 0));
  // More than 128 packed rows, a window, ALiBi, dropout or a packed batch:
  // one program per query head, as given (a caller's packHeads ignored).
  for (int c = 0; c < 7; ++c) {
    ForwardProblem u = p;
    u.packHeads = true;
    if (c == 5) // a head stride the kernel's 32-bit row offsets cannot span
      u.q.head = int64_t(1) << 29;
    if (c == 6)
      u.dtype = DType::E4M3;
    if (c == 0)
      u.seqQ = 19; // 133 rows
    if (c == 1)
      u.windowLeft = 64;
    if (c == 2)
      u.alibi = true;
    if (c == 3)
      u.dropout = true;
    if (c == 4) {
      u.kvLayout = KVLayout::Varlen;
      u.totalQ = 9;
      u.totalK = 4096;
    }
    EXPECT_FALSE(packQueryHeads(u).packHeads) << c;
  }
  // fp8 with one query row still packs by strides.
  ForwardProblem f = p;
  f.dtype = DType::E4M3;
  f.seqQ = 1;
  f.q = f.o = Strides();
  EXPECT_EQ(packQueryHeads(f).seqQ, 7);
}

TEST(SplitKV, PackedKernelsServeOnlyPackedProblems) {
  Manifest m;
  Status s = parseManifest(R"(
kernel name=plain ptx=a.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=64 threads=128 smem=1 abi=memref lse=1 grid=q_blocks,heads_q,batch
kernel name=packed ptx=b.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=64 threads=128 smem=1 abi=memref lse=1 grid=group_q_blocks,heads_kv,batch
)",
                           "manifest.txt", m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(m.kernels[0].packsQueryHeads());
  EXPECT_TRUE(m.kernels[1].packsQueryHeads());
  ForwardProblem p;
  p.dtype = DType::BF16;
  p.batch = 1;
  p.headsQ = 32;
  p.headsKV = 8;
  p.seqQ = 4;
  p.seqK = 1000;
  p.headDim = p.headDimV = 128;
  p.causal = true;
  p.withLse = true;
  const KernelEntry *k = nullptr;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "plain");
  ASSERT_TRUE(selectKernel(m, packQueryHeads(p), 9, 0, k).ok());
  EXPECT_EQ(k->name, "packed");
  // Split kernels: the 128-row twin of the packed one from 65 packed rows.
  Manifest sm;
  ASSERT_TRUE(parseManifest(R"(
kernel name=s ptx=a.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=64 threads=128 smem=1 abi=memref lse=1 program=split_kv grid=q_blocks*splits,heads_q,batch
kernel name=sp ptx=b.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=64 threads=128 smem=1 abi=memref lse=1 program=split_kv grid=group_q_blocks*splits,heads_kv,batch
kernel name=sp128 ptx=c.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=128 threads=256 smem=1 abi=memref lse=1 program=split_kv grid=group_q_blocks*splits,heads_kv,batch min_seq_q=65
kernel name=m ptx=d.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=16 threads=32 smem=1 abi=memref lse=1 program=merge_splits
)",
                            "manifest.txt", sm)
                  .ok());
  std::vector<const KernelEntry *> split, merge;
  ASSERT_TRUE(findSplitKernels(sm, packQueryHeads(p), split, merge).ok());
  ASSERT_EQ(split.size(), 1u);
  EXPECT_EQ(split[0]->name, "sp"); // 16 packed rows
  p.seqQ = 16;                     // 64 packed rows
  ASSERT_TRUE(findSplitKernels(sm, packQueryHeads(p), split, merge).ok());
  EXPECT_EQ(split[0]->name, "sp");
  p.seqQ = 17; // 68
  ASSERT_TRUE(findSplitKernels(sm, packQueryHeads(p), split, merge).ok());
  EXPECT_EQ(split[0]->name, "sp128");
  ASSERT_TRUE(findSplitKernels(sm, p, split, merge).ok());
  EXPECT_EQ(split[0]->name, "s");
  p.seqQ = 4;
  // Without its packed kernel, a packed problem is not in the bundle.
  m.kernels.pop_back();
  Status none = selectKernel(m, packQueryHeads(p), 9, 0, k);
  EXPECT_EQ(none.code(), StatusCode::NotInBundle);
  EXPECT_NE(none.message().find("query heads of a group packed"),
            std::string::npos)
      << none.message();
}

} // namespace

namespace {
// Windowed kernels: causal with a left bound of 4096, and a symmetric
// window of 128, beside a plain causal one.
const char *kWindowManifest = R"(
kernel name=c ptx=c.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=128 threads=384 smem=200000 abi=memref
kernel name=w ptx=w.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=128 threads=384 smem=200000 abi=memref window=4096,-1
kernel name=s ptx=s.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=128 threads=384 smem=200000 abi=memref window=128,128
)";
} // namespace

TEST(SlidingWindow, ManifestKeyRoundTrips) {
  Manifest m;
  Status s = parseManifest(kWindowManifest, "manifest.txt", m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.kernels[0].windowLeft, -1);
  EXPECT_EQ(m.kernels[0].windowRight, -1);
  EXPECT_EQ(formatManifestLine(m.kernels[0]).find("window"), std::string::npos);
  EXPECT_EQ(m.kernels[1].windowLeft, 4096);
  EXPECT_EQ(m.kernels[1].windowRight, -1);
  EXPECT_NE(formatManifestLine(m.kernels[1]).find(" window=4096,-1"),
            std::string::npos);
  EXPECT_EQ(m.kernels[2].windowLeft, 128);
  EXPECT_EQ(m.kernels[2].windowRight, 128);
  for (const char *bad : {"window=-1,-1", "window=5", "window=-2,3",
                          "window=1,x", "window=,3", "window=2147483648,0"}) {
    Manifest b;
    std::string line = "kernel name=w ptx=w.ptx chip=sm_90a dtype=bf16 "
                       "head_dim=128 causal=0 block_m=128 threads=384 "
                       "smem=1 abi=memref " +
                       std::string(bad);
    Status e = parseManifest(line, "manifest.txt", b);
    EXPECT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.message().find("bad window"), std::string::npos) << e.message();
  }
}

TEST(SlidingWindow, KernelsServeExactlyTheirWindow) {
  Manifest m;
  ASSERT_TRUE(parseManifest(kWindowManifest, "manifest.txt", m).ok());
  ForwardProblem p;
  p.batch = 1;
  p.headsQ = p.headsKV = 4;
  p.seqQ = p.seqK = 8192;
  p.headDim = p.headDimV = 128;
  p.causal = true;
  p.withLse = true;
  const KernelEntry *k = nullptr;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "c"); // no window: never a windowed kernel
  p.windowLeft = 4096;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "w");
  p.windowLeft = 1024; // a window the bundle does not have
  Status s = selectKernel(m, p, 9, 0, k);
  EXPECT_EQ(s.code(), StatusCode::NotInBundle);
  EXPECT_NE(s.message().find("with the sliding window 1024,-1 (this bundle's "
                             "kernels for it have another window)"),
            std::string::npos)
      << s.message();
  p.causal = false;
  p.windowLeft = p.windowRight = 128;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "s");
}

TEST(SlidingWindow, ProblemRules) {
  ForwardProblem p;
  p.headDim = p.headDimV = 128;
  p.causal = true;
  p.windowLeft = 256;
  EXPECT_TRUE(checkProblem(p).ok());
  p.windowRight = 0;
  Status s = checkProblem(p);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("causal is window_right = 0"), std::string::npos);
  p.windowRight = -1;
  p.windowLeft = -5;
  s = checkProblem(p);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("window_left must be -1 (no bound) or in [0, "
                             "2^31), got -5"),
            std::string::npos)
      << s.message();
  // A decode step with a window: its query heads are not packed into rows
  // (the window is placed by the row's position), and it is not split.
  p.windowLeft = 256;
  p.batch = 1;
  p.headsQ = 32;
  p.headsKV = 8;
  p.seqQ = 1;
  p.seqK = 65536;
  EXPECT_EQ(packQueryHeads(p).seqQ, 1);
  EXPECT_EQ(chooseKVSplits(p, 132, 64, 64, 0), 1);
  // Over a KV cache: the compiler and the CPU path have it, the runtime
  // does not launch it yet (not checked on a GPU).
  p.kvLayout = KVLayout::SeqLens;
  s = checkProblem(p);
  EXPECT_EQ(s.code(), StatusCode::Unsupported);
  EXPECT_NE(s.message().find("a sliding window with a seqlens KV layout in "
                             "the runtime"),
            std::string::npos)
      << s.message();
  p.kvLayout = KVLayout::Dense;
  p.windowLeft = -1;
  EXPECT_EQ(packQueryHeads(p).seqQ, 4);
  EXPECT_GT(chooseKVSplits(p, 132, 64, 64, 0), 1);
}

namespace {
// Soft-capped kernels (Gemma 2's 50) beside a plain one.
const char *kSoftcapManifest = R"(
kernel name=p ptx=p.ptx chip=sm_90a dtype=bf16 head_dim=256 causal=1 block_m=128 threads=384 smem=200000 abi=memref
kernel name=c ptx=c.ptx chip=sm_90a dtype=bf16 head_dim=256 causal=1 block_m=128 threads=384 smem=200000 abi=memref softcap=50
)";
} // namespace

TEST(Softcap, ManifestKeyRoundTrips) {
  Manifest m;
  Status s = parseManifest(kSoftcapManifest, "manifest.txt", m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.kernels[0].softcap, 0.0f);
  EXPECT_EQ(formatManifestLine(m.kernels[0]).find("softcap"),
            std::string::npos);
  EXPECT_EQ(m.kernels[1].softcap, 50.0f);
  EXPECT_NE(formatManifestLine(m.kernels[1]).find(" softcap=50"),
            std::string::npos);
  // Any f32 reads back as itself.
  for (float c : {0.1f, 30.0f, 1e-20f, 3.4e38f, 22.6274166f}) {
    KernelEntry e = m.kernels[1];
    e.softcap = c;
    Manifest back;
    ASSERT_TRUE(
        parseManifest(formatManifestLine(e), "manifest.txt", back).ok());
    EXPECT_EQ(back.kernels[0].softcap, c) << formatSoftcap(c);
  }
  for (const char *bad :
       {"softcap=0", "softcap=-1", "softcap=inf", "softcap=nan", "softcap=5x",
        "softcap=1e39", "softcap=1e-39"}) {
    Manifest b;
    std::string line = "kernel name=w ptx=w.ptx chip=sm_90a dtype=bf16 "
                       "head_dim=128 causal=0 block_m=128 threads=384 "
                       "smem=1 abi=memref " +
                       std::string(bad);
    Status e = parseManifest(line, "manifest.txt", b);
    EXPECT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.message().find("bad softcap"), std::string::npos)
        << e.message();
  }
}

TEST(Softcap, KernelsServeExactlyTheirCap) {
  Manifest m;
  ASSERT_TRUE(parseManifest(kSoftcapManifest, "manifest.txt", m).ok());
  ForwardProblem p;
  p.batch = 1;
  p.headsQ = p.headsKV = 8;
  p.seqQ = p.seqK = 4096;
  p.headDim = p.headDimV = 256;
  p.causal = true;
  p.withLse = true;
  const KernelEntry *k = nullptr;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "p"); // no cap: never a capped kernel
  p.softcap = 50;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "c");
  p.softcap = 30; // a cap the bundle does not have
  Status s = selectKernel(m, p, 9, 0, k);
  EXPECT_EQ(s.code(), StatusCode::NotInBundle);
  EXPECT_NE(s.message().find("with the soft-cap 30 (this bundle's kernels for "
                             "it have another soft-cap)"),
            std::string::npos)
      << s.message();
}

TEST(Softcap, ProblemRules) {
  ForwardProblem p;
  p.headDim = p.headDimV = 128;
  p.softcap = 50;
  EXPECT_TRUE(checkProblem(p).ok());
  // A subnormal cap would make the kernel's 1/C infinite.
  for (double bad : {-1.0, std::nan(""), 1e300, 1e-300, 1e-39}) {
    p.softcap = bad;
    Status s = checkProblem(p);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << bad;
    EXPECT_NE(s.message().find("softcap must be 0 (none) or a positive, "
                               "finite, normal f32"),
              std::string::npos)
        << s.message();
  }
  // The cap is per score: GQA decoding still packs query heads into rows.
  p.softcap = 50;
  p.batch = 1;
  p.headsQ = 32;
  p.headsKV = 8;
  p.seqQ = 1;
  p.seqK = 65536;
  EXPECT_EQ(packQueryHeads(p).seqQ, 4);
  // Over a KV cache or a packed batch: the compiler and the CPU path have
  // it, the runtime does not launch it yet (not checked on a GPU).
  for (KVLayout kv : {KVLayout::SeqLens, KVLayout::Paged, KVLayout::Varlen}) {
    p.kvLayout = kv;
    Status s = checkProblem(p);
    EXPECT_EQ(s.code(), StatusCode::Unsupported) << kvLayoutName(kv);
    EXPECT_NE(s.message().find("a soft-cap with a"), std::string::npos)
        << s.message();
  }
}

// fp8 (e4m3): bf16 O, V transposed (keys contiguous), descale factors.
const char *kFp8Manifest = R"(
kernel name=b ptx=b.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=128 threads=384 smem=200000 abi=memref
kernel name=f ptx=f.ptx chip=sm_90a dtype=e4m3 head_dim=128 causal=0 block_m=128 block_n=128 threads=384 smem=200000 abi=memref tensor_maps=0:128,1:128,2:128
)";

ForwardProblem fp8Problem() {
  ForwardProblem p;
  p.dtype = DType::E4M3;
  p.batch = 2;
  p.headsQ = 8;
  p.headsKV = 2;
  p.seqQ = 130;
  p.seqK = 1008; // whole 16-byte rows of Vᵀ
  p.headDim = p.headDimV = 128;
  p.withLse = true;
  p.qDescale = 0.01;
  p.kDescale = 0.02;
  p.vDescale = 0.5;
  return p;
}

TEST(Fp8, SelectsTheE4m3Kernel) {
  Manifest m;
  ASSERT_TRUE(parseManifest(kFp8Manifest, "manifest.txt", m).ok());
  ForwardProblem p = fp8Problem();
  const KernelEntry *k = nullptr;
  Status s = selectKernel(m, p, 9, 0, k);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(k->name, "f");
  // No sm_80 variant: the bundle says so (a compiler would refuse too).
  s = selectKernel(m, p, 8, 0, k);
  EXPECT_EQ(s.code(), StatusCode::NotInBundle) << s.message();
  p.dtype = DType::BF16;
  p.qDescale = p.kDescale = p.vDescale = 1;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "b");
}

TEST(Fp8, TransposedValueStrides) {
  ForwardProblem p = fp8Problem();
  // The default: contiguous [B, Hkv, Dv, Nk], keys innermost.
  Strides v = p.stridesV();
  EXPECT_EQ(v.seq, 1);
  EXPECT_EQ(v.dim, 1008);
  EXPECT_EQ(v.head, 128 * 1008);
  EXPECT_EQ(v.batch, 2 * 128 * 1008);
  EXPECT_TRUE(checkProblem(p).ok()) << checkProblem(p).message();
  // The kernel's memref is [B, Hkv, Dv, Nk] with the rows' stride third.
  AttentionShape shape = kernelShape(p);
  EXPECT_TRUE(shape.vTransposed);
  AttentionArgument a = attentionArgument(shape, 2);
  EXPECT_EQ(a.sizes[2], 128);
  EXPECT_EQ(a.sizes[3], 1008);
  EXPECT_EQ(a.strides[2], 1008);
  EXPECT_EQ(a.strides[3], 1);
  // Key counts that are not whole 16-byte rows need padded rows.
  p.seqK = 1000;
  Status s = checkProblem(p);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("v: dim stride 1000 is not a multiple of 16 "
                             "elements (16 bytes)"),
            std::string::npos)
      << s.message();
  p.v = {2 * 128 * 1008, 128 * 1008, 1, 1008};
  EXPECT_TRUE(checkProblem(p).ok()) << checkProblem(p).message();
  // Keys must be contiguous in Vᵀ; Q, K and O keep their last dim.
  p.v.seq = 2;
  s = checkProblem(p);
  EXPECT_NE(s.message().find("v: keys must be contiguous in a transposed V "
                             "(seq stride 1), got 2"),
            std::string::npos)
      << s.message();
  // O is bf16: 8 elements make 16 bytes; Q and K e4m3: 16.
  p = fp8Problem();
  p.o = contiguousStrides(p.headsQ, p.seqQ, 136);
  EXPECT_TRUE(checkProblem(p).ok()) << checkProblem(p).message();
  p.q = contiguousStrides(p.headsQ, p.seqQ, 136);
  s = checkProblem(p);
  EXPECT_NE(s.message().find("q: seq stride 136 is not a multiple of 16 "
                             "elements"),
            std::string::npos)
      << s.message();
  // Extents: one byte per input element, two per output element.
  p = fp8Problem();
  TensorExtents e = tensorExtents(p);
  EXPECT_EQ(e.q, uint64_t(2 * 8 * 130 * 128));
  EXPECT_EQ(e.v, uint64_t(2 * 2 * 128 * 1008));
  EXPECT_EQ(e.o, uint64_t(2 * 8 * 130 * 128 * 2));
}

TEST(Fp8, DescaleRules) {
  ForwardProblem p = fp8Problem();
  for (double bad : {0.0, -1.0, std::nan(""), 1e300, 1e-300}) {
    p.kDescale = bad;
    Status s = checkProblem(p);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << bad;
    EXPECT_NE(s.message().find("k_descale must be a positive, finite, "
                               "normal f32"),
              std::string::npos)
        << s.message();
  }
  // scale·qd·kd must stay a finite f32.
  p = fp8Problem();
  p.qDescale = p.kDescale = 1e30;
  Status s = checkProblem(p);
  EXPECT_NE(s.message().find("times q_descale and k_descale is outside the "
                             "f32 range"),
            std::string::npos)
      << s.message();
  // Descales are for fp8 problems only.
  p = fp8Problem();
  p.dtype = DType::BF16;
  s = checkProblem(p);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("q_descale 0.010000 is for e4m3 (fp8) problems "
                             "only"),
            std::string::npos)
      << s.message();
}

TEST(Fp8, OnlyTheDenseForward) {
  ForwardProblem p = fp8Problem();
  p.windowLeft = 256;
  Status s = checkProblem(p);
  EXPECT_EQ(s.code(), StatusCode::Unsupported);
  EXPECT_NE(s.message().find("e4m3 (fp8) with a sliding window or a soft-cap"),
            std::string::npos)
      << s.message();
  p = fp8Problem();
  p.softcap = 50;
  EXPECT_EQ(checkProblem(p).code(), StatusCode::Unsupported);
  p = fp8Problem();
  p.kvLayout = KVLayout::SeqLens;
  s = checkProblem(p);
  EXPECT_EQ(s.code(), StatusCode::Unsupported);
  EXPECT_NE(s.message().find("e4m3 (fp8) with a seqlens KV layout"),
            std::string::npos)
      << s.message();
}

TEST(Fp8, KernelParameters) {
  ForwardProblem p = fp8Problem();
  AttentionShape shape = kernelShape(p);
  const float descale[3] = {0.25f, 0.5f, 2.0f};
  float lse;
  KernelParams params = memrefAttentionParams(shape, at(1), at(2), at(3),
                                              const_cast<void *>(at(4)), &lse,
                                              0.125f, nullptr, descale);
  // 4 memrefs of rank 4, the LSE, the scale, then q, k, v descale.
  ASSERT_EQ(params.size(), size_t(4 * 11 + 9 + 1 + 3));
  EXPECT_EQ(params.value<float>(53), 0.125f);
  EXPECT_EQ(params.value<float>(54), 0.25f);
  EXPECT_EQ(params.value<float>(55), 0.5f);
  EXPECT_EQ(params.value<float>(56), 2.0f);
  // V's sizes [B, Hkv, Dv, Nk] and strides (the third memref, from 22).
  EXPECT_EQ(params.value<int64_t>(22 + 3 + 2), 128);
  EXPECT_EQ(params.value<int64_t>(22 + 3 + 3), 1008);
  EXPECT_EQ(params.value<int64_t>(22 + 7 + 2), 1008);
  EXPECT_EQ(params.value<int64_t>(22 + 7 + 3), 1);
}

// ALiBi: kernels built with it serve exactly the problems that ask for it;
// the slopes are a run-time array [Hq] f32, passed before the scale.
const char *kAlibiManifest = R"(
kernel name=p ptx=p.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=128 threads=384 smem=200000 abi=memref
kernel name=a ptx=a.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=1 block_m=128 threads=384 smem=200000 abi=memref alibi=1
)";

TEST(Alibi, KernelsServeExactlyTheirProblems) {
  Manifest m;
  ASSERT_TRUE(parseManifest(kAlibiManifest, "manifest.txt", m).ok());
  EXPECT_FALSE(m.kernels[0].alibi);
  EXPECT_TRUE(m.kernels[1].alibi);
  EXPECT_NE(formatManifestLine(m.kernels[1]).find(" alibi=1"),
            std::string::npos);
  ForwardProblem p;
  p.headsQ = 8;
  p.headsKV = 2;
  p.seqQ = p.seqK = 4096;
  p.headDim = p.headDimV = 128;
  p.causal = true;
  p.withLse = true;
  const KernelEntry *k = nullptr;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "p");
  p.alibi = true;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "a");
  // Without the non-ALiBi kernel, a plain problem is not served by it.
  Manifest only;
  ASSERT_TRUE(
      parseManifest(
          std::string(kAlibiManifest)
              .substr(std::string(kAlibiManifest).find("kernel name=a")),
          "manifest.txt", only)
          .ok());
  p.alibi = false;
  Status s = selectKernel(only, p, 9, 0, k);
  EXPECT_EQ(s.code(), StatusCode::NotInBundle);
  EXPECT_NE(s.message().find("without ALiBi (this bundle's kernels for it "
                             "have it)"),
            std::string::npos)
      << s.message();
  Manifest bad;
  EXPECT_FALSE(
      parseManifest(
          std::string(kAlibiManifest)
                  .substr(0, std::string(kAlibiManifest).find("alibi=1")) +
              "alibi=yes\n",
          "manifest.txt", bad)
          .ok());
}

TEST(Alibi, ProblemRules) {
  ForwardProblem p;
  p.headsQ = 32;
  p.headsKV = 8;
  p.seqQ = 1;
  p.seqK = 65536;
  p.headDim = p.headDimV = 128;
  p.alibi = true;
  EXPECT_TRUE(checkProblem(p).ok());
  // The slope is per query head: GQA decoding does not pack heads into rows.
  EXPECT_EQ(packQueryHeads(p).seqQ, 1);
  // Not causal, the kernel adds slope/scale·|i − j| to the unscaled scores:
  // a scale below 2^-64 is refused (causal ALiBi multiplies instead).
  p.scale = 0x1p-70;
  Status tiny = checkProblem(p);
  EXPECT_EQ(tiny.code(), StatusCode::Unsupported);
  EXPECT_NE(tiny.message().find("ALiBi without a causal mask at a scale "
                                "below 2^-64"),
            std::string::npos)
      << tiny.message();
  p.causal = true;
  EXPECT_TRUE(checkProblem(p).ok());
  p.causal = false;
  p.scale = 0;
  p.softcap = 50;
  Status s = checkProblem(p);
  EXPECT_EQ(s.code(), StatusCode::Unsupported);
  EXPECT_NE(s.message().find("ALiBi with a soft-cap"), std::string::npos);
  p.softcap = 0;
  p.kvLayout = KVLayout::SeqLens;
  s = checkProblem(p);
  EXPECT_EQ(s.code(), StatusCode::Unsupported);
  EXPECT_NE(s.message().find("ALiBi with a seqlens KV layout"),
            std::string::npos)
      << s.message();
  // The slopes: given exactly when asked for, 4-byte aligned, not under an
  // output.
  p.kvLayout = KVLayout::Dense;
  const void *q = at(1 << 10), *kk = at(2 << 10), *v = at(3 << 10),
             *o = at(4 << 10);
  s = checkPointers(p, q, kk, v, o, nullptr);
  EXPECT_NE(s.message().find("alibi slopes are null but the problem asks for "
                             "ALiBi"),
            std::string::npos);
  p.alibiSlopes = static_cast<const float *>(at(5 << 10));
  EXPECT_TRUE(checkPointers(p, q, kk, v, o, nullptr).ok());
  p.alibiSlopes = reinterpret_cast<const float *>((uintptr_t(5) << 30) + 2);
  s = checkPointers(p, q, kk, v, o, nullptr);
  EXPECT_NE(s.message().find("are not 4-byte aligned"), std::string::npos);
  p.alibiSlopes = static_cast<const float *>(o);
  s = checkPointers(p, q, kk, v, o, nullptr);
  EXPECT_NE(s.message().find("an output overlaps the alibi slopes"),
            std::string::npos);
  p.alibi = false;
  p.alibiSlopes = static_cast<const float *>(at(5 << 10));
  s = checkPointers(p, q, kk, v, o, nullptr);
  EXPECT_NE(s.message().find("alibi slopes are given but the problem does "
                             "not ask for ALiBi"),
            std::string::npos);
}

TEST(Alibi, KernelParameters) {
  ForwardProblem p;
  p.headsQ = 4;
  p.seqQ = p.seqK = 64;
  p.headDim = p.headDimV = 64;
  AttentionShape shape = kernelShape(p);
  float lse;
  const float *slopes = static_cast<const float *>(at(9));
  KernelParams params = memrefAttentionParams(shape, at(1), at(2), at(3),
                                              const_cast<void *>(at(4)), &lse,
                                              0.125f, nullptr, nullptr, slopes);
  // 4 memrefs of rank 4, the LSE, the slopes [Hq], the scale.
  ASSERT_EQ(params.size(), size_t(4 * 11 + 9 + 5 + 1));
  EXPECT_EQ(params.pointer(53), static_cast<const void *>(slopes));
  EXPECT_EQ(params.value<int64_t>(56), 4); // size Hq
  EXPECT_EQ(params.value<int64_t>(57), 1); // stride
  EXPECT_EQ(params.value<float>(58), 0.125f);
}

// A score bias: kernels built for one bias type serve exactly the problems
// with a bias of that type; the bias is a run-time memref [1|B, 1|Hq, Nq,
// Nk] passed after ALiBi's slopes, before the scale.
const char *kBiasManifest = R"(
kernel name=p ptx=p.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=128 threads=384 smem=200000 abi=memref
kernel name=b ptx=b.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=128 threads=384 smem=200000 abi=memref bias=bf16
kernel name=f ptx=f.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=128 threads=384 smem=200000 abi=memref bias=f32
)";

TEST(Bias, KernelsServeExactlyTheirProblems) {
  Manifest m;
  ASSERT_TRUE(parseManifest(kBiasManifest, "manifest.txt", m).ok());
  EXPECT_FALSE(m.kernels[0].bias);
  EXPECT_TRUE(m.kernels[1].bias);
  EXPECT_EQ(m.kernels[1].biasType, DType::BF16);
  EXPECT_EQ(m.kernels[2].biasType, DType::F32);
  EXPECT_NE(formatManifestLine(m.kernels[1]).find(" bias=bf16"),
            std::string::npos);
  ForwardProblem p;
  p.headsQ = 8;
  p.seqQ = p.seqK = 4096;
  p.headDim = p.headDimV = 128;
  p.withLse = true;
  const KernelEntry *k = nullptr;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "p");
  p.bias = true;
  p.biasType = DType::BF16;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "b");
  p.biasType = DType::F32;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "f");
  // Only the bf16-bias kernel: neither an f32 bias nor none is served.
  Manifest only;
  std::string text = kBiasManifest;
  ASSERT_TRUE(parseManifest(text.substr(text.find("kernel name=b"),
                                        text.find("kernel name=f") -
                                            text.find("kernel name=b")),
                            "manifest.txt", only)
                  .ok());
  Status s = selectKernel(only, p, 9, 0, k);
  EXPECT_EQ(s.code(), StatusCode::NotInBundle);
  EXPECT_NE(s.message().find("with a f32 score bias (this bundle's kernels "
                             "for it have none or another bias type)"),
            std::string::npos)
      << s.message();
  p.bias = false;
  s = selectKernel(only, p, 9, 0, k);
  EXPECT_NE(s.message().find("without a score bias"), std::string::npos)
      << s.message();
  Manifest bad;
  for (const char *value : {"e4m3", "yes", ""})
    EXPECT_FALSE(parseManifest(text.substr(0, text.find("bias=bf16")) +
                                   "bias=" + value + "\n",
                               "manifest.txt", bad)
                     .ok())
        << value;
}

// A kernel that reads its bias by bulk copies (a tensor map of memref
// argument 5: after q, k, v, o and the LSE) serves biases whose base and
// rows are 16-byte aligned; its twin that reads the bias element by
// element serves the rest, and the bulk one is preferred where both serve.
TEST(Bias, BulkKernelsServeAlignedRows) {
  Manifest m;
  ASSERT_TRUE(
      parseManifest("kernel name=bulk ptx=b.ptx chip=sm_90a dtype=bf16 "
                    "head_dim=128 causal=0 block_m=128 threads=384 smem=200000 "
                    "abi=memref bias=bf16 tensor_maps=0:128,1:64,5:128,2:64\n"
                    "kernel name=rows ptx=r.ptx chip=sm_90a dtype=bf16 "
                    "head_dim=128 causal=0 block_m=128 threads=384 smem=200000 "
                    "abi=memref bias=bf16 tensor_maps=0:128,1:64,2:64\n",
                    "manifest.txt", m)
          .ok());
  EXPECT_TRUE(m.kernels[0].readsBiasInBulk());
  EXPECT_FALSE(m.kernels[1].readsBiasInBulk());
  EXPECT_EQ(biasArgument(/*lse=*/true, /*alibi=*/false), 5);
  EXPECT_EQ(biasArgument(/*lse=*/false, /*alibi=*/true), 5);
  ForwardProblem p;
  p.headsQ = 8;
  p.seqQ = p.seqK = 4096;
  p.headDim = p.headDimV = 128;
  p.withLse = true;
  p.bias = true;
  p.biasType = DType::BF16;
  alignas(16) static uint16_t storage[64];
  p.biasData = storage;
  EXPECT_TRUE(p.biasBulk());
  const KernelEntry *k = nullptr;
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "bulk");
  // Rows of 4097 bf16 keys are not whole 16 bytes: the element twin.
  p.seqK = 4097;
  EXPECT_FALSE(p.biasBulk());
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "rows");
  // Nor is a base 2 bytes past 16-byte alignment.
  p.seqK = 4096;
  p.biasData = storage + 1;
  EXPECT_FALSE(p.biasBulk());
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "rows");
  // Without the twin that bias finds no kernel (libattn_jit compiles one).
  m.kernels.pop_back();
  EXPECT_EQ(selectKernel(m, p, 9, 0, k).code(), StatusCode::NotInBundle);
  // A broadcast head dim (1) takes any stride.
  p.biasData = storage;
  p.biasHeads = 1;
  p.biasStrides = {0, 3, 4096, 1};
  EXPECT_TRUE(p.biasBulk());
  ASSERT_TRUE(selectKernel(m, p, 9, 0, k).ok());
  EXPECT_EQ(k->name, "bulk");
}

TEST(Bias, ProblemRules) {
  ForwardProblem p;
  p.batch = 2;
  p.headsQ = 32;
  p.headsKV = 8;
  p.seqQ = 3;
  p.seqK = 1000;
  p.headDim = p.headDimV = 128;
  p.bias = true;
  p.biasType = DType::BF16;
  EXPECT_TRUE(checkProblem(p).ok());
  // The bias is per query head: a few query rows of GQA keep their heads.
  EXPECT_FALSE(packQueryHeads(p).packHeads);
  p.biasHeads = 8;
  Status s = checkProblem(p);
  EXPECT_NE(s.message().find("bias heads (8) must be 1 or heads_q (32)"),
            std::string::npos)
      << s.message();
  p.biasHeads = 32;
  p.kvLayout = KVLayout::SeqLens;
  s = checkProblem(p);
  EXPECT_EQ(s.code(), StatusCode::Unsupported);
  EXPECT_NE(s.message().find("a score bias with a seqlens KV layout"),
            std::string::npos)
      << s.message();
  p.kvLayout = KVLayout::Dense;
  // Element strides (rows of any length); 32-bit row offsets within a tile.
  p.biasStrides = {0, 3 * 1001, 1001, 1};
  EXPECT_TRUE(checkProblem(p).ok());
  p.biasStrides.seq = int64_t(1) << 30;
  s = checkProblem(p);
  EXPECT_EQ(s.code(), StatusCode::Unsupported);
  EXPECT_NE(s.message().find("bias: seq stride"), std::string::npos)
      << s.message();
  p.biasStrides = Strides();
  // The pointer: given, aligned to its element, not under an output.
  const void *q = at(1 << 10), *kk = at(2 << 10), *v = at(3 << 10),
             *o = at(4 << 10);
  s = checkPointers(p, q, kk, v, o, nullptr);
  EXPECT_NE(s.message().find("bias is null but the problem asks for a bias"),
            std::string::npos)
      << s.message();
  p.biasData = at(5 << 10);
  EXPECT_TRUE(checkPointers(p, q, kk, v, o, nullptr).ok());
  p.biasData = reinterpret_cast<const void *>((uintptr_t(5) << 30) + 1);
  s = checkPointers(p, q, kk, v, o, nullptr);
  EXPECT_NE(s.message().find("is not aligned to its bf16 elements"),
            std::string::npos)
      << s.message();
  p.biasData = o;
  s = checkPointers(p, q, kk, v, o, nullptr);
  EXPECT_NE(s.message().find("an output overlaps the bias"), std::string::npos)
      << s.message();
  // Given without a bias.
  p.bias = false;
  s = checkProblem(p);
  EXPECT_NE(s.message().find("bias data, strides or dims are given but the "
                             "problem has no bias"),
            std::string::npos)
      << s.message();
}

TEST(Bias, KernelParameters) {
  ForwardProblem p;
  p.headsQ = 4;
  p.seqQ = p.seqK = 64;
  p.headDim = p.headDimV = 64;
  AttentionShape shape = kernelShape(p);
  float lse;
  const float *slopes = static_cast<const float *>(at(9));
  BiasArgs bias;
  bias.data = at(10);
  const int64_t sizes[4] = {1, 4, 64, 64}, strides[4] = {0, 4096, 64, 1};
  std::copy(sizes, sizes + 4, bias.sizes);
  std::copy(strides, strides + 4, bias.strides);
  KernelParams params = memrefAttentionParams(
      shape, at(1), at(2), at(3), const_cast<void *>(at(4)), &lse, 0.125f,
      nullptr, nullptr, slopes, nullptr, &bias);
  // 4 memrefs of rank 4, the LSE, the slopes [Hq], the bias, the scale.
  ASSERT_EQ(params.size(), size_t(4 * 11 + 9 + 5 + 11 + 1));
  EXPECT_EQ(params.pointer(53), static_cast<const void *>(slopes));
  EXPECT_EQ(params.pointer(58), bias.data);
  EXPECT_EQ(params.value<int64_t>(61), 1);    // size: batch broadcast
  EXPECT_EQ(params.value<int64_t>(62), 4);    // heads
  EXPECT_EQ(params.value<int64_t>(66), 4096); // head stride
  EXPECT_EQ(params.value<int64_t>(68), 1);    // key stride
  EXPECT_EQ(params.value<float>(69), 0.125f);
}

namespace {
// The backward's two kernels for bf16 D = 64 (causal and not) on sm_80, a
// forward beside them that must never serve it.
const char *kGradManifest = R"(
kernel name=f64 ptx=f.ptx chip=sm_80 dtype=bf16 head_dim=64 causal=0 block_m=64 threads=128 smem=0 abi=memref
kernel name=g ptx=g.ptx chip=sm_80 dtype=bf16 head_dim=64 causal=0 block_m=64 threads=128 smem=0 abi=memref program=grad_q grid=q_blocks,heads_q,batch
kernel name=g_1 ptx=g_1.ptx chip=sm_80 dtype=bf16 head_dim=64 causal=0 block_m=64 block_n=32 threads=128 smem=0 abi=memref program=grad_kv grid=kv_blocks,heads_kv,batch
kernel name=gc ptx=gc.ptx chip=sm_80 dtype=bf16 head_dim=64 causal=1 block_m=64 threads=128 smem=0 abi=memref program=grad_q grid=q_blocks,heads_q,batch
kernel name=gc_1 ptx=gc_1.ptx chip=sm_80 dtype=bf16 head_dim=64 causal=1 block_m=64 block_n=32 threads=128 smem=0 abi=memref program=grad_kv grid=kv_blocks,heads_kv,batch
)";

BackwardProblem gradProblem() {
  BackwardProblem p;
  p.dtype = DType::BF16;
  p.batch = 2;
  p.headsQ = 4;
  p.headsKV = 2;
  p.seqQ = 100;
  p.seqK = 300;
  p.headDim = p.headDimV = 64;
  return p;
}

void expectStatus(const Status &s, StatusCode code, const std::string &needle) {
  EXPECT_EQ(s.code(), code) << s.message();
  EXPECT_NE(s.message().find(needle), std::string::npos)
      << "message: " << s.message() << "\nwanted:  " << needle;
}
} // namespace

TEST(Backward, FindsBothKernelsOfItsMask) {
  Manifest m;
  ASSERT_TRUE(parseManifest(kGradManifest, "manifest.txt", m).ok());
  BackwardProblem p = gradProblem();
  std::vector<const KernelEntry *> q, kv;
  ASSERT_TRUE(findBackwardKernels(m, p, q, kv).ok());
  ASSERT_EQ(q.size(), 1u);
  ASSERT_EQ(kv.size(), 1u);
  EXPECT_EQ(q[0]->name, "g");
  EXPECT_EQ(kv[0]->name, "g_1");
  p.causal = true;
  ASSERT_TRUE(findBackwardKernels(m, p, q, kv).ok());
  EXPECT_EQ(q[0]->name, "gc");
  EXPECT_EQ(kv[0]->name, "gc_1");
  // What the bundle lacks names what it has.
  p.headDim = p.headDimV = 128;
  Status s = findBackwardKernels(m, p, q, kv);
  expectStatus(s, StatusCode::NotInBundle,
               "the backward for causal bf16 head dim 128 (this bundle has it "
               "for bf16 d64, bf16 d64 causal)");
  EXPECT_TRUE(q.empty() && kv.empty());
  // A kernel serves exactly its score variant: the plain pair does not
  // serve a window's backward, and the message names the variant.
  p = gradProblem();
  p.windowLeft = 32;
  expectStatus(findBackwardKernels(m, p, q, kv), StatusCode::NotInBundle,
               "the backward for bf16 head dim 64 with a window of (32, -1)");
  // A bundle with only one of the two kernels serves nothing.
  Manifest half;
  ASSERT_TRUE(parseManifest("kernel name=g ptx=g.ptx chip=sm_80 dtype=bf16 "
                            "head_dim=64 causal=0 block_m=64 threads=128 "
                            "smem=0 abi=memref program=grad_q\n",
                            "manifest.txt", half)
                  .ok());
  p = gradProblem();
  expectStatus(findBackwardKernels(half, p, q, kv), StatusCode::NotInBundle,
               "the backward for bf16 head dim 64");
  // The dQ-workspace form's grids are not the runtime's: a grad_prep
  // entry beside the pair is not taken for a grad_kv.
  Manifest ws;
  ASSERT_TRUE(parseManifest(std::string(kGradManifest) +
                                "kernel name=w ptx=w.ptx chip=sm_80 "
                                "dtype=bf16 head_dim=64 causal=0 block_m=64 "
                                "threads=128 smem=0 abi=memref "
                                "program=grad_prep\n",
                            "manifest.txt", ws)
                  .ok());
  ASSERT_TRUE(findBackwardKernels(ws, p, q, kv).ok());
  ASSERT_EQ(q.size(), 1u);
  ASSERT_EQ(kv.size(), 1u);
  EXPECT_EQ(kv[0]->name, "g_1");
}

TEST(Backward, ProblemRules) {
  BackwardProblem p = gradProblem();
  EXPECT_TRUE(checkBackwardProblem(p).ok());
  // The forward's own rules hold.
  p.headsQ = 3;
  expectStatus(checkBackwardProblem(p), StatusCode::InvalidArgument,
               "heads_q (3) must be a multiple of heads_kv (2)");
  p = gradProblem();
  p.seqK = 0;
  expectStatus(checkBackwardProblem(p), StatusCode::InvalidArgument,
               "seq_k must be >= 1");
  // What the backward does not have.
  p = gradProblem();
  p.dtype = DType::F32;
  expectStatus(checkBackwardProblem(p), StatusCode::Unsupported,
               "unsupported: an f32 backward on the GPU");
  p.dtype = DType::E4M3;
  expectStatus(checkBackwardProblem(p), StatusCode::Unsupported,
               "unsupported: the backward of an e4m3 (fp8) forward");
  // The backward of a dropout forward (the same rate, key and offset),
  // under the forward's rules.
  p = gradProblem();
  p.dropout = true;
  p.dropoutRate = 0.1f;
  EXPECT_TRUE(checkBackwardProblem(p).ok());
  p.dropoutRate = 1.0f;
  expectStatus(checkBackwardProblem(p), StatusCode::InvalidArgument,
               "dropout rate must be in [0, 1), got 1.0");
  // The forward's score variants, under the forward's rules.
  p = gradProblem();
  p.windowLeft = 16;
  EXPECT_TRUE(checkBackwardProblem(p).ok());
  p.causal = true;
  p.windowRight = 4;
  expectStatus(checkBackwardProblem(p), StatusCode::InvalidArgument, "window");
  p = gradProblem();
  p.softcap = 30;
  EXPECT_TRUE(checkBackwardProblem(p).ok());
  p.softcap = -1;
  expectStatus(checkBackwardProblem(p), StatusCode::InvalidArgument, "softcap");
  p = gradProblem();
  p.alibi = true;
  EXPECT_TRUE(checkBackwardProblem(p).ok());
  p.softcap = 30;
  expectStatus(checkBackwardProblem(p), StatusCode::Unsupported,
               "ALiBi with a soft-cap");
  // The gradients' strides: as the forward's tensors', and an output may
  // not overlap itself.
  p = gradProblem();
  p.dQ = {100 * 4 * 64, 64, 4 * 64, 2};
  expectStatus(checkBackwardProblem(p), StatusCode::InvalidArgument,
               "dq: the last dim must be contiguous");
  p = gradProblem();
  p.dK = {300 * 2 * 64, 64, 60, 1};
  expectStatus(checkBackwardProblem(p), StatusCode::InvalidArgument,
               "dk: seq stride 60 is not a multiple of 8 elements");
  p = gradProblem();
  p.dV = {0, 300 * 64, 64, 1};
  expectStatus(checkBackwardProblem(p), StatusCode::InvalidArgument,
               "dv: the strides make distinct outputs overlap");
  // dO is an input: a broadcast over the batch is fine.
  p = gradProblem();
  p.dO = {0, 100 * 64, 64, 1};
  EXPECT_TRUE(checkBackwardProblem(p).ok());
}

TEST(Backward, GradientsDefaultToTheLayoutOfWhatTheyDifferentiate) {
  BackwardProblem p = gradProblem();
  // Q, K, V, O in [B, N, H, D] storage; the gradients follow them.
  p.q = p.dO = {100 * 4 * 64, 64, 4 * 64, 1};
  p.o = {100 * 4 * 64, 64, 4 * 64, 1};
  p.k = p.v = {300 * 2 * 64, 64, 2 * 64, 1};
  GradStrides g;
  AttentionShape s = kernelShape(p, g);
  EXPECT_EQ(g.dQ[2], 4 * 64);
  EXPECT_EQ(g.dK[2], 2 * 64);
  EXPECT_EQ(g.dV[1], 64);
  EXPECT_EQ(g.dO[0], 100 * 4 * 64);
  EXPECT_EQ(s.q[2], 4 * 64);
  // Own strides win; a dim of extent 1 gets 0.
  p.batch = 1;
  p.dQ = contiguousStrides(4, 100, 64);
  s = kernelShape(p, g);
  EXPECT_EQ(g.dQ[0], 0);
  EXPECT_EQ(g.dQ[2], 64);
  EXPECT_EQ(gradExtents(p).dQ, uint64_t(4 * 100 * 64 * 2));
}

TEST(Backward, Pointers) {
  BackwardProblem p = gradProblem();
  // Each tensor in its own MiB.
  const void *dO = at(1), *q = at(2), *k = at(3), *v = at(4), *o = at(5),
             *dq = at(7), *dk = at(8), *dv = at(9);
  const float *lse = static_cast<const float *>(at(6));
  EXPECT_TRUE(
      checkBackwardPointers(p, dO, q, k, v, o, lse, const_cast<void *>(dq),
                            const_cast<void *>(dk), const_cast<void *>(dv))
          .ok());
  auto expectPtr = [&](const void *a, const float *l, const void *b,
                       const void *c, const std::string &needle) {
    expectStatus(
        checkBackwardPointers(p, a, q, k, v, o, l, const_cast<void *>(b),
                              const_cast<void *>(c), const_cast<void *>(dv)),
        StatusCode::InvalidArgument, needle);
  };
  expectPtr(nullptr, lse, dq, dk, "do is null");
  expectPtr(dO, nullptr, dq, dk, "lse is null (the backward reads");
  expectPtr(dO, lse, nullptr, dk, "dq is null");
  expectPtr(static_cast<const char *>(dO) + 8, lse, dq, dk, "do (0x");
  expectPtr(dO, lse, k, dk, "dq overlaps k");
  expectPtr(dO, lse, dq, lse, "dk overlaps lse");
  expectPtr(dO, lse, dq, dv, "dv overlaps dk");
  expectPtr(dO, lse, static_cast<const char *>(dk) + 1024, dk,
            "dk overlaps dq");
  // ALiBi's slopes: given exactly when asked for, and never written over.
  p.alibi = true;
  expectPtr(dO, lse, dq, dk, "alibi slopes are null");
  p.alibiSlopes = static_cast<const float *>(at(10));
  EXPECT_TRUE(
      checkBackwardPointers(p, dO, q, k, v, o, lse, const_cast<void *>(dq),
                            const_cast<void *>(dk), const_cast<void *>(dv))
          .ok());
  p.alibiSlopes = static_cast<const float *>(dk);
  expectPtr(dO, lse, dq, dk, "dk overlaps the alibi slopes");
  // The backward only reads O and the LSE: slopes beside them are fine.
  p.alibiSlopes = lse;
  EXPECT_TRUE(
      checkBackwardPointers(p, dO, q, k, v, o, lse, const_cast<void *>(dq),
                            const_cast<void *>(dk), const_cast<void *>(dv))
          .ok());
}

TEST(Backward, KernelParameters) {
  BackwardProblem p = gradProblem();
  GradStrides g;
  AttentionShape s = kernelShape(p, g);
  float lse, delta;
  KernelParams params = memrefGradParams(
      s, g, at(1), at(2), at(3), at(4), at(5), &lse, const_cast<void *>(at(7)),
      const_cast<void *>(at(8)), const_cast<void *>(at(9)), &delta, 0.125f);
  // 8 memrefs of rank 4, the LSE and Δ of rank 3, the scale: the
  // attn.attention_grad function's arguments in order.
  ASSERT_EQ(params.size(), size_t(8 * 11 + 2 * 9 + 1));
  EXPECT_EQ(params.pointer(0), at(1));           // dO
  EXPECT_EQ(params.value<int64_t>(6), 64);       // dO's Dv
  EXPECT_EQ(params.pointer(11), at(2));          // q
  EXPECT_EQ(params.pointer(55), &lse);           // lse
  EXPECT_EQ(params.pointer(64), at(7));          // dq
  EXPECT_EQ(params.value<int64_t>(64 + 4), 4);   // dq's Hq
  EXPECT_EQ(params.pointer(75), at(8));          // dk
  EXPECT_EQ(params.value<int64_t>(75 + 4), 2);   // dk's Hkv
  EXPECT_EQ(params.value<int64_t>(75 + 5), 300); // dk's Nk
  EXPECT_EQ(params.pointer(86), at(9));          // dv
  EXPECT_EQ(params.pointer(97), &delta);         // Δ
  EXPECT_EQ(params.value<int64_t>(97 + 7), 100); // Δ's head stride: Nq
  EXPECT_EQ(params.value<float>(106), 0.125f);
  // ALiBi's slopes [Hq] just before the scale, as the forward's.
  float slopes[4];
  params =
      memrefGradParams(s, g, at(1), at(2), at(3), at(4), at(5), &lse,
                       const_cast<void *>(at(7)), const_cast<void *>(at(8)),
                       const_cast<void *>(at(9)), &delta, 0.125f, slopes);
  ASSERT_EQ(params.size(), size_t(8 * 11 + 2 * 9 + 5 + 1));
  EXPECT_EQ(params.pointer(106), slopes);
  EXPECT_EQ(params.value<int64_t>(106 + 3), 4); // Hq
  EXPECT_EQ(params.value<float>(111), 0.125f);
}

// The runtime's lookups through a KernelIndex find exactly what a scan of
// every manifest line finds (the same kernels in the same order, the same
// status and message), over a bundle of many variants and random problems.
TEST(KernelIndex, LookupsMatchTheWholeScan) {
  std::string text;
  int n = 0;
  auto line = [&](const std::string &rest) {
    text += "kernel name=k" + std::to_string(n) + " ptx=k" + std::to_string(n) +
            ".ptx " + rest + " abi=memref\n";
    ++n;
  };
  for (const char *chip : {"sm_80", "sm_90a"})
    for (const char *dt : {"f16", "bf16"})
      for (auto [d, dv] :
           {std::pair{64, 64}, {128, 128}, {256, 256}, {192, 128}})
        for (int causal : {0, 1})
          for (int lse : {0, 1}) {
            std::string head = std::string("chip=") + chip + " dtype=" + dt +
                               " head_dim=" + std::to_string(d) +
                               " head_dim_v=" + std::to_string(dv) +
                               " causal=" + std::to_string(causal) +
                               " block_m=128 block_n=64 threads=256 smem=1" +
                               " lse=" + std::to_string(lse);
            line(head);
            if (d == 64 && !causal)
              line(head + " min_seq_q=2048");
            if (d == 128) {
              line(head + " window=128,-1");
              line(head + " kv=seqlens");
              line(head + " kv=paged");
              line(head + " kv=paged page=16");
            }
            if (lse)
              line(head + " program=split_kv");
            if (!causal)
              line(head + " program=merge_splits");
          }
  Manifest m;
  ASSERT_TRUE(parseManifest(text, "m.txt", m).ok());
  const KernelIndex index(m);
  std::mt19937 rng(7);
  auto pick = [&](auto... options) {
    const int64_t values[] = {int64_t(options)...};
    return values[rng() % sizeof...(options)];
  };
  int found = 0, splits = 0, selected = 0;
  for (int i = 0; i < 3000; ++i) {
    ForwardProblem p;
    p.dtype = rng() % 2 ? DType::BF16 : DType::F16;
    if (rng() % 10 == 0)
      p.dtype = DType::F32;
    p.headDim = pick(64, 128, 192, 256, 96);
    p.headDimV = rng() % 4 ? (p.headDim == 192 ? 128 : p.headDim) : 64;
    p.causal = rng() % 2;
    p.withLse = rng() % 2;
    p.batch = 2;
    p.headsQ = p.headsKV = 2;
    p.seqQ = pick(1, 64, 2048, 4096);
    p.seqK = 4096;
    p.kvLayout = static_cast<KVLayout>(pick(0, 0, 1, 2));
    p.pageSize = p.paged() ? pick(16, 64, 128) : 0;
    p.maxPages = p.paged() ? p.seqK / p.pageSize : 0;
    p.numPages = p.maxPages * p.batch;
    if (rng() % 8 == 0)
      p.windowLeft = 128;
    std::vector<const KernelEntry *> a, b, sa, ma, sb, mb;
    Status sa1 = findKernels(m, p, a), sb1 = findKernels(m, p, b, &index);
    EXPECT_EQ(sa1.code(), sb1.code());
    EXPECT_EQ(sa1.message(), sb1.message());
    EXPECT_EQ(a, b);
    found += !a.empty();
    Status sa2 = findSplitKernels(m, p, sa, ma),
           sb2 = findSplitKernels(m, p, sb, mb, &index);
    EXPECT_EQ(sa2.code(), sb2.code());
    EXPECT_EQ(sa, sb);
    EXPECT_EQ(ma, mb);
    splits += !sa.empty();
    const KernelEntry *ka = nullptr, *kb = nullptr;
    Status sa3 = selectKernel(m, p, 9, 0, ka),
           sb3 = selectKernel(m, p, 9, 0, kb, &index);
    EXPECT_EQ(sa3.message(), sb3.message());
    EXPECT_EQ(ka, kb);
    selected += ka != nullptr;
  }
  // An index of another manifest is not used for this one.
  Manifest other = m;
  other.kernels.resize(1);
  ForwardProblem q;
  q.dtype = DType::BF16;
  q.headDim = q.headDimV = 128;
  q.batch = q.headsQ = q.headsKV = 1;
  q.seqQ = q.seqK = 64;
  std::vector<const KernelEntry *> none;
  EXPECT_EQ(findKernels(other, q, none, &index).code(),
            findKernels(other, q, none).code());
  for (const KernelEntry *k : none)
    EXPECT_EQ(k, &other.kernels[0]);
  // The sweep reaches both outcomes of each lookup.
  EXPECT_GT(found, 300);
  EXPECT_LT(found, 2700);
  EXPECT_GT(splits, 100);
  EXPECT_GT(selected, 300);
}
