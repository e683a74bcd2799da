// attn-run's default level is the host's highest: amx where the host has
// AMX bf16 tiles, else avx512bf16 where it has AVX512-BF16 (vdpbf16ps tiles:
// 1.8-2.0x avx512's f32-widened FMA tiles on Zen 5), else avx512, else avx2.
// RUN: attn-run --target cpu --dtype bf16 --seq-q 16 --head-dim 64 --check | FileCheck %s --check-prefix=%if cpu-amx %{AMX%} %else %{%if cpu-avx512bf16 %{DOT%} %else %{%if cpu-avx512 %{AVX512%} %else %{AVX2%}%}%}

// AMX:    cpu-features=amx
// DOT:    cpu-features=avx512bf16
// AVX512: cpu-features=avx512{{( |$)}}
// AVX2:   cpu-features=avx2
// AMX:    PASS
// DOT:    PASS
// AVX512: PASS
// AVX2:   PASS
