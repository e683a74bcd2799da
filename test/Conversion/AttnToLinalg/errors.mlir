// RUN: attn-opt %s -split-input-file -verify-diagnostics --convert-attn-to-linalg
// RUN: attn-opt %s -split-input-file -verify-diagnostics --attn-fuse-online-softmax --convert-attn-to-linalg

// convert-attn-to-linalg refuses an attn.attention that was not tiled; the
// fusion pass leaves it alone.

func.func @untiled(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                   %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{attn.attention must be tiled before convert-attn-to-linalg (run attn-tile-attention)}}
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// A bulk reduction through a shared-memory ring is a GPU schedule.
func.func @via_on_cpu(%t: tensor<64x128xf32>, %m: memref<?x?x?x128xf32>, %i: index,
                      %r: !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 16>>>) {
  // expected-error @below {{unsupported: attn.accumulate_tile via a shared memory ring (a GPU schedule) on the CPU path}}
  // expected-error @below {{could not lower to linalg}}
  attn.accumulate_tile %t, %m[%i, %i, %i] rows %i via %r : !attn.ring<1, tensor<64x128xf32, #attn.shared<swizzle = 0, pad = 16>>>
      : tensor<64x128xf32>, memref<?x?x?x128xf32>
  return
}

// -----

// A key block gathered from several pages is a GPU schedule (the CPU path's
// blocks lie in one page).
func.func @pages_on_cpu(%k: memref<?x?x16x64xf32>, %t: memref<?x?xi32>,
                        %i: index) -> tensor<64x64xf32> {
  // expected-error @below {{unsupported: a key block gathered from several pages on the CPU path (its blocks lie in one page)}}
  // expected-error @below {{could not lower to linalg}}
  %0 = attn.load_tile %k[%i, %i, %i] rows %i pages(%t : memref<?x?xi32>)
      : memref<?x?x16x64xf32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// Packed (position, head) rows are a GPU schedule (the CPU path's tiling
// runs the heads one by one).
func.func @group_on_cpu(%q: memref<?x?x?x64xf32>, %i: index) -> tensor<64x64xf32> {
  // expected-error @below {{unsupported: packed (position, head) rows (group) on the CPU path (its tiling does not pack query heads)}}
  // expected-error @below {{could not lower to linalg}}
  %0 = attn.load_tile %q[%i, %i, %i] rows %i group(%i)
      : memref<?x?x?x64xf32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
