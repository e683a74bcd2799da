//===- BundleTest.cpp - manifest parsing, chips, variant choice -*- C++ -*-===//
#include "TestUtil.h"

#include "attn/runtime/Bundle.h"
#include "attn/runtime/Runtime.h"

#include <gtest/gtest.h>

using namespace attn;
using attn::test::TempDir;

namespace {

const char *kLine =
    "kernel name=attn_fwd_bf16_d128_causal "
    "ptx=attn_fwd_bf16_d128_causal.sm_80.ptx chip=sm_80 dtype=bf16 "
    "head_dim=128 head_dim_v=128 causal=1 block_m=128 block_n=64 "
    "threads=256 smem=98304 abi=memref\n";

Status parse(const std::string &text, Manifest &m) {
  return parseManifest(text, "manifest.txt", m);
}

// Parsing `text` fails with a message that contains `needle`.
void expectError(const std::string &text, const std::string &needle) {
  Manifest m;
  Status s = parse(text, m);
  ASSERT_FALSE(s.ok()) << text;
  EXPECT_EQ(s.code(), StatusCode::BundleError);
  EXPECT_NE(s.message().find(needle), std::string::npos)
      << "message: " << s.message() << "\nwanted: " << needle;
  EXPECT_TRUE(m.kernels.empty());
}

TEST(Chip, Parse) {
  Chip c;
  ASSERT_TRUE(parseChip("sm_80", c));
  EXPECT_EQ(c.major, 8);
  EXPECT_EQ(c.minor, 0);
  EXPECT_EQ(c.variant, 0);
  ASSERT_TRUE(parseChip("sm_90a", c));
  EXPECT_EQ(c.major, 9);
  EXPECT_EQ(c.variant, 'a');
  EXPECT_EQ(c.str(), "sm_90a");
  ASSERT_TRUE(parseChip("sm_100f", c));
  EXPECT_EQ(c.major, 10);
  EXPECT_EQ(c.minor, 0);
  EXPECT_EQ(c.variant, 'f');
  ASSERT_TRUE(parseChip("sm_86", c));
  EXPECT_EQ(c.str(), "sm_86");
  for (const char *bad : {"", "sm_", "sm_8", "sm_8x", "sm_90b", "sm_90aa",
                          "compute_80", "SM_80", "sm_1000", "sm_-80", "sm_05"})
    EXPECT_FALSE(parseChip(bad, c)) << bad;
}

TEST(Chip, RunsOn) {
  Chip sm80{8, 0, 0}, sm90a{9, 0, 'a'}, sm100f{10, 0, 'f'}, sm86{8, 6, 0};
  EXPECT_TRUE(chipRunsOn(sm80, 8, 0));
  EXPECT_TRUE(chipRunsOn(sm80, 8, 9));
  EXPECT_TRUE(chipRunsOn(sm80, 9, 0)); // PTX JIT runs forward
  EXPECT_TRUE(chipRunsOn(sm80, 12, 0));
  EXPECT_FALSE(chipRunsOn(sm80, 7, 5));
  EXPECT_FALSE(chipRunsOn(sm86, 8, 0));
  EXPECT_TRUE(chipRunsOn(sm90a, 9, 0));
  EXPECT_FALSE(chipRunsOn(sm90a, 10, 0)); // arch-specific: exact only
  EXPECT_FALSE(chipRunsOn(sm90a, 8, 9));
  EXPECT_TRUE(chipRunsOn(sm100f, 10, 3));
  EXPECT_FALSE(chipRunsOn(sm100f, 12, 0));
}

TEST(SelectVariant, PicksByComputeCapability) {
  Chip sm80{8, 0, 0}, sm86{8, 6, 0}, sm89{8, 9, 0}, sm90{9, 0, 0},
      sm90a{9, 0, 'a'};
  std::vector<Chip> chips = {sm80, sm90a};
  EXPECT_EQ(selectVariant(chips, 9, 0), 1);  // H100/H200: exact match
  EXPECT_EQ(selectVariant(chips, 8, 0), 0);  // A100
  EXPECT_EQ(selectVariant(chips, 8, 9), 0);  // L4/L40: sm_80 through JIT
  EXPECT_EQ(selectVariant(chips, 10, 0), 0); // B200: not sm_90a
  EXPECT_EQ(selectVariant(chips, 12, 0), 0);
  EXPECT_EQ(selectVariant(chips, 7, 5), -1); // T4
  // Order in the manifest does not matter; sm_90a beats sm_90 on 9.0.
  chips = {sm90a, sm90, sm80};
  EXPECT_EQ(selectVariant(chips, 9, 0), 0);
  chips = {sm90, sm90a, sm80};
  EXPECT_EQ(selectVariant(chips, 9, 0), 1);
  // The highest chip <= the device.
  chips = {sm80, sm89, sm86};
  EXPECT_EQ(selectVariant(chips, 8, 6), 2);
  EXPECT_EQ(selectVariant(chips, 8, 7), 2);
  EXPECT_EQ(selectVariant(chips, 8, 9), 1);
  EXPECT_EQ(selectVariant(chips, 9, 0), 1);
  EXPECT_EQ(selectVariant({}, 9, 0), -1);
  EXPECT_EQ(selectVariant({sm90a}, 8, 0), -1);
}

TEST(Chip, SassRunsOnExactlyItsChip) {
  Chip sm80{8, 0, 0}, sm86{8, 6, 0}, sm90{9, 0, 0}, sm90a{9, 0, 'a'},
      sm100f{10, 0, 'f'};
  EXPECT_TRUE(sassRunsOn(sm80, 8, 0));
  // An sm_80 cubin would run on 8.6, but the bundle's rule is exact: 8.6
  // gets its own cubin or the PTX JIT-compiled for it.
  EXPECT_FALSE(sassRunsOn(sm80, 8, 6));
  EXPECT_FALSE(sassRunsOn(sm80, 9, 0));
  EXPECT_TRUE(sassRunsOn(sm86, 8, 6));
  EXPECT_FALSE(sassRunsOn(sm86, 8, 9));
  EXPECT_FALSE(sassRunsOn(sm86, 8, 0));
  EXPECT_TRUE(sassRunsOn(sm90, 9, 0));
  EXPECT_TRUE(sassRunsOn(sm90a, 9, 0));
  EXPECT_FALSE(sassRunsOn(sm90a, 10, 0));
  // A family cubin runs on its family from its minor on.
  EXPECT_TRUE(sassRunsOn(sm100f, 10, 0));
  EXPECT_TRUE(sassRunsOn(sm100f, 10, 3));
  EXPECT_FALSE(sassRunsOn(sm100f, 12, 0));
  EXPECT_FALSE(sassRunsOn(sm100f, 9, 0));
}

TEST(Chip, CanAssemble) {
  Chip sm75{7, 5, 0}, sm80{8, 0, 0}, sm86{8, 6, 0}, sm89{8, 9, 0},
      sm90{9, 0, 0}, sm90a{9, 0, 'a'}, sm100a{10, 0, 'a'}, sm100f{10, 0, 'f'},
      sm103{10, 3, 0}, sm120{12, 0, 0};
  // Portable PTX: its chip and every later one, 'a' chips included.
  for (const Chip &c : {sm80, sm86, sm89, sm90, sm90a, sm120})
    EXPECT_TRUE(canAssemble(sm80, c)) << c.str();
  EXPECT_FALSE(canAssemble(sm80, sm75));
  EXPECT_FALSE(canAssemble(sm86, sm80));
  // Architecture-specific PTX: only its own chip.
  EXPECT_TRUE(canAssemble(sm90a, sm90a));
  EXPECT_FALSE(canAssemble(sm90a, sm90));
  EXPECT_FALSE(canAssemble(sm90a, sm80));
  EXPECT_FALSE(canAssemble(sm90a, sm100a));
  // Family PTX: its family.
  EXPECT_TRUE(canAssemble(sm100f, sm103));
  EXPECT_TRUE(canAssemble(sm100f, sm100a));
  EXPECT_FALSE(canAssemble(sm100f, sm120));
}

TEST(SelectSass, ExactChipElsePtx) {
  KernelEntry k;
  k.chip = {8, 0, 0};
  k.sass = {{{8, 0, 0}, "k.sm_80.cubin"},
            {{8, 6, 0}, "k.sm_86.cubin"},
            {{8, 9, 0}, "k.sm_89.cubin"}};
  EXPECT_EQ(selectSass(k, 8, 0), 0);
  EXPECT_EQ(selectSass(k, 8, 6), 1);
  EXPECT_EQ(selectSass(k, 8, 9), 2);
  EXPECT_EQ(selectSass(k, 8, 7), -1); // Orin: the PTX, JIT-compiled
  EXPECT_EQ(selectSass(k, 9, 0), -1);
  EXPECT_EQ(selectSass(k, 12, 0), -1);
  EXPECT_EQ(selectSass(k, 7, 5), -1);
  // 'a' before plain for the same chip, whatever the order.
  k.chip = {9, 0, 0};
  k.sass = {{{9, 0, 'a'}, "a"}, {{9, 0, 0}, "plain"}};
  EXPECT_EQ(selectSass(k, 9, 0), 0);
  std::swap(k.sass[0], k.sass[1]);
  EXPECT_EQ(selectSass(k, 9, 0), 1);
  // An exact cubin before a family one; the closest family one otherwise.
  k.chip = {10, 0, 'f'};
  k.sass = {
      {{10, 0, 'f'}, "f100"}, {{10, 3, 0}, "103"}, {{10, 1, 'f'}, "f101"}};
  EXPECT_EQ(selectSass(k, 10, 3), 1);
  EXPECT_EQ(selectSass(k, 10, 1), 2);
  EXPECT_EQ(selectSass(k, 10, 0), 0);
  EXPECT_EQ(selectSass(k, 11, 0), -1);
  k.sass.clear();
  EXPECT_EQ(selectSass(k, 10, 0), -1);
}

TEST(Manifest, ParsesAGoodLine) {
  Manifest m;
  Status s = parse(std::string("# a comment\n\n   \n") + kLine, m);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m.kernels.size(), 1u);
  const KernelEntry &k = m.kernels[0];
  EXPECT_EQ(k.name, "attn_fwd_bf16_d128_causal");
  EXPECT_EQ(k.ptx, "attn_fwd_bf16_d128_causal.sm_80.ptx");
  EXPECT_EQ(k.chip.str(), "sm_80");
  EXPECT_EQ(k.dtype, DType::BF16);
  EXPECT_EQ(k.headDim, 128);
  EXPECT_EQ(k.headDimV, 128);
  EXPECT_TRUE(k.causal);
  EXPECT_EQ(k.blockM, 128);
  EXPECT_EQ(k.blockN, 64);
  EXPECT_EQ(k.threads, 256);
  EXPECT_EQ(k.smem, 98304);
  EXPECT_EQ(k.line, 4);
  // Without lse=: with LSE.
  EXPECT_EQ(k.abi, KernelABI::Memref);
  EXPECT_TRUE(k.lse);
  EXPECT_TRUE(m.warnings.empty());
}

