//===- KernelABITest.cpp - kernel parameters and the choice by LSE -*- C++ -*-//
//
// The parameter arrays a launch hands to cuLaunchKernel, read back value by
// value through the same void ** the driver reads, and which kernel a
// forward gets with and without LSE. No GPU needed.
//
//===----------------------------------------------------------------------===//
#include "attn/runtime/KernelABI.h"
#include "attn/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <set>
#include <vector>

using namespace attn;
using Kind = KernelParams::Kind;

namespace {

/// Parameter i of the launch array, read as the driver reads it.
template <typename T> T param(KernelParams &p, size_t i) {
  T out;
  std::memcpy(&out, p.data()[i], sizeof(T));
  return out;
}

uint64_t bits(const void *p) {
  return uint64_t(reinterpret_cast<uintptr_t>(p));
}

const void *fakePtr(uintptr_t v) { return reinterpret_cast<const void *>(v); }

/// Parameters [at, at + 3 + 2r) are the descriptor of a memref at `ptr`.
void expectMemref(KernelParams &p, size_t at, const void *ptr,
                  const std::vector<int64_t> &sizes,
                  const std::vector<int64_t> &strides) {
  ASSERT_EQ(sizes.size(), strides.size());
  const size_t r = sizes.size();
  ASSERT_LE(at + memrefParamCount(r), p.size());
  EXPECT_EQ(p.kind(at), Kind::Ptr);
  EXPECT_EQ(param<uint64_t>(p, at), bits(ptr)) << "allocated ptr at " << at;
  EXPECT_EQ(p.kind(at + 1), Kind::Ptr);
  EXPECT_EQ(param<uint64_t>(p, at + 1), bits(ptr)) << "aligned ptr";
  EXPECT_EQ(p.kind(at + 2), Kind::I64);
  EXPECT_EQ(param<int64_t>(p, at + 2), 0) << "offset";
  for (size_t i = 0; i < r; ++i) {
    EXPECT_EQ(p.kind(at + 3 + i), Kind::I64);
    EXPECT_EQ(param<int64_t>(p, at + 3 + i), sizes[i]) << "size " << i;
    EXPECT_EQ(p.kind(at + 3 + r + i), Kind::I64);
    EXPECT_EQ(param<int64_t>(p, at + 3 + r + i), strides[i]) << "stride " << i;
  }
}

//===----------------------------------------------------------------------===//
// KernelParams
//===----------------------------------------------------------------------===//

TEST(KernelParams, Memref4D) {
  KernelParams p;
  const void *q = fakePtr(0x7f0012345600);
  ASSERT_TRUE(p.addMemref(q, {2, 8, 130, 128}, {133120, 16640, 128, 1}));
  EXPECT_EQ(memrefParamCount(4), 11u);
  ASSERT_EQ(p.size(), 11u);
  const int64_t want[] = {0, 2, 8, 130, 128, 133120, 16640, 128, 1};
  EXPECT_EQ(param<uint64_t>(p, 0), 0x7f0012345600u);
  EXPECT_EQ(param<uint64_t>(p, 1), 0x7f0012345600u);
  for (size_t i = 0; i < 9; ++i)
    EXPECT_EQ(param<int64_t>(p, 2 + i), want[i]) << "parameter " << 2 + i;
  EXPECT_EQ(p.pointer(0), q);
  EXPECT_EQ(p.value<int64_t>(7), 133120); // the first stride
}

TEST(KernelParams, Memref3DAndF32) {
  KernelParams p;
  const void *lse = fakePtr(0x7f00aa000040);
  // Any container of int64: sizes from a vector, strides from a std::array;
  // values beyond 32 bits stay whole.
  std::vector<int64_t> sizes = {3, 5, int64_t(1) << 33};
  std::array<int64_t, 3> strides = {int64_t(5) << 33, int64_t(1) << 33, 1};
  ASSERT_TRUE(p.addMemref(lse, sizes, strides));
  p.addF32(0.08838834764f);
  EXPECT_EQ(memrefParamCount(3), 9u);
  ASSERT_EQ(p.size(), 10u);
  expectMemref(p, 0, lse, sizes, {strides.begin(), strides.end()});
  EXPECT_EQ(p.kind(9), Kind::F32);
  EXPECT_EQ(param<float>(p, 9), 0.08838834764f);
}

TEST(KernelParams, ScalarsAndMismatchedMemref) {
  KernelParams p;
  p.addI32(-7);
  p.addI64(int64_t(1) << 40);
  p.addPtr(nullptr);
  p.addF32(-0.5f);
  // Sizes and strides of different lengths: refused, nothing added.
  EXPECT_FALSE(p.addMemref(fakePtr(16), {1, 2, 3}, {1, 1}));
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p.kind(0), Kind::I32);
  EXPECT_EQ(param<int32_t>(p, 0), -7);
  EXPECT_EQ(param<int64_t>(p, 1), int64_t(1) << 40);
  EXPECT_EQ(param<uint64_t>(p, 2), 0u);
  EXPECT_EQ(param<float>(p, 3), -0.5f);
  EXPECT_TRUE(KernelParams().empty());
}

