// Numerics of the built-in ALiBi on the CPU path against the float64
// reference of ALiBi's own definition (FlashAttention's alibi_slopes,
// bottom-right aligned: S − slope[h]·|i + Nk − Nq − j|; attn-run computes
// it from the formula, not from the region attn-expand-alibi writes), with
// fresh slopes in [0, 1): causal and not, Nq != Nk both ways (rows that see
// no key under causal), GQA, several key blocks, f32, bf16 and f16; and
// this file's alibi(...) operand with static lengths.
//
// RUN: attn-run --alibi --dtype f32 --heads 4 --kv-heads 2 --seq-q 130 --seq-k 200 --check | FileCheck %s
// RUN: attn-run --alibi --dtype f32 --heads 4 --kv-heads 2 --seq-q 130 --seq-k 200 --causal --check | FileCheck %s
// RUN: attn-run --alibi --dtype bf16 --head-dim 128 --heads 2 --seq-q 300 --seq-k 77 --causal --lse --check | FileCheck %s --check-prefixes=CHECK,LSE
// RUN: attn-run --alibi --dtype f16 --heads 3 --kv-heads 1 --seq-q 77 --seq-k 300 --block-q 16 --block-kv 32 --check | FileCheck %s
// RUN: attn-run --alibi --dtype f32 --batch 2 --heads 2 --seq-q 1 --seq-k 1000 --causal --check | FileCheck %s
// Without the causal mask the tiling splits the unmasked key blocks at
// every row's diagonal (left of it, across it, right of it): many blocks of
// each, Nq < Nk and Nq > Nk (whole programs of rows right of the keys).
// RUN: attn-run --alibi --dtype f32 --heads 2 --seq-q 300 --seq-k 700 --block-q 32 --block-kv 32 --lse --check | FileCheck %s --check-prefixes=CHECK,LSE
// RUN: attn-run --alibi --dtype f32 --heads 2 --seq-q 700 --seq-k 300 --block-q 32 --block-kv 32 --lse --check | FileCheck %s --check-prefixes=CHECK,LSE
// RUN: attn-run --alibi --dtype bf16 --head-dim 128 --heads 2 --kv-heads 1 --seq-q 500 --seq-k 520 --lse --check | FileCheck %s --check-prefixes=CHECK,LSE
// RUN: attn-run %s --check | FileCheck %s
// A kernel that dropped the bias, or used another convention, fails: the
// slopes are up to 1 a key, far beyond the tolerance.

// CHECK: check O:
// CHECK-SAME: non_finite=0
// LSE: check LSE:
// LSE-SAME: non_finite=0
// CHECK: PASS

func.func @attention(%q: memref<2x4x100x64xf32>, %k: memref<2x2x160x64xf32>,
                     %v: memref<2x2x160x64xf32>, %o: memref<2x4x100x64xf32>,
                     %slopes: memref<4xf32>) {
  attn.attention %q, %k, %v into %o alibi(%slopes : memref<4xf32>) {causal}
      : memref<2x4x100x64xf32>, memref<2x2x160x64xf32>,
        memref<2x2x160x64xf32>, memref<2x4x100x64xf32>
  return
}
