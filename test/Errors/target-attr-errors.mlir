// RUN: attn-opt %s -split-input-file -verify-diagnostics

// Absurd #attn.target parameters are rejected where they are written.
// (Unknown arch, smem 4095 and num_sms 0 are in
// test/Dialect/Attn/invalid.mlir.)

func.func @smem_negative(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                         %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{smem_per_block must be in [4096, 2^30] bytes, got -5}}
  attn.attention %q, %k, %v into %o {target = #attn.target<arch = "sm_90", smem_per_block = -5, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @smem_absurd(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                       %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{smem_per_block must be in [4096, 2^30] bytes, got 99999999999999}}
  attn.attention %q, %k, %v into %o {target = #attn.target<arch = "sm_80", smem_per_block = 99999999999999, num_sms = 108>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

func.func @smem_overflows_i64(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                              %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @below {{integer value too large}}
  // expected-error @below {{failed to parse Attn_TargetAttr parameter 'smem_per_block' which is to be a `int64_t`}}
  attn.attention %q, %k, %v into %o {target = #attn.target<arch = "cpu", smem_per_block = 99999999999999999999999, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
