// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -verify-diagnostics
// RUN: not attn-opt %s -split-input-file --attn-codegen="chip=sm_80" 2>&1 | FileCheck %s

// The GPU kernels take f16 and bf16 (the tensor cores' inputs): an f32
// problem is refused where the GPU pipeline starts, with the op's location,
// not deep in the lowering.
// CHECK: select-gpu-blocks-errors.mlir:[[@LINE+4]]:3: error: unsupported: 'f32' attention on the GPU (the tensor cores take f16, bf16 and, on sm_90a, f8E4M3FN; f32 runs on the CPU path)
func.func @f32(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
               %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @+1 {{unsupported: 'f32' attention on the GPU (the tensor cores take f16, bf16 and, on sm_90a, f8E4M3FN; f32 runs on the CPU path)}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// An fp8 row of 96 bytes is no whole number of 64-byte slabs.
func.func @fp8_d96(%q: memref<?x?x?x96xf8E4M3FN>,
                   %v: memref<?x?x96x?xf8E4M3FN>,
                   %o: memref<?x?x?x96xbf16>) {
  // expected-error @+1 {{unsupported: fp8 attention at head dims 96/96 (multiples of 64 only: a row of fp8 tiles fills whole 64- or 128-byte swizzled slabs)}}
  attn.attention %q, %q, %v into %o {v_transposed}
      : memref<?x?x?x96xf8E4M3FN>, memref<?x?x?x96xf8E4M3FN>,
        memref<?x?x96x?xf8E4M3FN>, memref<?x?x?x96xbf16>
  return
}
