// Split-KV (flash-decoding) on the CPU path: attn-run --kv-splits S
// compiles attn.attention {split_kv} into f32 partials and
// attn.merge_splits into O and LSE through the whole CPU pipeline, runs
// them on fresh random inputs with NaN-poisoned outputs and partials, and
// compares O and LSE with the float64 reference of the unsplit attention.
// Splits that see no key (more splits than key blocks, causal rows past
// the diagonal, Nq > Nk rows that see nothing) must merge to the exact
// result, never NaN.
//
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 1 --seq-k 1000 --heads 8 --kv-heads 2 --kv-splits 4 --lse --check | FileCheck %s
// RUN: attn-run --dtype f16 --head-dim 64 --seq-q 17 --seq-k 1000 --batch 2 --heads 4 --kv-heads 2 --kv-splits 7 --causal --lse --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 64 --seq-q 130 --seq-k 130 --kv-splits 16 --causal --lse --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 5 --seq-k 3 --kv-splits 3 --causal --lse --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 4 --seq-k 4096 --kv-splits 2 --check | FileCheck %s

// CHECK:       kv-splits=
// CHECK:       check O:
// CHECK:       PASS

// Bad values are refused before anything runs.
// RUN: not attn-run --kv-splits -1 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: attn-run: error: --kv-splits must be >= 0, got -1
// RUN: not attn-run --kv-splits 2 --target gpu 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: attn-run: error: --kv-splits is for the CPU path (the GPU runtime chooses its splits itself)
// RUN: not attn-run %s --kv-splits 2 2>&1 | FileCheck %s --check-prefix=FILE
// FILE: attn-run: error: --kv-splits needs the problem from flags, not an input file
