//===- AttnGPUToNVVM.cpp - laid-out tile programs to GPU kernels -*- C++ -*-=//
//
// The pass of the GPU backend that turns each laid-out tile grid into a
// kernel: (1) outline the grid body into a gpu.func with its kernel info and
// shared memory, launched from the host (Outlining.cpp, TileScheduler.cpp);
// (2) run the per-op conversion patterns (MemoryOpToNVVM.cpp,
// DotOpToNVVM.cpp, WarpgroupDotToNVVM.cpp, RegisterOpToNVVM.cpp) over the
// kernel body; (3) lower the math the patterns left on vectors to the GPU's
// special-function instructions (VectorMath.cpp).
//
//===----------------------------------------------------------------------===//
#include "Outlining.h"

#include "attn/Conversion/Passes.h"
#include "attn/runtime/KernelABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attn {
#define GEN_PASS_DEF_CONVERTATTNGPUTONVVM
#include "attn/Conversion/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::gpu_lowering;

namespace {

struct ConvertAttnGPUToNVVMPass
    : public mlir::attn::impl::ConvertAttnGPUToNVVMBase<
          ConvertAttnGPUToNVVMPass> {
  using Base::Base;

  LogicalResult lowerKernel(gpu::GPUFuncOp fn, const KernelInfo &kernelInfo) {
    MLIRContext *ctx = fn.getContext();
    KernelInfo info = kernelInfo;
    if (info.warpgroupAtEntry) {
      // At the start of the consumers' program where a producer runs
      // beside them: computed at the kernel's entry, the value (and what
      // LLVM shares with it) stayed live into the producer's 40 registers,
      // which spilled 12-72 bytes (bf16 D = 128 and 256).
      Block *entry = &fn.getBody().front();
      fn.walk([&](WarpSpecializeOp ws) {
        entry = &ws.getConsumers().front();
        return WalkResult::interrupt();
      });
      OpBuilder b(ctx);
      b.setInsertionPointToStart(entry);
      Emitter e(b, fn.getLoc());
      info.warpgroupIndex = e.warpgroup();
    }
    TileTypeConverter tc(ctx);
    RewritePatternSet patterns(ctx);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<AttnDialect>();
    auto legalIfConverted = [&](Operation *op) {
      return tc.isLegal(op->getOperandTypes()) &&
             tc.isLegal(op->getResultTypes());
    };
    target.markUnknownOpDynamicallyLegal(legalIfConverted);
    scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, target);
    populateMemoryOpPatterns(tc, info, patterns);
    populateDotOpPatterns(tc, info, patterns);
    populateWarpgroupDotPatterns(tc, info, patterns);
    populateRegisterOpPatterns(tc, info, patterns);
    // A pattern that cannot lower its op says why ("unsupported: ...");
    // the framework's "failed to legalize" that follows adds nothing.
    bool explained = false;
    ScopedDiagnosticHandler quiet(ctx, [&](Diagnostic &d) {
      std::string msg = d.str();
      if (d.getSeverity() == DiagnosticSeverity::Error &&
          StringRef(msg).starts_with("unsupported:"))
        explained = true;
      return success(explained &&
                     StringRef(msg).starts_with("failed to legalize"));
    });
    if (failed(applyPartialConversion(fn, target, std::move(patterns))))
      return failure();
    // Anything left with a tile type was not lowered.
    WalkResult left = fn.walk([&](Operation *op) {
      if (isa<UnrealizedConversionCastOp>(op) ||
          llvm::any_of(op->getResultTypes(),
                       [](Type t) { return isa<RankedTensorType>(t); })) {
        op->emitError("unsupported: the GPU lowering left this op "
                      "unconverted");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      return failure();
    RewritePatternSet math(ctx);
    populateVectorMathPatterns(math);
    return applyPatternsGreedily(fn, std::move(math));
  }

  void runOnOperation() override {
    auto top = dyn_cast<ModuleOp>(getOperation());
    SmallVector<scf::ForallOp> grids;
    top.walk([&](scf::ForallOp f) {
      // Tile grids, and the scalar programs of attn.block_lists.
      auto program = f->getAttrOfType<StringAttr>(kProgramAttrName);
      bool laidOut =
          program && program.getValue() ==
                         ::attn::programName(::attn::Program::BlockLists);
      f.getBody()->walk([&](Operation *op) {
        laidOut |= llvm::any_of(op->getResultTypes(), isLaidOut);
      });
      if (laidOut)
        grids.push_back(f);
    });
    WalkResult untiled = top.walk([](AttentionOp op) {
      op.emitError("attn.attention must be tiled, fused and laid out before "
                   "convert-attn-gpu-to-nvvm (attn-tile-attention, "
                   "attn-fuse-online-softmax, attn-assign-layouts)");
      return WalkResult::interrupt();
    });
    if (untiled.wasInterrupted())
      return signalPassFailure();
    WalkResult cpuOnly = top.walk([](Operation *op) {
      if (isa<BlockListsOp>(op)) {
        op->emitError("attn.block_lists must be tiled before "
                      "convert-attn-gpu-to-nvvm (attn-tile-attention with a "
                      "GPU target)");
        return WalkResult::interrupt();
      }
      if (op->hasAttr(kCPUOnlyAttrName)) {
        op->emitError("unsupported: a program lowered for the CPU path "
                      "(attn.cpu_only: attn.block_lists tiled for a CPU "
                      "target) on the GPU path");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (cpuOnly.wasInterrupted())
      return signalPassFailure();
    // Shared memory and a ring's barriers are placed per attn.alloc_ring
    // (allocateSharedMemory): its ops must name the allocation itself.
    WalkResult carried = top.walk([](Operation *op) {
      for (Value v : op->getOperands())
        if (isa<RingType>(v.getType()) && !v.getDefiningOp<AllocRingOp>()) {
          op->emitError("unsupported: a ring that is not an attn.alloc_ring "
                        "result (carried through a block argument): the "
                        "lowering places a ring's slots and barriers per "
                        "allocation");
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (carried.wasInterrupted())
      return signalPassFailure();
    OutlineOptions opts;
    opts.groupBlocks = groupBlocks;
    opts.fragmentPrefetch = fragmentPrefetch;
    llvm::DenseMap<Operation *, int64_t> perFunc;
    for (scf::ForallOp g : grids) {
      int64_t &n = perFunc[g->getParentOfType<func::FuncOp>()];
      FailureOr<OutlinedKernel> kernel = outlineKernel(g, top, n++, opts);
      if (failed(kernel) || failed(lowerKernel(kernel->fn, kernel->info)))
        return signalPassFailure();
      launchKernel(g, *kernel);
    }
    // The host side knows the programs only as a persistent grid's bound
    // (launchKernel: min(tiles, the target's SMs)).
    WalkResult stray = top.walk([](NumProgramsOp op) {
      if (op->getParentOfType<gpu::GPUModuleOp>())
        return WalkResult::advance();
      op.emitError("unsupported: attn.num_programs outside the bound of a "
                   "persistent grid (the host lowering has no SM count to "
                   "give it)");
      return WalkResult::interrupt();
    });
    if (stray.wasInterrupted())
      return signalPassFailure();
  }
};

} // namespace
