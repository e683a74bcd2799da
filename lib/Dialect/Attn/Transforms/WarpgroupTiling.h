//===- WarpgroupTiling.h - which GPU programs take wgmma layouts -*- C++
//-*-===//
//
// Private to MLIRAttnTransforms: the one decision attn-assign-layouts makes
// and the passes before it (attn-defer-row-sums) need to know in advance.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_DIALECT_ATTN_TRANSFORMS_WARPGROUPTILING_H
#define ATTN_LIB_DIALECT_ATTN_TRANSFORMS_WARPGROUPTILING_H

#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <string>

namespace mlir::attn {

/// Why a program whose dots have `rows` rows cannot take wgmma layouts
/// (empty: it can). wgmma reads 16-bit operands from 128-byte-swizzled
/// slabs (rows of a multiple of 64 elements) or, with `halfSlabs`, 64-byte
/// ones (multiples of 32), writes 64-row accumulators per warpgroup and
/// takes N up to 256 per instruction (larger N is split).
std::string wgmmaObstacle(ArrayRef<DotOp> dots, int64_t rows,
                          bool halfSlabs = true);

/// Whether 16-bit problems of head dims `d` and `dv` will take wgmma layouts
/// by default on `target` (its warpgroup MMA; every operand read from shared
/// memory then has rows of whole slabs: 128-byte ones, or 64-byte ones in
/// the `forward`): what the block choices made before attn-assign-layouts
/// (the forward's and the backward's) go by.
bool headDimsTakeWgmma(TargetAttr target, int64_t d, int64_t dv, bool forward);

/// Whether the GPU program `grid` takes wgmma layouts under the option
/// `wgmma` of attn-assign-layouts (1: always, where it can; 0: never; -1:
/// where its target has warpgroup MMA and nothing stands in the way).
bool takesWgmma(scf::ForallOp grid, int64_t wgmma);

} // namespace mlir::attn

#endif // ATTN_LIB_DIALECT_ATTN_TRANSFORMS_WARPGROUPTILING_H