TEST(KernelParams, TensorMapsByValueAligned) {
  KernelParams p;
  p.addI64(7);
  unsigned char map[kTensorMapBytes];
  for (size_t i = 0; i < sizeof(map); ++i)
    map[i] = static_cast<unsigned char>(i * 3 + 1);
  p.addTensorMap(map);
  p.addF32(2.5f);
  p.addTensorMap(map);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p.kind(1), KernelParams::Kind::TensorMap);
  void **data = p.data();
  for (size_t i : {size_t(1), size_t(3)}) {
    // cuLaunchKernel reads 128 bytes from the slot: a copy, aligned as
    // cuda.h aligns CUtensorMap.
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data[i]) % 128, 0u);
    EXPECT_NE(data[i], static_cast<void *>(map));
    EXPECT_EQ(std::memcmp(data[i], map, sizeof(map)), 0);
  }
  EXPECT_NE(data[1], data[3]);
  EXPECT_EQ(*static_cast<int64_t *>(data[0]), 7);
  EXPECT_EQ(*static_cast<float *>(data[2]), 2.5f);
  // A copy owns its maps.
  KernelParams copy = p;
  void **copied = copy.data();
  EXPECT_NE(copied[1], data[1]);
  EXPECT_EQ(std::memcmp(copied[1], map, sizeof(map)), 0);
}

TEST(TensorMapGeometry, InnermostFirstInBytes) {
  // K [B=2, H=4, N=1000, D=128] bf16 in [B, N, H, D] storage: element
  // strides (N·H·D, D, H·D, 1).
  const int64_t sizes[4] = {2, 4, 1000, 128};
  const int64_t strides[4] = {1000 * 4 * 128, 128, 4 * 128, 1};
  TensorMapGeometry g;
  ASSERT_TRUE(tensorMapGeometry(sizes, strides, 2, 64, g));
  EXPECT_EQ(g.rank, 4u);
  const uint64_t dims[4] = {128, 1000, 4, 2};
  const uint64_t bytes[3] = {4 * 128 * 2, 128 * 2, 1000 * 4 * 128 * 2};
  const uint32_t box[4] = {64, 64, 1, 1}; // 128 bytes of columns
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(g.dims[d], dims[d]) << d;
    EXPECT_EQ(g.box[d], box[d]) << d;
  }
  for (int d = 0; d < 3; ++d)
    EXPECT_EQ(g.strides[d], bytes[d]) << d;
}

TEST(TensorMapGeometry, SixtyFourByteBoxes) {
  // Q [B=2, H=4, N=1000, D=96] bf16 in [B, H, N, D] storage, boxes of one
  // 64-byte slab (32 columns) by 128 rows.
  const int64_t sizes[4] = {2, 4, 1000, 96};
  const int64_t strides[4] = {4 * 1000 * 96, 1000 * 96, 96, 1};
  TensorMapGeometry g;
  ASSERT_TRUE(tensorMapGeometry(sizes, strides, 2, 128, g, 64));
  EXPECT_EQ(g.box[0], 32u);
  EXPECT_EQ(g.box[1], 128u);
  EXPECT_EQ(g.dims[0], 96u);
  EXPECT_EQ(g.strides[0], 96u * 2);
  // Only one slab's width: 128 or 64 bytes.
  EXPECT_FALSE(tensorMapGeometry(sizes, strides, 2, 128, g, 32));
  EXPECT_FALSE(tensorMapGeometry(sizes, strides, 2, 128, g, 96));
}

