//===- Philox.h - Philox4x32-10 as arith ops --------------------*- C++ -*-===//
//
// The dropout mask's generator (attn/runtime/Philox.h, the host's
// definition) emitted as arith ops, for the lowerings of attn.random.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_DIALECT_ATTN_IR_PHILOX_H
#define ATTN_DIALECT_ATTN_IR_PHILOX_H

#include "mlir/IR/Builders.h"

#include <array>

namespace mlir::attn {

/// Philox4x32-10 of the i32 `counter` under key (k0, k1) (i32 scalars):
/// ten rounds of
///   (hi0, lo0) = M0·c0, (hi1, lo1) = M1·c2;  c = (hi1^c1^k0, lo1, hi0^c3^k1,
///   lo0)
/// with the key advanced by (W0, W1) between rounds. `keys` caches the
/// round keys of one (k0, k1) across calls (empty at first).
std::array<Value, 4> emitPhilox(OpBuilder &b, Location loc,
                                std::array<Value, 4> counter, Value k0,
                                Value k1,
                                SmallVectorImpl<std::pair<Value, Value>> &keys);

/// The key (lo32(seed), hi32(seed)) of an i64 seed.
std::pair<Value, Value> philoxKey(OpBuilder &b, Location loc, Value seed);

} // namespace mlir::attn

#endif // ATTN_DIALECT_ATTN_IR_PHILOX_H
