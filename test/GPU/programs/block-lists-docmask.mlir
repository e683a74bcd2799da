// Packed documents whose block lists the program builds itself on the GPU
// (FlexAttention's create_block_mask): attn.block_lists evaluates the
// document mask_mod over every mask block (a thread block a list row, a
// warp a key block) and writes the partial and full lists, then
// attn.attention reads them. bf16, D = 128, causal. The GPU check
// (tools/scripts/gpu_programs.py, variant "docmask" with "generate_lists")
// poisons the list buffers, launches the lists kernel, compares every row's
// counts and blocks with the lists it builds in torch, then checks O and the
// LSE against float64.
// program: {"variant": "docmask", "generate_lists": true, "dtype": "bf16", "head_dim": 128, "causal": true, "args": ["q", "k", "v", "o", "lse", "counts", "indices", "full_counts", "full_indices", "docs", "scale"], "mask_block": [128, 128], "bench": true}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_80" --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// The lists kernel (sixteen warps a list row: the kinds, each warp's lanes
// combined by butterfly shuffles, then warp 0's prefix counts), then the
// attention that reads the lists.
// CHECK-LABEL: .entry attention_kernel(
// CHECK: .maxntid 512, 1, 1
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync 0;
// CHECK: shfl.sync.up.b32
// CHECK: shfl.sync.idx.b32
// CHECK: st.global.b32
// CHECK-LABEL: .entry attention_kernel_1(
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
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = memref.dim %q, %c0 : memref<?x?x?x128xbf16>
  %h = memref.dim %q, %c1 : memref<?x?x?x128xbf16>
  %nq = memref.dim %q, %c2 : memref<?x?x?x128xbf16>
  %nk = memref.dim %k, %c2 : memref<?x?x?x128xbf16>
  attn.block_lists %counts, %indices
      full(%full_counts, %full_indices
           : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      sizes(%b, %h, %nq, %nk) mask_mod {
  ^bb0(%bi: i32, %hi: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %bi : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, mask_block = array<i64: 128, 128>}
      : memref<?x1x?xi32>, memref<?x1x?x?xi32>
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale)
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      full_blocks(%full_counts, %full_indices
                  : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      mask_mod {
  ^bb0(%bi: i32, %hi: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %bi : i32 to index
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
