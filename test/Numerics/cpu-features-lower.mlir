// REQUIRES: cpu-avx512
// Every level below the host's, forced with --cpu-features, against float64
// (the default CPU numerics tests run the host's own level): avx512 (8×32
// FMA register tiles, exp2 through vscalefps) and avx2 (4×16, the generic
// exp2; the code uses no AVX-512 register) on f32, bf16 and f16; where the
// host has AVX512-BF16, the avx512bf16 level (vdpbf16ps tiles; the default
// there unless the host has AMX).
//
// RUN: attn-run --cpu-features avx512 --dtype f32 --head-dim 128 --seq-q 1 --more-seq 17,130,1000 --batch 2 --heads 3 --causal --check | FileCheck %s --check-prefix=AVX512 --implicit-check-not=FAIL
// RUN: attn-run --cpu-features avx512 --dtype bf16 --head-dim 64 --seq-q 1 --more-seq 17,130,1000 --batch 2 --heads 3 --check | FileCheck %s --check-prefix=AVX512 --implicit-check-not=FAIL
// RUN: attn-run --cpu-features avx512 --dtype f16 --head-dim 128 --seq-q 300 --batch 2 --heads 4 --kv-heads 2 --check | FileCheck %s --check-prefix=ONE512 --implicit-check-not=FAIL
// RUN: %if cpu-avx512bf16 %{ attn-run --cpu-features avx512bf16 --dtype bf16 --head-dim 128 --seq-q 1 --more-seq 17,130,1000 --batch 2 --heads 3 --causal --check | FileCheck %s --check-prefix=DOT --implicit-check-not=FAIL %}
// RUN: %if cpu-avx512bf16 %{ attn-run --cpu-features avx512bf16 --dtype bf16 --head-dim 96 --seq-q 300 --seq-k 700 --batch 2 --heads 4 --kv-heads 1 --check | FileCheck %s --check-prefix=DOTONE --implicit-check-not=FAIL %}
// RUN: attn-run --cpu-features avx2 --dtype f32 --head-dim 64 --seq-q 1 --more-seq 17,130,1000 --batch 2 --heads 3 --check | FileCheck %s --check-prefix=AVX2 --implicit-check-not=FAIL
// RUN: attn-run --cpu-features avx2 --dtype bf16 --head-dim 128 --seq-q 1 --more-seq 17,130,1000 --batch 2 --heads 3 --causal --check | FileCheck %s --check-prefix=AVX2 --implicit-check-not=FAIL

// AVX512:      cpu-features=avx512
// AVX512:      PASS
// AVX512:      same kernel, Nq=17 Nk=17
// AVX512:      PASS
// AVX512:      same kernel, Nq=130 Nk=130
// AVX512:      PASS
// AVX512:      same kernel, Nq=1000 Nk=1000
// AVX512:      PASS
// ONE512:      cpu-features=avx512
// ONE512:      PASS
// DOT:         cpu-features=avx512bf16
// DOT:         PASS
// DOT:         same kernel, Nq=17 Nk=17
// DOT:         PASS
// DOT:         same kernel, Nq=130 Nk=130
// DOT:         PASS
// DOT:         same kernel, Nq=1000 Nk=1000
// DOT:         PASS
// DOTONE:      cpu-features=avx512bf16
// DOTONE:      PASS
// AVX2:        cpu-features=avx2
// AVX2:        PASS
// AVX2:        same kernel, Nq=17 Nk=17
// AVX2:        PASS
// AVX2:        same kernel, Nq=130 Nk=130
// AVX2:        PASS
// AVX2:        same kernel, Nq=1000 Nk=1000
// AVX2:        PASS
