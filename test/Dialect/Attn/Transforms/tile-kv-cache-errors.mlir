// RUN: attn-opt %s -split-input-file -verify-diagnostics -attn-tile-attention="block-kv=32"

// A key block of a paged cache is read from one page on the CPU path: a
// block-kv option larger than the static page size is refused, not split
// across pages (GPU blocks gather whole pages: tile-kv-cache.mlir).
func.func @page_smaller_than_block(%q: memref<?x?x?x64xbf16>,
                                   %k: memref<?x?x16x64xbf16>,
                                   %lens: memref<?xi32>,
                                   %table: memref<?x?xi32>) {
  // expected-error @+1 {{unsupported: page size 16 is not a multiple of the key block (Bc=32): a key block is read from one page on the CPU path}}
  attn.attention %q, %k, %k into %q kv_lens(%lens : memref<?xi32>)
      pages(%table : memref<?x?xi32>)
      : memref<?x?x?x64xbf16>, memref<?x?x16x64xbf16>,
        memref<?x?x16x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// A page size of 64 holds whole blocks of 32.
func.func @page_of_two_blocks(%q: memref<?x?x?x64xbf16>,
                              %k: memref<?x?x64x64xbf16>,
                              %lens: memref<?xi32>,
                              %table: memref<?x?xi32>) {
  attn.attention %q, %k, %k into %q kv_lens(%lens : memref<?xi32>)
      pages(%table : memref<?x?xi32>)
      : memref<?x?x?x64xbf16>, memref<?x?x64x64xbf16>,
        memref<?x?x64x64xbf16>, memref<?x?x?x64xbf16>
  return
}
