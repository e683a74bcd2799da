//===- Pipelines.h - attn pass pipelines ------------------------*- C++ -*-===//
#ifndef ATTN_PIPELINES_PIPELINES_H
#define ATTN_PIPELINES_PIPELINES_H

#include "attn/Conversion/Passes.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "attn/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>

namespace mlir::attn {

/// The instruction sets the CPU pipeline generates code for, each level
/// including the ones below it:
///   avx2        8-lane f32 FMAs (4×16 register tiles, 8 accumulators);
///   avx512      16-lane f32 FMAs (8×32 register tiles, 16 accumulators),
///               exp2 through vscalefps;
///   avx512bf16  bf16 products as vdpbf16ps register tiles (two
///               multiply-adds a lane per instruction), P and O rounded by
///               the conversion instruction;
///   amx         bf16 products on the AMX tile unit, the rest as avx512bf16.
/// The bf16 products of the two top levels are attn-lower-cpu-bf16-
/// contractions' (pair-interleaved operands packed by
/// attn-vectorize-cpu-tiles{vnni}).
enum class CPUFeatures { AVX2, AVX512, AVX512BF16, AMX };

/// Every level, lowest first.
constexpr CPUFeatures kCPUFeatureLevels[] = {
    CPUFeatures::AVX2, CPUFeatures::AVX512, CPUFeatures::AVX512BF16,
    CPUFeatures::AMX};
/// "avx2", "avx512", "avx512bf16", "amx": the one spelling of each level
/// (the pipeline option, attn-run's flag and messages).
llvm::StringRef cpuFeaturesName(CPUFeatures level);
std::optional<CPUFeatures> parseCPUFeatures(llvm::StringRef name);
/// The level attn-run compiles for on this host by default
/// (llvm::sys::getHostCPUFeatures): amx where the host has amx-tile,
/// amx-bf16 and avx512bf16, else avx512bf16 where it has avx512bf16 (two
/// bf16 multiply-adds a lane per instruction: 1.8-2.0x avx512's f32 FMA
/// tiles on Zen 5), else avx512 where it has avx512f, else avx2. (On
/// Sapphire Rapids vdpbf16ps issues on one port where FMAs use two and
/// measured 0.77x avx512, but that host has AMX.)
CPUFeatures hostCPUFeatures();
/// The LLVM feature names `level` needs that this host lacks (comma-
/// separated; empty when the host runs it).
std::string missingCPUFeatures(CPUFeatures level);
/// LLVM target features to turn off so that code for `level` on this host
/// uses nothing above it (comma-separated "-feature" list, empty for the
/// host's own level): e.g. "-avx512f,-amx-tile,..." for avx2.
std::string cpuFeaturesToDisable(CPUFeatures level);

/// attn-tile-pipeline's and attn-cpu-pipeline's knobs; a knob that sets one
/// pass option takes its default from that pass's options.
struct TilingPipelineOptions
    : public PassPipelineOptions<TilingPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Target when the IR names none"),
                             llvm::cl::init(AttnTileAttentionOptions().target)};
  Option<int64_t> blockQ{*this, "block-q",
                         llvm::cl::desc("Query block rows (0: derive)"),
                         llvm::cl::init(AttnTileAttentionOptions().blockQ)};
  Option<int64_t> blockKV{*this, "block-kv",
                          llvm::cl::desc("Key/value block rows (0: derive)"),
                          llvm::cl::init(AttnTileAttentionOptions().blockKV)};
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Fuse the softmax into one online pass "
                                   "(off: keep the naive three-pass form)"),
                    llvm::cl::init(true)};
  Option<double> rescaleThreshold{
      *this, "rescale-threshold",
      llvm::cl::desc("attn-fuse-online-softmax's τ: move a row's reference "
                     "max only when a block raises it by more than τ/c (0: "
                     "always)"),
      llvm::cl::init(AttnFuseOnlineSoftmaxOptions().rescaleThreshold)};
  Option<int64_t> cpuTileM{
      *this, "cpu-tile-m",
      llvm::cl::desc("CPU pipeline: rows of a contraction's register tile "
                     "(attn-vectorize-cpu-tiles tile-m; 0: its default)"),
      llvm::cl::init(0)};
  Option<int64_t> cpuTileN{
      *this, "cpu-tile-n",
      llvm::cl::desc("CPU pipeline: columns of a contraction's register tile "
                     "(attn-vectorize-cpu-tiles tile-n; 0: its default)"),
      llvm::cl::init(0)};
  Option<CPUFeatures> cpuFeatures{
      *this, "cpu-features",
      llvm::cl::desc("CPU pipeline: the instruction sets to generate code "
                     "for (attn-run's --cpu-features; its default is the "
                     "host's)"),
      llvm::cl::init(CPUFeatures::AVX2),
      llvm::cl::values(
          clEnumValN(CPUFeatures::AVX2, cpuFeaturesName(CPUFeatures::AVX2),
                     "AVX2 FMAs: 4x16 register tiles"),
          clEnumValN(CPUFeatures::AVX512, cpuFeaturesName(CPUFeatures::AVX512),
                     "AVX-512 FMAs: 8x32 register tiles"),
          clEnumValN(CPUFeatures::AVX512BF16,
                     cpuFeaturesName(CPUFeatures::AVX512BF16),
                     "AVX-512 with bf16 products on vdpbf16ps register tiles"),
          clEnumValN(CPUFeatures::AMX, cpuFeaturesName(CPUFeatures::AMX),
                     "bf16 products on AMX tiles, the rest AVX-512"))};
  Option<unsigned> threads{
      *this, "threads",
      llvm::cl::desc("CPU pipeline: OpenMP threads that run the grid of "
                     "(batch, head, query block) tiles (0: the OpenMP "
                     "runtime's default, OMP_NUM_THREADS)"),
      llvm::cl::init(0)};
};

