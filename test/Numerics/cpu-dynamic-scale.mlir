// Numerics of a run-time scale on the CPU path: the function below takes the
// scale as a trailing f32 argument (attn.attention ... scale(%s)); attn-run
// passes --scale, or 1/sqrt(D) by default, and checks O and LSE against the
// float64 reference with that scale. The file is f32 and causal; sed makes
// the bf16 and non-causal variants. Cross attention (rows that see no key
// when Nq > Nk), GQA, small blocks (many key/value blocks, both loop
// segments) and the naive three-pass form (--no-fuse) are covered.
//
// RUN: attn-run %s --seq-q 130 --seq-k 77 --batch 2 --heads 3 --check | FileCheck %s --check-prefixes=DEFAULT,CHECK
// RUN: attn-run %s --seq-q 130 --seq-k 200 --scale 0.5 --block-q 16 --block-kv 16 --check | FileCheck %s --check-prefixes=HALF,CHECK
// RUN: attn-run %s --seq-q 77 --seq-k 33 --scale 0.7 --block-q 16 --block-kv 16 --no-fuse --check | FileCheck %s
// RUN: sed -e 's/ {causal}//' %s > %t.f32.mlir
// RUN: attn-run %t.f32.mlir --seq-q 17 --seq-k 130 --scale 0.03 --check | FileCheck %s
// RUN: attn-run %t.f32.mlir --seq-q 130 --heads 4 --kv-heads 2 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %s > %t.bf16-causal.mlir
// RUN: attn-run %t.bf16-causal.mlir --seq-q 130 --scale 0.3 --check | FileCheck %s
// RUN: attn-run %t.bf16-causal.mlir --seq-q 1000 --seq-k 130 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' -e 's/ {causal}//' %s > %t.bf16.mlir
// RUN: attn-run %t.bf16.mlir --seq-q 128 --seq-k 200 --batch 2 --heads 4 --kv-heads 2 --scale 0.2 --check | FileCheck %s
// RUN: attn-run %t.bf16.mlir --seq-q 130 --block-kv 32 --no-fuse --check | FileCheck %s

// DEFAULT: scale=1.250000e-01
// HALF: scale=5.000000e-01
// CHECK: check O:
// CHECK-SAME: non_finite=0
// CHECK: check LSE:
// CHECK-SAME: non_finite=0
// CHECK: PASS

func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>, %s: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) scale(%s) {causal}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
