//===- GPUModuleToBinary.cpp - gpu-module-to-binary, attn's way -*- C++ -*-===//
//
// Upstream gpu-module-to-binary, run as a nested pipeline, with LLVM's loop
// strength reduction off where a kernel sits at the register limit
// (Passes.td says why).
//
//===----------------------------------------------------------------------===//
#include "attn/Conversion/Passes.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"

#include <mutex>

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNGPUMODULETOBINARY
#include "attn/Conversion/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// LLVM's `-disable-lsr` (a process-wide cl::opt), or null if this LLVM
/// has none (the NVPTX code generator, which registers it, is not linked).
llvm::cl::opt<bool> *disableLSROption() {
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find("disable-lsr");
  return it == options.end() ? nullptr
                             : static_cast<llvm::cl::opt<bool> *>(it->second);
}

/// Held while this pass translates: the option is global, and two
/// translations at once (libattn_jit compiles different kernels on
/// different threads) would otherwise see each other's setting, and their
/// PTX would depend on timing.
std::mutex &translationMutex() {
  static std::mutex m;
  return m;
}

struct GPUModuleToBinaryPass
    : public attn::impl::AttnGPUModuleToBinaryBase<GPUModuleToBinaryPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (!llvm::is_contained({"offloading", "llvm", "assembly", "isa", "binary",
                             "bin", "fatbinary", "fatbin"},
                            StringRef(format)))
      return emitError(UnknownLoc::get(ctx))
             << "pass option format must be offloading, llvm, assembly, "
                "isa, binary, bin, fatbinary or fatbin, got '"
             << format << "'";
    return success();
  }

  /// Whether a kernel in `module`'s gpu.modules reaches the register limit
  /// and copies tiles with a run-time row stride (a gpu.func, or the
  /// llvm.func it has become by now: both keep attn.kernel).
  bool atRegisterLimit(ModuleOp module) {
    if (lsrRegisterLimit <= 0)
      return false;
    bool found = false;
    module.walk([&](Operation *fn) {
      auto info = fn->getAttrOfType<KernelInfoAttr>(kKernelInfoAttrName);
      if (!info)
        return;
      found |= info.getRegisterEstimate() >= lsrRegisterLimit &&
               info.getDynamicRowStride();
    });
    return found;
  }

  /// A kernel's tensor maps (attn.kernel tensor_maps: triples of source
  /// argument, box rows and box bytes) are its trailing arguments, but for a
  /// dynamic grid's tile counter after them (tile_counter): CUtensorMaps passed
  /// by value, read in place as grid constants (.param .align 64 .b8 [128],
  /// its address taken with cvta.param). The GPU lowering drops such
  /// argument attributes, so they are set here, on the LLVM function.
  LogicalResult markTensorMaps(ModuleOp module) {
    WalkResult r = module.walk([&](LLVM::LLVMFuncOp fn) {
      auto info = fn->getAttrOfType<KernelInfoAttr>(kKernelInfoAttrName);
      ArrayRef<int64_t> maps =
          info ? info.getTensorMaps() : ArrayRef<int64_t>();
      if (maps.empty())
        return WalkResult::advance();
      unsigned n = maps.size() / 3,
               args = fn.getNumArguments() - (info.getTileCounter() ? 1 : 0);
      MLIRContext *ctx = fn.getContext();
      auto mapType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128);
      for (unsigned i = args - n; i < args; ++i) {
        if (!isa<LLVM::LLVMPointerType>(fn.getArgument(i).getType())) {
          fn.emitError("tensor map argument ")
              << i << " is not a pointer after the GPU lowering";
          return WalkResult::interrupt();
        }
        fn.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(mapType));
        fn.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                      IntegerAttr::get(IntegerType::get(ctx, 64), 64));
        fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                      UnitAttr::get(ctx));
      }
      return WalkResult::advance();
    });
    return failure(r.wasInterrupted());
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(markTensorMaps(module)))
      return signalPassFailure();
    bool noLSR = atRegisterLimit(module);
    OpPassManager pm(ModuleOp::getOperationName());
    GpuModuleToBinaryPassOptions bin;
    bin.compilationTarget = format;
    pm.addPass(createGpuModuleToBinaryPass(bin));
    std::lock_guard<std::mutex> lock(translationMutex());
    llvm::cl::opt<bool> *option = disableLSROption();
    if (noLSR && !option) {
      module.emitError("LLVM has no -disable-lsr option (is the NVPTX code "
                       "generator linked in?)");
      return signalPassFailure();
    }
    // A -disable-lsr given to the tool stays in force.
    bool saved = option && option->getValue();
    if (noLSR)
      option->setValue(true);
    LogicalResult translated = runPipeline(pm, module);
    if (option)
      option->setValue(saved);
    if (failed(translated))
      return signalPassFailure();
    if (noLSR)
      module.walk([&](gpu::BinaryOp bin) {
        bin->setAttr(kLSRAttrName, BoolAttr::get(module.getContext(), false));
      });
  }
};

} // namespace
