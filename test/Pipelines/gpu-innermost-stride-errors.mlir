// Operands whose innermost (head-dim) stride is not statically 1: the GPU
// kernel reads each row as consecutive elements, so attn-codegen refuses
// them at the op ("unsupported", exit 1) rather than build a kernel that
// reads the wrong elements; the CPU pipeline (strided vector transfers)
// compiles the same program.

// RUN: not attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: attn-opt %s --attn-cpu-pipeline -o /dev/null
// CHECK: gpu-innermost-stride-errors.mlir:[[@LINE+5]]:3: error: unsupported: 'memref<?x?x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>' on the GPU: the innermost stride must be 1 (statically)

#s = strided<[?, ?, ?, ?], offset: ?>
func.func @attention(%q: memref<?x?x?x64xbf16, #s>, %k: memref<?x?x?x64xbf16, #s>,
                     %v: memref<?x?x?x64xbf16, #s>, %o: memref<?x?x?x64xbf16, #s>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x64xbf16, #s>, memref<?x?x?x64xbf16, #s>,
        memref<?x?x?x64xbf16, #s>, memref<?x?x?x64xbf16, #s>
  return
}
