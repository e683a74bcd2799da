// REQUIRES: cpu-amx
// The AMX path (--cpu-features amx: bf16 products on tiles, the softmax on
// AVX-512) against float64, as the default CPU numerics tests check the
// host's level: fresh N(0,1) inputs, NaN-poisoned outputs, relative bound
// 1e-2 for bf16; lengths that are and are not multiples of the 256-key
// blocks; head dims 64, 96 (three 32-wide k steps), 128 (256-key blocks)
// and 256 (128-key blocks), 80 (no whole 32-wide step: Q·Kᵀ stays on FMAs,
// P·V on tiles); GQA, Nq != Nk, a paged KV cache.
//
// RUN: attn-run --cpu-features amx --dtype bf16 --head-dim 128 --seq-q 1 --more-seq 17,256,300,1000 --batch 2 --heads 3 --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --cpu-features amx --dtype bf16 --head-dim 128 --seq-q 1 --more-seq 17,256,300,1000 --batch 2 --heads 3 --causal --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --cpu-features amx --dtype bf16 --head-dim 64 --seq-q 1 --more-seq 17,256,300,1000 --batch 2 --heads 3 --causal --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --cpu-features amx --dtype bf16 --head-dim 96 --seq-q 1 --more-seq 17,256,300,1000 --batch 2 --heads 3 --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --cpu-features amx --dtype bf16 --head-dim 256 --seq-q 1 --more-seq 17,256,300,1000 --batch 2 --heads 3 --causal --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --cpu-features amx --dtype bf16 --head-dim 80 --seq-q 1 --more-seq 17,256,300,1000 --batch 2 --heads 3 --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --cpu-features amx --dtype bf16 --head-dim 128 --seq-q 1 --more-seq 17,256,300,1000 --batch 2 --heads 4 --kv-heads 2 --causal --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --cpu-features amx --dtype bf16 --head-dim 128 --seq-q 100 --seq-k 700 --batch 2 --heads 4 --kv-heads 1 --causal --check | FileCheck %s --check-prefix=ONE --implicit-check-not=FAIL
// RUN: attn-run --cpu-features amx --dtype bf16 --head-dim 128 --seq-q 1 --seq-k 1000 --batch 2 --heads 4 --kv-heads 2 --paged 256 --kv-lens 513,1000 --check | FileCheck %s --check-prefix=ONE --implicit-check-not=FAIL
//
// f32 and f16 at the amx level stay on AVX-512 FMAs (no fp16 tiles on this
// unit); the check is theirs (1e-5 f32, 1e-2 f16).
// RUN: attn-run --cpu-features amx --dtype f32 --head-dim 128 --seq-q 300 --batch 2 --heads 3 --causal --check | FileCheck %s --check-prefix=ONE --implicit-check-not=FAIL
// RUN: attn-run --cpu-features amx --dtype f16 --head-dim 64 --seq-q 300 --batch 2 --heads 3 --check | FileCheck %s --check-prefix=ONE --implicit-check-not=FAIL

// CHECK:       Nq=1 Nk=1 {{.*}} cpu-features=amx
// CHECK:       PASS
// CHECK:       same kernel, Nq=17 Nk=17
// CHECK:       PASS
// CHECK:       same kernel, Nq=256 Nk=256
// CHECK:       PASS
// CHECK:       same kernel, Nq=300 Nk=300
// CHECK:       PASS
// CHECK:       same kernel, Nq=1000 Nk=1000
// CHECK:       check O:
// CHECK:       check LSE:
// CHECK:       PASS
// ONE:         cpu-features=amx
// ONE:         check O:
// ONE:         PASS
