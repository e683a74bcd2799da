// The CPU path's grid (batch, head, query block) runs as an OpenMP loop on
// --threads threads with a dynamic schedule: causal GQA and cross attention
// with many query blocks of unequal work, checked against the float64
// reference on 1, 2 and more threads than iterations, with repeated timed
// calls (--repeat) and with the thread count from OMP_NUM_THREADS or the
// runtime's default.
//
// RUN: attn-run --dtype f32 --head-dim 64 --batch 2 --heads 4 --kv-heads 2 --seq-q 300 --causal --block-q 32 --threads 2 --check | FileCheck %s --check-prefixes=CHECK,T2
// RUN: attn-run --dtype f32 --head-dim 64 --batch 2 --heads 4 --kv-heads 2 --seq-q 300 --causal --block-q 32 --threads 1 --check | FileCheck %s --check-prefixes=CHECK,T1
// RUN: attn-run --dtype bf16 --head-dim 128 --heads 3 --kv-heads 1 --seq-q 200 --seq-k 333 --causal --block-q 16 --block-kv 32 --threads 2 --repeat 3 --check | FileCheck %s --check-prefixes=CHECK,T2,REPEAT
// RUN: attn-run --dtype f16 --head-dim 64 --heads 2 --kv-heads 1 --seq-q 333 --seq-k 77 --causal --block-q 16 --no-fuse --threads 2 --check | FileCheck %s --check-prefixes=CHECK,T2
// RUN: attn-run --dtype f32 --head-dim 64 --seq-q 17 --causal --threads 5 --check | FileCheck %s --check-prefixes=CHECK,T5
// RUN: env OMP_NUM_THREADS=3 attn-run --dtype f32 --head-dim 64 --heads 2 --seq-q 130 --causal --block-q 16 --check | FileCheck %s --check-prefixes=CHECK,T3
// RUN: attn-run --dtype f32 --head-dim 64 --heads 2 --seq-q 130 --causal --block-q 16 --threads 0 --check | FileCheck %s --check-prefixes=CHECK,T0

// T1: attn-run: target=cpu {{.*}} causal=1 {{.*}} threads=1
// T2: attn-run: target=cpu {{.*}} causal=1 {{.*}} threads=2
// T3: attn-run: target=cpu {{.*}} causal=1 {{.*}} threads=3
// T5: attn-run: target=cpu {{.*}} causal=1 {{.*}} threads=5
// T0: attn-run: target=cpu {{.*}} causal=1 {{.*}} threads=0 (OpenMP default)
// REPEAT: run={{[0-9.]+}} ms median of 3 ({{[0-9.]+}} GFLOP/s)
// CHECK: check O:
// CHECK-SAME: non_finite=0
// CHECK: check LSE:
// CHECK-SAME: non_finite=0
// CHECK: PASS