TEST(TensorMapGeometry, UnitDimsAndBadStrides) {
  // A dim of extent 1 comes with stride 0 (AttentionShape): it gets the
  // span of the dims inside it, a multiple of 16 bytes.
  const int64_t sizes[4] = {1, 1, 300, 64};
  const int64_t zeros[4] = {0, 0, 64, 1};
  TensorMapGeometry g;
  ASSERT_TRUE(tensorMapGeometry(sizes, zeros, 2, 128, g));
  EXPECT_EQ(g.strides[0], 128u);       // N: 64 bf16
  EXPECT_EQ(g.strides[1], 128u * 300); // H (extent 1): N's span
  EXPECT_EQ(g.strides[2], 128u * 300); // B (extent 1): H's span
  // A stepped stride that is not a multiple of 16 bytes, a zero size, a
  // rank out of 2..5: no map.
  const int64_t odd[4] = {0, 0, 68, 1};
  EXPECT_FALSE(tensorMapGeometry(sizes, odd, 2, 128, g));
  const int64_t empty[4] = {1, 1, 0, 64};
  EXPECT_FALSE(tensorMapGeometry(empty, zeros, 2, 128, g));
  const int64_t one[1] = {64};
  EXPECT_FALSE(tensorMapGeometry(I64Array(one, 1), I64Array(one, 1), 2, 64, g));
}

TEST(TensorMapSpec, AttentionArguments) {
  AttentionShape s;
  s.batch = 2, s.headsQ = 8, s.headsKV = 2, s.seqQ = 100, s.seqK = 300;
  s.headDim = 192, s.headDimV = 128;
  EXPECT_EQ(attentionArgument(s, 0).sizes[3], 192);
  EXPECT_EQ(attentionArgument(s, 1).sizes[1], 2);
  EXPECT_EQ(attentionArgument(s, 2).sizes[2], 300);
  EXPECT_EQ(attentionArgument(s, 2).sizes[3], 128);
  EXPECT_EQ(attentionArgument(s, 3).sizes[2], 100);
  EXPECT_EQ(attentionArgument(s, 3).strides, s.o);
}

TEST(KernelParams, ValuesNeverMove) {
  KernelParams p;
  p.addI64(42);
  p.addF32(1.5f);
  void *first = p.data()[0], *second = p.data()[1];
  // Enough to grow the storage many times over.
  for (int i = 0; i < 5000; ++i)
    p.addI64(i);
  ASSERT_EQ(p.size(), 5002u);
  void **a = p.data();
  EXPECT_EQ(a[0], first);
  EXPECT_EQ(a[1], second);
  int64_t v;
  std::memcpy(&v, first, sizeof(v));
  EXPECT_EQ(v, 42);
  std::set<void *> distinct(a, a + p.size());
  EXPECT_EQ(distinct.size(), p.size());
  for (size_t i = 0; i < p.size(); ++i)
    ASSERT_EQ(reinterpret_cast<uintptr_t>(a[i]) % 8, 0u) << i;
}

TEST(KernelParams, CopiesPointIntoTheirOwnValues) {
  KernelParams p;
  ASSERT_TRUE(p.addMemref(fakePtr(0x1000), {4, 4}, {4, 1}));
  p.addF32(2.0f);
  KernelParams copy = p;
  p.addI32(9);
  ASSERT_EQ(copy.size(), 8u); // 3 + 2 * 2, and the f32
  void **a = p.data(), **b = copy.data();
  for (size_t i = 0; i < copy.size(); ++i) {
    EXPECT_NE(a[i], b[i]) << i;
    EXPECT_EQ(std::memcmp(a[i], b[i], 8), 0) << i;
  }
  KernelParams moved = std::move(copy);
  expectMemref(moved, 0, fakePtr(0x1000), {4, 4}, {4, 1});
  EXPECT_EQ(param<float>(moved, 7), 2.0f);
}

//===----------------------------------------------------------------------===//
// Attention parameter lists
//===----------------------------------------------------------------------===//

class AttentionParams : public ::testing::Test {
protected:
  void SetUp() override {
    p.dtype = DType::BF16;
    p.batch = 2;
    p.headsQ = 8;
    p.headsKV = 2;
    p.seqQ = 130;
    p.seqK = 1000;
    p.headDim = 128;
    p.headDimV = 64;
    // q in [B, N, H, D] storage; the others contiguous (all-zero default).
    p.q = {p.seqQ * p.headsQ * 128, 128, p.headsQ * 128, 1};
    p.scale = 0.125;
  }

  ForwardProblem p;
  const void *q = fakePtr(0x7f0000000000), *k = fakePtr(0x7f0001000000),
             *v = fakePtr(0x7f0002000000);
  void *o = const_cast<void *>(fakePtr(0x7f0003000000));
  float *lse =
      static_cast<float *>(const_cast<void *>(fakePtr(0x7f0004000000)));
};

