// Numerics of the variants on the CPU path: cross attention (Nq != Nk both
// ways, causal bottom-right aligned, including rows that see no key), GQA and
// MQA, a custom scale, Dv != D, small explicit blocks so that many key/value
// blocks and both loop segments run, and the naive three-pass form
// (--no-fuse) so that tiling is checked apart from fusion.
//
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 130 --seq-k 1000 --causal --heads 2 --check | FileCheck %s
// RUN: attn-run --dtype f16 --head-dim 64 --seq-q 1000 --seq-k 130 --causal --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 130 --seq-k 17 --causal --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 17 --seq-k 130 --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 64 --seq-q 128 --heads 8 --kv-heads 2 --batch 2 --causal --check | FileCheck %s
// RUN: attn-run --dtype f16 --head-dim 128 --seq-q 130 --heads 4 --kv-heads 1 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 130 --scale 0.5 --causal --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --head-dim-v 128 --seq-q 77 --seq-k 33 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 130 --seq-k 200 --causal --block-q 16 --block-kv 32 --heads 3 --kv-heads 1 --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 130 --causal --block-q 32 --block-kv 16 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 130 --seq-k 77 --causal --block-q 16 --block-kv 16 --no-fuse --check | FileCheck %s
// RUN: attn-run --dtype f16 --head-dim 64 --seq-q 17 --seq-k 1000 --no-fuse --block-kv 64 --check | FileCheck %s
// Lazy rescaling (the GPU pipeline's form, rescale-threshold 8): a large
// scale moves the row maxima by more than 8/c between blocks, the default
// one mostly not.
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 130 --seq-k 300 --causal --block-kv 16 --scale 4 --rescale-threshold 8 --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 64 --seq-q 130 --seq-k 300 --block-kv 16 --rescale-threshold 8 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 1 --seq-k 1 --causal --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 1000 --seq-k 1 --causal --check | FileCheck %s

// CHECK: check O:
// CHECK-SAME: non_finite=0
// CHECK: PASS
