// examples/attention.mlir cut short at various points
// (../Inputs/truncated-*, shared with attn-run/truncated-input.mlir):
// attn-opt, alone and with the pipelines, reports a parse error at the place
// the text ends, and exits 1.

// RUN: not attn-opt %S/../Inputs/truncated-in-args.mlir 2>&1 | FileCheck %s --check-prefix=ARGS
// RUN: not attn-opt %S/../Inputs/truncated-in-args.mlir --attn-cpu-pipeline 2>&1 | FileCheck %s --check-prefix=ARGS
// ARGS: truncated-in-args.mlir:6:23: error: expected ':'

// RUN: not attn-opt %S/../Inputs/truncated-in-arg-type.mlir 2>&1 | FileCheck %s --check-prefix=ARGTYPE
// ARGTYPE: truncated-in-arg-type.mlir:6:71: error: expected non-function type

// RUN: not attn-opt %S/../Inputs/truncated-no-body.mlir --attn-tile-pipeline 2>&1 | FileCheck %s --check-prefix=NOBODY
// NOBODY: truncated-no-body.mlir:5:1: error: 'func.func' op symbol declaration cannot have public visibility

// RUN: not attn-opt %S/../Inputs/truncated-in-attr-dict.mlir 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: truncated-in-attr-dict.mlir:8:68: error: expected '}' in attribute dictionary

// RUN: not attn-opt %S/../Inputs/truncated-in-type-list.mlir --attn-tile-attention 2>&1 | FileCheck %s --check-prefix=TYPES
// TYPES: truncated-in-type-list.mlir:10:17: error: expected non-function type

// RUN: not attn-opt %S/../Inputs/truncated-no-return.mlir 2>&1 | FileCheck %s --check-prefix=NORET
// NORET: truncated-no-return.mlir:10:55: error: expected operation name in quotes

// RUN: not attn-opt %S/../Inputs/truncated-no-close-brace.mlir 2>&1 | FileCheck %s --check-prefix=NOBRACE
// NOBRACE: truncated-no-close-brace.mlir:11:9: error: expected operation name in quotes

// Cut inside the leading comment: an empty module, which the pipeline
// leaves empty.
// RUN: attn-opt %S/../Inputs/truncated-comments-only.mlir --attn-cpu-pipeline | FileCheck %s --check-prefix=EMPTY
// EMPTY: module {
// EMPTY-NEXT: }
