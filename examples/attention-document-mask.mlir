// Packed training documents (FlexAttention's document mask): several
// documents share one sequence, and a query sees, causally, only the keys of
// its own document. Written as a score_mod region that gathers each
// position's document id from a captured [batch, positions] table and hides
// the other documents' keys with -inf:
//   S' = (docs[b, i] == docs[b, j]) ? scale·QKᵀ : -inf,  causal,
// bf16, head dim 64. attn-run fills the table with random ids in [0, 4)
// (documents interleaved, a harder mask than contiguous ones) and its
// float64 reference evaluates the same region:
//   build/bin/attn-run examples/attention-document-mask.mlir --batch 4 \
//       --heads 8 --seq-q 2048 --check
// (batch 4 and 2048 positions at most: the table's shape.) Every causal key
// block is computed here; with block lists (block_mask(...), see
// attention-block-sparse.mlir) a program visits only the blocks they name.
func.func @attention(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                     %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                     %lse: memref<?x?x?xf32>, %docs: memref<4x2048xi32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<4x2048xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<4x2048xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %same, %s, %ninf : f32
    attn.yield %r : f32
  } {causal} : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
      memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
