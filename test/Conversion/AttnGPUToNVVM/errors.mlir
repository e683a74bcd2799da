// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm -verify-diagnostics

// What the GPU lowering cannot lower faithfully is an error, never dropped.

#mma = #attn.mma<warps = 1>
func.func @no_layout(%s: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    // expected-error @+1 {{unsupported: tile 'tensor<16x16xf32>' has no GPU layout (run attn-assign-layouts)}}
    %u = arith.constant dense<1.0> : tensor<16x16xf32>
    attn.store_tile %t, %s[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>
func.func @dense_constant(%s: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    // expected-error @+1 {{unsupported: a non-splat tile constant on the GPU}}
    %u = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<16x8xf32, #mma>
    attn.store_tile %u, %s[%c0] rows %c16 : tensor<16x8xf32, #mma>, memref<?x8xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>
func.func @register_rhs(%a: memref<?x16xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %a[%c0] rows %c16 : memref<?x16xbf16> -> tensor<16x16xbf16, #mma>
    %z = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
    // expected-error @+1 {{unsupported: attn.dot on the mma.sync path needs f16/bf16 operands, the rhs in shared memory and #attn.mma accumulators}}
    %s = attn.dot %t, %t, %z {rhs_transposed} : tensor<16x16xbf16, #mma>, tensor<16x16xbf16, #mma> -> tensor<16x16xf32, #mma>
    attn.store_tile %s, %a[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xbf16>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>
func.func @captured_load(%s: memref<?x16xf32>, %n: memref<index>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.load %n[] : memref<index>
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    // expected-error @+1 {{unsupported: the GPU grid reads a value the kernel cannot recompute from the function's arguments}}
    %t = attn.load_tile %s[%c0] rows %rows : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    attn.store_tile %t, %s[%c0] rows %rows : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

// attn.skip_unit_factors on a product with no broadcast row operand: the
// lowering cannot know which rows' factors to test.
#mma = #attn.mma<warps = 1>
func.func @skip_without_broadcast(%s: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    // expected-error @+1 {{unsupported: attn.skip_unit_factors without an attn.broadcast operand}}
    %u = arith.mulf %t, %t {attn.skip_unit_factors} : tensor<16x16xf32, #mma>
    attn.store_tile %u, %s[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

// Column groups narrower than an n-tile would need lanes to exchange parts.
#mma = #attn.mma<warps = 1>
func.func @reduce_half_ntile(%s: memref<?x16xf32>, %l: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    // expected-error @+1 {{unsupported: attn.reduce from 'tensor<16x16xf32, #attn.mma<warps = 1>>' to 'tensor<16x4xf32, #attn.mma<warps = 1>>' (the GPU lowering reduces #attn.mma rows into their #attn.slice, or into column groups of whole n-tiles in the same #attn.mma)}}
    %r = attn.reduce sum %t : tensor<16x16xf32, #mma> -> tensor<16x4xf32, #mma>
    attn.store_tile %r, %l[%c0] rows %c16 : tensor<16x4xf32, #mma>, memref<?x4xf32>
  }
  return
}

// -----

// Rows are copied as consecutive elements: a dynamic innermost stride would
// be read as if it were 1.
#mma = #attn.mma<warps = 1>
func.func @strided_rows(%s: memref<?x16xf32, strided<[?, ?], offset: ?>>,
                        %d: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    // expected-error @+1 {{unsupported: 'memref<?x16xf32, strided<[?, ?], offset: ?>>' on the GPU: the innermost stride must be 1 (statically)}}
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x16xf32, strided<[?, ?], offset: ?>> -> tensor<16x16xf32, #mma>
    attn.store_tile %t, %d[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

#mma = #attn.mma<warps = 1>
func.func @strided_store(%s: memref<?x16xf32>,
                         %d: memref<?x16xf32, strided<[32, 2]>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    // expected-error @+1 {{unsupported: 'memref<?x16xf32, strided<[32, 2]>>' on the GPU: the innermost stride must be 1 (statically)}}
    attn.store_tile %t, %d[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32, strided<[32, 2]>>
  }
  return
}

// -----

// Registers beyond the block's allocation (168 for each of 384 threads):
// setmaxnreg would wait forever.
#acc = #attn.mma<warps = 8, version = 3>
func.func @ws_registers(%o: memref<?x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    // expected-error @+1 {{unsupported: 240 registers for each of 256 consumer threads and 168 for each producer thread exceed the block's 64512 (168 for each of 384 threads)}}
    attn.warp_specialize registers(consumers = 240, producer = 0) {
      %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
      attn.store_tile %z, %o[%c0] rows %n : tensor<128x64xf32, #acc>, memref<?x64xf32>
    } producer {
    }
  }
  return
}

// -----

// A tile loaded into shared memory synchronises the whole program, which
// the producer does not join.
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
func.func @ws_load_tile(%q: memref<?x64xbf16>, %o: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    attn.warp_specialize registers(consumers = 0, producer = 0) {
      // expected-error @+1 {{unsupported: a tile loaded into shared memory with a program-wide barrier in a warp-specialised program (the producer does not take part)}}
      %qt = attn.load_tile %q[%c0] rows %n : memref<?x64xbf16> -> tensor<128x64xbf16, #sl>
      %z = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      %s = attn.dot %qt, %qt, %z {rhs_transposed} : tensor<128x64xbf16, #sl>, tensor<128x64xbf16, #sl> -> tensor<128x128xf32, #acc>
      attn.store_tile %s, %o[%c0] rows %n : tensor<128x128xf32, #acc>, memref<?x128xf32>
    } producer {
    }
  }
  return
}

// -----

// A bulk copy reads through a tensor map the launcher encodes from a kernel
// argument: a view made inside the function has none.
!ring = !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
func.func @bulk_from_view(%k: memref<?x?x64xbf16>, %o: memref<?x8xf32>, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %view = memref.subview %k[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<?x?x64xbf16> to memref<64x64xbf16, strided<[64, 1]>>
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !ring
    // expected-error @+1 {{unsupported: a bulk tensor copy or reduction on a memref that is not an argument of the function (the launcher encodes tensor maps of the arguments)}}
    attn.async_load_tile %view[%j] rows %c64, %r[%c0] {bulk} : memref<64x64xbf16, strided<[64, 1]>>, !ring
    %z = arith.constant dense<0.0> : tensor<16x8xf32, #attn.mma<warps = 1>>
    attn.store_tile %z, %o[%c0] rows %c1 : tensor<16x8xf32, #attn.mma<warps = 1>>, memref<?x8xf32>
  }
  return
}

// -----

// A bulk copy completes on its slot's "full" mbarrier: a ring without
// per-slot barriers (no attn.async_arrive, attn.ring_wait) has none.
!ring = !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
func.func @bulk_without_barriers(%k: memref<?x?x64xbf16>, %o: memref<?x8xf32>, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !ring
    // expected-error @+1 {{unsupported: a bulk copy into a ring without per-slot barriers (no attn.async_arrive on it): the copy completes on its slot's mbarrier}}
    attn.async_load_tile %k[%b, %j] rows %c64, %r[%c0] {bulk} : memref<?x?x64xbf16>, !ring
    %z = arith.constant dense<0.0> : tensor<16x8xf32, #attn.mma<warps = 1>>
    attn.store_tile %z, %o[%c0] rows %c1 : tensor<16x8xf32, #attn.mma<warps = 1>>, memref<?x8xf32>
  }
  return
}

// -----

// A ring's slots and barriers are placed per attn.alloc_ring: one carried
// through a loop's block argument has no allocation the lowering can name.
!ring = !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
func.func @ring_carried(%o: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r0 = attn.alloc_ring : !ring
    %r = scf.for %t = %c0 to %c1 step %c1 iter_args(%x = %r0) -> (!ring) {
      // expected-error @+1 {{unsupported: a ring that is not an attn.alloc_ring result (carried through a block argument): the lowering places a ring's slots and barriers per allocation}}
      scf.yield %x : !ring
    }
    attn.ring_wait %r[%c0] fill %c0 : !ring
    %z = arith.constant dense<0.0> : tensor<16x8xf32, #attn.mma<warps = 1>>
    attn.store_tile %z, %o[%c0] rows %c1 : tensor<16x8xf32, #attn.mma<warps = 1>>, memref<?x8xf32>
  }
  return
}

// -----

// A ring's fills are counted one way: by every copying thread (cp.async) or
// by the bytes of one thread's bulk copies.
!ring = !attn.ring<2, tensor<64x64xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>>
func.func @bulk_and_copies(%k: memref<?x?x64xbf16>, %o: memref<?x8xf32>, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !ring
    attn.async_load_tile %k[%b, %j] rows %c64, %r[%c0] {bulk} : memref<?x?x64xbf16>, !ring
    attn.async_arrive %r[%c0] : !ring
    // expected-error @+1 {{unsupported: copies and bulk copies into one ring (its fills are counted one way)}}
    attn.async_load_tile %k[%b, %j] rows %c64, %r[%c1] : memref<?x?x64xbf16>, !ring
    %z = arith.constant dense<0.0> : tensor<16x8xf32, #attn.mma<warps = 1>>
    attn.store_tile %z, %o[%c0] rows %c1 : tensor<16x8xf32, #attn.mma<warps = 1>>, memref<?x8xf32>
  }
  return
}

// -----

// attn.fused_exponent marks (x − attn.broadcast m)·c: anything else is an
// error, not a silently different product.
#mma = #attn.mma<warps = 1>
func.func @fused_exponent_shape(%s: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %k = arith.constant dense<0.5> : tensor<16x16xf32, #mma>
    // expected-error @+1 {{unsupported: attn.fused_exponent on 'tensor<16x16xf32, #attn.mma<warps = 1>>' (expected (x − attn.broadcast m)·c on an #attn.mma tile)}}
    %e = arith.mulf %t, %k {attn.fused_exponent} : tensor<16x16xf32, #mma>
    attn.store_tile %e, %s[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

// The kernel describes one sliding window (#attn.kernel_info, the
// manifest's window=): masks that give one bound two values in one program
// are refused, not described by the first. (A mask may leave a bound out:
// the backward's ranges that one edge crosses.)
#mma = #attn.mma<warps = 1>
func.func @two_windows(%s: memref<?x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{unsupported: masks of different sliding windows in one GPU program (the kernel describes one window)}}
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %s[%c0] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    %m = attn.mask %t q(%c0, %n) kv(%c0, %n) {causal, window_left = 8} : tensor<16x16xf32, #mma>
    %w = attn.mask %m q(%c0, %n) kv(%c0, %n) {window_left = 16} : tensor<16x16xf32, #mma>
    attn.store_tile %w, %s[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

// The programs of a persistent grid exist only as its bound (the launch)
// and inside its kernel: a host value has no SM count to come from.
func.func @stray_programs(%n: index) -> index {
  // expected-error @+1 {{unsupported: attn.num_programs outside the bound of a persistent grid (the host lowering has no SM count to give it)}}
  %p = attn.num_programs %n
  return %p : index
}

// -----

// Inside a kernel that is not persistent, the launch's x dim counts query
// blocks, not programs.
#mma = #attn.mma<warps = 1>
func.func @programs_not_persistent(%s: memref<?x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    // expected-error @+1 {{unsupported: attn.num_programs in a kernel that is not persistent (its launch is not one block a program)}}
    %p = attn.num_programs %n
    %t = attn.load_tile %s[%p] rows %c16 : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    attn.store_tile %t, %s[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

// A claim needs a persistent grid (its blocks are the programs).
!queue = !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
#acc = #attn.mma<warps = 4, version = 3>
func.func @claim_not_persistent(%o: memref<?x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{unsupported: attn.claim_tile in a grid that is not persistent (its blocks are not programs that loop over tiles)}}
  scf.forall (%b, %h, %x) in (%n, %n, %n) {
    %queue = attn.alloc_ring : !queue
    attn.warp_specialize registers(consumers = 240, producer = 24) {
      %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      attn.store_tile %z, %o[%x] rows %n : tensor<64x64xf32, #acc>, memref<?x64xf32>
    } producer {
      attn.claim_tile %queue[%c0] fill %c0, tiles %n programs %n : !queue
    }
  }
  return
}

// -----

// Only wgmma reads a transposed left operand (M-major from shared memory).
#mma = #attn.mma<warps = 4>
#sh = #attn.shared<swizzle = 8, pad = 0>
func.func @transposed_lhs_mma_sync(%k: memref<?x64xbf16>, %o: memref<?x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %kt = attn.load_tile %k[%c0] rows %n : memref<?x64xbf16> -> tensor<64x64xbf16, #sh>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    // expected-error @+1 {{unsupported: attn.dot with lhs_transposed on mma.sync (only wgmma reads a transposed lhs)}}
    %s = attn.dot %kt, %kt, %z {lhs_transposed} : tensor<64x64xbf16, #sh>, tensor<64x64xbf16, #sh> -> tensor<64x64xf32, #mma>
    attn.store_tile %s, %o[%c0] rows %n : tensor<64x64xf32, #mma>, memref<?x64xf32>
  }
  return
}

// -----

// attn.random pairs n-tiles (one Philox call for eight elements): a tile of
// 8 columns has half a pair.
#mma = #attn.mma<warps = 1>
func.func @random_half_pair(%o: memref<?x8xi32>, %seed: i64, %bh: i32, %off: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    // expected-error @+1 {{unsupported: attn.random on 'tensor<16x8xi32, #attn.mma<warps = 1>>' (the GPU lowering pairs n-tiles: columns a multiple of 16)}}
    %u = attn.random key(%seed) counter(%bh, %off) q(%c0) kv(%c0) : tensor<16x8xi32, #mma>
    attn.store_tile %u, %o[%c0] rows %c16 : tensor<16x8xi32, #mma>, memref<?x8xi32>
  }
  return
}

// -----

// A wait after a load: the kernel could start before the grid it reads
// from completed. Refused, not launched as dependent.
#mma = #attn.mma<warps = 1>
func.func @wait_after_load(%p: memref<?x16xf32>, %o: memref<?x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{unsupported: attn.wait_prior_grids after an op that may touch memory}}
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %t = attn.load_tile %p[%c0] rows %n : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    attn.wait_prior_grids
    attn.store_tile %t, %o[%c0] rows %n : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// -----

// sm_80 has no griddepcontrol.
#mma = #attn.mma<warps = 1>
func.func @wait_on_ampere(%p: memref<?x16xf32>, %o: memref<?x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{unsupported: grid dependency control (griddepcontrol) on sm_80; it needs sm_90 or later}}
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    attn.wait_prior_grids
    %t = attn.load_tile %p[%c0] rows %n : memref<?x16xf32> -> tensor<16x16xf32, #mma>
    attn.store_tile %t, %o[%c0] rows %n : tensor<16x16xf32, #mma>, memref<?x16xf32>
  } {attn.target = #attn.target<arch = "sm_80", smem_per_block = 166912, num_sms = 108>}
  return
}

// -----

// A two-slot staging ring alternates with the steps of its loop: two adds
// a step through it would let the second overwrite a slot the first's
// reductions still read.
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
func.func @two_adds_two_slots(%ws: memref<?x?x?x128xf32>, %n: index, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %out = attn.alloc_ring : !attn.ring<2, tensor<64x128xf32, #sl>>
    scf.for %j = %c0 to %steps step %c1 {
      %t = arith.constant dense<1.0> : tensor<128x64xf32, #acc>
      %s = arith.remui %j, %c2 : index
      // expected-error @+1 {{unsupported: attn.accumulate_tile through a ring of two slots other than once a step, directly in its loop}}
      attn.accumulate_tile %t, %ws[%b, %h, %j] rows %n via %out[%s] : !attn.ring<2, tensor<64x128xf32, #sl>> {transposed} : tensor<128x64xf32, #acc>, memref<?x?x?x128xf32>
      attn.accumulate_tile %t, %ws[%b, %h, %j] rows %n via %out[%s] : !attn.ring<2, tensor<64x128xf32, #sl>> {transposed} : tensor<128x64xf32, #acc>, memref<?x?x?x128xf32>
    }
  }
  return
}

// -----

// attn.block_lists is lowered by attn-tile-attention (a warp a list row
// for a GPU target); left untiled, it would stay in the host code.

func.func @block_lists(%c: memref<1x1x?xi32>, %x: memref<1x1x?x?xi32>,
                       %n: index) {
  // expected-error @+1 {{attn.block_lists must be tiled before convert-attn-gpu-to-nvvm (attn-tile-attention with a GPU target)}}
  attn.block_lists %c, %x sizes(%n, %n, %n, %n) mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %t = arith.cmpi sle, %j, %i : i32
    attn.yield %t : i1
  } : memref<1x1x?xi32>, memref<1x1x?x?xi32>
  return
}

// -----

// Its CPU program (attn.cpu_only) is refused: the host code it is in is
// dropped by the GPU flow.

func.func @cpu_lists(%c: memref<1x1x?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %v = arith.constant 0 : i32
  // expected-error @+1 {{unsupported: a program lowered for the CPU path (attn.cpu_only: attn.block_lists tiled for a CPU target) on the GPU path}}
  scf.forall (%i) in (%n) {
    memref.store %v, %c[%c0, %c0, %i] : memref<1x1x?xi32>
  } {attn.cpu_only}
  return
}

// -----

// A block_lists grid (attn-tile-attention's GPU program of attn.block_lists)
// is described by its mask block, its thread index's bound and the
// attention it serves; without one of them it is not a kernel.

func.func @lists_without_mask_block(%n: index) {
  // expected-error @+1 {{unsupported: a block_lists grid without its mask block (attn.mask_block)}}
  scf.forall (%b, %h, %q) in (%n, 1, %n) {
    %t = gpu.thread_id x upper_bound 512
  } {attn.program = "block_lists", attn.grid = ["batch", "1", "q_blocks"]}
  return
}

// -----

func.func @lists_without_thread_bound(%n: index) {
  // expected-error @+1 {{unsupported: a block_lists grid without a whole number of warps as its thread index's upper_bound}}
  scf.forall (%b, %h, %q) in (%n, 1, %n) {
    %t = gpu.thread_id x
  } {attn.program = "block_lists", attn.mask_block = array<i64: 128, 128>, attn.grid = ["batch", "1", "q_blocks"]}
  return
}

// -----

func.func @lists_without_attention(%c: memref<?x1x?xi32>, %n: index) {
  // expected-error @+1 {{unsupported: attn.block_lists on the GPU without an attention in its function (its kernel is described by the attention it serves)}}
  scf.forall (%b, %h, %q) in (%n, 1, %n) {
    %t = gpu.thread_id x upper_bound 512
    %v = arith.index_cast %t : index to i32
    memref.store %v, %c[%b, %h, %q] : memref<?x1x?xi32>
  } {attn.program = "block_lists", attn.mask_block = array<i64: 128, 128>, attn.grid = ["batch", "1", "q_blocks"]}
  return
}