/// attn.attention -> tile level: IO-aware tiling, then (unless disabled)
/// online-softmax fusion, then cleanup.
void buildTilingPipeline(OpPassManager &pm, const TilingPipelineOptions &opts);

/// attn.attention -> LLVM dialect for the host: tiling, fusion, lowering of
/// the tile ops to linalg, bufferization, loops, LLVM. The grid loop becomes
/// an OpenMP worksharing loop (dynamic schedule, `opts.threads` threads): the
/// output calls the OpenMP runtime (__kmpc_*), so a JIT must load libomp.
void buildCPUPipeline(OpPassManager &pm, const TilingPipelineOptions &opts);

/// attn-codegen's knobs. A knob that sets a pass option takes its default
/// from that pass's options (Passes.td is the one definition); rotate,
/// pingpong, overlap-products, producer and defer-row-sums say whether their
/// pass runs (it then runs with its own defaults), and rescale-threshold is
/// the GPU's τ.
struct CodegenPipelineOptions
    : public PassPipelineOptions<CodegenPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("GPU chip (attn/runtime/Chips.h)"),
                           llvm::cl::init(AttnSelectGPUBlocksOptions().chip)};
  Option<int64_t> blockQ{*this, "block-q",
                         llvm::cl::desc("Query block rows (0: heuristic)"),
                         llvm::cl::init(AttnSelectGPUBlocksOptions().blockQ)};
  Option<int64_t> blockKV{*this, "block-kv",
                          llvm::cl::desc("Key/value block rows (0: heuristic)"),
                          llvm::cl::init(AttnSelectGPUBlocksOptions().blockKV)};
  Option<int64_t> mTiles{*this, "m-tiles",
                         llvm::cl::desc("16-row m-tiles per warp (0: auto)"),
                         llvm::cl::init(AttnAssignLayoutsOptions().mTiles)};
  Option<int64_t> qInRegisters{
      *this, "q-in-registers",
      llvm::cl::desc("Q fragments in registers: 1, 0 (-1: auto)"),
      llvm::cl::init(AttnAssignLayoutsOptions().qInRegisters)};
  Option<int64_t> wgmma{
      *this, "wgmma",
      llvm::cl::desc("Hopper warpgroup MMA (sm_90a): 1, 0 (-1: where the chip "
                     "has it and the head dims are multiples of 64)"),
      llvm::cl::init(AttnAssignLayoutsOptions().wgmma)};
  Option<int64_t> skipUnitFactors{
      *this, "skip-unit-factors",
      llvm::cl::desc("attn-assign-layouts: skip the accumulator's rescale in "
                     "threads whose rows' factors are all 1: 1, 0 (-1: where "
                     "measured to pay)"),
      llvm::cl::init(AttnAssignLayoutsOptions().skipUnitFactors)};
  Option<int64_t> polynomialExp2{
      *this, "polynomial-exp2",
      llvm::cl::desc("attn-assign-layouts: one exponential of a rounded P "
                     "tile in K on the FMA pipe (0: none)"),
      llvm::cl::init(AttnAssignLayoutsOptions().polynomialExp2)};
  Option<int64_t> carryQuotients{
      *this, "carry-quotients",
      llvm::cl::desc("attn-carry-quotients before the conversion: loops' "
                     "divisions of the induction variable carried (1) or "
                     "computed every step (0)"),
      llvm::cl::init(1)};
  Option<int64_t> prefetchVectors{
      *this, "prefetch-vectors",
      llvm::cl::desc("attn-prefetch-vectors: per-column vectors of a loop "
                     "(the backward's LSE and Δ) loaded a step ahead, at "
                     "most this many a loop (0: none)"),
      llvm::cl::init(AttnPrefetchVectorsOptions().maxLoads)};
  Option<bool> prefetchMasked{
      *this, "prefetch-masked",
      llvm::cl::desc("attn-prefetch-vectors also in loops with a mask"),
      llvm::cl::init(AttnPrefetchVectorsOptions().maskedLoops)};
  // A 16-bit score bias's window a step ahead: H200, bf16 D = 128, a bf16
  // bias [1, H, N, N], N 1k-4k, +5..7% (B C C B), no spill (bf16 D = 64,
  // 128, 256, f16, causal: the same registers; D = 256's 12 bytes of
  // spills without it are gone).
  Option<bool> prefetchWindows{
      *this, "prefetch-windows",
      llvm::cl::desc("attn-prefetch-vectors also a 2-d register window a "
                     "loop (a score bias's block)"),
      llvm::cl::init(true)};
  // A score bias's window (16-bit or f32) through shared memory: a ring the
  // producer fills with bulk tensor copies like K and V (wgmma programs
  // of two or more warpgroups; the runtime encodes the bias's tensor map
  // and serves such kernels only biases of 16-byte aligned rows). H200,
  // bf16 D = 128, a bf16 bias [1, H, N, N], N 1k-4k: 219-251 -> 333-371
  // TFLOP/s (+51..56%, A B B A; 1.25-1.32x cuDNN's kernel with the bias);
  // an f32 bias 193-211 -> 303-337 (+57..59%).
  Option<bool> stageWindows{
      *this, "stage-windows",
      llvm::cl::desc("attn-assign-layouts: a 16-bit or f32 column window "
                     "that no product reads (a score bias's block) read "
                     "through shared memory, filled by bulk tensor copies"),
      llvm::cl::init(true)};
  Option<int64_t> tensorReduce{
      *this, "tensor-reduce",
      llvm::cl::desc("attn-assign-layouts: the backward's dQ sums staged in "
                     "128-byte slabs and added with bulk tensor reductions "
                     "(1) or one bulk reduction a row (0)"),
      llvm::cl::init(AttnAssignLayoutsOptions().tensorReduce)};
  Option<int64_t> mbarriers{
      *this, "mbarriers",
      llvm::cl::desc("K/V rings synchronised per slot (mbarriers) instead of "
                     "copy groups and program-wide barriers: 1, 0 (-1: for "
                     "wgmma programs)"),
      llvm::cl::init(AttnPipelineKVLoopOptions().mbarriers)};
  Option<bool> rotate{
      *this, "rotate",
      llvm::cl::desc("Run attn-rotate-kv-loop (each block's softmax under the "
                     "next block's Q·Kᵀ where that pass applies)"),
      llvm::cl::init(true)};
  Option<int64_t> pingpong{
      *this, "pingpong",
      llvm::cl::desc("Run attn-alternate-warpgroups (the warpgroups of a "
                     "wgmma program take turns at their products): 0 off, "
                     "N > 0 its min-warpgroups (-1: its default)"),
      llvm::cl::init(-1)};
  Option<bool> overlapProducts{
      *this, "overlap-products",
      llvm::cl::desc("Run attn-overlap-products (each warpgroup product "
                     "started as soon as its operands exist, waited for "
                     "where its value is read)"),
      llvm::cl::init(true)};
  Option<bool> chainGrids{
      *this, "chain-grids",
      llvm::cl::desc("Run attn-chain-grids (split_kv and merge_splits "
                     "programs wait for the grid before them and may be "
                     "launched under its tail; sm_90 and later)"),
      llvm::cl::init(true)};
  Option<int64_t> producer{
      *this, "producer",
      llvm::cl::desc("Run attn-specialize-warpgroups (producer warpgroups "
                     "issue the copies into a wgmma program's rings): 0 off, "
                     "N > 0 its warpgroups (-1: its default)"),
      llvm::cl::init(-1)};
  Option<int64_t> persistent{
      *this, "persistent",
      llvm::cl::desc("Run attn-persist-tiles (warp-specialised grids of one "
                     "program a multiprocessor, each looping over tiles): 0 "
                     "off, 1 grids without a causal mask, 2 all (tiles "
                     "claimed at run time where they fit: dynamic-tiles)"),
      llvm::cl::init(2)};
  Option<int64_t> dynamicTiles{
      *this, "dynamic-tiles",
      llvm::cl::desc("attn-persist-tiles' dynamic (grids that claim tiles "
                     "from a counter at run time: 0 none, 1 causal, 2 all)"),
      llvm::cl::init(AttnPersistTilesOptions().dynamic)};
  Option<int64_t> causalGroupRounds{
      *this, "causal-group-rounds",
      llvm::cl::desc("attn-persist-tiles' causal-group-rounds"),
      llvm::cl::init(AttnPersistTilesOptions().causalGroupRounds)};
  Option<int64_t> producerRegisters{
      *this, "producer-registers",
      llvm::cl::desc("Registers per producer thread (setmaxnreg; 0: leave; "
                     "-1: attn-specialize-warpgroups' default)"),
      llvm::cl::init(AttnSpecializeWarpgroupsOptions().producerRegisters)};
  Option<int64_t> splitKvMaxTileBytes{
      *this, "split-kv-max-tile-bytes",
      llvm::cl::desc("attn-specialize-warpgroups' split-kv-max-tile-bytes "
                     "(split_kv programs with larger ring slots keep their "
                     "copies; 0: any size gets a producer)"),
      llvm::cl::init(AttnSpecializeWarpgroupsOptions().splitKvMaxTileBytes)};
  Option<int64_t> bulkCopies{
      *this, "bulk-copies",
      llvm::cl::desc("The producer's copies as bulk tensor copies (TMA): 1, "
                     "0 (-1: on sm_90 and later)"),
      llvm::cl::init(AttnSpecializeWarpgroupsOptions().bulkCopies)};
  Option<int64_t> kvStages{
      *this, "kv-stages",
      llvm::cl::desc("attn-pipeline-kv-loop's stages: K/V ring slots (0: "
                     "auto; 1: one slot per load, K and V in phases)"),
      llvm::cl::init(AttnPipelineKVLoopOptions().stages)};
  /// Lazy rescaling on the GPU: the backend skips O·α where α = 1, i.e. in
  /// every key block that does not raise a row's max by more than 8/c
  /// (P <= 2^8). The CPU path keeps the pass's default (0: exact maxima).
  Option<double> rescaleThreshold{
      *this, "rescale-threshold",
      llvm::cl::desc("attn-fuse-online-softmax's τ on the GPU"),
      llvm::cl::init(8.0)};
  Option<bool> deferRowSums{
      *this, "defer-row-sums",
      llvm::cl::desc("Run attn-defer-row-sums (the row sum's cross-lane "
                     "reduction once after the loop instead of per block)"),
      llvm::cl::init(true)};
  Option<int64_t> groupBlocks{
      *this, "group-blocks",
      llvm::cl::desc("Causal block order: thread blocks per group of heads "
                     "run longest first (-1: 4 per SM; 0: one head's query "
                     "blocks together)"),
      llvm::cl::init(ConvertAttnGPUToNVVMOptions().groupBlocks)};
  Option<int64_t> fragmentPrefetch{
      *this, "fragment-prefetch",
      llvm::cl::desc("attn.dot: B-fragment ldmatrix issued this many steps "
                     "before the mma.sync that reads it (-1: the backend's "
                     "default)"),
      llvm::cl::init(ConvertAttnGPUToNVVMOptions().fragmentPrefetch)};
  Option<int64_t> llvmOptLevel{
      *this, "llvm-opt-level",
      llvm::cl::desc("LLVM's optimisation level (0-3) for the NVVM module "
                     "before PTX (ptxas optimises the PTX in any case)"),
      llvm::cl::init(3)};
};