TEST(Manifest, AbiAndLseKeys) {
  Manifest m;
  Status s = parse(
      "kernel name=a ptx=a.ptx chip=sm_90a dtype=bf16 head_dim=64 causal=0 "
      "block_m=64 threads=128 smem=0 abi=memref lse=0\n"
      "kernel name=b ptx=b.ptx chip=sm_90a dtype=bf16 head_dim=64 causal=0 "
      "block_m=64 threads=128 smem=0 abi=memref lse=1\n"
      "kernel name=d ptx=d.ptx chip=sm_80 dtype=bf16 head_dim=64 causal=0 "
      "block_m=64 threads=128 smem=0 abi=memref\n",
      m);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m.kernels.size(), 3u);
  EXPECT_EQ(m.kernels[0].abi, KernelABI::Memref);
  EXPECT_FALSE(m.kernels[0].lse);
  EXPECT_EQ(m.kernels[1].abi, KernelABI::Memref);
  EXPECT_TRUE(m.kernels[1].lse);
  EXPECT_EQ(m.kernels[2].abi, KernelABI::Memref);
  EXPECT_TRUE(m.kernels[2].lse); // default
  EXPECT_TRUE(m.warnings.empty());
  EXPECT_STREQ(kernelABIName(KernelABI::Memref), "memref");
}