TEST_F(AttentionParams, MemrefWithLse) {
  KernelParams params =
      memrefAttentionParams(kernelShape(p), q, k, v, o, lse,
                            float(p.effectiveScale()));
  ASSERT_EQ(params.size(), 4 * 11 + 9 + 1u);
  expectMemref(params, 0, q, {2, 8, 130, 128},
               {130 * 8 * 128, 128, 8 * 128, 1});
  expectMemref(params, 11, k, {2, 2, 1000, 128},
               {2 * 1000 * 128, 1000 * 128, 128, 1});
  expectMemref(params, 22, v, {2, 2, 1000, 64},
               {2 * 1000 * 64, 1000 * 64, 64, 1});
  expectMemref(params, 33, o, {2, 8, 130, 64}, {8 * 130 * 64, 130 * 64, 64, 1});
  expectMemref(params, 44, lse, {2, 8, 130}, {8 * 130, 130, 1});
  EXPECT_EQ(params.kind(53), Kind::F32);
  EXPECT_EQ(param<float>(params, 53), 0.125f);
}

TEST_F(AttentionParams, MemrefWithoutLse) {
  // An lse=0 kernel has no lse argument: the scale follows o.
  KernelParams params =
      memrefAttentionParams(kernelShape(p), q, k, v, o, nullptr, 0.25f);
  ASSERT_EQ(params.size(), 4 * 11 + 1u);
  expectMemref(params, 33, o, {2, 8, 130, 64}, {8 * 130 * 64, 130 * 64, 64, 1});
  EXPECT_EQ(params.kind(44), Kind::F32);
  EXPECT_EQ(param<float>(params, 44), 0.25f);
}

TEST_F(AttentionParams, SplitAndMerge) {
  // The split kernel: q, k, v as the forward, then O_s [S, B, Hq, Nq, Dv]
  // and LSE_s [S, B, Hq, Nq] (f32, contiguous, LSE_s 16-byte aligned after
  // O_s in one workspace), then the scale.
  const AttentionShape shape = kernelShape(p);
  const SplitPartials w = splitPartials(shape, 3);
  EXPECT_EQ(w.oFloats, uint64_t(3) * 2 * 8 * 130 * 64);
  EXPECT_EQ(w.lseFloats, uint64_t(3) * 2 * 8 * 130);
  EXPECT_EQ(splitWorkspaceBytes(w), w.oFloats * 4 + w.lseFloats * 4);
  void *ws = const_cast<void *>(fakePtr(0x7f0005000000));
  float *lseParts = splitLsePartials(w, ws);
  EXPECT_EQ(bits(lseParts), bits(ws) + w.oFloats * 4);
  KernelParams sp = memrefSplitParams(shape, w, q, k, v, ws, 0.125f);
  ASSERT_EQ(sp.size(), 3 * 11 + 13 + 11 + 1u);
  expectMemref(sp, 0, q, {2, 8, 130, 128}, {130 * 8 * 128, 128, 8 * 128, 1});
  expectMemref(sp, 22, v, {2, 2, 1000, 64}, {2 * 1000 * 64, 1000 * 64, 64, 1});
  expectMemref(sp, 33, ws, {3, 2, 8, 130, 64},
               {2 * 8 * 130 * 64, 8 * 130 * 64, 130 * 64, 64, 1});
  expectMemref(sp, 46, lseParts, {3, 2, 8, 130},
               {2 * 8 * 130, 8 * 130, 130, 1});
  EXPECT_EQ(param<float>(sp, 57), 0.125f);
  // The merge: the partials, o, then lse where the kernel has it.
  KernelParams mp = memrefMergeParams(shape, w, ws, o, lse);
  ASSERT_EQ(mp.size(), 13 + 11 + 11 + 9u);
  expectMemref(mp, 0, ws, {3, 2, 8, 130, 64},
               {2 * 8 * 130 * 64, 8 * 130 * 64, 130 * 64, 64, 1});
  expectMemref(mp, 24, o, {2, 8, 130, 64}, {8 * 130 * 64, 130 * 64, 64, 1});
  expectMemref(mp, 35, lse, {2, 8, 130}, {8 * 130, 130, 1});
  EXPECT_EQ(memrefMergeParams(shape, w, ws, o, nullptr).size(), 35u);
}

