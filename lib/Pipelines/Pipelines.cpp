//===- Pipelines.cpp - attn pass pipelines ----------------------*- C++ -*-===//
#include "attn/Pipelines/Pipelines.h"
#include "attn/runtime/Bundle.h"
#include "attn/runtime/Chips.h"
#include "attn/runtime/KernelABI.h"

#include "attn/Conversion/KernelDType.h"
#include "attn/Conversion/Passes.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>

using namespace mlir;
using namespace mlir::attn;

void mlir::attn::buildTilingPipeline(OpPassManager &pm,
                                     const TilingPipelineOptions &opts) {
  // Built-ins as the score_mod regions they are (ALiBi).
  pm.addPass(createAttnExpandAlibi());
  // For a GPU target, the blocks attn-codegen would choose (the kernel's
  // register and shared-memory budget), not the FlashAttention rule alone:
  // the tile level shown is the one the GPU kernel is built from.
  if (isSupportedChip(opts.target)) {
    AttnSelectGPUBlocksOptions select;
    select.chip = opts.target;
    select.blockQ = opts.blockQ;
    select.blockKV = opts.blockKV;
    pm.addPass(createAttnSelectGPUBlocks(select));
  }
  AttnTileAttentionOptions tileOpts;
  tileOpts.target = opts.target;
  tileOpts.blockQ = opts.blockQ;
  tileOpts.blockKV = opts.blockKV;
  tileOpts.amxBlocks = opts.cpuFeatures == CPUFeatures::AMX;
  pm.addPass(createAttnTileAttention(tileOpts));
  if (opts.fuse) {
    AttnFuseOnlineSoftmaxOptions fuse;
    fuse.rescaleThreshold = opts.rescaleThreshold;
    pm.addPass(createAttnFuseOnlineSoftmax(fuse));
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::attn::buildCPUPipeline(OpPassManager &pm,
                                  const TilingPipelineOptions &opts) {
  buildTilingPipeline(pm, opts);
  // Tile ops -> linalg on tensors -> buffers.
  pm.addPass(createConvertAttnToLinalg());
  pm.addPass(createConvertElementwiseToLinalgPass());
  // Tiles -> register tiles and rows -> vector code (FMAs, polynomial exp).
  // The register tile by the host's vector registers: with AVX-512 (32
  // registers of 16 f32) 8×32 keeps 16 accumulators in flight for the two
  // FMA ports; with AVX2 (16 of 8) the pass's 4×16 (8 accumulators; 8×32
  // would need 32 and spill). Xeon with AVX-512 and AMX, B 2 H 8 N 2048
  // D 128, 2 threads: 8×32 270 vs 4×16 192 GFLOP/s f32, 265 vs 190 bf16,
  // causal 242 vs 177 (8×16 241, 4×32 252, 16×16 272).
  CPUFeatures level = opts.cpuFeatures;
  bool amx = level == CPUFeatures::AMX;
  // bf16 products in pair-interleaved form, for tiles or vdpbf16ps.
  bool bf16Products = level >= CPUFeatures::AVX512BF16;
  AttnVectorizeCPUTilesOptions tiles;
  if (level != CPUFeatures::AVX2) {
    tiles.tileM = 8;
    tiles.tileN = 32;
    tiles.avx512 = true;
    tiles.rowChunk = 32;
  }
  if (opts.cpuTileM > 0)
    tiles.tileM = opts.cpuTileM;
  if (opts.cpuTileN > 0)
    tiles.tileN = opts.cpuTileN;
  tiles.vnni = bf16Products;
  pm.addNestedPass<func::FuncOp>(createAttnVectorizeCPUTiles(tiles));
  // bf16 rounding (P, the output) as integer vector ops: without it each
  // element is a call (or a long scalar sequence) on a host without native
  // bf16 (AVX2). AVX512-BF16 rounds with one vcvtneps2bf16 per 16 values.
  arith::ArithExpandOpsPassOptions expandOpts;
  expandOpts.includeBf16 = !bf16Products;
  pm.addPass(arith::createArithExpandOpsPass(expandOpts));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  bufferization::OneShotBufferizePassOptions bufOpts;
  bufOpts.bufferizeFunctionBoundaries = true;
  // Loop-carried tiles (m, l, acc) are new values each iteration.
  bufOpts.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufOpts));
  // The bf16 products left for the tile unit, on buffers.
  if (bf16Products) {
    AttnLowerCPUBF16ContractionsOptions bf16Opts;
    bf16Opts.amx = amx;
    pm.addNestedPass<func::FuncOp>(
        createAttnLowerCPUBF16Contractions(bf16Opts));
  }
  // The register tiles' accumulators stay in registers across k; vector
  // transfers -> loads/stores of 1-D vectors -> LLVM.
  pm.addNestedPass<func::FuncOp>(createAttnHoistVectorTransfers());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createConvertVectorToSCFPass());
  // Row sums (l += rowsum(P)) as a tree of vector adds: an ordered
  // reduction is 128 dependent scalar adds per row (~450 cycles), ~8% of
  // the f32 kernel's time. The order of a sum of positive terms changes
  // its last bits only.
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.reassociateFPReductions = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(createUBToLLVMConversionPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  // The AMX and AVX-512 ops to their LLVM intrinsics after the deallocation
  // pipeline, which takes intrinsic calls for ops of unknown memory effects.
  if (level != CPUFeatures::AVX2) {
    ConvertVectorToLLVMPassOptions x86ToLLVM;
    x86ToLLVM.amx = amx;
    x86ToLLVM.x86Vector = true;
    pm.addPass(createConvertVectorToLLVMPass(x86ToLLVM));
  }
  // Buffers -> loops -> LLVM.
  pm.addPass(createConvertLinalgToLoopsPass());
  // The grid scf.forall (batch, head, query block) -> scf.parallel -> one
  // OpenMP worksharing loop (omp.parallel > omp.wsloop > omp.loop_nest,
  // collapse(3)) on `opts.threads` threads (0: OMP_NUM_THREADS or the
  // runtime's default). It is the only scf.forall: the loops inside it are
  // scf.for by now, and stay sequential. Buffers allocated in the body
  // (memref.alloc, freed in the body) belong to one iteration of one thread.
  pm.addPass(createForallToParallelLoopPass());
  ConvertSCFToOpenMPPassOptions ompOpts;
  ompOpts.numThreads = opts.threads;
  pm.addPass(createConvertSCFToOpenMPPass(ompOpts));
  // Dynamic schedule, the body as a stack scope, no shared stack buffers.
  pm.addPass(createAttnFinishOpenMPGrid());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // bf16 vectors through memory as i16 (whole-register moves on hosts
  // without native bf16, instead of one move per element).
  pm.addPass(createAttnLegalizeBF16Memory());
}

