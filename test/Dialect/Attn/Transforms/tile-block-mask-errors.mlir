// RUN: attn-opt %s -split-input-file --attn-tile-attention -verify-diagnostics

// Explicit blocks that straddle the mask's blocks are refused.
func.func @straddle(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                    %o: memref<?x?x?x64xbf16>, %cnt: memref<1x1x?xi32>,
                    %idx: memref<1x1x?x?xi32>) {
  // expected-error @+1 {{unsupported: blocks Br=128, Bc=64 do not divide the block mask's [64, 64]: a program's key blocks must lie inside the mask's blocks}}
  attn.attention %q, %k, %k into %o
      block_mask(%cnt, %idx : memref<1x1x?xi32>, memref<1x1x?x?xi32>)
      {mask_block = array<i64: 64, 64>, block_q = 128 : i64,
       block_kv = 64 : i64}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
