// RUN: attn-opt %s -split-input-file | attn-opt | FileCheck %s

// Layouts and the ring type round-trip; the ops print as they parse.

// CHECK-LABEL: func.func @ring_pages
// CHECK:         attn.async_load_tile %arg0[%arg2, %arg2, %arg3] rows %arg3 pages(%arg1 : memref<?x?xi32>), %{{.*}}[%arg2] : memref<?x8x16x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
func.func @ring_pages(%k: memref<?x8x16x128xbf16>, %t: memref<?x?xi32>,
                      %i: index, %n: index) {
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  attn.async_load_tile %k[%i, %i, %n] rows %n pages(%t : memref<?x?xi32>), %r[%i]
      : memref<?x8x16x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  return
}

// -----

// CHECK-LABEL: func.func @ring_group
// CHECK:         attn.async_load_tile %arg0[%arg1, %arg1, %arg2] rows %arg2 group(%arg3), %{{.*}}[%arg1] : memref<?x?x?x128xbf16>, !attn.ring<1, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
func.func @ring_group(%q: memref<?x?x?x128xbf16>, %i: index, %n: index,
                      %g: index) {
  %r = attn.alloc_ring : !attn.ring<1, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  attn.async_load_tile %q[%i, %i, %n] rows %n group(%g), %r[%i]
      : memref<?x?x?x128xbf16>, !attn.ring<1, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  return
}

// -----

// CHECK-LABEL: func.func @ring
// CHECK:         %[[R:.*]] = attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// CHECK:         attn.async_load_tile %arg0[%arg1, %arg1, %arg2] rows %arg2, %[[R]][%arg1] : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// CHECK:         attn.async_commit
// CHECK:         attn.async_wait 1
// CHECK:         %[[T:.*]] = attn.ring_slot %[[R]][%arg1] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
// CHECK:         attn.convert_layout %[[T]] : tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<64x128xbf16, #attn.mma<warps = 4>>
func.func @ring(%k: memref<?x?x?x128xbf16>, %i: index, %n: index)
    -> tensor<64x128xbf16, #attn.mma<warps = 4>> {
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  attn.async_load_tile %k[%i, %i, %n] rows %n, %r[%i]
      : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  attn.async_commit
  attn.async_wait 1
  %t = attn.ring_slot %r[%i] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  %c = attn.convert_layout %t : tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<64x128xbf16, #attn.mma<warps = 4>>
  return %c : tensor<64x128xbf16, #attn.mma<warps = 4>>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK:         attn.reduce max %{{.*}} : tensor<64x32xf32, #attn.mma<warps = 4>> -> tensor<64xf32, #attn.slice<#attn.mma<warps = 4>>>
func.func @slice(%s: tensor<64x32xf32, #attn.mma<warps = 4>>)
    -> tensor<64xf32, #attn.slice<#attn.mma<warps = 4>>> {
  %m = attn.reduce max %s : tensor<64x32xf32, #attn.mma<warps = 4>> -> tensor<64xf32, #attn.slice<#attn.mma<warps = 4>>>
  return %m : tensor<64xf32, #attn.slice<#attn.mma<warps = 4>>>
}

// -----

// Hopper layouts: wgmma accumulators (version 3), 128-byte slabs and
// 64-byte ones (swizzle = 4: head dim 96's rows of three); the defaults
// (version 2, slab 0) are not printed.
// CHECK-LABEL: func.func private @hopper
// CHECK-SAME:    tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>
// CHECK-SAME:    !attn.ring<2, tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
// CHECK-SAME:    !attn.ring<2, tensor<128x96xf16, #attn.shared<swizzle = 4, pad = 0, slab = 64>>>
// CHECK-SAME:    tensor<64x64xf32, #attn.mma<warps = 4>>
// CHECK-SAME:    tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>>
func.func private @hopper(tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>,
                          !attn.ring<2, tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>,
                          !attn.ring<2, tensor<128x96xf16, #attn.shared<swizzle = 4, pad = 0, slab = 64>>>,
                          tensor<64x64xf32, #attn.mma<warps = 4, version = 2>>,
                          tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 0>>)

// -----

// Per-slot ring synchronisation.
// CHECK-LABEL: func.func @ring_barriers
// CHECK:         attn.ring_acquire %{{.*}}[%arg1] fill %arg2 : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
// CHECK-NEXT:    attn.async_load_tile
// CHECK-NEXT:    attn.async_arrive %{{.*}}[%arg1] : !attn.ring<2,
// CHECK-NEXT:    attn.ring_wait %{{.*}}[%arg1] fill %arg2 : !attn.ring<2,
// CHECK-NEXT:    attn.ring_slot
// CHECK-NEXT:    attn.ring_release %{{.*}}[%arg1] : !attn.ring<2,
func.func @ring_barriers(%m: memref<?x?x?x128xbf16>, %i: index, %k: index) {
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.ring_acquire %r[%i] fill %k : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.async_load_tile %m[%i, %i, %i] rows %i, %r[%i] : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.async_arrive %r[%i] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.ring_wait %r[%i] fill %k : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  %t = attn.ring_slot %r[%i] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.ring_release %r[%i] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  return
}

