// FIXED BUG (regression test, formerly XFAIL): when a flag disagrees with a
// static size in the IR, attn-run prints the flag's value as a character:
// "--batch 3" gives "--batch \x03 disagrees ...", "--seq-q 65" gives "--seq-q A
// disagrees ...". (problemFromOp streams the cl::opt<int64_t> itself, `<<
// d.opt`, which lands on the char overload; `<< int64_t(d.opt)` fixes it.)

// RUN: not attn-run %S/Inputs/run-static-dims.mlir --batch 3 2>&1 | FileCheck %s --check-prefix=BATCH
// BATCH: run-static-dims.mlir:3:3: error: --batch 3 disagrees with the IR's static size 2
// RUN: not attn-run %S/Inputs/run-static-dims.mlir --seq-q 65 2>&1 | FileCheck %s --check-prefix=SEQQ
// SEQQ: run-static-dims.mlir:3:3: error: --seq-q 65 disagrees with the IR's static size 64