// The hand-written kernels' ABI is gone: a line of it (abi=legacy, its old
// spelling abi=1, or no abi= at all, as bundles before the key wrote) is
// refused, never launched with another parameter list.
TEST(Manifest, LegacyAbiRefused) {
  const std::string head = "kernel name=c ptx=c.ptx chip=sm_80 dtype=bf16 "
                           "head_dim=64 causal=0 block_m=64 threads=128 "
                           "smem=0";
  expectError(head + " abi=legacy\n",
              "manifest.txt:1: unsupported abi 'legacy': this runtime "
              "launches abi=memref kernels (the lowered function's "
              "arguments); rebuild the bundle with attn-bundle");
  expectError(head + " abi=1\n", "unsupported abi '1'");
  expectError(head + "\n",
              "manifest.txt:1: missing key 'abi' (a bundle of the "
              "hand-written kernels, whose ABI this runtime no longer "
              "launches: rebuild it with attn-bundle)");
}

TEST(Manifest, SassKey) {
  Manifest m;
  Status s = parse(
      // sass= before chip=: the check against the line's PTX chip waits
      // for the whole line.
      "kernel name=a ptx=a.sm_80.ptx sass=sm_80:a.sm_80.cubin,sm_86:a.sm_86."
      "cubin,sm_90a:/abs/a.sm_90a.cubin chip=sm_80 dtype=bf16 head_dim=64 "
      "causal=0 block_m=64 threads=128 smem=0 abi=memref\n"
      "kernel name=a ptx=a.sm_90a.ptx chip=sm_90a dtype=bf16 head_dim=64 "
      "causal=0 block_m=64 threads=128 smem=0 sass=sm_90a:dir/a:b.cubin abi=memref\n"
      "kernel name=b ptx=b.ptx chip=sm_80 dtype=bf16 head_dim=64 causal=0 "
      "block_m=64 threads=128 smem=0 abi=memref\n",
      m);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m.kernels.size(), 3u);
  const std::vector<SassImage> &a80 = m.kernels[0].sass;
  ASSERT_EQ(a80.size(), 3u);
  EXPECT_EQ(a80[0].chip.str(), "sm_80");
  EXPECT_EQ(a80[0].file, "a.sm_80.cubin");
  EXPECT_EQ(a80[1].chip.str(), "sm_86");
  EXPECT_EQ(a80[1].file, "a.sm_86.cubin");
  EXPECT_EQ(a80[2].chip.str(), "sm_90a");
  EXPECT_EQ(bundleFilePath("/b", a80[2].file), "/abs/a.sm_90a.cubin");
  EXPECT_EQ(bundleFilePath("/b", a80[0].file), "/b/a.sm_80.cubin");
  ASSERT_EQ(m.kernels[1].sass.size(), 1u);
  EXPECT_EQ(m.kernels[1].sass[0].file, "dir/a:b.cubin"); // first ':' splits
  // sass= is optional: PTX only.
  EXPECT_TRUE(m.kernels[2].sass.empty());
  EXPECT_TRUE(m.warnings.empty());
}