// -----

// A ring's fill count and a persistent grid's programs.
// CHECK-LABEL: func.func @persistent_ops
// CHECK:         attn.ring_fills %{{.*}} count %arg0 : !attn.ring<2,
// CHECK-NEXT:    %{{.*}} = attn.num_programs %arg0
func.func @persistent_ops(%n: index) -> index {
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.ring_fills %r count %n : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  %p = attn.num_programs %n
  return %p : index
}

// -----

// A tile queue: the producer posts the first tile and claims the next, every
// thread takes them.
// CHECK-LABEL: func.func @tile_queue
// CHECK:         %[[Q:.*]] = attn.alloc_ring : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
// CHECK:         attn.warp_specialize registers(consumers = 240, producer = 32) {
// CHECK-NEXT:      %{{.*}} = attn.take_tile %[[Q]][%arg0] fill %arg1 : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
// CHECK-NEXT:    } producer {
// CHECK-NEXT:      attn.post_tile %[[Q]][%arg0] fill %arg1, %arg2 : !attn.ring<2
// CHECK-NEXT:      attn.claim_tile %[[Q]][%arg1] fill %arg1, tiles %arg3 programs %arg2 : !attn.ring<2
// CHECK-NEXT:      %{{.*}} = attn.take_tile %[[Q]][%arg0] fill %arg1
func.func @tile_queue(%s: index, %f: index, %p: index, %tiles: index) {
  %q = attn.alloc_ring : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
  attn.warp_specialize registers(consumers = 240, producer = 32) {
    %t = attn.take_tile %q[%s] fill %f : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
  } producer {
    attn.post_tile %q[%s] fill %f, %p : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
    attn.claim_tile %q[%f] fill %f, tiles %tiles programs %p : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
    %t = attn.take_tile %q[%s] fill %f : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
  }
  return
}

// -----

// Asynchronous products and warpgroup turns.
// CHECK-LABEL: func.func @async_turns
// CHECK:         attn.start_turns
// CHECK-NEXT:    attn.await_turn
// CHECK-NEXT:    %[[S:.*]] = attn.dot %arg0, %arg0, %arg1 {async, rhs_transposed}
// CHECK-NEXT:    attn.pass_turn
// CHECK-NEXT:    %[[W:.*]] = attn.dot_wait %[[S]] {pending = 1 : i64} : tensor<64x64xf32>
// CHECK-NEXT:    attn.end_turns
func.func @async_turns(%a: tensor<64x64xbf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  attn.start_turns
  attn.await_turn
  %s = attn.dot %a, %a, %c {async, rhs_transposed} : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  attn.pass_turn
  %w = attn.dot_wait %s {pending = 1} : tensor<64x64xf32>
  attn.end_turns
  return %w : tensor<64x64xf32>
}

// -----

// A producer warpgroup: the consumers read and release, the producer fills.
// CHECK-LABEL: func.func @warp_specialize
// CHECK:         %[[R:.*]] = attn.alloc_ring
// CHECK-NEXT:    attn.warp_specialize registers(consumers = 240, producer = 24) {
// CHECK-NEXT:      attn.ring_wait %[[R]][%arg1] fill %arg2
// CHECK-NEXT:      attn.ring_release %[[R]][%arg1]
// CHECK-NEXT:    } producer {
// CHECK-NEXT:      attn.ring_acquire %[[R]][%arg1] fill %arg2
// CHECK-NEXT:      attn.async_load_tile %arg0[%arg1, %arg1, %arg1] rows %arg1, %[[R]][%arg1]
// CHECK-NEXT:      attn.async_arrive %[[R]][%arg1]
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @warp_specialize(%m: memref<?x?x?x128xbf16>, %i: index, %k: index) {
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.warp_specialize registers(consumers = 240, producer = 24) {
    attn.ring_wait %r[%i] fill %k : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
    attn.ring_release %r[%i] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  } producer {
    attn.ring_acquire %r[%i] fill %k : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
    attn.async_load_tile %m[%i, %i, %i] rows %i, %r[%i] : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
    attn.async_arrive %r[%i] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  }
  return
}

// -----

