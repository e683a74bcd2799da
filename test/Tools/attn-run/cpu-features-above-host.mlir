// UNSUPPORTED: cpu-amx
// A level above the host's is refused before anything is compiled, naming
// the host's highest (avx512 or avx2).
// RUN: not attn-run --cpu-features amx --seq-q 16 2>&1 | FileCheck %s
// CHECK: attn-run: error: unsupported: --cpu-features=amx on this host, whose CPU has at most avx{{2|512}}
