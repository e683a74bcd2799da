//===- CPUContractions.h - the CPU path's tile contractions -----*- C++ -*-===//
//
// The shape of the two products the CPU path's tile program holds as linalg
// generics (S = Q·Kᵀ, A += P·V), shared by attn-vectorize-cpu-tiles (on
// tensors) and attn-lower-cpu-bf16-contractions (on buffers).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_DIALECT_ATTN_TRANSFORMS_CPUCONTRACTIONS_H
#define ATTN_LIB_DIALECT_ATTN_TRANSFORMS_CPUCONTRACTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::attn {

/// For a generic of loops (m, n parallel; k reduction) with two inputs
/// A[m, k] and B, and one init C[m, n]: whether B is read transposed, as
/// B[n, k] (true), or as B[k, n] (false); nullopt for any other shape.
inline std::optional<bool> matmulRhsTransposed(linalg::GenericOp g) {
  if (g.getNumLoops() != 3 || g.getNumDpsInputs() != 2 ||
      g.getNumDpsInits() != 1)
    return std::nullopt;
  auto it = g.getIteratorTypesArray();
  if (it[0] != utils::IteratorType::parallel ||
      it[1] != utils::IteratorType::parallel ||
      it[2] != utils::IteratorType::reduction)
    return std::nullopt;
  MLIRContext *ctx = g.getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  auto map = [&](ArrayRef<AffineExpr> e) {
    return AffineMap::get(3, 0, e, ctx);
  };
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (maps[0] != map({m, k}) || maps[2] != map({m, n}))
    return std::nullopt;
  if (maps[1] == map({k, n}))
    return false;
  if (maps[1] == map({n, k}))
    return true;
  return std::nullopt;
}

} // namespace mlir::attn

#endif // ATTN_LIB_DIALECT_ATTN_TRANSFORMS_CPUCONTRACTIONS_H
