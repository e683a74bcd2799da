// FIXED BUG (regression test, formerly XFAIL): attn-run's "needs exactly one
// attn.attention" error is reported at the module's unknown location
// (<file>:0:0) and followed by a note that dumps the whole module in generic
// form. It should point at a real place (the second attn.attention when there
// are several) and not dump the module.

// RUN: not attn-run %S/Inputs/run-two-attentions.mlir 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: run-two-attentions.mlir:4:3: error: attn-run needs exactly one attn.attention, found 2
// TWO-NOT: "builtin.module"
// RUN: not attn-run %S/Inputs/run-no-attention.mlir 2>&1 | FileCheck %s --check-prefix=NONE
// NONE-NOT: :0:0:
// NONE: error: attn-run needs exactly one attn.attention, found 0
// NONE-NOT: "builtin.module"