TEST_F(AttentionParams, PagedKVCache) {
  // K and V as pages [P, Hkv, page, D]; the key counts [B] and the block
  // table [B, max_pages] follow the outputs, before the scale.
  p.kvLayout = KVLayout::Paged;
  p.pageSize = 64;
  p.numPages = 37;
  p.maxPages = 16;
  p.tableStride = 20;
  p.seqK = 16 * 64;
  const int32_t *lens = static_cast<const int32_t *>(fakePtr(0x7f0006000000));
  const int32_t *table = static_cast<const int32_t *>(fakePtr(0x7f0007000000));
  KVCacheArgs cache{lens, table};
  KernelParams params =
      memrefAttentionParams(kernelShape(p), q, k, v, o, lse, 0.125f, &cache);
  ASSERT_EQ(params.size(), 4 * 11 + 9 + 5 + 7 + 1u);
  expectMemref(params, 11, k, {37, 2, 64, 128},
               {2 * 64 * 128, 64 * 128, 128, 1});
  expectMemref(params, 22, v, {37, 2, 64, 64}, {2 * 64 * 64, 64 * 64, 64, 1});
  expectMemref(params, 53, lens, {2}, {1});
  expectMemref(params, 58, table, {2, 16}, {20, 1});
  EXPECT_EQ(param<float>(params, 65), 0.125f);
  // The split kernel takes them at the same place: after its partials.
  const AttentionShape shape = kernelShape(p);
  const SplitPartials w = splitPartials(shape, 4);
  void *ws = const_cast<void *>(fakePtr(0x7f0005000000));
  KernelParams sp = memrefSplitParams(shape, w, q, k, v, ws, 0.5f, &cache);
  ASSERT_EQ(sp.size(), 3 * 11 + 13 + 11 + 5 + 7 + 1u);
  expectMemref(sp, 57, lens, {2}, {1});
  expectMemref(sp, 62, table, {2, 16}, {20, 1});
  // Key counts alone (a contiguous cache): no table.
  KVCacheArgs lensOnly{lens, nullptr};
  p.kvLayout = KVLayout::SeqLens;
  p.pageSize = p.numPages = p.maxPages = p.tableStride = 0;
  p.seqK = 1000;
  KernelParams lp = memrefAttentionParams(kernelShape(p), q, k, v, o, nullptr,
                                          0.125f, &lensOnly);
  ASSERT_EQ(lp.size(), 4 * 11 + 5 + 1u);
  expectMemref(lp, 11, k, {2, 2, 1000, 128},
               {2 * 1000 * 128, 1000 * 128, 128, 1});
  expectMemref(lp, 44, lens, {2}, {1});
}

TEST_F(AttentionParams, PackedBatch) {
  // varlen: the tensors' own dims ([1, H, total, D], the strides' batch
  // entry unused), then the offsets cu_q, cu_k [B + 1] after the outputs.
  p.kvLayout = KVLayout::Varlen;
  p.batch = 3;  // sequences
  p.seqQ = 100; // the longest
  p.seqK = 400;
  p.totalQ = 130;
  p.totalK = 1000;
  p.q = {0, 128, 8 * 128, 1}; // [total, H, D] storage
  const int32_t *cq = static_cast<const int32_t *>(fakePtr(0x7f0006000000));
  const int32_t *ck = static_cast<const int32_t *>(fakePtr(0x7f0007000000));
  KVCacheArgs args;
  args.cuSeqlensQ = cq;
  args.cuSeqlensK = ck;
  KernelParams params =
      memrefAttentionParams(kernelShape(p), q, k, v, o, lse, 0.125f, &args);
  ASSERT_EQ(params.size(), 4 * 11 + 9 + 5 + 5 + 1u);
  expectMemref(params, 0, q, {1, 8, 130, 128}, {0, 128, 8 * 128, 1});
  expectMemref(params, 11, k, {1, 2, 1000, 128}, {0, 1000 * 128, 128, 1});
  expectMemref(params, 44, lse, {1, 8, 130}, {0, 130, 1});
  expectMemref(params, 53, cq, {4}, {1});
  expectMemref(params, 58, ck, {4}, {1});
  EXPECT_EQ(param<float>(params, 63), 0.125f);
}

