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