TEST(Manifest, TensorMapsKey) {
  Manifest m;
  Status s = parse(
      "kernel name=a ptx=a.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 "
      "block_m=128 threads=384 smem=166016 abi=memref "
      "tensor_maps=0:128,1:128,2:64\n"
      "kernel name=b ptx=b.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 "
      "block_m=128 threads=384 smem=166016 abi=memref\n",
      m);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m.kernels.size(), 2u);
  const std::vector<TensorMapSpec> want = {{0, 128}, {1, 128}, {2, 64}};
  EXPECT_EQ(m.kernels[0].tensorMaps, want);
  EXPECT_TRUE(m.kernels[1].tensorMaps.empty());
  // The writer's line parses back to the same entry.
  Manifest again;
  ASSERT_TRUE(parse(formatManifestLine(m.kernels[0]) + "\n", again).ok());
  ASSERT_EQ(again.kernels.size(), 1u);
  EXPECT_EQ(again.kernels[0].tensorMaps, want);
  EXPECT_EQ(formatManifestLine(m.kernels[0]),
            formatManifestLine(again.kernels[0]));
  EXPECT_EQ(formatTensorMaps(want), "0:128,1:128,2:64");
  // A third field is the box's bytes (one shared slab): 128 when absent,
  // written only where it is 64 (head dim 96's 64-byte slabs).
  Manifest slabs;
  ASSERT_TRUE(parse("kernel name=c ptx=c.ptx chip=sm_90a dtype=bf16 "
                    "head_dim=96 causal=0 block_m=128 threads=384 smem=0 "
                    "abi=memref tensor_maps=0:128:64,1:128:128,2:64\n",
                    slabs)
                  .ok());
  const std::vector<TensorMapSpec> half = {{0, 128, 64}, {1, 128}, {2, 64}};
  EXPECT_EQ(slabs.kernels[0].tensorMaps, half);
  EXPECT_EQ(formatTensorMaps(half), "0:128:64,1:128,2:64");
  // Any memref argument up to 15 (a forward's score bias after the LSE: 5).
  Manifest bias;
  ASSERT_TRUE(parse("kernel name=d ptx=d.ptx chip=sm_90a dtype=bf16 "
                    "head_dim=128 causal=0 block_m=128 threads=384 smem=0 "
                    "abi=memref bias=bf16 tensor_maps=0:128,5:128,15:64\n",
                    bias)
                  .ok());
  const std::vector<TensorMapSpec> late = {{0, 128}, {5, 128}, {15, 64}};
  EXPECT_EQ(bias.kernels[0].tensorMaps, late);
  EXPECT_TRUE(bias.kernels[0].readsBiasInBulk());
}

TEST(Manifest, BadTensorMapsKeys) {
  const std::string head = "kernel name=a ptx=a.ptx chip=sm_90a dtype=bf16 "
                           "head_dim=128 causal=0 block_m=128 threads=384 "
                           "smem=0 abi=memref tensor_maps=";
  expectError(head + "\n", "empty value for 'tensor_maps'");
  for (const char *bad :
       {"1", "1:", ":128", "16:128", "1:0", "1:257", "1:128,", "1:128,1:64",
        "1:128;2:128", "-1:128", "1:12345", "01234:1", "1:128:32",
        "1:128:", "1:128:256", "1:128:64:64", "1:128:96"})
    expectError(head + bad + "\n",
                "bad value '" + std::string(bad) + "' for 'tensor_maps'");
}