/// The GPU chips the code generator accepts.
bool isSupportedChip(llvm::StringRef chip);

/// attn.attention -> the tile level (blocks for the chip) -> a GPU kernel
/// (layouts, pipelining, convert-attn-gpu-to-nvvm); stops before lowering
/// the gpu.module.
void buildGPUKernelPipeline(OpPassManager &pm,
                            const CodegenPipelineOptions &opts);

/// The gpu.module -> NVVM -> LLVM -> PTX (a gpu.binary in isa format).
void buildGPUSerializePipeline(OpPassManager &pm,
                               const CodegenPipelineOptions &opts);

/// Both: attn.attention to PTX. `opts.chip` must satisfy isSupportedChip.
void buildGPUCodegenPipeline(OpPassManager &pm,
                             const CodegenPipelineOptions &opts);

/// One generated kernel: its PTX and what a launcher needs (the kernel's
/// attn.kernel attribute).
struct CompiledKernel {
  std::string name, ptx, dtype, chip;
  int64_t blockM = 0, blockN = 0, threads = 0, smemBytes = 0, headDim = 0,
          headDimV = 0;
  bool causal = false;
  /// Its sliding window's bounds (the manifest's window=); -1: none.
  int64_t windowLeft = -1, windowRight = -1;
  /// Its scores' soft-cap (the manifest's softcap=, an f32); 0: none.
  float softcap = 0;
  /// Whether it adds ALiBi's bias and takes the slopes (the manifest's
  /// alibi=1; the attention's alibi operand, before the pipeline expands it).
  bool alibi = false;
  /// The element type of the score bias it adds and takes (the manifest's
  /// bias=: "f32", "f16" or "bf16"; the attention's bias operand, the
  /// function argument just before the scale); empty: none.
  std::string bias;
  /// dropout=1; the attention's dropout operands (the function's last
  /// three arguments, after the scale).
  bool dropout = false;
  /// Whether the kernel writes the LSE (it does when it has the operand).
  bool lse = true;
  /// Whether it waits for the grids before it on the stream before it
  /// touches memory (attn.wait_prior_grids; the manifest's pdl=1).
  bool dependentLaunch = false;
  /// The tensor maps it takes after its memrefs (bulk copies), as the
  /// manifest's tensor_maps= value (runtime KernelABI.h's
  /// formatTensorMaps); empty for none.
  std::string tensorMaps;
  /// What it computes (the manifest's program=): "attention", "split_kv"
  /// or "merge_splits".
  std::string program = "attention";
  /// Where its keys and values live (the manifest's kv=): "dense",
  /// "seqlens" or "paged".
  std::string kv = "dense";
  /// A paged kernel's static page size (the manifest's page=); 0: any.
  int64_t pageSize = 0;
  /// The query rows from which / up to which the kernel is meant to be
  /// picked (the manifest's min_seq_q= and max_seq_q=; set by whoever builds
  /// a length-tuned twin, e.g. attn-bundle's queryBlockTwins kernels); 0: no
  /// bound.
  int64_t minSeqQ = 0;
  int64_t maxSeqQ = 0;
  /// The launch grid (x, y, z) it describes, as the manifest's grid= value
  /// (runtime KernelABI.h's formatLaunchGrid); empty if the program did not
  /// say.
  std::string grid;
};