TEST(LaunchGrid, FromTheKernelsDescription) {
  LaunchGrid g;
  ASSERT_TRUE(parseLaunchGrid("q_blocks*splits,heads_q,batch", g));
  GridValues v;
  v.batch = 3;
  v.headsQ = 8;
  v.headsKV = 2;
  v.qBlocks = 5;
  v.splits = 7;
  unsigned out[3];
  ASSERT_TRUE(launchGridDims(g, v, out));
  EXPECT_EQ(out[0], 35u);
  EXPECT_EQ(out[1], 8u);
  EXPECT_EQ(out[2], 3u);
  // Any order of the factors: a kernel that walks heads in x.
  ASSERT_TRUE(parseLaunchGrid("heads_kv*q_blocks,splits,batch", g));
  ASSERT_TRUE(launchGridDims(g, v, out));
  EXPECT_EQ(out[0], 10u);
  EXPECT_EQ(out[1], 7u);
  // No description: (q_blocks·splits, heads_q, batch).
  ASSERT_TRUE(launchGridDims(LaunchGrid(), v, out));
  EXPECT_EQ(out[0], 35u);
  EXPECT_EQ(out[2], 3u);
  // Past the hardware's limits (y, z < 2^16; x < 2^31), or a zero factor.
  ASSERT_TRUE(parseLaunchGrid("q_blocks,heads_q*splits,batch", g));
  v.splits = 1 << 13;
  EXPECT_FALSE(launchGridDims(g, v, out));
  v.splits = 1;
  v.batch = 0;
  EXPECT_FALSE(launchGridDims(g, v, out));
  EXPECT_FALSE(parseLaunchGrid("q_blocks,heads", g));
  EXPECT_TRUE(g.empty());
  // A kernel that packs the query heads of a group: ceil(G·Nq / block_m)
  // blocks per key/value head.
  ASSERT_TRUE(parseLaunchGrid("group_q_blocks*splits,heads_kv,batch", g));
  EXPECT_EQ(formatLaunchGrid(g), "group_q_blocks*splits,heads_kv,batch");
  v.batch = 3;
  v.splits = 4;
  v.groupQBlocks = 2;
  ASSERT_TRUE(launchGridDims(g, v, out));
  EXPECT_EQ(out[0], 8u);
  EXPECT_EQ(out[1], 2u);
  EXPECT_EQ(out[2], 3u);
}

TEST(LaunchGrid, ConstantsMultiplyTheirDim) {
  // A merge's column blocks: a count the kernel fixed at compile time.
  LaunchGrid g;
  ASSERT_TRUE(parseLaunchGrid("q_blocks*4,heads_q,batch", g));
  EXPECT_EQ(g.constant[0], 4);
  EXPECT_EQ(formatLaunchGrid(g), "q_blocks*4,heads_q,batch");
  GridValues v;
  v.batch = 2;
  v.headsQ = 8;
  v.qBlocks = 3;
  unsigned out[3];
  ASSERT_TRUE(launchGridDims(g, v, out));
  EXPECT_EQ(out[0], 12u);
  EXPECT_EQ(out[1], 8u);
  EXPECT_EQ(out[2], 2u);
  // Anywhere in a product, several multiply, a dim may be a constant alone.
  ASSERT_TRUE(parseLaunchGrid("2*q_blocks*3,heads_q,1", g));
  EXPECT_EQ(formatLaunchGrid(g), "q_blocks*6,heads_q,1");
  ASSERT_TRUE(launchGridDims(g, v, out));
  EXPECT_EQ(out[0], 18u);
  EXPECT_EQ(out[2], 1u);
  LaunchGrid again;
  ASSERT_TRUE(parseLaunchGrid(formatLaunchGrid(g), again));
  EXPECT_TRUE(again == g);
  // A y dim past 65535 through its constant.
  ASSERT_TRUE(parseLaunchGrid("q_blocks,heads_q*65535,batch", g));
  EXPECT_FALSE(launchGridDims(g, v, out));
  // Zero, a leading zero, a sign, past the limit (alone or as a product).
  for (const char *bad :
       {"q_blocks*0,heads_q,batch", "q_blocks*04,heads_q,batch",
        "q_blocks*-4,heads_q,batch", "q_blocks*65536,heads_q,batch",
        "q_blocks*256*256,heads_q,batch", "q_blocks*4x,heads_q,batch"}) {
    EXPECT_FALSE(parseLaunchGrid(bad, g)) << bad;
    EXPECT_TRUE(g.empty()) << bad;
  }
}

TEST(LaunchGrid, PersistentLaunchesOneBlockPerSM) {
  LaunchGrid g;
  ASSERT_TRUE(parseLaunchGrid("persistent(q_blocks,heads_q,batch)", g));
  EXPECT_TRUE(g.persistent);
  EXPECT_EQ(formatLaunchGrid(g), "persistent(q_blocks,heads_q,batch)");
  GridValues v;
  v.batch = 2;
  v.headsQ = 16;
  v.qBlocks = 8;
  unsigned out[3];
  // No SM count: the launcher cannot size it.
  EXPECT_FALSE(launchGridDims(g, v, out));
  v.smCount = 132;
  ASSERT_TRUE(launchGridDims(g, v, out));
  EXPECT_EQ(out[0], 132u);
  EXPECT_EQ(out[1], 1u);
  EXPECT_EQ(out[2], 1u);
  // Fewer tiles than SMs: one block a tile.
  v.batch = 1;
  v.headsQ = 4;
  ASSERT_TRUE(launchGridDims(g, v, out));
  EXPECT_EQ(out[0], 32u);
  // y and z are tile counts, not launch dims: past 2^16 is fine, past 2^31
  // tiles is not (the kernel numbers tiles in 32 bits).
  v.headsQ = 1 << 17;
  ASSERT_TRUE(launchGridDims(g, v, out));
  EXPECT_EQ(out[0], 132u);
  v.batch = 1 << 14;
  EXPECT_FALSE(launchGridDims(g, v, out));
  // Malformed wrappers.
  EXPECT_FALSE(parseLaunchGrid("persistent(q_blocks,heads_q,batch", g));
  EXPECT_FALSE(parseLaunchGrid("persistent()", g));
  EXPECT_FALSE(parseLaunchGrid("persistent(q_blocks,heads_q)", g));
}

