// RUN: attn-opt %s -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s

// A persistent grid (attn-persist-tiles' form): program p of P is block p
// of the launch, P = attn.num_programs is the launch's size (gridDim.x),
// attn.ring_fills leaves nothing behind, and #attn.kernel_info says
// persistent with the tiles' grid (x, y, z) for the launcher.
// The compiler's own host launch: min(tiles, the target's 132 SMs) blocks.
// CHECK-LABEL: func.func @pers(
// CHECK-DAG:     %[[C132:.*]] = arith.constant 132 : index
// CHECK-DAG:     %[[TILES:.*]] = arith.muli %arg3, %arg4
// CHECK:         %[[X:.*]] = arith.minui %[[TILES]], %[[C132]] : index
// CHECK:         gpu.launch_func  @attn_kernels::@pers_kernel blocks in (%[[X]], %c1, %c1) threads in (%c384, %c1, %c1)
// CHECK-LABEL: gpu.func @pers_kernel
// CHECK-SAME:    grid = ["q_blocks", "heads_q", "batch"], persistent = true>
// CHECK-NOT:     attn.ring_fills
// CHECK-DAG:     %[[PID:.*]] = gpu.block_id  x
// CHECK-DAG:     %[[P:.*]] = gpu.grid_dim  x
// CHECK:         scf.for %{{.*}} = %[[PID]] to %{{.*}} step %[[P]]
// CHECK-NOT:     attn.
// CHECK:         gpu.return
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
!ring = !attn.ring<2, tensor<64x64xbf16, #sl>>
!qring = !attn.ring<1, tensor<128x64xbf16, #sl>>
func.func @pers(%q: memref<?x64xbf16>, %k: memref<?x64xbf16>, %o: memref<?x64xf32>, %n: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %tiles = arith.muli %n, %j : index
  %programs = attn.num_programs %tiles
  scf.forall (%p) in (%programs) {
    %r = attn.alloc_ring : !ring
    %qr = attn.alloc_ring : !qring
    attn.warp_specialize registers(consumers = 232, producer = 32) {
      scf.for %t = %p to %tiles step %programs {
        %qt = attn.ring_slot %qr[%c0] : !qring
        %slot = arith.remui %t, %c2 : index
        %fill = arith.divui %t, %c2 : index
        attn.ring_wait %r[%slot] fill %fill : !ring
        %kt = attn.ring_slot %r[%slot] : !ring
        %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
        %s = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<128x64xbf16, #sl>, tensor<64x64xbf16, #sl> -> tensor<128x64xf32, #acc>
        attn.ring_release %r[%slot] : !ring
        attn.ring_fills %r count %c1 : !ring
        attn.store_tile %s, %o[%t] rows %n : tensor<128x64xf32, #acc>, memref<?x64xf32>
      }
    } producer {
      scf.for %t = %p to %tiles step %programs {
        %slot = arith.remui %t, %c2 : index
        %fill = arith.divui %t, %c2 : index
        attn.ring_acquire %r[%slot] fill %fill : !ring
        attn.async_load_tile %k[%t] rows %c64, %r[%slot] : memref<?x64xbf16>, !ring
        attn.async_arrive %r[%slot] : !ring
        attn.ring_fills %r count %c1 : !ring
      }
    }
  } {attn.persistent, attn.grid = ["batch", "heads_q", "q_blocks"], attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
  return
}
