// Packed documents with block sparsity and full blocks (FlexAttention's
// mask_mod and BlockMask with full_kv_indices): the document mask is a
// mask_mod region (ids gathered from a captured [B, N] i32 table), and the
// 128-key blocks whose keys all belong to the query block's document are in
// the full_blocks lists, where the kernel evaluates no mask_mod (only the
// causal diagonal's mask); the partial ones carry it. bf16, D = 128,
// causal. The GPU check (tools/scripts/gpu_programs.py, variant "docmask")
// builds both lists from fresh document boundaries, in some cases leaves
// blocks out, lists invisible ones and lists partial ones as full (their
// mask then skipped, in the float64 reference too).
// program: {"variant": "docmask", "dtype": "bf16", "head_dim": 128, "causal": true, "args": ["q", "k", "v", "o", "lse", "counts", "indices", "full_counts", "full_indices", "docs", "scale"], "mask_block": [128, 128], "check_drop": 0.25, "bench": true}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_80" --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// CHECK-LABEL: .entry attention_kernel
// SM90-DAG: cp.async.bulk.tensor
// SM90-DAG: wgmma.mma_async
// CHECK-DAG: ld.global.b32
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %counts: memref<?x1x?xi32>,
                     %indices: memref<?x1x?x?xi32>,
                     %full_counts: memref<?x1x?xi32>,
                     %full_indices: memref<?x1x?x?xi32>,
                     %docs: memref<?x?xi32>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale)
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      full_blocks(%full_counts, %full_indices
                  : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
