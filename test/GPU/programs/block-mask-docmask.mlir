// Packed documents with block sparsity (FlexAttention's document mask and
// BlockMask): the score_mod hides other documents' keys (ids gathered from a
// captured [B, N] i32 table) and the block lists name, per sequence and
// 128-row query block, the 128-key blocks that hold any key of the same
// documents: the kernel visits only those, a sequence of short documents
// costing its documents' diagonal blocks, not the whole causal triangle.
// bf16, D = 128, causal. The GPU check (tools/scripts/gpu_programs.py,
// variant "docmask") builds the lists from fresh document boundaries, leaves
// out a random fraction of the visible blocks (and lists invisible ones) in
// some cases, and compares with float64 under the same lists.
// program: {"variant": "docmask", "dtype": "bf16", "head_dim": 128, "causal": true, "args": ["q", "k", "v", "o", "lse", "counts", "indices", "docs", "scale"], "mask_block": [128, 128], "check_drop": 0.25, "bench": true}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_80" --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// The listed block's index is one load a step (the producer's and the
// consumers'), the K/V tiles bulk tensor copies on sm_90a.
// CHECK-LABEL: .entry attention_kernel
// SM90-DAG: cp.async.bulk.tensor
// SM90-DAG: wgmma.mma_async
// CHECK-DAG: ld.global.b32
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %counts: memref<?x1x?xi32>,
                     %indices: memref<?x1x?x?xi32>, %docs: memref<?x?xi32>,
                     %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale)
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %same, %s, %ninf : f32
    attn.yield %r : f32
  } {causal, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
