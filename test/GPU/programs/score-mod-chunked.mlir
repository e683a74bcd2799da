// Chunked local attention (Llama 4's): query i sees key j only when both lie
// in the same chunk of C positions, written as a score_mod that reads the
// positions and hides the other keys with -inf:
//   S' = (floor(i / C) == floor(j / C)) ? scale·QKᵀ : -inf,  C = 96,
// bf16, D = 64, not causal. Rows whose chunk holds no key (Nq > Nk) see no
// key at all: O = 0 and LSE = -inf, as for a row the mask hides. The GPU
// check (tools/scripts/gpu_programs.py, variant "chunked") compares it with
// float64.
// program: {"variant": "chunked", "chunk": 96, "dtype": "bf16", "head_dim": 64, "causal": false, "args": ["q", "k", "v", "o", "lse", "scale"], "bench": false}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_80" --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// CHECK: .entry attention_kernel
// CHECK: mma
// The chunk of each position: a division by the constant C.
// CHECK: mul.hi.s32
func.func @attention(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                     %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                     %lse: memref<?x?x?xf32>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %c = arith.constant 96 : i32
    %ci = arith.floordivsi %i, %c : i32
    %cj = arith.floordivsi %j, %c : i32
    %same = arith.cmpi eq, %ci, %cj : i32
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %same, %s, %ninf : f32
    attn.yield %r : f32
  } : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
      memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
