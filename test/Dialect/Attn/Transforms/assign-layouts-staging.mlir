// RUN: attn-opt %s --attn-tile-attention --canonicalize --cse --attn-assign-layouts | FileCheck %s
// RUN: attn-opt %s --attn-tile-attention --canonicalize --cse --attn-assign-layouts=tensor-reduce=1 | FileCheck %s --check-prefix=TENSOR
// RUN: not attn-opt %s --attn-assign-layouts=tensor-reduce=2 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: pass option tensor-reduce must be 0 or 1, got 2

// The backward's key-block grid with dQ summed in it, on wgmma: dS, a
// right operand computed in registers (each warpgroup its own key rows),
// is staged through a one-slot ring of 128-byte slabs before dQᵀ = Kᵀ·dS
// reads it; dQᵀ goes into the contiguous f32 workspace through a one-slot
// ring of f32 rows padded by 16 bytes (one bulk reduction a row). Both rings are allocated
// once, at the program's start. In the loop each op's leading barrier is
// left out (slot_released): the other op's barriers follow the last reads
// of its slot.

!t = memref<?x?x?x128xbf16>
!r = memref<?x?x?xf32>
!w = memref<?x?x?x128xf32>

// CHECK-LABEL: func.func @atomic_dq
// CHECK:       scf.forall
// CHECK:       scf.forall
// CHECK-NEXT:    %[[OUT:.*]] = attn.alloc_ring : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 16>>>
// CHECK-NEXT:    %[[STAGE:.*]] = attn.alloc_ring : !attn.ring<1, tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
// CHECK:         scf.for
// CHECK:           attn.store_slot %[[DS:.*]], %[[STAGE]][%[[C0:.*]]] {slot_released} : tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>
// CHECK-NEXT:      %[[SLOT:.*]] = attn.ring_slot %[[STAGE]][%[[C0]]]
// CHECK-NEXT:      %[[DQT:.*]] = attn.dot %{{.*}}, %[[SLOT]], %{{.*}} {lhs_transposed} : tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>, tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>> -> tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>
// CHECK-NEXT:      attn.accumulate_tile %[[DQT]], %arg10[{{.*}}] rows %{{.*}} via %[[OUT]] : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 16>>> {slot_released, transposed}
// With tensor-reduce=1 dQᵀ goes through a two-slot ring of 128-byte f32
// slabs (bulk tensor reductions through the workspace's tensor map), the
// slot alternating with the loop's steps; dS keeps its leading barrier
// (each warpgroup then synchronises its reductions on its own), dQᵀ's is
// still left out.
// TENSOR-LABEL: func.func @atomic_dq
// TENSOR:       scf.forall
// TENSOR:       scf.forall
// TENSOR-NEXT:    %[[OUT:.*]] = attn.alloc_ring : !attn.ring<2, tensor<64x128xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
// TENSOR-NEXT:    %[[STAGE:.*]] = attn.alloc_ring : !attn.ring<1, tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
// TENSOR:         scf.for %[[IV:.*]] = %[[LB:.*]] to %{{.*}} step %[[STEP:[^ ]*]]
// TENSOR:           attn.store_slot %{{.*}}, %[[STAGE]][%{{.*}}] : tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>
// TENSOR:           %[[FROM:.*]] = arith.subi %[[IV]], %[[LB]] : index
// TENSOR-NEXT:      %[[N:.*]] = arith.divui %[[FROM]], %[[STEP]] : index
// TENSOR:           %[[SLOT:.*]] = arith.remui %[[N]], %c2{{.*}} : index
// TENSOR-NEXT:      attn.accumulate_tile %{{.*}}, %arg10[{{.*}}] rows %{{.*}} via %[[OUT]][%[[SLOT]]] : !attn.ring<2, tensor<64x128xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>> {slot_released, transposed}
func.func @atomic_dq(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r,
                     %dq: !t, %dk: !t, %dv: !t, %delta: !r, %ws: !w) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) dq_accum(%ws : !w)
      {target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}
