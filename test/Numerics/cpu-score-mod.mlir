// Numerics of attn.attention's score_mod on the CPU path, against the
// float64 reference applying the same modifier to every scaled score before
// the mask (attn-run evaluates the region's ops in float64). --softcap C
// builds the soft-cap region S' = C·tanh(S / C) (Gemma 2's) on a problem from
// flags; this file's own function carries a modifier of several ops (a
// clamp, a square, an exponential), run as is and as bf16 through sed.
// Causal (masked keys must stay -inf whatever the modifier gives finite
// scores), GQA, cross attention, several key blocks, split-KV, a packed
// batch and a paged KV cache.
//
// RUN: attn-run --dtype f32 --head-dim 64 --heads 2 --seq-q 300 --seq-k 500 --causal --lse --softcap 2 --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --heads 4 --kv-heads 2 --seq-q 257 --lse --softcap 1.5 --check | FileCheck %s
// RUN: attn-run --dtype f16 --head-dim 64 --heads 2 --seq-q 1 --more-seq 17,130,1000 --causal --lse --softcap 0.5 --check | FileCheck %s --check-prefix=MORE
// RUN: attn-run --dtype f32 --head-dim 64 --heads 2 --seq-q 64 --seq-k 2000 --kv-splits 4 --lse --softcap 3 --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 64 --heads 4 --kv-heads 2 --varlen 5,64,1,300 --causal --lse --softcap 4 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --heads 2 --batch 3 --seq-q 4 --seq-k 100 --kv-lens 7,0,100 --paged 16 --causal --lse --softcap 3 --check | FileCheck %s
// RUN: attn-run %s --batch 2 --heads 3 --seq-q 130 --seq-k 200 --block-q 16 --block-kv 32 --check | FileCheck %s
// RUN: attn-run %S/Inputs/score-mod-ops.mlir --batch 2 --heads 2 --seq-q 130 --seq-k 200 --check | FileCheck %s --check-prefix=NOLSE
// RUN: sed -e 's/64xf32/64xbf16/g' %s > %t.bf16.mlir
// RUN: attn-run %t.bf16.mlir --seq-q 1000 --seq-k 130 --heads 4 --kv-heads 2 --check | FileCheck %s
// A kernel that ignored the region would fail every line: the reference
// applies the modifier.

// CHECK: check O:
// CHECK-SAME: non_finite=0
// CHECK: check LSE:
// CHECK-SAME: non_finite=0
// CHECK: PASS
// MORE-COUNT-4: PASS
// NOLSE: check O:
// NOLSE-SAME: non_finite=0
// NOLSE: PASS

func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) score_mod {
  ^bb0(%s: f32):
    // S' = max(S, -1) + 0.1·S² − 0.5·exp(−|S|)
    %m1 = arith.constant -1.0 : f32
    %tenth = arith.constant 0.1 : f32
    %half = arith.constant 0.5 : f32
    %c = arith.maximumf %s, %m1 : f32
    %sq = arith.mulf %s, %s : f32
    %q2 = arith.mulf %sq, %tenth : f32
    %a = arith.addf %c, %q2 : f32
    %abs = math.absf %s : f32
    %neg = arith.negf %abs : f32
    %e = math.exp %neg : f32
    %he = arith.mulf %e, %half : f32
    %y = arith.subf %a, %he : f32
    attn.yield %y : f32
  } {causal} : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
