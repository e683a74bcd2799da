//===- Passes.td - attn conversion passes ------------------*- tablegen -*-===//
#ifndef ATTN_CONVERSION_PASSES_TD
#define ATTN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertAttnToLinalg : Pass<"convert-attn-to-linalg"> {
  let summary = "Lower attn tile ops to linalg, tensor and bufferization ops";
  let description = [{
    The CPU path: each tile op becomes its linalg (or tensor/memref)
    equivalent on tensors, ready for one-shot bufferization. Loads read a
    `memref.subview` of the valid rows and pad the rest with zeros; stores
    write the valid rows through `bufferization.materialize_in_destination`.
    `attn.attention` must be tiled first; one left over is an error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // ATTN_CONVERSION_PASSES_TD
