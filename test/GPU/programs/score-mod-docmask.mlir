// Packed documents (FlexAttention's document mask): each position carries
// the id of its document, and query i sees key j only within its own
// document, causally; written as a score_mod that gathers both ids from a
// captured [B, N] i32 table and yields -inf across documents:
//   S' = (docs[b, i] == docs[b, j]) ? scale·QKᵀ : -inf,  causal,
// bf16, D = 64. A query's id is one load a row, a key's one a column. The
// GPU check (tools/scripts/gpu_programs.py, variant "docmask") compares the
// kernel with float64 on fresh document boundaries.
// program: {"variant": "docmask", "dtype": "bf16", "head_dim": 64, "causal": true, "args": ["q", "k", "v", "o", "lse", "docs", "scale"], "bench": true}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_80" --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// CHECK: .entry attention_kernel
// CHECK: mma
// CHECK: ld.global.b32
func.func @attention(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                     %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                     %lse: memref<?x?x?xf32>, %docs: memref<?x?xi32>,
                     %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) score_mod {
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
  } {causal} : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
      memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