TEST(Manifest, ProgramKey) {
  Manifest m;
  Status s = parse(
      "kernel name=s ptx=s.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 "
      "block_m=128 threads=384 smem=1024 abi=memref program=split_kv\n"
      "kernel name=m ptx=m.ptx chip=sm_80 dtype=f16 head_dim=64 causal=0 "
      "block_m=64 threads=128 smem=0 abi=memref lse=0 program=merge_splits\n"
      "kernel name=a ptx=a.ptx chip=sm_80 dtype=f16 head_dim=64 causal=0 "
      "block_m=64 threads=128 smem=0 abi=memref program=attention\n"
      "kernel name=b ptx=b.ptx chip=sm_80 dtype=f16 head_dim=64 causal=0 "
      "block_m=64 threads=128 smem=0 abi=memref\n",
      m);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m.kernels.size(), 4u);
  EXPECT_EQ(m.kernels[0].program, Program::SplitKV);
  EXPECT_EQ(m.kernels[1].program, Program::MergeSplits);
  EXPECT_EQ(m.kernels[2].program, Program::Attention);
  EXPECT_EQ(m.kernels[3].program, Program::Attention); // absent: the forward
  // Written only where it is not the forward, and read back alike.
  EXPECT_NE(formatManifestLine(m.kernels[0]).find(" program=split_kv"),
            std::string::npos);
  EXPECT_EQ(formatManifestLine(m.kernels[2]).find("program="),
            std::string::npos);
  Manifest again;
  ASSERT_TRUE(parse(formatManifestLine(m.kernels[1]) + "\n", again).ok());
  EXPECT_EQ(again.kernels[0].program, Program::MergeSplits);
  // The backward's two kernels (attn-bundle writes them from an
  // attn.attention_grad), with their key-block grid, round-trip.
  Manifest grad;
  s = parse("kernel name=g ptx=g.ptx chip=sm_90a dtype=bf16 head_dim=64 "
            "head_dim_v=64 causal=1 block_m=64 block_n=64 threads=128 "
            "smem=49152 abi=memref lse=1 program=grad_q "
            "grid=q_blocks,heads_q,batch\n"
            "kernel name=g_1 ptx=g_1.ptx chip=sm_90a dtype=bf16 head_dim=64 "
            "head_dim_v=64 causal=1 block_m=64 block_n=32 threads=128 "
            "smem=32768 abi=memref lse=1 program=grad_kv "
            "grid=kv_blocks,heads_kv,batch\n",
            grad);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(grad.kernels.size(), 2u);
  EXPECT_EQ(grad.kernels[0].program, Program::GradQuery);
  EXPECT_EQ(grad.kernels[1].program, Program::GradKeyValue);
  EXPECT_NE(formatManifestLine(grad.kernels[1])
                .find(" program=grad_kv grid=kv_blocks,heads_kv,batch"),
            std::string::npos);
  // kv_blocks: ceil(Nk / block_m) of the grad_kv kernel.
  GridValues gv;
  gv.batch = 2;
  gv.headsKV = 4;
  gv.kvBlocks = 7;
  unsigned dims[3];
  ASSERT_TRUE(launchGridDims(grad.kernels[1].grid, gv, dims));
  EXPECT_EQ(dims[0], 7u);
  EXPECT_EQ(dims[1], 4u);
  EXPECT_EQ(dims[2], 2u);
  // Bad values.
  const std::string head = "kernel name=a ptx=a.ptx chip=sm_90a dtype=bf16 "
                           "head_dim=128 causal=0 block_m=128 threads=384 "
                           "smem=0 ";
  expectError(head + "abi=memref program=decode\n",
              "bad value 'decode' for 'program'");
}

TEST(Manifest, KVKey) {
  Manifest m;
  Status s = parse(
      "kernel name=p ptx=p.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 "
      "block_m=128 block_n=64 threads=384 smem=1024 abi=memref kv=paged\n"
      "kernel name=s ptx=s.ptx chip=sm_80 dtype=bf16 head_dim=128 causal=1 "
      "block_m=128 threads=128 smem=0 abi=memref program=split_kv "
      "kv=seqlens\n"
      "kernel name=d ptx=d.ptx chip=sm_80 dtype=bf16 head_dim=128 causal=0 "
      "block_m=128 threads=128 smem=0 abi=memref kv=dense\n",
      m);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m.kernels.size(), 3u);
  EXPECT_EQ(m.kernels[0].kv, KVLayout::Paged);
  EXPECT_EQ(m.kernels[1].kv, KVLayout::SeqLens);
  EXPECT_EQ(m.kernels[2].kv, KVLayout::Dense);
  EXPECT_NE(formatManifestLine(m.kernels[0]).find(" kv=paged"),
            std::string::npos);
  EXPECT_EQ(formatManifestLine(m.kernels[2]).find("kv="), std::string::npos);
  Manifest again;
  ASSERT_TRUE(parse(formatManifestLine(m.kernels[1]) + "\n", again).ok());
  EXPECT_EQ(again.kernels[0].kv, KVLayout::SeqLens);
  const std::string head = "kernel name=a ptx=a.ptx chip=sm_90a dtype=bf16 "
                           "head_dim=128 causal=0 block_m=128 threads=384 "
                           "smem=0 ";
  expectError(head + "abi=memref kv=ragged\n", "bad value 'ragged' for 'kv'");
  expectError(head + "abi=memref kv=seqlens page=16\n",
              "'page' is for kv=paged kernels");
  Manifest pm;
  ASSERT_TRUE(
      parse(head + "abi=memref block_n=16 kv=paged page=16\n", pm).ok());
  EXPECT_EQ(pm.kernels[0].pageSize, 16);
  EXPECT_NE(formatManifestLine(pm.kernels[0]).find(" kv=paged page=16"),
            std::string::npos);
  expectError(head + "abi=memref program=merge_splits kv=paged\n",
              "kv=paged needs a program that reads keys");
}

TEST(Manifest, GridKey) {
  Manifest m;
  Status s = parse(
      "kernel name=s ptx=s.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 "
      "block_m=128 threads=384 smem=1024 abi=memref program=split_kv "
      "grid=q_blocks*splits,heads_q,batch\n"
      "kernel name=a ptx=a.ptx chip=sm_80 dtype=f16 head_dim=64 causal=0 "
      "block_m=64 threads=128 smem=0 abi=memref\n",
      m);
  ASSERT_TRUE(s.ok()) << s.message();
  LaunchGrid want;
  want.dims[0] = {GridFactor::QBlocks, GridFactor::Splits};
  want.dims[1] = {GridFactor::HeadsQ};
  want.dims[2] = {GridFactor::Batch};
  EXPECT_EQ(m.kernels[0].grid, want);
  EXPECT_TRUE(m.kernels[1].grid.empty()); // absent: the launcher's default
  EXPECT_NE(formatManifestLine(m.kernels[0])
                .find(" grid=q_blocks*splits,heads_q,batch"),
            std::string::npos);
  EXPECT_EQ(formatManifestLine(m.kernels[1]).find("grid="), std::string::npos);
  const std::string head = "kernel name=a ptx=a.ptx chip=sm_90a dtype=bf16 "
                           "head_dim=128 causal=0 block_m=128 threads=384 "
                           "smem=0 abi=memref grid=";
  for (const char *bad :
       {"q_blocks", "q_blocks,heads_q", "q_blocks,heads_q,batch,splits",
        "q_blocks,,batch", "q_blocks*,heads_q,batch", "rows,heads_q,batch",
        "q_blocks,heads_q,batch,"})
    expectError(head + bad + "\n",
                "bad value '" + std::string(bad) + "' for 'grid'");
}

