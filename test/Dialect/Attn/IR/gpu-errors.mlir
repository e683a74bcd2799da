// RUN: attn-opt %s -split-input-file -verify-diagnostics

// The GPU layouts and types (#attn.mma, #attn.shared, !attn.ring) and the
// GPU-level ops (AttnGPU.cpp): each input is valid but for the one rule it
// breaks, and is refused where it is written.

// expected-error @+1 {{#attn.mma needs 1 to 32 warps, got 0}}
func.func private @f(tensor<64x8xf32, #attn.mma<warps = 0>>)

// -----

// expected-error @+1 {{#attn.shared swizzle must be 0, 4 or 8, got 2}}
func.func private @f(tensor<64x64xbf16, #attn.shared<swizzle = 2, pad = 0>>)

// -----

// The four-chunk swizzle exists only inside 64-byte slabs.
// expected-error @+1 {{#attn.shared swizzle = 4 is the 64-byte slabs' (slab = 64)}}
func.func private @f(tensor<64x64xbf16, #attn.shared<swizzle = 4, pad = 0>>)

// -----

// expected-error @+1 {{#attn.shared is swizzled or padded, not both}}
func.func private @f(tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 16>>)

// -----

// expected-error @+1 {{!attn.ring holds tiles with an #attn.shared layout}}
func.func private @f(!attn.ring<2, tensor<64x64xbf16>>)

// -----

// expected-error @+1 {{!attn.ring needs 1 to 8 stages, got 0}}
func.func private @f(!attn.ring<0, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>>>)

// -----

func.func @convert_shape(%t: tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>>) {
  // expected-error @+1 {{converts the layout only: shape and element type must match}}
  %c = attn.convert_layout %t : tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<64x32xbf16, #attn.mma<warps = 4>>
  return
}

// -----

func.func @mma_rows(%t: tensor<32x64xbf16, #attn.shared<swizzle = 8, pad = 0>>) {
  // expected-error @+1 {{#attn.mma<warps = 4> needs rows in multiples of 64 (16 per warp), got 32}}
  %c = attn.convert_layout %t : tensor<32x64xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<32x64xbf16, #attn.mma<warps = 4>>
  return
}

// -----

func.func @async_type(%k: memref<?x?x?x64xf16>, %i: index,
                      %r: !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>>>) {
  // expected-error @+1 {{ring element type 'bf16' must match source element type 'f16'}}
  attn.async_load_tile %k[%i, %i, %i] rows %i, %r[%i] : memref<?x?x?x64xf16>, !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  return
}

// -----

// expected-error @+1 {{#attn.mma version must be 2 (mma.sync) or 3 (wgmma), got 4}}
func.func private @f(tensor<64x8xf32, #attn.mma<warps = 4, version = 4>>)

// -----

// expected-error @+1 {{#attn.mma version 3 (wgmma) needs whole warpgroups (warps a multiple of 4), got 6}}
func.func private @f(tensor<96x8xf32, #attn.mma<warps = 6, version = 3>>)

// -----

// expected-error @+1 {{#attn.shared slab must be 0 (whole rows), 64 or 128 bytes, got 32}}
func.func private @f(tensor<64x64xbf16, #attn.shared<swizzle = 0, pad = 0, slab = 32>>)

// -----

// expected-error @+1 {{#attn.shared slabs of 64 bytes need swizzle = 4}}
func.func private @f(tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 64>>)

// -----

// expected-error @+1 {{#attn.shared slabs of 128 bytes need swizzle = 8}}
func.func private @f(tensor<64x64xbf16, #attn.shared<swizzle = 0, pad = 0, slab = 128>>)

// -----

// A slab tile's rows are whole slabs: 96 columns of bf16 are 1.5.
// expected-error @+1 {{#attn.shared slabs of 128 bytes need rows of a multiple of that, got 'tensor<64x96xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>'}}
func.func private @f(!attn.ring<2, tensor<64x96xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>)

// -----

// 80 columns of bf16 are 2.5 slabs of 64 bytes.
// expected-error @+1 {{#attn.shared slabs of 64 bytes need rows of a multiple of that, got 'tensor<64x80xbf16, #attn.shared<swizzle = 4, pad = 0, slab = 64>>'}}
func.func private @f(!attn.ring<2, tensor<64x80xbf16, #attn.shared<swizzle = 4, pad = 0, slab = 64>>>)

// -----

// f32 tiles (staged for bulk reductions) are 128-byte slabs only.
// expected-error @+1 {{#attn.shared holds 2-d tiles of 16-bit elements (8-bit ones in swizzled slabs, f32 ones in 128-byte slabs)}}
func.func private @f(!attn.ring<2, tensor<64x32xf32, #attn.shared<swizzle = 4, pad = 0, slab = 64>>>)

// -----

// wgmma accumulators: one 16-row m-tile per warp (64 rows per warpgroup).
func.func @f(%t: tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>) {
  // expected-error @+1 {{'attn.convert_layout' op #attn.mma version 3 (wgmma) holds one 16-row m-tile per warp: 64 rows with 4 warps, got 128}}
  %c = attn.convert_layout %t : tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>> -> tensor<128x64xbf16, #attn.mma<warps = 4, version = 3>>
  return
}

// -----

func.func @f(%a: tensor<64x64xbf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'attn.dot' op with async: its result is in flight and may only be read through attn.dot_wait, not by 'func.return'}}
  %s = attn.dot %a, %a, %c {async, rhs_transposed} : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}

// -----

func.func @f(%c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'attn.dot_wait' op waits for an attn.dot {async}; the input is not one}}
  %w = attn.dot_wait %c {pending = 0} : tensor<64x64xf32>
  return %w : tensor<64x64xf32>
}

// -----

func.func @f() {
  // expected-error @+1 {{'attn.warp_specialize' op producer_registers must be 0 or a multiple of 8 in [24, 256], got 20}}
  attn.warp_specialize registers(consumers = 240, producer = 20) {
  } producer {
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'attn.warp_specialize' op must be the last op of its block (both roles run to the end of the program)}}
  attn.warp_specialize registers(consumers = 0, producer = 0) {
  } producer {
  }
  %c = arith.constant 0 : index
  return
}

// -----

func.func @f(%m: memref<?x?x?x128xbf16>, %i: index) {
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.warp_specialize registers(consumers = 0, producer = 0) {
    // expected-error @+1 {{'attn.async_arrive' op belongs to the producer of an attn.warp_specialize, not to its consumers}}
    attn.async_arrive %r[%i] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  } producer {
  }
  return
}

// -----

func.func @f(%i: index) {
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  attn.warp_specialize registers(consumers = 0, producer = 0) {
  } producer {
    // expected-error @+1 {{'attn.ring_release' op cannot run in the producer of an attn.warp_specialize (it only copies into rings: no tiles, waits or releases)}}
    attn.ring_release %r[%i] : !attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  }
  return
}

// -----

func.func @bulk_not_slabs(%k: memref<?x?x?x64xbf16>, %i: index,
                          %r: !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>>>) {
  // expected-error @+1 {{bulk copies fill 16-bit or 8-bit #attn.shared tiles of 128- or 64-byte slabs, or f32 ones of 128-byte slabs, got 'tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>>'}}
  attn.async_load_tile %k[%i, %i, %i] rows %i, %r[%i] {bulk} : memref<?x?x?x64xbf16>, !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  return
}

// -----

func.func @bulk_rank(%k: memref<?x?x?x?x?x64xbf16>, %i: index,
                     %r: !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>) {
  // expected-error @+1 {{bulk copies read sources of rank 2 to 5, got 6}}
  attn.async_load_tile %k[%i, %i, %i, %i, %i] rows %i, %r[%i] {bulk} : memref<?x?x?x?x?x64xbf16>, !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  return
}

// -----

func.func @tensor_map_box(%k: memref<?x?x128xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{box dimensions are at most 256, got [512, 64]}}
  %m = attn.tensor_map %k box [512, 64] : memref<?x?x128xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

// A box's row is one swizzled slab: 48 bf16 columns are 96 bytes.
func.func @tensor_map_slab(%k: memref<?x?x96xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{a box row is one 128- or 64-byte slab, got 96 bytes}}
  %m = attn.tensor_map %k box [128, 48] : memref<?x?x96xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @tensor_map_type(%k: memref<?x?x128xbf16>) -> !llvm.ptr<1> {
  // expected-error @+1 {{the map is passed as a generic !llvm.ptr, got '!llvm.ptr<1>'}}
  %m = attn.tensor_map %k box [64, 64] : memref<?x?x128xbf16> -> !llvm.ptr<1>
  return %m : !llvm.ptr<1>
}

// -----

func.func @tile_queue_slot(%s: index) -> index {
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  // expected-error @+1 {{a tile queue's slots hold tensor<1x1xi32>, got 'tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>'}}
  %t = attn.take_tile %r[%s] fill %s : !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  return %t : index
}

// -----

func.func @tile_queue_swizzled(%s: index) {
  // expected-error @+1 {{#attn.shared holds 2-d tiles of 16-bit elements (8-bit ones in swizzled slabs, f32 ones in 128-byte slabs) with rows and columns in multiples of 8 (or one unswizzled i32, a tile queue's slot, or unswizzled f32 rows of a multiple of 4 columns), got 'tensor<1x1xi32, #attn.shared<swizzle = 8, pad = 0>>'}}
  %r = attn.alloc_ring : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 8, pad = 0>>>
  return
}

// -----

func.func @post_from_consumers(%s: index) {
  %q = attn.alloc_ring : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
  attn.warp_specialize registers(consumers = 240, producer = 32) {
    // expected-error @+1 {{posts to a tile queue from the consumers of an attn.warp_specialize (the producer's first thread posts)}}
    attn.post_tile %q[%s] fill %s, %s : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
  } producer {
  }
  return
}

// -----

func.func @claim_from_consumers(%s: index) {
  %q = attn.alloc_ring : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
  attn.warp_specialize registers(consumers = 240, producer = 32) {
    // expected-error @+1 {{posts to a tile queue from the consumers}}
    attn.claim_tile %q[%s] fill %s, tiles %s programs %s : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
  } producer {
  }
  return
}

// -----

// A column window names one index per source dim.
func.func @window_indices(%vt: memref<?x?x128x?xf8E4M3FN>, %i: index) {
  %r = attn.alloc_ring : !attn.ring<2, tensor<128x128xf8E4M3FN, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  // expected-error @+1 {{expected 4 indices (one per dim of a source of rank >= 2, with cols), got 3}}
  attn.async_load_tile %vt[%i, %i, %i] rows %i cols %i, %r[%i]
      : memref<?x?x128x?xf8E4M3FN>, !attn.ring<2, tensor<128x128xf8E4M3FN, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  return
}

// -----

// 8-bit tiles live only in slabs (wgmma and bulk copies read them).
func.func @fp8_unslabbed() {
  // expected-error @+1 {{#attn.shared holds 2-d tiles of 16-bit elements (8-bit ones in swizzled slabs, f32 ones in 128-byte slabs)}}
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x128xf8E4M3FN, #attn.shared<swizzle = 8, pad = 0>>>
  return
}

// -----

// expected-error @+1 {{#attn.slice dim must be 0 (one value per row) or 1 (one value per column), got 2}}
func.func private @f(tensor<16xf32, #attn.slice<#attn.mma<warps = 4>, dim = 2>>)

// -----

func.func @store_slot_shape(%t: tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>,
                            %i: index) {
  %s = attn.alloc_ring : !attn.ring<1, tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  // expected-error @+1 {{'attn.store_slot' op the tile 'tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>' must have the ring's tile shape and element type, got 'tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>'}}
  attn.store_slot %t, %s[%i] : tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>, !attn.ring<1, tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  return
}

// -----

func.func @store_slot_not_slabs(%t: tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>,
                                %i: index) {
  %s = attn.alloc_ring : !attn.ring<1, tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  // expected-error @+1 {{'attn.store_slot' op the ring's tile must be a 16-bit tile of 128-byte slabs (what wgmma reads)}}
  attn.store_slot %t, %s[%i] : tensor<128x64xbf16, #attn.mma<warps = 8, version = 3>>, !attn.ring<1, tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  return
}

// -----

func.func @accumulate_via_strided(%t: tensor<64x128xf32, #attn.mma<warps = 4, version = 3>>,
                                  %m: memref<?x?x?x128xf32, strided<[?, ?, ?, 1], offset: ?>>,
                                  %i: index) {
  %r = attn.alloc_ring : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 0>>>
  // expected-error @+1 {{'attn.accumulate_tile' op a bulk reduction (via) needs dest rows stored back to back}}
  attn.accumulate_tile %t, %m[%i, %i, %i] rows %i via %r : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 0>>>
      : tensor<64x128xf32, #attn.mma<warps = 4, version = 3>>, memref<?x?x?x128xf32, strided<[?, ?, ?, 1], offset: ?>>
  return
}

// -----

func.func @accumulate_via_offset(%t: tensor<64x128xf32, #attn.mma<warps = 4, version = 3>>,
                                 %m: memref<?x?x?x128xf32, strided<[?, ?, 128, 1], offset: ?>>,
                                 %i: index) {
  %r = attn.alloc_ring : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 16>>>
  // Rows back to back, but from an offset not known to be whole 16-byte chunks.
  // expected-error @+1 {{'attn.accumulate_tile' op a bulk reduction (via) needs dest rows stored back to back in 16-byte chunks (row stride = the static last dim, a multiple of 4, unit column stride, a static offset of whole chunks)}}
  attn.accumulate_tile %t, %m[%i, %i, %i] rows %i via %r : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 16>>>
      : tensor<64x128xf32, #attn.mma<warps = 4, version = 3>>, memref<?x?x?x128xf32, strided<[?, ?, 128, 1], offset: ?>>
  return
}

// -----

func.func @accumulate_via_slot_shape(%t: tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>,
                                     %m: memref<?x?x?x128xf32>, %i: index) {
  %r = attn.alloc_ring : !attn.ring<1, tensor<128x64xf32, #attn.shared<swizzle = 0, pad = 16>>>
  // Transposed, dest's block is 64x128: the slot must hold that.
  // expected-error @+1 {{'attn.accumulate_tile' op the staging ring's tile must be dest's block 'tensor<64x128xf32>' in f32, row-major in shared memory (#attn.shared<swizzle = 0, pad = P>)}}
  attn.accumulate_tile %t, %m[%i, %i, %i] rows %i via %r : !attn.ring<1, tensor<128x64xf32, #attn.shared<swizzle = 0, pad = 16>>> {transposed}
      : tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>, memref<?x?x?x128xf32>
  return
}

// -----

func.func @accumulate_via_two_slots_rows(%t: tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>,
                                         %m: memref<?x?x?x128xf32>, %i: index) {
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 16>>>
  // Two slots only for bulk tensor reductions (slabs).
  // expected-error @+1 {{'attn.accumulate_tile' op stages through one slot, or through a slot of two (`via %ring[%slot]`) of 128-byte slabs, got '!attn.ring<2, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 16>>>' with a slot}}
  attn.accumulate_tile %t, %m[%i, %i, %i] rows %i via %r[%i] : !attn.ring<2, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 16>>> {transposed}
      : tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>, memref<?x?x?x128xf32>
  return
}

// -----

func.func @accumulate_via_two_slots_no_slot(%t: tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>,
                                            %m: memref<?x?x?x128xf32>, %i: index) {
  %r = attn.alloc_ring : !attn.ring<2, tensor<64x128xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  // expected-error @+1 {{'attn.accumulate_tile' op stages through one slot, or through a slot of two (`via %ring[%slot]`) of 128-byte slabs, got '!attn.ring<2, tensor<64x128xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>' without a slot}}
  attn.accumulate_tile %t, %m[%i, %i, %i] rows %i via %r : !attn.ring<2, tensor<64x128xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>> {transposed}
      : tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>, memref<?x?x?x128xf32>
  return
}

// -----

func.func @accumulate_via_slabs_swizzle(%t: tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>,
                                        %m: memref<?x?x?x128xf32>, %i: index) {
  %r = attn.alloc_ring : !attn.ring<1, tensor<128x64xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  // Slabs of the tile, not of dest's block (transposed: 64x128).
  // expected-error @+1 {{'attn.accumulate_tile' op the staging ring's tile must be dest's block 'tensor<64x128xf32>' in f32, row-major in shared memory (#attn.shared<swizzle = 0, pad = P>) or in 128-byte slabs (#attn.shared<swizzle = 8, pad = 0, slab = 128>)}}
  attn.accumulate_tile %t, %m[%i, %i, %i] rows %i via %r : !attn.ring<1, tensor<128x64xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>> {transposed}
      : tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>, memref<?x?x?x128xf32>
  return
}

// -----

func.func @accumulate_via_slabs_rank(%t: tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>,
                                     %m: memref<?x?x?x?x?x128xf32>, %i: index) {
  %r = attn.alloc_ring : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  // A tensor map has at most 5 dims.
  // expected-error @+1 {{'attn.accumulate_tile' op a bulk tensor reduction (via slabs) needs a dest of at most 5 dims (a tensor map's), got 'memref<?x?x?x?x?x128xf32>'}}
  attn.accumulate_tile %t, %m[%i, %i, %i, %i, %i] rows %i via %r : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 8, pad = 0, slab = 128>>> {transposed}
      : tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>, memref<?x?x?x?x?x128xf32>
  return
}

// -----

func.func @store_slot_not_registers(%t: tensor<128x64xbf16>, %i: index) {
  %s = attn.alloc_ring : !attn.ring<1, tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  // expected-error @+1 {{'attn.store_slot' op the tile must be a register tile (#attn.mma), got 'tensor<128x64xbf16>'}}
  attn.store_slot %t, %s[%i] : tensor<128x64xbf16>, !attn.ring<1, tensor<128x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  return
}

// -----

// Outside a grid no program's threads run it.
func.func @wait_outside_grid() {
  // expected-error @+1 {{'attn.wait_prior_grids' op must be directly in the body of a grid (scf.forall), where every thread of the program runs it once, and that grid must be the program's (not nested in another)}}
  attn.wait_prior_grids
  return
}

// -----

// In a loop of the program (or one role of it) a thread could skip it.
func.func @launch_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%i) in (%n) {
    scf.for %j = %c0 to %n step %c1 {
      // expected-error @+1 {{'attn.launch_dependents' op must be directly in the body of a grid}}
      attn.launch_dependents
    }
  }
  return
}

// -----

// A forall nested in a program's grid is one of its loops.
func.func @wait_in_nested_forall(%n: index) {
  scf.forall (%i) in (%n) {
    scf.forall (%j) in (%n) {
      // expected-error @+1 {{'attn.wait_prior_grids' op must be directly in the body of a grid}}
      attn.wait_prior_grids
    }
  }
  return
}

// -----

// Rows gathered from pages have an address each: cp.async, not a bulk copy.
func.func @pages_bulk(%k: memref<?x?x16x64xbf16>, %t: memref<?x?xi32>, %i: index,
                      %r: !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>) {
  // expected-error @+1 {{a bulk copy cannot gather the rows of pages (pages: per-row addresses; cp.async only)}}
  attn.async_load_tile %k[%i, %i, %i] rows %i pages(%t : memref<?x?xi32>), %r[%i] {bulk} : memref<?x?x16x64xbf16>, !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  return
}

// -----

func.func @pages_rank(%k: memref<?x16x64xbf16>, %t: memref<?x?xi32>, %i: index,
                      %r: !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>>>) {
  // expected-error @+1 {{with pages, expected a [num_pages, heads, page rows, cols] source and a 2-d tile, got 'memref<?x16x64xbf16>' and 'tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>>'}}
  attn.async_load_tile %k[%i, %i] rows %i pages(%t : memref<?x?xi32>), %r[%i] : memref<?x16x64xbf16>, !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0>>>
  return
}

// -----

// Packed (position, head) rows have an address each: cp.async only.
func.func @group_bulk(%q: memref<?x?x?x64xbf16>, %i: index,
                      %r: !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>) {
  // expected-error @+1 {{a bulk copy cannot take grouped rows (group: per-row addresses; cp.async only)}}
  attn.async_load_tile %q[%i, %i, %i] rows %i group(%i), %r[%i] {bulk} : memref<?x?x?x64xbf16>, !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
  return
}
