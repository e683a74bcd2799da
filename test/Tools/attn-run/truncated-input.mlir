// examples/attention.mlir cut short at various points
// (../Inputs/truncated-*, shared with attn-opt/truncated-input.mlir):
// attn-run reports the parse error at the place the text ends, and exits 1
// before anything is compiled.

// RUN: not attn-run %S/../Inputs/truncated-in-args.mlir 2>&1 | FileCheck %s --check-prefix=ARGS
// ARGS: truncated-in-args.mlir:6:23: error: expected ':'

// RUN: not attn-run %S/../Inputs/truncated-in-arg-type.mlir 2>&1 | FileCheck %s --check-prefix=ARGTYPE
// ARGTYPE: truncated-in-arg-type.mlir:6:71: error: expected non-function type

// RUN: not attn-run %S/../Inputs/truncated-no-body.mlir 2>&1 | FileCheck %s --check-prefix=NOBODY
// NOBODY: truncated-no-body.mlir:5:1: error: 'func.func' op symbol declaration cannot have public visibility

// RUN: not attn-run %S/../Inputs/truncated-in-attr-dict.mlir 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: truncated-in-attr-dict.mlir:8:68: error: expected '}' in attribute dictionary

// RUN: not attn-run %S/../Inputs/truncated-in-type-list.mlir 2>&1 | FileCheck %s --check-prefix=TYPES
// TYPES: truncated-in-type-list.mlir:10:17: error: expected non-function type

// RUN: not attn-run %S/../Inputs/truncated-no-return.mlir 2>&1 | FileCheck %s --check-prefix=NORET
// NORET: truncated-no-return.mlir:10:55: error: expected operation name in quotes

// RUN: not attn-run %S/../Inputs/truncated-no-close-brace.mlir 2>&1 | FileCheck %s --check-prefix=NOBRACE
// NOBRACE: truncated-no-close-brace.mlir:11:9: error: expected operation name in quotes

// Cut inside the leading comment: an empty module, nothing to run.
// RUN: not attn-run %S/../Inputs/truncated-comments-only.mlir 2>&1 | FileCheck %s --check-prefix=NOTHING
// NOTHING: truncated-comments-only.mlir: error: attn-run needs exactly one attn.attention, found 0
