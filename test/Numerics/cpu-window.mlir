// Numerics of sliding windows on the CPU path against the float64
// reference: causal with a left bound (Mistral's form) at N a multiple of
// the block and not, both bounds, one bound alone, Nq != Nk both ways, GQA,
// small explicit blocks so that all three loop segments (masked left edge,
// whole blocks, masked right edge) run, windows narrower than a block
// (L = 0: each row sees one key), lazy rescaling, and KV caches.
//
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 1000 --causal --window 300,-1 --heads 4 --kv-heads 2 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 512 --causal --window 128,-1 --check | FileCheck %s
// RUN: attn-run --dtype f16 --head-dim 64 --seq-q 300 --window 37,20 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 300 --window -1,5 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 300 --window 40,-1 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 130 --seq-k 700 --causal --window 300,-1 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 700 --seq-k 130 --window 50,10 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 200 --causal --window 0,-1 --check | FileCheck %s
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 200 --causal --window 45,-1 --block-q 16 --block-kv 16 --heads 3 --kv-heads 1 --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 64 --seq-q 300 --window 70,30 --block-kv 16 --rescale-threshold 8 --check | FileCheck %s
// Over a KV cache (decoding and chunks of queries): the window placed by each
// sequence's own key count (0 keys, shorter than the window, longer),
// contiguous and paged (pages of 64 and of 16 rows, shuffled).
// RUN: attn-run --dtype bf16 --head-dim 64 --kv-lens 300,0,17,1000 --batch 4 --seq-q 1 --seq-k 1000 --causal --window 128,-1 --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 64 --kv-lens 300,0,17,1000 --batch 4 --seq-q 1 --seq-k 1024 --paged 64 --causal --window 200,-1 --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 64 --kv-lens 500,900 --batch 2 --seq-q 16 --seq-k 1000 --causal --window 100,-1 --heads 8 --kv-heads 2 --check | FileCheck %s
// RUN: attn-run --dtype f16 --head-dim 64 --kv-lens 500,900 --batch 2 --seq-q 40 --seq-k 1024 --paged 16 --window 33,5 --check | FileCheck %s

// CHECK: check O:
// CHECK-SAME: non_finite=0
// CHECK: check LSE:
// CHECK-SAME: non_finite=0
// CHECK: PASS
