//===- AttnBase.td - attn dialect definition ---------------*- tablegen -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNBASE_TD
#define ATTN_DIALECT_ATTN_IR_ATTNBASE_TD

include "mlir/IR/OpBase.td"

def Attn_Dialect : Dialect {
  let name = "attn";
  let summary = "Exact, IO-aware attention and the tile-level ops it lowers to";
  let description = [{
    The `attn` dialect has two levels.

    * Problem level: `attn.attention` states an exact scaled-dot-product
      attention over memrefs (Q, K, V in, O and optionally the row
      log-sum-exp out), with the variant carried by attributes.
    * Tile level: ops on small statically shaped tensors (tiles) that the
      IO-aware tiling pass produces: `attn.load_tile`, `attn.store_tile`,
      `attn.dot`, `attn.mask`, `attn.iota`, `attn.gather`, `attn.reduce`,
      `attn.broadcast`. Element-wise math on tiles uses `arith` and `math`
      directly. The CPU path lowers
      tiles to `linalg`; the GPU paths map them to per-thread fragments.
  }];
  let cppNamespace = "::mlir::attn";
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

class Attn_Op<string mnemonic, list<Trait> traits = []>
    : Op<Attn_Dialect, mnemonic, traits>;

#endif // ATTN_DIALECT_ATTN_IR_ATTNBASE_TD
