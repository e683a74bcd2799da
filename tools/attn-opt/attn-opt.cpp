//===- attn-opt.cpp - the attn optimizer driver -----------------*- C++ -*-===//
//
// mlir-opt with the attn dialect, passes and pipelines registered, plus the
// upstream dialects and passes that attn's pipelines use (registerAttnPasses
// below), so that every stage of the lowered IR can be inspected and driven
// by hand (--pass-pipeline, --mlir-print-ir-after-all, ...). Only those: the
// statically linked attn-opt (-DATTN_STATIC_TOOLS=ON) carries no more of
// MLIR than it registers.
//
// One extra mode prints the generated PTX instead of the module:
//   attn-opt FILE --attn-codegen="chip=sm_80" --emit=ptx [-o OUT]
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "attn/Pipelines/Pipelines.h"
#include "attn/runtime/Chips.h"

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
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// --emit=ptx: run attn-codegen and print the PTX of every kernel module.
static int emitPTX(ArrayRef<StringRef> args, DialectRegistry &registry) {
  std::string input = "-", output = "-", codegen;
  bool sawCodegen = false;
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef a = args[i];
    if (a == "--emit=ptx" || a == "-emit=ptx")
      continue;
    if (a.consume_front("--attn-codegen") || a.consume_front("-attn-codegen")) {
      sawCodegen = true;
      if (a.consume_front("=")) {
        a.consume_front("\"");
        a.consume_back("\"");
        codegen = a.str();
      }
    } else if (a == "-o" && i + 1 < args.size()) {
      output = args[++i].str();
    } else if (a.consume_front("-o=") || a.consume_front("--o=")) {
      output = a.str();
    } else if (!a.starts_with("-") || a == "-") {
      input = a.str();
    } else {
      llvm::errs() << "attn-opt: error: --emit=ptx takes only FILE, "
                      "--attn-codegen=\"...\" and -o; got '"
                   << a << "'\n";
      return 1;
    }
  }
  if (!sawCodegen) {
    llvm::errs() << "attn-opt: error: --emit=ptx needs --attn-codegen\n";
    return 1;
  }
  auto opts = mlir::attn::CodegenPipelineOptions::createFromString(codegen);
  if (!opts) {
    llvm::errs() << "attn-opt: error: bad --attn-codegen options '" << codegen
                 << "'\n";
    return 1;
  }

  MLIRContext ctx(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  std::string err;
  auto file = openInputFile(input, &err);
  if (!file) {
    llvm::errs() << "attn-opt: error: " << err << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return 1;
  PassManager pm(&ctx);
  if (!mlir::attn::isSupportedChip(opts->chip)) {
    llvm::errs() << "attn-opt: error: "
                 << ::attn::unsupportedChipMessage(opts->chip) << "\n";
    return 1;
  }
  mlir::attn::buildGPUCodegenPipeline(pm, *opts);
  if (failed(pm.run(*module)))
    return 1;

  std::string ptx;
  module->walk([&](gpu::BinaryOp bin) {
    for (Attribute a : bin.getObjects())
      ptx += cast<gpu::ObjectAttr>(a).getObject().getValue().str();
  });
  if (ptx.empty()) {
    llvm::errs() << "attn-opt: error: no attn.attention to compile in " << input
                 << "\n";
    return 1;
  }
  auto out = openOutputFile(output, &err);
  if (!out) {
    llvm::errs() << "attn-opt: error: " << err << "\n";
    return 1;
  }
  out->os() << ptx;
  out->keep();
  return 0;
}

/// The upstream passes of attn's pipelines (lib/Pipelines/Pipelines.cpp),
/// so that any stage can be replayed by name, and the generic ones
/// (canonicalize, cse, inline, ...).
static void registerUpstreamPasses() {
  registerTransformsPasses();
  // Tile level -> CPU: linalg, vectors, buffers, OpenMP, LLVM.
  registerPass([] { return createConvertElementwiseToLinalgPass(); });
  registerPass([] { return createConvertLinalgToLoopsPass(); });
  registerPass([] { return arith::createArithExpandOpsPass(); });
  registerPass([] { return bufferization::createOneShotBufferizePass(); });
  bufferization::registerBufferizationPipelines();
  registerPass([] { return createConvertVectorToSCFPass(); });
  registerPass([] { return createConvertVectorToLLVMPass(); });
  registerPass([] { return createUBToLLVMConversionPass(); });
  registerPass([] { return createForallToParallelLoopPass(); });
  registerPass([] { return createConvertSCFToOpenMPPass(); });
  registerPass([] { return createLowerAffinePass(); });
  registerPass([] { return createSCFToControlFlowPass(); });
  registerPass([] { return memref::createExpandStridedMetadataPass(); });
  registerPass([] { return createFinalizeMemRefToLLVMConversionPass(); });
  registerPass([] { return createConvertMathToLLVMPass(); });
  registerPass([] { return createArithToLLVMConversionPass(); });
  registerPass([] { return createConvertControlFlowToLLVMPass(); });
  registerPass([] { return createConvertFuncToLLVMPass(); });
  registerPass([] { return createConvertOpenMPToLLVMPass(); });
  registerPass([] { return createReconcileUnrealizedCastsPass(); });
  // The kernel's gpu.module -> NVVM -> LLVM -> PTX.
  registerPass([] { return createConvertGpuOpsToNVVMOps(); });
  registerPass([] { return createConvertNVVMToLLVMPass(); });
  registerPass([] { return createGpuNVVMAttachTarget(); });
  registerPass([] { return createGpuModuleToBinaryPass(); });
}

int main(int argc, char **argv) {
  registerUpstreamPasses();
  mlir::attn::registerAllAttnPasses();

  mlir::DialectRegistry registry;
  mlir::attn::registerAttnDialects(registry);

  SmallVector<StringRef> args(argv + 1, argv + argc);
  if (llvm::is_contained(args, "--emit=ptx") ||
      llvm::is_contained(args, "-emit=ptx"))
    return emitPTX(args, registry);
  for (StringRef a : args)
    if (a.starts_with("--emit=") || a.starts_with("-emit=")) {
      llvm::errs() << "attn-opt: error: unknown " << a
                   << " (the only format is --emit=ptx)\n";
      return 1;
    }

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "attn optimizer driver: the attn compiler\n", registry));
}
