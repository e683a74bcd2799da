// UNSUPPORTED: cpu-avx512
// On a host without AVX-512, --cpu-features avx512 is refused before
// anything is compiled.
// RUN: not attn-run --cpu-features avx512 --seq-q 16 2>&1 | FileCheck %s
// CHECK: attn-run: error: unsupported: --cpu-features=avx512 on this host, whose CPU lacks avx512f
