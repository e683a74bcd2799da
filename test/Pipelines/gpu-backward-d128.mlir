// RUN: attn-opt %s -split-input-file --attn-gpu-kernel-pipeline="chip=sm_90a" | FileCheck %s

// The backward at D = 128 without the mask on sm_90a: grad_q as at other
// head dims (one warpgroup of 64 queries, cp.async copies, no tensor
// maps); grad_kv warp-specialised: two consumer warpgroups of 64 keys
// stepping over 64 queries at a time, and a producer warpgroup that reads
// K and V (once) and Q and dO (a ring) by bulk tensor copies. Its tensor
// maps name the function's memref arguments (0 dO, 1 Q, 2 K, 3 V) with
// their boxes' rows, which the runtime encodes at launch (KernelABI.h).
// The producer keeps 32 registers (its flat loops' index arithmetic; 24
// spilled), the consumers 232.

// CHECK-LABEL: func.func @grad
// CHECK:       gpu.func @grad_kernel
// CHECK-SAME:    block_m = 64, block_n = 64, threads = 128
// CHECK-SAME:    program = "grad_q"
// CHECK-NOT:     tensor_maps
// CHECK-NOT:     nvvm.cp.async.bulk.tensor
// CHECK:       gpu.func @grad_kernel_1
// CHECK-SAME:    block_m = 128, block_n = 64, threads = 384
// CHECK-SAME:    program = "grad_kv"
// CHECK-SAME:    tensor_maps = [2, 128, 3, 128, 1, 64, 0, 64]
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
// CHECK-SAME:    program = "grad_q"
// CHECK:       gpu.func @grad_causal_kernel_1
// CHECK-SAME:    block_m = 128, block_n = 64, threads = 384
// CHECK-SAME:    program = "grad_kv"
// CHECK-SAME:    tensor_maps = [2, 128, 3, 128, 1, 64, 0, 64]
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
