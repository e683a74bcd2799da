//===- GPUModuleToBinary.cpp - gpu-module-to-binary, attn's settings -*- C++
//-*-===//
//
// Upstream gpu-module-to-binary, run as a nested pipeline, with LLVM's loop
// strength reduction off where a kernel sits at the register limit
// (Passes.td says why).
//
//===----------------------------------------------------------------------===//
#include "attn/Conversion/Passes.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
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

/// Sets LLVM's `-disable-lsr` while alive. The option is process-wide: the
/// scopes are counted under a lock, the first one in sets it (keeping what
/// it was) and the last one out restores that.
class ScopedDisableLSR {
public:
  /// Fails when this LLVM has no such option (the NVPTX code generator,
  /// which registers it, is not linked in).
  static FailureOr<ScopedDisableLSR> create() {
    std::lock_guard<std::mutex> lock(mutex());
    if (!option())
      return failure();
    if (depth()++ == 0) {
      saved() = option()->getValue();
      option()->setValue(true);
    }
    return ScopedDisableLSR();
  }
  ScopedDisableLSR(ScopedDisableLSR &&other) { other.active = false; }
  ScopedDisableLSR(const ScopedDisableLSR &) = delete;
  ~ScopedDisableLSR() {
    if (!active)
      return;
    std::lock_guard<std::mutex> lock(mutex());
    if (--depth() == 0)
      option()->setValue(saved());
  }

private:
  ScopedDisableLSR() = default;
  static llvm::cl::opt<bool> *option() {
    auto &options = llvm::cl::getRegisteredOptions();
    auto it = options.find("disable-lsr");
    return it == options.end() ? nullptr
                               : static_cast<llvm::cl::opt<bool> *>(it->second);
  }
  static std::mutex &mutex() {
    static std::mutex m;
    return m;
  }
  static int &depth() {
    static int d = 0;
    return d;
  }
  static bool &saved() {
    static bool s = false;
    return s;
  }
  bool active = true;
};

struct GPUModuleToBinaryPass
    : public attn::impl::AttnGPUModuleToBinaryBase<GPUModuleToBinaryPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (!llvm::is_contained({"offloading", "llvm", "assembly", "isa",
                             "binary", "bin", "fatbinary", "fatbin"},
                            StringRef(format)))
      return emitError(UnknownLoc::get(ctx))
             << "pass option format must be offloading, llvm, assembly, "
                "isa, binary, bin, fatbinary or fatbin, got '"
             << format << "'";
    return success();
  }

  /// Whether a kernel in `module`'s gpu.modules reaches the register limit
  /// (a gpu.func, or the llvm.func it has become by now: both keep
  /// attn.kernel).
  bool atRegisterLimit(ModuleOp module) {
    if (lsrRegisterLimit <= 0)
      return false;
    bool found = false;
    module.walk([&](gpu::GPUModuleOp gm) {
      gm.walk([&](Operation *fn) {
        auto info = fn->getAttrOfType<DictionaryAttr>(kKernelInfoAttrName);
        auto regs =
            info ? dyn_cast_or_null<IntegerAttr>(info.get("register_estimate"))
                 : IntegerAttr();
        found |= regs && regs.getInt() >= lsrRegisterLimit;
      });
    });
    return found;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool noLSR = atRegisterLimit(module);
    OpPassManager pm(ModuleOp::getOperationName());
    GpuModuleToBinaryPassOptions bin;
    bin.compilationTarget = format;
    pm.addPass(createGpuModuleToBinaryPass(bin));
    std::optional<ScopedDisableLSR> scope;
    if (noLSR) {
      FailureOr<ScopedDisableLSR> s = ScopedDisableLSR::create();
      if (failed(s)) {
        module.emitError("LLVM has no -disable-lsr option (is the NVPTX "
                         "code generator linked in?)");
        return signalPassFailure();
      }
      scope.emplace(std::move(*s));
    }
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();
    if (noLSR)
      module.walk([&](gpu::BinaryOp bin) {
        bin->setAttr(kLSRAttrName, BoolAttr::get(module.getContext(), false));
      });
  }
};

} // namespace
