//===- Pipelines.cpp - attn pass pipelines ----------------------*- C++ -*-===//
#include "attn/Pipelines/Pipelines.h"

#include "attn/Conversion/Passes.h"
#include "attn/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::attn;

void mlir::attn::buildTilingPipeline(OpPassManager &pm,
                                     const TilingPipelineOptions &opts) {
  AttnTileAttentionOptions tileOpts;
  tileOpts.target = opts.target;
  tileOpts.blockQ = opts.blockQ;
  tileOpts.blockKV = opts.blockKV;
  pm.addPass(createAttnTileAttention(tileOpts));
  if (opts.fuse)
    pm.addPass(createAttnFuseOnlineSoftmax());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::attn::buildCPUPipeline(OpPassManager &pm,
                                  const TilingPipelineOptions &opts) {
  buildTilingPipeline(pm, opts);
  // Tile ops -> linalg on tensors -> buffers.
  pm.addPass(createConvertAttnToLinalg());
  pm.addPass(createConvertElementwiseToLinalgPass());
  bufferization::OneShotBufferizePassOptions bufOpts;
  bufOpts.bufferizeFunctionBoundaries = true;
  // Loop-carried tiles (m, l, acc) are new values each iteration.
  bufOpts.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufOpts));
  bufferization::buildBufferDeallocationPipeline(pm);
  // Buffers -> loops -> LLVM.
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createForallToForLoopPass());
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
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::attn::registerAttnPipelines() {
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

void mlir::attn::registerAttnDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<AttnDialect>();
}