TEST(LaunchGrid, DynamicIsPersistentWithACounter) {
  LaunchGrid g;
  ASSERT_TRUE(parseLaunchGrid("dynamic(q_blocks,heads_q,batch)", g));
  EXPECT_TRUE(g.persistent);
  EXPECT_TRUE(g.dynamic);
  EXPECT_EQ(formatLaunchGrid(g), "dynamic(q_blocks,heads_q,batch)");
  LaunchGrid p;
  ASSERT_TRUE(parseLaunchGrid("persistent(q_blocks,heads_q,batch)", p));
  EXPECT_FALSE(p.dynamic);
  EXPECT_FALSE(g == p);
  // Sized like a persistent grid: min(SMs, tiles) blocks in x.
  GridValues v;
  v.batch = 1;
  v.headsQ = 4;
  v.qBlocks = 8;
  v.smCount = 132;
  unsigned out[3];
  ASSERT_TRUE(launchGridDims(g, v, out));
  EXPECT_EQ(out[0], 32u);
  EXPECT_EQ(out[1], 1u);
  v.headsQ = 64;
  ASSERT_TRUE(launchGridDims(g, v, out));
  EXPECT_EQ(out[0], 132u);
  EXPECT_FALSE(parseLaunchGrid("dynamic(q_blocks,heads_q,batch", g));
  EXPECT_FALSE(g.dynamic);
  EXPECT_FALSE(parseLaunchGrid("dynamic()", g));
  EXPECT_FALSE(
      parseLaunchGrid("dynamic(persistent(q_blocks,heads_q,batch))", g));
}

TEST_F(AttentionParams, UnitDimsGetStrideZero) {
  // checkProblem lets a dim of extent 1 have any stride (PyTorch gives odd
  // ones); the kernels get 0 there, which fits their 32-bit math.
  p.batch = 1;
  p.headsQ = p.headsKV = 1;
  p.seqQ = 1;
  p.q = {int64_t(1) << 40, -3, 5, 1};
  ASSERT_TRUE(checkProblem(p).ok()) << checkProblem(p).message();
  AttentionShape s = kernelShape(p);
  for (const int64_t *t : {s.q, s.k, s.v, s.o}) {
    EXPECT_EQ(t[0], 0);
    EXPECT_EQ(t[1], 0);
    EXPECT_EQ(t[3], 1);
  }
  EXPECT_EQ(s.q[2], 0); // seqQ = 1
  EXPECT_EQ(s.o[2], 0);
  EXPECT_EQ(s.k[2], 128); // seqK = 1000, contiguous
  EXPECT_EQ(s.v[2], 64);
  EXPECT_EQ(s.lse[0], 0);
  EXPECT_EQ(s.lse[1], 0);
  EXPECT_EQ(s.lse[2], 1);
  EXPECT_EQ(s.seqK, 1000);
  EXPECT_EQ(s.headDimV, 64);
}

//===----------------------------------------------------------------------===//
// Which kernel serves a forward with and without LSE
//===----------------------------------------------------------------------===//

const char *kLseManifest = R"(
# D=128: memref kernels with and without LSE
kernel name=m128 ptx=m128.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=64 threads=128 smem=0 abi=memref lse=1
kernel name=m128n ptx=m128n.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 block_m=64 threads=128 smem=0 abi=memref lse=0
# D=256: memref with LSE only; D=32: memref without LSE only
kernel name=m256 ptx=m256.ptx chip=sm_80 dtype=bf16 head_dim=256 causal=0 block_m=64 threads=128 smem=0 abi=memref lse=1
kernel name=m32 ptx=m32.ptx chip=sm_80 dtype=bf16 head_dim=32 causal=0 block_m=64 threads=128 smem=0 abi=memref lse=0
# D=96: lse=0 only for sm_90a, lse=1 only for sm_80
kernel name=m96n ptx=m96n.ptx chip=sm_90a dtype=bf16 head_dim=96 causal=0 block_m=64 threads=128 smem=0 abi=memref lse=0
kernel name=m96 ptx=m96.ptx chip=sm_80 dtype=bf16 head_dim=96 causal=0 block_m=64 threads=128 smem=0 abi=memref lse=1
# f16 D=64: with LSE for sm_90a, without for sm_80
kernel name=h64 ptx=h64.ptx chip=sm_90a dtype=f16 head_dim=64 causal=0 block_m=64 threads=128 smem=0 abi=memref
kernel name=h64n ptx=h64n.ptx chip=sm_80 dtype=f16 head_dim=64 causal=0 block_m=64 threads=128 smem=0 lse=0 abi=memref
)";

