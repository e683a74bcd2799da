// attn-opt registers the attn dialect's passes and pipelines.
// RUN: attn-opt --help | FileCheck %s
// CHECK-DAG: --attn-cpu-pipeline
// CHECK-DAG: --attn-fuse-online-softmax
// CHECK-DAG: --attn-tile-attention
// CHECK-DAG: --attn-tile-pipeline
// CHECK-DAG: --attn-gpu-kernel-pipeline
// CHECK-DAG: --attn-codegen
// CHECK-DAG: --convert-attn-to-linalg
// CHECK-DAG: --one-shot-bufferize