llvm::StringRef mlir::attn::cpuFeaturesName(CPUFeatures level) {
  switch (level) {
  case CPUFeatures::AVX2:
    return "avx2";
  case CPUFeatures::AVX512:
    return "avx512";
  case CPUFeatures::AVX512BF16:
    return "avx512bf16";
  case CPUFeatures::AMX:
    return "amx";
  }
  llvm_unreachable("unknown CPU feature level");
}

std::optional<CPUFeatures> mlir::attn::parseCPUFeatures(llvm::StringRef name) {
  for (CPUFeatures level : kCPUFeatureLevels)
    if (name == cpuFeaturesName(level))
      return level;
  return std::nullopt;
}

CPUFeatures mlir::attn::hostCPUFeatures() {
  llvm::StringMap<bool> f = llvm::sys::getHostCPUFeatures();
  if (f.lookup("amx-tile") && f.lookup("amx-bf16") && f.lookup("avx512bf16"))
    return CPUFeatures::AMX;
  if (f.lookup("avx512f") && f.lookup("avx512bf16"))
    return CPUFeatures::AVX512BF16;
  if (f.lookup("avx512f"))
    return CPUFeatures::AVX512;
  return CPUFeatures::AVX2;
}

std::string mlir::attn::missingCPUFeatures(CPUFeatures level) {
  llvm::StringMap<bool> f = llvm::sys::getHostCPUFeatures();
  SmallVector<StringRef> needed = {"avx2", "fma"};
  if (level >= CPUFeatures::AVX512)
    needed.push_back("avx512f");
  if (level >= CPUFeatures::AVX512BF16)
    needed.push_back("avx512bf16");
  if (level == CPUFeatures::AMX)
    needed.append({"amx-tile", "amx-bf16"});
  SmallVector<StringRef> missing;
  for (StringRef name : needed)
    if (!f.lookup(name))
      missing.push_back(name);
  return llvm::join(missing, ", ");
}

std::string mlir::attn::cpuFeaturesToDisable(CPUFeatures level) {
  // Turning off avx512f turns off every AVX-512 extension that implies it;
  // the AMX features stand alone.
  llvm::StringMap<bool> f = llvm::sys::getHostCPUFeatures();
  SmallVector<std::string> off;
  if (level == CPUFeatures::AVX2 && f.lookup("avx512f"))
    off.push_back("-avx512f");
  if (level == CPUFeatures::AVX512 && f.lookup("avx512bf16"))
    off.push_back("-avx512bf16");
  if (level != CPUFeatures::AMX)
    for (StringRef amxFeature :
         {"amx-tile", "amx-bf16", "amx-int8", "amx-fp16", "amx-complex"})
      if (f.lookup(amxFeature))
        off.push_back(("-" + amxFeature).str());
  return llvm::join(off, ",");
}

bool mlir::attn::isSupportedChip(llvm::StringRef chip) {
  return ::attn::findChip(chip) != nullptr;
}

/// Whether score bias windows are staged in shared memory: the option, and
/// only where a producer's bulk copies fill the rings (the only copies
/// that take a window).
static bool stagesWindows(const CodegenPipelineOptions &opts) {
  return opts.stageWindows && opts.producer != 0 && opts.bulkCopies != 0;
}