class KernelChoiceByLse : public ::testing::Test {
protected:
  void SetUp() override {
    Status s = parseManifest(kLseManifest, "manifest.txt", bundle);
    ASSERT_TRUE(s.ok()) << s.message();
  }

  /// The kernel selectKernel picks on a device of compute capability
  /// cc / 10 . cc % 10, or "error: <message>".
  std::string choose(DType dtype, int headDim, bool withLse, int cc = 90) {
    ForwardProblem p;
    p.dtype = dtype;
    p.batch = 2;
    p.headsQ = p.headsKV = 4;
    p.seqQ = p.seqK = 256;
    p.headDim = p.headDimV = headDim;
    p.withLse = withLse;
    const KernelEntry *k = nullptr;
    Status s = selectKernel(bundle, p, cc / 10, cc % 10, k);
    if (!s.ok()) {
      EXPECT_EQ(s.code(), StatusCode::NotInBundle) << s.message();
      EXPECT_EQ(k, nullptr);
      return "error: " + s.message();
    }
    return k->name;
  }

  Manifest bundle;
};

TEST_F(KernelChoiceByLse, MemrefKernelsMatchTheCall) {
  EXPECT_EQ(choose(DType::BF16, 128, true), "m128");
  EXPECT_EQ(choose(DType::BF16, 128, false), "m128n");
}

TEST_F(KernelChoiceByLse, NoLseZeroMemrefKernel) {
  EXPECT_EQ(choose(DType::BF16, 256, true), "m256");
  EXPECT_EQ(
      choose(DType::BF16, 256, false),
      "error: not in the bundle: a forward without LSE for non-causal bf16 "
      "head dim 256: this bundle has no lse=0 kernel for it, and its lse=1 "
      "kernels always write the LSE; pass an LSE buffer or add an lse=0 "
      "kernel");
}

TEST_F(KernelChoiceByLse, NoKernelWritesLse) {
  EXPECT_EQ(choose(DType::BF16, 32, false), "m32");
  EXPECT_EQ(
      choose(DType::BF16, 32, true),
      "error: not in the bundle: LSE output for non-causal bf16 head dim 32: "
      "this bundle's kernels for it are built without LSE (lse=0)");
}

TEST_F(KernelChoiceByLse, EachCallOnlyItsOwnKind) {
  EXPECT_EQ(choose(DType::BF16, 96, false, 90), "m96n");
  // On 8.0 only the lse=1 kernel runs: a forward without LSE has none.
  EXPECT_EQ(choose(DType::BF16, 96, false, 80),
            "error: not in the bundle: no kernel for compute capability 8.0 "
            "(m96n is built for sm_90a)");
  EXPECT_EQ(choose(DType::BF16, 96, true, 90), "m96");
  // A kernel of the call's kind on a less specific chip.
  EXPECT_EQ(choose(DType::F16, 64, false, 90), "h64n");
  EXPECT_EQ(choose(DType::F16, 64, true, 90), "h64");
  EXPECT_EQ(
      choose(DType::F16, 64, true, 80),
      "error: not in the bundle: no kernel for compute capability 8.0 (h64 is "
      "built for sm_90a)");
}

TEST_F(KernelChoiceByLse, FindKernelsListsOnlyWhatServes) {
  ForwardProblem p;
  p.headDim = p.headDimV = 128;
  std::vector<const KernelEntry *> c;
  p.withLse = true;
  ASSERT_TRUE(findKernels(bundle, p, c).ok());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0]->name, "m128");
  p.withLse = false;
  ASSERT_TRUE(findKernels(bundle, p, c).ok());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0]->name, "m128n");
  p.headDim = p.headDimV = 96;
  ASSERT_TRUE(findKernels(bundle, p, c).ok());
  EXPECT_EQ(c.size(), 1u); // m96n: the lse=1 kernel m96 does not serve
  EXPECT_EQ(c[0]->name, "m96n");
}

} // namespace
