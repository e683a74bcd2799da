//===- main.cpp - an out-of-tree user of attn's compiler libraries --------===//
//
// Registers the attn dialect (and what its pipelines need), parses an
// attn.attention, verifies it and runs the tiling pipeline, counting ops
// before and after. Built against an installed prefix by
// test/Tools/install-package.test.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>

static const char *kSource = R"mlir(
func.func @attention(%q: memref<1x2x64x64xf32>, %k: memref<1x2x64x64xf32>,
                     %v: memref<1x2x64x64xf32>, %o: memref<1x2x64x64xf32>) {
  attn.attention %q, %k, %v into %o
      : memref<1x2x64x64xf32>, memref<1x2x64x64xf32>,
        memref<1x2x64x64xf32>, memref<1x2x64x64xf32>
  return
}
)mlir";

static void countAttnOps(mlir::ModuleOp module, llvm::StringRef when) {
  std::map<std::string, int> counts;
  module->walk([&](mlir::Operation *op) {
    if (op->getDialect() &&
        op->getDialect()->getNamespace() ==
            mlir::attn::AttnDialect::getDialectNamespace())
      ++counts[op->getName().getStringRef().str()];
  });
  llvm::outs() << when << ":";
  for (const auto &[name, n] : counts)
    llvm::outs() << " " << name << "=" << n;
  llvm::outs() << "\n";
}

int main() {
  mlir::DialectRegistry registry;
  mlir::attn::registerAttnDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kSource, &context);
  if (!module || mlir::failed(mlir::verify(*module))) {
    llvm::errs() << "attn-consumer: cannot parse the attn IR\n";
    return 1;
  }
  countAttnOps(*module, "parsed");

  mlir::PassManager pm(&context);
  mlir::attn::TilingPipelineOptions opts;
  mlir::attn::buildTilingPipeline(pm, opts);
  if (mlir::failed(pm.run(*module))) {
    llvm::errs() << "attn-consumer: the tiling pipeline failed\n";
    return 1;
  }
  countAttnOps(*module, "tiled");
  return 0;
}
