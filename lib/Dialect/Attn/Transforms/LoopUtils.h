//===- LoopUtils.h - helpers shared by the key/value loop passes -*- C++
//-*-===//
//
// Private to MLIRAttnTransforms.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_DIALECT_ATTN_TRANSFORMS_LOOPUTILS_H
#define ATTN_LIB_DIALECT_ATTN_TRANSFORMS_LOOPUTILS_H

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::attn {

/// Ops that may be re-evaluated for another block (another value of a
/// loop's induction variable): no memory effects, no regions, scalar
/// results. Where they are cloned under a "block exists" guard, a division
/// or the like runs only where the original would have.
inline bool isClonableScalar(Operation *op) {
  if (op->getNumRegions() != 0 || op->hasTrait<OpTrait::IsTerminator>() ||
      !isMemoryEffectFree(op))
    return false;
  return llvm::all_of(op->getResultTypes(), [](Type t) {
    return isa<IndexType, IntegerType, FloatType>(t);
  });
}

} // namespace mlir::attn

#endif // ATTN_LIB_DIALECT_ATTN_TRANSFORMS_LOOPUTILS_H
