//===- attn-opt.cpp - the attn optimizer driver -----------------*- C++ -*-===//
//
// mlir-opt with the attn dialect, passes and pipelines registered, plus every
// upstream dialect and pass so that the lowered IR can be inspected and
// driven by hand (--pass-pipeline, --mlir-print-ir-after-all, ...).
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "attn/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::attn::registerAllAttnPasses();

  mlir::DialectRegistry registry;
  mlir::attn::registerAttnDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "attn optimizer driver: the attn compiler\n", registry));
}
