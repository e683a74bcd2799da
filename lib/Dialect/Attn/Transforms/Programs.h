//===- Programs.h - which program a grid runs -------------------*- C++ -*-===//
//
// Private to MLIRAttnTransforms: the passes that apply to some programs
// only (their `programs` options) read a grid's attn.program here.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_DIALECT_ATTN_TRANSFORMS_PROGRAMS_H
#define ATTN_LIB_DIALECT_ATTN_TRANSFORMS_PROGRAMS_H

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/runtime/KernelABI.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <string>

namespace mlir::attn {

/// The program a GPU grid runs: its attn.program, or the forward's for a
/// grid without one.
inline std::string gridProgram(scf::ForallOp grid) {
  auto attr = grid->getAttrOfType<StringAttr>(kProgramAttrName);
  return attr ? attr.getValue().str()
              : ::attn::programName(::attn::Program::Attention);
}

/// A pass's `programs` option: each entry a program's name.
inline LogicalResult checkProgramsOption(MLIRContext *ctx,
                                         ArrayRef<std::string> programs) {
  for (const std::string &name : programs) {
    ::attn::Program p;
    if (!::attn::parseProgram(name, p))
      return emitError(UnknownLoc::get(ctx))
             << "pass option programs: unknown program '" << name
             << "' (expected " << ::attn::programNamesText() << ")";
  }
  return success();
}

} // namespace mlir::attn

#endif // ATTN_LIB_DIALECT_ATTN_TRANSFORMS_PROGRAMS_H
