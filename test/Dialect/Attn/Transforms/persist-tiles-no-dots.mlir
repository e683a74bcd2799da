// RUN: attn-opt %s -attn-persist-tiles="dynamic=2" | FileCheck %s

// A warp-specialised grid without warpgroup products (no consumer warps to
// size registers by) does not claim its tiles: with dynamic=2 it still
// becomes a persistent grid, of tiles p, p + P, ... (scf.for), and no tile
// queue.
// CHECK-LABEL: func.func @no_dots
// CHECK:         %[[P:.*]] = attn.num_programs
// CHECK:         scf.forall (%[[PID:.*]]) in (%[[P]])
// CHECK-NOT:     attn.take_tile
// CHECK:         scf.for %{{.*}} = %[[PID]] to %{{.*}} step %[[P]]
// CHECK-NOT:     attn.claim_tile
// CHECK:         attn.persistent
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
!ring = !attn.ring<2, tensor<64x64xbf16, #sl>>
func.func @no_dots(%k: memref<?x64xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %q) in (%n, %n, %n) {
    %r = attn.alloc_ring : !ring
    attn.warp_specialize registers(consumers = 240, producer = 24) {
      attn.ring_wait %r[%c0] fill %c0 : !ring
      attn.ring_release %r[%c0] : !ring
      attn.ring_fills %r count %c1 : !ring
    } producer {
      attn.ring_acquire %r[%c0] fill %c0 : !ring
      attn.async_load_tile %k[%q] rows %c64, %r[%c0] {bulk} : memref<?x64xbf16>, !ring
      attn.async_arrive %r[%c0] : !ring
      attn.ring_fills %r count %c1 : !ring
    }
  } {attn.grid = ["batch", "heads_q", "q_blocks"]}
  return
}