/// Wall time of compileGPUKernel's stages, in milliseconds.
struct CompileTimings {
  /// attn.attention -> the kernel in the gpu.module (tiling, fusion,
  /// layouts, pipelining, the per-op lowering), then NVVM -> LLVM dialect.
  double passesMs = 0;
  /// gpu-module-to-binary: translation to LLVM IR, LLVM's optimisation
  /// pipeline and the NVPTX backend.
  double llvmMs = 0;
};
/// Runs attn-codegen on `module` (in place) and returns its one kernel.
/// Diagnostics go to the context's handlers. `timings`, if given, receives
/// the time of each stage.
FailureOr<CompiledKernel> compileGPUKernel(ModuleOp module,
                                           const CodegenPipelineOptions &opts,
                                           CompileTimings *timings = nullptr);
/// The same for a module that makes several kernels, in launch order (an
/// attn.attention_grad: grad_q, then grad_kv); each CompiledKernel carries
/// the whole PTX module (all kernels) and its own name and description.
FailureOr<std::vector<CompiledKernel>>
compileGPUKernels(ModuleOp module, const CodegenPipelineOptions &opts,
                  CompileTimings *timings = nullptr);

/// The function the runtime launches as one kernel (runtime KernelABI.h, the
/// memref ABI) of `program`, the manifest's spelling (runtime Bundle.h:
/// "attention", "split_kv", "merge_splits", "grad_q" or "grad_kv";
/// anything else gives null):
/// `name` around one attn op, with run-time sizes, strides
/// (head dim contiguous: an identity layout would let the compiler fold a
/// row stride) and scale, so that one kernel serves every shape and scale:
///   attention     (q, k, v, o[, lse][, lens[, table]], scale)
///   split_kv      (q, k, v, O_s, LSE_s[, lens[, table]], scale)
///   merge_splits  (O_s, LSE_s, o[, lse])
///   grad_q, grad_kv (dO, q, k, v, o, lse, dQ, dK, dV, delta, scale): the
///                 attn.attention_grad problem, whose compile makes both
///                 kernels (the dense problem of 16-bit tensors only)
/// Q and K have `headDim` columns, V and O `headDimV`; the partials are
/// contiguous f32 (the runtime's workspace). `kv` (the manifest's kv=:
/// "dense", "seqlens", "paged", "varlen") adds a packed batch's offsets
/// cu_q and cu_k [B + 1] i32 (varlen, the forward only), or the KV cache's
/// key counts [B] i32 and, paged, its block table [B, max_pages] i32 (K and
/// V are then pages of
/// `pageSize` rows: 0 leaves it a run-time size, which must then be a
/// multiple of the kernel's key block; a static one shrinks the block to
/// fit). `windowLeft`/`windowRight` (>= 0) and `softcap` (> 0) set the
/// attention's window and soft-cap; `alibi` adds the slopes memref<?xf32>
/// argument just before the scale and the attention's alibi operand (the
/// dense forward only); `dropout` adds the rate (f32), Philox key (i64) and
/// offset (i32) arguments after the scale and the attention's dropout
/// operands (the dense forward only). An f8E4M3FN `elementType` is fp8
/// (the dense forward only): O in bf16, V transposed [B, Hkv, Dv, Nk], and
/// after the scale q_descale, k_descale, v_descale (f32). `packHeads` sets
/// the attention's pack_query_heads (the forward and split_kv, dense or a
/// KV cache, no window, soft-cap, ALiBi, dropout or fp8). A `biasType`
/// (f32 or `elementType`; null: none) adds a score bias [1|B, 1|Hq, Nq, Nk]
/// of it as the argument just before the scale (after ALiBi's slopes) and
/// the attention's bias operand (the dense 16-bit forward only). The one
/// builder of these problems: the bundle and libattn_jit both call it.
OwningOpRef<ModuleOp>
buildKernelProblem(MLIRContext &ctx, llvm::StringRef program, Type elementType,
                   int64_t headDim, int64_t headDimV, bool causal, bool withLse,
                   llvm::StringRef kv, llvm::StringRef name,
                   int64_t pageSize = 0, int64_t windowLeft = -1,
                   int64_t windowRight = -1, float softcap = 0,
                   bool alibi = false, bool dropout = false,
                   bool packHeads = false, Type biasType = Type());

/// The runtime's manifest.txt line for `k`, whose PTX is in file `ptxFile`.
std::string manifestLine(const CompiledKernel &k, llvm::StringRef ptxFile);

/// Registers `attn-tile-pipeline`, `attn-cpu-pipeline`, `attn-codegen`.
void registerAttnPipelines();

/// Registers every attn pass and pipeline.
void registerAllAttnPasses();

/// Adds the attn dialect and every upstream dialect and interface model the
/// pipelines use (bufferization and deallocation models included).
void registerAttnDialects(DialectRegistry &registry);

} // namespace mlir::attn

#endif // ATTN_PIPELINES_PIPELINES_H