// CHECK-LABEL: func.func @bulk
// CHECK:         attn.async_load_tile %arg0[%arg1, %arg1, %arg2] rows %arg2, %{{.*}}[%arg1] {bulk} : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
// CHECK:         %{{.*}} = attn.tensor_map %arg0 box[64, 64] : memref<?x?x?x128xbf16> -> !llvm.ptr
func.func @bulk(%k: memref<?x?x?x128xbf16>, %i: index, %n: index) -> !llvm.ptr {
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.async_load_tile %k[%i, %i, %n] rows %n, %r[%i] {bulk}
      : memref<?x?x?x128xbf16>, !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  %m = attn.tensor_map %k box [64, 64] : memref<?x?x?x128xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

// A column window of fp8 elements (the transposed V block of an fp8
// attention, [Dv, Bc] of [B, Hkv, Dv, Nk]) in a ring of 128-byte slabs,
// filled by bulk copies.
// CHECK-LABEL: func.func @fp8_window
// CHECK:         attn.async_load_tile %arg0[%arg1, %arg1, %arg1, %arg2] rows %arg3 cols %arg2, %{{.*}}[%arg1] {bulk} : memref<?x?x128x?xf8E4M3FN>, !attn.ring<2, tensor<128x128xf8E4M3FN, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
func.func @fp8_window(%vt: memref<?x?x128x?xf8E4M3FN>, %i: index, %n: index,
                      %rows: index) {
  %r = attn.alloc_ring : !attn.ring<2, tensor<128x128xf8E4M3FN, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.async_load_tile %vt[%i, %i, %i, %n] rows %rows cols %n, %r[%i] {bulk}
      : memref<?x?x128x?xf8E4M3FN>, !attn.ring<2, tensor<128x128xf8E4M3FN, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  return
}

// -----

// A per-column vector of an mma layout (dim = 1) and its broadcast along the
// rows (the backward's key-major tiles).
// CHECK-LABEL: func.func @per_column
// CHECK:         attn.broadcast %{{.*}} {per_column} : tensor<32xf32, #attn.slice<#attn.mma<warps = 4>, dim = 1>> -> tensor<64x32xf32, #attn.mma<warps = 4>>
func.func @per_column(%a: tensor<32xf32, #attn.slice<#attn.mma<warps = 4>, dim = 1>>)
    -> tensor<64x32xf32, #attn.mma<warps = 4>> {
  %b = attn.broadcast %a {per_column} : tensor<32xf32, #attn.slice<#attn.mma<warps = 4>, dim = 1>> -> tensor<64x32xf32, #attn.mma<warps = 4>>
  return %b : tensor<64x32xf32, #attn.mma<warps = 4>>
}

// -----

// A register tile staged in a slot for wgmma, and an f32 block added into
// contiguous rows by one bulk reduction through a staging slot.
// CHECK-LABEL: func.func @staging
// CHECK:         attn.store_slot %arg0, %{{.*}}[%arg2] : tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>, !attn.ring<1, tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
// CHECK:         attn.accumulate_tile %arg1, %arg3[%arg2, %arg2, %arg2] rows %arg4 via %{{.*}} : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 0>>> {transposed} : tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>, memref<?x?x?x128xf32>
// Or one bulk tensor reduction a slab, through a slot of two.
// CHECK:         attn.accumulate_tile %arg1, %arg3[%arg2, %arg2, %arg2] rows %arg4 via %{{.*}}[%arg2] : !attn.ring<2, tensor<64x128xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>> {slot_released, transposed} : tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>, memref<?x?x?x128xf32>
func.func @staging(%ds: tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>,
                   %dqt: tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>,
                   %i: index, %ws: memref<?x?x?x128xf32>, %n: index) {
  %s = attn.alloc_ring : !attn.ring<1, tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.store_slot %ds, %s[%i] : tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>, !attn.ring<1, tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  %r = attn.alloc_ring : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 0>>>
  attn.accumulate_tile %dqt, %ws[%i, %i, %i] rows %n via %r : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 0>>> {transposed}
      : tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>, memref<?x?x?x128xf32>
  %t = attn.alloc_ring : !attn.ring<2, tensor<64x128xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.accumulate_tile %dqt, %ws[%i, %i, %i] rows %n via %t[%i] : !attn.ring<2, tensor<64x128xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>> {slot_released, transposed}
      : tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>, memref<?x?x?x128xf32>
  return
}

// -----

// Grid dependency control, first in a program's grid.
// CHECK-LABEL: func.func @chained
// CHECK:         scf.forall
// CHECK-NEXT:      attn.wait_prior_grids
// CHECK-NEXT:      attn.launch_dependents
func.func @chained(%n: index) {
  scf.forall (%i) in (%n) {
    attn.wait_prior_grids
    attn.launch_dependents
  }
  return
}