TEST(Manifest, DependentLaunchKey) {
  Manifest m;
  Status s = parse(
      "kernel name=m ptx=m.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 "
      "block_m=16 threads=32 smem=0 abi=memref program=merge_splits "
      "grid=q_blocks*8,heads_q,batch pdl=1\n"
      "kernel name=a ptx=a.ptx chip=sm_90a dtype=bf16 head_dim=128 causal=0 "
      "block_m=128 threads=384 smem=0 abi=memref pdl=0\n",
      m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(m.kernels[0].dependentLaunch);
  EXPECT_FALSE(m.kernels[1].dependentLaunch);
  // Written back only where set, so that the line round-trips.
  EXPECT_NE(formatManifestLine(m.kernels[0]).find(" pdl=1"), std::string::npos);
  EXPECT_EQ(formatManifestLine(m.kernels[1]).find("pdl"), std::string::npos);
  Manifest again;
  ASSERT_TRUE(parse(formatManifestLine(m.kernels[0]) + "\n", again).ok());
  EXPECT_TRUE(again.kernels[0].dependentLaunch);
  const std::string head = "kernel name=a ptx=a.ptx chip=sm_90a dtype=bf16 "
                           "head_dim=128 causal=0 block_m=128 threads=384 "
                           "smem=0 abi=memref pdl=";
  for (const char *bad : {"2", "yes", "01"})
    expectError(head + bad + "\n",
                "bad pdl '" + std::string(bad) + "': expected 0 or 1");
  expectError(head + "\n", "empty value for 'pdl'");
}

TEST(Manifest, BadSassKeys) {
  const std::string head = "kernel name=a ptx=a.ptx chip=sm_80 dtype=bf16 "
                           "head_dim=64 causal=0 block_m=64 threads=128 "
                           "smem=0 abi=memref ";
  expectError("# c\n" + head + "sass=sm_80\n",
              "manifest.txt:2: bad entry 'sm_80' in 'sass': expected "
              "chip:file[,chip:file...]");
  expectError(head + "sass=a.cubin\n", "bad entry 'a.cubin' in 'sass'");
  expectError(head + "sass=sm_80:a,\n", "bad entry '' in 'sass'");
  expectError(head + "sass=,sm_80:a\n", "bad entry '' in 'sass'");
  expectError(head + "sass=sm_80:a,,sm_86:b\n", "bad entry '' in 'sass'");
  expectError(head + "sass=sm_8x:a.cubin\n",
              "manifest.txt:1: bad chip 'sm_8x' in 'sass': expected sm_XY, "
              "sm_XYa or sm_XYf");
  expectError(head + "sass=:a.cubin\n", "bad chip '' in 'sass'");
  expectError(head + "sass=sm_86:\n", "no file for sm_86 in 'sass'");
  expectError(head + "sass=sm_86:a,sm_89:b,sm_86:c\n",
              "sm_86 is listed twice in 'sass'");
  expectError(head + "sass=sm_80:a sass=sm_86:b\n", "duplicate key 'sass'");
  expectError(head + "sass=\n", "empty value for 'sass'");
  // SASS that this line's PTX cannot have produced.
  expectError("\n" + head + "sass=sm_75:a.cubin\n",
              "manifest.txt:2: SASS for sm_75 in 'sass' cannot come from "
              "this line's sm_80 PTX (SASS is assembled for the PTX's chip "
              "or a later one)");
  expectError("kernel name=a ptx=a.ptx chip=sm_90a dtype=bf16 head_dim=64 "
              "causal=0 block_m=64 threads=128 smem=0 abi=memref "
              "sass=sm_90a:a,sm_90:b\n",
              "SASS for sm_90 in 'sass' cannot come from this line's sm_90a "
              "PTX (architecture-specific PTX assembles only for its own "
              "chip)");
  expectError("kernel name=a ptx=a.ptx sass=sm_80:a chip=sm_86 dtype=bf16 "
              "head_dim=64 causal=0 block_m=64 threads=128 smem=0 abi=memref\n",
              "SASS for sm_80 in 'sass' cannot come from this line's sm_86 "
              "PTX");
}

// The whole choice, as the runtime makes it for a bundle laid out like the
// default one (attn-bundle --chips sm_80,sm_90a --sass-chips
// sm_80,sm_86,sm_89,sm_90a): the variant by its PTX chip, then that
// variant's SASS for exactly the device's chip, else its PTX.
TEST(SelectSass, DefaultBundleLayout) {
  Manifest m;
  Status s =
      parse("kernel name=k ptx=k.sm_80.ptx chip=sm_80 dtype=bf16 head_dim=64 "
            "causal=0 block_m=64 threads=128 smem=0 abi=memref lse=0 "
            "sass=sm_80:k.sm_80.cubin,sm_86:k.sm_86.cubin,sm_89:k.sm_89.cubin\n"
            "kernel name=k ptx=k.sm_90a.ptx chip=sm_90a dtype=bf16 head_dim=64 "
            "causal=0 block_m=64 threads=128 smem=0 abi=memref lse=0 "
            "sass=sm_90a:k.sm_90a.cubin\n",
            m);
  ASSERT_TRUE(s.ok()) << s.message();
  ForwardProblem p;
  p.headDim = p.headDimV = 64;
  const struct {
    int major, minor;
    const char *image; // the file loaded
  } cases[] = {
      {8, 0, "k.sm_80.cubin"},
      {8, 6, "k.sm_86.cubin"},
      {8, 9, "k.sm_89.cubin"},
      {9, 0, "k.sm_90a.cubin"},
      // No cubin for the device: sm_80 PTX through the JIT.
      {8, 7, "k.sm_80.ptx"},
      {10, 0, "k.sm_80.ptx"},
      {12, 0, "k.sm_80.ptx"},
  };
  for (const auto &c : cases) {
    const KernelEntry *k = nullptr;
    Status sel = selectKernel(m, p, c.major, c.minor, k);
    ASSERT_TRUE(sel.ok()) << sel.message();
    int i = selectSass(*k, c.major, c.minor);
    EXPECT_EQ(i < 0 ? k->ptx : k->sass[size_t(i)].file, c.image)
        << "compute capability " << c.major << "." << c.minor;
  }
  const KernelEntry *k = nullptr;
  EXPECT_FALSE(selectKernel(m, p, 7, 5, k).ok());
}

TEST(Manifest, SeveralChipsCommentsTabsAndCRLF) {
  Manifest m;
  Status s =
      parse("kernel\tname=a ptx=a.sm_80.ptx chip=sm_80 dtype=f16 head_dim=64 "
            "causal=0 block_m=64 threads=128 smem=0 abi=memref # trailing "
            "comment\r\n"
            "kernel name=a ptx=a.sm_90a.ptx chip=sm_90a dtype=f16 head_dim=64 "
            "causal=0 block_m=128 threads=384 smem=200000 abi=memref\r\n",
            m);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kernels[0].headDimV, 64); // defaults to head_dim
  EXPECT_EQ(m.kernels[0].blockN, 0);    // optional
  EXPECT_EQ(m.kernels[1].chip.str(), "sm_90a");
  EXPECT_EQ(m.kernels[1].line, 2);
}

