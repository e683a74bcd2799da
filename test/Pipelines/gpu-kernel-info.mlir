// RUN: attn-opt %s -split-input-file --attn-gpu-kernel-pipeline="chip=sm_90a" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-gpu-kernel-pipeline="chip=sm_80" | FileCheck %s

// The kernel's description carries both head dims: D of Q and K (what
// Q·Kᵀ reduces over) and Dv of V and O (the columns of P·V). The bundle's
// manifest and the runtime's validation of a launch read head_dim_v from
// here, so a Dv ≠ D kernel must not report D twice.
// CHECK-LABEL: gpu.func @attention_kernel
// CHECK-SAME:    head_dim = 192, head_dim_v = 128, dtype = "bf16", causal = true
func.func @attention(%q: memref<?x?x?x192xbf16>, %k: memref<?x?x?x192xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x192xbf16>, memref<?x?x?x192xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// Dv = D.
// CHECK-LABEL: gpu.func @attention_kernel
// CHECK-SAME:    head_dim = 64, head_dim_v = 64, dtype = "f16", causal = false
func.func @attention(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>,
                     %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>,
        memref<?x?x?x64xf16>, memref<?x?x?x64xf16>
  return
}

// -----

// The soft-cap: in the kernel's description (the manifest's softcap=, by
// which the runtime serves the kernel), and in its code as tanh.approx.
// CHECK-LABEL: gpu.func @attention_kernel
// CHECK-SAME:    softcap = 5.000000e+01 : f32
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o {causal, softcap = 50.0 : f32}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