void mlir::attn::buildGPUKernelPipeline(OpPassManager &pm,
                                        const CodegenPipelineOptions &opts) {
  pm.addPass(createAttnExpandAlibi());
  // The GPU blocks come from the register/shared-memory budget of the
  // mma.sync kernel, per head dim; the tiling pass records them per op.
  AttnSelectGPUBlocksOptions select;
  select.chip = opts.chip;
  select.blockQ = opts.blockQ;
  select.blockKV = opts.blockKV;
  select.wgmma = opts.wgmma;
  select.stageWindows = stagesWindows(opts);
  pm.addPass(createAttnSelectGPUBlocks(select));
  AttnTileAttentionOptions tileOpts;
  tileOpts.target = opts.chip;
  pm.addPass(createAttnTileAttention(tileOpts));
  AttnFuseOnlineSoftmaxOptions fuse;
  fuse.rescaleThreshold = opts.rescaleThreshold;
  pm.addPass(createAttnFuseOnlineSoftmax(fuse));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Deferred row sums in wgmma programs at every width: +1..2% at D = 128
  // and +1..4% at D = 256 (H200, N = 2k and 16k, one run).
  if (opts.deferRowSums) {
    AttnDeferRowSumsOptions defer;
    defer.wgmma = opts.wgmma;
    pm.addPass(createAttnDeferRowSums(defer));
  }
  AttnAssignLayoutsOptions layouts;
  layouts.mTiles = opts.mTiles;
  layouts.qInRegisters = opts.qInRegisters;
  layouts.wgmma = opts.wgmma;
  layouts.skipUnitFactors = opts.skipUnitFactors;
  layouts.polynomialExp2 = opts.polynomialExp2;
  layouts.tensorReduce = opts.tensorReduce;
  layouts.stageWindows = stagesWindows(opts);
  pm.addPass(createAttnAssignLayouts(layouts));
  AttnPipelineKVLoopOptions pipe;
  pipe.stages = opts.kvStages;
  pipe.mbarriers = opts.mbarriers;
  pm.addPass(createAttnPipelineKVLoop(pipe));
  if (opts.prefetchVectors || opts.prefetchWindows) {
    AttnPrefetchVectorsOptions prefetch;
    prefetch.maxLoads = opts.prefetchVectors;
    prefetch.maskedLoops = opts.prefetchMasked;
    prefetch.windows = opts.prefetchWindows;
    pm.addPass(createAttnPrefetchVectors(prefetch));
  }
  // Rotation (each block's softmax under the next block's Q·Kᵀ) with a
  // bulk-copy producer warpgroup, against the producer alone, H100, bf16,
  // N = 4k / 16k, one run bracketed by two of the baseline: D = 128 +4..6%
  // (causal +2..3%), D = 256 +3..16% (the D = 256 baseline without a mask
  // was rotation without a producer). By default every loop it applies to
  // (wgmma loops on per-slot barriers, without a mask).
  if (opts.rotate)
    pm.addPass(createAttnRotateKVLoop());
  // Ping-pong between the consumer warpgroups: +5..16% over rotation alone
  // for the three of a 192-row program at D = 64 (N >= 2k, H100). For two
  // warpgroups (H200): D = 128 −2..+1% through the GPU check and −3..−4% at
  // 16k in a one-run A/B, D = 256 −3..+1%. By default programs of three or
  // more warpgroups.
  if (opts.pingpong != 0) {
    AttnAlternateWarpgroupsOptions alternate;
    if (opts.pingpong > 0)
      alternate.minWarpgroups = opts.pingpong;
    pm.addPass(createAttnAlternateWarpgroups(alternate));
  }
  // Products started as soon as their operands exist, waited for where
  // read: the backward's query-major grid (Δ, dQ) gains 0..5% (D = 64
  // causal 1.00 -> 0.95 ms at 4k; H200, bf16, two runs each, mirrored),
  // its key-major grid (dK, dV) loses 3..31% (D = 64 causal 1.95 -> 2.56
  // ms): grad_q only.
  if (opts.overlapProducts) {
    AttnOverlapProductsOptions overlap;
    overlap.programs = {
        std::string(::attn::programName(::attn::Program::GradQuery))};
    pm.addPass(createAttnOverlapProducts(overlap));
  }
  // A producer warpgroup: with bulk copies (TMA) it is +3..14% at D = 128
  // and +6..9% at D = 256 causal over cp.async in every thread, and the
  // rotated loops above gain with it (H100). By default every wgmma
  // program on per-slot barriers, rotated or not, but split_kv programs
  // whose ring slots exceed 16 KiB (see attn-specialize-warpgroups).
  if (opts.producer != 0) {
    AttnSpecializeWarpgroupsOptions specialize;
    if (opts.producer > 0)
      specialize.warpgroups = opts.producer;
    specialize.bulkCopies = opts.bulkCopies;
    specialize.producerRegisters = opts.producerRegisters;
    specialize.splitKvMaxTileBytes = opts.splitKvMaxTileBytes;
    pm.addPass(createAttnSpecializeWarpgroups(specialize));
    // Persistent grids (one program a multiprocessor looping over the
    // tiles; H100, bf16, against a block per tile): without a causal mask
    // D = 128 +12% / +9% / +3% / 0% at N = 512 / 2k / 4k / 16k, D = 256
    // +5% / +2% / +1% / 0%; causal, static schedules of unequal tiles lose
    // 5-22% at 2k-16k, tiles claimed at run time (dynamic-tiles) gain:
    // D = 128 +22% / +22% / +18% / +15% / 0% at 512 / 1k / 2k / 4k / 16k,
    // D = 256 +3% / +5% / +2% / 0% / -0.5%: 2 by default.
    if (opts.persistent != 0) {
      AttnPersistTilesOptions persist;
      persist.grids = opts.persistent;
      persist.causalGroupRounds = opts.causalGroupRounds;
      persist.dynamic = opts.dynamicTiles;
      pm.addPass(createAttnPersistTiles(persist));
    }
  }
  // A decode step's split and merge grids started under the tail of the
  // grid before them (programmatic dependent launch): H200, bf16, GQA
  // 32:8, in CUDA graphs against launches after the predecessor (the same
  // kernels, mirrored): D = 128 B = 1 4k / 16k / 64k +10 / +3 / +1%,
  // B = 8 4k +2.4%, 64k 0; D = 64 +5.5 / +5.5 / +2.4%, B = 8 4k +3.7%.
  if (opts.chainGrids)
    pm.addPass(createAttnChainGrids());
  // Flat loops' (head, block) pairs carried instead of divided every step:
  // H200, bf16, D = 128 backward, mirrored A B B A: +3..4% (grad_kv 7.78 ->
  // 7.41 ms at 16k); with the causal grid's unmasked loop reading its LSE a
  // step ahead (spill-free once the next step's division is gone) causal
  // +5% (grad_kv 4.29 -> 3.97 ms).
  if (opts.carryQuotients)
    pm.addPass(createAttnCarryQuotients());
  ConvertAttnGPUToNVVMOptions convert;
  convert.groupBlocks = opts.groupBlocks;
  convert.fragmentPrefetch = opts.fragmentPrefetch;
  pm.addPass(createConvertAttnGPUToNVVM(convert));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::attn::buildGPUSerializePipeline(OpPassManager &pm,
                                           const CodegenPipelineOptions &opts) {
  OpPassManager &gm = pm.nest<gpu::GPUModuleOp>();
  // Views in a kernel (a merge program's column window) become offsets of
  // their source's descriptor: the LLVM conversion has no subview pattern.
  gm.addPass(memref::createExpandStridedMetadataPass());
  gm.addPass(createLowerAffinePass());
  gm.addPass(createSCFToControlFlowPass());
  gm.addPass(createConvertGpuOpsToNVVMOps());
  gm.addPass(createConvertNVVMToLLVMPass());
  gm.addPass(createCanonicalizerPass());
  gm.addPass(createCSEPass());
  gm.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = opts.chip;
  // PTX 8.0: the widest ISA the CUDA 13 driver JIT and ptxas both take,
  // and the first with sm_90a.
  target.features = "+ptx80";
  target.optLevel = opts.llvmOptLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  AttnGPUModuleToBinaryOptions bin;
  bin.format = "isa";
  pm.addPass(createAttnGPUModuleToBinary(bin));
}

void mlir::attn::buildGPUCodegenPipeline(OpPassManager &pm,
                                         const CodegenPipelineOptions &opts) {
  buildGPUKernelPipeline(pm, opts);
  buildGPUSerializePipeline(pm, opts);
}

namespace {
/// The wall time of the top-level passes named `argument` in a run (a pass
/// on the module itself, so its events come from the thread that runs the
/// pass manager).
struct PassTimer : public PassInstrumentation {
  PassTimer(StringRef argument, double &ms) : argument(argument), ms(ms) {}
  void runBeforePass(Pass *pass, Operation *) override {
    if (pass->getArgument() == argument)
      start = std::chrono::steady_clock::now();
  }
  void runAfterPass(Pass *pass, Operation *) override { finish(pass); }
  void runAfterPassFailed(Pass *pass, Operation *) override { finish(pass); }
  void finish(Pass *pass) {
    if (pass->getArgument() == argument)
      ms += std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - start)
                .count();
  }
  StringRef argument;
  double &ms;
  std::chrono::steady_clock::time_point start;
};

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}
} // namespace

