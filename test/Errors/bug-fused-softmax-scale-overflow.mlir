// FIXED BUG (regression test, formerly XFAIL): the fused online softmax
// computes exp2(S*c - m*c) (c = scale*log2 e). For a valid but huge scale
// (1e38) S*c overflows f32 to +-inf and inf - inf gives NaN in O, while the
// naive three-pass form (--no-fuse), which computes exp(scale*(S - m)), gets O
// right. Either compute (S - m)*c, or have the verifier reject scales that can
// overflow ("unsupported").

// RUN: attn-run --scale 1e38 --lse=false --seq-q 32 --seed 1 --check | FileCheck %s
// CHECK: non_finite=0
// CHECK: PASS