TEST(Manifest, UnknownKeysAreIgnoredWithAWarning) {
  Manifest m;
  std::string line = kLine;
  line.insert(line.size() - 1, " regs=168 spills=0");
  Status s = parse(line, m);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m.kernels.size(), 1u);
  ASSERT_EQ(m.warnings.size(), 2u);
  EXPECT_NE(m.warnings[0].find("manifest.txt:1: unknown key 'regs'"),
            std::string::npos)
      << m.warnings[0];
}

TEST(Manifest, MalformedLinesGiveLineNumbers) {
  const std::string good = kLine;
  expectError(good + "kernal name=x\n", "manifest.txt:2: expected 'kernel'");
  expectError("kernel name=x ptx\n", "manifest.txt:1: expected key=value");
  expectError("kernel =x\n", "expected key=value");
  expectError("kernel name=\n", "empty value for 'name'");
  expectError("# c\nkernel name=a name=b abi=memref\n",
              "manifest.txt:2: duplicate key 'name'");
  expectError("kernel name=a ptx=a.ptx chip=sm_80 dtype=bf16 head_dim=64 "
              "causal=0 block_m=64 threads=128\n",
              "missing key 'smem'");
  expectError("kernel name=a ptx=a.ptx chip=sm_75x dtype=bf16 head_dim=64 "
              "causal=0 block_m=64 threads=128 smem=0 abi=memref\n",
              "bad chip 'sm_75x'");
  expectError("kernel name=a ptx=a.ptx chip=sm_80 dtype=fp8 head_dim=64 "
              "causal=0 block_m=64 threads=128 smem=0 abi=memref\n",
              "bad dtype 'fp8'");
  expectError("kernel name=a ptx=a.ptx chip=sm_80 dtype=bf16 head_dim=6x4 "
              "causal=0 block_m=64 threads=128 smem=0 abi=memref\n",
              "bad value '6x4' for 'head_dim'");
  expectError("kernel name=a ptx=a.ptx chip=sm_80 dtype=bf16 head_dim=64 "
              "causal=2 block_m=64 threads=128 smem=0 abi=memref\n",
              "bad value '2' for 'causal'");
  expectError("kernel name=a ptx=a.ptx chip=sm_80 dtype=bf16 head_dim=64 "
              "causal=0 block_m=64 threads=100 smem=0 abi=memref\n",
              "not a multiple of 32");
  expectError("kernel name=a ptx=a.ptx chip=sm_80 dtype=bf16 head_dim=64 "
              "causal=0 block_m=64 threads=128 smem=-1\n",
              "bad value '-1' for 'smem'");
  expectError("kernel name=a ptx=a.ptx chip=sm_80 dtype=bf16 head_dim=64 "
              "causal=0 block_m=64 threads=128 smem=99999999999999999999 abi=memref\n",
              "for 'smem'");
  expectError("kernel name=9a ptx=a.ptx chip=sm_80 dtype=bf16 head_dim=64 "
              "causal=0 block_m=64 threads=128 smem=0 abi=memref\n",
              "bad kernel name '9a'");
  const std::string head = "kernel name=a ptx=a.ptx chip=sm_80 dtype=bf16 "
                           "head_dim=64 causal=0 block_m=64 threads=128 "
                           "smem=0 ";
  expectError(head + "abi=2\n", "manifest.txt:1: unsupported abi '2'");
  expectError("# c\n" + head + "abi=MEMREF\n",
              "manifest.txt:2: unsupported abi 'MEMREF'");
  expectError(head + "abi=memref2\n", "unsupported abi 'memref2'");
  expectError(head + "abi=memref abi=legacy\n", "duplicate key 'abi'");
  expectError(head + "abi=\n", "empty value for 'abi'");
  expectError("\n\n" + head + "lse=2\n",
              "manifest.txt:3: bad value '2' for 'lse': expected an integer "
              "in [0, 1]");
  expectError(head + "lse=yes\n", "bad value 'yes' for 'lse'");
  expectError(head + "lse=-1\n", "bad value '-1' for 'lse'");
  expectError(good + good, "manifest.txt:2: kernel "
                           "'attn_fwd_bf16_d128_causal' for sm_80 is listed "
                           "twice");
  expectError("# only comments\n\n", "no kernels");
  expectError("", "no kernels");
  expectError(std::string("kernel name=a") + '\0' + "b\n", "NUL byte");
}

