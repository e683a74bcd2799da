// The README's main job: the example (bf16, D = 128, causal, with LSE) read
// from its .mlir file, compiled and run on the CPU with the check.
// RUN: attn-run %attn_src_root/examples/attention.mlir --batch 2 --heads 4 --kv-heads 2 --seq-q 300 --check | FileCheck %s
// CHECK: dtype=bf16 B=2 Hq=4 Hkv=2 Nq=300 Nk=300 D=128 Dv=128 causal=1
// CHECK: PASS
