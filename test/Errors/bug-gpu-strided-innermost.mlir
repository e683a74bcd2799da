// FIXED BUG (regression test): operands whose innermost (head-dim) stride is
// dynamic compiled for the GPU with exit 0, and the kernel read each row as
// consecutive elements whatever the stride was: a silently wrong kernel. The
// GPU backend now says that it needs a unit innermost stride; the CPU path
// (strided vector transfers) compiles the same program.

// RUN: not attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: attn-opt %s --attn-cpu-pipeline -o /dev/null
// CHECK: bug-gpu-strided-innermost.mlir:[[@LINE+5]]:3: error: unsupported: 'memref<?x?x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>' on the GPU: the innermost stride must be 1 (statically)

#s = strided<[?, ?, ?, ?], offset: ?>
func.func @attention(%q: memref<?x?x?x64xbf16, #s>, %k: memref<?x?x?x64xbf16, #s>,
                     %v: memref<?x?x?x64xbf16, #s>, %o: memref<?x?x?x64xbf16, #s>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x64xbf16, #s>, memref<?x?x?x64xbf16, #s>,
        memref<?x?x?x64xbf16, #s>, memref<?x?x?x64xbf16, #s>
  return
}
