// The variant examples (the built-in soft-cap, score_mod regions with
// positions and captured tables, block lists given and generated, dropout,
// a score bias) read from their .mlir files, compiled and run on the CPU
// against the float64 reference, as their headers say.
// RUN: attn-run %attn_src_root/examples/attention-relative-bias.mlir --batch 2 --heads 16 --kv-heads 4 --seq-q 300 --check | FileCheck %s
// RUN: attn-run %attn_src_root/examples/attention-document-mask.mlir --batch 4 --heads 2 --seq-q 500 --check | FileCheck %s
// RUN: attn-run %attn_src_root/examples/attention-block-sparse.mlir --batch 2 --heads 2 --seq-q 700 --block-mask-drop 0.1 --check | FileCheck %s
// RUN: attn-run %attn_src_root/examples/attention-document-lists.mlir --batch 2 --heads 4 --seq-q 1024 --generate-block-lists --check | FileCheck %s
// RUN: attn-run %attn_src_root/examples/attention-softcap.mlir --batch 1 --heads 4 --kv-heads 2 --seq-q 300 --check | FileCheck %s
// RUN: attn-run %attn_src_root/examples/attention-dropout.mlir --dropout 0.1 --batch 2 --heads 4 --kv-heads 2 --seq-q 200 --check | FileCheck %s
// RUN: attn-run %attn_src_root/examples/attention-bias.mlir --bias --batch 2 --heads 4 --kv-heads 2 --seq-q 300 --check | FileCheck %s
// CHECK: PASS
