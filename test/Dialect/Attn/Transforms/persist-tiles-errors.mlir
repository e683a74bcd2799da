// RUN: attn-opt %s -split-input-file -attn-persist-tiles -verify-diagnostics

// A ring whose fills nobody counted: its positions cannot continue into the
// next tile.
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
!ring = !attn.ring<2, tensor<64x64xbf16, #sl>>
func.func @uncounted(%k: memref<?x64xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %q) in (%n, %n, %n) {
    // expected-error @+1 {{unsupported: a persistent program with a ring whose fills are not counted (attn.ring_fills; attn-pipeline-kv-loop with per-slot barriers counts them)}}
    %r = attn.alloc_ring : !ring
    attn.warp_specialize registers(consumers = 240, producer = 24) {
      attn.ring_wait %r[%c0] fill %c0 : !ring
      attn.ring_release %r[%c0] : !ring
    } producer {
      attn.ring_acquire %r[%c0] fill %c0 : !ring
      attn.async_load_tile %k[%q] rows %c64, %r[%c0] {bulk} : memref<?x64xbf16>, !ring
      attn.async_arrive %r[%c0] : !ring
    }
  } {attn.grid = ["batch", "heads_q", "q_blocks"]}
  return
}

// -----

// A count inside a loop: a tile's fills are counted at its end.
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
!ring = !attn.ring<2, tensor<64x64xbf16, #sl>>
func.func @nested_count(%k: memref<?x64xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %q) in (%n, %n, %n) {
    %r = attn.alloc_ring : !ring
    attn.warp_specialize registers(consumers = 240, producer = 24) {
      scf.for %j = %c0 to %n step %c1 {
        attn.ring_wait %r[%c0] fill %c0 : !ring
        attn.ring_release %r[%c0] : !ring
        // expected-error @+1 {{unsupported: attn.ring_fills inside a loop or guard (a persistent program counts a tile's fills at its end)}}
        attn.ring_fills %r count %c1 : !ring
      }
    } producer {
      attn.ring_acquire %r[%c0] fill %c0 : !ring
      attn.async_load_tile %k[%q] rows %c64, %r[%c0] {bulk} : memref<?x64xbf16>, !ring
      attn.async_arrive %r[%c0] : !ring
      attn.ring_fills %r count %c1 : !ring
    }
  } {attn.grid = ["batch", "heads_q", "q_blocks"]}
  return
}

// -----

// Each role loops over the tiles on its own: nothing else may run in the
// program body.
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
!ring = !attn.ring<2, tensor<64x64xbf16, #sl>>
func.func @extra_op(%k: memref<?x64xbf16>, %o: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  scf.forall (%b, %h, %q) in (%n, %n, %n) {
    %r = attn.alloc_ring : !ring
    // expected-error @+1 {{unsupported: a persistent grid whose body has 'memref.store' beside the rings and attn.warp_specialize (each role loops over the tiles on its own)}}
    memref.store %f, %o[%q] : memref<?xf32>
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

// -----

// Turns carry on across tiles from one start before the tile loop: a start
// inside a loop cannot be hoisted.
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
!ring = !attn.ring<2, tensor<64x64xbf16, #sl>>
func.func @turns_in_loop(%k: memref<?x64xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %q) in (%n, %n, %n) {
    %r = attn.alloc_ring : !ring
    attn.warp_specialize registers(consumers = 240, producer = 24) {
      scf.for %j = %c0 to %n step %c1 {
        // expected-error @+1 {{unsupported: a persistent program whose turns start or end inside a loop or guard}}
        attn.start_turns
        attn.end_turns
      }
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