TEST(Manifest, GarbageNeverCrashes) {
  // Every prefix of a good manifest, and some noise: an error or a result,
  // never a crash.
  std::string text = std::string(kLine) + kLine;
  text[text.size() / 2] = '=';
  for (size_t n = 0; n <= text.size(); ++n) {
    Manifest m;
    (void)parse(text.substr(0, n), m);
  }
  std::string noise;
  for (int i = 0; i < 2000; ++i)
    noise += char((i * 7919) % 251 + 1);
  Manifest m;
  EXPECT_FALSE(parse(noise, m).ok());
}

TEST(Bundle, LoadsADirectory) {
  TempDir dir;
  dir.write("manifest.txt", kLine);
  dir.write("attn_fwd_bf16_d128_causal.sm_80.ptx", "// ptx\n");
  Manifest m;
  Status s = loadBundle(dir.path(), m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.dir, dir.path());
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(ptxPath(m.dir, m.kernels[0]),
            dir.path() + "/attn_fwd_bf16_d128_causal.sm_80.ptx");
}

TEST(Bundle, MissingCubinFallsBackToPtxWithAWarning) {
  TempDir dir;
  dir.write("manifest.txt",
            "# header\n"
            "kernel name=a ptx=a.ptx chip=sm_80 dtype=bf16 head_dim=64 "
            "causal=0 block_m=64 threads=128 smem=0 "
            "sass=sm_80:a.sm_80.cubin,sm_86:a.sm_86.cubin abi=memref\n");
  dir.write("a.ptx", "// ptx\n");
  dir.write("a.sm_86.cubin", "\x7f"
                             "ELF");
  Manifest m;
  Status s = loadBundle(dir.path(), m);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m.kernels.size(), 1u);
  // The missing sm_80 cubin is gone: 8.0 gets the PTX; 8.6 its cubin.
  ASSERT_EQ(m.kernels[0].sass.size(), 1u);
  EXPECT_EQ(m.kernels[0].sass[0].chip.str(), "sm_86");
  EXPECT_EQ(selectSass(m.kernels[0], 8, 0), -1);
  EXPECT_EQ(selectSass(m.kernels[0], 8, 6), 0);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0], dir.path() + "/manifest.txt:2: SASS file '" +
                               dir.path() +
                               "/a.sm_80.cubin' for sm_80 not found: a will "
                               "be JIT-compiled from its PTX there");
}

TEST(Bundle, MissingManifestOrPtx) {
  TempDir dir;
  Manifest m;
  Status s = loadBundle(dir.path(), m);
  EXPECT_EQ(s.code(), StatusCode::BundleError);
  EXPECT_NE(s.message().find("no kernel bundle: cannot read '" + dir.path() +
                             "/manifest.txt'"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("ATTN_BUNDLE_DIR"), std::string::npos);

  dir.write("manifest.txt", std::string("# header\n") + kLine);
  s = loadBundle(dir.path(), m);
  EXPECT_EQ(s.code(), StatusCode::BundleError);
  EXPECT_NE(s.message().find("manifest.txt:2: PTX file"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("not found"), std::string::npos);
}

} // namespace
