// FIXED BUG (regression test, formerly XFAIL): with a .mlir file, attn-run
// silently ignores --head-dim, --head-dim-v, --scale and --lse: it runs the
// IR's D = 64, default scale and LSE choice and exits 0. A flag that
// contradicts the IR should be an error, as --dtype, --causal and the sizes
// already are.

// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --head-dim 128 --seq-q 16 2>&1 | FileCheck %s --check-prefix=HEADDIM
// HEADDIM: error: --head-dim 128 disagrees
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --head-dim-v 32 --seq-q 16 2>&1 | FileCheck %s --check-prefix=HEADDIMV
// HEADDIMV: error: --head-dim-v 32 disagrees
// RUN: not attn-run %S/Inputs/run-plain-f32.mlir --scale 0.5 --seq-q 16 2>&1 | FileCheck %s --check-prefix=SCALE
// SCALE: error: --scale {{.*}}disagrees
// RUN: not attn-run %attn_src_root/examples/attention.mlir --lse=false --seq-q 16 2>&1 | FileCheck %s --check-prefix=LSE
// LSE: error: --lse disagrees
