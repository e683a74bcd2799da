// Block sparsity (FlexAttention's BlockMask): packed training documents of
// 256 positions each, where a query sees, causally, only the keys of its own
// document. The score_mod hides the other documents' keys (-inf), and the
// block lists name, for each 128-row query block, the 128-key blocks that
// hold any key it may see: every other block is never visited, so a
// sequence of short documents costs its documents' diagonal blocks, not the
// whole causal triangle (at 2048 positions 24 of the 136 causal blocks).
//   S' = (i / 256 == j / 256) ? scale·QKᵀ : -inf,  causal,
//   and every key of a block not in row qb of the lists masked,
// bf16, head dim 64. The lists are the caller's: attn-run builds them from
// the op's own masks (--block-mask-drop leaves a fraction of the visible
// blocks out, and the float64 reference masks them too):
//   build/bin/attn-run examples/attention-block-sparse.mlir --batch 2 \
//       --heads 8 --seq-q 2048 --check
// On the GPU, tools/scripts/gpu_programs.py runs the same op (with document
// ids from a table) beside FlexAttention.
func.func @attention(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                     %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                     %lse: memref<?x?x?xf32>, %counts: memref<1x1x?xi32>,
                     %indices: memref<1x1x?x?xi32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      block_mask(%counts, %indices : memref<1x1x?xi32>, memref<1x1x?x?xi32>)
      score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %len = arith.constant 256 : i32
    %di = arith.divsi %i, %len : i32
    %dj = arith.divsi %j, %len : i32
    %same = arith.cmpi eq, %di, %dj : i32
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %same, %s, %ninf : f32
    attn.yield %r : f32
  } {causal, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