FailureOr<CompiledKernel>
mlir::attn::compileGPUKernel(ModuleOp module,
                             const CodegenPipelineOptions &opts,
                             CompileTimings *timings) {
  FailureOr<std::vector<CompiledKernel>> ks =
      compileGPUKernels(module, opts, timings);
  if (failed(ks))
    return failure();
  if (ks->size() != 1)
    return module.emitError() << "expected one attn.attention or "
                                 "attn.merge_splits to compile, got "
                              << ks->size() << " kernels";
  return std::move(ks->front());
}

FailureOr<std::vector<CompiledKernel>>
mlir::attn::compileGPUKernels(ModuleOp module,
                              const CodegenPipelineOptions &opts,
                              CompileTimings *timings) {
  CompileTimings local;
  if (!timings)
    timings = &local;
  MLIRContext *ctx = module.getContext();
  if (!isSupportedChip(opts.chip))
    return module.emitError() << ::attn::unsupportedChipMessage(opts.chip);
  // Whether the problem writes the LSE, before the pipeline lowers it.
  // Where its keys live, too (the manifest's kv=).
  bool withLse = false;
  ::attn::KVLayout kv = ::attn::KVLayout::Dense;
  int64_t pageSize = 0;
  // The runtime's memref ABI ends every attention kernel's parameters with
  // the f32 softmax scale (KernelABI.h): a kernel built with a compile-time
  // scale would take its tensor maps one parameter early.
  AttentionOp constantScale, misplacedSlopes, misplacedDropout, misplacedBias;
  bool alibi = false, dropout = false;
  std::string bias;
  // ALiBi's slopes: the function argument just before the scale (`gap`
  // arguments before it: 2 where a bias follows the slopes).
  auto slopesMisplaced = [](Value slopes, Value dynamicScale,
                            unsigned gap = 1) {
    auto arg = dyn_cast<BlockArgument>(slopes);
    auto scale = dyn_cast_or_null<BlockArgument>(dynamicScale);
    return !arg || !scale || arg.getOwner() != scale.getOwner() ||
           arg.getArgNumber() + gap != scale.getArgNumber();
  };
  // Dropout's rate, key and offset: the three arguments after the scale.
  auto dropoutMisplaced = [](ValueRange operands, Value dynamicScale) {
    auto scale = dyn_cast_or_null<BlockArgument>(dynamicScale);
    for (auto [i, v] : llvm::enumerate(operands)) {
      auto arg = dyn_cast<BlockArgument>(v);
      if (!arg || !scale || arg.getOwner() != scale.getOwner() ||
          arg.getArgNumber() != scale.getArgNumber() + 1 + i)
        return true;
    }
    return false;
  };
  module.walk([&](AttentionOp op) {
    if (!op.getDynamicScale())
      constantScale = op;
    if (Value slopes = op.getAlibiSlopes()) {
      alibi = true;
      if (slopesMisplaced(slopes, op.getDynamicScale(), op.getBias() ? 2 : 1))
        misplacedSlopes = op;
    }
    if (Value b = op.getBias()) {
      bias = kernelDTypeName(cast<MemRefType>(b.getType()).getElementType());
      if (slopesMisplaced(b, op.getDynamicScale()))
        misplacedBias = op;
    }
    if (op.hasDropout()) {
      dropout = true;
      if (dropoutMisplaced(
              {op.getDropoutRate(), op.getDropoutSeed(), op.getDropoutOffset()},
              op.getDynamicScale()))
        misplacedDropout = op;
    }
    withLse |= bool(op.getLse());
    if (op.isVarlen())
      kv = ::attn::KVLayout::Varlen;
    if (op.isPaged()) {
      kv = ::attn::KVLayout::Paged;
      int64_t page = cast<MemRefType>(op.getKey().getType()).getDimSize(2);
      if (!ShapedType::isDynamic(page))
        pageSize = page;
    } else if (op.getKvLens())
      kv = ::attn::KVLayout::SeqLens;
  });
  // The backward's kernels end their parameters with the scale as well,
  // ALiBi's slopes just before it, dropout's values after it.
  AttentionGradOp constantGradScale, misplacedGradSlopes, misplacedGradDropout;
  module.walk([&](AttentionGradOp op) {
    if (!op.getDynamicScale())
      constantGradScale = op;
    if (Value slopes = op.getAlibiSlopes()) {
      alibi = true;
      if (slopesMisplaced(slopes, op.getDynamicScale()))
        misplacedGradSlopes = op;
    }
    if (Value rate = op.getDropoutRate()) {
      dropout = true;
      if (dropoutMisplaced({rate, op.getDropoutSeed(), op.getDropoutOffset()},
                           op.getDynamicScale()))
        misplacedGradDropout = op;
    }
  });
  if (misplacedGradSlopes && !constantGradScale)
    return misplacedGradSlopes.emitError()
           << "unsupported: a kernel for the runtime takes ALiBi's slopes as "
              "the function argument just before the scale (KernelABI.h)";
  if (misplacedGradDropout && !constantGradScale)
    return misplacedGradDropout.emitError()
           << "unsupported: a kernel for the runtime takes dropout's rate, "
              "key and offset as the three function arguments after the "
              "scale (KernelABI.h)";
  if (constantGradScale)
    return constantGradScale.emitError()
           << "unsupported: a kernel for the runtime takes the softmax scale "
              "as its last parameter (attn.attention_grad ... scale(%s) with "
              "%s: f32 the function's last argument), not a compile-time "
              "scale";
  if (misplacedSlopes && !constantScale)
    return misplacedSlopes.emitError()
           << "unsupported: a kernel for the runtime takes ALiBi's slopes as "
              "the function argument just before the scale (KernelABI.h)";
  if (misplacedDropout && !constantScale)
    return misplacedDropout.emitError()
           << "unsupported: a kernel for the runtime takes dropout's rate, "
              "key and offset as the three function arguments after the "
              "scale (KernelABI.h)";
  if (misplacedBias && !constantScale)
    return misplacedBias.emitError()
           << "unsupported: a kernel for the runtime takes the score bias as "
              "the function argument just before the scale (after ALiBi's "
              "slopes; KernelABI.h)";
  if (constantScale)
    return constantScale.emitError()
           << "unsupported: a kernel for the runtime takes the softmax scale "
              "as its last parameter (attn.attention ... scale(%s) with %s: "
              "f32 the function's last argument; KernelABI.h), not a "
              "compile-time scale";
  module.walk([&](MergeSplitsOp op) { withLse |= bool(op.getLse()); });
  auto t0 = std::chrono::steady_clock::now();
  PassManager kernelPm(ctx);
  buildGPUKernelPipeline(kernelPm, opts);
  LogicalResult kernelResult = kernelPm.run(module);
  timings->passesMs += msSince(t0);
  if (failed(kernelResult))
    return failure();
  SmallVector<gpu::GPUFuncOp> kernels;
  module.walk([&](gpu::GPUFuncOp f) {
    if (f->hasAttr(kKernelInfoAttrName))
      kernels.push_back(f);
  });
  if (kernels.empty())
    return module.emitError() << "expected an attn.attention, "
                                 "attn.merge_splits or attn.attention_grad to "
                                 "compile, got no kernel";
  std::vector<CompiledKernel> out;
  for (gpu::GPUFuncOp kernel : kernels) {
    auto info = kernel->getAttrOfType<KernelInfoAttr>(kKernelInfoAttrName);
    if (!info.getBlockM() || !info.getHeadDimV() || info.getDtype().empty())
      return kernel.emitError()
             << "unsupported: a kernel without query blocks, value head dim "
                "or element type to describe in a manifest: "
             << info;
    CompiledKernel k;
    k.name = kernel.getName().str();
    k.chip = opts.chip;
    k.blockM = info.getBlockM();
    k.blockN = info.getBlockN();
    k.threads = info.getThreads();
    k.smemBytes = info.getSmemBytes();
    k.headDim = info.getHeadDim();
    k.headDimV = info.getHeadDimV();
    k.dtype = info.getDtype().str();
    k.causal = info.getCausal();
    k.windowLeft = info.getWindowLeft();
    k.windowRight = info.getWindowRight();
    if (FloatAttr cap = info.getSoftcap())
      k.softcap = float(cap.getValueAsDouble());
    k.lse = withLse;
    k.alibi = alibi;
    k.bias = bias;
    k.dropout = dropout;
    k.dependentLaunch = info.getDependentLaunch();
    k.kv = ::attn::kvLayoutName(kv);
    k.pageSize = pageSize;
    k.program = info.getProgram().str();
    if (ArrayAttr g = info.getGrid()) {
      std::string dims;
      for (auto [i, d] : llvm::enumerate(g.getAsValueRange<StringAttr>()))
        dims += (i ? "," : "") + d.str();
      // The attribute's verifier held the dims to this grammar.
      ::attn::LaunchGrid grid;
      (void)::attn::parseLaunchGrid(dims, grid);
      grid.persistent = info.getPersistent();
      grid.dynamic = info.getTileCounter();
      k.grid = ::attn::formatLaunchGrid(grid);
    }
    // A merge has one head dim, its output's.
    if (k.program == ::attn::programName(::attn::Program::MergeSplits))
      k.headDim = k.headDimV;
    // The backward reads the LSE (its kernels take it; the manifest's lse=1).
    ::attn::Program program;
    if (::attn::parseProgram(k.program, program) &&
        ::attn::isBackwardProgram(program))
      k.lse = true;
    // Bulk copies: (function argument, box rows, box bytes) triples; the
    // arguments of attn.attention's function are q, k, v, o in the ABI's
    // order, and a score bias the argument before the scale (checked
    // above: KernelABI.h's biasArgument), which the runtime encodes maps of.
    ArrayRef<int64_t> maps = info.getTensorMaps();
    std::vector<::attn::TensorMapSpec> specs;
    for (size_t i = 0; i + 2 < maps.size(); i += 3)
      specs.push_back({int(maps[i]), int(maps[i + 1]), int(maps[i + 2])});
    if (!specs.empty())
      k.tensorMaps = ::attn::formatTensorMaps(specs);
    out.push_back(std::move(k));
  }

  PassManager ptxPm(ctx);
  double binaryMs = 0;
  ptxPm.addInstrumentation(
      std::make_unique<PassTimer>("attn-gpu-module-to-binary", binaryMs));
  buildGPUSerializePipeline(ptxPm, opts);
  t0 = std::chrono::steady_clock::now();
  LogicalResult ptxResult = ptxPm.run(module);
  timings->llvmMs += binaryMs;
  timings->passesMs += msSince(t0) - binaryMs;
  if (failed(ptxResult))
    return failure();
  std::string ptx;
  module.walk([&](gpu::BinaryOp bin) {
    for (Attribute a : bin.getObjects())
      ptx += cast<gpu::ObjectAttr>(a).getObject().getValue().str();
  });
  if (ptx.empty())
    return module.emitError("PTX generation produced no code");
  for (CompiledKernel &k : out)
    k.ptx = ptx;
  return out;
}

