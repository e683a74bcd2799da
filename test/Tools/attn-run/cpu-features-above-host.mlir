// UNSUPPORTED: cpu-amx
// A level whose instructions the host lacks is refused before anything is
// compiled, naming what is missing.
// RUN: not attn-run --cpu-features amx --seq-q 16 2>&1 | FileCheck %s
// CHECK: attn-run: error: unsupported: --cpu-features=amx on this host, whose CPU lacks {{.*}}amx-tile, amx-bf16
