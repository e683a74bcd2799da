// Packed training documents with block lists the program builds itself
// (FlexAttention's create_block_mask): a mask_mod keeps, causally, the keys
// of the query's own document, whose ids it gathers from a captured
// [batch, positions] table; block_mask(...) lists, per 128-row query block,
// the 128-key blocks holding any such key, and full_blocks(...) those whose
// keys it keeps all (visited without the mask_mod):
//   keep(b, h, i, j) = docs[b, i] == docs[b, j],  causal,
// bf16, head dim 128, one list row per batch shared by the heads.
// attn-generate-block-lists writes attn.block_lists before the op, which
// fills the lists from the same region on every call (on the CPU path a
// parallel loop; on a GPU a kernel of its own before the attention's, as
// in test/GPU/programs/block-lists-docmask.mlir):
//   build/bin/attn-opt examples/attention-document-lists.mlir \
//       -attn-generate-block-lists
// attn-run runs it that way into poisoned lists, compares them with the
// lists it builds itself, then O and the LSE with the float64 reference
// (documents here are random ids in [0, 4): interleaved, the lists mostly
// partial; batch 2 and 4096 positions at most: the table's shape):
//   build/bin/attn-run examples/attention-document-lists.mlir --batch 2 \
//       --heads 4 --seq-q 1024 --generate-block-lists --check
// Without --generate-block-lists attn-run hands the kernel its own lists.
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %counts: memref<?x1x?xi32>,
                     %indices: memref<?x1x?x?xi32>,
                     %full_counts: memref<?x1x?xi32>,
                     %full_indices: memref<?x1x?x?xi32>,
                     %docs: memref<2x4096xi32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      full_blocks(%full_counts, %full_indices
                  : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<2x4096xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<2x4096xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