OwningOpRef<ModuleOp> mlir::attn::buildKernelProblem(
    MLIRContext &ctx, StringRef programName, Type et, int64_t headDim,
    int64_t headDimV, bool causal, bool withLse, StringRef kvName,
    StringRef name, int64_t pageSize, int64_t windowLeft, int64_t windowRight,
    float softcap, bool alibi, bool dropout, bool packHeads, Type biasType) {
  ::attn::Program program;
  ::attn::KVLayout kv;
  if (!::attn::parseProgram(programName.str(), program) ||
      !::attn::parseKVLayout(kvName.str(), kv) ||
      (kv != ::attn::KVLayout::Dense &&
       program == ::attn::Program::MergeSplits) ||
      (kv == ::attn::KVLayout::Varlen && program == ::attn::Program::SplitKV))
    return nullptr;
  // fp8 (FlashAttention-3's forward): the dense forward only.
  bool fp8 = isa<Float8E4M3FNType>(et);
  bool grad = ::attn::isBackwardProgram(program);
  if ((fp8 || alibi) &&
      ((program != ::attn::Program::Attention && !(alibi && grad)) ||
       kv != ::attn::KVLayout::Dense))
    return nullptr;
  if (fp8 && alibi)
    return nullptr;
  // A score bias: the dense forward of 16-bit inputs, f32 or theirs (the
  // op's rule: no split, KV cache, packed batch or fp8).
  if (biasType &&
      (program != ::attn::Program::Attention || kv != ::attn::KVLayout::Dense ||
       fp8 || packHeads || (!biasType.isF32() && biasType != et)))
    return nullptr;
  // GQA packing: the forward and split_kv, no score variant (the verifier's
  // rule) and no packed batch.
  if (packHeads && (fp8 || alibi || dropout || windowLeft >= 0 ||
                    windowRight >= 0 || kv == ::attn::KVLayout::Varlen ||
                    (program != ::attn::Program::Attention &&
                     program != ::attn::Program::SplitKV)))
    return nullptr;
  // Dropout: the dense 16-bit forward and its backward (the same Philox
  // mask, from the same rate, key and offset).
  if (dropout && (fp8 || (program != ::attn::Program::Attention && !grad) ||
                  kv != ::attn::KVLayout::Dense))
    return nullptr;
  // The dQ-workspace form's grids (grad_prep, grad_q_out) come from a
  // problem with a workspace argument, which no launcher builds yet.
  if (program == ::attn::Program::GradPrep ||
      program == ::attn::Program::GradQueryOut)
    return nullptr;
  // Block lists come from a program's own mask_mod (attn.block_lists), not
  // from a problem a launcher describes.
  if (program == ::attn::Program::BlockLists)
    return nullptr;
  // The backward (either of its grids names the problem that makes both):
  // the dense attention_grad of 16-bit tensors, with the forward's window,
  // soft-cap, ALiBi or dropout.
  if (grad && (fp8 || kv != ::attn::KVLayout::Dense))
    return nullptr;
  OpBuilder b(&ctx);
  Location loc = UnknownLoc::get(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  int64_t dyn = ShapedType::kDynamic;
  auto strided = StridedLayoutAttr::get(&ctx, dyn, {dyn, dyn, dyn, 1});
  auto qk = MemRefType::get({dyn, dyn, dyn, headDim}, et, strided);
  // fp8: O in bf16, V transposed [B, Hkv, Dv, Nk] (keys contiguous).
  Type ot = fp8 ? Type(b.getBF16Type()) : et;
  auto vo = MemRefType::get({dyn, dyn, dyn, headDimV}, ot, strided);
  // Paged K and V: [pages, Hkv, page size, D], the page size static if given.
  int64_t page = kv == ::attn::KVLayout::Paged && pageSize > 0 ? pageSize : dyn;
  auto kT = MemRefType::get({dyn, dyn, page, headDim}, et, strided);
  auto vT = fp8 ? MemRefType::get({dyn, dyn, headDimV, dyn}, et, strided)
                : MemRefType::get({dyn, dyn, page, headDimV}, et, strided);
  Type f32 = b.getF32Type();
  auto lseT = MemRefType::get({dyn, dyn, dyn}, f32);
  auto partialO = MemRefType::get({dyn, dyn, dyn, dyn, headDimV}, f32);
  auto partialLse = MemRefType::get({dyn, dyn, dyn, dyn}, f32);
  // The KV cache's operands follow the outputs: lens [B], table [B, pages].
  SmallVector<Type> cache;
  if (kv != ::attn::KVLayout::Dense)
    cache.push_back(MemRefType::get({dyn}, b.getI32Type()));
  if (kv == ::attn::KVLayout::Varlen) // cu_q, then cu_k
    cache.push_back(MemRefType::get({dyn}, b.getI32Type()));
  if (kv == ::attn::KVLayout::Paged)
    cache.push_back(
        MemRefType::get({dyn, dyn}, b.getI32Type(),
                        StridedLayoutAttr::get(&ctx, dyn, {dyn, 1})));
  // Dropout's rate, Philox key and offset: the last three arguments of the
  // forward and of its backward.
  const Type dropoutArgs[3] = {f32, b.getI64Type(), b.getI32Type()};
  SmallVector<Type> args;
  switch (program) {
  case ::attn::Program::Attention:
    args = {qk, kT, vT, vo};
    if (withLse)
      args.push_back(lseT);
    llvm::append_range(args, cache);
    if (alibi) // the slopes [Hq], then the scale
      args.push_back(MemRefType::get({dyn}, f32));
    if (biasType) // [1|B, 1|Hq, Nq, Nk], keys contiguous
      args.push_back(MemRefType::get({dyn, dyn, dyn, dyn}, biasType, strided));
    args.push_back(f32);
    if (fp8) // q_descale, k_descale, v_descale
      args.append({f32, f32, f32});
    if (dropout)
      llvm::append_range(args, dropoutArgs);
    break;
  case ::attn::Program::SplitKV:
    args = {qk, kT, vT, partialO, partialLse};
    llvm::append_range(args, cache);
    args.push_back(f32);
    break;
  case ::attn::Program::MergeSplits:
    args = {partialO, partialLse, vo};
    if (withLse)
      args.push_back(lseT);
    break;
  case ::attn::Program::GradQuery:
  case ::attn::Program::GradKeyValue:
    // (dO, q, k, v, o, lse, dQ, dK, dV, Δ[, slopes], scale[, rate, key,
    // offset]): the gradients in the layouts of what they differentiate, Δ
    // contiguous f32 like the LSE; ALiBi's slopes [Hq] before the scale
    // and dropout's values after it, as the forward's.
    args = {vo, qk, kT, vT, vo, lseT, qk, kT, vT, lseT};
    if (alibi)
      args.push_back(MemRefType::get({dyn}, f32));
    args.push_back(f32);
    if (dropout)
      llvm::append_range(args, dropoutArgs);
    break;
  case ::attn::Program::GradPrep:
  case ::attn::Program::GradQueryOut:
    llvm_unreachable("the dQ-workspace grids are refused above");
  case ::attn::Program::BlockLists:
    llvm_unreachable("block lists are refused above");
  }
  b.setInsertionPointToEnd(module->getBody());
  auto fn = func::FuncOp::create(b, loc, name, b.getFunctionType(args, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  auto arg = [&](unsigned i) -> Value { return entry->getArgument(i); };
  // The mask and score variant of the forward or of its backward.
  auto setMaskAndVariant = [&](auto op) {
    op.setCausal(causal);
    if (softcap > 0)
      op.setSoftcapAttr(b.getF32FloatAttr(softcap));
    if (windowLeft >= 0)
      op.setWindowLeftAttr(b.getI64IntegerAttr(windowLeft));
    if (windowRight >= 0)
      op.setWindowRightAttr(b.getI64IntegerAttr(windowRight));
  };
  if (grad) {
    const unsigned s = alibi ? 11 : 10;
    auto op = AttentionGradOp::create(
        b, loc, arg(0), arg(1), arg(2), arg(3), arg(4), arg(5), arg(6), arg(7),
        arg(8), arg(9), /*dq_accum=*/Value(),
        /*dynamic_scale=*/arg(s),
        /*dropout=*/dropout ? arg(s + 1) : Value(),
        dropout ? arg(s + 2) : Value(), dropout ? arg(s + 3) : Value(),
        /*alibi_slopes=*/alibi ? arg(10) : Value(), FloatAttr(), UnitAttr(),
        IntegerAttr(), IntegerAttr(), TargetAttr(),
        /*window_left=*/IntegerAttr(), /*window_right=*/IntegerAttr(),
        /*softcap=*/FloatAttr());
    setMaskAndVariant(op);
  } else if (program == ::attn::Program::MergeSplits) {
    MergeSplitsOp::create(b, loc, arg(0), arg(1), arg(2),
                          withLse ? arg(3) : Value(), IntegerAttr(),
                          TargetAttr());
  } else {
    bool split = program == ::attn::Program::SplitKV;
    bool hasLse = split || withLse;
    Value lse = hasLse ? arg(4) : Value();
    unsigned next = hasLse ? 5 : 4;
    bool varlen = kv == ::attn::KVLayout::Varlen;
    Value cuQ = varlen ? arg(next++) : Value();
    Value cuK = varlen ? arg(next++) : Value();
    Value lens =
        kv != ::attn::KVLayout::Dense && !varlen ? arg(next++) : Value();
    Value table = kv == ::attn::KVLayout::Paged ? arg(next++) : Value();
    // ALiBi's slopes, the scale, then fp8's three descale factors or
    // dropout's three values.
    Value slopes = alibi ? arg(next++) : Value();
    Value bias = biasType ? arg(next++) : Value();
    const unsigned s = next;
    Value scale = arg(s);
    auto after = [&](bool has, unsigned i) {
      return has ? arg(s + i) : Value();
    };
    auto op = AttentionOp::create(
        b, loc, arg(0), arg(1), arg(2), arg(3), lse,
        /*dynamic_scale=*/scale, lens, table,
        /*cu_seqlens_q=*/cuQ, /*cu_seqlens_k=*/cuK,
        /*q_descale=*/after(fp8, 1), /*k_descale=*/after(fp8, 2),
        /*v_descale=*/after(fp8, 3), /*alibi_slopes=*/slopes,
        /*block_counts=*/Value(), /*block_indices=*/Value(),
        /*full_counts=*/Value(), /*full_indices=*/Value(), bias,
        /*dropout_rate=*/after(dropout, 1),
        /*dropout_seed=*/after(dropout, 2),
        /*dropout_offset=*/after(dropout, 3), FloatAttr(), UnitAttr(),
        /*window_left=*/IntegerAttr(), /*window_right=*/IntegerAttr(),
        IntegerAttr(), IntegerAttr(), TargetAttr(),
        split ? b.getUnitAttr() : UnitAttr(), /*softcap=*/FloatAttr(),
        /*v_transposed=*/fp8 ? b.getUnitAttr() : UnitAttr(),
        /*mask_block=*/DenseI64ArrayAttr(),
        /*pack_query_heads=*/packHeads ? b.getUnitAttr() : UnitAttr());
    setMaskAndVariant(op);
  }
  func::ReturnOp::create(b, loc);
  return module;
}

std::string mlir::attn::manifestLine(const CompiledKernel &k,
                                     llvm::StringRef ptxFile) {
  // The runtime's own writer (Bundle.h), so that the line is what its
  // parser reads; a compiled kernel always names a known chip, dtype and ABI.
  ::attn::KernelEntry e;
  e.name = k.name;
  e.ptx = ptxFile.str();
  bool known = ::attn::parseChip(k.chip, e.chip) &&
               ::attn::parseDType(k.dtype, e.dtype) &&
               (k.tensorMaps.empty() ||
                ::attn::parseTensorMaps(k.tensorMaps, e.tensorMaps)) &&
               ::attn::parseProgram(k.program, e.program) &&
               ::attn::parseKVLayout(k.kv, e.kv) &&
               (k.grid.empty() || ::attn::parseLaunchGrid(k.grid, e.grid)) &&
               (k.bias.empty() || ::attn::parseDType(k.bias, e.biasType));
  assert(known && "a compiled kernel describes itself in the runtime's terms");
  (void)known;
  e.bias = !k.bias.empty();
  e.headDim = int(k.headDim);
  e.headDimV = int(k.headDimV);
  e.causal = k.causal;
  e.windowLeft = int(k.windowLeft);
  e.windowRight = int(k.windowRight);
  e.softcap = k.softcap;
  e.alibi = k.alibi;
  e.dropout = k.dropout;
  e.dependentLaunch = k.dependentLaunch;
  e.blockM = int(k.blockM);
  e.blockN = int(k.blockN);
  e.threads = int(k.threads);
  e.smem = int(k.smemBytes);
  e.lse = k.lse;
  e.pageSize = int(k.pageSize);
  e.minSeqQ = int(k.minSeqQ);
  e.maxSeqQ = int(k.maxSeqQ);
  return ::attn::formatManifestLine(e) + "\n";
}

void mlir::attn::registerAttnPipelines() {
  PassPipelineRegistration<CodegenPipelineOptions>(
      "attn-codegen",
      "attn.attention to PTX for an NVIDIA GPU: tiling, online softmax, the "
      "mma.sync kernel, NVVM, LLVM, PTX (in a gpu.binary)",
      [](OpPassManager &pm, const CodegenPipelineOptions &opts) {
        // An unknown chip would abort inside LLVM's NVPTX backend: the
        // first pass (attn-select-gpu-blocks) refuses it with a diagnostic,
        // and the serialisation passes are only added for a known chip.
        if (!isSupportedChip(opts.chip)) {
          buildGPUKernelPipeline(pm, opts);
          return;
        }
        buildGPUCodegenPipeline(pm, opts);
      });
  PassPipelineRegistration<CodegenPipelineOptions>(
      "attn-gpu-kernel-pipeline",
      "attn.attention to the GPU kernel level (attn-codegen up to the "
      "gpu.module in the NVVM dialect, before LLVM and PTX)",
      buildGPUKernelPipeline);
  PassPipelineRegistration<TilingPipelineOptions>(
      "attn-tile-pipeline",
      "attn.attention to the tile level: IO-aware tiling and online-softmax "
      "fusion",
      buildTilingPipeline);
  PassPipelineRegistration<TilingPipelineOptions>(
      "attn-cpu-pipeline",
      "attn.attention to the LLVM dialect for the host (the CPU path)",
      buildCPUPipeline);
}

void mlir::attn::registerAllAttnPasses() {
  registerAttnPasses();
  registerAttnConversionPasses();
  registerAttnPipelines();
}
