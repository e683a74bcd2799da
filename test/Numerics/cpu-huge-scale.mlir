// A valid but huge scale (1e38): the fused online softmax computes its
// exponents as (S - m)·c (c = scale·log2 e), never S·c - m·c, which would
// overflow f32 to ±inf and give inf - inf = NaN in O. O stays finite and
// matches the float64 reference, as the naive three-pass form does.

// RUN: attn-run --scale 1e38 --lse=false --seq-q 32 --seed 1 --check | FileCheck %s
// CHECK: check O: {{.*}} non_finite=0
// CHECK: PASS
