//===- AttnOps.h - attn operations ------------------------------*- C++ -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNOPS_H
#define ATTN_DIALECT_ATTN_IR_ATTNOPS_H

#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "attn/Dialect/Attn/IR/AttnEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "attn/Dialect/Attn/IR/AttnAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "attn/Dialect/Attn/IR/AttnTypes.h.inc"

#define GET_OP_CLASSES
#include "attn/Dialect/Attn/IR/AttnOps.h.inc"

namespace mlir::attn {
/// Rows of a block in [1, max]: a power of two; a query block may also be a
/// multiple of 64 (whole 64-row wgmma warpgroups: three of them at 192 rows
/// share every key/value tile). Key/value blocks stay powers of two (a paged
/// cache's power-of-two pages must split into whole blocks).
inline bool isValidBlockRows(int64_t rows, int64_t max, bool queryBlock) {
  return rows >= 1 && rows <= max &&
         ((rows & (rows - 1)) == 0 || (queryBlock && rows % 64 == 0));
}

/// The rule of a tile copy whose rows are gathered from pages (`pages` of
/// attn.load_tile and attn.async_load_tile): a 2-d tile of whole rows (no
/// column window) from a [num_pages, heads, page rows, cols] source.
LogicalResult verifyPagedRows(Operation *op, MemRefType source,
                              RankedTensorType tile, bool window);

/// The rule of a tile access whose rows are packed (position, head) pairs
/// (`group` of attn.load_tile, attn.async_load_tile, attn.store_tile): whole
/// rows (no column window, no pages) and a head index before the row index.
LogicalResult verifyGroupedRows(Operation *op, size_t numIndices, bool window,
                                bool paged);
} // namespace mlir::attn

#endif // ATTN_DIALECT_ATTN_IR_ATTNOPS_H
