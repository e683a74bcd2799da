// RUN: attn-opt %s -split-input-file --attn-gpu-kernel-pipeline="chip=sm_90a" | FileCheck %s

// The backward at D = 128 without the mask on sm_90a, both grids
// warp-specialised. grad_q: two consumer warpgroups of 64 queries stepping
// over 64 keys, and a producer warpgroup that reads Q and dO (once) and K
// and V (a ring) by bulk tensor copies (consumers 240 registers, producer
// 24). grad_kv: two consumer warpgroups of 64 keys stepping over 64
// queries at a time, and a producer that reads K and V (once) and Q and
// dO (a ring). The tensor maps name the function's memref arguments (0 dO,
// 1 Q, 2 K, 3 V) with their boxes' rows, which the runtime encodes at
// launch (KernelABI.h). grad_kv's producer keeps 32 registers (its flat
// loops' index arithmetic; 24 spilled), its consumers 232.

// CHECK-LABEL: func.func @grad
// CHECK:       gpu.func @grad_kernel
// CHECK-SAME:    block_m = 128, block_n = 64, threads = 384
// CHECK-SAME:    program = "grad_q"
// CHECK-SAME:    tensor_maps = [1, 128, 128, 0, 128, 128, 2, 64, 128, 3, 64, 128]
// CHECK-DAG:     nvvm.setmaxregister {{ *}}increase 240
// CHECK-DAG:     nvvm.setmaxregister {{ *}}decrease 24
// CHECK-DAG:     nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:       gpu.func @grad_kernel_1
// CHECK-SAME:    block_m = 128, block_n = 64, threads = 384
// CHECK-SAME:    program = "grad_kv"
// CHECK-SAME:    tensor_maps = [2, 128, 128, 3, 128, 128, 1, 64, 128, 0, 64, 128]
// CHECK-DAG:     nvvm.setmaxregister {{ *}}increase 232
// CHECK-DAG:     nvvm.wgmma.mma_async
// CHECK-DAG:     nvvm.setmaxregister {{ *}}decrease 32
// CHECK-DAG:     nvvm.cp.async.bulk.tensor.shared.cluster.global
!t = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
!r = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @grad(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r, %dq: !t,
                %dk: !t, %dv: !t, %delta: !r, %scale: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%scale)
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}

// -----

// Causal: the same warp-specialised grad_kv (a producer is given only
// where every copy is on per-slot barriers: its masked (diagonal) steps
// take their Q and dO from the producer's ring like the unmasked ones).

// CHECK-LABEL: func.func @grad_causal
// CHECK:       gpu.func @grad_causal_kernel
// CHECK-SAME:    block_m = 128, block_n = 64, threads = 384
// CHECK-SAME:    program = "grad_q"
// CHECK-SAME:    tensor_maps = [1, 128, 128, 0, 128, 128, 2, 64, 128, 3, 64, 128]
// CHECK:       gpu.func @grad_causal_kernel_1
// CHECK-SAME:    block_m = 128, block_n = 64, threads = 384
// CHECK-SAME:    program = "grad_kv"
// CHECK-SAME:    tensor_maps = [2, 128, 128, 3, 128, 128, 1, 64, 128, 0, 64, 128]
// CHECK-DAG:     nvvm.setmaxregister {{ *}}increase 232
// CHECK-DAG:     nvvm.setmaxregister {{ *}}decrease 32
// CHECK-DAG:     nvvm.cp.async.bulk.tensor.shared.cluster.global
!t = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
!r = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @grad_causal(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r,
                       %dq: !t, %dk: !t, %dv: !t, %delta: !r, %scale: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%scale) {causal}
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}
