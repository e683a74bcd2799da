//===- TileOrder.h - which tile a program slot runs -------------*- C++ -*-===//
//
// The order in which a grid's (batch, head, query block) tiles are run:
// thread blocks of a launch start in order of their linear index, and the
// programs of a persistent grid take tiles p, p + P, ...; either way the
// tile of linear index L follows one formula, shared by the kernel's block
// mapping (convert-attn-gpu-to-nvvm) and the persistent tile loop
// (attn-persist-tiles).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_DIALECT_ATTN_IR_TILEORDER_H
#define ATTN_DIALECT_ATTN_IR_TILEORDER_H

#include "mlir/IR/Builders.h"

namespace mlir::attn {

/// A tile's coordinates, i32 values below 2^31.
struct TileCoords {
  Value batch, head, qBlock;
};

/// The tile at linear index `linear` of a grid of `qBlocks` (X) query
/// blocks, `heads` (Y) and `batch` (Z) (all i32).
///
/// Without `groupBlocks`: the query blocks of one head together (they share
/// its K and V in L2), the last first (with a causal mask it sees the most
/// keys):
///   t = X − 1 − L mod X,  (batch, head) = (n / Y, n % Y),  n = L / X
///
/// With `groupBlocks` (i32; causal programs): query block t costs t + 1
/// key blocks, so the longest run first inside equal groups of G heads:
///   G = ceil(Y·Z / ceil(Y·Z / ceil(blocks / X)))
///   g = L / (G·X),  r = L % (G·X),  Gg = min(G, Y·Z − g·G)
///   t = X − 1 − r / Gg,  n = g·G + r % Gg
TileCoords tileAt(OpBuilder &b, Location loc, Value linear, Value qBlocks,
                  Value heads, Value batch, Value groupBlocks = Value());

/// The linear index (index) of the `t`-th tile (index) of a persistent
/// grid of `tiles` tiles and `programs` programs (program p runs t = p,
/// p + P, ...) in causal order: odd rounds of P tiles run backwards where
/// whole, so that in tileAt's longest-first order every program gets a long
/// and a short tile of each pair of rounds:
///   r = t / P,  q = t − r·P
///   L = r·P + P − 1 − q  if r is odd and (r + 1)·P <= tiles,  else t
/// A permutation of [0, tiles).
Value snakeRounds(OpBuilder &b, Location loc, Value t, Value programs,
                  Value tiles);

} // namespace mlir::attn

#endif // ATTN_DIALECT_ATTN_IR_TILEORDER_H
